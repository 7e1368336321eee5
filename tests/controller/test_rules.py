import pytest

from controller.game.hands import HandClass
from controller.game.rules import RuleProfileError, load_profile


def write(tmp_path, text):
    p = tmp_path / "house.toml"
    p.write_text(text)
    return p


BASE = """
name = "house"
[ante_bonus]
straight_flush = 5
three_of_a_kind = 4
straight = 1
[pair_plus]
straight_flush = 40
three_of_a_kind = 30
straight = 6
flush = 3
pair = 1
[limits.ante]
min = 500
max = 100000
"""


def test_shipped_profiles_match_the_rules_table():
    live, classic = load_profile("live"), load_profile("classic")
    assert dict(live.pair_plus) == {"mini_royal": 100, "straight_flush": 40,
                                    "three_of_a_kind": 30, "straight": 5, "flush": 4, "pair": 1}
    assert dict(classic.pair_plus) == {"straight_flush": 40, "three_of_a_kind": 30,
                                       "straight": 6, "flush": 3, "pair": 1}
    assert dict(live.ante_bonus) == dict(classic.ante_bonus) == {
        "straight_flush": 5, "three_of_a_kind": 4, "straight": 1}
    assert dict(live.six_card_bonus) == {"royal_flush": 1000, "straight_flush": 200,
                                         "four_of_a_kind": 100, "full_house": 20, "flush": 15,
                                         "straight": 10, "three_of_a_kind": 7}
    assert not classic.offers_six_card_bonus
    assert live.pair_plus_requires_ante and not classic.pair_plus_requires_ante
    assert live.fold_loses_side_bets and classic.fold_loses_side_bets
    assert live.player_cards_face_up and not classic.player_cards_face_up
    assert live.qualifier.text == classic.qualifier.text == "Q-high"


def test_a_house_file_loads_from_any_path(tmp_path):
    p = load_profile(write(tmp_path, 'dealer_qualifier = "J-high"\n' + BASE))
    assert p.name == "house" and p.limits["ante"].min == 500
    assert p.qualifier.text == "J-high"
    assert p.pair_plus_pay(HandClass.STRAIGHT_FLUSH, mini_royal=True) == 40  # not named


@pytest.mark.parametrize("text, key", [
    ("colour = 'green'\n" + BASE, "colour"),
    (BASE + "[six_card_bonus]\nroyal_flush = 1000\n", "six_card_bonus.straight_flush"),
    (BASE.replace("straight = 1\n", ""), "ante_bonus.straight"),
])
def test_unknown_key_or_missing_class_names_file_and_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(RuleProfileError) as err:
        load_profile(path)
    assert str(path) in str(err.value) and key in str(err.value)


@pytest.mark.parametrize("old, new, key", [
    ("pair = 1", "pair = -1", "pair_plus.pair"),
    ("pair = 1", "pair = 1.5", "pair_plus.pair"),
    ("pair = 1", "pear = 1", "pair_plus.pear"),
    ("min = 500", "min = 0", "limits.ante.min"),
    ("max = 100000", "max = 100", "limits.ante"),
    ("min = 500", "minimum = 500", "limits.ante"),
])
def test_bad_values_name_file_and_key(tmp_path, old, new, key):
    path = write(tmp_path, BASE.replace(old, new))
    with pytest.raises(RuleProfileError) as err:
        load_profile(path)
    assert str(path) in str(err.value) and key in str(err.value)


def test_missing_file_and_bad_toml_are_clear(tmp_path):
    with pytest.raises(RuleProfileError, match="no such rule profile"):
        load_profile(tmp_path / "nope.toml")
    with pytest.raises(RuleProfileError, match="not valid TOML"):
        load_profile(write(tmp_path, "name = \n"))
