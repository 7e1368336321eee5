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


def betting_frame(size: tuple[int, int]):
    """The real dealer screen drawn at ``size`` while a 7-seat table takes bets (its
    buttons and regions: ``frame.button(id).rect``, ``frame.regions[name]``)."""
    from display.dealer import DealerScreen
    from display.scenarios import build
    from display.theme import FontBook

    pygame.display.init()
    pygame.font.init()
    return DealerScreen(FontBook(), "en").draw(pygame.Surface(size), build("betting").dealer)


def spot(size: tuple[int, int], button_id: str, pad: bool = False) -> tuple[float, float]:
    """Where a button is (fractions of the window): its centre, on the betting screen, or
    (``pad``) on the PIN pad for Next round after a void."""
    if pad:
        from display.dealer import DealerScreen
        from display.scenarios import build
        from display.theme import FontBook

        screen = DealerScreen(FontBook(), "en")
        screen.ui.pad, screen.ui.pad_action = "pin", "next_round"
        frame = screen.draw(pygame.Surface(size), build("void").dealer)
    else:
        frame = betting_frame(size)
    rect = frame.button(button_id).rect
    return (round(rect.centerx / size[0], 4), round(rect.centery / size[1], 4))
