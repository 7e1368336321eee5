"""Where the dealer screen's buttons are, read from the real screen drawn at a size."""

from __future__ import annotations

import pygame


def primary_spot(size: tuple[int, int]) -> tuple[float, float]:
    """Where the large button is (fractions of the dealer window): read from the real
    dealer screen drawn at ``size`` from a real table's views after the reveal."""
    from display.dealer import DealerScreen
    from display.scenarios import build
    from display.theme import FontBook

    pygame.display.init()
    pygame.font.init()
    frame = DealerScreen(FontBook(), "en").draw(pygame.Surface(size),
                                                build("reveal-qualify").dealer)
    button = frame.button("primary")
    assert button.label == "Settle"
    return (round(button.rect.centerx / size[0], 4), round(button.rect.centery / size[1], 4))
