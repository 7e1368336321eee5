"""The player screen's seats: each seat's cards, hand, wagers or results and net.

The seats share one plan (:func:`plan_seats`): the sizes at which every seat's texts fit
its cell, largest first. The amounts and the hand names come first (the player reads them
from the table's distance); a bet's name stands beside its amount when both fit at a
readable size, else above it; a hand name too long for one line takes two; the cards take
the height that is left.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import pygame

from display import theme
from display.cards import CardArt
from display.painter import Painter, inset
from display.theme import LINE_HEIGHT, FontBook

LINE = 1.12
"""A result line's height as a multiple of the text's line height."""


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Sizes (font pixel sizes) and heights (pixels) shared by every seat of a frame.

    Attributes:
        amount: the amounts' size (bold).
        name: the bet names' size.
        stacked: every bet's name stands above its amount (else beside it where both fit:
            :func:`inline`).
        hand: the hand names' size (bold); ``hand_lines``: 1 or 2.
        label: the seat label's size; ``net``: the net amount's size.
        pad_x, pad_y: the cell's inner margins.
        heights: label, cards, hand, results, net (pixels), in drawing order.
        gap: between those parts.
    """

    amount: int
    name: int
    stacked: bool
    hand: int
    hand_lines: int
    label: int
    net: int
    pad_x: int
    pad_y: int
    heights: tuple[int, int, int, int, int]
    gap: int


def _h(size: int) -> int:
    """The box height one line of ``size`` needs."""
    return math.ceil(size * LINE_HEIGHT) + 1


def split_two(text: str) -> tuple[str, str]:
    """``text`` in two lines, split at the space nearest its middle (``("", text)``: none)."""
    words = text.split(" ")
    if len(words) < 2:
        return "", text
    best = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i]))
                                                       - len(" ".join(words[i:]))))
    return " ".join(words[:best]), " ".join(words[best:])


def plan_seats(fonts: FontBook, cell: pygame.Rect,
               seats: tuple[tuple[tuple[str, str], ...], ...], hands: tuple[str, ...], n: int,
               floor: int, nets: tuple[str, ...] = ()) -> SeatPlan:
    """The largest sizes at which every seat's texts fit ``cell``.

    Args:
        fonts: the font book (its fonts measure the texts).
        cell: one seat's rectangle (all seats have its size).
        seats: each seat's (bet name, amount) lines.
        hands: every seat's hand text.
        n: result lines a seat has room for at the least.
        floor: the smallest size the plan goes down to.
        nets: every seat's net text (an amount, or a word such as ``RETURNED``).

    Returns:
        The plan.
    """
    return _plan(fonts, cell.width, cell.height, seats, hands, n, floor, nets)


def inline(fonts: FontBook, plan: SeatPlan, width: int, name: str, amount: str) -> bool:
    """Whether a bet's name stands beside its amount (else above it) in ``width``."""
    return (fonts.font(plan.name).size(name)[0] + fonts.font(plan.amount, True).size(amount)[0]
            + plan.amount // 2 <= width)


@functools.lru_cache(maxsize=256)
def _plan(fonts: FontBook, width: int, height: int,
          seats: tuple[tuple[tuple[str, str], ...], ...], hands: tuple[str, ...], n: int,
          floor: int, nets: tuple[str, ...] = ()) -> SeatPlan:
    pad_x, pad_y = max(3, width // 28), max(3, height // 50)
    w, h = width - 2 * pad_x, height - 2 * pad_y
    gap = max(2, h // 80)

    def wide(text: str, size: int, bold: bool) -> int:
        return fonts.font(size, bold).size(text)[0] if text else 0

    pairs = [x for seat in seats for x in seat]
    plan = None
    for amount in range(max(floor, h // 12), floor - 1, -1):
        name = max(floor, min(amount, int(amount * 0.7)))
        if any(wide(b, amount, True) > w or wide(a, name, False) > w for a, b in pairs):
            continue
        hand, lines = amount, 1
        if any(wide(x, hand, True) > w for x in hands):
            lines = 2
            if any(max(wide(a, hand, True), wide(b, hand, True)) > w
                   for a, b in map(split_two, hands)):
                continue
        label = min(int(amount * 1.15), max(floor, int(h / 14)))
        net = min(int(amount * 1.3), max(floor, int(h / 11)))
        while net > floor and any(  # every net fits its pill (inside a quarter its height)
                wide(x, net, True) > w - 2 * (math.ceil(_h(net) * 1.2) // 4) for x in nets):
            net -= 1
        trial = SeatPlan(amount, name, False, hand, lines, label, net, pad_x, pad_y,
                         (0, 0, 0, 0, 0), gap)
        one, two = math.ceil(_h(amount) * LINE), _h(name) + _h(amount)
        res = max([n * one, *(sum(one if inline(fonts, trial, w, a, b) else two
                                  for a, b in seat) for seat in seats)])
        net_h = math.ceil(_h(net) * 1.2)
        cards = h - (_h(label) + lines * _h(hand) + res + net_h + 4 * gap)
        plan = SeatPlan(amount, name, False, hand, lines, label, net, pad_x, pad_y,
                        (_h(label), cards, lines * _h(hand), res, net_h), gap)
        if cards >= h * 0.15:
            return plan
    return plan or SeatPlan(floor, floor, True, floor, 2, floor, floor, pad_x, pad_y,
                            (_h(floor), max(0, h // 5), 2 * _h(floor), n * 2 * _h(floor),
                             _h(floor)), gap)


def draw_seat(p: Painter, art: CardArt, cell: pygame.Rect, plan: SeatPlan, role: str,
              label: str, cards: tuple[str | None, ...], hand: str,
              lines: list[tuple[str, str, theme.Color]],
              net: tuple[str, theme.Color] | None) -> None:
    """One seat with wagers or results, drawn by ``plan``.

    Args:
        p: painter.
        art: card art.
        cell: the seat's rectangle.
        plan: the frame's seat plan.
        role: ``seat.N``.
        label: ``Seat N``.
        cards: the seat's cards (None: face down).
        hand: the hand's name (empty before the third card).
        lines: (bet name, amount, amount colour) per wager or result.
        net: the net amount and its colour, or None.
    """
    inner = inset(cell, plan.pad_x, plan.pad_y)
    parts = []
    y = inner.top
    for height in plan.heights:
        parts.append(pygame.Rect(inner.left, y, inner.width, max(0, height)))
        y += height + plan.gap
    head, cards_r, hand_r, res_r, net_r = parts
    p.text(label, head, plan.label, bold=True, color=theme.GOLD, role=f"{role}.label")
    art.row(p.surface, cards_r, cards)
    p.region(f"{role}.cards", cards_r)
    if hand:
        texts = split_two(hand) if plan.hand_lines == 2 and p.fonts.font(
            plan.hand, True).size(hand)[0] > hand_r.width else ("", hand)
        boxes = ([pygame.Rect(hand_r.left, hand_r.top, hand_r.width, hand_r.height // 2),
                  pygame.Rect(hand_r.left, hand_r.top + hand_r.height // 2, hand_r.width,
                              hand_r.height - hand_r.height // 2)]
                 if texts[0] else [hand_r])
        for text, box in zip([t for t in texts if t], boxes, strict=True):
            p.text(text, box, plan.hand, bold=True, role=f"{role}.hand", min_size=plan.hand)
    p.region(f"{role}.results", res_r)
    y = res_r.top
    for name, amount, color in lines:
        if plan.stacked or not inline(p.fonts, plan, res_r.width, name, amount):
            a = pygame.Rect(res_r.left, y, res_r.width, _h(plan.name))
            b = pygame.Rect(res_r.left, a.bottom, res_r.width, _h(plan.amount))
            y = b.bottom
        else:
            line = pygame.Rect(res_r.left, y, res_r.width, math.ceil(_h(plan.amount) * LINE))
            y = line.bottom
            amount_w = min(line.width, p.fonts.font(plan.amount, True).size(amount)[0] + 1)
            b = pygame.Rect(line.right - amount_w, line.top, amount_w, line.height)
            a = pygame.Rect(line.left, line.top, max(1, b.left - line.left - 2), line.height)
        p.text(name, a, plan.name, align="left", color=theme.TEXT_DIM, role=f"{role}.bet",
               min_size=plan.name)
        p.text(amount, b, plan.amount, bold=True, align="right", color=color,
               role=f"{role}.amount", min_size=plan.amount)
    p.region(f"{role}.net", net_r)
    if net is not None:
        text, color = net
        pill = pygame.Rect(net_r)
        p.fill(pill, theme.FELT_DARK, pill.height // 3)
        p.text(text, inset(pill, pill.height // 4, 0), plan.net, bold=True, color=color,
               role=f"{role}.net", min_size=min(plan.net, plan.amount))
