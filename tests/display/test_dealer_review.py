"""Findings of the dealer screen's review, each met on the real screen with real events.

A short PIN, the lockout line at 800x480, odds in French and Ukrainian, and the size of
the dealer's small card glyphs.
"""

import re

import pygame
import pytest

from controller.game import inputs
from controller.game.config import PIN_MAX_DIGITS, PIN_MIN_DIGITS
from display.dealer import DealerScreen
from display.i18n import Translator
from display.player import PlayerScreen
from display.scenarios import build

SUP = "2468"


def void_pad(shift) -> None:
    """Bets, No more bets, Void with a reason: the PIN pad is open."""
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    shift.tap("tool.void")
    shift.tap("pad.reason.shoe_fault")
    assert shift.frame.notes["pad"] == "pin"


# 1 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_ok_and_enter_wait_for_a_whole_pin(dealer_shift, lang):
    shift = dealer_shift(lang=lang)
    void_pad(shift)
    shift.type(SUP[:PIN_MIN_DIGITS - 1])          # three digits
    assert not shift.button("pad.key.11").enabled  # OK is not lit
    shift.key("return")                            # nor does Enter send anything
    assert shift.frame.notes["pad"] == "pin" and shift.view.state != "void"
    assert shift.texts("pad.error") == []          # no refusal, raw or worded
    assert not shift.refused()
    shift.type(SUP[PIN_MIN_DIGITS - 1:])
    assert shift.button("pad.key.11").enabled
    shift.key("return")
    assert shift.view.state == "void"


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_a_pin_the_declaration_refuses_is_worded_in_the_language(dealer_shift, lang):
    shift = dealer_shift(lang=lang)
    (verdict,) = shift.table.process([inputs.VoidRound(reason="Shoe fault", pin="123")])
    assert not verdict.accepted
    tr = Translator(lang)
    words = tr.refusal(verdict.refusal)
    assert words == tr("refusal.pin_digits", low=PIN_MIN_DIGITS, high=PIN_MAX_DIGITS)
    assert "Expected" not in words and "$." not in words and "regex" not in words
    (verdict,) = shift.table.process([inputs.Decide(seat=1, decision="maybe")])  # not a PIN
    words = tr.refusal(verdict.refusal)
    assert words == tr("refusal.input_invalid", input=tr("command.decide"))
    assert "Expected" not in words and "$." not in words


# 2 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_the_lockout_line_shows_its_time_whole_at_800x480(dealer_shift, lang):
    shift = dealer_shift(lang=lang, lockout_after=2, lockout_seconds=600)
    void_pad(shift)
    shift.pin_by_touch("1111")
    shift.pin_by_touch("1111")                    # PIN entry locks for ten minutes
    shift.step(1.5)
    template = re.escape(Translator(lang)("pad.locked", time="TIME"))
    lines = [t for t in shift.frame.texts if t.role in ("pad.error", "pad.error2")]
    shown = " ".join(t.text for t in lines)
    assert re.fullmatch(template.replace("TIME", r"9:5\d"), shown), shown  # the time whole
    assert not [t.text for t in lines if t.truncated]
    assert all(shift.frame.regions["pad"].contains(t.rect) for t in lines)
    assert min(t.size for t in lines) >= 14


# 3 --------------------------------------------------------------------------------------------
ODDS = {"fr": (re.compile(r"\b\d+ contre 1\b"), re.compile(r"\b\d+ (pour|до|to) 1\b")),
        "uk": (re.compile(r"\b\d+ до 1\b"), re.compile(r"\b\d+ (pour|contre|to) 1\b"))}
"""Odds as the trade writes them in each language (French "contre": "pour" counts the
stake in), and the other languages' ways that must not appear."""


@pytest.mark.parametrize("lang", sorted(ODDS))
@pytest.mark.parametrize("scenario", ["outcomes-settled", "outcomes-recall", "outcomes-meters"])
def test_odds_are_written_as_the_trade_writes_them(fonts, lang, scenario):
    sc = build(scenario)
    dealer = DealerScreen(fonts, lang)
    dealer.ui.screen = sc.dealer_screen
    texts = [t.text for t in dealer.draw(pygame.Surface((1920, 1080)), sc.dealer, 1.0).texts]
    texts += [t.text for t in PlayerScreen(fonts, lang).draw(
        pygame.Surface((1920, 1080)), sc.player).texts]
    good, bad = ODDS[lang]
    assert [t for t in texts if good.search(t)], scenario  # odds are written ...
    assert not [t for t in texts if bad.search(t)]         # ... and only the trade's way


# 4 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
@pytest.mark.parametrize("scenario", ["reveal-qualify", "settled", "recall"])
def test_small_cards_draw_rank_and_suit_at_14_px_or_more(fonts, lang, scenario):
    sc = build(scenario)
    dealer = DealerScreen(fonts, lang)
    dealer.ui.screen = sc.dealer_screen
    frame = dealer.draw(pygame.Surface((800, 480)), sc.dealer, 1.0)
    faces = [t for t in frame.texts if ".card." in t.role]
    assert faces, scenario
    for t in faces:
        w, h = t.rect.size
        card = "A" + {"\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c"}[t.text[-1]]
        glyphs = (dealer.art.rank_size(card, w, h), dealer.art.suit_size(card, w, h))
        assert min(glyphs) >= 14, (t.role, t.text, glyphs)
        assert t.size <= min(glyphs)  # the size the layout test checks is the smaller glyph
