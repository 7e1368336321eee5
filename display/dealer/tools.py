"""The tools: Void round (supervisor), New deck, and the records (Recall, Meters).

The supervisor's other actions (a card by hand, unblocking the deck, resuming a round
that needs a PIN) are offered by the large button when they are the step the table
accepts (:func:`~display.dealer.state.primary_step`), with their keys F10, F11 and F5.
Meters open from the recall screen (and by F8 from anywhere).
"""

from __future__ import annotations

import pygame

from controller.game import inputs as C  # noqa: N812 - the input declarations
from display.dealer.actions import OpenPad, Show
from display.dealer.draw import Ctx, button
from display.dealer.meters import outcome_tab
from display.painter import Button


def draw_tools(c: Ctx) -> None:
    """Draw the tools of the main screen: Void, New deck, Recall (F8 opens the meters)."""
    view, tr = c.view, c.tr
    void_r, deck_r, recall_r = c.lay.tools
    ok = C.VoidRound.name in view.allowed
    button(c, f"tool.{C.VoidRound.name}", void_r, tr(f"btn.{C.VoidRound.name}"),
           OpenPad(C.VoidRound.name), keys=("f9",), enabled=ok,
           style="danger" if ok else "normal")
    button(c, f"tool.{C.NewDeck.name}", deck_r, tr(f"btn.{C.NewDeck.name}"), C.NewDeck(),
           keys=("f6",), enabled=C.NewDeck.name in view.allowed)
    button(c, "recall", recall_r, tr("btn.recall"), Show("recall"), keys=("f7",))
    c.p.frame.buttons.append(Button("meters", pygame.Rect(recall_r.topleft, (0, 0)),
                                    tr("btn.meters"), Show("meters"), ("f8",)))


def draw_records_tabs(c: Ctx) -> None:
    """On the recall and meters screens: Recall and Meters as tabs, and Back.

    While rounds dealt as outcomes are counted, their meters are a tab too (Outcomes),
    in the tray's place beside the others.
    """
    tr, ui = c.tr, c.ui
    recall_r, meters_r, back_r = c.lay.tools
    if outcome_tab(c.view):
        places = [c.lay.tray[-1], *c.lay.tools]
        if not c.lay.portrait:  # one row: Recall, Meters, Outcomes, Back
            recall_r, meters_r, outcomes_r, back_r = places
        else:  # the tray's row above the tools' row
            outcomes_r, recall_r, meters_r, back_r = places
        button(c, "outcomes", outcomes_r, tr("btn.outcome_meters"), Show("outcomes"),
               keys=("o",), selected=ui.screen == "outcomes", style="flat")
    button(c, "recall", recall_r, tr("btn.recall"), Show("recall"), keys=("f7",),
           selected=ui.screen == "recall", style="flat")
    button(c, "meters", meters_r, tr("btn.meters"), Show("meters"), keys=("f8",),
           selected=ui.screen == "meters", style="flat")
    button(c, "back", back_r, tr("btn.back"), Show("main"), keys=("escape",))
