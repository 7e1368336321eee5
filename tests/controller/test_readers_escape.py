"""Readers print journal text escaped: no escape sequence or forged line reaches a terminal.

``recall`` printed a void reason raw, ``verify-journal`` a counter name raw, and text that
is not UTF-8 in the journal came out as SQLite's message with the bytes in it (or a
traceback). Now every such text goes through one function
(:func:`controller.game.text.for_terminal`) and an undecodable row is one line naming it.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest
from journal_edit import copy_journal, journal_as_before, sql

from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import LinkState, LinkStatus
from controller.game.inputs import NoMoreBets, PlaceBet, VoidRound
from controller.game.table import Table

SUP = DEMO_PINS["supervisor"]
FORGED = "jam\n2026-12-01 JOURNAL OK\x1b[2J\x1b]0;owned\x07"


def threecard(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def journal(tmp_path):
    """A journal whose round 1 was voided, by an earlier version, with ``FORGED`` as reason."""
    path = tmp_path / "j.sqlite3"
    t = Table(path, TableConfig(pin_hashes=demo_pin_hashes()))
    t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=100),
               NoMoreBets()])
    journal_as_before(t, VoidRound.name, {"reason": FORGED}, "supervisor")
    t.close()
    return path


def test_recall_prints_a_void_reason_escaped_on_its_line(journal):
    p = threecard("recall", "--journal", str(journal))
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x07" not in p.stdout
    (head,) = [x for x in p.stdout.splitlines() if x.startswith("GAME RECALL")]
    assert "void: jam\\n2026-12-01 JOURNAL OK\\x1b[2J\\x1b]0;owned\\x07" in head
    assert not [x for x in p.stdout.splitlines() if x.startswith("2026-12-01")]


def test_verify_journal_prints_a_counter_name_escaped(journal):
    sql(journal, "UPDATE counters SET name = ? WHERE name = 'power_ups'", "\x1b[2Jpower_ups")
    p = threecard("verify-journal", "--journal", str(journal))
    assert p.returncode == 1
    assert "\x1b" not in p.stdout and "\\x1b[2Jpower_ups" in p.stdout, p.stdout


@pytest.fixture(scope="module")
def long_journal(tmp_path_factory):
    """A journal of 60 rounds: event hashes kept at checkpoints, and a snapshot."""
    path = tmp_path_factory.mktemp("long") / "j.sqlite3"
    p = threecard("simulate", "--seats", "2", "--rounds", "60", "--journal", str(path),
                  "--json")
    assert p.returncode == 0, p.stderr
    return path


@pytest.mark.parametrize("where, column", [("events", "h"), ("snapshots", "state")])
def test_text_that_is_not_utf8_is_one_line_naming_its_row(long_journal, tmp_path, where,
                                                          column):
    journal = copy_journal(long_journal, tmp_path / "j.sqlite3")
    db = sqlite3.connect(journal)
    (row,) = db.execute(f"SELECT max(seq) FROM {where} WHERE {column} IS NOT NULL").fetchone()
    db.close()
    assert row is not None
    sql(journal, f"UPDATE {where} SET {column} = CAST(x'ff1b5b32304a' AS TEXT) WHERE seq = ?",
        row)
    for command in ("recall", "meters", "verify-journal"):
        p = threecard(command, "--journal", str(journal))
        out = p.stdout + p.stderr
        assert "\x1b" not in out and "Traceback" not in out, out
        assert f"table {where}, row {row}, column {column}: text that is not UTF-8" in out, out
        if p.returncode == 2:  # no journal to read: one line on stderr
            assert len(p.stderr.strip().splitlines()) == 1 and p.stdout == "", out
        else:  # verify-journal's verdict on a file it could open: broken, one line
            assert command == "verify-journal" and p.returncode == 1, out
            assert len(p.stdout.splitlines()) == 1 and p.stdout.startswith("JOURNAL BROKEN")
