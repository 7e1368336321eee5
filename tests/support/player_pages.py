"""The player screen drawn at each page of its paytables, for tests that read all of them."""

from __future__ import annotations

import pygame


def player_pages(screen, view, size: tuple[int, int]) -> list[tuple[pygame.Surface, object]]:
    """(surface, frame) of ``view`` at every page the paytables turn through, first page first.

    Args:
        screen: a :class:`display.player.PlayerScreen`.
        view: the player view.
        size: (width, height).
    """
    surface = pygame.Surface(size)
    out = [(surface, screen.draw(surface, view, 0.0))]
    pages = out[0][1].notes.get("pt_pages", 1)  # one page: every table at once
    if pages > 1:
        from display.player_tables import PAGE_SECONDS
    for page in range(1, pages):
        surface = pygame.Surface(size)
        out.append((surface, screen.draw(surface, view, page * PAGE_SECONDS)))
    return out


def page_texts(pages) -> list:
    """Every text drawn on any of ``pages``."""
    return [t for _, frame in pages for t in frame.texts]
