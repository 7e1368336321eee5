"""Every payload of the floor feed, declared once (msgspec Structs, JSON on the wire).

The follower builds them, the publisher stamps them with the table, its journal and the
send time, and the recorder decodes each against its declaration: a payload that fails
(a field missing, unknown or of the wrong type, a round id below 1, a number SQLite cannot
hold, a journal name that is not a SHA-256 hash, more than :data:`MAX_PAYLOAD_BYTES`) is
refused whole, named, and nothing of it is stored.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta, Struct

from controller.game.cards import RANK_CHARS, SUITS
from controller.game.config import MAX_SEATS, TABLE_ID_PATTERN
from controller.game.records import BetRecord, RoundRecord, SeatRecord
from controller.game.round import RoundState
from controller.journal.anchor import GENESIS

MAX_PAYLOAD_BYTES = 192 * 1024
"""The largest payload the recorder takes (a round of seven seats is about 4 KiB); the
example broker configuration refuses packets over 256 KiB before they reach it."""
INT_MAX = 2**63 - 1
"""The largest integer the store (SQLite) holds: every count and id is at most this."""
SENT_US_MAX = 4_102_444_800_000_000
"""The latest send time a payload may carry: 2100-01-01T00:00:00Z in microseconds."""

FINISHED = (RoundState.SETTLED.value, RoundState.VOID.value)
"""The status of a finished round's record."""
CARD_TEXTS = frozenset(r + s for r in RANK_CHARS for s in SUITS)
"""A card as a record holds it (``As``, ``Th``)."""
SEVERITIES = ("info", "warning", "error")
"""An event's severities."""

Hash = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
Seq = Annotated[int, Meta(ge=0, le=INT_MAX)]
RoundId = Annotated[int, Meta(ge=1, le=INT_MAX)]
SentUs = Annotated[int, Meta(ge=0, le=SENT_US_MAX)]
TableId = Annotated[str, Meta(pattern=f"^{TABLE_ID_PATTERN.pattern}$")]


class Message(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What every payload carries.

    Attributes:
        table: the table's id (the recorder refuses one that is not the topic's).
        journal: the hash of the table's journal's first event: a new journal is a new
            series of rounds.
        sent_us: when the publisher sent it, microseconds since the epoch (UTC).
    """

    name: ClassVar[str]
    table: TableId
    journal: Hash
    sent_us: SentUs = 0


class RoundMessage(Message, frozen=True, kw_only=True):
    """A settled or voided round (topic ``round``, QoS 1).

    Attributes:
        round_id: the round.
        seq, hash: the round's last event: the newest event that changed its record.
        prev_seq, prev_hash: the previous round's last event (0 and the chain's genesis
            hash before round 1): the recorder's continuity check.
        record: the record game recall shows (``threecard recall --json``).
        events: how many ``event`` messages the journal made after the previous round's
            end up to this round's end (``prev_seq`` < seq <= ``seq``): the recorder
            asks again for what it lacks of them (None: not counted, a table of an
            earlier version).
    """

    name: ClassVar[str] = "round"
    round_id: RoundId
    seq: Seq
    hash: Hash
    prev_seq: Seq
    prev_hash: Hash
    record: RoundRecord
    events: Seq | None = None


class EventMessage(Message, frozen=True, kw_only=True):
    """An alarm, a void, an irregularity or a role action (topic ``event``, QoS 1).

    Attributes:
        seq, hash: the event of the journal it comes from.
        round_id: the round in play then.
        kind: the notice's kind (``void``, ``misread``, ``link_lost``, ``alarm``...) or
            ``role_action``.
        severity: ``info``, ``warning`` or ``error``.
        message, action: what the table shows (notices).
        params: the notice's values (card, reason, refunds...).
        input, actor: the journaled input and who made it.
        accepted, reason: a role action's verdict.
    """

    name: ClassVar[str] = "event"
    seq: Seq
    hash: Hash
    round_id: RoundId
    kind: str
    severity: str
    message: str = ""
    action: str = ""
    params: dict[str, Any] = {}
    input: str = ""
    actor: str = ""
    accepted: bool | None = None
    reason: str | None = None


Amount = Annotated[int, Meta(ge=-INT_MAX, le=INT_MAX)]
MeterRow = Annotated[list[Amount], Meta(min_length=6, max_length=6)]


class Meters(Struct, frozen=True, forbid_unknown_fields=True):
    """A table's meters, as its journal keeps them.

    Attributes:
        rows: name -> [wagered, paid, won, rounds, voids, refunded] (minor units, counts).
        counters: event counters by name.
        outcomes: outcome counters by name (once a round was dealt in outcome mode).
    """

    rows: dict[str, MeterRow] = {}
    counters: dict[str, Seq] = {}
    outcomes: dict[str, Seq] = {}


class MetersMessage(Message, frozen=True, kw_only=True):
    """The meters after the newest round (topic ``meters``, retained).

    Attributes:
        seq: the newest event replayed.
        meters: the rows and counters, as ``threecard meters`` reads them.
    """

    name: ClassVar[str] = "meters"
    seq: Seq
    meters: Meters


class Alarm(Struct, frozen=True, forbid_unknown_fields=True):
    """A notice of severity warning or error the table shows now."""

    kind: str
    severity: str
    message: str


class StateMessage(Message, frozen=True, kw_only=True):
    """Where the table stands (topic ``state``, retained).

    Attributes:
        seq: the newest event replayed.
        last_round: the newest finished round (0: none); a recorder without it asks for it.
        last_round_seq, last_round_hash: that round's last event.
        round_in_play, round_state: the round open now and its state.
        open_alarms: the warnings and errors shown now.
        events: how many ``event`` messages the journal made after the last round's end
            up to ``seq`` (None: not counted, a table of an earlier version).
    """

    name: ClassVar[str] = "state"
    seq: Seq
    last_round: Seq
    last_round_seq: Seq
    last_round_hash: Hash
    round_in_play: RoundId
    round_state: str
    open_alarms: list[Alarm] = []
    events: Seq | None = None


class StatusMessage(Message, frozen=True, kw_only=True):
    """``online``, or ``offline`` (also the last will) (topic ``status``, retained).

    Attributes:
        status: ``online`` or ``offline``.
        connection: when the table's connection that says it was opened (microseconds
            since the epoch, its will included): a table tells its own status from that
            of another table running with its id.
        stopped: ``offline`` because the table stopped (not its last will).
    """

    name: ClassVar[str] = "status"
    status: Literal["online", "offline"]
    connection: SentUs = 0
    stopped: bool = False


class ResendRequest(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Recorder to table (topic ``resend``): send the rounds from ``from_round`` again."""

    name: ClassVar[str] = "resend"
    journal: Hash
    from_round: RoundId


BY_NAME: dict[str, type[Struct]] = {c.name: c for c in (
    RoundMessage, EventMessage, MetersMessage, StateMessage, StatusMessage, ResendRequest)}
"""Topic name -> its payload's declaration."""

_encoder = msgspec.json.Encoder()


def encode(msg: Struct) -> bytes:
    """A payload as sent: compact JSON."""
    return _encoder.encode(msg)


def _time(what: str, text: str | None) -> str | None:
    """Why ``text`` is not an ISO 8601 UTC time with its offset (None: it is)."""
    try:
        if text is None or datetime.fromisoformat(text).utcoffset() != timedelta(0):
            raise ValueError
    except (ValueError, TypeError):
        return f"{what} must be an ISO 8601 time with its offset, UTC, got {text!r}"
    return None


def _round_problem(m: RoundMessage) -> str | None:
    """What a round message says that no journal can (None: nothing)."""
    r = m.record
    if r.round_id != m.round_id:
        return f"its record is of round {r.round_id}, not {m.round_id}"
    if r.status not in FINISHED:
        return f"record status {r.status!r}: a finished round is settled or void"
    if (m.round_id == 1) != (m.prev_seq == 0) or m.prev_seq >= m.seq:
        return (f"round {m.round_id} ends at event {m.seq} after the previous round's end "
                f"at event {m.prev_seq}: no journal runs so")
    if m.prev_seq == 0 and m.prev_hash != GENESIS:
        return "round 1 must name the chain's genesis as the previous round's end"
    cards = [line.card for line in r.deal] + list(r.dealer_cards) \
        + [c for seat in r.seats for c in seat.cards]
    bad = [c for c in cards if c is not None and c not in CARD_TEXTS]
    if bad:
        return f"not a card: {bad[0]!r}"
    if any(not 1 <= seat.seat <= MAX_SEATS for seat in r.seats):
        return f"a seat number out of 1 to {MAX_SEATS}"
    return _time("started_utc", r.started_utc) or _time("ended_utc", r.ended_utc)


def _unknown_in_record(raw: dict[str, Any]) -> str | None:
    """A field of a round's record (its seats, their results) that no record declares."""
    parts = [(raw, RoundRecord, "record")]
    for seat in raw.get("seats") or ():
        parts.append((seat, SeatRecord, "record seat"))
        parts += [(r, BetRecord, "record result") for r in (seat.get("results") or {}).values()]
    for obj, cls, what in parts:
        unknown = sorted(set(obj) - set(cls.__struct_fields__))
        if unknown:
            return f"unknown field {unknown[0]!r} in the {what}"
    return None


def _state_problem(m: StateMessage) -> str | None:
    if m.last_round_seq > m.seq or m.last_round > m.round_in_play:
        return (f"last round {m.last_round} (ending at event {m.last_round_seq}) is past "
                f"the round in play {m.round_in_play} or event {m.seq}")
    if (m.last_round == 0) != (m.last_round_seq == 0):
        return "last_round and last_round_seq are 0 together or not at all"
    return None


def _event_problem(m: EventMessage) -> str | None:
    if m.severity not in SEVERITIES:
        return f"severity {m.severity!r}: one of {', '.join(SEVERITIES)}"
    return None


_PROBLEMS = {RoundMessage: _round_problem, StateMessage: _state_problem,
             EventMessage: _event_problem}


def decode(name: str, payload: bytes) -> Struct:
    """A payload of topic ``name`` checked against its declaration and what a journal says.

    A journal's round record is of its own round id, finished, with cards and ISO 8601
    times; a round ends after the round before it; a state's last round is not past the
    round in play.

    Raises:
        ValueError: not JSON, or a field missing, unknown in type or out of range, or a
            payload no journal makes (the message names it); ``KeyError`` is never raised:
            an unknown name is a ValueError too.
    """
    cls = BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"no payload is declared for topic {name!r}")
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"{name}: a payload of {len(payload)} bytes, more than the "
                         f"{MAX_PAYLOAD_BYTES} a table sends")
    try:
        m = msgspec.json.decode(payload, type=cls)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ValueError(f"{name}: {exc}") from None
    check = _PROBLEMS.get(cls)
    problem = check(m) if check is not None else None
    if problem is None and cls is RoundMessage:
        problem = _unknown_in_record(msgspec.json.decode(payload)["record"])
    if problem:
        raise ValueError(f"{name}: {problem}")
    return m
