"""``threecard run`` on a journal whose history before its anchored snapshot was edited.

Start-up replays only the events after the snapshot its anchor names; what lies before
it is checked cheaply (counted, records checked for form). An old round's row edited
past reading (here the event number a compact journal keeps for the round) let ``run``
play on while ``verify-journal`` said the journal was broken: now start-up locks the
table with the same verdict. Edits there that leave every record well formed (an old
round's status, an old event's time) are found by the full check ``run`` makes once it is
READY: it locks the table with ``verify-journal``'s verdict, at every start.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from journal_edit import BEYOND_START_UP, copy_journal, copy_keys, sql

from controller.journal import Journal


def threecard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args],
                          capture_output=True, text=True, timeout=300)


def test_run_locks_on_an_old_round_record_edited_past_reading(daemons, tmp_path):
    journal = tmp_path / "j.sqlite3"
    p = threecard("simulate", "--journal", str(journal), "--rounds", "205", "--seats", "2")
    assert p.returncode == 0, p.stderr
    j = Journal(journal, readonly=True)
    anchored, events = j.anchor.verified_seq, j.last_seq
    j.close()
    assert anchored > 0                                     # start-up starts after it
    db = sqlite3.connect(journal)
    db.execute("UPDATE rounds SET seq = 'x' || seq WHERE round_id = 5")  # no event number
    db.commit()
    db.close()
    p = threecard("verify-journal", "--journal", str(journal))
    assert p.returncode == 1
    assert p.stdout.startswith("JOURNAL BROKEN: the record of round 5 is not readable")
    d = daemons(["--headless", "--shoe", "sim://?dialect=native", "--journal", str(journal),
                 "--control-stdin"])
    d.wait_for(r" ERROR +journal .*: JOURNAL BROKEN: the record of round 5 is not readable")
    d.wait_for(r"TABLE LOCKED: Journal integrity check failed: the record of round 5 is not "
               r"readable")
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.wait_for(r"control: refused place_bet: .*Journal integrity check failed")
    assert d.stop() == 0
    j = Journal(journal, readonly=True)
    assert j.last_seq == events                             # nothing more was journaled
    j.close()



@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("played") / "T.sqlite3"
    p = threecard("simulate", "--journal", str(path), "--rounds", "60", "--seats", "3",
                  "--seed", "9")
    assert p.returncode == 0, p.stderr
    return path


def verify_json(path: Path) -> dict:
    p = threecard("verify-journal", "--journal", str(path), "--json")
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def head(path: Path) -> tuple[int, int]:
    j = Journal(path, readonly=True)
    try:
        return j.last_seq, j.anchor.verified_seq
    finally:
        j.close()


SHOE_FACTS = {"startup", "link", "hello", "environment"}
"""What a table journals on its own at start: its start-up record, the shoe coming online,
the environment's identity once READY."""


def after(path: Path, seq: int) -> list[tuple[int, str]]:
    j = Journal(path, readonly=True)
    try:
        return [(r.seq, r.kind) for r in j.records(seq)]
    finally:
        j.close()


def run_args(path: Path) -> list[str]:
    return ["--headless", "--shoe", "sim://?dialect=native", "--journal", str(path),
            "--control-stdin", "--seats", "3"]


@pytest.mark.parametrize("kind", BEYOND_START_UP)
def test_run_checks_the_whole_journal_once_ready_and_locks_on_an_old_edit(
        daemons, played, tmp_path, kind):
    path = copy_journal(played, tmp_path / "j.sqlite3")
    shutil.copyfile(str(played) + ".anchor", str(path) + ".anchor")
    copy_keys(played, path)
    events, start = head(path)
    assert start > 800                                      # every edit is before it
    sql(path, BEYOND_START_UP[kind])
    out = verify_json(path)
    assert not out["ok"], out
    d = daemons(run_args(path))
    d.wait_for(r"journal .* verified from event \d+ ")      # start-up: from its snapshot
    d.wait_for(r"READY")
    d.wait_for(r" ERROR +journal .*: JOURNAL BROKEN: ")
    m = d.wait_for(r"TABLE LOCKED: Journal integrity check failed: (.*)\. Call a "
                   r"technician\.$")
    for problem in out["problems"]:                         # the verifier's words, each
        assert problem["message"] in m.group(1), (problem, m.group(1))
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.wait_for(r"control: refused place_bet: .*Journal integrity check failed")
    assert d.stop() == 0
    kinds = [k for _, k in after(path, events)]            # no dealer input taken
    assert kinds.count("startup") == 1 and set(kinds) <= SHOE_FACTS, kinds
    assert Path(str(path) + ".broken").exists()             # kept for the next start
    again = verify_json(path)                               # the same problems as before
    assert [q["kind"] for q in again["problems"]] == [q["kind"] for q in out["problems"]]


def test_a_restart_is_locked_at_once_until_a_full_check_finds_the_journal_sound(
        daemons, played, tmp_path):
    """R2, R4: no restart plays on a journal a full check found broken, not even while its
    own full check runs; a journal restored is sound again, and the mark is lifted."""
    path = copy_journal(played, tmp_path / "j.sqlite3")
    shutil.copyfile(str(played) + ".anchor", str(path) + ".anchor")
    copy_keys(played, path)
    sql(path, next(iter(BEYOND_START_UP.values())))
    d = daemons(run_args(path))
    d.wait_for(r"TABLE LOCKED: Journal integrity check failed")
    assert d.stop() == 0
    events, _ = head(path)
    d = daemons([*run_args(path), "--autoplay", "--pace-ms", "0"])  # it would deal at once
    d.wait_for(r"TABLE LOCKED: Journal integrity check failed: ")   # before READY
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.wait_for(r"control: refused place_bet: .*Journal integrity check failed")
    d.wait_for(r" ERROR +journal .*: JOURNAL BROKEN: ")  # its own check says it again
    assert d.stop() == 0
    kinds = [k for _, k in after(path, events)]
    assert set(kinds) <= SHOE_FACTS, kinds                 # not one bet, not one round
    copy_journal(played, path)                              # the technician restores it,
    shutil.copyfile(str(played) + ".anchor", str(path) + ".anchor")  # with its anchor
    copy_keys(played, path)
    d = daemons(run_args(path))
    d.wait_for(r"TABLE LOCKED")                             # still held, this start
    d.wait_for(r"checked in full .*journal OK")
    d.wait_for(r"WARNING +journal .* verifies in full again: the lock .* is lifted")
    assert d.stop() == 0
    assert not Path(str(path) + ".broken").exists()
    d = daemons(run_args(path))                             # and the next start plays
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.wait_for(r"control: place_bet")
    assert d.stop() == 0
    assert not any("LOCKED" in line or "refused" in line for line in d.lines), d.lines


def test_run_on_a_sound_journal_checks_it_in_full_and_deals_on(daemons, played, tmp_path):
    path = copy_journal(played, tmp_path / "j.sqlite3")
    shutil.copyfile(str(played) + ".anchor", str(path) + ".anchor")
    copy_keys(played, path)
    events, _ = head(path)
    d = daemons(run_args(path))
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)     # while the check runs, or after
    m = d.wait_for(r"journal .* checked in full in [\d.]+ s: (journal OK: (\d+) events, hash "
                   r"chain intact from event 1\b.*)$")
    assert int(m.group(2)) >= events + 1                    # the history and this start
    d.send("place_bet", seat=2, bet="ante", amount=200)
    d.wait_for(r"control: place_bet")
    assert d.stop() == 0
    assert not any("LOCKED" in line or "refused" in line for line in d.lines), d.lines
    kinds = [k for _, k in after(path, events)]
    assert kinds[0] == "startup" and kinds.count("place_bet") == 2, kinds
    assert verify_json(path)["ok"]


def test_a_new_journal_is_not_checked_twice(daemons, tmp_path):
    """Start-up saw every event of a new journal: no full check after it."""
    d = daemons(run_args(tmp_path / "new.sqlite3"))
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.wait_for(r"control: place_bet")
    assert d.stop() == 0
    assert not any("checking it in full" in line for line in d.lines), d.lines
