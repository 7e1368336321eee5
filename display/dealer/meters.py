"""Meters (R6): per bet type, per seat and in total, with the voids and what they refunded.

Rounds dealt as outcomes count no money: their meters are a screen of their own.
"""

from __future__ import annotations

import pygame

from controller.game.views import DealerView
from display import outcome_mode as om
from display import theme
from display.dealer.draw import Ctx, lines, panel
from display.painter import cols, inset, rows

COLUMNS = ("meter.name", "meter.wagered", "meter.paid", "meter.won", "meter.net",
           "meter.rounds", "meter.voids", "meter.refunded")
"""The columns, by label key."""
WIDTHS = (1.3, 1.15, 1.0, 1.0, 1.1, 0.75, 1.15, 1.05)


def outcome_tab(view: DealerView) -> bool:
    """The outcome meters have a tab: there are rounds dealt as outcomes to count."""
    return bool(view.outcome_meters)


def draw_meters(c: Ctx) -> None:
    """Draw the meters screen in the layout's body (two tables on a narrow screen)."""
    p, sc, tr, view = c.p, c.sc, c.tr, c.view
    body = c.lay.body
    panel(c, body, theme.PANEL, theme.GOLD_DARK)
    p.region("meters", body)
    inner = inset(body, sc.px(8), sc.px(6))
    title = pygame.Rect(inner.left, inner.top, inner.width, sc.line(sc.large))
    outcomes = outcome_tab(view) and (c.ui.screen == "outcomes" or not view.meters)
    said = p.text(tr("screen.outcome_meters" if outcomes else "screen.meters"), title,
                  sc.large, bold=True, color=theme.GOLD, align="left", role="meters.title")
    rest = pygame.Rect(inner.left, title.bottom, inner.width, inner.bottom - title.bottom)
    if outcomes:
        _outcome_table(c, rest)
        return
    summary = void_summary(c)
    side = pygame.Rect(said.right + sc.gap, title.top, title.right - said.right - sc.gap,
                       title.height)
    if p.fonts.font(sc.small).size(summary)[0] > side.width:  # under the title
        side = pygame.Rect(rest.left, rest.top, rest.width, sc.line(sc.small))
        rest = pygame.Rect(rest.left, side.bottom, rest.width, rest.bottom - side.bottom)
    p.text(summary, side, sc.small, color=theme.TEXT, align="right", role="meters.voids")
    if c.lay.portrait:
        top, bottom = rows(rest, [1, 1], sc.gap)
        _table(c, top, (0, 1, 2, 3, 4))
        _table(c, bottom, (0, 5, 6, 7))
    else:
        _table(c, rest, tuple(range(len(COLUMNS))))


def void_summary(c: Ctx) -> str:
    """``10 bets voided, 225.00 refunded · 3 rounds voided`` (the total's voids)."""
    total = next((m for m in c.view.meters if m.name == "total"), None)
    bets, refunded = (total.voids, total.refunded) if total is not None else (0, 0)
    return c.tr("meter.void_summary", bets=c.tr.plural("meter.bets_voided", bets),
                refunded=c.money(refunded),
                rounds=c.tr.plural("meter.rounds_voided", c.view.rounds_voided))


def _outcome_table(c: Ctx, rect: pygame.Rect) -> None:
    """The outcome meters: rounds, then per bet its wins by line, pushes, losses, returns."""
    p, sc, tr, view = c.p, c.sc, c.tr, c.view
    heads, body = om.meter_table(tr, view.outcome_meters, view.paytables)
    widths = [1.3, 2.9, 1.0, 1.0, 1.2]
    head_h = 2 * sc.line(sc.small)
    lh = min(max(sc.line(sc.small), (rect.height - head_h) // max(1, len(body))),
             2 * sc.line(sc.small))
    for j, (hd, cell) in enumerate(zip(heads, cols(pygame.Rect(rect.left, rect.top,
                                                                rect.width, head_h),
                                                    widths, sc.px(4)), strict=True)):
        lines(c, hd, inset(cell, sc.px(2), 0), sc.small, bold=True, color=theme.TEXT_DIM,
              align="left" if j < 2 else "right", role="meters.outcomes.th")
    y = rect.top + head_h
    for i, texts in enumerate(body):
        line = pygame.Rect(rect.left, y, rect.width, lh)
        if i % 2 == 0:
            p.fill(line, theme.PANEL_HI, 3)
        for j, (text, cell) in enumerate(zip(texts, cols(line, widths, sc.px(4)),
                                             strict=True)):
            lines(c, text, inset(cell, sc.px(2), 0), sc.small, bold=j == 0,
                  color=theme.TEXT, align="left" if j < 2 else "right",
                  role="meters.outcomes.cell")
        y += lh


def _table(c: Ctx, rect: pygame.Rect, which: tuple[int, ...]) -> None:
    """The meter rows with the columns ``which`` (indexes into :data:`COLUMNS`)."""
    p, sc, tr, view = c.p, c.sc, c.tr, c.view
    widths = [WIDTHS[j] for j in which]
    heads = [tr(COLUMNS[j]) for j in which]
    cells = [inset(cell, sc.px(2), 0) for cell in cols(rect, widths, sc.px(4))]
    font = p.fonts.font(sc.small)
    one = all(font.size(h)[0] <= cell.width for h, cell in zip(heads, cells, strict=True))
    head_h = (1 if one else 2) * sc.line(sc.small)
    lh = max(sc.line(sc.small), (rect.height - head_h) // len(view.meters or [0]))
    lh = min(lh, sc.line(sc.medium))
    size = sc.medium if lh >= sc.line(sc.medium) else sc.small
    for j, head, cell in zip(which, heads, cells, strict=True):
        lines(c, head, pygame.Rect(cell.left, rect.top, cell.width, head_h), sc.small,
              bold=True, color=theme.TEXT_DIM, align="left" if j == 0 else "right",
              role="meters.th")
    for i, m in enumerate(view.meters):
        line = pygame.Rect(rect.left, rect.top + head_h + i * lh, rect.width, lh)
        if i % 2 == 0:
            p.fill(line, theme.PANEL_HI, 3)
        total = m.name == "total"
        if m.name.startswith("seat "):
            name = tr("word.seat_n", seat=m.name[5:])
        elif total:
            name = tr("word.total")
        else:
            name = tr.bet(m.name)
        values = [name, c.money(m.wagered), c.money(m.paid), c.money(m.won),
                  c.money(m.net, sign=True), tr.number(m.rounds), tr.number(m.voids),
                  c.money(m.refunded)]
        for j, cell in zip(which, cols(line, widths, sc.px(4)), strict=True):
            p.text(values[j], inset(cell, sc.px(2), 0), size, bold=total,
                   color=theme.GOLD if total else theme.TEXT,
                   align="left" if j == 0 else "right", role="meters.cell")
