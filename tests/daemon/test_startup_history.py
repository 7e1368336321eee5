"""``threecard run`` on a journal whose history before its anchored snapshot was edited.

Start-up replays only the events after the snapshot its anchor names; what lies before
it is checked cheaply (counted, records checked for form). An old round's row edited
past reading (here the event number a compact journal keeps for the round) let ``run``
play on while ``verify-journal`` said the journal was broken: now start-up locks the
table with the same verdict.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from controller.game.journal import Journal


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
