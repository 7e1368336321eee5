"""The supervisor's pads: the void reason, the card entered by hand, the PIN.

Modal, below the alarm strip. A refused PIN opens the pad again with what was chosen,
why, and the attempts (or the lock's time) left.
"""

from __future__ import annotations

import pygame

from controller.game import inputs
from display import theme
from display.cards import SUIT_SYMBOLS, card_label
from display.dealer.actions import (
    PadCancel,
    PadCardDone,
    PadDelete,
    PadDigit,
    PadRank,
    PadReason,
    PadSend,
    PadSuit,
)
from display.dealer.alarms import draw_alarms
from display.dealer.draw import Ctx, button, cards, line_height, wrap_words
from display.dealer.locks import clock
from display.dealer.state import DealerUI, lock_left
from display.i18n import VOID_REASONS, Translator
from display.painter import cols, grid, inset, rows
from display.theme import Color

RANKS = "AKQJT98765432"
SUITS = "shdc"
_SHADE: dict[tuple[int, int], pygame.Surface] = {}
_EN = Translator("en")


def pad_rect(c: Ctx) -> pygame.Rect:
    """Where the pads go: below the alarm strip, over the rest of the screen."""
    sc, lay = c.sc, c.lay
    w, h = lay.size
    top = lay.alarms.bottom + sc.gap
    width = w - 2 * sc.gap if lay.portrait else min(w - 2 * sc.gap, sc.px(640))
    rect = pygame.Rect(0, top, width, h - sc.gap - top)
    rect.centerx = w // 2
    return rect


def draw_pad(c: Ctx) -> None:
    """Shade the screen, draw the open pad, and the alarm strip again on top."""
    p, sc, ui = c.p, c.sc, c.ui
    size = p.surface.get_size()
    shade = _SHADE.get(size)
    if shade is None:
        shade = pygame.Surface(size, pygame.SRCALPHA)
        shade.fill((0, 0, 0, 160))
        _SHADE.clear()
        _SHADE[size] = shade
    p.surface.blit(shade, (0, 0))
    p.frame.buttons.clear()  # modal: only the pad's buttons take input
    draw_alarms(c)
    rect = pad_rect(c)
    p.fill(rect, theme.PANEL, max(6, sc.px(10)))
    p.outline(rect, theme.GOLD, max(2, sc.px(2)), max(6, sc.px(10)))
    p.region("pad", rect)
    inner = inset(rect, sc.px(10), sc.px(8))
    title_r = pygame.Rect(inner.left, inner.top, inner.width, sc.line(sc.large))
    body = pygame.Rect(inner.left, title_r.bottom + sc.gap, inner.width,
                       inner.bottom - title_r.bottom - sc.gap)
    if ui.pad == "reason":
        _reason(c, title_r, body)
    elif ui.pad == "card":
        _card(c, title_r, body)
    else:
        _pin(c, title_r, body)


def _title(c: Ctx, rect: pygame.Rect, text: str) -> None:
    c.p.text(text, rect, c.sc.large, bold=True, color=theme.GOLD, role="pad.title")


def _cancel(c: Ctx, rect: pygame.Rect) -> None:
    button(c, "pad.cancel", rect, c.tr("btn.cancel"), PadCancel(), keys=("escape",),
           style="fold")


def _reason(c: Ctx, title_r: pygame.Rect, body: pygame.Rect) -> None:
    sc, tr = c.sc, c.tr
    _title(c, title_r, tr("pad.reason_title"))
    ncols = 1 if c.lay.portrait else 2
    n = len(VOID_REASONS) + 1
    cells = grid(body, n, ncols, sc.gap)
    for i, (key, cell) in enumerate(zip(VOID_REASONS, cells, strict=False)):
        button(c, f"pad.reason.{key}", cell, tr(f"reason.{key}"), PadReason(key),
               keys=(str(i + 1),))
    _cancel(c, cells[-1])


def _card(c: Ctx, title_r: pygame.Rect, body: pygame.Rect) -> None:
    sc, tr, ui = c.sc, c.tr, c.ui
    _title(c, title_r, tr("pad.card_title"))
    hint_r = pygame.Rect(body.left, body.top, body.width, sc.line(sc.small))
    c.p.text(tr("pad.card_hint"), hint_r, sc.small, color=theme.TEXT_DIM, role="pad.hint")
    body = pygame.Rect(body.left, hint_r.bottom + sc.px(4), body.width,
                       body.bottom - hint_r.bottom - sc.px(4))
    preview_w = sc.px(90)
    card_r, keys_r = cols(body, [preview_w, body.width - preview_w - sc.gap], sc.gap)
    chosen = (ui.card_rank or "") + (ui.card_suit or "")
    cards(c, inset(card_r, 0, card_r.height // 6), (chosen,) if len(chosen) == 2 else (),
          "pad", slots=1)
    rank_r, suit_r, ok_r = rows(keys_r, [2, 1, 1], sc.gap)
    for r_, cell in zip(RANKS, grid(rank_r, 13, 7, sc.gap), strict=True):
        button(c, f"pad.rank.{r_}", cell, "10" if r_ == "T" else r_, PadRank(r_),
               keys=(r_.lower(),), selected=ui.card_rank == r_, style="flat",
               size=sc.large, hint="")
    for s_, cell in zip(SUITS, cols(suit_r, [1] * 4, sc.gap), strict=True):
        b = button(c, f"pad.suit.{s_}", cell, "" if s_ in "hd" else SUIT_SYMBOLS[s_],
                   PadSuit(s_), keys=(s_,), selected=ui.card_suit == s_, style="flat",
                   size=sc.large, hint="")
        if s_ in "hd":  # the red suits in red on the key face
            c.p.text(SUIT_SYMBOLS[s_], inset(b.rect, sc.px(4)), sc.large, bold=True,
                     color=theme.CARD_RED, role=f"pad.suit.{s_}.sym")
    cancel_r, ok = cols(ok_r, [1, 1], sc.gap)
    _cancel(c, cancel_r)
    button(c, "pad.ok", ok, tr("btn.ok"), PadCardDone(), keys=("return",),
           enabled=len(chosen) == 2, style="primary")


def _pin(c: Ctx, title_r: pygame.Rect, body: pygame.Rect) -> None:
    p, sc, tr, ui, view = c.p, c.sc, c.tr, c.ui, c.view
    action = tr(f"btn.{ui.pad_action}") if ui.pad_action else ""
    _title(c, title_r, tr("pad.pin_title", action=action))
    waiting = ui.pad == "wait"
    locked = lock_left(view, ui, c.now)
    if c.lay.portrait:
        info_r, keys_r = rows(body, [1, 2.4], sc.gap)
    else:
        info_r, keys_r = cols(body, [1, 1.15], sc.gap)
    detail = ""
    if ui.pad_action == inputs.VoidRound.name:
        detail = tr(f"reason.{ui.reason or 'other'}")
    elif ui.pad_action == inputs.ManualCard.name and ui.card_rank and ui.card_suit:
        detail = tr("pad.card_chosen", card=card_label(ui.card_rank + ui.card_suit))
    elif ui.pad_action == inputs.ReopenBets.name:  # what it does, and that it is no void
        detail = tr("pad.reopen_detail")
    lh = sc.line(sc.medium)
    y = info_r.top
    if detail:
        p.text2(detail, pygame.Rect(info_r.left, y, info_r.width, 2 * lh), sc.medium, bold=True,
                role="pad.detail")
        y += 2 * lh
    box = pygame.Rect(info_r.left, y + sc.px(4), info_r.width, sc.touch)
    p.fill(box, theme.FELT_DARK, box.height // 4)
    p.outline(box, theme.PANEL_LINE, 1, box.height // 4)
    shown = "\u25cf " * len(ui.pin) if ui.pin else tr("pad.pin_hint")
    p.text(shown.strip(), inset(box, sc.px(6), sc.px(2)), sc.large if ui.pin else sc.small,
           bold=bool(ui.pin), color=theme.TEXT if ui.pin else theme.TEXT_DIM, role="pad.pin")
    notes: list[tuple[str, Color]] = []
    if waiting:
        notes.append((tr("pad.checking"), theme.TEXT))
    elif locked:
        notes.append((tr("pad.locked", time=clock(locked)), theme.LOSE))
    elif ui.error:
        notes.append((ui.error, theme.LOSE))
    if not locked:
        notes.append((tr.plural("pad.attempts", view.pin_attempts_left), theme.TEXT_DIM))
    top = box.bottom + sc.px(6)
    _notes(c, notes, pygame.Rect(info_r.left, top, info_r.width, info_r.bottom - top))
    live = not waiting and not locked
    cells = grid(keys_r, 15, 3, sc.gap)
    labels = [(d, PadDigit(d), (d,)) for d in "123456789"]
    labels += [(tr("btn.del"), PadDelete(), ("backspace",)), ("0", PadDigit("0"), ("0",)),
               (tr("btn.ok"), PadSend(), ("return",))]
    for i, ((label, act, keys), cell) in enumerate(zip(labels, cells, strict=False)):
        is_ok = isinstance(act, PadSend)
        button(c, f"pad.key.{i}", cell, label, act, keys=keys,
               style="primary" if is_ok else "normal", size=sc.large,
               enabled=live and (len(ui.pin) >= inputs.PIN_MIN_DIGITS or not is_ok), hint="")
    last = cells[12]
    _cancel(c, pygame.Rect(last.left, last.top, cells[14].right - last.left, last.height))


def _notes(c: Ctx, notes: list[tuple[str, Color]], box: pygame.Rect) -> None:
    """The pad's notes (why the PIN was refused, the attempts left), wrapped to be read whole."""
    p, sc = c.p, c.sc
    gap = sc.px(4)  # between one note and the next
    box = pygame.Rect(box.left, box.top, box.width, box.height - gap * (len(notes) - 1))
    for size in range(sc.small, sc.least - 1, -1):
        lh = line_height(p, size)
        said = [(line, color, i) for text, color in notes
                for i, line in enumerate(wrap_words(p.fonts.font(
                    size, color is not theme.TEXT_DIM), text, box.width) or [text])]
        if len(said) * lh <= box.height:
            break
    room = max(1, box.height // lh)
    if len(said) > room:  # no room even at the smallest size: the last line says the rest
        _, color, i = said[room - 1]
        said[room - 1:] = [(" ".join(x[0] for x in said[room - 1:]), color, i)]
    y = box.top
    for n, (line, color, i) in enumerate(said):
        y += gap if n and not i else 0
        role = "pad.error" if color is theme.LOSE else "pad.note"
        p.text(line, pygame.Rect(box.left, y, box.width, lh), size,
               bold=color is not theme.TEXT_DIM, color=color, role=role + (str(i + 1) if i
                                                                        else ""),
               min_size=size)
        y += lh


def supervisor_command(ui: DealerUI) -> inputs.DealerCommand | None:
    """The supervisor action the pads were filled in for, with the PIN typed, or None.

    A void's reason goes in English (the journal's words), whatever the screen's language.
    """
    pin = ui.pin
    if ui.pad_action == inputs.VoidRound.name:
        return inputs.VoidRound(reason=_EN(f"reason.{ui.reason or 'other'}"), pin=pin)
    if ui.pad_action == inputs.ManualCard.name and ui.card_rank and ui.card_suit:
        return inputs.ManualCard(card=ui.card_rank + ui.card_suit, pin=pin)
    if ui.pad_action == inputs.UnblockDeck.name:
        return inputs.UnblockDeck(reason="deck checked by supervisor", pin=pin)
    command = inputs.COMMAND_NAMED.get(ui.pad_action or "")
    if command is None or command in (inputs.VoidRound, inputs.ManualCard):
        return None
    return command(pin=pin)  # Resume, NextRound, Reopen bets: a PIN and nothing more
