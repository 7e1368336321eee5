"""Writes ``burns_before.journal``: a journal of flagged burns as the table kept them when
a card read in burn mode was always set aside (never a burn position) and an unreadable
burn was a plain misread. Kept with the journal to show how it was made; run it with
that table's code on the path: ``python make_burns_before.py burns_before.journal``.
"""

from __future__ import annotations  # noqa: I001 - the imports of the code it was run with

import sys
from datetime import UTC, datetime, timedelta

from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.commands import Decide, NextRound, NoMoreBets, PlaceBet, Reveal, Settle
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus, Misread
from controller.game.table import Table

SUP = DEMO_PINS["supervisor"]


class Clock:
    """One second per batch from 2026-01-01T00:00:00Z."""

    def __init__(self) -> None:
        self.n = 0

    def utc(self) -> str:
        self.n += 1
        return (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=self.n)).isoformat()

    def monotonic_ns(self) -> int:
        return self.n * 1_000_000_000


def cards(text: str, burn: bool = False) -> list[CardRead]:
    return [CardRead(card=c, code=c, burn=burn) for c in text.split()]


def bets() -> list:
    return [PlaceBet(seat=1, bet="ante", amount=100), PlaceBet(seat=2, bet="ante", amount=100),
            NoMoreBets()]


def play_out() -> list:
    return [Decide(seat=1, decision="play"), Decide(seat=2, decision="play"), Reveal(),
            Settle()]


def main(path: str) -> None:
    config = TableConfig(seats=3, burn_cards=1, snapshot_every=1,
                         pin_hashes=demo_pin_hashes())
    t = Table(path, config, clock=Clock())
    steps = [
        [LinkStatus(state=LinkState.ONLINE)],
        # 1: a flagged burn after "no more bets", then ten game cards
        bets(), cards("9s", burn=True), cards("Td Ah Kh 2c Qd Qs 5d 9c 3s 8h"), play_out(),
        # a flagged burn between rounds
        cards("Kc", burn=True),
        # 2: a flagged burn while betting, one mid-deal
        [NextRound()], cards("2d", burn=True), bets(),
        cards("3d Ac Kd 4c"), cards("7h", burn=True), cards("Jd 6s 4h Jc 7s 5c"), play_out(),
        # 3: an unreadable burn while betting, read then as a misread: void
        [NextRound()], [PlaceBet(seat=1, bet="ante", amount=100)], [Misread()],
        # 4: a misread at the burn position, resolved by the card read again
        [NextRound(pin=SUP)], bets(), [Misread()], cards("8d 2h 9h Th 3h 4d Js 6h 6d Qc"),
        play_out(),
    ]
    for step in steps:
        bad = [v for v in t.process(step) if not v.accepted]
        assert not bad, bad
    t.close()


if __name__ == "__main__":
    main(sys.argv[1])
