"""Every paytable line of both rule profiles is named in every language, and a seat's
results (refunds too) come in the rules' one pay order."""

from __future__ import annotations

import pytest

from controller.game.bets import BetResult as Held
from controller.game.bets import SeatRound
from controller.game.cards import parse_card
from controller.game.pay_lines import in_pay_order, result_line
from controller.game.rules import PAY_ORDER, SHIPPED, load_profile
from controller.game.settlement import Bets, Decision, settle
from controller.game.table_views import _bet_lines
from controller.game.views import BetLine
from display.i18n import MESSAGES, Translator
from display.pay_lines import line_parts, named_line

LANGS = ("en", "fr", "uk")
LINES = [(name, bet, line, pay) for name in SHIPPED
         for bet in ("ante_bonus", "pair_plus", "six_card_bonus")
         for line, pay in getattr(load_profile(name), bet).items()]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("profile", "bet", "line", "pay"), LINES,
                         ids=[f"{p}-{b}-{ln}" for p, b, ln, _ in LINES])
def test_every_paytable_line_is_named_in_the_language(profile, bet, line, pay, lang):
    tr = Translator(lang)
    assert f"hand.{line}" in MESSAGES[lang]  # its own word, not the English fallback
    win = BetLine(bet, "win", 500, 500 * pay, pay, line)
    name = MESSAGES[lang][f"hand.{line}"]
    assert line_parts(tr, win) == (name, f"{pay}:1")
    text = named_line(tr, tr.bet(bet), win)
    assert text.startswith(MESSAGES[lang][f"bet.{bet}"]) and name in text
    assert text.endswith(f" {pay}:1")


def test_a_loss_or_an_even_money_win_names_no_line():
    tr = Translator("en")
    assert line_parts(tr, BetLine("pair_plus", "lose", 500, -500)) is None
    assert named_line(tr, "Ante", BetLine("ante", "win", 500, 500, 1)) == ""


AKQ = ("Ah", "Kh", "Qh")


@pytest.mark.parametrize(("profile", "line", "pay"), [("live", "mini_royal", 100),
                                                      ("classic", "straight_flush", 40)])
def test_a_mini_royal_pays_on_the_profile_s_line_and_recall_names_it(profile, line, pay):
    rules = load_profile(profile)
    res = settle(rules, [parse_card(c) for c in AKQ], [parse_card(c) for c in ("2c", "3d", "9s")],
                 Bets(ante=500, pair_plus=500), Decision.PLAY)
    pp = res.result("pair_plus")
    assert (pp.line, pp.multiple) == (line, pay)
    # a record keeps no line for amounts: named again from its hand and cards
    assert result_line(rules, "pair_plus", "win", pay, "straight_flush", None, AKQ) == line
    # a round paid under the other profile keeps the line its multiple was paid on
    other = load_profile("classic" if profile == "live" else "live")
    assert result_line(other, "pair_plus", "win", pay, "straight_flush", None, AKQ) == line


def test_refunds_come_in_pay_order_whatever_order_the_bets_were_placed_in():
    sr = SeatRound(bets={"pair_plus": 500, "six_card_bonus": 500, "ante": 500, "play": 500})
    sr.results = [Held(bet, "refund", v, 0, 0) for bet, v in sr.bets.items()]
    got = [b.bet for b in _bet_lines(load_profile("live"), sr)]
    assert got == [b for b in PAY_ORDER if b in sr.bets]
    assert [r.bet for r in in_pay_order(reversed(_bet_lines(load_profile("live"), sr)))] == got
