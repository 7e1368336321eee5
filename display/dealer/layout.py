"""Where every part of the dealer screen goes, for one screen size: fixed places.

Drawn for a 7-inch 800x480 panel and scaled (:func:`scale_for`); the places depend on the
size, the seats and whether the dealer's hand shows, never on the alarms (their strip is
reserved, so no control moves). At base size a touch target is at least :data:`TOUCH`
pixels a side (9 mm on that panel), :data:`GAP` apart, and no text is under :data:`SMALL`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

from display.painter import cols, grid, rows

TOUCH = 47
"""The smallest side of a touch target at ``u`` = 1, pixels (9 mm at 800x480 on 7")."""
GAP = 8
"""The space between touch targets (and the screen's margin) at ``u`` = 1, pixels."""
SMALL = 14
"""The smallest text at ``u`` = 1, pixels (the font's pixel size)."""
MEDIUM = 16
"""Body text at ``u`` = 1."""
LARGE = 20
"""Headings and the large next step at ``u`` = 1."""
LEAST_LARGE = 18
"""The smallest text a large screen may shrink a line to (1920x1080: 18 pixels), pixels."""


@dataclass(frozen=True, slots=True)
class Scale:
    """Lengths in pixels for one screen size (``u``: pixels per base pixel)."""

    u: float

    @property
    def gap(self) -> int:
        """Margin and space between targets, pixels."""
        return max(GAP, round(GAP * self.u))

    @property
    def touch(self) -> int:
        """The smallest side of a touch target, pixels."""
        return max(TOUCH, math.ceil(TOUCH * self.u))

    @property
    def small(self) -> int:
        """The smallest text size, pixels."""
        return max(SMALL, math.floor(SMALL * self.u))

    @property
    def medium(self) -> int:
        """Body text size, pixels."""
        return max(MEDIUM, math.floor(MEDIUM * self.u))

    @property
    def large(self) -> int:
        """Heading text size, pixels."""
        return max(LARGE, math.floor(LARGE * self.u))

    @property
    def least(self) -> int:
        """The smallest size a text may shrink to, pixels (the small size at most)."""
        return min(self.small, max(SMALL, LEAST_LARGE))

    def px(self, base: float) -> int:
        """``base`` pixels at ``u`` = 1, in pixels of this screen."""
        return round(base * self.u)

    def line(self, size: int) -> int:
        """The height of one line of text of ``size`` pixels."""
        return math.ceil(size * 1.2)


@dataclass(slots=True)
class Layout:
    """The places of one dealer screen.

    ``alarms`` is the reserved strip (each alarm on two lines: what happened, what to do);
    ``tools`` has Meters only where the row has room (at 800x480 six buttons would be too
    narrow for their words).
    """

    size: tuple[int, int]
    portrait: bool
    scale: Scale
    next_action: pygame.Rect
    next_card: pygame.Rect
    header: pygame.Rect
    primary: pygame.Rect
    alarms: pygame.Rect
    dealer: pygame.Rect | None
    seats: list[pygame.Rect]
    seat_rows: bool
    chips: list[pygame.Rect]
    tray: list[pygame.Rect]
    tools: list[pygame.Rect]
    body: pygame.Rect
    alarm_rows: int = 1


def scale_for(size: tuple[int, int]) -> Scale:
    """The scale of a screen: ``u`` = min(width / 800, height / 480) (portrait: 600x1000)."""
    w, h = size
    if h > w:
        return Scale(min(w / 600, h / 1000))
    return Scale(min(w / 800, h / 480))


def layout(size: tuple[int, int], nseats: int, nchips: int, with_dealer: bool,
           in_play: tuple[bool, ...] = ()) -> Layout:
    """The places of the dealer screen, ``size`` in pixels.

    In portrait a seat not ``in_play`` (fixed once betting closes) gets a low row.
    """
    w, h = size
    sc = scale_for(size)
    g = sc.gap
    outer = pygame.Rect(g, g, w - 2 * g, h - 2 * g)
    portrait = h > w
    top_h, tool_h = sc.px(56), sc.px(56)
    alarm_rows = 2 if portrait else 1  # a portrait screen is narrow: two rows of alarms
    alarm_h = max(sc.px(40), alarm_rows * (2 * sc.line(sc.small) + 2 * max(1, sc.px(2)))
                  + (alarm_rows - 1) * sc.px(6))
    if portrait:
        row1 = pygame.Rect(outer.left, outer.top, outer.width, top_h)
        row2 = pygame.Rect(outer.left, row1.bottom + g, outer.width, top_h)
        next_action = row1
        next_card, header, primary = cols(row2, [190, 200, 190], g)
        alarms = pygame.Rect(outer.left, row2.bottom + g, outer.width, alarm_h)
        tools_row = pygame.Rect(outer.left, outer.bottom - tool_h, outer.width, tool_h)
        chips_row = pygame.Rect(outer.left, tools_row.top - g - tool_h, outer.width, tool_h)
        chip_cells, tray = _chips(chips_row, nchips, sc, portrait=True)
        tools = cols(tools_row, [1, 1, 1, 1], g)  # room for the meters too
        middle = pygame.Rect(outer.left, alarms.bottom + g, outer.width,
                             chips_row.top - g - alarms.bottom - g)
    else:
        row1 = pygame.Rect(outer.left, outer.top, outer.width, top_h)
        rest = row1.width - sc.px(150) - sc.px(180) - sc.px(160) - 3 * g
        next_action, next_card, header, primary = cols(
            row1, [rest, sc.px(150), sc.px(180), sc.px(160)], g)
        alarms = pygame.Rect(outer.left, row1.bottom + g, outer.width, alarm_h)
        tools_row = pygame.Rect(outer.left, outer.bottom - tool_h, outer.width, tool_h)
        chip_cells, (right,) = _chips(tools_row, nchips, sc, portrait=False)
        buttons = cols(right, [1] * 5, g)
        tray, tools = buttons[:2], buttons[2:]
        middle = pygame.Rect(outer.left, alarms.bottom + g, outer.width,
                             tools_row.top - g - alarms.bottom - g)
    body = pygame.Rect(middle)
    dealer, seats = _dealer_and_seats(middle, sc, portrait, with_dealer, nseats, in_play)
    return Layout(size, portrait, sc, next_action, next_card, header, primary, alarms,
                  dealer, seats[:nseats], portrait, chip_cells, tray, tools, body, alarm_rows)


def _dealer_and_seats(middle: pygame.Rect, sc: Scale, portrait: bool, with_dealer: bool,
                      nseats: int, in_play: tuple[bool, ...]
                      ) -> tuple[pygame.Rect | None, list[pygame.Rect]]:
    """The dealer's hand (None: not shown) and the seats, in the screen's middle."""
    g = sc.gap
    dealer = None
    if with_dealer:
        dealer_h = sc.px(42 if not portrait else 64)  # landscape: cards of MIN_CARD
        dealer = pygame.Rect(middle.left, middle.top, middle.width, dealer_h)
        middle = pygame.Rect(middle.left, dealer.bottom + g, middle.width,
                             middle.bottom - dealer.bottom - g)
    n = max(1, nseats)
    if portrait:
        weights = [1.0 if not in_play or in_play[i] else 0.45 for i in range(n)]
        return dealer, rows(middle, weights, max(2, g // 2))
    return dealer, grid(middle, n, n, g)


def _chips(row: pygame.Rect, nchips: int, sc: Scale, portrait: bool
           ) -> tuple[list[pygame.Rect], list[pygame.Rect]]:
    """The chip places at the left of ``row`` and what is left of it (split for the tray)."""
    g = sc.gap
    d = max(sc.touch, sc.px(52))  # the chip and its key under it
    cells = [pygame.Rect(row.left + i * (d + g), row.top, d, row.height)
             for i in range(nchips)]
    left = (cells[-1].right + g) if cells else row.left
    right = pygame.Rect(left, row.top, row.right - left, row.height)
    if portrait:
        return cells, cols(right, [1, 1], g)
    return cells, [right]
