"""Writes ``amounts_before.journal``: five seats betting amounts, as the table kept them
before a table could take bets as outcomes (``bet_entry``), with the state, game recall
and meters it had then (``amounts_before.json``). Kept with the journal to show how it
was made; run it with that table's code on the path:
``python make_amounts_before.py amounts_before.journal amounts_before.json``.
"""

from __future__ import annotations  # noqa: I001 - the imports of the code it was run with

import json
import sys
from datetime import UTC, datetime, timedelta

from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.inputs import (
    ClearBets,
    ConfigChange,
    Decide,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Reveal,
    Settle,
    VoidRound,
)
from controller.game.table import Table

SUP = DEMO_PINS["supervisor"]


class Clock:
    """One second per batch from 2026-02-01T00:00:00Z."""

    def __init__(self) -> None:
        self.n = 0

    def utc(self) -> str:
        self.n += 1
        return (datetime(2026, 2, 1, tzinfo=UTC) + timedelta(seconds=self.n)).isoformat()

    def monotonic_ns(self) -> int:
        return self.n * 1_000_000_000


def cards(text: str) -> list[CardRead]:
    return [CardRead(card=c, code=c) for c in text.split()]


def round_robin(*hands: str) -> list[CardRead]:
    """The cards of hands (seats in order, the dealer last) dealt one to each in turn."""
    split = [h.split() for h in hands]
    return cards(" ".join(h[i] for i in range(3) for h in split))


def bets() -> list:
    return [PlaceBet(seat=1, bet="ante", amount=500), PlaceBet(seat=1, bet="pair_plus",
                                                              amount=100),
            PlaceBet(seat=2, bet="ante", amount=100), PlaceBet(seat=2, bet="six_card_bonus",
                                                              amount=100),
            PlaceBet(seat=3, bet="ante", amount=2500), PlaceBet(seat=3, bet="pair_plus",
                                                               amount=500),
            PlaceBet(seat=3, bet="six_card_bonus", amount=500),
            PlaceBet(seat=4, bet="ante", amount=100), PlaceBet(seat=4, bet="ante", amount=100),
            PlaceBet(seat=5, bet="ante", amount=1000), PlaceBet(seat=5, bet="pair_plus",
                                                               amount=1000),
            PlaceBet(seat=6, bet="ante", amount=100), ClearBets(seat=6), NoMoreBets()]


def decide(*decisions: str) -> list:
    return [*(Decide(seat=s, decision=d) for s, d in enumerate(decisions, start=1)), Reveal(),
            Settle()]


def main(path: str, state_path: str) -> None:
    config = TableConfig(seats=6, snapshot_every=1, pin_hashes=demo_pin_hashes())
    t = Table(path, config, clock=Clock())
    steps = [
        [LinkStatus(state=LinkState.ONLINE)],
        # 1: a straight flush, trips, a straight, a flush, a pair; the dealer queen-high
        bets(), round_robin("9h Th Jh", "7c 7d 7s", "4s 5d 6c", "2d 8d Kd", "Qs Qc 3h",
                            "Qd 5s 2c"),
        decide("play", "play", "play", "play", "fold"),
        # 2: every seat again: the mini royal, a low straight flush, a pair, a fold, trips;
        # the dealer does not qualify
        [NextRound(), Rebet(seat=0), NoMoreBets()],
        round_robin("Ac Kc Qc", "2h 3h 4h", "As Ad 9s", "8c 9c 3d", "Kh Ks Kd", "Jd 6h 4c"),
        decide("play", "play", "play", "fold", "play"),
        # 3: voided by a supervisor after five cards
        [NextRound(), Rebet(seat=1), Rebet(seat=3), NoMoreBets()], cards("Qh 6d 8s Kd 3d"),
        [VoidRound(reason="dealer error", pin=SUP)],
        # 4: a setting changed between rounds (three cards to each hand), the dealer's pair
        [NextRound(), ConfigChange(key="deal_pattern", value="by_hand", pin=SUP)],
        bets(), cards("2c 3h 5s 4d 9c Ts 6s 6d Qd Td 8h 7d 3s Jc Js 2s Kh Kc"),
        decide("play", "fold", "play", "play", "play"),
    ]
    for step in steps:
        bad = [v for v in t.process(step) if not v.accepted]
        assert not bad, bad
    state = t.game.to_dict()
    t.close()
    out = {"state": state, "recall": rc.recall(path, 10), "meters": rc.meters(path).rows}
    with open(state_path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
