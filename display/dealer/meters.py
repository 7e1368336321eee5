"""Meters (R6): per bet type, per seat and in total, with the voids and what they refunded.

The alarm strip and the shoe link stay in sight above them.
"""

from __future__ import annotations

import pygame

from display import theme
from display.dealer.draw import Ctx, lines, panel
from display.i18n import format_money
from display.painter import cols, inset, rows

COLUMNS = ("meter.name", "meter.wagered", "meter.paid", "meter.won", "meter.net",
           "meter.rounds", "meter.voids", "meter.refunded")
"""The columns, by label key."""
WIDTHS = (1.3, 1.15, 1.0, 1.0, 1.1, 0.75, 1.15, 1.05)


def draw_meters(c: Ctx) -> None:
    """Draw the meters screen in the layout's body (two tables on a narrow screen)."""
    p, sc, tr = c.p, c.sc, c.tr
    body = c.lay.body
    panel(c, body, theme.PANEL, theme.GOLD_DARK)
    p.region("meters", body)
    inner = inset(body, sc.px(8), sc.px(6))
    title = pygame.Rect(inner.left, inner.top, inner.width, sc.line(sc.large))
    p.text(tr("screen.meters"), title, sc.large, bold=True, color=theme.GOLD, align="left",
           role="meters.title")
    rest = pygame.Rect(inner.left, title.bottom, inner.width, inner.bottom - title.bottom)
    if c.lay.portrait:
        top, bottom = rows(rest, [1, 1], sc.gap)
        _table(c, top, (0, 1, 2, 3, 4))
        _table(c, bottom, (0, 5, 6, 7))
    else:
        _table(c, rest, tuple(range(len(COLUMNS))))


def _table(c: Ctx, rect: pygame.Rect, which: tuple[int, ...]) -> None:
    """The meter rows with the columns ``which`` (indexes into :data:`COLUMNS`)."""
    p, sc, tr, view = c.p, c.sc, c.tr, c.view
    widths = [WIDTHS[j] for j in which]
    head_h = 2 * sc.line(sc.small)
    lh = max(sc.line(sc.small), (rect.height - head_h) // len(view.meters or [0]))
    lh = min(lh, sc.line(sc.medium))
    size = sc.medium if lh >= sc.line(sc.medium) else sc.small
    heads = pygame.Rect(rect.left, rect.top, rect.width, head_h)
    for j, cell in zip(which, cols(heads, widths, sc.px(4)), strict=True):
        lines(c, tr(COLUMNS[j]), inset(cell, sc.px(2), 0), sc.small, bold=True,
              color=theme.TEXT_DIM, align="left" if j == 0 else "right", role="meters.th")
    for i, m in enumerate(view.meters):
        line = pygame.Rect(rect.left, heads.bottom + i * lh, rect.width, lh)
        if i % 2 == 0:
            p.fill(line, theme.PANEL_HI, 3)
        total = m.name == "total"
        if m.name.startswith("seat "):
            name = tr("word.seat_n", seat=m.name[5:])
        elif total:
            name = tr("word.total")
        else:
            name = tr.bet(m.name)
        values = [name, format_money(m.wagered), format_money(m.paid), format_money(m.won),
                  format_money(m.net, sign=True), str(m.rounds), str(m.voids),
                  format_money(m.refunded)]
        for j, cell in zip(which, cols(line, widths, sc.px(4)), strict=True):
            p.text(values[j], inset(cell, sc.px(2), 0), size, bold=total,
                   color=theme.GOLD if total else theme.TEXT,
                   align="left" if j == 0 else "right", role="meters.cell")
