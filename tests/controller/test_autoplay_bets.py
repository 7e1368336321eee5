"""Autoplay's wagers without ``--bets``: the demo's, less what the rules do not offer."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from controller.autoplay import DEMO_BETS, autoplay_bets
from controller.game.rules import Limit, load_profile
from controller.game.settlement import BetError


def test_rules_without_the_6_card_bonus_leave_it_out():
    classic, live = load_profile("classic"), load_profile("live")
    assert not classic.offers_six_card_bonus and live.offers_six_card_bonus
    assert autoplay_bets(live) == DEMO_BETS
    without = {bet: amount for bet, amount in DEMO_BETS.items() if bet != "six_card_bonus"}
    assert autoplay_bets(classic) == without


def test_the_demo_bets_are_brought_within_the_table_limits():
    live = load_profile("live")
    high = DEMO_BETS["ante"] * 3
    house = replace(live, limits=MappingProxyType(
        {**live.limits, "ante": Limit(high, high * 10),
         "pair_plus": Limit(1, DEMO_BETS["pair_plus"] // 2)}))
    bets = autoplay_bets(house)
    assert bets["ante"] == high and bets["pair_plus"] == DEMO_BETS["pair_plus"] // 2


def test_bets_given_are_taken_as_given_and_refused_where_not_offered():
    classic = load_profile("classic")
    assert autoplay_bets(classic, {"ante": 200}) == {"ante": 200}
    with pytest.raises(BetError, match="6 Card Bonus is not offered"):
        autoplay_bets(classic, {"ante": 200, "six_card_bonus": 100})
