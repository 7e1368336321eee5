"""``threecard recall`` in words: a seat's bets and results in the pay order the screens
use, a void's refunds with the amounts returned."""

from __future__ import annotations

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


def _seat_lines(out: str, round_id: int) -> list[str]:
    blocks = out.split("GAME RECALL  round ")
    (block,) = [b for b in blocks if b.startswith(f"{round_id} ")]
    return [line.strip() for line in block.splitlines() if line.strip().startswith("seat ")]


def test_refunds_with_their_amounts_and_every_list_in_pay_order(shift, capsys):
    # round 1: seat 1 bets the 6 Card Bonus, Pair Plus, then the Ante, plays; seat 2 has
    # not decided when the supervisor voids the round
    shift.ok(PlaceBet(seat=1, bet="six_card_bonus", amount=100),
             PlaceBet(seat=1, bet="pair_plus", amount=200),
             PlaceBet(seat=1, bet="ante", amount=500), PlaceBet(seat=2, bet="ante", amount=300),
             NoMoreBets(), shift.cards("Ah Kh 2c | Qd Jd 4s | 9c 3s 8h"),
             Decide(seat=1, decision="play"), VoidRound(reason="dispute", pin=shift.SUP))
    # round 2: seat 2 bets the 6 Card Bonus before the Ante; A-2-3 against K-9-8, settled
    shift.ok(NextRound(pin=shift.SUP), PlaceBet(seat=2, bet="six_card_bonus", amount=100),
             PlaceBet(seat=2, bet="ante", amount=100), NoMoreBets(),
             shift.cards("Ah Kh 2c | 9c 3s 8h"), Decide(seat=2, decision="play"),
             Reveal(), Settle())
    assert main(["recall", "--journal", str(shift.path)]) == 0
    out = capsys.readouterr().out
    assert _seat_lines(out, 1) == [
        "seat 1: Ah Qd 9c  bets play 5.00, ante 5.00, pair_plus 2.00, six_card_bonus 1.00  "
        "decision play  play refund 5.00, ante refund 5.00, pair_plus refund 2.00, "
        "six_card_bonus refund 1.00  net 0.00",
        "seat 2: Kh Jd 3s  bets ante 3.00  decision -  ante refund 3.00  net 0.00"]
    # a straight: Play and Ante win even money, the Ante Bonus 1 to 1, the 6 Card Bonus
    # (A-2-3 K-9-8: high card) loses
    assert _seat_lines(out, 2) == [
        "seat 2: Ah 2c 3s  bets play 1.00, ante 1.00, six_card_bonus 1.00  decision play  "
        "play win +1.00, ante_bonus win +1.00, ante win +1.00, six_card_bonus lose -1.00  "
        "net +2.00"]
