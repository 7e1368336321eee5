"""The chip tray: the chips, the bulk action (Rebet all, or All paid) and Undo.

Rebet all fills only the empty seats with their last wagers. In outcome mode All play
takes the chips' place.
"""

from __future__ import annotations

import pygame

from controller.game import inputs
from controller.game.views import DealerView
from display import outcome_mode as om
from display import theme
from display.dealer.actions import PickChip, PlayRest, Undo
from display.dealer.draw import Ctx, button, line_height
from display.dealer.payouts import all_paid_button
from display.dealer.state import PAYING, DealerUI, chip_in_use, undecided
from display.painter import Button, rows

CHIP_KEYS = ("f1", "f2", "f3", "f4", "f12")
"""The keys of the chips, smallest first."""
CHIP_COLORS = {100: (235, 235, 235), 500: (200, 40, 40), 2500: (40, 150, 70),
               10000: (30, 30, 30)}
"""Chip value (minor units) -> colour; other values are blue."""


def undo_target(view: DealerView, ui: DealerUI) -> list[inputs.DealerCommand]:
    """The commands Undo sends now: the last accepted bet change, or decision, taken back."""
    if view.state == "betting":
        return ui.undo.target(view)
    if view.state == "deciding" and inputs.UndoDecision.name in view.allowed:
        decided = {s.seat for s in view.seats if s.decision}
        if ui.decide_seat in decided:  # the seat named: its decision
            return [inputs.UndoDecision(seat=ui.decide_seat)]
        for seat in reversed(ui.decided):
            if seat in decided:
                return [inputs.UndoDecision(seat=seat)]
    return []


def draw_chip_tray(c: Ctx) -> None:
    """Draw the chips, Rebet all / All paid, and Undo."""
    view, tr = c.view, c.tr
    if c.outcomes:
        _all_play(c)
    else:
        betting = inputs.PlaceBet.name in view.allowed
        current = chip_in_use(view, c.ui)
        for i, (value, cell) in enumerate(zip(view.chip_values[:len(CHIP_KEYS)], c.lay.chips,
                                              strict=False)):
            _chip(c, cell, value, CHIP_KEYS[i], betting, value == current)
    bulk, undo = c.lay.tray[0], c.lay.tray[1]
    if view.state in PAYING:
        all_paid_button(c, bulk)
    else:
        button(c, "rebet_all", bulk, tr("btn.rebet_all"), inputs.Rebet(seat=0), keys=("shift+b",),
               enabled=inputs.Rebet.name in view.allowed)
    target = undo_target(view, c.ui)
    button(c, "undo", undo, tr("btn.undo"), Undo() if target else None,
           keys=("u", "backspace"), enabled=bool(target))


def _all_play(c: Ctx) -> None:
    """All play, in the chips' place: Play for every seat still to decide (folds first)."""
    if not c.lay.chips:
        return
    rect = c.lay.chips[0].unionall(c.lay.chips[1:])
    waiting = undecided(c.view, c.ui)
    ok = c.view.state == "deciding" and inputs.Decide.name in c.view.allowed and bool(waiting)
    button(c, "all_play", rect, c.tr("btn.all_play"), PlayRest() if ok else None,
           keys=(om.ALL_PLAY_KEY,), enabled=ok, style="play")


def chip_text(c: Ctx, value: int, box: pygame.Rect, two: pygame.Rect
              ) -> tuple[list[str], int]:
    """A chip's value (one line, or two in ``two``) and its size, to fit ``box``.

    Exact at the small size if it fits, else the compact notation where exact (``1K``).
    """
    exact = c.money(value, whole=True)
    short = c.tr.money_compact(value, c.view.currency)
    ways = [[exact]]
    if short is not None:
        number, _, unit = short.replace("\u00a0", " ").replace("\u202f", " ").rpartition(" ")
        ways += [[short]] + ([[number, unit]] if number else [])
    best: tuple[list[str], int] = ([exact], c.sc.small)
    for size in range(c.sc.small, c.sc.least - 1, -1):
        font, lh = c.p.fonts.font(size, True), line_height(c.p, size)
        for way in ways:
            room = box if len(way) == 1 else two
            if len(way) * lh <= room.height and all(font.size(t)[0] <= room.width
                                                    for t in way):
                return way, size
    return best


def _chip(c: Ctx, rect: pygame.Rect, value: int, key: str, enabled: bool,
          selected: bool) -> None:
    p, sc = c.p, c.sc
    label = c.money(value, whole=True)
    key_h = sc.line(sc.small)
    d = min(rect.width, rect.height - key_h)
    center = (rect.centerx, rect.top + d // 2)
    base = CHIP_COLORS.get(value, (60, 90, 200)) if enabled else theme.BTN_OFF
    if selected:
        pygame.draw.rect(p.surface, theme.PANEL_HI, rect, 0, border_radius=max(4, sc.px(6)))
        pygame.draw.rect(p.surface, theme.GOLD, rect, max(2, sc.px(2)),
                         border_radius=max(4, sc.px(6)))
    pygame.draw.circle(p.surface, base, center, d // 2)
    pygame.draw.circle(p.surface, theme.CARD_FACE if enabled else theme.BTN_OFF_TEXT, center,
                       d // 2, max(2, d // 10))
    dark = sum(base) < 380
    box = pygame.Rect(0, 0, int(d * 0.84), int(d * 0.6))
    two = pygame.Rect(0, 0, int(d * 0.8), int(d * 0.9))  # a number over its unit
    box.center = two.center = center
    said, size = chip_text(c, value, box, two)
    place = box if len(said) == 1 else two
    for i, (text, r) in enumerate(zip(said, rows(place, [1] * len(said)), strict=True)):
        p.text(text, r, size, bold=True, color=theme.TEXT if dark else theme.TEXT_DARK,
               role=f"chip.{value}" + ("2" if i else ""), min_size=size)
    hint = pygame.Rect(rect.left, rect.bottom - key_h, rect.width, key_h)
    p.text(c.tr.key(key), hint, sc.small, bold=selected,
           color=theme.GOLD if selected else theme.TEXT_DIM, role=f"chip.{value}.hint")
    p.frame.buttons.append(Button(f"chip.{value}", pygame.Rect(rect), label, PickChip(value),
                                  (key,), enabled))
