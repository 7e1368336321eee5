"""The header: the shoe link's state at all times (R15), the table and the round."""

from __future__ import annotations

import pygame

from display import theme
from display.dealer.draw import Ctx, panel
from display.painter import inset, rows

LINK_DOWN = frozenset({"disconnected", "silent"})
"""Link states the header blinks for."""


def draw_header(c: Ctx, rect: pygame.Rect) -> None:
    """Draw the link state (a coloured dot and its name) over the table and round."""
    p, sc, tr, view = c.p, c.sc, c.tr, c.view
    state = view.link_state
    down = state in LINK_DOWN
    color = theme.LINK_COLORS.get(state, theme.AMBER)
    panel(c, rect, theme.RED_DARK if state == "disconnected" else theme.PANEL, color,
          max(1, sc.px(2)))
    p.region("link", rect)
    inner = inset(rect, max(3, sc.px(5)), max(2, sc.px(3)))
    top, bottom = rows(inner, [1.15, 1])
    dot_r = max(4, sc.px(5))
    blink = down and int(c.now * 2) % 2 == 1
    pygame.draw.circle(p.surface, theme.PANEL_LINE if blink else color,
                       (top.left + dot_r, top.centery), dot_r)
    label_box = pygame.Rect(top.left + 2 * dot_r + sc.px(4), top.top,
                            top.right - top.left - 2 * dot_r - sc.px(4), top.height)
    key = f"link.{state}"
    p.text(tr(key) if tr.has(key) else state, label_box, sc.small, bold=True, align="left",
           role="link")
    info = f"{view.table_id} \u00b7 {tr('word.round')} {view.round_id}"
    p.text(info, bottom, sc.small, color=theme.TEXT_DIM, align="left", role="header.round")
