"""Every refusal the table gives is shown whole on the dealer screen, in every language.

Each declared refusal, its money formatted in the language (a limit refusal's amounts
as long as they come), drawn at 800x480, 1920x1080 and 1080x1920: its words wrap
between words to the lines its place has, or shrink, never under the screen's smallest
text; nothing is cut, nothing leaves its place.
"""

from dataclasses import replace

import pygame
import pytest

from controller.game import refusals
from controller.game.views import Banner
from display.dealer import DealerScreen
from display.scenarios import build
from display.theme import FontBook

SIZES = [(800, 480), (1920, 1080), (1080, 1920)]
MIN_TEXT = {(800, 480): 14, (1920, 1080): 18, (1080, 1920): 18}
SAMPLE = {refusals.MONEY: 1_250_000_00, refusals.SEAT: 7, refusals.NUMBER: 7,
          refusals.SEATS: (1, 2, 3, 4, 5, 6, 7),
          refusals.BET: "six_card_bonus", refusals.COMMAND: "place_bet", refusals.STATE: "dealing",
          refusals.DECISION: "fold", refusals.SETTING: "bet_entry", refusals.CARD: "Qh",
          refusals.TEXT: "the input could not be read"}
"""A long value of each parameter kind (1,250,000.00 as money)."""


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def refusal(code: str) -> refusals.Refusal:
    kind = refusals.REFUSALS[code]
    params = {k: SAMPLE[v] for k, v in kind.params.items()}
    if code in refusals.BET_ERRORS:
        params["seat"] = 7
    return refusals.Refusal(code, params)


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_refusal_is_shown_whole(fonts, size, lang):
    view = build("betting").dealer
    screen = DealerScreen(fonts, lang)
    screen.draw(pygame.Surface(size), view, 1.0)
    for seq, code in enumerate(sorted(refusals.REFUSALS), start=100):
        r = refusal(code)
        banner = Banner("rejected", "warning", r.journal_text(), "",
                        {**r.as_params(), "currency": view.currency})
        shown = replace(view, banners=(banner,), refusal_seq=seq, version=view.version + seq)
        frame = screen.draw(pygame.Surface(size), shown, 1.0)
        where = f"{code} {size} {lang}"
        texts = [t for t in frame.texts if t.role.startswith("refusal.reason")]
        words = screen.tr.rejection(banner)
        assert " ".join(t.text for t in texts) == words, where  # whole words, in order
        assert not [t.text for t in texts if t.truncated], where
        assert all(frame.regions["refusal"].contains(t.rect) for t in texts), where
        assert min(t.size for t in texts) >= MIN_TEXT[size], where
