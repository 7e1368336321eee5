"""The tools: Void round (supervisor), New deck, and the records (Recall, Meters, Outcomes).

From No more bets to the first card, Reopen bets takes New deck's place. The supervisor's
other actions are the large button's steps; every record opens by its key too.
"""

from __future__ import annotations

import pygame

from controller.game import inputs
from display.dealer.actions import OpenPad, Show
from display.dealer.draw import Ctx, button, label_margin
from display.dealer.locks import clock
from display.dealer.meters import outcome_tab
from display.dealer.state import lock_left
from display.painter import Button

OUTCOMES_KEY = "o"
"""The key of the outcome meters."""
REOPEN_KEY = "f12"
"""The key of Reopen bets (supervisor PIN), offered from No more bets to the first card."""


def draw_tools(c: Ctx) -> None:
    """Draw the tools of the main screen: Void, New deck (or Reopen bets), Recall, Meters."""
    view, tr = c.view, c.tr
    void_r, deck_r, recall_r, *more = c.lay.tools
    left = lock_left(view, c.ui, c.now)  # PIN entry locked: Void waits, and says so
    ok = inputs.VoidRound.name in view.allowed and not left
    locked = bool(left) and inputs.VoidRound.name in view.allowed
    button(c, f"tool.{inputs.VoidRound.name}", void_r,
           tr("btn.void_locked" if locked else f"btn.{inputs.VoidRound.name}"),
           OpenPad(inputs.VoidRound.name), keys=("f9",), enabled=ok,
           style="danger" if ok else "normal", hint="" if locked else None,
           sub=tr("word.pin_locked_short", time=clock(left)) if locked else "",
           pad=label_margin(c))
    if inputs.ReopenBets.name in view.allowed:  # no card yet: in New deck's place (not now)
        button(c, f"tool.{inputs.ReopenBets.name}", deck_r, tr(f"btn.{inputs.ReopenBets.name}"),
               OpenPad(inputs.ReopenBets.name), keys=(REOPEN_KEY,), enabled=not left,
               hint="" if left else None,  # its pad asks the PIN: locked while PINs are
               sub=tr("word.pin_locked_short", time=clock(left)) if left else "")
    else:
        button(c, f"tool.{inputs.NewDeck.name}", deck_r, tr(f"btn.{inputs.NewDeck.name}"),
               inputs.NewDeck(), keys=("f6",), enabled=inputs.NewDeck.name in view.allowed)
    button(c, "recall", recall_r, tr("btn.recall"), Show("recall"), keys=("f7",))
    if more:
        button(c, "meters", more[0], tr("btn.meters"), Show("meters"), keys=("f8",))
    else:
        _key_only(c, "meters", recall_r, tr("btn.meters"), Show("meters"), "f8")
    if outcome_tab(view):
        _key_only(c, "outcomes", recall_r, tr("btn.outcome_meters"), Show("outcomes"),
                  OUTCOMES_KEY)


def _key_only(c: Ctx, id_: str, near: pygame.Rect, label: str, action: Show,
              key: str) -> None:
    """A record opened by its key alone (no place on screen, so no touch reaches it)."""
    c.p.frame.buttons.append(Button(id_, pygame.Rect(near.topleft, (0, 0)), label, action,
                                    (key,)))


def draw_records_tabs(c: Ctx) -> None:
    """On the records screens: Recall, Meters (and Outcomes) as tabs, and Back.

    With no room for four in the tools' row, the tray's place beside it is taken too.
    """
    tr, ui = c.tr, c.ui
    tabs = [("recall", "btn.recall", "f7"), ("meters", "btn.meters", "f8")]
    if outcome_tab(c.view):
        tabs.append(("outcomes", "btn.outcome_meters", OUTCOMES_KEY))
    places = list(c.lay.tools)
    if len(places) <= len(tabs):  # one row (landscape): the tray's place first
        places = [c.lay.tray[-1], *places]
    for (screen, label, key), place in zip(tabs, places, strict=False):
        button(c, screen, place, tr(label), Show(screen), keys=(key,),
               selected=ui.screen == screen, style="flat")
    button(c, "back", places[-1], tr("btn.back"), Show("main"), keys=("escape",))
