"""``threecard meters`` in words: rows in one fixed order, voided rounds and refunded bets
each named as what it counts."""

from __future__ import annotations

import json

from controller.cli import main
from controller.game.inputs import (
    Decide,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Reveal,
    Settle,
    VoidRound,
)
from controller.game.rules import PAY_ORDER


def test_rows_in_pay_order_then_seats_then_total_and_voids_named_apart(shift, capsys):
    # round 1: seat 3 bets before seat 1, Pair Plus before the Ante; voided mid-deal
    shift.ok(PlaceBet(seat=3, bet="pair_plus", amount=100),
             PlaceBet(seat=3, bet="ante", amount=100), PlaceBet(seat=1, bet="ante", amount=100),
             NoMoreBets(), shift.cards("Ah Kh"), VoidRound(reason="dispute", pin=shift.SUP))
    # round 2: seat 2 alone, the 6 Card Bonus first; settled
    shift.ok(NextRound(), PlaceBet(seat=2, bet="six_card_bonus", amount=100),
             PlaceBet(seat=2, bet="ante", amount=100), NoMoreBets(),
             shift.cards("Ah Kh 2c | 9c 3s 8h"), Decide(seat=2, decision="play"),
             Reveal(), Settle())
    assert main(["meters", "--journal", str(shift.path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert main(["meters", "--journal", str(shift.path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("meter "))
    assert "voids" not in lines[header] and "bets refunded" in lines[header]
    shown = [line.rsplit(None, 7)[0] for line in lines[header + 1:header + 1 + len(rows)]]
    seats = sorted((name for name in rows if name.startswith("seat ")),
                   key=lambda name: int(name.split()[1]))
    assert shown == [b for b in PAY_ORDER if b in rows] + seats + ["total"]
    assert seats == ["seat 1", "seat 2", "seat 3"] and "play" in shown
    after = lines[header + 1 + len(rows):]
    # the count of bets has its noun: "3, 3.00" read as one amount
    assert after[:2] == ["rounds voided 1", "3 bets voided, 3.00 refunded"]
    assert not any(line.strip().startswith("voids") for line in after)
