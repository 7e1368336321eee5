"""The par sheet: the exact return of every bet of a rule profile, from the deck's counts.

Every case is counted, never sampled (docs/deck-counts.md); results are exact fractions per
unit staked, with a strategy player's return where a fold loses the side bets.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from controller.game.bet_types import ANTE_PLAY, PAIR_PLUS, SIX_CARD_BONUS
from controller.game.cards import RANK_CHARS
from controller.game.deck_counts import (
    N_DEALER,
    N_HAND_PAIRS,
    N_HANDS,
    N_SIX_CARD_SETS,
    DealerCounts,
    DeckCounts,
    DeckCountsError,
    HandKind,
    stored_counts,
)
from controller.game.hands import HandClass, SixCardClass
from controller.game.rules import RuleProfile


@dataclass(frozen=True, slots=True)
class PayLine:
    """One row of a paytable analysis: ``count`` equal cases paying ``pay`` to 1 (-1 a loss)."""

    name: str
    count: int
    probability: Fraction
    pay: int
    contribution: Fraction


@dataclass(frozen=True, slots=True)
class BetAnalysis:
    """The exact analysis of one bet, per unit of the (base) stake.

    For Ante/Play ``house_edge`` is per total wagered and ``variance`` is of the whole net.
    """

    bet: str
    lines: tuple[PayLine, ...]
    ev: Fraction
    rtp: Fraction
    house_edge: Fraction
    total: int
    variance: Fraction


@dataclass(frozen=True, slots=True)
class AntePlayStrategy:
    """The optimal play/fold strategy by enumeration; ``min_play_hand`` e.g. ``Q 6 4``.

    ``house_edge_per_wager``: -EV / (1 + P(play)).
    """

    min_play_hand: tuple[str, ...]
    hands_played: int
    play_probability: Fraction
    threshold: bool
    ev_per_ante: Fraction
    house_edge_per_wager: Fraction


@dataclass(frozen=True, slots=True)
class ParSheet:
    """The exact par sheet of a profile (``with_strategy``: the side bets under its fold rule)."""

    profile: str
    ante_play: BetAnalysis
    strategy: AntePlayStrategy
    pair_plus: BetAnalysis
    six_card_bonus: BetAnalysis | None
    dealer_qualifies: int
    with_strategy: dict[str, BetAnalysis]


def _ante_play(profile: RuleProfile, kinds: Sequence[HandKind],
               dealer: Sequence[DealerCounts]
               ) -> tuple[BetAnalysis, AntePlayStrategy, int, list[bool]]:
    lowest = profile.qualifier.min_strength
    total = N_HANDS * N_DEALER
    play: list[bool] = []
    ev_sum = folded = nq_sum = lt_sum = eq_sum = gt_sum = n_qual = square_sum = 0
    bonus_hands: dict[HandClass, int] = {}
    bonus_pay = {c: profile.ante_bonus_pay(c) * N_DEALER for c in HandClass}
    for k, d in zip(kinds, dealer, strict=True):
        qualifies = k.value.strength >= lowest  # as the qualifier says of a dealer hand
        n_qual += k.weight * qualifies
        nq, lt, eq, gt = d.outcomes(qualifies)
        # net in Ante units times N_DEALER: no-qualify Ante +1 Play 0; win +2; tie 0; lose -2
        value = nq + 2 * lt - 2 * gt + bonus_pay[k.value.hand_class]
        played = value > -N_DEALER
        play.append(played)
        if played:
            ev_sum += k.weight * value
            b = profile.ante_bonus_pay(k.value.hand_class)  # paid whatever the dealer holds
            square_sum += k.weight * (nq * (1 + b) ** 2 + lt * (2 + b) ** 2 + eq * b * b
                                      + gt * (b - 2) ** 2)
            nq_sum, lt_sum = nq_sum + k.weight * nq, lt_sum + k.weight * lt
            eq_sum, gt_sum = eq_sum + k.weight * eq, gt_sum + k.weight * gt
            cls = k.value.hand_class
            bonus_hands[cls] = bonus_hands.get(cls, 0) + k.weight
        else:
            ev_sum -= k.weight * N_DEALER
            square_sum += k.weight * N_DEALER  # a fold loses the Ante: (-1) squared
            folded += k.weight
    ev = Fraction(ev_sum, total)
    played_hands = N_HANDS - folded
    p_play = Fraction(played_hands, N_HANDS)

    strengths = [k.value.strength for k in kinds]
    weakest = min((i for i, p in enumerate(play) if p), key=strengths.__getitem__,
                  default=min(range(len(kinds)), key=strengths.__getitem__))
    threshold = all(p == (s >= strengths[weakest]) for p, s in zip(play, strengths, strict=True))
    min_hand = tuple(RANK_CHARS[r - 2] for r in kinds[weakest].ranks)

    cases = [
        ("fold", folded * N_DEALER, -1),
        ("dealer_does_not_qualify", nq_sum, 1),
        ("win", lt_sum, 2),
        ("push", eq_sum, 0),
        ("lose", gt_sum, -2),
    ]
    for cls in (HandClass.STRAIGHT_FLUSH, HandClass.THREE_OF_A_KIND, HandClass.STRAIGHT):
        pay = profile.ante_bonus_pay(cls)
        if pay:
            cases.append((f"ante_bonus_{cls.key}", bonus_hands.get(cls, 0) * N_DEALER, pay))
    lines = [_line(name, count, pay, total) for name, count, pay in cases]
    edge_wager = -ev / (1 + p_play)
    analysis = BetAnalysis("ante_play", tuple(lines), ev, 1 + ev, edge_wager, total,
                           Fraction(square_sum, total) - ev * ev)
    strategy = AntePlayStrategy(min_hand, played_hands, p_play, threshold, ev, edge_wager)
    return analysis, strategy, n_qual, play


def _line(name: str, count: int, pay: int, total: int) -> PayLine:
    return PayLine(name, count, Fraction(count, total), pay, Fraction(count * pay, total))


def _paytable_analysis(bet: str, counts: dict[str, int], pays: dict[str, int], total: int,
                       folded: int = 0) -> BetAnalysis:
    """A side bet's analysis from class counts (``folded`` cases lose it: the line ``fold``)."""
    lines = [_line(name, count, pays[name], total)
             for name, count in counts.items() if pays.get(name, 0)]
    losing = total - folded - sum(x.count for x in lines)
    lines.append(_line("lose", losing, -1, total))
    if folded:
        lines.append(_line("fold", folded, -1, total))
    ev = sum((x.contribution for x in lines), Fraction(0))
    square = Fraction(sum(x.count * x.pay * x.pay for x in lines), total)  # one case a line
    return BetAnalysis(bet, tuple(lines), ev, 1 + ev, -ev, total, square - ev * ev)


def _pp_counts(profile: RuleProfile, kinds: Sequence[HandKind],
               play: Sequence[bool] | None = None) -> dict[str, int]:
    """Hands per Pair Plus line, of every kind or of those ``play`` marks."""
    mini = "mini_royal" in profile.pair_plus
    counts: dict[str, int] = {}
    for i, k in enumerate(kinds):
        if play is None or play[i]:
            v = k.value
            key = "mini_royal" if mini and v.mini_royal else v.hand_class.key
            counts[key] = counts.get(key, 0) + k.weight
    return counts


def _with_strategy(profile: RuleProfile, counts: DeckCounts, play: list[bool],
                   pair_plus: BetAnalysis, six: BetAnalysis | None) -> dict[str, BetAnalysis]:
    if not profile.fold_loses_side_bets or all(play):
        out = {PAIR_PLUS: pair_plus}
        if six is not None:
            out[SIX_CARD_BONUS] = six
        return out
    kinds = counts.kinds()
    pp_counts = _pp_counts(profile, kinds, play)
    pp_counts = {x.name: pp_counts[x.name] for x in pair_plus.lines if x.name in pp_counts}
    folded = sum(k.weight for k, p in zip(kinds, play, strict=True) if not p)
    out = {PAIR_PLUS: _paytable_analysis(PAIR_PLUS, pp_counts, dict(profile.pair_plus),
                                           N_HANDS, folded)}
    if six is not None:
        lost = counts.dealer_six_card(i for i, p in enumerate(play) if not p)
        # every six-card set is 20 (hand, dealer hand) pairs: all pairs, less the folded
        lost_by_key = {c.key: n for c, n in lost.items()}
        settled = {x.name: x.count * math.comb(6, 3) - lost_by_key[x.name]
                   for x in six.lines if x.name != "lose"}
        out[SIX_CARD_BONUS] = _paytable_analysis(
            SIX_CARD_BONUS, settled, dict(profile.six_card_bonus), N_HAND_PAIRS,
            folded * N_DEALER)
    return out


def compute_par_sheet(profile: RuleProfile, counts: DeckCounts | None = None) -> ParSheet:
    """Compute a profile's exact par sheet (``counts`` None: counted now, about 0.1 s).

    Raises:
        DeckCountsError: stored counts that are missing or damaged.
    """
    if counts is None:
        from controller.game.counting import Counted

        counts = Counted()
    kinds = counts.kinds()
    ante_play, strategy, n_qual, play = _ante_play(profile, kinds,
                                                   counts.dealer_counts(profile.qualifier))
    pp_counts = _pp_counts(profile, kinds)
    order = ["mini_royal"] + [c.key for c in sorted(HandClass, reverse=True)]
    pp_counts = {k: pp_counts[k] for k in order if k in pp_counts}
    pair_plus = _paytable_analysis(PAIR_PLUS, pp_counts, dict(profile.pair_plus), N_HANDS)

    six = None
    if profile.offers_six_card_bonus:
        six_counts = counts.six_card()
        ordered = {c.key: six_counts[c] for c in sorted(SixCardClass, reverse=True)}
        six = _paytable_analysis(SIX_CARD_BONUS, ordered, dict(profile.six_card_bonus),
                                 N_SIX_CARD_SETS)
    with_strategy = _with_strategy(profile, counts, play, pair_plus, six)
    return ParSheet(profile.name, ante_play, strategy, pair_plus, six, n_qual, with_strategy)


def rtp_ppm(sheet: ParSheet, with_strategy: bool = False) -> dict[str, int]:
    """Returns to player per bet, parts per million, rounded half up (for displays)."""
    out = {ANTE_PLAY: sheet.ante_play.rtp, PAIR_PLUS: sheet.pair_plus.rtp}
    if sheet.six_card_bonus is not None:
        out[SIX_CARD_BONUS] = sheet.six_card_bonus.rtp
    if with_strategy:
        out.update({k: a.rtp for k, a in sheet.with_strategy.items()})
    return {k: math.floor(v * 1_000_000 + Fraction(1, 2)) for k, v in out.items()}


_SHEETS_LOCK = threading.Lock()
_SHEETS: dict[str, ParSheet | None] = {}


def profile_sheet(profile: RuleProfile) -> ParSheet | None:
    """The profile's par sheet from the stored counts, cached by content; None if damaged."""
    key = repr(dataclasses.replace(profile, source=""))
    with _SHEETS_LOCK:
        if key not in _SHEETS:
            try:
                _SHEETS[key] = compute_par_sheet(profile, stored_counts())
            except DeckCountsError:
                _SHEETS[key] = None
        return _SHEETS[key]


__all__ = ["ParSheet", "BetAnalysis", "PayLine", "AntePlayStrategy", "compute_par_sheet",
           "profile_sheet",
           "rtp_ppm", "N_HANDS", "N_DEALER"]
