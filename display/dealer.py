"""The dealer-facing screen: run the round from a touchscreen, a mouse or the keyboard.

Lifecycle (after Tuxemon's states): :meth:`DealerScreen.draw` only READS the newest
:class:`~controller.game.views.DealerView` and the screen's own UI state (selected seat, chip,
open pad) and returns a :class:`~display.painter.Frame` listing every button with its
rectangle, action and shortcut keys. :meth:`DealerScreen.handle` takes one pygame event
with the last frame, updates the UI state and returns the
:class:`~controller.game.inputs.DealerCommand` s to post (each checked against its
declaration; a PIN pad entry that fails it stays open with the reason). The screen never calls the
controller and never waits.

Keyboard (every action has a key; the key is printed on its button):

* ``1``-``9`` select a seat; ``F1``-``F4`` pick a chip; ``A`` / ``P`` / ``X`` add the chip
  to the selected seat's Ante / Pair Plus / 6 Card Bonus; ``B`` rebet the seat,
  ``Shift+B`` rebet every seat; ``C`` clear the seat.
* ``Y`` Play / ``F`` Fold for the selected seat (the first undecided seat by default).
* ``N`` no more bets, ``R`` reveal, ``S`` settle, ``G`` next round; ``Enter`` does the
  large next action.
* ``F5`` resume, ``F6`` new deck, ``F9`` void, ``F10`` manual card, ``F11`` unblock deck,
  ``F7`` recall, ``F8`` meters, ``Esc`` back / cancel.
* Pads: digits, ``Backspace``, ``Enter``; card pad ranks ``A K Q J T 9``-``2`` and suits
  ``S H D C``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pygame

from controller.game import inputs as C  # noqa: N812 - the input declarations
from controller.game.config import PIN_MAX_DIGITS
from controller.game.views import DealerView, PayoutLine, RecallRound, SeatView
from display import outcome_mode as om
from display import theme
from display.cards import SUIT_SYMBOLS, CardArt, card_label
from display.common import banner_strip, dealer_hand, felt, link_pill
from display.i18n import VOID_REASONS, Translator, format_money
from display.painter import Button, Frame, Painter, cols, grid, inset, rows
from display.theme import FontBook

PAY_ORDER = ("play", "ante_bonus", "ante", "pair_plus", "six_card_bonus")
RANKS = "AKQJT98765432"
SUITS = "shdc"
CHIP_KEYS = ("f1", "f2", "f3", "f4", "f12")
PIN_MAX = PIN_MAX_DIGITS
"""The PIN pad takes as many digits as a PIN has at most (12)."""
SDL_MOUSE_TOUCHID = -1
"""``touch_id`` of a touch SDL made up from a mouse click (``SDL_MOUSE_TOUCHID``)."""
TAP_COPY_SECONDS = 0.5
"""A finger press and a mouse press this close in time at one place are one tap."""
TAP_COPY_PIXELS = 40
"""How far apart (pixels, on each axis) a tap's finger and mouse copies may land."""

#: primary next action: next_action_key -> the command's name
_PRIMARY = {
    "place_bets": C.NoMoreBets.name,
    "mark_bets": C.NoMoreBets.name,
    C.NoMoreBets.name: C.NoMoreBets.name,
    C.Reveal.name: C.Reveal.name,
    C.Decide.name: C.Reveal.name,
    C.Settle.name: C.Settle.name,
    C.NextRound.name: C.NextRound.name,
}
#: primary button: command name -> (command, shortcut)
_PRIMARY_CMD: dict[str, tuple[type[C.DealerCommand], str]] = {
    c.name: (c, key) for c, key in ((C.NoMoreBets, "n"), (C.Reveal, "r"), (C.Settle, "s"),
                                    (C.NextRound, "g"), (C.Resume, "f5"))}
#: toolbar supervisor / service buttons: (command name, label key, key, style)
_TOOLS = tuple((c.name, f"btn.{c.name}", key, style) for c, key, style in (
    (C.VoidRound, "f9", "danger"), (C.ManualCard, "f10", "normal"),
    (C.UnblockDeck, "f11", "normal"), (C.Resume, "f5", "normal"), (C.NewDeck, "f6", "normal")))
#: the pad a supervisor action opens first
_FIRST_PAD = {C.VoidRound.name: "reason", C.ManualCard.name: "card"}
_BET_KEYS = {"ante": "a", "pair_plus": "p", "six_card_bonus": "x"}
_EN = Translator("en")


@dataclass(slots=True)
class DealerUI:
    """The dealer screen's own state (never game state).

    Attributes:
        screen: ``main``, ``recall`` or ``meters``.
        pad: open pad: None, ``reason``, ``card`` or ``pin``.
        pad_action: the supervisor action the pad is for.
        reason: the void reason key chosen.
        card_rank / card_suit: the card being entered.
        pin: digits typed.
        selected_seat: seat chosen by the dealer, or None (automatic).
        chip: chip value in use (minor units), or None (the smallest).
        recall_index: which recall round is shown (0 = newest).
        flash: (button id, until monotonic seconds) of the last press, for feedback.
        error: why the PIN pad's command was refused (its declaration), shown on the pad.
    """

    screen: str = "main"
    pad: str | None = None
    pad_action: str | None = None
    reason: str | None = None
    card_rank: str | None = None
    card_suit: str | None = None
    pin: str = ""
    selected_seat: int | None = None
    chip: int | None = None
    recall_index: int = 0
    flash: tuple[str, float] = ("", 0.0)
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def key_name(event: pygame.event.Event) -> str:
    """The shortcut name of a KEYDOWN event: ``n``, ``f9``, ``return``, ``shift+b``."""
    name = pygame.key.name(event.key).lower()
    if name.startswith("keypad "):
        name = name[7:]
        name = {"enter": "return", "period": ".", "minus": "-", "plus": "+"}.get(name, name)
    elif name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
        name = {"enter": "return"}.get(name, name)
    if name == "enter":
        name = "return"
    mod = getattr(event, "mod", 0)
    if mod & pygame.KMOD_SHIFT and len(name) == 1 and name.isalpha():
        return "shift+" + name
    return name


@dataclass(slots=True)
class _Press:
    """A pointer press the screen acted on: ``finger`` or ``mouse``, where and when."""

    kind: str
    pos: tuple[int, int]
    at: float
    copied: bool = False


class DealerScreen:
    """Draws dealer views and turns touches, clicks and keys into dealer commands.

    Args:
        fonts: shared font book.
        lang: ``en``, ``fr`` or ``uk``.
    """

    def __init__(self, fonts: FontBook, lang: str = "en") -> None:
        self.fonts = fonts
        self.art = CardArt(fonts)
        self.tr = Translator(lang)
        self.ui = DealerUI()
        self._shade: dict[tuple[int, int], pygame.Surface] = {}
        self._size_cache: dict[tuple[object, ...], tuple[int, int]] = {}
        self._compact = False
        self._now = 0.0
        self._press: _Press | None = None

    # -- helpers read by draw and handle ------------------------------------------------------

    def chip(self, view: DealerView) -> int:
        """The chip value in use."""
        chips = view.chip_values or (100,)
        return self.ui.chip if self.ui.chip in chips else chips[0]

    def selected_seat(self, view: DealerView) -> int:
        """The seat the seat keys act on: the dealer's choice, else the natural one.

        While deciding, a seat already decided hands over to the first undecided one.
        """
        seats = view.seats
        numbers = [s.seat for s in seats]
        if view.state == "deciding":
            undecided = [s.seat for s in seats if s.bets.get("ante") and not s.decision]
            if self.ui.selected_seat in undecided:
                return self.ui.selected_seat  # type: ignore[return-value]
            if undecided:
                return undecided[0]
        if self.ui.selected_seat in numbers:
            return self.ui.selected_seat  # type: ignore[return-value]
        return numbers[0] if numbers else 1

    def needs_animation(self, view: DealerView, now: float) -> bool:
        """Whether something moves now (button feedback, a blinking link alarm)."""
        return now < self.ui.flash[1] or view.link_state in ("disconnected", "silent")

    # -- input ------------------------------------------------------------------------------

    def handle(self, event: pygame.event.Event, frame: Frame | None, view: DealerView,
               now: float = 0.0) -> list[C.DealerCommand]:
        """Apply one input event.

        Args:
            event: a pygame event (MOUSEBUTTONDOWN, FINGERDOWN, KEYDOWN; others ignored).
            frame: the frame last drawn (its buttons are what the dealer saw).
            view: the view that frame was drawn from.
            now: monotonic seconds (for press feedback).

        Returns:
            Commands to post to the controller inbox (often none).

        One tap is one press: SDL's own copies are dropped (a click marked ``touch``, a
        touch from ``SDL_MOUSE_TOUCHID``), and so is a press of the other kind (finger
        after mouse, mouse after finger) within :data:`TAP_COPY_SECONDS` and
        :data:`TAP_COPY_PIXELS` of the one acted on, since some touchscreen drivers send
        a mouse click of their own with each touch. Only one copy is dropped per press.
        """
        if frame is None:
            return []
        button = None
        if event.type == pygame.MOUSEBUTTONDOWN:
            if getattr(event, "button", 1) != 1 or getattr(event, "touch", False):
                return []  # touches arrive as FINGERDOWN; ignore SDL's mouse copy
            if self._tap_copy("mouse", event.pos, now):
                return []
            button = frame.button_at(event.pos)
        elif event.type == pygame.FINGERDOWN:
            if getattr(event, "touch_id", 0) == SDL_MOUSE_TOUCHID:
                return []  # SDL's touch copy of a mouse click; the click itself counts
            w, h = frame.size
            pos = (int(event.x * w), int(event.y * h))
            if self._tap_copy("finger", pos, now):
                return []
            button = frame.button_at(pos)
        elif event.type == pygame.KEYDOWN:
            name = key_name(event)
            button = frame.button_for_key(name)
            if button is None and name.startswith("shift+"):
                button = frame.button_for_key(name[6:])
        if button is None:
            return []
        self.ui.flash = (button.id, now + 0.18)
        return self._act(button.action, view)

    def _tap_copy(self, kind: str, pos: tuple[int, int], now: float) -> bool:
        """True when this press is the other-kind copy of the last press acted on."""
        last = self._press
        if (last is not None and not last.copied and last.kind != kind
                and 0 <= now - last.at <= TAP_COPY_SECONDS
                and abs(pos[0] - last.pos[0]) <= TAP_COPY_PIXELS
                and abs(pos[1] - last.pos[1]) <= TAP_COPY_PIXELS):
            last.copied = True
            return True
        self._press = _Press(kind, (int(pos[0]), int(pos[1])), now)
        return False

    def _act(self, action: tuple[Any, ...], view: DealerView) -> list[C.DealerCommand]:
        ui = self.ui
        kind = action[0]
        if kind == "cmd":
            if isinstance(action[1], C.Decide):
                ui.selected_seat = None
            return [action[1]]
        if kind == "seat":
            ui.selected_seat = action[1]
            return []
        if kind == "chip":
            ui.chip = action[1]
            return []
        if kind == "bet":
            if om.on(view):  # outcome mode: a touch marks the bet (or takes the mark off)
                return [om.mark(view, action[1], action[2])]
            return [C.PlaceBet(seat=action[1], bet=action[2], amount=self.chip(view))]
        if kind == "all_play":
            return om.all_play(view)
        if kind == "screen":
            ui.screen = action[1]
            ui.recall_index = 0 if action[1] == "recall" else ui.recall_index
            return []
        if kind == "recall":
            ui.recall_index = max(0, min(action[1], len(view.recall) - 1))
            return []
        if kind == "open":
            what = action[1]
            self._reset_pad()
            ui.pad_action = what
            ui.pad = _FIRST_PAD.get(what, "pin")
            return []
        if kind == "reason":
            ui.reason = action[1]
            ui.pad = "pin"
            return []
        if kind == "rank":
            ui.card_rank = action[1]
            return []
        if kind == "suit":
            ui.card_suit = action[1]
            return []
        if kind == "card_ok":
            if ui.card_rank and ui.card_suit:
                ui.pad = "pin"
            return []
        if kind == "digit":
            if len(ui.pin) < PIN_MAX:
                ui.pin += action[1]
            return []
        if kind == "del":
            ui.pin = ui.pin[:-1]
            return []
        if kind == "cancel":
            self._reset_pad()
            return []
        if kind == "pin_ok":
            if not ui.pin:
                return []
            cmd = self._supervisor_command()
            if cmd is not None:
                try:
                    C.check(cmd)
                except C.InputError as exc:  # e.g. a PIN shorter than 4 digits
                    ui.error, ui.pin = str(exc), ""
                    return []
            self._reset_pad()
            return [cmd] if cmd is not None else []
        return []

    def _supervisor_command(self) -> C.DealerCommand | None:
        ui = self.ui
        pin = ui.pin
        if ui.pad_action == C.VoidRound.name:
            reason = _EN(f"reason.{ui.reason or 'other'}")
            return C.VoidRound(reason=reason, pin=pin)
        if ui.pad_action == C.ManualCard.name and ui.card_rank and ui.card_suit:
            return C.ManualCard(card=ui.card_rank + ui.card_suit, pin=pin)
        if ui.pad_action == C.UnblockDeck.name:
            return C.UnblockDeck(reason="deck checked by supervisor", pin=pin)
        if ui.pad_action == C.Resume.name:
            return C.Resume(pin=pin)
        return None

    def _reset_pad(self) -> None:
        ui = self.ui
        ui.pad = ui.pad_action = ui.reason = ui.card_rank = ui.card_suit = None
        ui.pin = ui.error = ""

    # -- drawing ----------------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, view: DealerView, now: float = 0.0) -> Frame:
        """Draw one frame of the dealer screen (reads the view and the UI state only).

        Args:
            surface: target surface, 800x480 to 3840x2160, landscape or portrait.
            view: the newest dealer view.
            now: monotonic seconds (press feedback, link alarm blink).

        Returns:
            The frame: texts, regions and buttons with their actions and keys.
        """
        w, h = surface.get_size()
        portrait = h > w
        p = Painter(surface, self.fonts, min_text=max(7, min(w, h) // 90))
        surface.blit(felt((w, h), surface), (0, 0))
        self._now = now
        u = min(w / 100, h / 170) if portrait else min(w / 160, h / 100)
        gap = max(4, int(u * 1.0))
        outer = inset(surface.get_rect(), gap)
        p.frame.notes.update(mode=self.ui.screen, pad=self.ui.pad, portrait=portrait,
                             selected_seat=self.selected_seat(view), chip=self.chip(view))
        header_h = int((5.5 if portrait else 8.5) * (h if portrait else h) / 100)
        header = pygame.Rect(outer.left, outer.top, outer.width, header_h)
        self._header(p, header, view, now)
        body = pygame.Rect(outer.left, header.bottom + gap, outer.width,
                           outer.bottom - header.bottom - gap)
        if self.ui.screen == "recall":
            self._recall(p, body, view, gap)
        elif self.ui.screen == "meters":
            self._meters(p, body, view, gap)
        else:
            self._main(p, body, view, gap, portrait)
        if self.ui.pad:
            self._pad(p, view)
        return p.frame

    def _flash(self, id_: str) -> bool:
        return self.ui.flash[0] == id_ and self._now < self.ui.flash[1]

    def _header(self, p: Painter, rect: pygame.Rect, view: DealerView, now: float) -> None:
        tr = self.tr
        g = max(4, rect.height // 6)
        left, state_r, link_r, tools = cols(rect, [22, 20, 30, 28], g)
        a, b = rows(left, [1.1, 1])
        p.text(f"{tr('word.table')} {view.table_id}", a, a.height, bold=True, color=theme.GOLD,
               align="left", role="header.table")
        p.text(f"{tr('word.round')} {view.round_id}", b, b.height, color=theme.TEXT_DIM,
               align="left", role="header.round")
        pill = inset(state_r, 0, rect.height // 8)
        p.fill(pill, theme.PANEL_HI, pill.height // 2)
        p.text(tr.state(view.state), inset(pill, pill.height // 3, 2), int(pill.height * 0.6),
               bold=True, role="header.state")
        lp, ld = rows(link_r, [1.6, 1])
        link_pill(p, inset(lp, 0, max(1, lp.height // 14)), view.link_state, tr,
                  blink=int(now * 2) % 2 == 1)
        p.text(tr.link_detail(view.link_detail), ld, ld.height, color=theme.TEXT_DIM,
               role="link.detail", min_size=6)
        r1, r2 = cols(tools, [1, 1], g)
        recall = self.ui.screen == "recall"
        meters = self.ui.screen == "meters"
        p.button("recall", inset(r1, 0, rect.height // 10), tr("btn.back") if recall
                 else tr("btn.recall"), ("screen", "main" if recall else "recall"),
                 keys=("f7", "escape") if recall else ("f7",), selected=recall)
        p.button("meters", inset(r2, 0, rect.height // 10), tr("btn.back") if meters
                 else tr("btn.meters"), ("screen", "main" if meters else "meters"),
                 keys=("f8", "escape") if meters else ("f8",), selected=meters)

    # main screen --------------------------------------------------------------------------

    def _main(self, p: Painter, body: pygame.Rect, view: DealerView, gap: int,
              portrait: bool) -> None:
        self._compact = False
        h = p.surface.get_height()
        banners = list(view.banners[:2])
        bh = int(h * (0.055 if portrait else 0.095))
        hero_h = int(h * (0.13 if portrait else 0.15))
        tool_h = int(h * (0.095 if portrait else 0.105))
        y = body.top
        for i, b in enumerate(banners):
            banner_strip(p, pygame.Rect(body.left, y, body.width, bh), b, self.tr, f"banner.{i}")
            y += bh + gap
        hero = pygame.Rect(body.left, y, body.width, hero_h)
        self._hero(p, hero, view)
        tools = pygame.Rect(body.left, body.bottom - tool_h, body.width, tool_h)
        self._toolbar(p, tools, view, portrait)
        main = pygame.Rect(body.left, hero.bottom + gap, body.width,
                           tools.top - gap - hero.bottom - gap)
        show_pay = bool(view.payouts) and view.state in ("reveal", "settled", "void")
        if portrait:
            parts = rows(main, [16, 62, 38] if show_pay else [18, 82], gap)
            dealer_r, seats_r = parts[0], parts[1]
            pay_r = parts[2] if show_pay else None
            ncols = 4
        else:
            top, rest = rows(main, [27, 73], gap)
            if show_pay:
                left, pay_r = cols(pygame.Rect(main), [64, 36], gap)
                top, seats_r = rows(left, [27, 73], gap)
            else:
                seats_r, pay_r = rest, None
            dealer_r = top
            ncols = len(view.seats) or 1
        dealer_hand(p, self.art, dealer_r, view.dealer_cards, view.dealer_hand,
                    view.dealer_qualifies, self.tr)
        # with the payout list on screen a narrow seat drops its bet lines (the list has them)
        self._compact = show_pay and seats_r.width / max(1, ncols) < 190
        self._seats(p, seats_r, view, ncols)
        if pay_r is not None:
            self._payouts(p, pay_r, view.payouts, om.on(view))

    def _primary(self, view: DealerView) -> str | None:
        name = _PRIMARY.get(view.next_action_key)
        if name and name in view.allowed:
            return name
        for cand in _PRIMARY_CMD:
            if cand in view.allowed:
                return cand
        return name

    def _hero(self, p: Painter, rect: pygame.Rect, view: DealerView) -> None:
        tr = self.tr
        g = max(4, rect.height // 10)
        if rect.height > rect.width * 0.16:
            act_r, rest = rows(rect, [1, 1.4], g)
            card_r, btn_r = cols(rest, [1, 1.2], g)
        else:
            act_r, card_r, btn_r = cols(rect, [44, 26, 30], g)
        p.fill(act_r, theme.PANEL, max(6, rect.height // 8))
        p.outline(act_r, theme.GOLD_DARK, 1, max(6, rect.height // 8))
        key = tr.next_key(view.next_action_key, view.state)
        text = tr(key) if view.next_action_key and tr.has(key) and not (
            tr.lang == "en" and view.next_action) else (view.next_action or tr(key))
        p.text(text, inset(act_r, act_r.height // 6, act_r.height // 6), int(act_r.height * 0.34),
               bold=True, role="next_action")
        p.region("next_action", act_r)
        p.fill(card_r, theme.PANEL, max(6, rect.height // 8))
        due = view.next_card is not None
        p.outline(card_r, theme.GOLD if due else theme.PANEL_LINE, max(1, rect.height // 30),
                  max(6, rect.height // 8))
        a, b = rows(inset(card_r, rect.height // 10, rect.height // 12), [1, 1.7])
        p.text(tr("card.next"), a, a.height, color=theme.TEXT_DIM, role="next_card.label")
        p.text(self._next_card_text(view), b, b.height, bold=True,
               color=theme.GOLD if due else theme.TEXT_DIM, role="next_card")
        p.region("next_card", card_r)
        name = self._primary(view)
        if name in _PRIMARY_CMD:
            cls, key = _PRIMARY_CMD[name]
            enabled = name in view.allowed
            p.button("primary", btn_r, tr(f"btn.{name}"), ("cmd", cls()),
                     keys=(key, "return"), enabled=enabled,
                     style="primary", selected=self._flash("primary"))
        else:
            p.fill(btn_r, theme.BTN_OFF, max(6, rect.height // 8))
            p.text(tr("word.waiting") + " \u2026", inset(btn_r, btn_r.height // 5),
                   int(btn_r.height * 0.3), color=theme.BTN_OFF_TEXT, role="primary.waiting")

    def _next_card_text(self, view: DealerView) -> str:
        nc = view.next_card
        if nc is None:
            return self.tr("card.none")
        seat, n = nc
        if seat > 0:
            return self.tr("card.seat", seat=seat, n=n)
        if seat == 0:
            return self.tr("card.dealer", n=n)
        return self.tr("card.burn")

    def _toolbar(self, p: Painter, rect: pygame.Rect, view: DealerView, portrait: bool) -> None:
        tr = self.tr
        g = max(3, rect.height // 10)
        betting = C.PlaceBet.name in view.allowed
        chips = view.chip_values[:len(CHIP_KEYS)]
        if portrait:
            top, bottom = rows(rect, [1, 1], g)
            chip_r, tool_r = top, bottom
        else:
            chip_r, tool_r = cols(rect, [42, 58], g * 2)
        if om.on(view):  # no chips to count: Rebet all and All play in their place
            om.tray(p, chip_r, view, tr)
        else:
            cells = cols(chip_r, [1] * len(chips) + [1.5], g)
            current = self.chip(view)
            for i, (v, cell) in enumerate(zip(chips, cells, strict=False)):
                self._chip_button(p, cell, v, CHIP_KEYS[i], betting, v == current)
            p.button("rebet_all", cells[-1], tr("btn.rebet_all"), ("cmd", C.Rebet(seat=0)),
                     keys=("shift+b",), enabled=C.Rebet.name in view.allowed)
        tcells = cols(tool_r, [1] * len(_TOOLS), g)
        tsize = p.common_size([tr(x[1]) for x in _TOOLS],
                              inset(tcells[0], tcells[0].height // 6, tcells[0].height // 5),
                              int(tcells[0].height * 0.4), bold=True)
        for (name, label, key, style), cell in zip(_TOOLS, tcells, strict=True):
            enabled = name in view.allowed
            if name == C.Resume.name and view.awaiting_supervisor != name:
                action: tuple[Any, ...] = ("cmd", C.Resume())
            elif name == C.NewDeck.name:
                action = ("cmd", C.NewDeck())
            else:
                action = ("open", name)
            if name == C.UnblockDeck.name:
                enabled = enabled or (view.deck_blocked and name in view.allowed)
            p.button(f"tool.{name}", cell, tr(label), action, keys=(key,), enabled=enabled,
                     style=style if enabled else "normal", size=tsize,
                     selected=view.awaiting_supervisor == name)

    def _chip_button(self, p: Painter, rect: pygame.Rect, value: int, key: str, enabled: bool,
                     selected: bool) -> None:
        label = format_money(value)
        if label.endswith(".00"):
            label = label[:-3]
        d = min(rect.width, rect.height)
        circle = pygame.Rect(0, 0, d, d)
        circle.center = rect.center
        colors = {100: (235, 235, 235), 500: (200, 40, 40), 2500: (40, 150, 70),
                  10000: (30, 30, 30)}
        base = colors.get(value, (60, 90, 200))
        if not enabled:
            base = theme.BTN_OFF
        pygame.draw.circle(p.surface, base, circle.center, d // 2)
        pygame.draw.circle(p.surface, theme.GOLD if selected else theme.TEXT, circle.center,
                           d // 2, max(2, d // (9 if selected else 16)))
        inner_r = int(d * 0.34)
        pygame.draw.circle(p.surface, theme.CARD_FACE if enabled else theme.BTN_OFF_TEXT,
                           circle.center, inner_r)
        box = pygame.Rect(0, 0, int(inner_r * 1.6), int(inner_r * 1.1))
        box.center = circle.center
        p.text(label, box, box.height, bold=True, color=theme.TEXT_DARK, role=f"chip.{value}")
        if rect.width > d * 1.3:
            hb = pygame.Rect(circle.right + 2, rect.top, rect.right - circle.right - 2,
                             rect.height // 3)
            p.text(key.upper(), hb, hb.height, color=theme.TEXT_DIM, align="left",
                   role=f"chip.{value}.hint", min_size=6)
        p.frame.buttons.append(Button(f"chip.{value}", pygame.Rect(circle), label,
                                      ("chip", value), (key,), enabled))

    def _seats(self, p: Painter, rect: pygame.Rect, view: DealerView, ncols: int) -> None:
        cells = grid(rect, len(view.seats), ncols, max(3, rect.width // 200))
        sel = self.selected_seat(view)
        if not cells:
            return
        # one text size for every bet line of every seat: measure the widest pair
        cell = cells[0]
        inner = inset(cell, max(3, cell.width // 24), max(3, cell.height // 45))
        show_cards = view.state != "betting" or any(s.cards for s in view.seats)
        nbets = 0 if self._compact else 4
        units = 1.05 + (3.05 if show_cards else 0) + 0.9 * nbets + 1.3
        line_h = int(inner.height * 0.9 / units)
        sample = (om.widest_value(self.tr, view.seats) if om.on(view)
                  else "+" + format_money(max([1000, *(
                      abs(r.net) for s in view.seats for r in s.results)])))
        pairs = tuple((self.tr.bet(b), sample)
                      for b in ("ante", "play", "pair_plus", "six_card_bonus"))
        width = inner.width - 2 * max(3, line_h // 6) - line_h // 3
        hand_h = int(inner.height * 0.75 / units * 0.95)
        hands = tuple(self._hand_text(s) for s in view.seats)
        key = (pairs, width, line_h, hands, inner.width, hand_h, p.min_text)
        cached = self._size_cache.get(key)
        if cached is None:
            size = max(6, int(line_h * 0.62))
            while size > 6:
                f, fb = self.fonts.font(size), self.fonts.font(size, True)
                if all(f.size(a)[0] + fb.size(b)[0] + 6 <= width for a, b in pairs):
                    break
                size -= 1
            small = max(8, p.min_text * 2 // 3)
            hsize = p.common_size(list(hands), pygame.Rect(0, 0, inner.width, hand_h), hand_h,
                                  bold=True, min_size=small)
            if len(self._size_cache) > 128:
                self._size_cache.clear()
            cached = self._size_cache[key] = (size, hsize)
        size, hsize = cached
        sizes = {"bet": size, "hand": hsize}
        for seat, c in zip(view.seats, cells, strict=False):
            self._seat(p, c, seat, view, seat.seat == sel, sizes)

    def _seat(self, p: Painter, rect: pygame.Rect, seat: SeatView, view: DealerView,
              selected: bool, sizes: dict[str, int]) -> None:
        tr = self.tr
        role = f"seat.{seat.seat}"
        p.region(role, rect)
        radius = max(5, min(rect.width, rect.height) // 14)
        active = bool(seat.bets or seat.cards)
        p.fill(rect, theme.PANEL if active else theme.FELT_DARK, radius)
        p.outline(rect, theme.GOLD if selected else theme.PANEL_LINE,
                  max(2, rect.width // 60) if selected else 1, radius)
        inner = inset(rect, max(3, rect.width // 24), max(3, rect.height // 45))
        betting = bool({C.PlaceBet.name, C.MarkBet.name} & view.allowed)  # amounts or marks
        deciding = view.state == "deciding"
        bet_names = ["ante", "pair_plus"]
        if view.paytables.six_card_bonus or seat.bets.get("six_card_bonus"):
            bet_names.append("six_card_bonus")
        if seat.bets.get("play"):
            bet_names.insert(1, "play")
        show_cards = bool(seat.cards) or view.state not in ("betting",)
        compact = self._compact
        if compact:
            bet_names = []
        weights = [1.05]
        if show_cards:
            weights += [2.3, 1.5 if compact else 0.75]
        weights += [0.9] * len(bet_names) + [1.3]
        parts = rows(inner, weights, max(2, inner.height // 70))
        head = parts.pop(0)
        seat_keys = (str(seat.seat),) if seat.seat <= 9 else ()
        p.button(f"{role}.select", head, tr("word.seat_n", seat=seat.seat), ("seat", seat.seat),
                 keys=seat_keys, style="flat", selected=selected, hint=seat_keys[0]
                 if seat_keys else "")
        if show_cards:
            cards_r, hand_r = parts.pop(0), parts.pop(0)
            self.art.row(p.surface, cards_r, seat.cards)
            p.region(f"{role}.cards", cards_r)
            p.text2(self._hand_text(seat), hand_r, sizes["hand"], bold=True,
                   color=theme.LOSE if seat.decision == "fold" else theme.TEXT,
                   role=f"{role}.hand")
        results = {r.bet: r for r in seat.results}
        for name in bet_names:
            line = parts.pop(0)
            amount = seat.bets.get(name, 0)
            label = tr.bet(name)
            r = results.get(name)
            value = format_money(amount) if amount else "\u2013"
            color = theme.TEXT if amount else theme.TEXT_DIM
            if r is not None and view.state in ("reveal", "settled"):
                value = format_money(r.net, sign=True) if r.outcome == "win" else (
                    format_money(r.net) if r.outcome == "lose" else format_money(r.stake))
                color = theme.OUTCOME_COLORS.get(r.outcome, theme.TEXT)
            if om.on(view):  # a mark, then the outcome: no amounts
                value = (om.result_text(tr, r.outcome, r.multiple) if r is not None and
                         view.state in ("reveal", "settled") else om.mark_text(amount))
            if betting and name != "play":
                key = _BET_KEYS[name]
                p.button(f"{role}.bet.{name}", line, f"{label}  {value}",
                         ("bet", seat.seat, name), keys=(key,) if selected else (),
                         hint=key if selected else "", show_label=False,
                         style=om.mark_style(amount) if om.on(view) else "flat")
                face = inset(line, max(3, line.height // 6), max(2, line.height // 5))
                if selected:
                    face.width -= line.height // 3
                vw = min(face.width // 2, self.fonts.font(sizes["bet"], True).size(value)[0] + 1)
                b = pygame.Rect(face.right - vw, face.top, vw, face.height)
                a = pygame.Rect(face.left, face.top, face.width - vw - 4, face.height)
                p.text(label, a, sizes["bet"], color=theme.TEXT_DIM, align="left",
                       role=f"{role}.bet")
                p.text(value, b, sizes["bet"], bold=True, color=color, align="right",
                       role=f"{role}.amount")
            else:
                vw = min(line.width // 2, self.fonts.font(sizes["bet"], True).size(value)[0] + 1)
                b = pygame.Rect(line.right - vw, line.top, vw, line.height)
                a = pygame.Rect(line.left, line.top, line.width - vw - 4, line.height)
                p.text(label, a, sizes["bet"], color=theme.TEXT_DIM, align="left",
                       role=f"{role}.bet")
                p.text(value, b, sizes["bet"], bold=True, color=color, align="right",
                       role=f"{role}.amount")
        act = parts.pop(0)
        p.region(f"{role}.results", act)
        a, b = cols(act, [1, 1], max(2, act.width // 30))
        if betting:
            p.button(f"{role}.rebet", a, tr("btn.rebet"), ("cmd", C.Rebet(seat=seat.seat)),
                     keys=("b",) if selected else (), hint="b" if selected else "",
                     enabled=C.Rebet.name in view.allowed)
            p.button(f"{role}.clear", b, tr("btn.clear"), ("cmd", C.ClearBets(seat=seat.seat)),
                     keys=("c",) if selected else (), hint="c" if selected else "",
                     enabled=C.ClearBets.name in view.allowed and bool(seat.bets))
        elif deciding and seat.bets.get("ante") and not seat.decision:
            p.button(f"{role}.play", a, tr("btn.play"),
                     ("cmd", C.Decide(seat=seat.seat, decision="play")),
                     keys=("y",) if selected else (), hint="y" if selected else "",
                     enabled=C.Decide.name in view.allowed, style="play")
            p.button(f"{role}.fold", b, tr("btn.fold"),
                     ("cmd", C.Decide(seat=seat.seat, decision="fold")),
                     keys=("f",) if selected else (), hint="f" if selected else "",
                     enabled=C.Decide.name in view.allowed, style="fold")
        elif seat.net is not None:
            if om.on(view):
                text, color = om.seat_summary(tr, seat, view.state == "void")
            elif view.state == "void":
                refund = sum(r.stake for r in seat.results if r.outcome == "refund")
                text, color = "\u21a9 " + format_money(refund), theme.PUSH
            else:
                text = format_money(seat.net, sign=True)
                color = theme.WIN if seat.net > 0 else theme.LOSE if seat.net < 0 else theme.PUSH
            pill = inset(act, 0, max(1, act.height // 10))
            p.fill(pill, theme.FELT_DARK, pill.height // 3)
            p.text(text, inset(pill, pill.height // 4, 1), pill.height, bold=True, color=color,
                   role=f"{role}.net")
        elif not active:
            p.text(tr("word.empty_seat"), act, int(act.height * 0.5), color=theme.TEXT_DIM,
                   role=f"{role}.open")

    def _hand_text(self, seat: SeatView) -> str:
        hand = self.tr.hand(seat.hand)
        if seat.decision == "fold":
            word = self.tr("word.folded")
            hand = f"{hand} \u2022 {word}" if hand else word
        return hand

    def _payouts(self, p: Painter, rect: pygame.Rect, payouts: tuple[PayoutLine, ...],
                 outcomes: bool = False) -> None:
        tr = self.tr
        radius = max(6, rect.width // 40)
        p.fill(rect, theme.PANEL, radius)
        p.outline(rect, theme.GOLD, max(1, rect.width // 250), radius)
        p.region("payouts", rect)
        inner = inset(rect, max(4, rect.width // 40), max(4, rect.height // 50))
        refunds = all(x.outcome == "refund" for x in payouts)
        title_h = max(int(p.min_text * 1.6), inner.height // 14)
        title = pygame.Rect(inner.left, inner.top, inner.width, title_h)
        heading = ("screen.refunds" if refunds else "screen.outcomes" if outcomes
                   else "screen.payouts")
        p.text(tr(heading), title, title_h, bold=True, color=theme.GOLD, align="left",
               role="payouts.title")
        body = pygame.Rect(inner.left, title.bottom + 2, inner.width,
                           inner.bottom - title.bottom - 2)
        entries: list[tuple[str, Any]] = []
        for bet in PAY_ORDER:
            lines = [x for x in payouts if x.bet == bet]
            if lines:
                entries.append(("head", bet))
                entries.extend(("line", x) for x in lines)
        if not entries:
            return
        min_row = int(p.min_text * 1.45)
        per_col = max(1, body.height // max(1, min_row))
        ncols = max(1, -(-len(entries) // per_col))
        nrows = -(-len(entries) // ncols)
        row_h = min(body.height // max(1, nrows), int(title_h * 0.9))
        for ci, col in enumerate(cols(body, [1] * ncols, max(4, body.width // 30))):
            chunk = entries[ci * nrows:(ci + 1) * nrows]
            for ri, (kind, item) in enumerate(chunk):
                r = pygame.Rect(col.left, col.top + ri * row_h, col.width, row_h)
                if kind == "head":
                    p.text(tr.bet(item), r, int(r.height * 0.75), bold=True, color=theme.GOLD,
                           align="left", role="payouts.bet")
                    continue
                x: PayoutLine = item
                a, b, c = cols(r, [1.0, 1.15, 1.3], 3)
                color = theme.OUTCOME_COLORS.get(x.outcome, theme.TEXT)
                p.text(tr("word.seat_n", seat=x.seat), a, int(r.height * 0.7), align="left",
                       role="payouts.seat")
                if outcomes:  # the outcome in words where the amount goes: "pays 5 to 1"
                    c = pygame.Rect(b.left, c.top, c.right - b.left, c.height)
                    p.text(om.result_text(tr, x.outcome, x.multiple), c, int(r.height * 0.7),
                           bold=True, color=color, align="right", role="payouts.amount")
                    continue
                p.text(tr(f"pay.{x.outcome}"), b, int(r.height * 0.62), bold=True, color=color,
                       align="left", role="payouts.outcome")
                amount = format_money(x.amount)
                p.text(amount, c, int(r.height * 0.7), bold=True, color=color, align="right",
                       role="payouts.amount")

    # pads ---------------------------------------------------------------------------------

    def _modal(self, p: Painter, frac: tuple[float, float]) -> pygame.Rect:
        w, h = p.surface.get_size()
        shade = self._shade.get((w, h))
        if shade is None:
            shade = pygame.Surface((w, h), pygame.SRCALPHA)
            shade.fill((0, 0, 0, 150))
            self._shade = {(w, h): shade}
        p.surface.blit(shade, (0, 0))
        p.frame.buttons.clear()  # the pad is modal: only its buttons take input
        pw, ph = int(w * frac[0]), int(h * frac[1])
        rect = pygame.Rect(0, 0, pw, ph)
        rect.center = (w // 2, h // 2)
        p.fill(rect, theme.PANEL, max(8, min(pw, ph) // 30))
        p.outline(rect, theme.GOLD, max(2, min(pw, ph) // 150), max(8, min(pw, ph) // 30))
        p.region("pad", rect)
        return inset(rect, max(6, min(pw, ph) // 24))

    def _pad(self, p: Painter, view: DealerView) -> None:
        ui, tr = self.ui, self.tr
        portrait = p.surface.get_height() > p.surface.get_width()
        frac = (0.92, 0.6) if portrait else (0.62, 0.86)
        if ui.pad == "card" and not portrait:
            frac = (0.8, 0.86)
        inner = self._modal(p, frac)
        g = max(4, inner.height // 50)
        title_r, body = rows(inner, [1, 9], g)
        action_label = tr(f"btn.{ui.pad_action}") if ui.pad_action else ""
        if ui.pad == "reason":
            p.text(tr("pad.reason_title"), title_r, title_r.height, bold=True, color=theme.GOLD,
                   role="pad.title")
            cells = rows(body, [1] * (len(VOID_REASONS) + 1), g)
            for i, (key, cell) in enumerate(zip(VOID_REASONS, cells, strict=False)):
                p.button(f"pad.reason.{key}", cell, tr(f"reason.{key}"), ("reason", key),
                         keys=(str(i + 1),))
            p.button("pad.cancel", cells[-1], tr("btn.cancel"), ("cancel",),
                     keys=("escape",), style="fold")
            return
        if ui.pad == "card":
            p.text(tr("pad.card_title"), title_r, title_r.height, bold=True, color=theme.GOLD,
                   role="pad.title")
            preview_r, keys_r = cols(body, [1, 3.2], g * 2)
            card = (ui.card_rank or "?") + (ui.card_suit or "?")
            pr = inset(preview_r, preview_r.width // 10, preview_r.height // 6)
            if ui.card_rank and ui.card_suit:
                self.art.row(p.surface, pr, (card,), slots=1)
            else:
                self.art.row(p.surface, pr, (), slots=1)
            p.text2(tr("pad.card_hint"), pygame.Rect(preview_r.left, pr.bottom, preview_r.width,
                                                    preview_r.bottom - pr.bottom),
                   int(preview_r.height * 0.06), color=theme.TEXT_DIM, role="pad.hint")
            rank_r, suit_r, ok_r = rows(keys_r, [2, 1.2, 1], g * 2)
            for r_, cell in zip(RANKS, grid(rank_r, 13, 7, g), strict=True):
                label = "10" if r_ == "T" else r_
                p.button(f"pad.rank.{r_}", cell, label, ("rank", r_), keys=(r_.lower(),),
                         selected=ui.card_rank == r_, style="flat")
            for s_, cell in zip(SUITS, cols(suit_r, [1] * 4, g), strict=True):
                p.button(f"pad.suit.{s_}", cell, SUIT_SYMBOLS[s_], ("suit", s_), keys=(s_,),
                         selected=ui.card_suit == s_, style="flat")
                if s_ in "hd":
                    # colour the suit symbol red on the key face
                    p.text(SUIT_SYMBOLS[s_], inset(cell, cell.height // 6), cell.height,
                           bold=True, color=theme.CARD_RED, role=f"pad.suit.{s_}.sym")
            cancel_r, okb = cols(ok_r, [1, 1], g * 2)
            p.button("pad.cancel", cancel_r, tr("btn.cancel"), ("cancel",), keys=("escape",),
                     style="fold")
            p.button("pad.ok", okb, tr("btn.ok"), ("card_ok",), keys=("return",),
                     enabled=bool(ui.card_rank and ui.card_suit), style="primary")
            return
        # PIN pad
        detail = ""
        if ui.error:
            detail = ui.error
        elif ui.pad_action == C.VoidRound.name:
            detail = tr(f"reason.{ui.reason or 'other'}")
        elif ui.pad_action == C.ManualCard.name and ui.card_rank and ui.card_suit:
            detail = card_label(ui.card_rank + ui.card_suit)
        title = tr("pad.pin_title", action=action_label)
        p.text(title, title_r, title_r.height, bold=True, color=theme.GOLD, role="pad.title")
        info_r, pin_r, keys_r = rows(body, [0.8, 1.3, 6.5], g)
        p.text(detail or tr("pad.pin_hint"), info_r, info_r.height, color=theme.TEXT,
               role="pad.detail")
        box = inset(pin_r, pin_r.width // 5, 0)
        p.fill(box, theme.FELT_DARK, box.height // 4)
        p.outline(box, theme.PANEL_LINE, 1, box.height // 4)
        p.text("\u25cf " * len(ui.pin) if ui.pin else tr("pad.pin_hint"), inset(box, 6, 2),
               int(box.height * 0.6), bold=bool(ui.pin),
               color=theme.TEXT if ui.pin else theme.TEXT_DIM, role="pad.pin")
        keypad = inset(keys_r, keys_r.width // 6 if not portrait else keys_r.width // 12, 0)
        cells = grid(keypad, 15, 3, g)
        labels = [("1", ("digit", "1"), ("1",)), ("2", ("digit", "2"), ("2",)),
                  ("3", ("digit", "3"), ("3",)), ("4", ("digit", "4"), ("4",)),
                  ("5", ("digit", "5"), ("5",)), ("6", ("digit", "6"), ("6",)),
                  ("7", ("digit", "7"), ("7",)), ("8", ("digit", "8"), ("8",)),
                  ("9", ("digit", "9"), ("9",)), (tr("btn.del"), ("del",), ("backspace",)),
                  ("0", ("digit", "0"), ("0",)), (tr("btn.ok"), ("pin_ok",), ("return",))]
        for i, ((label, action, keys), cell) in enumerate(zip(labels, cells, strict=False)):
            style = "primary" if action[0] == "pin_ok" else "normal"
            p.button(f"pad.key.{i}", cell, label, action, keys=keys, style=style,
                     enabled=not (action[0] == "pin_ok" and not ui.pin), hint="")
        last = cells[12]
        cancel = pygame.Rect(last.left, last.top, cells[14].right - last.left, last.height)
        p.button("pad.cancel", cancel, tr("btn.cancel"), ("cancel",), keys=("escape",),
                 style="fold")

    # recall and meters ----------------------------------------------------------------------

    def _recall(self, p: Painter, body: pygame.Rect, view: DealerView, gap: int) -> None:
        tr = self.tr
        w, h = p.surface.get_size()
        border = max(4, min(w, h) // 90)
        pygame.draw.rect(p.surface, theme.RECALL, p.surface.get_rect(), border)
        band_h = max(int(p.min_text * 2.2), body.height // 11)
        band = pygame.Rect(body.left, body.top, body.width, band_h)
        p.fill(band, theme.RECALL, band_h // 4)
        rounds = view.recall
        idx = max(0, min(self.ui.recall_index, len(rounds) - 1))
        cur = rounds[idx] if rounds else None
        title = tr("screen.recall_round", round=cur.round_id, index=idx + 1,
                   count=len(rounds)) if cur else tr("screen.recall")
        left_b, mid_b, right_b = cols(inset(band, band_h // 5, band_h // 8), [1.2, 4, 1.2], gap)
        p.button("recall.newer", left_b, "\u2190 " + tr("btn.newer"), ("recall", idx - 1),
                 keys=("left", "page up"), enabled=idx > 0, style="flat")
        p.text(title, mid_b, mid_b.height, bold=True, color=theme.TEXT, role="recall.title")
        p.button("recall.older", right_b, tr("btn.older") + " \u2192", ("recall", idx + 1),
                 keys=("right", "page down"), enabled=idx < len(rounds) - 1, style="flat")
        p.region("recall.band", band)
        area = pygame.Rect(body.left, band.bottom + gap, body.width, body.bottom - band.bottom
                           - gap)
        portrait = h > w
        if portrait:
            list_r, detail_r = rows(area, [1, 3], gap)
        else:
            list_r, detail_r = cols(area, [1, 3.6], gap)
        p.fill(list_r, theme.PANEL, 8)
        n = max(10, len(rounds))
        if portrait:
            cells = grid(inset(list_r, 4), len(rounds), 5, 3)
        else:
            cells = rows(inset(list_r, 4), [1] * n, 3)
        for i, (rr, cell) in enumerate(zip(rounds, cells, strict=False)):
            status = tr.state(rr.status) if rr.status != "void" else tr("word.void")
            p.button(f"recall.round.{i}", cell, f"#{rr.round_id}  {status}", ("recall", i),
                     style="danger" if rr.status == "void" else "flat", selected=i == idx,
                     hint="")
        if cur is not None:
            self._recall_detail(p, detail_r, cur)
        p.frame.notes["recall_round"] = cur.round_id if cur else None

    def _recall_detail(self, p: Painter, rect: pygame.Rect, rr: RecallRound) -> None:
        tr = self.tr
        p.fill(rect, theme.PANEL, 8)
        p.outline(rect, theme.RECALL, 2, 8)
        p.region("recall.detail", rect)
        inner = inset(rect, max(6, rect.width // 60))
        nseats = max(1, len(rr.seats))
        head, deal_r, dealer_r, table_r = rows(inner, [1.3, 2.2, 2.4, 1.2 * (nseats + 1)],
                                               max(3, inner.height // 80))
        a, b = cols(head, [1, 1], 4)
        status = tr.state(rr.status) if rr.status != "void" else tr("word.void")
        status += f" \u2022 {tr('recall.mode.' + rr.bet_entry)}"  # which mode it was dealt in
        p.text(f"{tr('word.round')} {rr.round_id} \u2022 {status}", a, a.height, bold=True,
               color=theme.LOSE if rr.status == "void" else theme.GOLD, align="left",
               role="recall.head")
        when = rr.started_utc.replace("T", " ").replace("Z", "")
        p.text(tr("recall.started", time=when) if when else "", b, int(b.height * 0.8),
               color=theme.TEXT_DIM, align="right", role="recall.time")
        # deal order as a flow of chips: card + where it went
        dt, dl = rows(deal_r, [1, 2.2], 2)
        caption = tr("recall.deal")
        if rr.void_reason:
            caption += "  \u2014  " + tr("recall.void_reason", reason=rr.void_reason)
        p.text(caption, dt, dt.height, bold=True,
               color=theme.LOSE if rr.void_reason else theme.TEXT_DIM, align="left",
               role="recall.caption")
        if rr.deal:
            n = len(rr.deal)
            per_row = -(-n // 2)
            for i, ((card, pos, manual), cell) in enumerate(zip(
                    rr.deal, grid(dl, n, per_row, 3), strict=False)):
                label = card_label(card) if card else "?"
                where = (pos.replace("seat ", tr("abbr.seat")).replace("dealer", tr("abbr.dealer"))
                         .replace("burn", tr("abbr.burn")))
                bg = theme.AMBER if manual else theme.PANEL_HI
                p.fill(cell, bg, 4)
                p.text(f"{label} {where}", inset(cell, 2, 1), cell.height,
                       bold=True, color=theme.TEXT_DARK if manual else theme.TEXT,
                       role=f"recall.deal.{i}")
        dlabel, dcards = cols(dealer_r, [1, 3], 6)
        p.text(tr("word.dealer"), dlabel, int(dlabel.height * 0.3), bold=True,
               color=theme.GOLD, align="left", role="recall.dealer")
        self.art.row(p.surface, dcards, tuple(rr.dealer_cards), align="left")
        # seats table
        lines = rows(table_r, [1] * (nseats + 1), 1)
        widths = [0.55, 1.25, 3.0, 0.9, 1.2]
        headers = [tr("word.seat"), "", tr("recall.bets"), tr("recall.decision"),
                   tr("word.net")]
        for hd, cell in zip(headers, cols(lines[0], widths, 4), strict=True):
            p.text(hd, cell, cell.height, bold=True, color=theme.TEXT_DIM, align="left",
                   role="recall.th")
        # one size per column, so the table reads as a table
        texts = []
        outcomes = om.on(rr)
        for s in rr.seats:
            bets = "  ".join(tr("short." + k) if outcomes else f"{tr('short.' + k)} "
                             f"{format_money(v)}" for k, v in s.bets.items())
            if outcomes and s.results:  # each bet's outcome: "A 1:1  PP 30:1  P loses"
                bets = om.recall_results(tr, s)
            dec = {"play": tr("btn.play"), "fold": tr("btn.fold")}.get(s.decision or "", "")
            net = format_money(s.net, sign=True) if s.net is not None else ""
            if outcomes and s.net is not None:
                net = om.seat_summary(tr, s, rr.status == "void")[0]
            texts.append([str(s.seat), " ".join(card_label(c) for c in s.cards if c), bets,
                          dec, net])
        shape = cols(lines[1], widths, 4) if len(lines) > 1 else []
        sizes = [p.common_size([t[j] for t in texts], shape[j], int(shape[j].height * 0.8),
                               bold=j in (0, 4)) for j in range(len(shape))]
        for s, row, line in zip(rr.seats, texts, lines[1:], strict=False):
            cells = cols(line, widths, 4)
            for j, (text, cell) in enumerate(zip(row, cells, strict=True)):
                color = theme.TEXT
                if j == 4 and s.net is not None:
                    color = theme.WIN if s.net > 0 else theme.LOSE if s.net < 0 else theme.PUSH
                    if outcomes:
                        color = om.seat_summary(tr, s, rr.status == "void")[1]
                p.text(text, cell, sizes[j], bold=j in (0, 4), color=color, align="left",
                       role=("recall.seat", "recall.cards", "recall.bets", "recall.decision",
                             "recall.net")[j])

    def _meters(self, p: Painter, body: pygame.Rect, view: DealerView, gap: int) -> None:
        tr = self.tr
        if view.outcome_meters:  # rounds dealt as outcomes: counted apart, without money
            if view.meters:  # and rounds dealt in amounts before: both tables
                body, out_r = rows(body, [len(view.meters) + 2.6, om.meter_lines(view)], gap)
            else:
                body, out_r = None, body
            p.fill(out_r, theme.PANEL, 10)
            p.outline(out_r, theme.GOLD_DARK, 1, 10)
            om.draw_meters(p, inset(out_r, max(6, out_r.width // 60)), view, tr)
            if body is None:
                return
        p.fill(body, theme.PANEL, 10)
        p.outline(body, theme.GOLD_DARK, 1, 10)
        p.region("meters", body)
        inner = inset(body, max(6, body.width // 60))
        n = len(view.meters)
        title_r, table_r = rows(inner, [1.6, n + 1], gap)
        p.text(tr("screen.meters"), title_r, title_r.height, bold=True, color=theme.GOLD,
               align="left", role="meters.title")
        lines = rows(table_r, [1] * (n + 1), 1)
        widths = [1.6, 1.2, 1.2, 1.2, 1.2, 0.8]
        heads = ["meter.name", "meter.wagered", "meter.paid", "meter.won", "meter.net",
                 "meter.rounds"]
        for hk, cell in zip(heads, cols(lines[0], widths, 6), strict=True):
            p.text(tr(hk), cell, int(cell.height * 0.8), bold=True, color=theme.TEXT_DIM,
                   align="left" if hk == "meter.name" else "right", role="meters.th")
        for i, (m, line) in enumerate(zip(view.meters, lines[1:], strict=False)):
            if i % 2 == 0:
                p.fill(line, theme.PANEL_HI, 3)
            total = m.name == "total"
            if m.name.startswith("seat "):
                name = tr("word.seat_n", seat=m.name[5:])
            elif total:
                name = tr("word.total")
            else:
                name = tr.bet(m.name)
            cells = cols(line, widths, 6)
            vals = [name, format_money(m.wagered), format_money(m.paid), format_money(m.won),
                    format_money(m.net, sign=True), str(m.rounds)]
            for j, (v, cell) in enumerate(zip(vals, cells, strict=True)):
                color = theme.GOLD if total else theme.TEXT
                p.text(v, inset(cell, 3, 0), int(cell.height * 0.72), bold=total or j == 0,
                       color=color, align="left" if j == 0 else "right", role="meters.cell")
