"""The exact par sheet reproduces the fractions of docs/rules.md."""

import json
from fractions import Fraction

import pytest

from controller.cli import main
from controller.game.par_sheet import compute_par_sheet
from controller.game.rules import load_profile


@pytest.fixture(scope="module")
def live():
    return compute_par_sheet(load_profile("live"))


@pytest.mark.slow
def test_live_par_sheet_is_exact(live):
    assert live.ante_play.ev == Fraction(-686689, 20358520)
    assert live.pair_plus.ev == Fraction(-248, 5525)
    assert live.six_card_bonus.ev == Fraction(-12816, 149695)
    assert live.dealer_qualifies == 15_380
    assert live.strategy.min_play_hand == ("Q", "6", "4")
    assert live.strategy.threshold
    assert round(float(live.strategy.house_edge_per_wager), 4) == 0.0201


@pytest.mark.slow
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


@pytest.mark.slow
def test_live_json_six_decimals(capsys):
    assert main(["par-sheet", "--rules", "live", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ante_play"]["rtp"] == round(1 - 686689 / 20358520, 6) == 0.96627
    assert out["pair_plus"]["rtp"] == round(1 - 248 / 5525, 6) == 0.955113
    assert out["six_card_bonus"]["rtp"] == round(1 - 12816 / 149695, 6) == 0.914386
    assert out["ante_play"]["min_play_hand"] == ["Q", "6", "4"]


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
    from controller.game.enumeration import SIX_CARD_COUNTS
    from controller.game.par_sheet import rtp_ppm

    ante_bonus = dict(LIVE_ANTE_BONUS, straight_flush=pay)
    pair_plus = {"mini_royal": pay, "straight_flush": 40, "three_of_a_kind": 30,
                 "straight": 5, "flush": 4, "pair": 1}
    sheet = compute_par_sheet(_with_pays(ante_bonus, pair_plus),
                              six_card_counts=SIX_CARD_COUNTS)
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
