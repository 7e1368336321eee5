"""SIGKILL at every journal write of a scripted shift, then restart (docs/requirements.md R1, R2).

A real child process (forked) runs the shift on a journal file and kills itself with
SIGKILL at its N-th commit: just before it, just after it (before the anchor beside the
journal follows), or once the anchor is on disk. The crash comes through a seam of the
test's own, :class:`CrashingJournal` (the journal has no crash switch). The parent then
starts a table on the same journal and proves: it is not locked; the rebuilt state
equals the state the reference run had after the same events; finishing the shift gives
exactly the reference's rounds and meters (none lost, none settled twice); the meters
equal the sum of the round records; the verifier (``verify-journal``'s, from the first
event) finds nothing wrong.
"""

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from step_clock import StepClock

from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import Game, TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus, Misread
from controller.game.inputs import (
    ConfigChange,
    Decide,
    ManualCard,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    VoidRound,
)
from controller.game.replay import round_records
from controller.game.table import Table
from controller.journal import Journal

SUP = DEMO_PINS["supervisor"]
CONFIG = TableConfig(seats=3, pin_hashes=demo_pin_hashes())


def cards(text: str) -> list[CardRead]:
    return [CardRead(card=c, code=c) for c in text.split()]


def play(*decisions: str) -> list:
    return [*(Decide(seat=i + 1, decision=d) for i, d in enumerate(decisions)),
            Reveal(), Settle(), NextRound()]


SHIFT = [
    LinkStatus(state=LinkState.ONLINE),
    # round 1: a misread resolved by a supervisor's manual card
    PlaceBet(seat=1, bet="ante", amount=100), PlaceBet(seat=1, bet="pair_plus", amount=100),
    PlaceBet(seat=2, bet="ante", amount=500), PlaceBet(seat=2, bet="six_card_bonus", amount=100),
    NoMoreBets(), *cards("Ah Kh 2c Qd"), Misread(), ManualCard(card="Qs", pin=SUP),
    *cards("5d 9c 3s 8h"), *play("play", "fold"),
    # round 2: the shoe link drops mid-deal and comes back intact
    Rebet(seat=0), NoMoreBets(), *cards("Tc Jd 4s"),
    LinkStatus(state=LinkState.DISCONNECTED), LinkStatus(state=LinkState.ONLINE),
    *cards("Td Jc 4h 2s 2d Ac"), *play("play", "play"),
    # round 3: a duplicate card voids and blocks the deck
    Rebet(seat=0), NoMoreBets(), *cards("7c 7d 7c"), UnblockDeck(reason="checked", pin=SUP),
    NextRound(pin=SUP),
    # round 4: a supervisor voids mid-deal
    Rebet(seat=0), NoMoreBets(), *cards("Ks Qh"), VoidRound(reason="dispute", pin=SUP),
    NextRound(),
    # round 5: a plain round
    Rebet(seat=0), NoMoreBets(), *cards("As Ad Ac 6s 6d 6h 9s 9d 3c"), *play("play", "play"),
    # round 6: one burn configured, flagged by the shoe and unreadable; a readable burn
    # flagged mid-deal; one more after the settlement, added to round 6's record
    ConfigChange(key="burn_cards", value=1, pin=SUP), Rebet(seat=0), NoMoreBets(),
    Misread(burn=True), *cards("Kc Kd 7h"), CardRead(card="Jh", code="Jh", burn=True),
    *cards("Qc Qd 7s 2h 2s 4c"), *play("play", "play")[:-1],
    CardRead(card="Ts", code="Ts", burn=True), NextRound(),
]


WHEN = ("before", "after", "anchored")


class CrashingJournal(Journal):
    """A journal that SIGKILLs its process at its ``at``-th commit.

    ``when``: ``before`` the commit, ``after`` it (the anchor not yet brought up to it),
    or once the anchor is ``anchored`` on disk.
    """

    def __init__(self, path: Path, at: int, when: str) -> None:
        super().__init__(path)
        self.at, self.when = at, when

    def _commit(self) -> None:
        if self.commits + 1 == self.at and self.when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        super()._commit()
        if self.commits == self.at and self.when == "after":
            os.kill(os.getpid(), signal.SIGKILL)

    def _committed(self) -> None:
        super()._committed()
        if self.commits == self.at and self.when == "anchored":
            if self._anchor is not None:
                self._anchor.flush()
            os.kill(os.getpid(), signal.SIGKILL)


class RecordingJournal(Journal):
    """A journal that notes its newest event after every commit."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.heads = [0]

    def _committed(self) -> None:
        super()._committed()
        self.heads.append(self.last_seq)


def reference() -> tuple[dict[int, dict], dict[int, int], Table]:
    """States by journal seq, commit number -> last seq, and the finished table."""
    t = Table(RecordingJournal(":memory:"), CONFIG, clock=StepClock())
    states = {0: Game(CONFIG).to_dict(), t.game.last_seq: t.game.to_dict()}
    for item in SHIFT:
        t.process([item])
        states[t.game.last_seq] = t.game.to_dict()
    return states, dict(enumerate(t.journal.heads)), t


def rounds_of(table: Table) -> list[dict]:
    return without_times(round_records(table.journal))


def without_times(records: list[dict]) -> list[dict]:
    out = []
    for r in records:
        r = dict(r)
        r.pop("started_utc"), r.pop("ended_utc")
        out.append(r)
    return out


@pytest.fixture(scope="module")
def ref():
    states, seq_at_commit, t = reference()
    yield states, seq_at_commit, rounds_of(t), t.game.meters_dict()["rows"]
    t.close()


def in_child(run) -> int:
    """Fork; the child calls ``run()`` and exits. Returns the signal that ended it (or
    minus its exit status)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            run()
        except BaseException:  # noqa: BLE001 - report any failure through the exit code
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)


def run_child(path: Path, at: int, when: str) -> int:
    """Fork; the child runs the shift and is killed at commit ``at``. Returns its signal."""

    def shift() -> None:
        t = Table(CrashingJournal(path, at, when), CONFIG, clock=StepClock())
        for item in SHIFT:
            t.process([item])
        t.close()

    return in_child(shift)


def finish_shift(path: Path) -> Table:
    t = Table(path, CONFIG, clock=StepClock(start=10_000))
    done = max(t.recovered["last_seq"] - 1, 0)  # the first record is the start-up
    if t.game.round.paused_for("interrupted"):
        assert t.process([Resume(pin=SUP)])[0].accepted
    for item in SHIFT[done:]:
        t.process([item])
    return t


def kill_points(seq_at_commit: dict[int, int]) -> list[tuple[int, str]]:
    last = max(seq_at_commit)
    return [(k, when) for k in range(1, last + 1) for when in WHEN]


def shm_dir(tmp_path: Path) -> Path:
    """A tmpfs directory when there is one (fsync is cheap there; the code path is the same)."""
    base = Path("/dev/shm")
    if base.is_dir() and os.access(base, os.W_OK):
        d = base / f"threecard-crash-{os.getpid()}"
        d.mkdir(exist_ok=True)
        return d
    return tmp_path


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_sigkill_at_every_journal_write_then_restart(ref, tmp_path):
    states, seq_at_commit, final_rounds, final_meters = ref
    base = shm_dir(tmp_path)
    points = kill_points(seq_at_commit)
    assert len(points) > 210
    try:
        for k, when in points:
            point = f"commit {k} ({when})"
            path = base / f"j{k}{when}.sqlite"
            sig = run_child(path, k, when)
            assert sig == signal.SIGKILL, f"child at {point} ended with {sig}"
            t = finish_shift(path)
            assert t.locked is None, f"locked after a kill at {point}: {t.locked}"
            durable = seq_at_commit[k if when != "before" else k - 1]
            rebuilt = t.recovered
            assert rebuilt["last_seq"] == durable, point
            assert rebuilt == states[durable], f"state rebuilt after a kill at {point}"
            records = round_records(t.journal)              # replayed once for both checks
            assert without_times(records) == final_rounds, f"rounds after a kill at {point}"
            assert t.game.meters_dict()["rows"] == final_meters, f"meters after a kill at {point}"
            assert rc.sum_rounds(records) == t.game.meters_dict()["rows"]
            t.close()
            verdict = rc.verify(path)
            assert verdict.ok and not verdict.notes, (point, verdict.summary())
            for p in base.glob(path.name + "*"):
                p.unlink()
        print(f"\nkills survived: {len(points)} (every commit of the shift: before it, "
              "after it, after its anchor)")
    finally:
        if base != tmp_path:
            for p in base.glob("*"):
                p.unlink()
            base.rmdir()


def test_the_shift_without_a_kill_matches_the_reference(ref, tmp_path):
    states, _, final_rounds, final_meters = ref
    assert [(r["round_id"], r["status"], r["void_reason"]) for r in final_rounds] == [
        (6, "settled", None), (5, "settled", None), (4, "void", "dispute"),
        (3, "void", "duplicate_card"), (2, "settled", None), (1, "settled", None)]
    t = finish_shift(tmp_path / "j.sqlite")
    assert rounds_of(t) == final_rounds and t.game.meters_dict()["rows"] == final_meters
    assert rc.recall(tmp_path / "j.sqlite")[0]["round_id"] == 6  # round 7: no bets yet
    (r6,) = [r for r in final_rounds if r["round_id"] == 6]
    assert [tuple(d) for d in r6["deal"][:5]] == [
        (None, "burn", False), ("Kc", "seat 1", False), ("Kd", "seat 2", False),
        ("7h", "dealer", False), ("Jh", "burn", False)]
    assert tuple(r6["deal"][-1]) == ("Ts", "burn", False) and len(r6["deal"]) == 12
    assert {s["seat"]: s["cards"] for s in r6["seats"]} == {1: ["Kc", "Qc", "2h"],
                                                           2: ["Kd", "Qd", "2s"]}
    t.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_crash_after_a_round_closes_and_a_counter_moves_in_one_batch_never_locks(tmp_path):
    """A round's close and a later counter change in one commit, then two crashes.

    The derived rows of such a batch must hold the meters and counters of the newest
    event, not those of the round's close: a table that wrote the close's (with
    ``derived_at`` naming the newest event) and crashed again right after its start-up
    record was locked for good at the next start ("the event counters were changed").
    """
    path = tmp_path / "j.sqlite"

    def shift_then_crash() -> None:
        t = Table(path, CONFIG, clock=StepClock())
        t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=100),
                   NoMoreBets(), *cards("Ah Kh 2c Qd 5d 9c")])
        # the close, the next round, and a rejected input (a counter) in one commit
        t.process([Decide(seat=1, decision="play"), Reveal(), Settle(), NextRound(), Reveal()],
                  flush=False)
        os.kill(os.getpid(), signal.SIGKILL)             # before the derived rows are written

    def restart_then_crash() -> None:
        Table(CrashingJournal(path, 2, "after"), CONFIG, clock=StepClock(start=100))

    assert in_child(shift_then_crash) == signal.SIGKILL
    assert in_child(restart_then_crash) == signal.SIGKILL  # right after its start-up record
    t = Table(path, CONFIG, clock=StepClock(start=200))
    assert t.locked is None
    assert t.game.meters.counters["rejected"] == 1 and t.game.meters.counters["power_ups"] == 3
    t.close()
    assert rc.verify(path).ok


def threecard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(THREECARD), *args], capture_output=True, text=True, timeout=300)


THREECARD = Path(sys.executable).with_name("threecard")
KILLS = 50


@pytest.mark.slow
def test_simulate_killed_50_times_at_random_instants_then_finishes(tmp_path):
    """``threecard simulate`` SIGKILLed 50 times at random instants of its first 3 s.

    Each run asks for a million rounds, so it is still writing when the kill comes (or
    still starting: verifying, replaying, writing its start-up record). Every restart
    must open the journal (a locked table exits at once with the reason); then a last
    run finishes 20 more rounds, and the journal verifies, its meters reconcile, and
    every round id appears once.
    """
    seed = int(os.environ.get("THREECARD_TEST_SEED", "0")) or random.randrange(1, 10**9)
    rng = random.Random(seed)
    journal = str(tmp_path / "sim.sqlite")
    args = ["simulate", "--rules", "live", "--seats", "3", "--seed", "5",
            "--faults", "all=0.02", "--journal", journal, "--json"]
    for n in range(KILLS):
        p = subprocess.Popen([str(THREECARD), *args, "--rounds", "1000000"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            _, err = p.communicate(timeout=rng.uniform(0.0, 3.0))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.communicate()
        else:
            pytest.fail(f"run {n} (seed {seed}) ended by itself, status {p.returncode}: {err}")
    m = json.loads(threecard("meters", "--journal", journal, "--json").stdout)
    target = m["rows"].get("total", {}).get("rounds", 0) + 20
    p = threecard(*args, "--rounds", str(target))
    assert p.returncode == 0, f"seed {seed}: {p.stderr}"
    out = json.loads(p.stdout)
    assert out["rounds_settled"] == target and out["invariant_violations"] == 0
    v = json.loads(threecard("verify-journal", "--journal", journal, "--json").stdout)
    assert v["ok"] and v["notes"] == [] and v["checked_from"] == 1, (seed, v)
    m = json.loads(threecard("meters", "--journal", journal, "--json").stdout)
    assert m["reconciled"] and m["rows"]["total"]["rounds"] == target, m
    rec = json.loads(threecard("recall", "--journal", journal, "--json", "--last",
                               "1000000").stdout)
    ids = sorted(r["round_id"] for r in rec)
    assert ids == list(range(1, len(ids) + 1))           # every round id once
    assert sum(r["status"] == "settled" for r in rec) == target


@pytest.mark.slow
def test_the_daemon_killed_10_times_at_random_instants_then_plays_on(tmp_path):
    """``threecard run --demo --headless`` (table thread, screens loop, autoplay) SIGKILLed
    10 times in its first 5 s; then it plays 2 more rounds: never locked, and the journal
    verifies."""
    seed = int(os.environ.get("THREECARD_TEST_SEED", "0")) or random.randrange(1, 10**9)
    rng = random.Random(seed)
    journal = str(tmp_path / "run.sqlite3")
    args = [str(THREECARD), "run", "--demo", "--headless", "--journal", journal]
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    for n in range(10):
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env)
        try:
            out, _ = p.communicate(timeout=rng.uniform(0.0, 5.0))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            out, _ = p.communicate()
        else:
            pytest.fail(f"run {n} (seed {seed}) ended by itself: {out[-2000:]}")
        assert "TABLE LOCKED" not in out, f"seed {seed}, run {n}: {out[-2000:]}"
    p = subprocess.run([*args, "--rounds", "2"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0 and "TABLE LOCKED" not in p.stdout + p.stderr, p.stdout[-2000:]
    v = json.loads(threecard("verify-journal", "--journal", journal, "--json").stdout)
    assert v["ok"] and v["notes"] == [], (seed, v)
    m = json.loads(threecard("meters", "--journal", journal, "--json").stdout)
    assert m["reconciled"], m


class DiskFullOnce(Journal):
    """A journal whose next derived-rows commit fails as on a full disk."""

    fail_next_derived = False

    def write_derived(self, derived, mark: bool = False) -> None:
        if self.fail_next_derived:
            self.fail_next_derived = False
            from controller.journal import JournalError
            raise JournalError(f"{self.path}: journal write failed: database or disk is full")
        super().write_derived(derived, mark)


def test_a_derived_write_lost_to_a_full_disk_locks_the_table_and_never_the_journal(tmp_path):
    """The rows a failed derived write held are lost from memory: the table stops there
    (no later commit may mark them written), and a restart with room rebuilds them."""
    path = tmp_path / "j.sqlite"
    j = DiskFullOnce(path)
    t = Table(j, CONFIG, clock=StepClock())
    t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=100),
               NoMoreBets(), *cards("Ah Kh 2c Qd 5d 9c"), Decide(seat=1, decision="play"),
               Reveal()])
    j.fail_next_derived = True
    with pytest.raises(Exception, match="disk is full"):
        t.process([Settle()])                            # the round's record was in that write
    assert t.locked and "disk is full" in t.locked
    assert [v.accepted for v in t.process([NextRound()])] == [False]   # nothing more written
    t.close()
    t = Table(path, CONFIG, clock=StepClock(start=100))  # the disk has room again
    assert t.locked is None
    assert [r.round_id for r in t.game.recall if r.status == "settled"] == [1]
    t.close()
    assert rc.verify(path).ok
