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
