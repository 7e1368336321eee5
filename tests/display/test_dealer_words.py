"""What the dealer screen says and how it fits: meters, the lockout's time, the large
button's status, refusals, plurals and the screen's smallest size.

Drawn headless from the scenarios' views and read from the frame's records.
"""

from dataclasses import replace

import pygame
import pytest

from display.dealer import DealerScreen
from display.scenarios import build
from display.theme import FontBook

LANGS = ["en", "fr", "uk"]


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def said(frame, prefix):
    """The texts drawn with a role starting with ``prefix``, joined."""
    return " ".join(t.text for t in frame.texts if t.role.startswith(prefix))


def test_a_lockout_counts_down_from_the_tables_milliseconds(fonts):
    """The view is published half a second into a 5-minute lockout; 61 s into it the
    pad says 3:59 left (4:00 when whole seconds are rounded up twice)."""
    view = replace(build("decisions").dealer, pin_locked_ms=5 * 60_000 - 500, version=77)
    screen = DealerScreen(fonts, "en")
    screen.ui.pad, screen.ui.pad_action = "pin", "void"
    screen.draw(pygame.Surface((800, 480)), view, 100.0)  # first seen 0.5 s in
    frame = screen.draw(pygame.Surface((800, 480)), view, 100.0 + 60.5)  # 61 s in
    assert said(frame, "pad.error") == screen.tr("pad.locked", time="3:59")
