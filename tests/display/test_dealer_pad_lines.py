"""The PIN pad's lines under the PIN: a long refusal is read whole wherever there is room.

The table's longest refusal of a supervisor action ("Cards are dealt (1, burns included):
bets can no longer be reopened. Void the round instead") on the Reopen bets pad, at the
dealer screen's sizes and in its three languages: its lines, joined, are the whole
refusal, none is cut, none smaller than the screen's smallest, all inside the pad and
above its keys' bottom, and the attempts left still show under it.
"""

from __future__ import annotations

import pygame
import pytest

from controller.game import inputs
from controller.game.refusals import Refusal
from controller.game.views import Banner
from display.dealer import DealerScreen
from display.scenarios import build

SIZES = ((800, 480), (1024, 768), (1920, 1080))
FLOOR = {(800, 480): 14, (1024, 768): 14, (1920, 1080): 18}
"""The dealer screen's smallest text (tests/display/test_drawn_words.py's floors)."""


def _pad(fonts, lang: str, size: tuple[int, int]):
    screen = DealerScreen(fonts, lang)
    ui = screen.ui
    ui.pad, ui.pad_action = "pin", inputs.ReopenBets.name
    refusal = Banner("rejected", params={"input": inputs.ReopenBets.name,
                                         **Refusal("cards_dealt", {"cards": 1}).as_params()})
    ui.error = screen.tr.rejection(refusal)
    frame = screen.draw(pygame.Surface(size), build("dealing").dealer)
    return screen, frame


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
@pytest.mark.parametrize("size", SIZES)
def test_a_long_refusal_on_the_pin_pad_is_never_cut(fonts, lang, size):
    screen, frame = _pad(fonts, lang, size)
    lines = [t for t in frame.texts if t.role.startswith("pad.error")]
    assert " ".join(t.text for t in lines) == screen.ui.error          # whole, in order
    assert not [t.text for t in lines if t.truncated]
    assert min(t.size for t in lines) >= FLOOR[size]
    pad = frame.regions["pad"]
    assert all(pad.contains(t.rect) for t in lines)
    tops = [t.rect.top for t in lines]
    assert tops == sorted(tops) and len(set(tops)) == len(tops)       # one under the other
    (note,) = [t for t in frame.texts if t.role == "pad.note"]
    assert note.rect.top >= max(t.rect.bottom for t in lines) and not note.truncated
    assert pad.contains(note.rect)
