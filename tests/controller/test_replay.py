"""Views at any event of a journal: the start-up replay rebuilds what the table published."""

import dataclasses
import re
import sqlite3
from pathlib import Path

import pytest
from journal_edit import copy_journal, edit_body, events, found_at

from controller.game import recall as rc
from controller.game.replay import ReplayError, rebuild, views_at
from controller.game.script import ScriptError, load_script, parse_script, run_script
from controller.game.table import Table
from controller.journal import Journal, JournalError

SCRIPT = Path(__file__).resolve().parents[2] / "display" / "scenes" / "shift.jsonl"
HEADER = ('{"table": {"table_id": "T1", "seats": 3}, "demo_pins": true, '
          '"start_utc": "2025-03-14T20:00:00+00:00", "step_seconds": 2}\n')
ONE_ROUND = HEADER + """
{"event": "LinkStatus", "state": "online", "detail": "connected to /dev/card-shoe"}
{"command": "PlaceBet", "seat": 1, "bet": "ante", "amount": 500}
{"command": "PlaceBet", "seat": 2, "bet": "ante", "amount": 500}
{"command": "NoMoreBets"}
{"cards": "Ah 2c 9d  Kh 7c 9s  Qh 4d 3c"}
{"mark": "dealt"}
{"command": "Decide", "seat": 1, "decision": "play"}
{"command": "Decide", "seat": 2, "decision": "fold"}
{"command": "Reveal"}
{"command": "Settle"}
{"mark": "settled", "note": "kept"}
"""


def run_recording(script, path):
    """Run a script; return its marks and every (dealer, player) pair published, in order."""
    published = []
    marks = run_script(script, path, on_publish=lambda d, p: published.append((d, p)))
    return marks, published


@pytest.fixture(scope="module")
def shift(tmp_path_factory):
    path = tmp_path_factory.mktemp("shift") / "journal.sqlite"
    marks, published = run_recording(load_script(SCRIPT), path)
    return path, marks, published


def test_a_script_runs_through_a_real_table(tmp_path):
    path = tmp_path / "j.sqlite"
    marks, published = run_recording(parse_script(ONE_ROUND, "one"), path)
    assert list(marks) == ["dealt", "settled"]
    dealt, settled = marks["dealt"], marks["settled"]
    # one journal event per input, the start-up record first
    assert dealt.seq == 1 + 1 + 2 + 1 + 9 and settled.seq == dealt.seq + 4
    assert dealt.dealer.state == "deciding"
    assert [s.cards for s in dealt.dealer.seats[:2]] == [("Ah", "Kh", "Qh"), ("2c", "7c", "4d")]
    assert dealt.player.dealer_cards == (None, None, None)
    # seat 1 holds a straight flush; the dealer's pair of nines qualifies; seat 2 folds
    assert settled.dealer.dealer_cards == ("9d", "9s", "3c")
    assert settled.dealer.seats[0].hand == "straight_flush"
    assert settled.dealer.seats[1].net == -500  # a fold loses the Ante
    assert settled.options == {"note": "kept"}
    assert len(published) == settled.seq  # one publication per journaled input
    j = Journal(path, readonly=True)
    try:
        assert j.last_seq == settled.seq and j.verify().ok
        kinds = [r.kind for r in j.records()]
        utcs = [r.utc for r in j.records()]
    finally:
        j.close()
    assert kinds[:3] == ["startup", "link", "place_bet"] and kinds[-1] == "settle"
    # the script's clock: 2 s before each input, reproducible to the second
    assert utcs[0] == "2025-03-14T20:00:00+00:00"
    assert utcs[1] == "2025-03-14T20:00:02+00:00"


def test_the_same_script_writes_the_same_journal(tmp_path):
    script = parse_script(ONE_ROUND, "one")
    run_script(script, tmp_path / "a.sqlite")
    run_script(script, tmp_path / "b.sqlite")

    def rows(p):
        db = sqlite3.connect(p)
        try:
            return db.execute("SELECT * FROM events ORDER BY seq").fetchall()
        finally:
            db.close()

    assert rows(tmp_path / "a.sqlite") == rows(tmp_path / "b.sqlite")
    assert events(tmp_path / "a.sqlite") == events(tmp_path / "b.sqlite")


def test_views_at_every_event_equal_what_the_table_published(shift):
    path, _marks, published = shift
    j = Journal(path, readonly=True)
    try:
        assert len(published) == j.last_seq
        for seq, (dealer, player) in enumerate(published, start=1):
            assert dealer.version == seq  # one input per commit, no restart
            assert views_at(j, seq) == (dealer, player), f"event {seq}"
    finally:
        j.close()


def test_views_at_from_a_snapshot_equal_the_full_replay(tmp_path):
    script = load_script(SCRIPT)
    script = dataclasses.replace(script, config=dataclasses.replace(script.config,
                                                                    snapshot_every=2))
    path = tmp_path / "snap.sqlite"
    _marks, published = run_recording(script, path)
    j = Journal(path, readonly=True)
    try:
        snaps = [s[0] for s in j.snapshots()]
        assert len(snaps) >= 4  # every second round
        for seq in {1, snaps[0], snaps[0] + 1, snaps[-1] + 3, len(published)}:
            assert views_at(j, seq) == published[seq - 1], f"event {seq}"
            full = rebuild(j, seq, use_snapshots=False)
            assert rebuild(j, seq).to_dict() == full.to_dict()
    finally:
        j.close()


def test_player_view_never_holds_a_hole_card_before_the_reveal(shift):
    """docs/requirements.md R13, for every view the table published during the shift."""
    path, _marks, published = shift
    holes = {r["round_id"]: r["dealer_cards"] for r in rc.recall(path, 20)}
    assert len(holes) == 14
    # 3: void before the deal; 13: void before the dealer's first card; 14: its burn card
    # read again, the deck blocked before any card is dealt
    assert not holes[3] and not holes[13] and not holes[14] and all(
        v for k, v in holes.items() if k not in (3, 13, 14))
    checked = 0
    for dealer, player in published:
        cards = holes.get(player.round_id, [])
        if player.state in ("reveal", "settled") or not cards:
            continue
        assert all(c is None for c in player.dealer_cards)
        assert all(c is None for c in dealer.dealer_cards)
        # earlier rounds' history may hold the same card texts: only this round's counts
        this_round = tuple(h for h in player.history if h.round_id == player.round_id)
        text = repr(dataclasses.replace(player, history=this_round))
        for c in cards:
            assert not re.search(rf"\b{c}\b", text), (player.round_id, player.state, c)
        checked += 1
    assert checked > 100


def test_views_at_refuses_what_it_cannot_show(shift, tmp_path):
    path, _marks, published = shift
    for bad in (0, len(published) + 1, True, "3"):
        with pytest.raises(ValueError, match="not in this journal"):
            views_at(path, bad)
    with pytest.raises(JournalError, match="no such journal"):
        views_at(tmp_path / "missing.sqlite", 1)
    copy = copy_journal(path, tmp_path / "tampered.sqlite")
    edit_body(copy, 20, lambda body: body + " ")
    with pytest.raises(ReplayError, match=f"integrity check failed: event {found_at(copy, 20)}"):
        views_at(copy, 30)


def test_table_start_up_uses_the_same_replay(shift, tmp_path):
    """A table restarted on the shift's journal recovers the state views_at rebuilds."""
    path, _marks, published = shift
    copy = copy_journal(path, tmp_path / "restart.sqlite")
    j = Journal(copy, readonly=True)
    try:
        expected = rebuild(j).to_dict()
    finally:
        j.close()
    script = load_script(SCRIPT)
    t = Table(copy, script.config)
    try:
        assert t.locked is None
        assert t.recovered == expected
    finally:
        t.close()


@pytest.mark.parametrize(("line", "message"), [
    ('{"command": "Deal"}', r"one:3: unknown dealer command 'Deal'"),
    ('{"command": "PlaceBet", "seat": 1, "colour": "red"}',
     r"one:3: PlaceBet: .*unknown field `colour`"),
    ('{"event": "LinkStatus", "state": "sleepy"}', r"one:3: 'sleepy' is not a valid LinkState"),
    ('{"cards": "Ah Zz"}', r"one:3: 'Zz' is not a card"),
    ('{"wait": -1}', r"one:3: a wait line"),
    ('{"mark": "x"}\n{"mark": "x"}', r"one:4: a second mark named 'x'"),
    ('not json', r"one:3: Expecting value"),
    ('{"shout": 1}', r"one:3: a step is an event, command, cards, wait or mark line"),
])
def test_script_errors_name_the_line(line, message):
    with pytest.raises(ScriptError, match=message):
        parse_script(HEADER + "# comment\n" + line + "\n", "one")


def test_a_rejected_input_stops_the_script(tmp_path):
    script = parse_script(HEADER + '{"command": "Reveal"}\n', "one")
    with pytest.raises(ScriptError, match=r"one:2: the table rejected reveal: reveal is not "
                                          r"allowed while betting"):
        run_script(script, tmp_path / "j.sqlite")
    with pytest.raises(ScriptError, match="exists"):
        run_script(script, tmp_path / "j.sqlite")


def test_bad_set_up_lines():
    with pytest.raises(ScriptError, match="empty script"):
        parse_script("# nothing\n", "one")
    with pytest.raises(ScriptError,
                       match="one:1: bad set-up line: .*seats: must be a whole number 1 to 7"):
        parse_script('{"table": {"seats": 12}, "start_utc": "2025-03-14T20:00:00+00:00"}',
                     "one")
    with pytest.raises(ScriptError, match="one:1: bad set-up line: start_utc must be UTC"):
        parse_script('{"start_utc": "2025-03-14T20:00:00+01:00"}', "one")
    with pytest.raises(ScriptError, match="one:1: bad set-up line: start_utc is required"):
        parse_script('{"table": {"seats": 3}}', "one")
    with pytest.raises(ScriptError, match="the set-up line has no clock"):
        parse_script('{"start_utc": "2025-03-14T20:00:00+00:00", "clock": 1}', "one")
