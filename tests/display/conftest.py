"""Fixtures of the screens' tests."""

import pygame
import pytest

from display.theme import FontBook


@pytest.fixture(scope="module")
def fonts():
    """One font book for a module's screens (SDL's display and fonts started)."""
    pygame.display.init()
    pygame.font.init()
    return FontBook()
