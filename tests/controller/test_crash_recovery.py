"""SIGKILL at every journal write of a scripted shift, then restart (docs/requirements.md R1, R2).

A real child process (forked) runs the shift on a journal file and kills itself with
SIGKILL just before, or just after, its N-th commit (the test's own seam, KILL_AT_COMMIT,
patched into the journal of that child only). The parent
then starts a table on the same journal and proves: the rebuilt state equals the state
the reference run had after the same events; finishing the shift gives exactly the
reference's rounds and meters (none lost, none settled twice); the meters equal the sum
of the round records; the hash chain holds.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

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
from controller.game.table import Table

SUP = DEMO_PINS["supervisor"]
CONFIG = TableConfig(seats=3, pin_hashes=demo_pin_hashes())


class Clock:
    def __init__(self, start: int = 0) -> None:
        self.n = start

    def utc(self) -> str:
        self.n += 1
        return f"2026-01-01T{self.n // 3600:02d}:{self.n // 60 % 60:02d}:{self.n % 60:02d}+00:00"

    def monotonic_ns(self) -> int:
        return self.n


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


def reference() -> tuple[dict[int, dict], dict[int, int], Table]:
    """States by journal seq, commit number -> last seq, and the finished table."""
    t = Table(":memory:", CONFIG, clock=Clock())
    states = {0: Game(CONFIG).to_dict(), t.game.last_seq: t.game.to_dict()}
    seq_at_commit = {0: 0, **{c: 1 for c in range(1, t.journal.commits + 1)}}
    for item in SHIFT:
        t.process([item])
        states[t.game.last_seq] = t.game.to_dict()
        for c in range(max(seq_at_commit) + 1, t.journal.commits + 1):
            seq_at_commit[c] = t.game.last_seq
    return states, seq_at_commit, t


def rounds_of(table: Table) -> list[dict]:
    out = []
    for r in table.journal.stored_rounds():
        r = dict(r)
        r.pop("started_utc"), r.pop("ended_utc")
        out.append(r)
    return out


@pytest.fixture(scope="module")
def ref():
    states, seq_at_commit, t = reference()
    yield states, seq_at_commit, rounds_of(t), t.game.meters_dict()["rows"]
    t.close()


# The crash seam of these tests, patched in from outside the product: the journal SIGKILLs
# its process just before its N-th commit (``at = "N"``) or just after it (``"N+"``).
KILL_AT_COMMIT = """
import os, signal
from controller.game.journal import Journal
n, after = int(at.rstrip("+")), at.endswith("+")
commit = Journal._commit
def _commit(self):
    due = self.commits + 1 == n
    if due and not after:
        os.kill(os.getpid(), signal.SIGKILL)
    commit(self)
    if due and after:
        os.kill(os.getpid(), signal.SIGKILL)
Journal._commit = _commit
"""


def run_child(path: Path, kill_at: str) -> int:
    """Fork; the child runs the shift and is killed at ``kill_at``. Returns its signal."""
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            exec(KILL_AT_COMMIT, {"at": kill_at})  # in this forked child only
            t = Table(path, CONFIG, clock=Clock())
            for item in SHIFT:
                t.process([item])
            t.close()
        except BaseException:  # noqa: BLE001 - report any failure through the exit code
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WTERMSIG(status) if os.WIFSIGNALED(status) else -os.WEXITSTATUS(status)


def finish_shift(path: Path) -> Table:
    t = Table(path, CONFIG, clock=Clock(10_000))
    done = max(t.recovered["last_seq"] - 1, 0)  # the first record is the start-up
    if t.game.round.paused_for("interrupted"):
        assert t.process([Resume(pin=SUP)])[0].accepted
    for item in SHIFT[done:]:
        t.process([item])
    return t


def kill_points(seq_at_commit: dict[int, int]) -> list[str]:
    last = max(seq_at_commit)
    return [f"{k}{m}" for k in range(1, last + 1) for m in ("", "+")]


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
    assert len(points) > 140
    try:
        for point in points:
            path = base / f"j{point.replace('+', 'p')}.sqlite"
            sig = run_child(path, point)
            assert sig == signal.SIGKILL, f"child at {point} ended with {sig}"
            t = finish_shift(path)
            k = int(point.rstrip("+"))
            durable = seq_at_commit[k if point.endswith("+") else k - 1]
            rebuilt = t.recovered
            assert rebuilt["last_seq"] == durable, point
            assert rebuilt == states[durable], f"state rebuilt after a kill at {point}"
            assert rounds_of(t) == final_rounds, f"rounds after a kill at {point}"
            assert t.game.meters_dict()["rows"] == final_meters, f"meters after a kill at {point}"
            assert rc.sum_rounds(t.journal.stored_rounds()) == t.game.meters_dict()["rows"]
            assert t.journal.verify().ok
            t.close()
            for p in base.glob(path.name + "*"):
                p.unlink()
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


def threecard(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("threecard")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300)


_KILLED_CLI = """
import sys
from controller.cli import main
at = sys.argv.pop(1)
""" + KILL_AT_COMMIT + """
sys.exit(main(sys.argv[1:]))
"""


def threecard_killed_at(kill_at: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _KILLED_CLI, kill_at, *args],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_simulate_killed_by_sigkill_recovers_and_settles_exactly_n_rounds(tmp_path):
    journal = str(tmp_path / "sim.sqlite")
    args = ["simulate", "--rules", "live", "--seats", "3", "--rounds", "40", "--seed", "5",
            "--faults", "all=0.04", "--journal", journal, "--json"]
    for kill in ("60", "70+"):
        p = threecard_killed_at(kill, *args)
        assert p.returncode == -signal.SIGKILL, p.stderr
    p = threecard(*args)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["rounds_settled"] == 40
    assert out["counters"]["power_ups"] == 3
    v = threecard("verify-journal", "--journal", journal)
    assert v.returncode == 0, v.stdout + v.stderr
    m = json.loads(threecard("meters", "--journal", journal, "--json").stdout)
    assert m["reconciled"] and m["rows"]["total"]["rounds"] == 40
    rec = json.loads(threecard("recall", "--journal", journal, "--json", "--last", "500").stdout)
    assert len({r["round_id"] for r in rec}) == len(rec)
    assert sum(r["status"] == "settled" for r in rec) == 40
