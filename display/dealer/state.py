"""The dealer screen's own state (:class:`DealerUI`: what the table does not remember).

The functions read a view with it and say what the screen offers (the seat it names, the
large button's step, the next seat to pay, the refusal on show); they never change the
table, and :func:`sync` brings the state up to a newer view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.game import inputs
from controller.game.bet_types import ANTE
from controller.game.round import RoundState
from controller.game.views import Banner, DealerView, SeatView
from display import outcome_mode as om
from display.dealer.actions import Action, OpenPad, PlayRest
from display.dealer.locks import close_left_pad, pin_asked
from display.dealer.undo import UndoLog
from display.i18n import Translator

ARM_SECONDS = 0.5
"""A large button that changed takes no tap for this long (a double Reveal never settles)."""
ANSWER_SECONDS = 3.0
"""How long a PIN pad's action waits for a refusal that opens the pad again as typed."""
READ_SECONDS = (3.0, 0.06, 10.0)
"""A refusal stays on show (minimum, per character, maximum) seconds, or until a press."""
REJECTED = "rejected"
"""The banner kind of a refusal."""
PAYING = frozenset({RoundState.SETTLED.value, RoundState.VOID.value})
"""States whose payout list the dealer ticks off."""


@dataclass(slots=True)
class Sent:
    """A supervisor action sent from the pads, waiting for the table's answer.

    ``refusal`` is the journal seq of the refusal on show when sent; ``at`` is monotonic
    seconds.
    """

    command: str
    reason: str | None
    card_rank: str | None
    card_suit: str | None
    version: int
    refusal: int | None
    at: float


@dataclass(slots=True)
class DealerUI:
    """The dealer screen's own state (never game state); times are monotonic seconds.

    Attributes:
        pad: the open pad: None, ``reason``, ``card``, ``pin`` or ``wait`` (sent, waiting
            for the table's answer).
        pad_seen: the pad's action was accepted on a view seen while it was open (the pad
            closes when the action leaves them).
        chip: the chip in use, minor units (None: the smallest).
        pending: seat -> decision posted but not yet in the view (fast keys).
        refusal_read: the journal seq of the refusal read (not shown again).
        own_refusal: a refusal the screen gave itself (a side bet on a seat with no
            Ante), and when; a press reads it.
        lock_seen: (view version, milliseconds locked, when first seen).
        notices: the screens' own alarms (the player screen missing), after the table's.
    """

    screen: str = "main"
    pad: str | None = None
    pad_action: str | None = None
    reason: str | None = None
    card_rank: str | None = None
    card_suit: str | None = None
    pin: str = ""
    error: str = ""
    pad_seen: bool = False
    sent: Sent | None = None
    selected_seat: int | None = None
    decide_seat: int | None = None
    chip: int | None = None
    recall_index: int = 0
    flash: tuple[str, float] = ("", 0.0)
    undo: UndoLog = field(default_factory=UndoLog)
    decided: list[int] = field(default_factory=list)
    pending: dict[int, str] = field(default_factory=dict)
    posted_version: int = -1
    paid: set[int] = field(default_factory=set)
    ticked: int = 0
    round_key: tuple[int, str] | None = None
    refusal_read: int | None = None
    refusal_since: tuple[int, float] | None = None
    own_refusal: tuple[Banner, float] | None = None
    primary: tuple[Any, float] = (None, 0.0)
    lock_seen: tuple[int, int, float] = (-1, 0, 0.0)
    notices: tuple[Banner, ...] = ()

    def reset_pad(self) -> None:
        """Close the pads and forget what was typed on them."""
        self.pad = self.pad_action = self.reason = self.card_rank = self.card_suit = None
        self.pin = self.error = ""
        self.pad_seen = False


@dataclass(frozen=True, slots=True)
class Step:
    """What the large button offers: a status (no ``action``) or a button and its keys."""

    label: str
    action: Action | None = None
    keys: tuple[str, ...] = ()
    enabled: bool = False
    pin: bool = False
    params: dict[str, Any] = field(default_factory=dict)


def sync(ui: DealerUI, view: DealerView, now: float, tr: Translator | None = None) -> None:
    """Bring the screen's state up to ``view`` (a new round, state or answer).

    A new round forgets the last one's chips, decisions, ticks and seat; a new state the
    deciding seat. A refused supervisor action opens its pad again with what was typed (not
    the PIN) and why, in ``tr``'s words; any other answer closes it.
    """
    key = (view.round_id, view.state)
    if ui.round_key is None or ui.round_key[0] != key[0]:
        ui.selected_seat = None  # a new round starts on the first seat, as a table does
        ui.paid.clear()
        ui.ticked = 0
        ui.undo.clear()
        ui.decided.clear()
    if ui.round_key != key:
        ui.decide_seat = None
        ui.pending.clear()
    ui.round_key = key
    if view.version != ui.posted_version:
        ui.pending.clear()
    ui.undo.seen(view)
    if view.refusal_seq is not None and view.refusal_seq != ui.refusal_read and (
            ui.refusal_since is None or ui.refusal_since[0] != view.refusal_seq):
        ui.refusal_since = (view.refusal_seq, now)
    if ui.lock_seen[:2] != (view.version, view.pin_locked_ms):
        ui.lock_seen = (view.version, view.pin_locked_ms, now)
    close_left_pad(ui, view, now)
    sent = ui.sent
    if sent is None:
        return
    refusal = refusal_banner(view)
    if (refusal is not None and view.refusal_seq != sent.refusal
            and refusal.params.get("input") == sent.command):
        ui.reset_pad()
        ui.pad, ui.pad_action = "pin", sent.command
        ui.reason, ui.card_rank, ui.card_suit = sent.reason, sent.card_rank, sent.card_suit
        ui.error = tr.rejection(refusal) if tr is not None else refusal.message
        ui.refusal_read = view.refusal_seq  # told on the pad, where the eye is
        ui.sent = None
    elif view.version != sent.version or now - sent.at > ANSWER_SECONDS:
        if ui.pad == "wait":
            ui.reset_pad()
        if now - sent.at > ANSWER_SECONDS:
            ui.sent = None


def refusal_banner(view: DealerView) -> Banner | None:
    """The refusal the view carries, if any."""
    for b in view.banners:
        if b.kind == REJECTED:
            return b
    return None


def shown_refusal(view: DealerView, ui: DealerUI, now: float) -> Banner | None:
    """The refusal to show now, not yet read nor past its reading time (the screen's first)."""
    own = ui.own_refusal
    if own is not None and now - own[1] <= read_time(own[0].message):
        return own[0]
    b = refusal_banner(view)
    since = ui.refusal_since
    if b is None or since is None or since[0] != view.refusal_seq or (
            view.refusal_seq == ui.refusal_read):
        return None
    return None if now - since[1] > read_time(b.message) else b


def lock_left(view: DealerView, ui: DealerUI, now: float) -> int:
    """Whole seconds PIN entry stays locked, counted down since the screen saw the view."""
    _, ms, seen = ui.lock_seen
    left = ms - round((now - seen) * 1000)
    return max(0, -(-left // 1000)) if ms else 0


def undecided(view: DealerView, ui: DealerUI) -> list[int]:
    """Seats with an Ante and no decision (nor one just posted), in seat order."""
    return [s.seat for s in view.seats
            if s.bets.get(ANTE) and not s.decision and s.seat not in ui.pending]


def payout_seats(view: DealerView) -> list[int]:
    """Seats with something to pay, take or return, in seat order."""
    if view.state not in PAYING:
        return []
    return [s.seat for s in view.seats if s.results]


def seat_verb(view: DealerView, seat: SeatView) -> str:
    """What the dealer does at a settled or void seat: ``pay``, ``take`` or ``return``.

    A void returns every wager; amounts follow the seat's net; outcomes pay when a bet
    wins, return when none wins and one pushes or is refunded, else take.
    """
    if view.state == RoundState.VOID.value:
        return "return"
    if om.on(view):
        outcomes = {r.outcome for r in seat.results}
        if "win" in outcomes:
            return "pay"
        return "return" if outcomes & {"push", "refund"} else "take"
    net = seat.net or 0
    return "pay" if net > 0 else "take" if net < 0 else "return"


def next_to_pay(view: DealerView, ui: DealerUI) -> int | None:
    """The next seat not ticked as paid, to the right of the one ticked last (wrapping)."""
    left = [s for s in payout_seats(view) if s not in ui.paid]
    return next((s for s in left if s > ui.ticked), left[0] if left else None)


def seat_view(view: DealerView, number: int) -> SeatView:
    """The view of seat ``number``; KeyError if the table has none."""
    for s in view.seats:
        if s.seat == number:
            return s
    raise KeyError(f"no seat {number}")


def focus_seat(view: DealerView, ui: DealerUI) -> int | None:
    """The seat the screen names and outlines, and the seat keys act on.

    Deciding: the seat chosen by its digit, else the next undecided one to the right of
    the last decided, wrapping (never back to an earlier seat).
    """
    numbers = [s.seat for s in view.seats]
    if view.state == "deciding":
        waiting = undecided(view, ui)
        if ui.decide_seat in {s.seat for s in view.seats if s.bets.get(ANTE)}:
            return ui.decide_seat  # chosen by its digit, decided or not (Undo acts on it)
        after = ui.decided[-1] if ui.decided else 0
        return next((s for s in waiting if s > after), waiting[0] if waiting else None)
    if view.state in PAYING:
        return next_to_pay(view, ui)
    due = view.next_card or view.waiting_card
    if due is not None:  # dealing: the seat the next card goes to
        return due[0] if due[0] > 0 else None
    if view.state == "betting":
        if ui.selected_seat in numbers:
            return ui.selected_seat
        return numbers[0] if numbers else None
    return None


def chip_in_use(view: DealerView, ui: DealerUI) -> int:
    """The chip value in use (the smallest until one is picked)."""
    chips = view.chip_values or (100,)
    return ui.chip if ui.chip in chips else chips[0]


def _pad_step(label: str, command: type[inputs.DealerCommand], key: str) -> Step:
    return Step(label, OpenPad(command.name), (key, "return"), True, pin=True)


def _command_step(view: DealerView, command: inputs.DealerCommand, key: str) -> Step:
    if pin_asked(view, command.name):
        return _pad_step(f"btn.{command.name}", type(command), key)
    return Step(f"btn.{command.name}", command, (key, "return"), command.name in view.allowed)


def primary_step(view: DealerView, ui: DealerUI) -> Step:
    """The one step the large button offers: the one the table will accept now.

    Undecided seats: play the rest (folds come first). A status, not a button, when no
    press can move the round on (cards due, the shoe link down, seats to pay).
    """
    state, allowed = view.state, view.allowed
    if state == "locked":  # the line above it says to wait, or to call a technician
        return Step("status.journal_fault" if view.next_action_key == "journal_fault"
                    else "status.locked")
    if state == "paused":
        if inputs.ManualCard.name in allowed:
            return _pad_step("btn.manual_card", inputs.ManualCard, "f10")
        if inputs.Resume.name in allowed:
            return _command_step(view, inputs.Resume(), "f5")
        return Step("status.shoe" if view.link_state != "online" else "status.waiting")
    if state == "betting":
        if view.deck_blocked and inputs.UnblockDeck.name in allowed:
            return _pad_step("btn.unblock_deck", inputs.UnblockDeck, "f11")
        return Step("btn.no_more_bets", inputs.NoMoreBets(), ("n", "return"),
                    inputs.NoMoreBets.name in allowed)
    if state in ("no_more_bets", "dealing"):
        return Step("status.dealing")
    if state == "deciding":
        waiting = undecided(view, ui)
        if waiting and inputs.Decide.name in allowed:
            if om.on(view):  # outcome mode: the rest play and the cards turn, one touch
                return Step("btn.play_rest_reveal", PlayRest(reveal=True), ("return",), True,
                            params={"n": len(waiting)})
            return Step("btn.play_rest", PlayRest(), ("shift+y", "return"), True,
                        params={"n": len(waiting)})
        return Step("btn.reveal", inputs.Reveal(), ("r", "return"),
                    inputs.Reveal.name in allowed and not ui.pending)
    if state == "reveal":
        return _command_step(view, inputs.Settle(), "s")
    if state in PAYING:
        seat = next_to_pay(view, ui)
        if seat is not None:
            return Step(f"status.{seat_verb(view, seat_view(view, seat))}",
                        params={"seat": seat})
        if inputs.NextRound.name in allowed:
            return _command_step(view, inputs.NextRound(), "g")
    return Step("status.waiting")


def needs_ante(view: DealerView, seat: int, bet: str) -> Banner | None:
    """The refusal of a side bet that needs an Ante put down where none is, or None."""
    if bet not in view.paytables.need_ante or seat_view(view, seat).bets.get(ANTE):
        return None
    code = f"{bet}_needs_ante"
    return Banner(REJECTED, message=code, params={"code": code, "seat": str(seat),
                                                  "input": inputs.PlaceBet.name})


def next_round_open(view: DealerView) -> bool:
    """The next round opens on a press, no PIN asked (so All paid may open it)."""
    return inputs.NextRound.name in view.allowed and not pin_asked(view, inputs.NextRound.name)


def read_time(text: str) -> float:
    """Seconds a refusal of ``text`` stays on show."""
    lo, per, hi = READ_SECONDS
    return min(hi, lo + per * len(text))
