"""The par sheet: the exact return of every bet of a rule profile, by full enumeration.

Nothing is sampled and nothing is assumed:

* **Ante/Play**: for each of the 22,100 player hands, the expected value of playing is
  computed over all 18,424 dealer hands that share no card with it, and compared with
  folding (-1 Ante). The strategy is DERIVED from that comparison. Counting the dealer
  hands by outcome uses inclusion-exclusion over shared cards (all hands, minus hands
  holding one of the player's cards, plus hands holding two of them, minus the player's
  own hand) with sorted strength arrays, so no pair of hands is compared one by one.
* **Pair Plus**: the class counts of the 22,100 hands.
* **6 Card Bonus**: the class counts of all 20,358,520 six-card sets
  (:mod:`controller.game.enumeration`).

Results are exact :class:`fractions.Fraction` values; returns are per unit staked. Counts
are NumPy integers (they are bounded by the deck); every sum with a pay in it is a Python
integer, exact whatever the pay (a rule profile file bounds pays to 10,000 to 1, a profile
made in code does not).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from controller.game.cards import RANK_CHARS
from controller.game.enumeration import N_SIX_CARD_SETS, six_card_class_counts
from controller.game.hands import HandClass, SixCardClass, all_hands3
from controller.game.rules import RuleProfile

N_HANDS = math.comb(52, 3)  # 22,100
N_DEALER = math.comb(49, 3)  # 18,424 dealer hands disjoint from a player hand


@dataclass(frozen=True, slots=True)
class PayLine:
    """One row of a paytable analysis.

    Attributes:
        name: hand class (``straight_flush``) or outcome name.
        count: number of equally likely cases.
        probability: count / total, exact.
        pay: "X to 1" (-1 for a loss of the stake, 0 for a push).
        contribution: probability * pay, exact (per unit staked).
    """

    name: str
    count: int
    probability: Fraction
    pay: int
    contribution: Fraction


@dataclass(frozen=True, slots=True)
class BetAnalysis:
    """The exact analysis of one bet.

    Attributes:
        bet: ``ante_play``, ``pair_plus`` or ``six_card_bonus``.
        lines: paying classes / outcomes with counts and contributions.
        ev: expected net per unit of the (base) stake, exact.
        rtp: return to player = 1 + ev.
        house_edge: -ev (for Ante/Play: per total amount wagered, Ante + Play).
        total: the number of equally likely cases enumerated.
    """

    bet: str
    lines: tuple[PayLine, ...]
    ev: Fraction
    rtp: Fraction
    house_edge: Fraction
    total: int


@dataclass(frozen=True, slots=True)
class AntePlayStrategy:
    """The optimal play/fold strategy derived by enumeration.

    Attributes:
        min_play_hand: ranks of the weakest hand that is played, high to low (``Q 6 4``).
        hands_played: how many of the 22,100 hands are played.
        play_probability: hands_played / 22,100, exact.
        threshold: True when every hand at least as strong as ``min_play_hand`` is played
            and every weaker one folded (the strategy is a simple threshold).
        ev_per_ante: expected net per unit of Ante, exact.
        house_edge_per_wager: -EV / (1 + P(play)): house edge per total amount wagered.
    """

    min_play_hand: tuple[str, ...]
    hands_played: int
    play_probability: Fraction
    threshold: bool
    ev_per_ante: Fraction
    house_edge_per_wager: Fraction


@dataclass(frozen=True, slots=True)
class ParSheet:
    """The exact par sheet of a profile.

    Attributes:
        profile: the profile's name.
        ante_play: the Ante/Play analysis (with the Ante Bonus, under optimal play).
        strategy: the derived optimal strategy.
        pair_plus: the Pair Plus analysis.
        six_card_bonus: the 6 Card Bonus analysis, or None when not offered.
        dealer_qualifies: how many of the 22,100 dealer hands qualify.
    """

    profile: str
    ante_play: BetAnalysis
    strategy: AntePlayStrategy
    pair_plus: BetAnalysis
    six_card_bonus: BetAnalysis | None
    dealer_qualifies: int


def _ante_play(profile: RuleProfile, hands: list, progress: Callable[[int], None] | None
               ) -> tuple[BetAnalysis, AntePlayStrategy, int]:
    idx = np.array([[c.index for c in cards] for cards, _ in hands], dtype=np.int64)
    strength = np.array([v.strength for _, v in hands], dtype=np.int64)
    qual = np.array([profile.qualifier.qualifies(v) for _, v in hands], dtype=bool)
    n = len(hands)

    def outcome_counts(group: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, ...]:
        """Dealer hands in ``group``: (not qualifying, qualifying weaker, equal)."""
        qs = np.sort(strength[group][qual[group]])
        nq = np.full(len(queries), len(group) - len(qs), dtype=np.int64)
        lt = np.searchsorted(qs, strength[queries], side="left")
        le = np.searchsorted(qs, strength[queries], side="right")
        return nq, lt.astype(np.int64), (le - lt).astype(np.int64)

    everyone = np.arange(n)
    nq, lt, eq = outcome_counts(everyone, everyone)
    # minus dealer hands that hold one of the player's cards
    holders = [np.nonzero((idx == c).any(axis=1))[0] for c in range(52)]
    for c in range(52):
        g = holders[c]
        a, b, d = outcome_counts(g, g)
        np.subtract.at(nq, g, a)
        np.subtract.at(lt, g, b)
        np.subtract.at(eq, g, d)
    if progress:
        progress(n // 2)
    # plus dealer hands that hold two of them (each was subtracted twice)
    for c1, c2 in itertools.combinations(range(52), 2):
        g = np.intersect1d(holders[c1], holders[c2], assume_unique=True)
        a, b, d = outcome_counts(g, g)
        np.add.at(nq, g, a)
        np.add.at(lt, g, b)
        np.add.at(eq, g, d)
    # minus the player's own hand (added back three times, subtracted three times)
    nq -= ~qual
    eq -= qual
    gt = N_DEALER - nq - lt - eq
    assert (gt >= 0).all() and (nq + lt + eq + gt == N_DEALER).all()
    if progress:
        progress(n - n // 2)

    # Python integers (object arrays) from here: a pay times N_DEALER, summed over every
    # hand, may pass int64 (an Ante Bonus of 2^62 to 1 would wrap); exact at any size
    bonus = np.array([profile.ante_bonus_pay(v.hand_class) for _, v in hands], dtype=object)
    # net in Ante units times N_DEALER: no-qualify Ante +1 Play 0; win +2; tie 0; lose -2
    play_value = (nq + 2 * lt - 2 * gt).astype(object) + bonus * N_DEALER
    fold_value = -N_DEALER
    play = (play_value > fold_value).astype(bool)
    total = N_HANDS * N_DEALER
    ev = Fraction(sum(np.where(play, play_value, fold_value).tolist()), total)
    played = int(play.sum())
    p_play = Fraction(played, N_HANDS)

    weakest = int(np.argmin(np.where(play, strength, np.iinfo(np.int64).max)))
    threshold = bool((play == (strength >= strength[weakest])).all())
    ranks = sorted((c.rank for c in hands[weakest][0]), reverse=True)
    min_hand = tuple(RANK_CHARS[r - 2] for r in ranks)

    cases = [
        ("fold", int((~play).sum()) * N_DEALER, -1),
        ("dealer_does_not_qualify", int(nq[play].sum()), 1),
        ("win", int(lt[play].sum()), 2),
        ("push", int(eq[play].sum()), 0),
        ("lose", int(gt[play].sum()), -2),
    ]
    for cls in (HandClass.STRAIGHT_FLUSH, HandClass.THREE_OF_A_KIND, HandClass.STRAIGHT):
        pay = profile.ante_bonus_pay(cls)
        if pay:
            count = sum(1 for i, (_, v) in enumerate(hands) if v.hand_class is cls and play[i])
            cases.append((f"ante_bonus_{cls.key}", count * N_DEALER, pay))
    lines = [_line(name, count, pay, total) for name, count, pay in cases]
    edge_wager = -ev / (1 + p_play)
    analysis = BetAnalysis("ante_play", tuple(lines), ev, 1 + ev, edge_wager, total)
    strategy = AntePlayStrategy(min_hand, played, p_play, threshold, ev, edge_wager)
    return analysis, strategy, int(qual.sum())


def _line(name: str, count: int, pay: int, total: int) -> PayLine:
    """One paytable row: ``count`` of ``total`` equally likely cases paying ``pay``."""
    return PayLine(name, count, Fraction(count, total), pay, Fraction(count * pay, total))


def _paytable_analysis(bet: str, counts: dict[str, int], pays: dict[str, int], total: int
                       ) -> BetAnalysis:
    lines = [_line(name, count, pays[name], total)
             for name, count in counts.items() if pays.get(name, 0)]
    losing = total - sum(x.count for x in lines)
    lines.append(_line("lose", losing, -1, total))
    ev = sum((x.contribution for x in lines), Fraction(0))
    return BetAnalysis(bet, tuple(lines), ev, 1 + ev, -ev, total)


def compute_par_sheet(profile: RuleProfile,
                      progress: Callable[[str, int, int], None] | None = None,
                      six_card_counts: dict[SixCardClass, int] | None = None) -> ParSheet:
    """Compute the exact par sheet of a profile.

    Args:
        profile: the rules.
        progress: called as ``progress(task, done_now, task_total)`` while working, for a
            progress bar; tasks are ``ante_play`` (22,100) and ``six_card_bonus``
            (20,358,520).
        six_card_counts: known 6 Card Bonus class counts (e.g.
            :data:`controller.game.enumeration.SIX_CARD_COUNTS`) to skip enumerating the
            20,358,520 sets again, as the daemon's start-up check does; None enumerates.

    Returns:
        The exact analysis of every bet the profile offers.
    """
    hands = all_hands3()
    ante_play, strategy, n_qual = _ante_play(
        profile, hands, (lambda k: progress("ante_play", k, N_HANDS)) if progress else None)

    pp_counts: dict[str, int] = {}
    for _, v in hands:
        key = "mini_royal" if v.mini_royal and "mini_royal" in profile.pair_plus \
            else v.hand_class.key
        pp_counts[key] = pp_counts.get(key, 0) + 1
    order = ["mini_royal"] + [c.key for c in sorted(HandClass, reverse=True)]
    pp_counts = {k: pp_counts[k] for k in order if k in pp_counts}
    pair_plus = _paytable_analysis("pair_plus", pp_counts, dict(profile.pair_plus), N_HANDS)

    six = None
    if profile.offers_six_card_bonus:
        counts = six_card_counts or six_card_class_counts(
            (lambda k: progress("six_card_bonus", k, N_SIX_CARD_SETS)) if progress else None)
        ordered = {c.key: counts[c] for c in sorted(SixCardClass, reverse=True)}
        six = _paytable_analysis("six_card_bonus", ordered, dict(profile.six_card_bonus),
                                 N_SIX_CARD_SETS)
    return ParSheet(profile.name, ante_play, strategy, pair_plus, six, n_qual)


def rtp_ppm(sheet: ParSheet) -> dict[str, int]:
    """Returns to player in parts per million, rounded half up, per bet (for displays)."""
    out = {"ante_play": sheet.ante_play.rtp, "pair_plus": sheet.pair_plus.rtp}
    if sheet.six_card_bonus is not None:
        out["six_card_bonus"] = sheet.six_card_bonus.rtp
    return {k: math.floor(v * 1_000_000 + Fraction(1, 2)) for k, v in out.items()}


__all__ = ["ParSheet", "BetAnalysis", "PayLine", "AntePlayStrategy", "compute_par_sheet",
           "rtp_ppm", "N_HANDS", "N_DEALER"]
