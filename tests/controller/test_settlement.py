"""Settlement: every bug class public implementations of this game have shipped."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game.cards import DECK, CardError, parse_cards
from controller.game.rules import PAY_ORDER, load_profile
from controller.game.settlement import BetError, Bets, Decision, Outcome, settle, validate_bets

LIVE = load_profile("live")
CLASSIC = load_profile("classic")
PLAY, FOLD = Decision.PLAY, Decision.FOLD


def s(player, dealer, bets, decision=PLAY, profile=LIVE):
    return settle(profile, parse_cards(player), parse_cards(dealer), bets, decision)


def nets(result):
    return {r.bet: (r.outcome.value, r.net) for r in result.results}


def test_dealer_not_qualifying_pays_ante_and_pushes_play():
    r = s("9h 7d 3c", "Jh 8d 2c", Bets(ante=100))
    assert not r.dealer_qualifies
    assert nets(r) == {"play": ("push", 0), "ante": ("win", 100)}


def test_dealer_qualifies_with_a_pair_and_no_queen():
    r = s("Ah Kd 9c", "2h 2d 3c", Bets(ante=100))
    assert r.dealer_qualifies
    assert nets(r) == {"play": ("lose", -100), "ante": ("lose", -100)}


def test_player_beats_qualifying_dealer():
    r = s("6c 6d 2h", "5h 5s Kc", Bets(ante=100))  # pair then kicker
    assert nets(r) == {"play": ("win", 100), "ante": ("win", 100)}


def test_exact_tie_pushes_ante_and_play():
    r = s("Kh 9d 5c", "Ks 9h 5d", Bets(ante=100))
    assert nets(r) == {"play": ("push", 0), "ante": ("push", 0)} and r.net == 0


def test_ante_bonus_paid_even_when_player_loses_to_dealer():
    r = s("4h 5d 6c", "Ah Ad Ac", Bets(ante=100))  # straight loses to trips
    assert nets(r) == {"play": ("lose", -100), "ante_bonus": ("win", 100),
                       "ante": ("lose", -100)}
    assert r.net == -100


def test_ante_bonus_not_paid_on_a_fold():
    r = s("Ah Ad Ac", "Kh 2d 3c", Bets(ante=100), decision=FOLD)
    assert nets(r) == {"ante": ("lose", -100)}


def test_pair_plus_paid_whatever_the_dealer_holds():
    r = s("8h 8d 3c", "Ah Ad Ac", Bets(ante=100, pair_plus=50))
    assert nets(r)["pair_plus"] == ("win", 50)
    r = s("8h 8d 3c", "Jh 4d 2c", Bets(ante=100, pair_plus=50))
    assert nets(r)["pair_plus"] == ("win", 50)


def test_mini_royal_paid_as_such_only_where_the_paytable_names_it():
    live = s("Ah Kh Qh", "2c 3d 5s", Bets(ante=10, pair_plus=10))
    classic = s("Ah Kh Qh", "2c 3d 5s", Bets(ante=10, pair_plus=10), profile=CLASSIC)
    assert nets(live)["pair_plus"] == ("win", 10 * 100)
    assert nets(classic)["pair_plus"] == ("win", 10 * 40)


def test_six_card_bonus_full_house_and_trips_spread_over_both_hands():
    r = s("Kh Kd 5c", "5s Kc 2d", Bets(ante=10, six_card_bonus=10))
    assert r.six_card_hand.key == "full_house" and nets(r)["six_card_bonus"] == ("win", 200)
    r = s("Kh 9d 5c", "Ks 2c Kd", Bets(ante=10, six_card_bonus=10))
    assert r.six_card_hand.key == "three_of_a_kind" and nets(r)["six_card_bonus"] == ("win", 70)


def test_k_high_straight_flush_plus_an_ace_is_not_a_royal():
    r = s("9h Th Jh", "Qh Kh As", Bets(ante=10, six_card_bonus=10))
    assert r.six_card_hand.key == "straight_flush"
    assert nets(r)["six_card_bonus"] == ("win", 2000)


def test_fold_loses_side_bets_where_the_profile_says_so(tmp_path):
    r = s("8h 8d 3c", "Jh 4d 2c", Bets(ante=100, pair_plus=50, six_card_bonus=20), FOLD)
    assert nets(r) == {"ante": ("lose", -100), "pair_plus": ("lose", -50),
                       "six_card_bonus": ("lose", -20)}
    # a house whose fold keeps the side bets alive is a setting, not a code change
    house = tmp_path / "keep.toml"
    from importlib import resources
    src = (resources.files("controller.game") / "profiles" / "live.toml").read_text()
    house.write_text(src.replace("fold_loses_side_bets = true", "fold_loses_side_bets = false"))
    r = s("8h 8d 3c", "Jh 4d 2c", Bets(ante=100, pair_plus=50), FOLD, load_profile(house))
    assert nets(r) == {"ante": ("lose", -100), "pair_plus": ("win", 50)}


def test_classic_pair_plus_alone_needs_no_decision():
    r = s("8h 8d 3c", "Jh 4d 2c", Bets(pair_plus=50), None, CLASSIC)
    assert nets(r) == {"pair_plus": ("win", 50)}
    with pytest.raises(BetError, match="needs an Ante"):
        s("8h 8d 3c", "Jh 4d 2c", Bets(pair_plus=50), None, LIVE)


def test_validation():
    with pytest.raises(BetError, match="Play must equal"):
        validate_bets(LIVE, Bets(ante=100, play=200))
    with pytest.raises(BetError, match="no Play without an Ante"):
        validate_bets(LIVE, Bets(play=100, pair_plus=100))
    with pytest.raises(BetError, match="outside the table limits"):
        validate_bets(LIVE, Bets(ante=50))
    validate_bets(LIVE, Bets(ante=50), apply_limits=False)
    with pytest.raises(BetError, match="not offered"):
        validate_bets(CLASSIC, Bets(ante=100, six_card_bonus=100))
    with pytest.raises(BetError, match="non-negative"):
        validate_bets(LIVE, Bets(ante=-5))
    with pytest.raises(BetError, match="decision"):
        s("9h 7d 3c", "Jh 8d 2c", Bets(ante=100), None)
    with pytest.raises(CardError):
        s("9h 7d 3c", "9h 8d 2c", Bets(ante=100))


hands = st.lists(st.sampled_from(DECK), min_size=6, max_size=6, unique=True)
stakes = st.integers(min_value=0, max_value=10**9)


@settings(max_examples=500, deadline=None)
@given(hands, stakes.filter(bool), stakes, stakes, st.sampled_from([PLAY, FOLD]))
def test_settlement_invariants(cards, ante, pp, six, decision):
    r = settle(LIVE, cards[:3], cards[3:], Bets(ante, pp, six), decision)
    order = [PAY_ORDER.index(x.bet) for x in r.results]
    assert order == sorted(order)                       # pay order
    assert r.net == sum(x.net for x in r.results)
    for x in r.results:
        assert isinstance(x.net, int)
        if x.outcome is Outcome.WIN:
            assert x.net == x.stake * x.multiple > 0
        elif x.outcome is Outcome.LOSE:
            assert x.net == -x.stake
        else:
            assert x.net == 0
    placed = {"ante"} | ({"pair_plus"} if pp else set()) | ({"six_card_bonus"} if six else set())
    if decision is PLAY:
        placed.add("play")
    assert placed <= {x.bet for x in r.results} <= placed | {"ante_bonus"}
    if decision is FOLD:
        assert r.net == -(ante + pp + six)
