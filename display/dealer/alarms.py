"""The alarm strip: every alarm and irregularity, in a place of its own.

Reserved on every dealer screen, so no control moves and no alarm hides behind a screen;
each alarm says what happened and what to do, most severe first. A refusal is no alarm:
it shows beside the large button (:mod:`display.dealer.next_action`).
"""

from __future__ import annotations

import pygame

from controller.game.views import Banner, DealerView
from display import theme
from display.dealer.draw import Ctx, lines, panel
from display.dealer.header import LINK_DOWN
from display.dealer.locks import lock_banner
from display.dealer.state import REJECTED, DealerUI, lock_left
from display.painter import inset, rows

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
"""Most severe first."""
ALARM_PAGE_SECONDS = 4.0
"""How long each page of alarms shows when they take turns."""
LINK_BANNERS = frozenset({"link_lost", "link_silent"})
"""Alarms about the shoe link: they say what the link said too (its detail), in words."""


def own_alarms(view: DealerView, ui: DealerUI, now: float) -> list[Banner]:
    """The screen's own alarms: its notices, and a PIN lockout with its time left."""
    lock = lock_banner(lock_left(view, ui, now))
    return list(ui.notices) + ([lock] if lock is not None else [])


def alarms(c: Ctx) -> list[Banner]:
    """The alarms to show, the screens' own too, most severe first (a refusal is not one)."""
    shown = [b for b in c.view.banners if b.kind != REJECTED] + own_alarms(c.view, c.ui, c.now)
    return sorted(shown, key=lambda b: SEVERITY_ORDER.get(b.severity, 1))


def _with_detail(c: Ctx, act: str, detail: str, width: int) -> str:
    """The action with the link's detail after it where it fits, else the action alone."""
    text = f"{act} \u2014 {detail}" if act else detail
    return text if c.p.fonts.font(c.sc.small).size(text)[0] <= width else act


def act_now(c: Ctx, b: Banner) -> str | None:
    """The key of what to do when the alarm's own words no longer hold, else None.

    A misread with the link down: the link comes back first; no card due: nothing to resume.
    """
    if b.kind == "misread" and c.view.link_state in LINK_DOWN:
        return "banner.misread.act_link"
    if b.kind == "alarm" and c.view.pause_reason != "alarm":
        return "banner.alarm.act_no_pause"
    return None


def wordings(c: Ctx, b: Banner) -> list[tuple[str, str]]:
    """What an alarm says happened and what to do, longest first.

    English tries the table's own words first (they may name a card or a code), then the
    screen's shorter label, which French and Ukrainian use.
    """
    tr = c.tr
    now = act_now(c, b)
    params = tr.banner_params(b.params)
    out = [(tr.banner(b.kind, "msg", b.message, b.params),
            tr(now, **params) if now else tr.banner(b.kind, "act", b.action, b.params))]
    msg_key, act_key = f"banner.{b.kind}.msg", now or f"banner.{b.kind}.act"
    short = (tr(msg_key, **params) if tr.has(msg_key) else out[0][0],
             tr(act_key, **params) if tr.has(act_key) and out[0][1] else out[0][1])
    return out if short == out[0] else [*out, short]


def _need(c: Ctx, msg: str, act: str) -> int:
    """The width an alarm takes to say both lines whole: icon, margins, the longer line."""
    sc, fonts = c.sc, c.p.fonts
    return (2 * sc.px(6) + fonts.font(sc.large, True).size("!")[0] + sc.px(6)
            + max(fonts.font(sc.small, True).size(msg)[0], fonts.font(sc.small).size(act)[0])
            + 1)


def _widths(c: Ctx, texts: list[list[tuple[str, str]]], room: int) -> tuple[list[int], list[int]]:
    """(wordings, widths): the fullest wordings that fit ``room``, the widest shortened first.

    The room left, or lacking, is shared in proportion.
    """
    choice = [0] * len(texts)
    needs = [_need(c, *t[0]) for t in texts]
    while sum(needs) > room:
        shorter = [i for i, t in enumerate(texts) if choice[i] + 1 < len(t)]
        if not shorter:
            break
        i = max(shorter, key=lambda k: needs[k])
        choice[i] += 1
        needs[i] = _need(c, *texts[i][choice[i]])
    total = sum(needs) or 1
    spare = max(0, room - total)
    widths = [n + spare * n // total if total <= room else room * n // total for n in needs]
    widths[-1] += room - sum(widths)  # rounding: the strip is filled to its end
    return choice, widths


def _fit(c: Ctx, group: list[Banner], room: int, gap: int) -> bool:
    """Every alarm of ``group`` says both its lines whole side by side in ``room``."""
    return sum(_need(c, *wordings(c, b)[-1]) for b in group) + gap * (len(group) - 1) <= room


def pages(c: Ctx, shown: list[Banner], width: int, nrows: int, gap: int
          ) -> list[list[list[Banner]]]:
    """The alarms as pages of rows, each whole, taking turns (one page when all fit)."""
    n = len(shown)
    k = min(nrows, n)
    even = [shown[r * n // k:(r + 1) * n // k] for r in range(k)]
    if all(_fit(c, row, width, gap) for row in even):
        return [even]
    room = width - _page_width(c) - gap
    filled: list[list[Banner]] = [[]]
    for b in shown:
        if filled[-1] and not _fit(c, [*filled[-1], b], room, gap):
            filled.append([])
        filled[-1].append(b)
    return [filled[i:i + nrows] for i in range(0, len(filled), nrows)]


def _page_width(c: Ctx) -> int:
    """The width of the page count (``1/2``) at the strip's right end."""
    return c.p.fonts.font(c.sc.small, True).size("9/9")[0] + c.sc.px(8)


def alarm_tick(view: DealerView, now: float, notices: int = 0) -> int:
    """Which turn of pages the strip is at, ``now`` in monotonic seconds (0: one alarm)."""
    n = sum(1 for b in view.banners if b.kind != REJECTED) + notices
    return int(now // ALARM_PAGE_SECONDS) if n > 1 else 0


def draw_alarms(c: Ctx) -> None:
    """Draw every alarm in the reserved strip; none is cut, none left out (pages turn)."""
    p, sc, tr = c.p, c.sc, c.tr
    rect = c.lay.alarms
    shown = alarms(c)
    p.region("alarms", rect)
    if not shown:
        panel(c, rect, theme.FELT_DARK, None)
        p.text("\u2713 " + tr("alarm.none"), inset(rect, sc.px(10), 0), sc.small,
               color=theme.PANEL_LINE, align="left", role="alarms.none")
        return
    gap = sc.px(6)
    book = pages(c, shown, rect.width, c.lay.alarm_rows, gap)
    turn = alarm_tick(c.view, c.now, len(own_alarms(c.view, c.ui, c.now))) % len(book)
    page = book[turn]
    strip = pygame.Rect(rect)
    if len(book) > 1:
        strip.width -= _page_width(c) + gap
        count = pygame.Rect(strip.right + gap, rect.top, _page_width(c), rect.height)
        panel(c, count, theme.FELT_DARK, theme.PANEL_LINE)
        p.text(f"{turn + 1}/{len(book)}", count, sc.small, bold=True, role="alarms.page")
    for row, group in zip(rows(strip, [1] * len(page), gap), page, strict=True):
        texts = [wordings(c, b) for b in group]
        choice, widths = _widths(c, texts, row.width - gap * (len(group) - 1))
        x = row.left
        for b, t, k, width in zip(group, texts, choice, widths, strict=True):
            box = pygame.Rect(x, row.top, width, row.height)
            x = box.right + gap
            _draw_alarm(c, b, box, t[k], f"banner.{shown.index(b)}")


def _draw_alarm(c: Ctx, b: Banner, box: pygame.Rect, said: tuple[str, str],
                role: str) -> None:
    """One alarm in ``box``: its icon, what happened and (a second line) what to do."""
    p, sc = c.p, c.sc
    bg, fg = theme.SEVERITY_COLORS.get(b.severity, theme.SEVERITY_COLORS["warning"])
    p.fill(box, bg, max(4, sc.px(6)))
    p.outline(box, theme.TEXT if b.severity == "error" else theme.GOLD_DARK,
              max(1, sc.px(1)), max(4, sc.px(6)))
    inner = inset(box, sc.px(6), max(1, sc.px(2)))
    icon_w = p.fonts.font(sc.large, True).size("!")[0] + sc.px(6)
    icon = pygame.Rect(inner.left, inner.top, icon_w, inner.height)
    p.text("!" if b.severity != "info" else "i", icon, sc.large, bold=True, color=fg,
           role=f"{role}.icon")
    body = pygame.Rect(icon.right, inner.top, inner.width - icon_w, inner.height)
    msg, act = said
    if b.kind in LINK_BANNERS and c.view.link_detail:  # what the shoe link said
        act = _with_detail(c, act, c.tr.link_detail(c.view.link_detail), body.width)
    if act and p.fonts.font(sc.small, True).size(msg)[0] <= body.width:
        top, bottom = rows(body, [1, 1])
        p.text(msg, top, sc.small, bold=True, color=fg, align="left", role=f"{role}.msg")
        p.text(act, bottom, sc.small, color=fg, align="left", role=f"{role}.act")
    else:  # too narrow for both: what happened, on two lines if it must
        lines(c, msg, body, sc.small, bold=True, color=fg, align="left", role=f"{role}.msg")
    p.region(role, box)
