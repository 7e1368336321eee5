"""The lines of a seat: bet names, amounts and results, fitted to the seat's room.

A seat column shares its height between the cards, the hand's name, one line per bet
and the seat's button (:func:`column_fit`); a seat row (portrait) writes its lines side
by side (:func:`flow`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pygame

from display import theme
from display.dealer.draw import Ctx
from display.dealer.payouts import Line

FULL_NAMES_FROM = 150
"""A seat at least this wide (at ``u`` = 1) writes bet names in full, else short."""

def bet_name(c: Ctx, name: str, width: int) -> str:
    """A bet's name in full in a wide seat, else short (``PP``): one style per screen."""
    full = width >= c.sc.px(FULL_NAMES_FROM)
    return c.tr.bet(name) if full else c.tr(f"short.{name}")


@dataclass(frozen=True, slots=True)
class ColumnFit:
    """How a seat column's cards, hand and lines share its height.

    Attributes:
        lines: the lines to draw (amounts without decimals where that made them fit).
        gap: the space between the cards, the hand, the lines and the button.
        card_h: the cards' height (0: no cards to show).
        hand_h: the hand's height (one line or two).
    """

    lines: list[Line]
    gap: int
    card_h: int
    hand_h: int


def column_fit(c: Ctx, make: Callable[[bool], list[Line]], hand: str, width: int,
                room: int, min_card: int) -> ColumnFit:
    """Share ``room`` pixels between the cards (at least ``min_card``), hand and lines.

    The cards never give way, nor does a line. When all does not fit, first the gaps
    tighten, then amounts are written without decimals where they have none (still
    exact), then the hand's name (the cards show the hand) keeps to one line.
    """
    sc = c.sc
    lh = sc.line(sc.small)
    two = hand and c.p.fonts.font(sc.small).size(hand)[0] > width
    tight = max(1, sc.px(2))
    made = {False: make(False)}
    tries = [(max(2, sc.px(4)), False, two), (tight, False, two), (tight, True, two),
             (tight, True, False)]
    for g, whole, two_lines in tries:
        shown = made.setdefault(whole, make(whole))
        hand_h = lh * (2 if two_lines else 1) if hand else 0
        text_h = sum(line_fit(c, ln, width)[0] for ln in shown) * lh
        spare = room - (min_card + g if min_card else 0) - hand_h - text_h - g
        if spare >= 0:
            break
    card_h = min_card + min(max(0, spare), max(0, sc.px(44) - min_card)) if min_card else 0
    return ColumnFit(shown, g, card_h, hand_h)



def line_fit(c: Ctx, line: Line, width: int) -> tuple[int, bool]:
    """(1 or 2 text lines, amount in bold) for a line's name and amount in ``width``.

    One line with a bold amount, else with a regular one, else the amount under the name.
    """
    name, value, _ = line
    label = c.p.fonts.font(c.sc.small).size(bet_name(c, name, width) + " ")[0]
    for bold in (True, False):
        if label + c.p.fonts.font(c.sc.small, bold).size(value)[0] <= width:
            return 1, bold
    return 2, True


def row_lines(c: Ctx, lines: list[Line], width: int) -> int:
    """How many text lines ``lines`` take side by side in ``width`` (a seat row)."""
    f, fb = c.p.fonts.font(c.sc.small), c.p.fonts.font(c.sc.small, True)
    count, x = (1 if lines else 0), 0
    for name, value, _ in lines:
        w = f.size(c.tr(f"short.{name}") + " ")[0] + fb.size(value)[0] + 1
        if x and x + w > width:
            count, x = count + 1, 0
        x += w + c.sc.px(10)
    return count


def flow(c: Ctx, box: pygame.Rect, lines: list[Line], seat: int) -> None:
    """Bet lines in ``box``, one per line: name left, amount right (or under it).

    In a seat row (portrait) the lines sit side by side.
    """
    p, sc = c.p, c.sc
    if not lines or box.height <= 0:
        return
    lh = sc.line(sc.small)
    fb = p.fonts.font(sc.small, True)
    role = f"seat.{seat}"
    if c.lay.seat_rows:
        items = [(c.tr(f"short.{n}"), v, col) for n, v, col in lines]
        x, y, gap = box.left, box.top, sc.px(10)
        f = p.fonts.font(sc.small)
        for label, value, color in items:
            lw, vw = f.size(label + " ")[0], fb.size(value)[0] + 1
            if x > box.left and x + lw + vw > box.right:
                x, y = box.left, y + lh
            p.text(label, pygame.Rect(x, y, lw, lh), sc.small, color=theme.TEXT_DIM,
                   align="left", role=f"{role}.bet")
            p.text(value, pygame.Rect(x + lw, y, min(vw, box.right - x - lw), lh), sc.small,
                   bold=True, color=color, align="left", role=f"{role}.amount")
            x += lw + vw + gap
        return
    y = box.top
    fits = [line_fit(c, line, box.width) for line in lines]
    bold = all(b for _, b in fits)  # one weight for the whole seat
    for line, (n, _) in zip(lines, fits, strict=True):
        name, value, color = line
        r = pygame.Rect(box.left, y, box.width, n * lh)
        vw = min(r.width, p.fonts.font(sc.small, bold).size(value)[0] + 1)
        a = pygame.Rect(r.left, r.top, r.width - vw if n == 1 else r.width, lh)
        b = pygame.Rect(r.right - vw, r.bottom - lh, vw, lh)
        p.text(bet_name(c, name, box.width), a, sc.small, color=theme.TEXT_DIM, align="left",
               role=f"{role}.bet")
        p.text(value, b, sc.small, bold=bold, color=color, align="right",
               role=f"{role}.amount")
        y = r.bottom


