"""The lines of a seat: bet names, amounts and results, fitted to the seat's room.

Bet names are in full (``Ante Bonus``) where the seats are wide enough for the longest,
else short (``AB``): one style for the whole screen in every state of the round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pygame

from controller.game.bet_types import NAMES
from display import theme
from display.dealer.draw import Ctx
from display.dealer.payouts import Line

FULL_NAMES_FROM = 150
"""A seat at least this wide (at ``u`` = 1) has room for Rebet beside Clear."""
LINE_BETS = NAMES
"""Every bet a seat's lines may name."""


@dataclass(frozen=True, slots=True)
class Names:
    """How the seats write bet names (``full`` or short) and their text ``size`` in pixels."""

    full: bool
    size: int


def bet_name(c: Ctx, name: str, names: Names | None) -> str:
    """A bet's name, full or short (``names`` None: short); a paytable line's name as it is."""
    if "\t" in name:  # a bet and the paytable line it was paid on (:func:`merged`)
        bet, line, pay = name.split("\t")
        return c.tr("result.paid_line", bet=bet_name(c, bet, names), line=line, odds=pay)
    if name not in LINE_BETS:
        return name
    return c.tr.bet(name) if names is not None and names.full else c.tr(f"short.{name}")


def _joined_bet(c: Ctx, name: str, names: Names) -> str:
    """The bet's own name in a line joined to its paytable line's (:func:`merged`), else ""."""
    return bet_name(c, name.split("\t")[0], names) if "\t" in name else ""


def merged(c: Ctx, lines: list[Line], width: int, names: Names) -> list[Line]:
    """``lines`` with each paytable line's name joined to its bet's where one line holds both."""
    out: list[Line] = []
    for ln in lines:
        if ln[0] not in LINE_BETS and out and out[-1][0] in LINE_BETS:
            joined = (f"{out[-1][0]}\t{ln[0]}\t{ln[1]}", out[-1][1], out[-1][2])
            if line_fit(c, joined, width, names)[0] == 1:
                out[-1] = joined
                continue
        out.append(ln)
    return out


def is_bet(line: Line) -> bool:
    """A line of a bet (its paytable line joined or not), not a paytable line's own."""
    return line[0] in LINE_BETS or "\t" in line[0]


def full_sizes(c: Ctx, width: int) -> list[int]:
    """The text sizes, largest first, down to the screen's smallest, where all full names fit."""
    sc = c.sc
    names = [c.tr.bet(n) for n in LINE_BETS]
    return [s for s in range(sc.small, sc.least - 1, -1)
            if max(c.p.fonts.font(s).size(n)[0] for n in names) <= width]


@dataclass(frozen=True, slots=True)
class ColumnFit:
    """How a seat column's cards, hand and lines share its height.

    ``card_h`` 0: no cards; ``fits``: all fits whole (else the tightest try); ``named``: the
    paytable lines' names on their own lines (2), joined to their bet's (1) or dropped (0).
    """

    lines: list[Line]
    gap: int
    card_h: int
    hand_h: int
    fits: bool = True
    named: int = 2


def column_fit(c: Ctx, make: Callable[[bool], list[Line]], hand: str, width: int,
                room: int, min_card: int, names: Names) -> ColumnFit:
    """Share ``room`` pixels between the cards (at least ``min_card``), hand and lines.

    Cards and bet lines never give way. Else in turn: the gaps tighten, whole amounts lose
    their decimals, paytable line names join their bets' lines, then go (the player screen
    and recall still name them), and last the hand's name keeps to one line.
    """
    sc = c.sc
    lh = sc.line(sc.small)
    two = hand and c.p.fonts.font(sc.small).size(hand)[0] > width
    tight = max(1, sc.px(2))
    made = {False: make(False)}
    wide = max(2, sc.px(4))
    tries = [(wide, False, two, 2), (tight, False, two, 2), (tight, True, two, 2),
             (tight, True, two, 1), (wide, False, two, 0), (tight, False, two, 0),
             (tight, True, two, 0), (tight, True, False, 2), (tight, True, False, 1),
             (tight, True, False, 0)]
    for g, whole, two_lines, named in dict.fromkeys(tries):  # in order, each once
        shown = made.setdefault(whole, make(whole))
        if named < 2:
            shown = merged(c, shown, width, names)
        if not named:
            shown = [ln for ln in shown if is_bet(ln)]
        hand_h = lh * (2 if two_lines else 1) if hand else 0
        text_h = sum(line_fit(c, ln, width, names)[0] for ln in shown) * sc.line(names.size)
        spare = room - (min_card + g if min_card else 0) - hand_h - text_h - g
        if spare >= 0:
            break
    card_h = min_card + min(max(0, spare), max(0, sc.px(44) - min_card)) if min_card else 0
    return ColumnFit(shown, g, card_h, hand_h, spare >= 0 and two_lines == two, named)


def line_fit(c: Ctx, line: Line, width: int, names: Names) -> tuple[int, bool]:
    """(1 or 2 text lines, amount in bold) for a name and amount in ``width``; bold first."""
    name, value, _ = line
    label = c.p.fonts.font(names.size).size(bet_name(c, name, names) + " ")[0]
    for bold in (True, False):
        if label + c.p.fonts.font(names.size, bold).size(value)[0] <= width:
            return 1, bold
    return 2, True


def row_lines(c: Ctx, lines: list[Line], width: int) -> int:
    """How many text lines ``lines`` take side by side in ``width`` (a seat row)."""
    f, fb = c.p.fonts.font(c.sc.small), c.p.fonts.font(c.sc.small, True)
    count, x = (1 if lines else 0), 0
    for name, value, _ in lines:
        w = f.size(bet_name(c, name, None) + " ")[0] + fb.size(value)[0] + 1
        if x and x + w > width:
            count, x = count + 1, 0
        x += w + c.sc.px(10)
    return count


def flow(c: Ctx, box: pygame.Rect, lines: list[Line], seat: int, names: Names) -> None:
    """Bet lines in ``box``: name left, amount right (or under it); side by side in a row."""
    p, sc = c.p, c.sc
    if not lines or box.height <= 0:
        return
    lh = sc.line(sc.small)
    fb = p.fonts.font(sc.small, True)
    role = f"seat.{seat}"
    if c.lay.seat_rows:
        items = [(bet_name(c, n, None), v, col, is_bet((n, v, col))) for n, v, col in lines]
        x, y, gap = box.left, box.top, sc.px(10)
        f = p.fonts.font(sc.small)
        for label, value, color, bet in items:
            kind = "" if bet else "line"  # a paytable line's own: its name, its pay
            lw, vw = f.size(label + " ")[0], fb.size(value)[0] + 1
            if x > box.left and x + lw + vw > box.right:
                x, y = box.left, y + lh
            p.text(label, pygame.Rect(x, y, lw, lh), sc.small, color=theme.TEXT_DIM,
                   align="left", role=f"{role}.{kind or 'bet'}")
            p.text(value, pygame.Rect(x + lw, y, min(vw, box.right - x - lw), lh), sc.small,
                   bold=True, color=color, align="left", role=f"{role}.{kind or 'amount'}")
            x += lw + vw + gap
        return
    y, size, lh = box.top, names.size, sc.line(names.size)
    fits = [line_fit(c, line, box.width, names) for line in lines]
    bold = all(b for _, b in fits)  # one weight for the whole seat
    for line, (n, _) in zip(lines, fits, strict=True):
        name, value, color = line
        r = pygame.Rect(box.left, y, box.width, n * lh)
        vw = min(r.width, p.fonts.font(size, bold).size(value)[0] + 1)
        a = pygame.Rect(r.left, r.top, r.width - vw if n == 1 else r.width, lh)
        b = pygame.Rect(r.right - vw, r.bottom - lh, vw, lh)
        bet = is_bet(line)  # else a paytable line's own: its name, its pay
        label, head = bet_name(c, name, names), _joined_bet(c, name, names)
        split = bool(head) and label.startswith(head)
        if split:  # the bet's name, then the paytable line joined to it
            hw = p.fonts.font(size).size(head)[0]
            p.text(head, pygame.Rect(a.left, a.top, min(a.width, hw + 1), a.height), size,
                   color=theme.TEXT_DIM, align="left", role=f"{role}.bet", min_size=size)
            a = pygame.Rect(a.left + hw, a.top, max(0, a.width - hw), a.height)
            label = label[len(head):]
        p.text(label, a, size, color=theme.TEXT_DIM, align="left",
               role=f"{role}.bet" if bet and not split else f"{role}.line", min_size=size)
        p.text(value, b, size, bold=bold, color=color, align="right",
               role=f"{role}.amount" if bet else f"{role}.line", min_size=size)
        y = r.bottom


