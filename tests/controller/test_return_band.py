"""The shift report's ±3 standard-error band: each bet's exact variance, not the spread seen.

The band's half-width after ``n`` rounds of one seat staking the same each round is
``3 * sqrt(var / n)``, ``var`` the variance of one hand's net per unit staked, worked out
here from the par sheet's own outcome counts (each count a set of equally likely cases
with one net).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from types import MappingProxyType

import pytest

from controller.game.par_sheet import BetAnalysis, compute_par_sheet
from controller.game.rules import load_profile
from controller.game.shift_returns import BET_GROUPS, ReturnTally

LIVE = compute_par_sheet(load_profile("live"))
# without an Ante Bonus each Ante/Play case has one net: the lines are the cases
NO_BONUS = compute_par_sheet(replace(load_profile("live"), ante_bonus=MappingProxyType({})))


def variance_of_counts(analysis: BetAnalysis) -> Fraction:
    """The mean squared net over the outcome counts, less the mean net squared."""
    assert sum(x.count for x in analysis.lines) == analysis.total  # every case, once
    mean = Fraction(sum(x.count * x.pay for x in analysis.lines), analysis.total)
    return Fraction(sum(x.count * x.pay ** 2 for x in analysis.lines), analysis.total) - mean ** 2


def one_seat_rounds(group: str, n: int, stake: int) -> list[dict]:
    """``n`` settled rounds of one seat staking ``stake`` on the group, each lost."""
    bet = BET_GROUPS[group][0]
    return [{"status": "settled", "bet_entry": "amounts",
             "seats": [{"results": {bet: {"stake": stake, "net": -stake}}}]}] * n


@pytest.mark.parametrize(("sheet", "group"), [
    (LIVE, "pair_plus"), (LIVE, "six_card_bonus"), (NO_BONUS, "ante_play")])
@pytest.mark.parametrize("n", [1, 37, 400])
def test_the_band_half_width_is_three_exact_standard_errors(sheet, group, n):
    analysis = sheet.ante_play if group == "ante_play" else sheet.with_strategy[group]
    var = variance_of_counts(analysis)
    tally = ReturnTally()
    for rec in one_seat_rounds(group, n, 500):
        tally.add(rec, 0)
    (line,) = [x for x in tally.lines([("live", sheet)]) if x.group == group]
    rounds, observed, se = line.points[-1]
    assert (rounds, observed) == (n, 0.0)  # every round lost: no spread to observe
    assert 3 * se == pytest.approx(3 * math.sqrt(var / n), rel=1e-12)
    assert [p[0] for p in line.points] == list(range(1, n + 1))


def test_the_ante_play_variance_counts_the_ante_bonus_with_the_hands_result():
    """With an Ante Bonus (5-4-1) a hand's net is its Ante/Play result plus the bonus:
    the standard deviation per unit of Ante is the published 1.64 (to two places), and
    more than without the bonus."""
    assert math.sqrt(LIVE.ante_play.variance) == pytest.approx(1.64, abs=0.005)
    assert LIVE.ante_play.variance > NO_BONUS.ante_play.variance > 0


def seats_rounds(group: str, n: int, stakes: list[int]) -> list[dict]:
    """``n`` settled rounds of a seat for each of ``stakes``, each seat's bet lost."""
    bet = BET_GROUPS[group][0]
    return [{"status": "settled", "bet_entry": "amounts",
             "seats": [{"results": {bet: {"stake": s, "net": -s}}} for s in stakes]}] * n


@pytest.mark.parametrize(("sheet", "group", "per_seat"), [
    (LIVE, "pair_plus", True), (LIVE, "six_card_bonus", False), (NO_BONUS, "ante_play", False)])
def test_pair_plus_counts_each_seats_hand_and_the_shared_bets_each_round(sheet, group,
                                                                         per_seat):
    """Pair Plus hands are independent: ``n`` rounds of seats staking 100, 200 and 300 are
    ``3n`` trials, ``sqrt(var * n * (100² + 200² + 300²)) / (600 n)``. The bets that share
    the dealer's cards keep the round as the trial: ``sqrt(var * n * 600²) / (600 n)``."""
    analysis = sheet.ante_play if group == "ante_play" else sheet.with_strategy[group]
    var = variance_of_counts(analysis)
    stakes, n = [100, 200, 300], 50
    tally = ReturnTally()
    for rec in seats_rounds(group, n, stakes):
        tally.add(rec, 0)
    (line,) = [x for x in tally.lines([("live", sheet)]) if x.group == group]
    squares = sum(s * s for s in stakes) if per_seat else sum(stakes) ** 2
    expected = math.sqrt(var * n * squares) / (n * sum(stakes))
    assert line.points[-1][2] == pytest.approx(expected, rel=1e-12)
    if per_seat:  # narrower than the whole-round bound, by sqrt(600² / (100²+200²+300²))
        assert line.points[-1][2] < math.sqrt(var / n) * 0.9
