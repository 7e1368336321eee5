"""The exact par sheet reproduces the fractions of docs/rules.md."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from controller.cli import main
from controller.game.par_sheet import compute_par_sheet
from controller.game.rules import load_profile


@pytest.fixture(scope="module")
def live():
    return compute_par_sheet(load_profile("live"))


def test_live_par_sheet_is_exact(live):
    assert live.ante_play.ev == Fraction(-686689, 20358520)
    assert live.pair_plus.ev == Fraction(-248, 5525)
    assert live.six_card_bonus.ev == Fraction(-12816, 149695)
    assert live.dealer_qualifies == 15_380
    assert live.strategy.min_play_hand == ("Q", "6", "4")
    assert live.strategy.threshold
    assert round(float(live.strategy.house_edge_per_wager), 4) == 0.0201


def test_par_sheet_lines_add_up(live):
    for a in (live.ante_play, live.pair_plus, live.six_card_bonus):
        assert sum(x.contribution for x in a.lines) == a.ev
        assert a.rtp == 1 + a.ev
    assert sum(x.count for x in live.six_card_bonus.lines) == 20_358_520
    assert sum(x.count for x in live.pair_plus.lines) == 22_100


def test_classic_pair_plus(capsys):
    assert main(["par-sheet", "--rules", "classic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert Fraction(out["pair_plus"]["ev_fraction"]) == Fraction(-402, 5525)
    assert out["pair_plus"]["rtp"] == round(1 - 402 / 5525, 6) == 0.92724
    assert "six_card_bonus" not in out
    assert out["ante_play"]["min_play_hand"] == ["Q", "6", "4"]


def test_live_json_six_decimals(capsys):
    assert main(["par-sheet", "--rules", "live", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ante_play"]["rtp"] == round(1 - 686689 / 20358520, 6) == 0.96627
    assert out["pair_plus"]["rtp"] == round(1 - 248 / 5525, 6) == 0.955113
    assert out["six_card_bonus"]["rtp"] == round(1 - 12816 / 149695, 6) == 0.914386
    assert out["ante_play"]["min_play_hand"] == ["Q", "6", "4"]
    played = out["with_strategy"]
    assert Fraction(played["six_card_bonus"]["ev_fraction"]) == Fraction(-7194171, 25448150)
    assert played["six_card_bonus"]["rtp"] == 0.717301
    assert played["pair_plus"]["rtp"] == out["pair_plus"]["rtp"]


def test_a_different_house_changes_the_strategy_not_the_code(tmp_path, capsys):
    text = tmp_path / "h.toml"
    from importlib import resources
    body = (resources.files("controller.game") / "profiles" / "classic.toml").read_text()
    text.write_text(body.replace('dealer_qualifier = "Q-high"', 'dealer_qualifier = "J-high"'))
    assert main(["par-sheet", "--rules", str(text), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ante_play"]["dealer_qualifies"] > 15_380
    assert out["ante_play"]["min_play_hand"] != ["Q", "6", "4"]


def test_bad_profile_exits_2(capsys):
    assert main(["par-sheet", "--rules", "/nonexistent/x.toml"]) == 2
    assert "no such rule profile" in capsys.readouterr().err


# ------------------------------------------------------------------ pays past int64
# Class counts of the 22,100 three-card hands, from combinatorics (docs/rules.md): straight
# flushes 48 (4 of them mini royals A-K-Q suited), three of a kind 52, straights 720,
# flushes 1,096, pairs 3,744; the rest high cards.
HANDS3 = {"straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1096,
          "pair": 3744}
LIVE_ANTE_BONUS = {"straight_flush": 5, "three_of_a_kind": 4, "straight": 1}
LIVE_ANTE_PLAY_EV = Fraction(-686689, 20358520)                  # docs/rules.md


def _with_pays(ante_bonus: dict, pair_plus: dict):
    from dataclasses import replace
    from types import MappingProxyType

    return replace(load_profile("live"), ante_bonus=MappingProxyType(ante_bonus),
                   pair_plus=MappingProxyType(pair_plus))


def _expected(ante_bonus: dict, pair_plus: dict) -> tuple[Fraction, Fraction]:
    """Exact Ante/Play and Pair Plus returns, computed apart from the par sheet.

    Ante/Play: every straight or better is played under the live rules already (the
    weakest hand played is Q-6-4), and a larger Ante Bonus only makes them more worth
    playing, so the strategy is the same and the return moves by each change of pay
    times the chance of the hand. Pair Plus (a paytable paying every class, the mini
    royal included): the pays times the class counts, less the high cards.
    """
    ante_play = 1 + LIVE_ANTE_PLAY_EV + sum(
        Fraction((ante_bonus[c] - LIVE_ANTE_BONUS[c]) * HANDS3[c], 22_100) for c in HANDS3
        if c in ante_bonus)
    counts = dict(HANDS3, straight_flush=44, mini_royal=4)       # every class pays here
    wins = sum(pair_plus[c] * n for c, n in counts.items())
    return ante_play, 1 + Fraction(wins - (22_100 - sum(counts.values())), 22_100)


@pytest.mark.parametrize("pay", [2**62, 10_000], ids=["2^62", "bound"])
def test_huge_pays_give_exact_returns(pay):
    from controller.game.deck_counts import stored_counts
    from controller.game.par_sheet import rtp_ppm

    ante_bonus = dict(LIVE_ANTE_BONUS, straight_flush=pay)
    pair_plus = {"mini_royal": pay, "straight_flush": 40, "three_of_a_kind": 30,
                 "straight": 5, "flush": 4, "pair": 1}
    sheet = compute_par_sheet(_with_pays(ante_bonus, pair_plus), stored_counts())
    ante_play, pp = _expected(ante_bonus, pair_plus)
    assert sheet.ante_play.rtp == ante_play
    assert sheet.pair_plus.rtp == pp
    assert sum(x.contribution for x in sheet.ante_play.lines) == sheet.ante_play.ev
    assert rtp_ppm(sheet)["ante_play"] > 1_000_000          # never a plausible 95.5 %
    if pay == 2**62:
        assert sheet.ante_play.rtp > 2**62 * Fraction(48, 22_100)


def test_a_profile_file_refuses_pays_past_the_bound_and_takes_the_bound(tmp_path):
    from importlib import resources

    from controller.game.rules import RuleProfileError

    body = (resources.files("controller.game") / "profiles" / "live.toml").read_text()
    path = tmp_path / "house.toml"
    for pay in (2**62, 10_001, -1):
        path.write_text(body.replace("straight_flush = 5\n", f"straight_flush = {pay}\n"))
        with pytest.raises(RuleProfileError, match=r"house.toml: ante_bonus.straight_flush: "
                           r"pay must be a whole 'X to 1' number 0 to 10000"):
            load_profile(path)
    path.write_text(body.replace("straight_flush = 5\n", "straight_flush = 10000\n"))
    assert load_profile(path).ante_bonus["straight_flush"] == 10_000
    path.write_text(body.replace("max = 50000", "max = 1_000_000_001"))
    with pytest.raises(RuleProfileError, match=r"limits.ante.max: must be a whole number of "
                       r"minor units 1 to 1000000000"):
        load_profile(path)


@pytest.mark.parametrize(("pay", "says"), [
    (2**62, "ante_bonus.straight_flush: pay must be a whole 'X to 1' number 0 to 10000"),
    (10_000, "ante_play returns "),
])
def test_run_refuses_a_paytable_past_the_bound_or_returning_more_than_staked(tmp_path, pay,
                                                                            says):
    import subprocess
    import sys
    from importlib import resources

    body = (resources.files("controller.game") / "profiles" / "live.toml").read_text()
    path = tmp_path / "house.toml"
    path.write_text(body.replace("straight_flush = 5\n", f"straight_flush = {pay}\n"))
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless",
                        "--rules", str(path), "--journal", str(tmp_path / "j.sqlite3")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert says in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr
    assert not (tmp_path / "j.sqlite3").exists()


# -- the side bets as a player who folds below Q-6-4 gets them ---------------------------

PAIRS = 22_100 * 18_424            # (player hand, dealer hand) pairs sharing no card


def _q64_folded_hands():
    """The hands the autoplayer folds (docs/rules.md: play Q-6-4 or better), as indexes."""
    import itertools

    import numpy as np

    from controller.autoplay import Q64
    from controller.game.cards import DECK
    from controller.game.hands import evaluate3

    return np.array([h for h in itertools.combinations(range(52), 3)
                     if evaluate3([DECK[c] for c in h]).strength < Q64])


def _six_card_return_with_folds(pays, six_counts, folded_counts) -> Fraction:
    """Return per unit staked over every pair: each six-card set is C(6,3) = 20 pairs; a
    folded pair's bet is lost, a settled one returns 1 + pay on a paying class."""
    back = sum((20 * six_counts[c] - folded_counts[c]) * (1 + pays[c.key])
               for c in six_counts if c.key in pays)
    return Fraction(back, PAIRS)


def test_six_card_bonus_for_a_player_who_folds_below_q64_is_exact():
    """The live rules: a fold loses the 6 Card Bonus. Computed here from the class counts
    by its own sum: 71.7301 % (docs/rules.md), not the paytable's 91.4386 %."""
    from controller.game.deck_counts import (
        Q64_FOLDED_SIX_COUNTS,
        SIX_CARD_COUNTS,
        stored_counts,
    )
    from controller.game.par_sheet import rtp_ppm

    profile = load_profile("live")
    sheet = compute_par_sheet(profile, stored_counts())
    assert compute_par_sheet(profile) == sheet                  # counted: the same
    want = _six_card_return_with_folds(dict(profile.six_card_bonus), SIX_CARD_COUNTS,
                                       Q64_FOLDED_SIX_COUNTS)
    got = sheet.with_strategy["six_card_bonus"]
    assert got.rtp == want == Fraction(18253979, 25448150)
    assert got.ev == Fraction(-7194171, 25448150) and got.total == PAIRS
    assert sum(x.count for x in got.lines) == PAIRS
    assert sum(x.contribution for x in got.lines) == got.ev
    assert [x for x in got.lines if x.name == "fold"][0].count == 7_200 * 18_424
    assert sheet.six_card_bonus.rtp == Fraction(149695 - 12816, 149695)   # unchanged
    assert rtp_ppm(sheet)["six_card_bonus"] == 914386
    assert rtp_ppm(sheet, with_strategy=True) == {"ante_play": 966270, "pair_plus": 955113,
                                                  "six_card_bonus": 717301}


def test_pair_plus_is_the_same_for_a_player_who_folds_below_q64():
    """No hand below Q-6-4 holds a pair or better: folding them loses no Pair Plus win."""
    from controller.game.cards import DECK
    from controller.game.hands import HandClass, evaluate3

    folded = _q64_folded_hands()
    assert len(folded) == 7_200
    assert {evaluate3([DECK[c] for c in h]).hand_class for h in folded} == {HandClass.HIGH_CARD}
    for name, ev in (("live", Fraction(-248, 5525)), ("classic", Fraction(-402, 5525))):
        sheet = compute_par_sheet(load_profile(name))
        played = sheet.with_strategy["pair_plus"]
        assert played.rtp == sheet.pair_plus.rtp == 1 + ev
        assert [x.count for x in played.lines if x.name == "fold"] == [7_200]


def test_q64_folded_six_card_counts_by_enumeration_and_by_counting():
    from controller.autoplay import Q64
    from controller.game.counting import dealer_six_card_counts, hand_kinds
    from controller.game.enumeration import Q64_FOLDED_SIX_COUNTS, hand_pair_six_card_counts

    counts = hand_pair_six_card_counts(_q64_folded_hands())
    assert counts == Q64_FOLDED_SIX_COUNTS
    assert sum(counts.values()) == 7_200 * 18_424
    folded = [k for k in hand_kinds() if k.value.strength < Q64]
    assert sum(k.weight for k in folded) == 7_200
    assert dealer_six_card_counts(folded) == Q64_FOLDED_SIX_COUNTS


def test_a_fold_that_keeps_the_side_bets_keeps_their_return(tmp_path):
    from importlib import resources

    from controller.game.rules import load_profile as load

    body = (resources.files("controller.game") / "profiles" / "live.toml").read_text()
    path = tmp_path / "keeps.toml"
    path.write_text(body.replace("fold_loses_side_bets = true", "fold_loses_side_bets = false"))
    sheet = compute_par_sheet(load(str(path)))
    assert sheet.with_strategy == {"pair_plus": sheet.pair_plus,
                                   "six_card_bonus": sheet.six_card_bonus}


def test_another_strategy_counts_its_own_folded_hands(tmp_path):
    """A jack-high qualifier changes the strategy: its folded hands are counted."""
    from importlib import resources

    from controller.game.deck_counts import stored_counts

    body = (resources.files("controller.game") / "profiles" / "live.toml").read_text()
    path = tmp_path / "j.toml"
    path.write_text(body.replace('dealer_qualifier = "Q-high"', 'dealer_qualifier = "J-high"'))
    profile = load_profile(str(path))
    sheet = compute_par_sheet(profile)
    assert compute_par_sheet(profile, stored_counts()) == sheet
    assert sheet.strategy.min_play_hand != ("Q", "6", "4")
    six = sheet.with_strategy["six_card_bonus"]
    folded = [x.count for x in six.lines if x.name == "fold"][0]
    assert folded == (22_100 - sheet.strategy.hands_played) * 18_424
    assert sum(x.count for x in six.lines) == PAIRS
    assert six.rtp < sheet.six_card_bonus.rtp


def test_docs_and_readme_state_the_q64_player_s_6_card_bonus_return():
    """The money-facing figures in the documents are the par sheet's, to the digit."""
    from pathlib import Path

    from controller.game.deck_counts import Q64_FOLDED_SIX_COUNTS

    sheet = compute_par_sheet(load_profile("live"))
    played = sheet.with_strategy["six_card_bonus"]
    percent = f"{float(played.rtp) * 100:.4f} %"
    ev = f"{played.ev.numerator}/{played.ev.denominator}"
    repo = Path(__file__).resolve().parents[2]
    rules = " ".join((repo / "docs" / "rules.md").read_text(encoding="utf-8").split())
    readme = " ".join((repo / "README.md").read_text(encoding="utf-8").split())
    assert percent == "71.7301 %" and ev == "-7194171/25448150"
    for text in (rules, readme):
        assert percent in text and ev in text
    paying = load_profile("live").six_card_bonus
    for cls, count in Q64_FOLDED_SIX_COUNTS.items():      # the folded pairs that would pay
        if cls.key in paying:
            assert f"{cls.key.replace('_', ' ')} in {count:,}" in rules, cls


def test_two_profiles_at_one_path_get_their_own_returns(tmp_path):
    """The returns are cached by what a profile says, not by the file it was read from:
    a paytable edited in place is checked again, never passed on the old one's returns."""
    from controller.game import rules
    from controller.game.config import ConfigError
    from controller.game.deck_counts import stored_counts
    from controller.game.par_sheet import compute_par_sheet, rtp_ppm
    from controller.game.table_views import check_returns, rtp_for

    shipped = Path(rules.__file__).parent / "profiles" / "classic.toml"
    text = shipped.read_text(encoding="utf-8")
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    first = rules.load_profile(path)
    assert dict(check_returns(first)) == rtp_ppm(compute_par_sheet(first, stored_counts()))
    path.write_text(text.replace("flush = 3\n", "flush = 4\n"), encoding="utf-8")
    second = rules.load_profile(path)
    assert second.source == first.source and second.pair_plus != first.pair_plus
    assert dict(rtp_for(second)) == rtp_ppm(compute_par_sheet(second, stored_counts()))
    assert dict(rtp_for(second))["pair_plus"] > dict(rtp_for(first))["pair_plus"]
    with pytest.raises(ConfigError, match="published_rtp.pair_plus"):
        check_returns(second)
