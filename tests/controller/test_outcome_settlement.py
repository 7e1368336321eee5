"""Outcome-mode settlement agrees with amount settlement, bet by bet, for every hand.

Outcome mode settles the bets a seat plays without their amounts
(:func:`~controller.game.settlement.settle_outcomes`). For any stake S, the amounts
settlement of the same cards and decision must give each bet the same outcome, the same
"X to 1" and the same paytable line, and a net of S times the outcome per unit. Checked
for every one of the 22,100 player hands (both decisions, both rule profiles), for a
deal of every 6 Card Bonus class, and on random deals and stakes.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.cards import DECK, parse_cards
from controller.game.hands import HandClass, SixCardClass, best_five_of_six, evaluate3
from controller.game.rules import load_profile
from controller.game.settlement import (
    Bets,
    Decision,
    Outcome,
    settle,
    settle_outcomes,
)

PROFILES = {name: load_profile(name) for name in ("live", "classic")}
DEALERS = [parse_cards(h.split()) for h in (
    "Qs 7d 3c",   # queen-high: qualifies
    "Jd 9c 4h",   # jack-high: does not qualify
    "2s 2d 9c",   # a low pair
    "Kc Kh 5s",   # a high pair
    "6d 7h 8c",   # a straight
    "Ac Ad As",   # trips
)]
SIX_CARD_DEALS = {  # player | dealer: one deal of each 6 Card Bonus class
    "royal_flush": "Ah Kh Qh | Jh Th 2c",
    "straight_flush": "9s 8s 7s | 6s 5s Kd",
    "four_of_a_kind": "9c 9d 9h | 9s 2c 5d",
    "full_house": "9c 9d 4h | 4s 4c Kd",
    "flush": "2d 7d 9d | Jd Kd 3c",
    "straight": "5c 6d 7h | 8s 9c Kd",
    "three_of_a_kind": "Qc Qd Qh | 2s 7c 9d",
    "two_pair": "Qc Qd 7h | 7s 2c 9d",
    "pair": "Qc Qd 7h | 3s 2c 9d",
    "high_card": "Qc 8d 7h | 3s 2c 9d",
}


def agree(profile, player, dealer, stakes: dict[str, int], decision) -> None:
    """The outcome settlement of ``stakes``' bets, times each stake, is the amounts one."""
    amounts = settle(profile, player, dealer, Bets(**stakes), decision)
    outcomes = settle_outcomes(profile, player, dealer, list(stakes), decision)
    assert [r.bet for r in outcomes.results] == [r.bet for r in amounts.results]
    for o, a in zip(outcomes.results, amounts.results, strict=True):
        stake = stakes["ante" if o.bet in ("play", "ante_bonus") else o.bet]
        assert (o.outcome, o.multiple, o.line) == (a.outcome, a.multiple, a.line), o.bet
        assert o.stake == 1 and o.net == o.units
        assert o.units * stake == a.net, (o.bet, o, a)
    assert sum(o.units * stakes["ante" if o.bet in ("play", "ante_bonus") else o.bet]
               for o in outcomes.results) == amounts.net


@pytest.mark.parametrize("rules", PROFILES)
def test_every_player_hand_settles_alike_in_outcomes_and_amounts(rules):
    profile = PROFILES[rules]
    stakes = {"ante": 700, "pair_plus": 300}
    if profile.offers_six_card_bonus:
        stakes["six_card_bonus"] = 1300
    seen: set[HandClass] = set()
    outcomes: set[tuple[str, Outcome]] = set()
    for n, player in enumerate(itertools.combinations(DECK, 3)):
        dealer = next(d for d in DEALERS[n % len(DEALERS):] + DEALERS
                      if not set(d) & set(player))
        seen.add(evaluate3(player).hand_class)
        for decision in Decision:
            agree(profile, player, dealer, stakes, decision)
        res = settle_outcomes(profile, player, dealer, list(stakes), Decision.PLAY)
        outcomes.update((r.bet, r.outcome) for r in res.results)
    assert n + 1 == 22_100
    assert seen == set(HandClass)
    # each of Ante and Play won, pushed and lost somewhere; each side bet won and lost
    for bet in ("ante", "play"):
        assert {o for b, o in outcomes if b == bet} == set(Outcome)
    for bet in ("pair_plus", *(("six_card_bonus",) if profile.offers_six_card_bonus else ())):
        assert {o for b, o in outcomes if b == bet} == {Outcome.WIN, Outcome.LOSE}


@pytest.mark.parametrize("six_class", SIX_CARD_DEALS)
@pytest.mark.parametrize("decision", Decision)
def test_every_six_card_class_settles_alike(six_class, decision):
    player, dealer = (parse_cards(h.split()) for h in SIX_CARD_DEALS[six_class].split("|"))
    assert best_five_of_six((*player, *dealer)) is SixCardClass[six_class.upper()]
    for stakes in ({"ante": 500, "six_card_bonus": 100},
                   {"ante": 100, "pair_plus": 2500, "six_card_bonus": 700}):
        agree(PROFILES["live"], player, dealer, stakes, decision)


@settings(max_examples=400, deadline=None)
@given(cards=st.permutations(DECK), rules=st.sampled_from(sorted(PROFILES)),
       ante=st.integers(1, 10**9), pair_plus=st.integers(0, 10**9),
       six=st.integers(0, 10**9), decision=st.sampled_from(Decision))
def test_random_deals_and_stakes_settle_alike(cards, rules, ante, pair_plus, six, decision):
    profile = PROFILES[rules]
    stakes = {"ante": ante}
    if pair_plus:
        stakes["pair_plus"] = pair_plus
    if six and profile.offers_six_card_bonus:
        stakes["six_card_bonus"] = six
    agree(profile, cards[:3], cards[3:6], stakes, decision)


def test_outcomes_read_as_the_paytables_say():
    live, classic = PROFILES["live"], PROFILES["classic"]
    mini_royal, queen_high = parse_cards("Ah Kh Qh".split()), parse_cards("Qs 7d 3c".split())
    r = settle_outcomes(live, mini_royal, queen_high, ["ante", "pair_plus"], Decision.PLAY)
    got = {x.bet: (x.outcome, x.multiple, x.line) for x in r.results}
    # docs/rules.md: the live Pair Plus pays a mini royal 100 to 1, the Ante Bonus a
    # straight flush 5 to 1; A-K-Q beats Q-7-3, a qualifying hand: Ante and Play 1 to 1
    assert got == {"play": (Outcome.WIN, 1, ""), "ante_bonus": (Outcome.WIN, 5, "straight_flush"),
                   "ante": (Outcome.WIN, 1, ""), "pair_plus": (Outcome.WIN, 100, "mini_royal")}
    r = settle_outcomes(classic, mini_royal, queen_high, ["pair_plus"], None)
    assert [(x.outcome, x.multiple, x.line) for x in r.results] == [
        (Outcome.WIN, 40, "straight_flush")]            # classic: no mini royal line
    # the dealer does not qualify (J-high): Ante 1 to 1, Play pushes; a fold loses all
    jack_high = parse_cards("Jd 9c 4h".split())
    low = parse_cards("2c 5d 8h".split())
    r = settle_outcomes(live, low, jack_high, ["ante", "pair_plus"], Decision.PLAY)
    assert [(x.bet, x.outcome, x.units) for x in r.results] == [
        ("play", Outcome.PUSH, 0), ("ante", Outcome.WIN, 1), ("pair_plus", Outcome.LOSE, -1)]
    r = settle_outcomes(live, low, jack_high, ["ante", "pair_plus"], Decision.FOLD)
    assert [(x.bet, x.outcome, x.units) for x in r.results] == [
        ("ante", Outcome.LOSE, -1), ("pair_plus", Outcome.LOSE, -1)]
