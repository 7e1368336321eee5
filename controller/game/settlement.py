"""Settlement of one seat against the dealer, and bet validation.

Implements docs/rules.md "Round", step 6, for a rule profile: Play, Ante Bonus, Ante, Pair
Plus, 6 Card Bonus, in that pay order. Money is integers in minor units; a result's
``net`` is what the seat gains (+) or loses (-) on that bet, the stake aside: a win of
X to 1 on a stake S has net ``X * S`` (the stake is also returned), a push has net 0, a
loss has net ``-S``.

Outcome mode (``bet_entry = "outcomes"``): the table knows which bets a seat plays, not
how much; each bet is settled on a stake of one unit (:data:`UNIT`,
:func:`settle_outcomes`), so a result's net is its outcome per unit staked
(:attr:`BetResult.units`: ``X`` for "pays X to 1", 0 for a push, -1 for a loss), and the
same rules give, for any stake S, a net of ``S`` times that.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Annotated, Any

from msgspec import Meta, Struct

from controller.game.bet_types import ANTE, ANTE_BONUS, PAIR_PLUS, PLAY, SIX_CARD_BONUS
from controller.game.cards import Card, CardError, ensure_distinct
from controller.game.hands import (
    SUIT_MAJOR_BIT,
    VALUES_BY_MASK,
    HandClass,
    HandValue,
    SixCardClass,
    six_card_class,
)
from controller.game.inputs import BET_NAMES
from controller.game.refusals import REFUSALS, Refusal
from controller.game.rules import RuleProfile

Stake = Annotated[int, Meta(ge=0)]
"""A wager in minor units, 0 for none (checked where a line is decoded against it)."""


class Outcome(enum.Enum):
    """How one bet ended."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


class Decision(enum.Enum):
    """A seat's decision after seeing its cards: place Play (equal to the Ante) or fold."""

    PLAY = "play"
    FOLD = "fold"


class BetError(ValueError):
    """Bets that the table may not accept (limits, Play not equal to Ante, ...).

    Args:
        code: a refusal code of :data:`controller.game.refusals.REFUSALS` (undeclared:
            the English message itself).
        bet: the bet type concerned (a parameter of the code where it names one).
        **params: the code's other parameters.

    Attributes:
        bet: the bet type concerned (``ante``, ``play``, ``pair_plus``, ``six_card_bonus``).
        refusal: the code and parameters; ``str(exc)`` is the English message.
    """

    def __init__(self, code: str, bet: str = "", **params: Any) -> None:
        kind = REFUSALS.get(code)
        if bet and kind is not None and "bet" in kind.params:
            params = {"bet": bet, **params}
        self.refusal = Refusal(code, params)
        super().__init__(self.refusal.journal_text())
        self.bet = bet


class Bets(Struct, frozen=True, forbid_unknown_fields=True):
    """One seat's wagers, in minor units (0 = not placed).

    Also the declaration a JSON object of wagers is decoded against (``threecard
    settle``): whole, non-negative numbers, no other bet type.

    Attributes:
        ante: the Ante.
        pair_plus: the Pair Plus side bet.
        six_card_bonus: the 6 Card Bonus side bet.
        play: the Play wager, only after the seat plays; always equal to ``ante``.
    """

    ante: Stake = 0
    pair_plus: Stake = 0
    six_card_bonus: Stake = 0
    play: Stake = 0

    @property
    def total(self) -> int:
        """Everything on the layout for this seat, in minor units."""
        return self.ante + self.pair_plus + self.six_card_bonus + self.play

    @property
    def placed(self) -> bool:
        """True when any wager is on the layout."""
        return self.total > 0

    def as_dict(self) -> dict[str, int]:
        """Placed wagers only, by bet type."""
        return {k: v for k, v in ((ANTE, self.ante), (PLAY, self.play),
                                  (PAIR_PLUS, self.pair_plus),
                                  (SIX_CARD_BONUS, self.six_card_bonus)) if v}


class BetResult(Struct, frozen=True):
    """The result of one bet.

    Attributes:
        bet: ``play``, ``ante_bonus``, ``ante``, ``pair_plus`` or ``six_card_bonus``.
        outcome: win, lose or push.
        stake: the wager it was paid on, minor units.
        multiple: the "X to 1" paid on a win, 0 otherwise.
        net: minor units won (+) or lost (-), the stake aside.
        line: the paytable line a win of the Ante Bonus, Pair Plus or 6 Card Bonus was
            paid on: the hand's key (``three_of_a_kind``, ``full_house``; ``mini_royal``
            where the Pair Plus paytable names it); empty for the Ante and Play (paid even
            money) and for what did not win.
    """

    bet: str
    outcome: Outcome
    stake: int
    multiple: int
    net: int
    line: str = ""

    @property
    def units(self) -> int:
        """The outcome per unit staked: ``multiple`` for a win, 0 for a push, -1 for a loss."""
        return {Outcome.WIN: self.multiple, Outcome.PUSH: 0, Outcome.LOSE: -1}[self.outcome]


class SeatSettlement(Struct, frozen=True):
    """Everything the dealer pays or takes at one seat.

    Attributes:
        player_hand: the seat's 3-card hand.
        dealer_hand: the dealer's 3-card hand.
        dealer_qualifies: whether the dealer's hand qualifies.
        six_card_hand: best five of the six cards (always computed; paid only if bet).
        results: one entry per bet placed (plus the Ante Bonus when paid), in pay order.
        net: sum of the results' nets.
    """

    player_hand: HandValue
    dealer_hand: HandValue
    dealer_qualifies: bool
    six_card_hand: SixCardClass
    results: tuple[BetResult, ...]
    net: int

    def result(self, bet: str) -> BetResult | None:
        """The result of one bet type, or None when it was not placed / not paid."""
        for r in self.results:
            if r.bet == bet:
                return r
        return None


def bets_from_mapping(raw: object, allowed: tuple[str, ...] = (*BET_NAMES, PLAY)) -> Bets:
    """Read wagers given as a mapping of bet type to minor units (JSON input, ``--bets``).

    Args:
        raw: e.g. ``{"ante": 100, "pair_plus": 25}`` (JSON read).
        allowed: the bet types this input may name.

    Returns:
        The wagers (unnamed bets are 0).

    Raises:
        BetError: not a mapping, an unknown bet type, or an amount that is not a whole,
            non-negative number of minor units.
    """
    if not isinstance(raw, dict):
        raise BetError("bets_not_an_object")
    for key, value in raw.items():
        if key not in allowed:
            raise BetError("unknown_bet", str(key), known=", ".join(allowed))
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise BetError("bet_not_whole", key, value=repr(value))
    return Bets(**raw)


def validate_bets(profile: RuleProfile, bets: Bets, apply_limits: bool = True) -> None:
    """Check a seat's wagers against the profile.

    Args:
        profile: the rules in force.
        bets: the wagers (``play`` 0 before the decision, else equal to ``ante``).
        apply_limits: also check each placed bet against the table limits.

    Raises:
        BetError: a negative or non-integer amount; Play without an Ante or not equal to
            it; a side bet without an Ante where the profile requires one; a bet the
            profile does not offer; an amount outside the table limits.
    """
    _validate(profile, bets.ante, bets.play, bets.pair_plus, bets.six_card_bonus,
              apply_limits)


def _validate(profile: RuleProfile, ante: int, play: int, pair_plus: int, six: int,
              apply_limits: bool) -> None:
    """:func:`validate_bets` of the four amounts (no Bets built for an implied Play)."""
    if not (type(ante) is int and type(play) is int and type(pair_plus) is int
            and type(six) is int and ante >= 0 and play >= 0 and pair_plus >= 0
            and six >= 0):  # no bool, no float
        for name, v in ((ANTE, ante), (PLAY, play), (PAIR_PLUS, pair_plus),
                        (SIX_CARD_BONUS, six)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise BetError("amount_not_whole", name, value=repr(v))
    if play and not ante:
        raise BetError("play_without_ante", PLAY)
    if play and play != ante:
        raise BetError("play_not_ante", PLAY, ante=ante, play=play)
    if pair_plus and not ante and profile.pair_plus_requires_ante:
        raise BetError("pair_plus_needs_ante", PAIR_PLUS)
    if six:
        if not profile.offers_six_card_bonus:
            raise BetError("six_card_bonus_not_offered", SIX_CARD_BONUS)
        if not ante and profile.six_card_bonus_requires_ante:
            raise BetError("six_card_bonus_needs_ante", SIX_CARD_BONUS)
    if ante + play + pair_plus + six <= 0:
        raise BetError("no_wager_placed", ANTE)
    if apply_limits:
        amounts = {ANTE: ante, PAIR_PLUS: pair_plus, SIX_CARD_BONUS: six}
        for name in BET_NAMES:
            v = amounts[name]
            lim = profile.limits.get(name)
            if v and lim is not None and not lim.min <= v <= lim.max:
                raise BetError("outside_limits", name, amount=v, minimum=lim.min,
                               maximum=lim.max)


_WIN, _LOSE, _PUSH = Outcome.WIN, Outcome.LOSE, Outcome.PUSH


def settle(profile: RuleProfile, player: Sequence[Card], dealer: Sequence[Card], bets: Bets,
           decision: Decision | None, apply_limits: bool = False) -> SeatSettlement:
    """Settle one seat (docs/rules.md, Round, step 6).

    Args:
        profile: the rules in force.
        player: the seat's three cards.
        dealer: the dealer's three cards.
        bets: the seat's wagers; ``play`` may be 0 (it is implied equal to the Ante
            when ``decision`` is PLAY) or equal to the Ante.
        decision: PLAY or FOLD; required when there is an Ante, ignored otherwise.
        apply_limits: also check the table limits.

    Returns:
        The per-bet results in pay order and the seat's net, minor units.

    Raises:
        CardError: not three cards each, or a card in both hands / twice.
        BetError: the bets are not valid (see :func:`validate_bets`), or the decision
            is missing while there is an Ante, or a Play without a PLAY decision.
    """
    pm, dm, six_mask = _masks(player, dealer)
    return settle_hands(profile, VALUES_BY_MASK[pm], VALUES_BY_MASK[dm],
                        six_card_class(six_mask), bets, decision, apply_limits)


def settle_hands(profile: RuleProfile, p: HandValue, d: HandValue, six: SixCardClass,
                 bets: Bets, decision: Decision | None,
                 apply_limits: bool = False) -> SeatSettlement:
    """:func:`settle` of hands already valued (six distinct cards), errors as there.

    ``p`` is the player's hand, ``d`` the dealer's, ``six`` the best five of the six cards.
    """
    ante, play, pair_plus, six_stake = (bets.ante, bets.play, bets.pair_plus,
                                        bets.six_card_bonus)
    if ante:
        if decision is None:
            raise BetError("decision_needed", PLAY)
        if decision is Decision.PLAY and not play:
            play = ante
        elif decision is Decision.FOLD and play:
            raise BetError("folded_with_play", PLAY)
    _validate(profile, ante, play, pair_plus, six_stake, apply_limits)
    qualifies = profile.qualifier.qualifies(d)
    folded = bool(ante) and decision is Decision.FOLD
    pays = _pays(profile)
    results = _ante_results(pays[0], p, d, qualifies, ante, folded) if ante else []
    side_lost = folded and profile.fold_loses_side_bets
    if pair_plus:
        mult, line = (0, "") if side_lost else pays[1][p.mini_royal][p.hand_class]
        results.append(BetResult(PAIR_PLUS, _WIN, pair_plus, mult, pair_plus * mult, line)
                       if mult else BetResult(PAIR_PLUS, _LOSE, pair_plus, 0, -pair_plus))
    if six_stake:
        mult = 0 if side_lost else pays[2][six]
        results.append(BetResult(SIX_CARD_BONUS, _WIN, six_stake, mult, six_stake * mult,
                                 six.key) if mult
                       else BetResult(SIX_CARD_BONUS, _LOSE, six_stake, 0, -six_stake))
    net = 0
    for r in results:
        net += r.net
    return SeatSettlement(p, d, qualifies, six, tuple(results), net)


def _masks(player: Sequence[Card], dealer: Sequence[Card]) -> tuple[int, int, int]:
    """The player's and the dealer's card masks, and the six cards' suit-major mask.

    Raises:
        CardError: not three cards each, or a card in both hands / twice.
    """
    if len(player) != 3 or len(dealer) != 3:
        raise CardError(f"a hand is 3 cards: player has {len(player)}, dealer has {len(dealer)}")
    p1, p2, p3 = player
    d1, d2, d3 = dealer
    pm = (1 << p1.index) | (1 << p2.index) | (1 << p3.index)
    dm = (1 << d1.index) | (1 << d2.index) | (1 << d3.index)
    if (pm | dm).bit_count() != 6:
        ensure_distinct((*player, *dealer))  # says which card is there twice
    sm = SUIT_MAJOR_BIT
    return pm, dm, (sm[p1.index] | sm[p2.index] | sm[p3.index] | sm[d1.index]
                    | sm[d2.index] | sm[d3.index])


_Pays = tuple[dict[HandClass, int], tuple[dict[HandClass, tuple[int, str]], ...],
              dict[SixCardClass, int]]
_last_pays: tuple[RuleProfile | None, _Pays | None] = (None, None)


def _pays(profile: RuleProfile) -> _Pays:
    """The profile's Ante Bonus, Pair Plus (multiple, line) and 6 Card Bonus tables.

    Built once for the profile settled last (a profile is frozen): a seat's settlement
    then looks its pays up, without a call per bet.
    """
    global _last_pays  # noqa: PLW0603 - one tuple, replaced whole (threads see either)
    last, pays = _last_pays
    if last is not profile or pays is None:
        pays = ({c: profile.ante_bonus_pay(c) for c in HandClass},
                tuple({c: (profile.pair_plus_pay(c, m), profile.paid_line(PAIR_PLUS, c.key, m))
                       for c in HandClass} for m in (False, True)),  # by mini royal, class
                {c: profile.six_card_pay(c) for c in SixCardClass})
        _last_pays = (profile, pays)
    return pays


def _ante_results(ante_bonus: dict[HandClass, int], p: HandValue, d: HandValue,
                  qualifies: bool, ante: int, folded: bool) -> list[BetResult]:
    """The results of the Play, the Ante Bonus and the Ante, in pay order."""
    if folded:
        return [BetResult(ANTE, _LOSE, ante, 0, -ante)]
    if not qualifies:
        out, won = [BetResult(PLAY, _PUSH, ante, 0, 0)], BetResult(ANTE, _WIN, ante, 1, ante)
    elif p.strength > d.strength:
        out, won = [BetResult(PLAY, _WIN, ante, 1, ante)], BetResult(ANTE, _WIN, ante, 1, ante)
    elif p.strength < d.strength:
        out = [BetResult(PLAY, _LOSE, ante, 0, -ante)]
        won = BetResult(ANTE, _LOSE, ante, 0, -ante)
    else:
        out, won = [BetResult(PLAY, _PUSH, ante, 0, 0)], BetResult(ANTE, _PUSH, ante, 0, 0)
    bonus = ante_bonus[p.hand_class]
    if bonus:
        out.append(BetResult(ANTE_BONUS, _WIN, ante, bonus, ante * bonus, p.hand_class.key))
    out.append(won)
    return out


UNIT = 1
"""The stake a bet marked in outcome mode is settled on: one unit, so that a result's net
is its outcome per unit (:attr:`BetResult.units`)."""


def settle_outcomes(profile: RuleProfile, player: Sequence[Card], dealer: Sequence[Card],
                    marked: Iterable[str], decision: Decision | None) -> SeatSettlement:
    """Settle the bets a seat plays in outcome mode: which bets, not how much.

    Each marked bet is settled by :func:`settle` on a stake of :data:`UNIT` (no table
    limits: the table does not know the amounts), so each result gives the outcome
    itself: ``outcome``, ``multiple`` ("pays X to 1") and the paytable ``line``; its
    ``net`` is :attr:`BetResult.units`. For a stake S the amounts settlement of the same
    cards and decision nets S times that, bet by bet.

    Args:
        profile: the rules in force.
        player: the seat's three cards.
        dealer: the dealer's three cards.
        marked: the bets the seat plays (``ante``, ``pair_plus``, ``six_card_bonus``).
        decision: PLAY or FOLD; required with an Ante.

    Returns:
        The settlement on unit stakes.

    Raises:
        CardError, BetError: as :func:`settle` (an unknown bet name is a BetError).
    """
    bets = bets_from_mapping({name: UNIT for name in marked}, BET_NAMES)
    return settle(profile, player, dealer, bets, decision)
