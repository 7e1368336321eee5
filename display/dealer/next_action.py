"""The top row: the one next step in words, where the next card goes, the large button.

A large button that cannot move the round on is drawn as a status, never as a disabled
button; a refusal shows beside it, where the dealer looks, until it is read.
"""

from __future__ import annotations

import pygame

from controller.game import inputs
from display import theme
from display.dealer.actions import DismissRefusal
from display.dealer.draw import Ctx, button, line_height, lines, panel, wrap_words
from display.dealer.faces import split_two
from display.dealer.header import LINK_DOWN
from display.dealer.locks import locked_note, pin_asked
from display.dealer.state import (
    Step,
    focus_seat,
    lock_left,
    primary_step,
    seat_verb,
    seat_view,
    shown_refusal,
)
from display.painter import inset, rows

STATUS_LEAST = 18
"""The size a status in the large button's place reaches where it fits (at ``u`` = 1)."""
PAUSE_ACTIONS = {"link_lost": "next.shoe"}
"""Pause reason -> the next step's key, where it is not the view's."""


def next_text(c: Ctx) -> str:
    """The next step in words, naming the seat the screen names."""
    tr, view, ui = c.tr, c.view, c.ui
    seat = focus_seat(view, ui)
    if view.state == "deciding":
        return tr("next.decide_seat", seat=seat) if seat else tr("next.reveal")
    if view.state in ("settled", "void"):
        if seat is not None:  # the seat's own verb: pay, take or return
            return tr(f"next.{seat_verb(view, seat_view(view, seat))}_seat", seat=seat)
        pin = pin_asked(view, inputs.NextRound.name)  # after every void: a supervisor's PIN
        key = inputs.NextRound.name + ("_pin" if pin else "")
        return tr(tr.next_key(key, view.state))
    if view.state == "paused" and view.pause_reason == "misread" and \
            view.link_state in LINK_DOWN:  # the card is presented again once the link is back
        return tr("next.shoe_misread")
    if view.state == "paused" and view.pause_reason in PAUSE_ACTIONS:
        return tr(PAUSE_ACTIONS[view.pause_reason])
    own = f"next.{view.next_action_key}.{view.pause_reason}"  # a misread's own step
    if view.state == "paused" and tr.has(own):
        return tr(own)
    if view.state == "betting" and view.deck_blocked and inputs.UnblockDeck.name in view.allowed:
        return tr("banner.deck_blocked.act")  # as the large button: Unblock deck first
    key = tr.next_key(view.next_action_key, view.state)
    if view.next_action_key and tr.has(key) and not (tr.lang == "en" and view.next_action):
        return tr(key)
    return view.next_action or tr(key)


def next_card_text(c: Ctx) -> tuple[str, str, bool]:
    """(caption, where the next card goes, a card is due now)."""
    tr, view = c.tr, c.view
    nc, due = view.next_card, True
    if nc is None and view.waiting_card is not None:
        nc, due = view.waiting_card, False
    if nc is None:
        return tr("card.next"), tr("card.none"), False
    seat, n = nc
    if seat > 0:
        where = tr("card.seat", seat=seat, n=n)
    elif seat == 0:
        where = tr("card.dealer", n=n)
    else:
        where = tr("card.burn")
    return (tr("card.next") if due else tr("card.waits")), where, due


def draw_next_action(c: Ctx, primary: bool = True) -> None:
    """Draw the next step, the next card and (``primary``) the large button."""
    p, sc, lay = c.p, c.sc, c.lay
    panel(c, lay.next_action, theme.PANEL, theme.GOLD_DARK)
    p.region("next_action", lay.next_action)
    p.text2(next_text(c), inset(lay.next_action, sc.px(8), sc.px(4)), sc.large, bold=True,
            role="next_action")
    caption, where, due = next_card_text(c)
    panel(c, lay.next_card, theme.PANEL, theme.GOLD if due else theme.PANEL_LINE,
          max(1, sc.px(2)) if due else 1)
    p.region("next_card", lay.next_card)
    inner = inset(lay.next_card, sc.px(6), sc.px(4))
    color = theme.GOLD if due else theme.TEXT_DIM
    if p.fonts.font(sc.small, True).size(where)[0] <= inner.width:
        a, b = rows(inner, [1, 1.3])
        p.text(caption, a, sc.small, color=theme.TEXT_DIM, role="next_card.label")
        p.text(where, b, sc.medium, bold=True, color=color, role="next_card")
    else:  # a long "no card due": on two lines, without the caption
        lines(c, where, inner, sc.small, bold=True, color=color, role="next_card")
    if primary:
        draw_primary(c, primary_step(c.view, c.ui))
    refusal = shown_refusal(c.view, c.ui, c.now)
    if refusal is not None:
        spot = lay.next_action  # over the next step; beside it the next card, on its row
        if lay.next_card.top == spot.top:
            spot = spot.union(lay.next_card)
        button(c, "refusal", spot, "", DismissRefusal(), style="flat")
        p.fill(spot, theme.AMBER, max(4, sc.px(6)))
        p.outline(spot, theme.TEXT_DARK, max(1, sc.px(2)), max(4, sc.px(6)))
        _refusal_words(c, inset(spot, sc.px(8), sc.px(3)), c.tr.rejection(refusal))
        p.region("refusal", spot)


def _refusal_words(c: Ctx, box: pygame.Rect, reason: str) -> None:
    """"! Refused" and the reason, wrapped between words to the lines ``box`` has."""
    p, sc = c.p, c.sc
    title = "! " + c.tr("banner.rejected.msg")
    for size in range(sc.small, sc.least - 1, -1):
        f, lh = p.fonts.font(size), line_height(p, size)
        n = max(1, box.height // lh)
        own = wrap_words(f, reason, box.width)
        if own is not None and len(own) < n:
            lead, said = 0, own
            break
        lead = p.fonts.font(size, True).size(title + " ")[0]
        said = wrap_words(f, reason, box.width, lead) or [reason]
        if len(said) <= n:
            break
    top = box.top + (box.height - lh * (len(said) + (0 if lead else 1))) // 2
    p.text(title, pygame.Rect(box.left, top, box.width if not lead else lead, lh), size,
           bold=True, color=theme.TEXT_DARK, align="left", role="refusal.title",
           min_size=size)
    top += 0 if lead else lh
    for i, text in enumerate(said):
        x = box.left + (lead if i == 0 else 0)
        p.text(text, pygame.Rect(x, top + i * lh, box.right - x, lh), size,
               color=theme.TEXT_DARK, align="left", role="refusal.reason" + (str(i + 1) if i
                                                                             else ""),
               min_size=size)


def _status(c: Ctx, inner: pygame.Rect, label: str) -> None:
    """A status in the large button's place, as large as it fits (a caption if room)."""
    p, sc = c.p, c.sc
    fit = p.fonts.fit
    caption, said = rows(inner, [1, 1.6])
    if fit(label, True, sc.large, said.width, said.height, sc.least)[0] >= sc.px(STATUS_LEAST):
        p.text(c.tr("status.caption"), caption, sc.small, color=theme.TEXT_DIM,
               align="left", role="primary.caption")
        p.text(label, said, sc.large, bold=True, color=theme.GOLD, role="primary.status")
        return
    one = fit(label, True, sc.large, inner.width, inner.height, sc.least)
    top, bottom = split_two(label)
    a, b = rows(inner, [1, 1])
    two = min(fit(t, True, sc.large, r.width, r.height, sc.least)[0]
              for t, r in ((top, a), (bottom, b))) if bottom else 0
    if one[0] >= two and not one[2]:
        p.text(label, inner, sc.large, bold=True, color=theme.GOLD, role="primary.status")
        return
    p.text(top, a, two, bold=True, color=theme.GOLD, role="primary.status", min_size=two)
    p.text(bottom, b, two, bold=True, color=theme.GOLD, role="primary.status2", min_size=two)


def draw_primary(c: Ctx, step: Step) -> None:
    """The large button, or a status in its place when there is nothing to press."""
    p, sc, tr, ui = c.p, c.sc, c.tr, c.ui
    rect = c.lay.primary
    seen = (step.label, type(step.action), step.enabled)
    if ui.primary[0] != seen:
        ui.primary = (seen, c.now)  # a press on it waits ARM_SECONDS from now
    label = tr(step.label, **step.params)
    p.region("primary", rect)
    if step.action is None:  # a status: no button face, a caption over what goes on
        panel(c, rect, theme.FELT_DARK, None)
        p.fill(pygame.Rect(rect.left, rect.top, max(3, sc.px(4)), rect.height), theme.GOLD)
        inner = inset(rect, sc.px(10), sc.px(3))
        inner.left += max(3, sc.px(4))
        _status(c, inner, label)
        return
    left = lock_left(c.view, ui, c.now) if step.pin else 0  # PIN entry locked: wait
    sub = locked_note(tr, left) if left else tr("word.pin_needed") if step.pin else ""
    button(c, "primary", rect, label, step.action, keys=step.keys,
           enabled=step.enabled and not left, style="primary", size=sc.large, sub=sub,
           selected=c.flashing("primary"))
