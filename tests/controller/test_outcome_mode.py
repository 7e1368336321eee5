"""A table that takes bets as outcomes (``[table] bet_entry = "outcomes"``), as a shift.

The dealer marks which seats play which bets (``mark_bet``, or a rebet); the table
records outcomes, never money: recall, the journal's round records and the outcome
meters say "pays X to 1" / push / loses per bet, and which mode each round was dealt
in. A journal written before outcome mode existed replays to the very state, recall and
meters it had.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from controller.game import recall as rc
from controller.game.engine import Game
from controller.game.inputs import (
    ClearBets,
    ConfigChange,
    Decide,
    MarkBet,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Reveal,
    Settle,
    VoidRound,
)
from controller.game.replay import round_records
from controller.journal import Journal

DATA = Path(__file__).resolve().parent / "data"

# round robin, seats 1 2 3 then the dealer: seat 1 A-K-Q of hearts (the mini royal),
# seat 2 a pair of fives, seat 3 nine-high; the dealer Q-7-3, queen-high (qualifies)
ROUND = "Ah 5c 9d Qs | Kh 5d 7c 7d | Qh Jc 2h 3c"


@pytest.fixture
def outcomes(make_shift):
    return make_shift(bet_entry="outcomes")


def test_an_outcome_round_records_outcomes_and_its_mode(outcomes):
    s = outcomes
    s.ok(MarkBet(seat=1, bet="ante"), MarkBet(seat=1, bet="pair_plus"),
         MarkBet(seat=2, bet="ante"), MarkBet(seat=2, bet="six_card_bonus"),
         MarkBet(seat=3, bet="pair_plus"), MarkBet(seat=3, bet="ante"),
         MarkBet(seat=3, bet="pair_plus", on=False), NoMoreBets())
    assert {v.seat: set(v.bets) for v in s.view.seats if v.bets} == {
        1: {"ante", "pair_plus"}, 2: {"ante", "six_card_bonus"}, 3: {"ante"}}
    assert s.view.bet_entry == s.player_view.bet_entry == "outcomes"
    s.ok(s.cards(ROUND))
    s.play_out("play", "play", "fold")
    (rec,) = s.recall(1)
    assert rec["bet_entry"] == "outcomes"
    got = {x["seat"]: {b: (r["outcome"], r["multiple"], r.get("line", ""))
                       for b, r in x["results"].items()} for x in rec["seats"]}
    # docs/rules.md (live): A-K-Q and 5-5-J beat Q-7-3 (Ante, Play 1 to 1); the Ante
    # Bonus pays a straight flush 5 to 1, Pair Plus a mini royal 100 to 1; the best five
    # of 5-5-J and Q-7-3 is one pair, which the 6 Card Bonus does not pay; a fold loses.
    assert got == {
        1: {"play": ("win", 1, ""), "ante_bonus": ("win", 5, "straight_flush"),
            "ante": ("win", 1, ""), "pair_plus": ("win", 100, "mini_royal")},
        2: {"play": ("win", 1, ""), "ante": ("win", 1, ""),
            "six_card_bonus": ("lose", 0, "")},
        3: {"ante": ("lose", 0, "")}}
    payouts = {(p.seat, p.bet): (p.outcome, p.multiple) for p in s.view.payouts}
    assert payouts[(1, "pair_plus")] == ("win", 100) and payouts[(3, "ante")] == ("lose", 0)
    # no money moved: the meter rows are untouched, the outcome meters count the round
    report = rc.meters(s.path)
    assert report.reconciled, report.problems
    assert report.rows == {}
    assert report.outcomes == {
        "rounds settled": 1, "ante win": 2, "ante lose": 1, "play win": 2,
        "ante_bonus win straight_flush": 1, "pair_plus win mini_royal": 1,
        "six_card_bonus lose": 1}
    assert dict(s.view.outcome_meters) == report.outcomes
    verdict = rc.verify(s.path)
    assert verdict.ok, verdict.problems


def test_outcome_mode_takes_marks_and_refuses_amounts(outcomes, make_shift):
    s = outcomes
    assert "marks bets" in s.rejected(PlaceBet(seat=1, bet="ante", amount=100))
    s.ok(MarkBet(seat=2, bet="ante"))
    s.ok(MarkBet(seat=2, bet="ante"))                        # marking twice: one mark
    assert s.view.seats[1].bets == {"ante": 1}
    s.ok(MarkBet(seat=2, bet="ante", on=False))               # the last mark off: gone
    assert not any(v.bets for v in s.view.seats)
    s.ok(MarkBet(seat=1, bet="pair_plus"))
    assert "Pair Plus needs an Ante" in s.rejected(NoMoreBets())
    amounts = make_shift()
    assert "takes amounts" in amounts.rejected(MarkBet(seat=1, bet="ante"))


def test_no_table_limit_applies_to_a_mark(outcomes):
    # the live Ante's minimum is 100 minor units: a mark has no amount to check
    outcomes.ok(MarkBet(seat=1, bet="ante"), NoMoreBets())
    assert outcomes.view.state == "no_more_bets"


def test_a_rebet_marks_the_last_rounds_bets_again(outcomes):
    s = outcomes
    s.ok(MarkBet(seat=1, bet="ante"), MarkBet(seat=1, bet="pair_plus"),
         MarkBet(seat=3, bet="ante"), NoMoreBets(), s.cards("Ah 9d Qs Kh 7c 7d Qh 2h 3c"))
    s.ok(Decide(seat=1, decision="play"), Decide(seat=3, decision="fold"), Reveal(), Settle())
    s.ok(NextRound(), Rebet(seat=0))
    assert {v.seat: v.bets for v in s.view.seats if v.bets} == {
        1: {"ante": 1, "pair_plus": 1}, 3: {"ante": 1}}


def test_a_void_in_outcome_mode_returns_the_bets_it_names(outcomes):
    s = outcomes
    s.ok(MarkBet(seat=1, bet="ante"), MarkBet(seat=1, bet="pair_plus"),
         MarkBet(seat=2, bet="ante"), NoMoreBets(), s.cards("Ah 5c 9d"),
         VoidRound(reason="dealer error", pin=s.SUP))
    (banner,) = [b for b in s.view.banners if b.kind == "void"]
    assert banner.params["refunds"] == "seat 1: ante pair_plus, seat 2: ante"
    (rec,) = s.recall(1)
    assert rec["bet_entry"] == "outcomes" and rec["status"] == "void"
    report = rc.meters(s.path)
    assert report.reconciled and report.rows == {}
    assert report.outcomes == {"rounds void": 1, "ante refund": 2, "pair_plus refund": 1}


def test_bet_entry_changes_between_rounds_and_never_over_placed_bets(shift):
    s = shift
    s.ok(PlaceBet(seat=1, bet="ante", amount=500))
    change = ConfigChange(key="bet_entry", value="outcomes", pin=s.SUP)
    assert "clear them" in s.rejected(change)
    s.ok(ClearBets(seat=1), change)
    assert s.game.config.bet_entry == "outcomes" and s.view.bet_entry == "outcomes"
    s.ok(MarkBet(seat=1, bet="ante"), MarkBet(seat=2, bet="ante"), NoMoreBets(),
         s.cards("Ah 5c Qs Kh 5d 7d Qh 2h 3c"))
    s.play_out("play", "play")
    # settled: the setting changes back; the finished round keeps its mode on screen
    s.ok(ConfigChange(key="bet_entry", value="amounts", pin=s.SUP))
    assert s.view.bet_entry == "outcomes" and s.recall(1)[0]["bet_entry"] == "outcomes"
    s.ok(NextRound())
    assert s.view.bet_entry == "amounts"
    assert "no wagers of a last round" in s.rejected(Rebet(seat=0))  # marks are no amounts
    s.bets((1,), ante=500)
    s.ok(s.cards("9c 9d 9h Kc 2d 4s"))
    s.play_out("play")
    amounts, marked = s.recall(2)
    assert (amounts["bet_entry"], marked["bet_entry"]) == ("amounts", "outcomes")
    report = rc.meters(s.path)
    assert report.reconciled, report.problems
    assert report.rows["ante"][0] == 500 and report.outcomes["rounds settled"] == 1
    j = Journal(s.path, readonly=True)
    try:
        stored = {r["round_id"]: r for r in round_records(j)}
        assert "bet_entry" not in stored[2] and stored[1]["bet_entry"] == "outcomes"
        replayed = rc.replay(j, full=True)
    finally:
        j.close()
    assert replayed.to_dict() == s.game.to_dict()
    assert rc.verify(s.path).ok


def test_a_restart_keeps_outcome_mode_and_its_meters(outcomes):
    s = outcomes
    s.ok(MarkBet(seat=1, bet="ante"), NoMoreBets(), s.cards("Ah 5c 9d Kh 5d 7d"))
    s.restart()                                               # restored while deciding
    assert s.view.bet_entry == "outcomes" and s.view.seats[0].bets == {"ante": 1}
    s.play_out("play")
    s.restart()
    assert s.game.meters.outcomes["rounds settled"] == 1
    assert rc.verify(s.path).ok


@pytest.fixture
def amounts_before(journal_from_before):
    """A copy of a five-seat amounts journal written before outcome mode existed."""
    return journal_from_before("amounts_before")


def test_a_journal_written_before_outcome_mode_replays_as_it_was(amounts_before):
    saved = json.loads((DATA / "amounts_before.json").read_text())
    before = Game.from_dict(saved["state"]).to_dict()
    assert before["config"]["bet_entry"] == "amounts"      # read as the default
    j = Journal(amounts_before, readonly=True)
    try:
        assert rc.replay(j, full=True).to_dict() == before
        assert rc.replay(j).to_dict() == before               # from its newest snapshot
        assert j.stored_meters() == {"rows": saved["meters"],
                                     "counters": before["meters"]["counters"]}
    finally:
        j.close()
    verdict = rc.verify(amounts_before)
    assert verdict.ok and verdict.rounds_checked == 4, verdict.problems
    # recall as it was, each round now naming its mode; meters as they were
    assert rc.recall(amounts_before) == [{**r, "bet_entry": "amounts"}
                                         for r in saved["recall"]]
    report = rc.meters(amounts_before)
    assert report.reconciled and report.rows == saved["meters"] and report.outcomes == {}


def test_a_table_opened_on_a_journal_from_before_switches_to_outcomes(amounts_before,
                                                                     make_shift):
    s = make_shift(path=amounts_before, seats=6)
    s.ok(NextRound(), ConfigChange(key="bet_entry", value="outcomes", pin=s.SUP))
    s.ok(MarkBet(seat=4, bet="ante"), NoMoreBets(), s.cards("Ah 5c 9d Kh 5d 7d"),
         Decide(seat=4, decision="play"), Reveal(), Settle())
    saved = json.loads((DATA / "amounts_before.json").read_text())
    report = rc.meters(amounts_before)
    assert report.reconciled and report.rows == saved["meters"]
    assert report.outcomes["rounds settled"] == 1
    assert [r["bet_entry"] for r in s.recall(2)] == ["outcomes", "amounts"]
    assert rc.verify(amounts_before).ok


def test_bet_entry_is_a_table_setting_of_the_file(tmp_path):
    from controller.game.config import ConfigError, load_config

    path = tmp_path / "table.toml"
    path.write_text('[table]\nbet_entry = "outcomes"\n')
    cfg = load_config(path)
    assert cfg.bet_entry == "outcomes" and cfg.to_dict()["bet_entry"] == "outcomes"
    path.write_text('[table]\nbet_entry = "chips"\n')
    with pytest.raises(ConfigError, match=r"\[table\] bet_entry: must be one of amounts, "
                                          r"outcomes, got 'chips'"):
        load_config(path)


def test_a_mark_on_the_control_channel_is_read_through_its_declaration():
    from controller.game.control_line import parse_control_line
    from controller.game.inputs import InputError

    assert parse_control_line('{"command": "mark_bet", "seat": 2, "bet": "pair_plus"}') == \
        MarkBet(seat=2, bet="pair_plus")
    assert parse_control_line('{"command": "mark_bet", "seat": 2, "bet": "ante", '
                              '"on": false}') == MarkBet(seat=2, bet="ante", on=False)
    for line, where in (('{"command": "mark_bet", "seat": 2, "bet": "ante", "amount": 5}',
                         "unknown field `amount`"),
                        ('{"command": "mark_bet", "seat": 9, "bet": "ante"}', "$.seat"),
                        ('{"command": "mark_bet", "seat": 1, "bet": "play"}', "$.bet"),
                        ('{"command": "mark_bet", "seat": 1, "bet": "ante", "on": 1}',
                         "$.on")):
        with pytest.raises(InputError, match=re.escape(where)):
            parse_control_line(line)


def test_recall_and_meters_commands_give_outcomes(outcomes):
    import subprocess
    import sys

    s = outcomes
    s.ok(MarkBet(seat=1, bet="ante"), MarkBet(seat=1, bet="pair_plus"),
         MarkBet(seat=2, bet="ante"), MarkBet(seat=2, bet="six_card_bonus"),
         MarkBet(seat=3, bet="ante"), NoMoreBets(), s.cards(ROUND))
    s.play_out("play", "play", "fold")
    s.table.process([])

    def cli(*args: str) -> str:
        p = subprocess.run([sys.executable, "-m", "controller.cli", *args, "--journal",
                            str(s.path)], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return p.stdout

    text = cli("recall", "--last", "1")
    assert "round 1  SETTLED  bets as outcomes" in text
    assert ("bets play, ante, pair_plus  decision play  play pays 1 to 1, ante_bonus pays 5 to 1 "
            "(straight_flush), ante pays 1 to 1, pair_plus pays 100 to 1 (mini_royal)") in text
    assert "six_card_bonus loses" in text and "net" not in text
    meters = json.loads(cli("meters", "--json"))
    assert meters["reconciled"] and meters["rows"] == {}
    assert meters["outcomes"]["pair_plus win mini_royal"] == 1
    assert "outcome meters (rounds dealt as outcomes):" in cli("meters")


def test_autoplay_marks_the_bets_it_would_place(outcomes):
    from controller.autoplay import AutoPlayer

    player = AutoPlayer(bets={"ante": 500, "pair_plus": 100, "six_card_bonus": 0})
    cmds = player.bet_commands(outcomes.view)
    assert cmds == [MarkBet(seat=s, bet=b) for s in (1, 2, 3) for b in ("ante", "pair_plus")]
    outcomes.ok(*cmds, NoMoreBets())                       # the table takes them
