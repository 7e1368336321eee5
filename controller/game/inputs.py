"""Every input that can reach the table's journal, declared once.

A dealer command is a strict, frozen :class:`msgspec.Struct` (its tag is its journal
``kind``; fields, ranges and the role it needs declared here); a shoe event's record is
the event itself (:mod:`controller.game.events`). An input is checked once, where it
enters (a control line's decoding or :func:`check`, passed on as :class:`Checked`; else
:func:`journal_record`); the record checked is the one the journal encodes and the game
applies. Journal bodies and their history: docs/journal-format.md.
"""

from __future__ import annotations

import enum
import json
import typing
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

import msgspec
from msgspec import Meta, Struct

from controller.game import events as ev
from controller.game.bet_types import PLACED
from controller.game.clock_steps import CLOCK_STEP, ClockStep
from controller.game.config import (
    BET_ENTRIES,
    DEAL_PATTERNS,
    EXPOSED_CARD_POLICIES,
    MAX_AMOUNT,
    MAX_BURN_CARDS,
    MAX_LOCKOUT_AFTER,
    MAX_LOCKOUT_SECONDS,
    MAX_PROFILE_BYTES,
    MAX_SEATS,
    MIN_AMOUNT,
    MIN_LOCKOUT_AFTER,
    MIN_LOCKOUT_SECONDS,
    MIN_SEATS,
    PIN_MAX_DIGITS,
    PIN_MIN_DIGITS,
    RENAMED,
    setting_problem,
)
from controller.game.fault_record import DEVICE, JOURNAL_FAULT, DeviceRecord, JournalFault
from controller.game.power_up import (
    MAX_NAMED_FILES,
    EnvironmentRecord,
    Screens,
    Software,
    Startup,
)
from controller.game.text import SAFE_TEXT_PATTERN

MAX_REASON = 200
"""The longest reason text of a void or a deck unblock, characters (no control character:
:mod:`controller.game.text`)."""
MAX_CARD_TEXT = 8
"""The longest card text (``As``, ``10h``, `` qs ``), characters."""
MAX_SETTING_NUMBER = 10**9
"""The largest whole-number value of a setting change."""
MAX_SETTING_TEXT = 256
"""The longest text value of a setting change (a profile name or path), characters."""


class Role(enum.Enum):
    """Who may give a command, lowest to highest (docs/requirements.md R12).

    A role satisfies the roles below it: a technician may do what a supervisor may.
    """

    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    TECHNICIAN = "technician"

    @property
    def rank(self) -> int:
        """0 for the dealer, 1 for a supervisor, 2 for a technician."""
        return _RANKS[self]


_RANKS = {r: i for i, r in enumerate(Role)}


class InputError(ValueError):
    """An input that fails its declaration; the message names the field."""


def failed(exc: Exception, prefix: str = "") -> InputError:
    """An InputError of msgspec's message (``prefix: `` before it), a pattern in words."""
    text = str(exc).replace(f"matching regex {SAFE_TEXT_PATTERN!r}",
                            "without control characters")
    return InputError(f"{prefix}: {text}" if prefix else text)


#: setting -> its values: a tuple of the texts allowed, a range of whole numbers, or str
#: (the settings a ``config_change`` may set, :data:`controller.game.config.CHANGEABLE`)
SETTINGS: dict[str, tuple[str, ...] | range | type] = {
    "deal_pattern": DEAL_PATTERNS,
    "burn_cards": range(0, MAX_BURN_CARDS + 1),
    "exposed_card": EXPOSED_CARD_POLICIES,
    "lockout_after": range(MIN_LOCKOUT_AFTER, MAX_LOCKOUT_AFTER + 1),
    "lockout_seconds": range(MIN_LOCKOUT_SECONDS, MAX_LOCKOUT_SECONDS + 1),
    "rules": str,
    "bet_entry": BET_ENTRIES,
}


def _check_setting(key: str, value: object) -> None:
    """Raise InputError when ``value`` is not one of the setting's.

    The check is the configuration's own (:func:`controller.game.config.setting_problem`);
    a setting's name in the configuration's journal form version 1
    (:data:`controller.game.config.RENAMED`) is read too.
    """
    name = RENAMED.get(key, key)
    problem = setting_problem(name, value)
    if problem:
        raise InputError(f"bad value for {name}: {problem} - at `$.value`")


Seat = Annotated[int, Meta(ge=MIN_SEATS, le=MAX_SEATS)]
SeatOrEvery = Annotated[int, Meta(ge=0, le=MAX_SEATS)]
Amount = Annotated[int, Meta(ge=MIN_AMOUNT, le=MAX_AMOUNT)]
Pin = Annotated[str, Meta(pattern=f"^[0-9]{{{PIN_MIN_DIGITS},{PIN_MAX_DIGITS}}}\\Z")]
Reason = Annotated[str, Meta(max_length=MAX_REASON, pattern=SAFE_TEXT_PATTERN)]
JournaledReason = Annotated[str, Meta(max_length=MAX_REASON)]
CardText = Annotated[str, Meta(min_length=2, max_length=MAX_CARD_TEXT, pattern=SAFE_TEXT_PATTERN)]
JournaledCardText = Annotated[str, Meta(min_length=2, max_length=MAX_CARD_TEXT)]
BetName = Literal[PLACED]  # type: ignore[valid-type]
BET_NAMES: tuple[str, ...] = typing.get_args(BetName)  # chips' bets, by journal code
DecisionName = Literal["play", "fold"]
SettingNumber = Annotated[int, Meta(ge=0, le=MAX_SETTING_NUMBER)]
SettingValue = SettingNumber | Annotated[str, Meta(max_length=MAX_SETTING_TEXT,
                                                   pattern=SAFE_TEXT_PATTERN)]
#: a setting's value as journaled: an earlier version took text with control characters
JournaledSettingValue = SettingNumber | Annotated[str, Meta(max_length=MAX_SETTING_TEXT)]
#: the keys of SETTINGS, and their names in the configuration's journal form version 1
SettingKey = Literal[(*SETTINGS, *RENAMED)]  # type: ignore[valid-type]
PinRole = Literal["supervisor", "technician"]
PinHash = Annotated[str, Meta(pattern=r"^scrypt\$", max_length=512)]


class DealerCommand(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True,
                    tag_field="command"):
    """Base of every dealer command; ``pin``: the PIN typed for it (digits), else None.

    ``name`` is its tag (control line, journal ``kind``); ``needs`` the role it needs
    (``needs_when_asked`` while the table waits for a supervisor, when higher);
    ``body_type`` the record it is journaled as (itself unless declared otherwise).
    """

    name: ClassVar[str]
    needs: ClassVar[Role] = Role.DEALER
    needs_when_asked: ClassVar[Role | None] = None
    body_type: ClassVar[type[Struct]]

    pin: Pin | None = None

    def check_values(self) -> None:
        """Raise InputError for a value its type allows but the command does not."""


class PlaceBet(DealerCommand, tag="place_bet"):
    """Add ``amount`` minor units to ``bet`` (ante, pair_plus, six_card_bonus) at ``seat``."""

    seat: Seat
    bet: BetName
    amount: Amount


class MarkBet(DealerCommand, tag="mark_bet"):
    """Mark ``bet`` at ``seat`` as played (``on`` false: off); ``bet_entry = "outcomes"``."""

    seat: Seat
    bet: BetName
    on: bool = True


class ClearBets(DealerCommand, tag="clear_bets"):
    """Remove every wager of ``seat`` (betting open only)."""

    seat: Seat


class RemoveChip(DealerCommand, tag="remove_chip"):
    """Take ``amount`` minor units off ``bet`` at ``seat`` (betting open; at most the wager)."""

    seat: Seat
    bet: BetName
    amount: Amount


class Rebet(DealerCommand, tag="rebet"):
    """Place the last round's wagers again, on empty seats only (``seat`` 0: every seat)."""

    rule: ClassVar[int] = 2  # its record's rule (:data:`REBET_RULE`)
    seat: SeatOrEvery = 0


class NoMoreBets(DealerCommand, tag="no_more_bets"):
    """Close betting ("No more bets" / "Rien ne va plus"); dealing may start."""


class ReopenBets(DealerCommand, tag="reopen_bets"):
    """Open betting again after No more bets and before any card, a burn too (no void)."""

    needs = Role.SUPERVISOR


class Decide(DealerCommand, tag="decide"):
    """Record a seat's decision: ``play`` (Play equal to the Ante) or ``fold``."""

    seat: Seat
    decision: DecisionName


class UndoDecision(DealerCommand, tag="undo_decision"):
    """Take back a seat's decision before the reveal (its Play wager goes with it)."""

    seat: Seat


class Reveal(DealerCommand, tag="reveal"):
    """Turn the dealer's cards (every decision must be recorded)."""


class Settle(DealerCommand, tag="settle"):
    """Settle every seat (after the reveal) and record the results."""


class NextRound(DealerCommand, tag="next_round"):
    """Open betting for the next round (a supervisor's PIN after a void to acknowledge)."""

    needs_when_asked = Role.SUPERVISOR


class VoidRound(DealerCommand, tag="void"):
    """Void the round: every wager is returned (supervisor PIN; ``reason`` recorded)."""

    needs = Role.SUPERVISOR
    reason: Reason = ""


class ManualCard(DealerCommand, tag="manual_card"):
    """Enter a card by hand for a misread (supervisor PIN; recorded as manual)."""

    needs = Role.SUPERVISOR
    card: CardText


class UnblockDeck(DealerCommand, tag="unblock_deck"):
    """Clear a blocked deck after a duplicate or unknown card (supervisor PIN)."""

    needs = Role.SUPERVISOR
    reason: Reason = ""


class Resume(DealerCommand, tag="resume"):
    """Continue a paused or interrupted round (a supervisor PIN where the pause asks)."""

    needs_when_asked = Role.SUPERVISOR


class NewDeck(DealerCommand, tag="new_deck"):
    """A fresh deck (pack) is loaded: the seen-card inventory starts again."""


class ExposedCard(DealerCommand, tag="exposed_card"):
    """A card exposed by accident: the last one read, or the dealer's (``dealer_hand``)."""

    dealer_hand: bool = False


class ConfigChange(DealerCommand, tag="config_change"):
    """Change one setting of :data:`SETTINGS` between rounds (journaled with the old value)."""

    needs = Role.SUPERVISOR
    key: SettingKey
    value: SettingValue

    def check_values(self) -> None:
        """Raise InputError when the value is not one of the setting's."""
        _check_setting(self.key, self.value)


class ChangePin(DealerCommand, tag="change_pin"):
    """Set a role's PIN (technician PIN; the journal keeps only the salted hash)."""

    needs = Role.TECHNICIAN
    role: PinRole
    new_pin: Pin


class _Body(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of the journal bodies declared apart from their command."""

    def check_values(self) -> None:
        """Raise InputError for a value its type allows but the input does not."""


class ConfigChanged(_Body):
    """A :class:`ConfigChange` as journaled: key, new and old value (a profile: its text)."""

    key: SettingKey
    value: JournaledSettingValue
    old: JournaledSettingValue | bool | None = None
    rules_text: Annotated[str, Meta(max_length=MAX_PROFILE_BYTES)] | None = None

    def check_values(self) -> None:
        """Raise InputError when the value is not one of the setting's."""
        _check_setting(self.key, self.value)


class RebetRecord(_Body):
    """A :class:`Rebet` as journaled: seat, and rule (1: an earlier version's, replaces)."""

    seat: SeatOrEvery = 0
    rule: Annotated[int, Meta(ge=1, le=2)] = 1


class VoidRecord(_Body):
    """A :class:`VoidRound` as journaled: its reason, read as it was written."""

    reason: JournaledReason = ""


class UnblockRecord(VoidRecord):
    """The journal body of an :class:`UnblockDeck`: its reason, as :class:`VoidRecord`."""


class ManualCardRecord(_Body):
    """A :class:`ManualCard` as journaled: its card text, read as it was written."""

    card: JournaledCardText


class PinChanged(_Body):
    """The journal body of a :class:`ChangePin`: the role and its new PIN's salted hash."""

    role: PinRole
    pin_hash: PinHash


class Tick(Struct, frozen=True):
    """A clock tick for the table thread (keeps its heartbeat fresh; never journaled)."""


COMMANDS: tuple[type[DealerCommand], ...] = (
    PlaceBet, MarkBet, RemoveChip, ClearBets, Rebet, NoMoreBets, ReopenBets, Decide,
    UndoDecision, Reveal, Settle, NextRound, VoidRound, ManualCard, UnblockDeck, Resume,
    NewDeck, ExposedCard, ConfigChange, ChangePin)
"""Every dealer command, in the order the dealer meets them."""

for _c in COMMANDS:
    _c.name = _c.__struct_config__.tag  # type: ignore[assignment]
    _c.body_type = _c
ConfigChange.body_type = ConfigChanged
ChangePin.body_type = PinChanged
Rebet.body_type = RebetRecord
VoidRound.body_type, UnblockDeck.body_type = VoidRecord, UnblockRecord
ManualCard.body_type = ManualCardRecord
REBET_RULE = Rebet.rule
"""The rebet rule a :class:`Rebet` is journaled under now: fill empty seats only."""

COMMAND_NAMED: dict[str, type[DealerCommand]] = {c.name: c for c in COMMANDS}
"""Command name -> command class."""
STARTUP = "startup"
"""The journal kind of the table's power-up record."""
ENVIRONMENT = "environment"
"""The journal kind of the environment's identity, found once the table is READY."""


EVENTS: frozenset[type[ev.ShoeEvent]] = frozenset(
    cls for cls in ev._TYPE_NAMES if cls is not ev.Heartbeat)  # noqa: SLF001 - the leaf's table
"""Every shoe event that is journaled, each its own record and body declaration
(heartbeats keep the link alive and are not)."""
BURN_RULE = 2
"""The burn rule a flagged burn card is journaled under now (see the engine's docstring)."""

BODY_TYPES: dict[str, type[Struct]] = {
    **{c.name: c.body_type for c in COMMANDS},
    **{ev._TYPE_NAMES[cls]: cls for cls in EVENTS},  # noqa: SLF001
    STARTUP: Startup,
    ENVIRONMENT: EnvironmentRecord,
    CLOCK_STEP: ClockStep,
    JOURNAL_FAULT: JournalFault, DEVICE: DeviceRecord,
}
"""Journal kind -> the struct its body decodes to: the one decoder of journal bodies."""

def decode_body(kind: str, body: Any) -> Struct:
    """Decode a journal body through its input's declaration.

    Args:
        kind: the journal kind (``place_bet``, ``card``, ``startup``...).
        body: the body as read (a JSON object, as a dict).

    Returns:
        The body as its declared struct (a command without its PIN).

    Raises:
        InputError: an unknown kind, or a body that fails the declaration (the message
            names the field).
    """
    cls = BODY_TYPES.get(kind)
    if cls is None:
        raise InputError(f"unknown input {kind!r}")
    try:
        item = msgspec.convert(body, cls)
    except msgspec.ValidationError as exc:
        raise failed(exc, kind) from None
    check_values = getattr(item, "check_values", None)
    if check_values is not None:
        try:
            check_values()
        except InputError as exc:
            raise InputError(f"{kind}: {exc}") from None
    return item


_MSGPACK = msgspec.msgpack.Encoder()
_DECODERS: dict[type, msgspec.msgpack.Decoder] = {}


class Checked(NamedTuple):
    """A dealer command read against its declaration where it entered: not checked again."""

    command: DealerCommand

    @property
    def name(self) -> str:
        """The command's name."""
        return self.command.name


def check(command: DealerCommand) -> Checked:
    """Check a command built in code once (construction checks none); the table takes it as is.

    Raises:
        InputError: a field fails the declaration (the message names it).
    """
    _check(command)
    return Checked(command)


def _check(command: DealerCommand) -> None:
    try:
        _decoded(command).check_values()
    except (msgspec.ValidationError, InputError) as exc:
        raise failed(exc, command.name) from None


def _decoded(item: Struct) -> Any:
    """``item`` read back through its own type's declaration (msgspec checks on decoding)."""
    cls = type(item)
    try:
        data = _MSGPACK.encode(item)
    except (OverflowError, TypeError, ValueError):  # no MessagePack value: msgspec says why
        return msgspec.convert(msgspec.to_builtins(item), cls)
    decoder = _DECODERS.get(cls) or _DECODERS.setdefault(cls, msgspec.msgpack.Decoder(cls))
    return decoder.decode(data)


SYSTEM_RECORDS: dict[type, str] = {EnvironmentRecord: ENVIRONMENT, DeviceRecord: DEVICE}
"""The table's own records (actor ``system``) by type, and their kinds."""


def journal_record(item: Any) -> tuple[str, Struct]:
    """The journal kind and record of an input, checked once against its declaration.

    The record is what the journal encodes and the game applies: a command itself (or
    its record: :class:`RebetRecord` with ``rule`` 2...; a :class:`ChangePin` stays
    itself, the table journals its hash), a shoe event (a burn card with ``burn_rule``
    2), one of the table's own records.

    Raises:
        InputError: the input fails its declaration; nothing of it may be journaled.
        TypeError: not a table input.
    """
    if isinstance(item, Checked):  # checked where it was read
        item = item.command
    elif isinstance(item, DealerCommand):
        _check(item)
    if isinstance(item, DealerCommand):
        body_type = item.body_type
        if body_type is type(item) or type(item) is ChangePin:
            return item.name, item
        return item.name, body_type(**{f: getattr(item, f) for f in body_type.__struct_fields__
                                       if hasattr(item, f)})  # fields checked just now
    if type(item) in EVENTS:
        if type(item) is ev.CardRead and item.burn_rule != (BURN_RULE if item.burn else 1):
            item = msgspec.structs.replace(item, burn_rule=BURN_RULE if item.burn else 1)
        try:
            return item.type, _decoded(item)  # the event as its journal text decodes
        except msgspec.ValidationError as exc:
            raise failed(exc, item.type) from None
    kind = SYSTEM_RECORDS.get(type(item))
    if kind is None:
        raise TypeError(f"not a journaled table input: {item!r}")
    try:
        return kind, _decoded(item)  # as the journal's text decodes: replay applies the same
    except msgspec.ValidationError as exc:
        raise failed(exc, kind) from None


_LEFT_OUT: dict[type, tuple[str, Any]] = {
    ConfigChanged: ("rules_text", None), ev.CardRead: ("burn_rule", 1)}
"""A field a record's body leaves out while it holds this value (as journaled before)."""


def record_body(record: Struct) -> dict[str, Any]:
    """The journal body of a record: its fields, without a command's tag and PIN."""
    body = msgspec.to_builtins(record)
    body.pop("command", None)
    body.pop("pin", None)
    left_out = _LEFT_OUT.get(type(record))
    if left_out is not None and body.get(left_out[0], left_out) == left_out[1]:
        del body[left_out[0]]
    return body


def encode_body(body: dict[str, Any]) -> str:
    """A journal body as compact, strict JSON with sorted keys (never NaN or Infinity).

    Raises:
        InputError: a value JSON cannot hold (a number that is not finite, an object).
    """
    try:
        return _STRICT_JSON.encode(body)
    except (TypeError, ValueError) as exc:
        raise InputError(f"not journalable: {exc}") from None


_STRICT_JSON = json.JSONEncoder(allow_nan=False, sort_keys=True, separators=(",", ":"))


__all__ = [
    "BET_NAMES", "BODY_TYPES", "BURN_RULE", "COMMANDS", "COMMAND_NAMED", "ENVIRONMENT",
    "EVENTS", "EnvironmentRecord", "MAX_AMOUNT", "MAX_NAMED_FILES", "MAX_SEATS",
    "MIN_AMOUNT",
    "PIN_MAX_DIGITS", "PIN_MIN_DIGITS", "REBET_RULE", "SETTINGS", "STARTUP",
    "ChangePin", "ClearBets", "ConfigChange", "ConfigChanged", "DealerCommand", "Decide",
    "ExposedCard", "InputError", "JournaledReason", "JournaledSettingValue", "ManualCard",
    "ManualCardRecord",
    "MarkBet", "NewDeck",
    "NextRound", "NoMoreBets", "PinChanged", "PlaceBet", "Rebet", "RebetRecord", "RemoveChip",
    "ReopenBets", "Resume", "Reveal", "Role", "Screens", "Settle", "Software", "Startup", "Tick",
    "UndoDecision", "UnblockDeck", "UnblockRecord", "VoidRecord", "VoidRound",
    "Checked", "check", "decode_body", "encode_body", "failed",
    "journal_record", "record_body", "SYSTEM_RECORDS",
    "DEVICE", "DeviceRecord", "JOURNAL_FAULT", "JournalFault",
]
