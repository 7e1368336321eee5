"""The full check ``run`` makes once READY (:mod:`controller.journal_watch`).

It reads the journal beside a table that goes on writing: every check made while rounds
are dealt must say OK (the anchor read first, then one read transaction: a moment the
anchor covers). A check that cannot answer is no verdict, never a lock; a stop ends it.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.journal import Journal
from controller.journal_watch import check_beside, check_in_full
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults


def table(path: Path) -> Table:
    return Table(path, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=5))


def play(t: Table, rounds: int, seed: int) -> None:
    """Deal until ``rounds`` rounds are settled in the journal."""
    player = AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"])
    simulate(t, player, EventShoe(seed, parse_faults("misread=0.1")), rounds)


def test_checks_made_while_the_table_deals_on_all_say_ok(tmp_path):
    path = tmp_path / "j.sqlite3"
    t = table(path)
    play(t, 20, 1)
    enough = threading.Event()                              # the checks are done
    failed: list[BaseException] = []
    dealt = [0]

    def deal() -> None:                                     # rounds until the checks end
        try:
            while not enough.is_set() and dealt[0] < 3000:
                play(t, 20 + dealt[0] + 5, 2 + dealt[0])    # 5 more settled rounds
                dealt[0] += 5
        except BaseException as exc:  # noqa: BLE001 - reported below
            failed.append(exc)

    dealer = threading.Thread(target=deal)
    dealer.start()
    verdicts, during = [], []
    try:
        for _ in range(3):
            before = dealt[0]
            verdicts.append(check_in_full(str(path), threading.Event()))
            during.append(dealt[0] - before)                # rounds dealt while it read
    finally:
        enough.set()
        dealer.join()
    assert not failed, failed
    t.close()
    assert all(v is not None and v.ok for v in verdicts), [v and v.summary for v in verdicts]
    assert all(during), during                              # the table wrote meanwhile
    events = [int(v.summary.split()[2]) for v in verdicts]  # "journal OK: N events, ..."
    assert events == sorted(events) and events[0] < events[-1], events
    final = check_in_full(str(path), threading.Event())
    j = Journal(path, readonly=True)
    try:
        assert final.ok and final.summary.startswith(f"journal OK: {j.last_seq} events")
    finally:
        j.close()


def test_a_file_that_is_no_journal_gives_no_verdict_and_locks_nothing(tmp_path):
    path = tmp_path / "not-a-journal.sqlite3"
    path.write_text("a shopping list\n")

    class Locks:
        locked = None

        class journal:  # noqa: N801 - the table's journal, as check_beside reads it
            @staticmethod
            def checked_to():
                return None

        def lock(self, reason: str) -> None:
            self.locked = reason

        def note_check(self, seq: int, seal: str) -> None:
            raise AssertionError("no progress from a file that is no journal")

    t = Locks()
    out = check_beside(t, str(path), threading.Event())
    assert out.ok is None and t.locked is None
    assert out.summary.startswith("the check gave no verdict: threecard verify-journal: "), out
    assert "not a usable journal" in out.summary, out


def test_a_broken_journal_locks_the_table_in_start_ups_words(tmp_path):
    path = tmp_path / "j.sqlite3"
    t = table(path)
    play(t, 12, 3)
    db = sqlite3.connect(path)
    db.execute("UPDATE rounds SET status = 'void' WHERE round_id = 2")
    db.commit()
    db.close()
    out = check_beside(t, str(path), threading.Event())
    assert out.ok is False and out.problems[0][0] == "round", out
    assert t.locked == f"Journal integrity check failed: {out.message}"
    assert "round 2" in out.message
    t.close()


def test_a_stop_ends_the_check_and_its_child(tmp_path, monkeypatch):
    import subprocess

    from controller import journal_watch

    started = []
    real = subprocess.Popen

    def slow(cmd, **kw):                                    # a check that takes its time
        p = real(["sleep", "30"], **kw)
        started.append(p)
        return p

    monkeypatch.setattr(journal_watch.subprocess, "Popen", slow)
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t0 = time.monotonic()
    assert check_in_full(str(tmp_path / "j.sqlite3"), stop) is None
    assert time.monotonic() - t0 < 10
    assert started and started[0].poll() is not None        # the child is gone


def test_a_controller_folder_where_the_daemon_runs_never_answers_for_the_check(
        tmp_path, monkeypatch):
    """``-m`` puts the working directory first: a forged verifier there must not be run."""
    path = tmp_path / "j.sqlite3"
    t = table(path)
    play(t, 12, 3)
    t.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE rounds SET status = 'void' WHERE round_id = 2")
    db.commit()
    db.close()
    forged = tmp_path / "cwd" / "controller"
    forged.mkdir(parents=True)
    (forged / "__init__.py").write_text("")
    ok = '{"ok": true, "verdict": "journal OK: forged", "problems": []}'
    (forged / "cli.py").write_text(f"print({ok!r})\n")
    lie = f"import sys; print({ok!r}); sys.exit(0)\n"
    (forged.parent / "sitecustomize.py").write_text(lie)
    (forged.parent / "usercustomize.py").write_text(lie)
    monkeypatch.chdir(forged.parent)
    monkeypatch.setenv("PYTHONPATH", str(forged.parent))    # nor through the environment
    monkeypatch.setenv("PYTHONSTARTUP", str(forged.parent / "sitecustomize.py"))
    out = check_in_full(str(path), threading.Event())
    assert out.ok is False and "round 2" in out.message, out
    dashed = forged.parent / "-j.sqlite3"                   # a name an option parser would take
    path.rename(dashed)
    Path(str(path) + ".anchor").rename(str(dashed) + ".anchor")
    out = check_in_full("-j.sqlite3", threading.Event())
    assert out.ok is False and "round 2" in out.message, out


def test_a_check_stopped_part_way_is_resumed_by_the_next_where_it_stopped(tmp_path, caplog):
    import logging

    caplog.set_level(logging.INFO, logger="threecard")
    path = tmp_path / "j.sqlite3"
    t = table(path)
    play(t, 40, 5)                                          # a snapshot every 5 rounds
    stop, seen, keep = threading.Event(), [], t.note_check

    def noted(seq: int, seal: str) -> None:                 # the first progress: stop there
        if not seen:  # on a busy machine the check may report more before it is stopped
            seen.append(seq)
            keep(seq, seal)
        stop.set()

    t.note_check = noted
    assert check_beside(t, str(path), stop) is None          # the daemon stopped meanwhile
    t._when_idle()                                           # the table keeps the progress
    kept = t.journal.checked_to()
    assert kept is not None and kept[0] == seen[-1]           # the newest progress noted
    assert seen == sorted(seen) and seen[-1] < t.journal.last_seq
    del t.note_check
    out = check_beside(t, str(path), threading.Event())      # the next start's check
    assert out.ok, out.summary
    assert f"from event {kept[0]}, where an earlier check stopped" in caplog.text
    assert f"hash chain intact from event {kept[0] + 1}" in out.summary, out.summary
    t.close()


def test_a_progress_not_signed_by_the_journals_chain_is_not_resumed_from(tmp_path):
    import json

    path = tmp_path / "j.sqlite3"
    t = table(path)
    play(t, 12, 6)
    t.journal.record_check(*next(iter([(s, t.journal.snapshot(s)[1])
                                         for s in t.journal.snapshot_seqs()])))
    assert t.journal.checked_to() is not None
    note = json.loads(t.journal.store.meta()["full_check"])
    note["seq"] = t.journal.last_seq                         # "checked to the end": forged
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'full_check'", (json.dumps(note),))
    db.commit()
    db.close()
    assert t.journal.checked_to() is None                   # the next check starts at event 1
    t.close()


def test_a_forged_seal_found_by_the_full_check_stops_the_dealing(tmp_path):
    path = tmp_path / "j.sqlite3"
    t = table(path)
    play(t, 12, 7)
    db = sqlite3.connect(path)
    db.execute("UPDATE seals SET signature = zeroblob(64) WHERE epoch = 2")
    db.commit()
    db.close()
    out = check_beside(t, str(path), threading.Event())
    assert out.ok is False and out.problems[0][0] == "seal" and "epoch 2" in out.message
    assert t.locked and "epoch 2" in t.locked
    t.close()
