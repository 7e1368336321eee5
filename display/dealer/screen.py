"""The dealer-facing screen: run the round from a touchscreen, a mouse or the keyboard.

:meth:`DealerScreen.draw` only reads the newest view and the screen's own state and
returns a :class:`~display.painter.Frame` of every button (rectangle, typed action, keys);
:meth:`DealerScreen.handle` applies one event's button to that state and returns the
commands to post. It never calls the controller nor waits. Every action has a key, printed
on its button (README, "Screens"); pads take digits, ``Backspace``, ``Enter``, card ranks
``A K Q J T 9``-``2`` and suits ``S H D C``.
"""

from __future__ import annotations

import logging

import pygame

from controller.game import inputs
from controller.game.config import PIN_MAX_DIGITS, PIN_MIN_DIGITS
from controller.game.refusals import invalid_input
from controller.game.views import Banner, DealerView
from display import theme
from display.cards import CardArt
from display.common import felt
from display.dealer import actions
from display.dealer.alarms import alarm_tick, draw_alarms, own_alarms
from display.dealer.chips import draw_chip_tray, undo_target
from display.dealer.draw import Ctx
from display.dealer.hand import draw_dealer
from display.dealer.header import LINK_DOWN, draw_header
from display.dealer.input import InputGuard, Presses, key_name, tap_pos
from display.dealer.layout import layout
from display.dealer.locks import PadShadow, locked_key
from display.dealer.meters import draw_meters
from display.dealer.next_action import draw_next_action
from display.dealer.pads import draw_pad, pad_rect, supervisor_command
from display.dealer.payouts import mark_paid
from display.dealer.recall import draw_recall
from display.dealer.seat import draw_seat
from display.dealer.state import (
    ANSWER_SECONDS,
    ARM_SECONDS,
    REJECTED,
    DealerUI,
    Sent,
    chip_in_use,
    focus_seat,
    lock_left,
    needs_ante,
    next_round_open,
    payout_seats,
    primary_step,
    seat_view,
    shown_refusal,
    sync,
    undecided,
)
from display.dealer.tools import draw_records_tabs, draw_tools
from display.dealer.undo import BET_COMMANDS
from display.i18n import Translator
from display.painter import Button, Frame, Painter, inset
from display.theme import FontBook

log = logging.getLogger(__name__)
FLASH_SECONDS = 0.18
"""How long a pressed button shows it was pressed."""
CORNER_RANK_FROM = 120
"""Cards this tall or taller print their rank in the corner; smaller ones rank over suit."""
STEP_KEYS = frozenset({"n", "r", "s", "g", "return"})
"""The keys of the round's steps: pressed when they do nothing, the screen says why."""
COMMAND_ACTIONS = (inputs.DealerCommand, actions.AddChip, actions.PlayRest, actions.Undo,
                   actions.PadSend)
"""Actions that post commands (held by the input guard while the last one is unanswered)."""


class DealerScreen:
    """Draws dealer views and turns touches, clicks and keys into dealer commands."""

    def __init__(self, fonts: FontBook, lang: str = "en") -> None:
        self.fonts = fonts
        self.art = CardArt(fonts, compact_below=CORNER_RANK_FROM)
        self.tr = Translator(lang)
        self.ui = DealerUI()
        self._presses = Presses()
        self._guard = InputGuard()
        self._shadow = PadShadow()

    # -- what the screen makes of a view ----------------------------------------------------

    def chip(self, view: DealerView) -> int:
        """The chip value in use."""
        return chip_in_use(view, self.ui)

    def selected_seat(self, view: DealerView) -> int | None:
        """The seat the screen names and the seat keys act on (outlined)."""
        return focus_seat(view, self.ui)

    def animation_key(self, view: DealerView, now: float) -> tuple[object, ...]:
        """What moves on screen now; the screen is drawn again when it changes."""
        ui = self.ui
        return (int(now * 2) if view.link_state in LINK_DOWN else 0, now < ui.flash[1],
                shown_refusal(view, ui, now) is not None,
                lock_left(view, ui, now),  # the lockout counts down on every screen
                ui.sent is not None and now - ui.sent.at > ANSWER_SECONDS,
                alarm_tick(view, now, len(own_alarms(view, ui, now))))

    def armed(self, now: float) -> bool:
        """A press is taken now: not just after the large button changed or a pad closed."""
        return now - self.ui.primary[1] >= ARM_SECONDS and not self._shadow.guarding(now)

    def needs_animation(self, view: DealerView, now: float) -> bool:
        """Whether something moves now (feedback, a blinking alarm, a timed message)."""
        return any(self.animation_key(view, now))

    # -- input ------------------------------------------------------------------------------

    def handle(self, event: pygame.event.Event, frame: Frame | None, view: DealerView,
               now: float = 0.0) -> list[inputs.DealerCommand | inputs.Checked]:
        """Apply one pygame event on ``frame`` (drawn from ``view``); the commands to post.

        ``now`` is monotonic seconds. A bounce is ignored silently. A tap on an older frame,
        a command while the last is unanswered, the large button just changed (or stale)
        and a bet tapped where a pad just closed are dropped, and the refusal line says so.
        """
        if frame is None:
            return []
        sync(self.ui, view, now, self.tr)
        button = self._presses.button(event, frame, now)
        guard = self._guard
        if button is None and event.type == pygame.KEYDOWN:
            self._key_refused(key_name(event), frame, view, now)
        if button is None:
            if self._presses.copy:  # a copy's time is its kind's last tap, for bounces
                guard.bounce(event, frame, now)
            return []
        if guard.bounce(event, frame, now):
            self._presses.bounced()
            return []  # a bounce stays silent
        if self._shadow.holds(button.action, tap_pos(event, frame), now):  # a PIN by habit
            self.ui.own_refusal = (Banner(REJECTED, message=self.tr("refusal.tap_after_pad")),
                                   now)
            return []
        left = frame.notes.get("step") != (view.round_id, view.state)
        if guard.stale(event, frame, view.version) or (button.id == "primary" and (
                left or now - self.ui.primary[1] < ARM_SECONDS)) or (isinstance(
                button.action, COMMAND_ACTIONS) and guard.waiting(view.version, now)):
            # a tap on what has changed since it was drawn, a second tap on the large
            # button, a command before the table answered the last: dropped, and said so
            return self._dropped(button, now)
        self.ui.flash = (button.id, now + FLASH_SECONDS)
        self.ui.own_refusal = None  # read
        if view.refusal_seq is not None:
            self.ui.refusal_read = view.refusal_seq
        cmds = self._act(button.action, view, now)
        if cmds:
            guard.posted(view.version, now)
        return cmds

    def _dropped(self, button: Button, now: float) -> list[inputs.DealerCommand]:
        """A press the screen drops says so on the refusal line (and in the log)."""
        text = self.tr("refusal.tap_dropped", button=button.label or button.id)
        self.ui.own_refusal = (Banner(REJECTED, message=text), now)
        log.info("dealer screen: a press on %s dropped: the screen had just changed", button.id)
        return []

    def _key_refused(self, key: str, frame: Frame, view: DealerView, now: float) -> None:
        """A key that does nothing now says why (the lock's time left, or the step there is)."""
        ui = self.ui
        if held := locked_key(self.tr, frame, key, view, lock_left(view, ui, now)):
            ui.own_refusal = (held, now)
        if held or key not in STEP_KEYS or ui.pad or ui.screen != "main" or (
                self._shadow.guarding(now)):  # just after a pad closed: the PIN's Enter
            return
        step = primary_step(view, ui)
        words = self.tr(step.label, **step.params)
        if step.action is not None and step.enabled and step.keys:
            words += f" ({self.tr.key(step.keys[0])})"
        text = self.tr("refusal.key_not_now", pressed=self.tr.key(key), step=words)
        ui.own_refusal = (Banner(REJECTED, message=text), now)

    def _act(self, action: object, view: DealerView, now: float) -> list[inputs.DealerCommand]:
        ui = self.ui
        bet = action if isinstance(action, actions.AddChip) else (
            action if isinstance(action, inputs.MarkBet) and action.on else None)
        refused = needs_ante(view, bet.seat, bet.bet) if bet is not None else None
        if refused is not None:  # a Pair Plus with no Ante: refused when put down
            ui.selected_seat, ui.own_refusal = bet.seat, (refused, now)  # type: ignore[union-attr]
            return []
        if isinstance(action, inputs.DealerCommand):
            return self._command(action, view)
        if isinstance(action, actions.AddChip):
            ui.selected_seat = action.seat
            return self._command(inputs.PlaceBet(seat=action.seat, bet=action.bet,
                                            amount=self.chip(view)), view)
        if isinstance(action, actions.PlayRest):
            out: list[inputs.DealerCommand] = []
            for seat in undecided(view, ui):
                out += self._command(inputs.Decide(seat=seat, decision="play"), view)
            return out + (self._command(inputs.Reveal(), view) if action.reveal else [])
        if isinstance(action, actions.Undo):
            if view.state == "betting":
                cmds = ui.undo.take(view)  # posted as they are: Undo is not undone
                ui.posted_version = view.version if cmds else ui.posted_version
                return cmds
            return [c for t in undo_target(view, ui) for c in self._command(t, view)]
        if isinstance(action, actions.SelectSeat):
            if view.state == "deciding":
                ui.decide_seat = action.seat
                if (seat_view(view, action.seat).decision
                        and inputs.UndoDecision.name in view.allowed):  # its digit again: undo
                    return self._command(inputs.UndoDecision(seat=action.seat), view)
            else:
                ui.selected_seat = action.seat
        elif isinstance(action, actions.PickChip):
            ui.chip = action.value
        elif isinstance(action, actions.Show):
            ui.screen = action.screen
            if action.screen == "recall":  # the last round that ended, not one being dealt
                ui.recall_index = next((i for i, r in enumerate(view.recall)
                                        if r.status in ("settled", "void")), 0)
        elif isinstance(action, actions.ShowRecall):
            ui.recall_index = max(0, min(action.index, len(view.recall) - 1))
        elif isinstance(action, actions.MarkPaid):
            mark_paid(ui.paid, action.seat)
            ui.ticked = action.seat
        elif isinstance(action, actions.AllPaid):
            ui.paid.update(payout_seats(view))
            if action.next_round and next_round_open(view):
                return self._command(inputs.NextRound(), view)
        elif isinstance(action, actions.DismissRefusal):
            ui.refusal_read = view.refusal_seq
        else:
            return self._pad(action, view, now)
        return []

    def _command(self, cmd: inputs.DealerCommand, view: DealerView) -> list[inputs.DealerCommand]:
        """Post a command; remember what Undo and fast keys need."""
        ui = self.ui
        ui.posted_version = view.version
        if isinstance(cmd, inputs.Decide):
            ui.pending[cmd.seat] = cmd.decision
            ui.decided.append(cmd.seat)
            ui.decide_seat = None
        elif isinstance(cmd, inputs.UndoDecision):
            ui.decided = [s for s in ui.decided if s != cmd.seat]
        elif isinstance(cmd, BET_COMMANDS) and cmd.seat:
            ui.selected_seat = cmd.seat  # the outline follows the seat last touched
        ui.undo.posted(cmd, view)
        return [cmd]

    def _pad(self, action: object, view: DealerView,
             now: float) -> list[inputs.DealerCommand | inputs.Checked]:
        ui = self.ui
        if isinstance(action, actions.OpenPad):
            ui.reset_pad()
            ui.sent = None
            ui.pad_action = action.command
            ui.pad = {inputs.VoidRound.name: "reason", inputs.ManualCard.name: "card"}.get(
                action.command, "pin")
        elif isinstance(action, actions.PadReason):
            ui.reason, ui.pad = action.key, "pin"
        elif isinstance(action, actions.PadRank):
            ui.card_rank = action.rank
        elif isinstance(action, actions.PadSuit):
            ui.card_suit = action.suit
        elif isinstance(action, actions.PadCardDone):
            if ui.card_rank and ui.card_suit:
                ui.pad = "pin"
        elif isinstance(action, actions.PadDigit):
            if len(ui.pin) < PIN_MAX_DIGITS:
                ui.pin += action.digit
        elif isinstance(action, actions.PadDelete):
            ui.pin = ui.pin[:-1]
        elif isinstance(action, actions.PadCancel):
            ui.reset_pad()
            ui.sent = None
        elif isinstance(action, actions.PadSend) and len(ui.pin) >= PIN_MIN_DIGITS:
            return self._send(view, now)
        return []

    def _send(self, view: DealerView, now: float) -> list[inputs.Checked]:
        """The supervisor action with its PIN, checked against its declaration."""
        ui = self.ui
        cmd = supervisor_command(ui)
        if cmd is None:
            return []
        try:
            sent = inputs.check(cmd)
        except inputs.InputError as exc:  # the pad says why in words, never the checker's text
            ui.error, ui.pin = self.tr.refusal(invalid_input(cmd.name, str(exc))), ""
            return []
        ui.sent = Sent(cmd.name, ui.reason, ui.card_rank, ui.card_suit, view.version,
                       view.refusal_seq, now)
        ui.pad, ui.pin, ui.error = "wait", "", ""
        ui.posted_version = view.version
        return [sent]

    # -- drawing ----------------------------------------------------------------------------

    def draw(self, surface: pygame.Surface, view: DealerView, now: float = 0.0) -> Frame:
        """Draw one frame (800x480 to 3840x2160, either way up); ``now``: monotonic seconds."""
        ui = self.ui
        sync(ui, view, now, self.tr)
        w, h = surface.get_size()
        main = ui.screen == "main"
        dealt = main and view.state != "betting"
        lay = layout((w, h), len(view.seats), min(len(view.chip_values), 5), with_dealer=dealt,
                     in_play=tuple(bool(s.bets or s.cards) for s in view.seats) if dealt
                     else ())
        p = Painter(surface, self.fonts, min_text=lay.scale.small, tr=self.tr)
        surface.blit(felt((w, h), surface), (0, 0))
        c = Ctx(p, view, ui, self.tr, self.art, lay, now)
        self._shadow.watch(view, ui.pad is not None, pad_rect(c), now)
        focus = focus_seat(view, ui)
        p.frame.notes.update(mode=ui.screen, pad=ui.pad, portrait=lay.portrait,
                             selected_seat=focus, chip=self.chip(view),
                             step=(view.round_id, view.state), version=view.version)
        draw_next_action(c, primary=main)
        draw_header(c, lay.header)
        draw_alarms(c)
        if main:
            if lay.dealer is not None:
                draw_dealer(c, lay.dealer)
            for seat, cell in zip(view.seats, lay.seats, strict=False):
                draw_seat(c, cell, seat, seat.seat == focus, lay.seat_rows)
                if seat.seat <= 9 and view.state in ("betting", "deciding"):
                    p.frame.buttons.append(Button(f"seat.{seat.seat}.select",
                                                  pygame.Rect(cell.topleft, (0, 0)),
                                                  str(seat.seat), actions.SelectSeat(seat.seat),
                                                  (str(seat.seat),)))
            draw_chip_tray(c)
            draw_tools(c)
        else:
            label = self.tr({"recall": "screen.recall", "outcomes": "btn.outcome_meters"}.get(
                ui.screen, "screen.meters"))
            p.fill(lay.primary, theme.RECALL, max(4, lay.scale.px(6)))
            p.text(label, inset(lay.primary, lay.scale.px(8)), lay.scale.large, bold=True,
                   color=theme.TEXT_DARK, role="primary.status")
            (draw_recall if ui.screen == "recall" else draw_meters)(c)
            draw_records_tabs(c)
        if ui.pad:
            draw_pad(c)
        return p.frame
