"""The seats' wagers of the round in play: placing, taking off, rebetting, deciding, settling.

A wager breaking the rules raises :class:`~controller.game.round.Rejected`, changing nothing.
Amounts are minor units; in outcome mode a marked bet is a stake of one unit, never money.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import Struct

from controller.game.bet_types import ANTE, PAIR_PLUS, PLAY, SIX_CARD_BONUS
from controller.game.cards import parse_card
from controller.game.round import Rejected
from controller.game.rules import RuleProfile
from controller.game.settlement import (
    UNIT,
    BetError,
    Bets,
    Decision,
    SeatSettlement,
    settle,
    settle_outcomes,
    validate_bets,
)


class BetResult(Struct, array_like=True, frozen=True):
    """One bet's result, snapshot form ``[bet, outcome, stake, multiple, net]``."""

    bet: str
    outcome: str
    stake: int
    multiple: int
    net: int


class SeatRound(Struct):
    """One seat's part of the round in play (mutable; owned by the table thread)."""

    bets: dict[str, int] = {}
    cards: list[str | None] = []
    decision: str | None = None
    results: list[BetResult] | None = None
    net: int | None = None
    hand: str | None = None
    six: str | None = None


class Wagers:
    """Every seat's wagers for the round (``seats``), and the last round's for a rebet."""

    def __init__(self) -> None:
        self.seats: dict[int, SeatRound] = {}
        self.last: dict[int, dict[str, int]] = {}

    def place(self, profile: RuleProfile, seat: int, bet: str, amount: int) -> None:
        """Add ``amount`` to ``bet`` at ``seat`` (the table maximum is checked)."""
        if bet == SIX_CARD_BONUS and not profile.offers_six_card_bonus:
            raise Rejected("six_card_bonus_not_offered")
        sr = self.seats.get(seat)
        new = dict(sr.bets) if sr else {}
        new[bet] = new.get(bet, 0) + amount
        _check_max(profile, seat, new)
        if sr is None:
            self.seats[seat] = SeatRound(new)
        else:
            sr.bets = new

    def mark(self, profile: RuleProfile, seat: int, bet: str, on: bool) -> None:
        """Mark ``bet`` at ``seat`` (outcome mode), or unmark it; a seat left bare leaves."""
        if bet == SIX_CARD_BONUS and not profile.offers_six_card_bonus:
            raise Rejected("six_card_bonus_not_offered")
        sr = self.seats.get(seat)
        new = dict(sr.bets) if sr else {}
        if on:
            new[bet] = UNIT
        else:
            new.pop(bet, None)
        if not new:
            self.seats.pop(seat, None)
        elif sr is None:
            self.seats[seat] = SeatRound(new)
        else:
            sr.bets = new

    def remove(self, seat: int, bet: str, amount: int) -> None:
        """Take ``amount`` off ``bet`` at ``seat``; a wager brought to nothing is gone."""
        sr = self.seats.get(seat)
        have = sr.bets.get(bet, 0) if sr else 0
        if amount > have:
            raise Rejected("chip_not_held", seat=seat, bet=bet, held=have, amount=amount)
        assert sr is not None
        new = dict(sr.bets)
        new[bet] = have - amount
        if not new[bet]:
            del new[bet]
        if new:
            sr.bets = new
        else:
            del self.seats[seat]

    def rebet(self, profile: RuleProfile, targets: list[int], fill_only: bool = True,
              every: bool = False) -> None:
        """Place the last round's wagers again at ``targets`` (``fill_only``: rule 2)."""
        if not targets or any(t not in self.last for t in targets):
            raise Rejected("nothing_to_rebet")
        if fill_only:
            held = [t for t in targets if self.seats.get(t) and self.seats[t].bets]
            if held and not every:
                raise Rejected("rebet_seat_held", seat=held[0])
            targets = [t for t in targets if t not in held]
            if not targets:
                raise Rejected("rebet_every_seat_held")
        for t in targets:
            _check_max(profile, t, self.last[t])
        for t in targets:
            self.seats[t] = SeatRound(dict(self.last[t]))

    def validate(self, profile: RuleProfile, limits: bool = True) -> None:
        """Check every seat's wagers against the rules before the deal."""
        if not self.seats:
            raise Rejected("no_wager")
        for seat in sorted(self.seats):
            try:
                validate_bets(profile, _bets(self.seats[seat].bets), limits)
            except BetError as exc:
                raise Rejected(exc.refusal.code, seat=seat, **exc.refusal.params) from None

    def decide(self, seat: int, decision: str) -> None:
        """Record ``play`` (a Play equal to the Ante) or ``fold`` for ``seat``."""
        sr = self.seats.get(seat)
        if sr is None or not sr.bets.get(ANTE):
            raise Rejected("no_ante_to_decide", seat=seat)
        if sr.decision is not None:
            raise Rejected("already_decided", seat=seat, decision=sr.decision)
        sr.decision = decision
        if decision == "play":
            sr.bets[PLAY] = sr.bets[ANTE]

    def undecide(self, seat: int) -> None:
        """Take back ``seat``'s decision (before the reveal): its Play wager goes too."""
        sr = self.seats.get(seat)
        if sr is None or sr.decision is None:
            raise Rejected("no_decision_to_undo", seat=seat)
        sr.decision = None
        sr.bets.pop(PLAY, None)

    def undecided(self) -> list[int]:
        """Seats with an Ante and no decision yet, in seat order."""
        return [s for s, sr in sorted(self.seats.items())
                if sr.bets.get(ANTE) and sr.decision is None]

    def settle(self, profile: RuleProfile, dealer_cards: list[str | None],
               outcomes: bool = False) -> dict[int, SeatSettlement]:
        """Settle every seat against the dealer's cards (docs/rules.md); seat -> its settlement."""
        dealer = [parse_card(c) for c in dealer_cards]
        out = {}
        for seat, sr in self.seats.items():
            b = sr.bets
            dec = Decision(sr.decision) if sr.decision else None
            cards = [parse_card(c) for c in sr.cards]
            if outcomes:
                res = settle_outcomes(profile, cards, dealer, [k for k in b if k != PLAY],
                                      dec)
            else:
                res = settle(profile, cards, dealer, _bets(b), dec)
            sr.results = [BetResult(r.bet, r.outcome.value, r.stake, r.multiple, r.net)
                          for r in res.results]
            sr.net = res.net
            sr.hand = res.player_hand.hand_class.key
            sr.six = res.six_card_hand.key if b.get(SIX_CARD_BONUS) else None
            out[seat] = res
        return out

    def refund(self) -> dict[int, int]:
        """Return every wager (a void); seat -> minor units returned."""
        for sr in self.seats.values():
            sr.results = [BetResult(bet, "refund", v, 0, 0) for bet, v in sr.bets.items() if v]
            sr.net = 0
        return {s: sum(sr.bets.values()) for s, sr in self.seats.items()}

    def close(self) -> None:
        """Keep this round's wagers (Play aside) for a rebet."""
        self.last = {s: {k: v for k, v in sr.bets.items() if k != PLAY}
                     for s, sr in self.seats.items()}

    def results(self) -> list[tuple[int, BetResult]]:
        """Every seat's results, ``(seat, result)``, seats in table order."""
        return [(seat, r) for seat, sr in self.seats.items() for r in sr.results or ()]

    def snapshot(self) -> dict[str, Any]:
        """The snapshot's keys for the wagers (JSON-ready)."""
        return {"seats": {str(k): msgspec.to_builtins(v) for k, v in sorted(self.seats.items())},
                "last_bets": {str(k): v for k, v in sorted(self.last.items())}}

    @classmethod
    def from_snapshot(cls, d: dict[str, Any]) -> Wagers:
        """Inverse of :meth:`snapshot` (reads every snapshot written before)."""
        w = cls()
        w.seats = {int(k): msgspec.convert(v, SeatRound) for k, v in d["seats"].items()}
        w.last = {int(k): dict(v) for k, v in d["last_bets"].items()}
        return w


def _bets(b: dict[str, int]) -> Bets:
    return Bets(b.get(ANTE, 0), b.get(PAIR_PLUS, 0), b.get(SIX_CARD_BONUS, 0),
                b.get(PLAY, 0))


def _check_max(profile: RuleProfile, seat: int, bets: dict[str, int]) -> None:
    for bet, v in bets.items():
        lim = profile.limits.get(bet)
        if lim is not None and v > lim.max:
            raise Rejected("above_maximum", seat=seat, bet=bet, amount=v, maximum=lim.max)
