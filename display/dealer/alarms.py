"""The alarm strip: every alarm and irregularity, in a place of its own.

The strip is reserved on every dealer screen (main, recall, meters), so no control moves
when an alarm comes or goes, and an alarm is never hidden behind another screen. Every
alarm the view carries is drawn (side by side, the most severe first), each saying what
happened and what to do; a lost or silent shoe link also what the link said, where it
fits. A refusal of the table is no alarm: it shows beside the large
button (:mod:`display.dealer.next_action`).
"""

from __future__ import annotations

import pygame

from controller.game.views import Banner
from display import theme
from display.dealer.draw import Ctx, lines, panel
from display.dealer.state import REJECTED
from display.painter import cols, inset, rows

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
"""Most severe first."""
LINK_BANNERS = frozenset({"link_lost", "link_silent"})
"""Alarms about the shoe link: they say what the link said too (its detail), in words."""


def alarms(c: Ctx) -> list[Banner]:
    """The alarms to show, most severe first (a refusal is not one)."""
    shown = [b for b in c.view.banners if b.kind != REJECTED]
    return sorted(shown, key=lambda b: SEVERITY_ORDER.get(b.severity, 1))


def _with_detail(c: Ctx, act: str, detail: str, width: int) -> str:
    """The action with the link's detail after it, or the detail alone, where it fits."""
    f = c.p.fonts.font(c.sc.small)
    for text in (f"{act} \u2014 {detail}", detail):
        if f.size(text)[0] <= width:
            return text
    return act


def draw_alarms(c: Ctx) -> None:
    """Draw every alarm in the reserved strip (an empty strip when there is none)."""
    p, sc, tr = c.p, c.sc, c.tr
    rect = c.lay.alarms
    shown = alarms(c)
    p.region("alarms", rect)
    if not shown:
        panel(c, rect, theme.FELT_DARK, None)
        p.text("\u2713 " + tr("alarm.none"), inset(rect, sc.px(10), 0), sc.small,
               color=theme.PANEL_LINE, align="left", role="alarms.none")
        return
    boxes = cols(rect, [1.4 if i == 0 and len(shown) > 1 else 1 for i in range(len(shown))],
                 sc.px(6))
    for i, (b, box) in enumerate(zip(shown, boxes, strict=True)):
        role = f"banner.{i}"
        bg, fg = theme.SEVERITY_COLORS.get(b.severity, theme.SEVERITY_COLORS["warning"])
        c.p.fill(box, bg, max(4, sc.px(6)))
        c.p.outline(box, theme.TEXT if b.severity == "error" else theme.GOLD_DARK,
                    max(1, sc.px(1)), max(4, sc.px(6)))
        inner = inset(box, sc.px(6), max(1, sc.px(2)))
        icon_w = p.fonts.font(sc.large, True).size("!")[0] + sc.px(6)
        icon = pygame.Rect(inner.left, inner.top, icon_w, inner.height)
        p.text("!" if b.severity != "info" else "i", icon, sc.large, bold=True, color=fg,
               role=f"{role}.icon")
        body = pygame.Rect(icon.right, inner.top, inner.width - icon_w, inner.height)
        msg = tr.banner(b.kind, "msg", b.message, b.params)
        act = tr.banner(b.kind, "act", b.action, b.params)
        if b.kind in LINK_BANNERS and c.view.link_detail:  # what the shoe link said
            act = _with_detail(c, act, tr.link_detail(c.view.link_detail), body.width)
        f = p.fonts.font(sc.small, True)
        if act and f.size(msg)[0] <= body.width:
            top, bottom = rows(body, [1, 1])
            p.text(msg, top, sc.small, bold=True, color=fg, align="left", role=f"{role}.msg")
            p.text(act, bottom, sc.small, color=fg, align="left", role=f"{role}.act")
        else:  # narrow: what happened, on two lines if it must (the action when it fits)
            lines(c, msg, body, sc.small, bold=True, color=fg, align="left",
                  role=f"{role}.msg")
        p.region(role, box)
