"""Start-up finds a journal whose derived records were edited, and locks the table (R4)."""

import sqlite3

import pytest

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.table import Table
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults


def config():
    return TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=5)


@pytest.fixture
def journal(tmp_path):
    path = tmp_path / "j.sqlite3"
    t = Table(path, config())
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(3, parse_faults("misread=0.2,duplicate=0.1")), 12)
    t.close()
    return path


def reopen(path):
    t = Table(path, config())
    reason = t.locked
    t.close()
    return reason


def edit(path, sql, *args):
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


def test_an_untouched_journal_opens_again_and_again(journal):
    assert reopen(journal) is None
    assert reopen(journal) is None


@pytest.mark.parametrize("sql, args, words", [
    ("UPDATE meters SET paid = paid + 1000 WHERE name = 'seat 1'", (), "meters"),
    ("UPDATE counters SET value = 0 WHERE name = 'power_ups'", (), "counters"),
    ("DELETE FROM rounds WHERE round_id = 5", (), "missing"),
    ("UPDATE rounds SET record = replace(record, '\"outcome\":\"lose\"', "
     "'\"outcome\":\"win\"') WHERE round_id = (SELECT MAX(round_id) FROM rounds "
     "WHERE record LIKE '%\"outcome\":\"lose\"%')", (), "round"),
    ("UPDATE rounds SET record = 'not json' WHERE round_id = 11", (), "round 11"),
    ("UPDATE snapshots SET state = replace(state, '\"power_ups\":1', '\"power_ups\":2')", (),
     "Snapshot"),
])
def test_an_edited_record_locks_the_table(journal, sql, args, words):
    edit(journal, sql, *args)
    reason = reopen(journal)
    assert reason is not None and words in reason
    assert reopen(journal) is not None          # it never clears itself


def test_a_rewritten_chain_is_caught_by_an_anchor_from_the_log(journal, capsys):
    from controller.cli import main
    from controller.game.journal import chain_hash

    db = sqlite3.connect(journal)
    seq, logged = db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    # a forger edits an early event and recomputes every hash after it
    rows = db.execute("SELECT seq, utc, mono_ns, kind, actor, body, prev FROM events "
                      "ORDER BY seq").fetchall()
    target = next(r[0] for r in rows if '"decision":"fold"' in r[5])
    prev = rows[0][6]
    for s, utc, mono, kind, actor, body, _ in rows:
        if s == target:
            body = body.replace('"decision":"fold"', '"decision":"play"')
        h = chain_hash(prev, s, utc, mono, kind, actor, body)
        db.execute("UPDATE events SET body=?, prev=?, hash=? WHERE seq=?", (body, prev, h, s))
        prev = h
    db.commit()
    db.close()
    assert main(["verify-journal", "--journal", str(journal), "--anchor",
                 f"{seq}:{logged[:32]}"]) == 1
    assert "was rewritten" in capsys.readouterr().out


def test_a_journal_from_before_the_derived_record_still_verifies_and_opens(journal, capsys):
    from controller.cli import main

    edit(journal, "DROP TABLE derived_at")
    assert main(["verify-journal", "--journal", str(journal)]) == 0
    assert "journal OK" in capsys.readouterr().out
    assert reopen(journal) is None
