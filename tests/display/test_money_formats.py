"""Money and odds as the screens write them: one way on a screen, the currency's digits.

Drawn headless from the scenarios' views (the scripted shift's rounds) by the real screens
and read from the frames' records.
"""

from __future__ import annotations

import re

import pygame
import pytest
from player_pages import page_texts, player_pages

from display.dealer import DealerScreen
from display.player import PlayerScreen
from display.scenarios import build
from display.theme import FontBook

LANGS = ["en", "fr", "uk"]
ODDS = {"en": " to 1", "fr": " contre 1", "uk": " до 1"}


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def odds_forms(texts, lang):
    """How the texts write odds: ``colon`` (30:1), ``words`` (30 to 1), ``pays`` (pays 30
    to 1); a text with no odds is left out."""
    number = r"\d[\d\u202f\u00a0,]*"
    forms = set()
    for text in texts:
        if re.search(number + ":1$", text):
            forms.add("colon")
        elif re.fullmatch(number + re.escape(ODDS[lang]), text):
            forms.add("words")
        elif re.search(number + re.escape(ODDS[lang]) + "$", text):
            forms.add("pays")
    return forms


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [(800, 480), (1024, 768), (1280, 800), (1920, 1080)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_dealer_screen_writes_odds_one_way(fonts, size, lang):
    """Outcome mode, settled: every seat's wins written alike (30:1 under 1000 px wide,
    else in words), never 1:1 on one seat and "pays 1 to 1" on the next."""
    sc = build("outcomes-settled")
    screen = DealerScreen(fonts, lang)
    screen.ui.screen = sc.dealer_screen
    frame = screen.draw(pygame.Surface(size), sc.dealer)
    texts = [t.text for t in frame.texts if t.role.endswith(".amount")]
    forms = odds_forms(texts, lang)
    assert len(forms) == 1, texts
    assert (forms == {"colon"}) == (size[0] < 1000)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_player_screen_writes_odds_as_its_paytables(fonts, size, lang):
    """The paytables and the seats' wins in one notation: 30:1 on a narrow screen, else
    "30 to 1" (the seats may add the verb: "pays 30 to 1")."""
    frame = PlayerScreen(fonts, lang).draw(pygame.Surface(size),
                                           build("outcomes-settled").player)
    forms = odds_forms([t.text for t in frame.texts], lang)
    assert forms <= ({"colon"} if size[0] < 1000 else {"words", "pays"}), forms
    assert forms


LIMITS = {"en": "1.00 \u2013 500.00", "fr": "1,00 \u2013 500,00", "uk": "1,00 \u2013 500,00"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_limits_have_the_currencys_digits(fonts, size, lang):
    """The table limits are amounts like the bets beside them: 1,00 – 500,00 in French,
    not 1 – 500 (the Ante's limits of the scripted shift, 100 to 50000 cents)."""
    view = build("betting").player
    assert view.paytables.limits[0] == ("ante", 100, 50000)
    pages = player_pages(PlayerScreen(fonts, lang), view, size)
    limits = [t.text for t in page_texts(pages) if t.role.startswith("limits")]
    assert LIMITS[lang] in limits
    assert all(re.search(r"\d[.,]\d\d$", t) for t in limits if "\u2013" in t), limits
