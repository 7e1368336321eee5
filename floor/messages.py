"""Every payload of the floor feed, declared once (msgspec Structs; docs/floor-format.md)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta, Struct

from controller.game.config import TABLE_ID_PATTERN
from controller.game.round import RoundState

# The largest payload the recorder takes (a 7-seat round is ~5 KiB; the example broker
# refuses packets over 256 KiB).
MAX_PAYLOAD_BYTES = 192 * 1024
# SQLite's largest integer: every count and id is at most this.
INT_MAX = 2**63 - 1
# 2100-01-01T00:00:00Z in microseconds.
SENT_US_MAX = 4_102_444_800_000_000

FINISHED = (RoundState.SETTLED.value, RoundState.VOID.value)
SEVERITIES = ("info", "warning", "error")

Hash = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
Seq = Annotated[int, Meta(ge=0, le=INT_MAX)]
RoundId = Annotated[int, Meta(ge=1, le=INT_MAX)]
SentUs = Annotated[int, Meta(ge=0, le=SENT_US_MAX)]
TableId = Annotated[str, Meta(pattern=f"^{TABLE_ID_PATTERN.pattern}$")]


class Message(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What every payload carries (``sent_us``: send time, microseconds since the epoch, UTC)."""

    name: ClassVar[str]
    table: TableId
    journal: Hash
    sent_us: SentUs = 0


# Ed25519 public key, 64 hex digits; signature, 128.
Key = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
Signature = Annotated[str, Meta(pattern="^[0-9a-f]{128}$")]
Mono = Annotated[int, Meta(ge=-INT_MAX, le=INT_MAX)]


class JournalRow(Struct, frozen=True, array_like=True, forbid_unknown_fields=True):
    """One journal event as the chain hashes it (a JSON array on the wire)."""

    seq: Seq
    utc: str
    mono_ns: Mono
    kind: str
    actor: str
    body: str


class SealRow(Struct, frozen=True, forbid_unknown_fields=True):
    """A seal of the journal (:class:`controller.journal.seal.Seal`, hexadecimal)."""

    epoch: Seq
    seq: Seq
    head: Hash
    next_key: Key
    signature: Signature


class ChainRow(Struct, frozen=True, forbid_unknown_fields=True):
    """A chain start of the journal (:class:`controller.journal.seal.ChainStart`)."""

    epoch: Seq
    seq: Seq
    head: Hash
    key: Key


class RoundMessage(Message, frozen=True, kw_only=True):
    """The journal's events up to the seal that closes a round (topic ``round``, QoS 1)."""

    name: ClassVar[str] = "round"
    round_id: RoundId
    journal_id: Hash
    after: Seq
    rows: Annotated[list[JournalRow], Meta(min_length=1)]
    seals: list[SealRow]
    chains: list[ChainRow] = []


class EventMessage(Message, frozen=True, kw_only=True):
    """An alarm, a void, an irregularity or a role action (topic ``event``, QoS 1)."""

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
    """A table's meters: rows name -> [wagered, paid, won, rounds, voids, refunded]."""

    rows: dict[str, MeterRow] = {}
    counters: dict[str, Seq] = {}
    outcomes: dict[str, Seq] = {}


class MetersMessage(Message, frozen=True, kw_only=True):
    """The meters after the newest round (topic ``meters``, retained).

    ``returns``: the profile's exact return per bet group, per unit of its first stake, as
    ``numerator/denominator``.
    """

    name: ClassVar[str] = "meters"
    seq: Seq
    meters: Meters
    profile: Annotated[str, Meta(max_length=64)] = ""
    returns: dict[Annotated[str, Meta(max_length=32)],
                  Annotated[str, Meta(pattern="^[0-9]{1,40}/[1-9][0-9]{0,39}$")]] = {}
    currency: Annotated[str, Meta(pattern="^([A-Z]{3})?$")] = ""


class Alarm(Struct, frozen=True, forbid_unknown_fields=True):
    """A notice of severity warning or error the table shows now."""

    kind: str
    severity: str
    message: str


class StateMessage(Message, frozen=True, kw_only=True):
    """Where the table stands (topic ``state``, retained)."""

    name: ClassVar[str] = "state"
    seq: Seq
    last_round: Seq
    last_round_seq: Seq
    last_round_hash: Hash
    round_in_play: RoundId
    round_state: str
    open_alarms: list[Alarm] = []


class StatusMessage(Message, frozen=True, kw_only=True):
    """``online``, or ``offline`` (also the last will) (topic ``status``, retained).

    ``connection``: when it opened, microseconds since the epoch: a table tells its own
    status from another's with its id.
    """

    name: ClassVar[str] = "status"
    status: Literal["online", "offline"]
    connection: SentUs = 0
    stopped: bool = False


class WitnessSeal(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The newest seal the floor verified of one journal."""

    journal: Hash
    journal_id: Hash
    epoch: Seq
    seq: Seq
    round_id: Seq
    signature: Signature


class WitnessMessage(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Recorder to table (topic ``witness``, retained): what the floor holds sealed."""

    name: ClassVar[str] = "witness"
    table: TableId
    journals: list[WitnessSeal]
    sent_us: SentUs = 0


MAX_PARTS = 1024


class Part(Message, frozen=True, kw_only=True):
    """One part of a message too large for the broker (``data``: base64 of its bytes)."""

    name: ClassVar[str] = "part"
    whole: Hash
    part: Annotated[int, Meta(ge=1, le=MAX_PARTS)]
    parts: Annotated[int, Meta(ge=2, le=MAX_PARTS)]
    data: Annotated[bytes, Meta(min_length=1, max_length=MAX_PAYLOAD_BYTES)]


class _Probe(Struct, frozen=True):

    parts: Any = None


def is_part(payload: bytes) -> bool:
    """True when ``payload`` is a JSON object with a ``parts`` field: a :class:`Part`."""
    try:
        return msgspec.json.decode(payload, type=_Probe).parts is not None
    except (msgspec.ValidationError, msgspec.DecodeError):
        return False


def decode_part(payload: bytes) -> Part:
    """A part checked against its declaration (ValueError: not one, or numbered past its count)."""
    if len(payload) > 2 * MAX_PAYLOAD_BYTES:
        raise ValueError(f"part: a payload of {len(payload)} bytes")
    try:
        p = msgspec.json.decode(payload, type=Part)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ValueError(f"part: {exc}") from None
    if p.part > p.parts:
        raise ValueError(f"part: part {p.part} of {p.parts}")
    return p


class ResendRequest(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Recorder to table (topic ``resend``): send the rounds from ``from_round`` again."""

    name: ClassVar[str] = "resend"
    journal: Hash
    from_round: RoundId


BY_NAME: dict[str, type[Struct]] = {c.name: c for c in (
    RoundMessage, EventMessage, MetersMessage, StateMessage, StatusMessage, ResendRequest,
    WitnessMessage)}

_encoder = msgspec.json.Encoder()


def encode(msg: Struct) -> bytes:
    """A payload as sent: compact JSON."""
    return _encoder.encode(msg)


def _round_problem(m: RoundMessage) -> str | None:
    rows, seals = m.rows, m.seals
    if [r.seq for r in rows] != list(range(m.after + 1, m.after + 1 + len(rows))):
        return f"its rows are not the events after event {m.after}, one by one"
    if not seals:
        return None  # unsealed: the recorder counts it as forged
    if [s.epoch for s in seals] != list(range(seals[0].epoch, seals[0].epoch + len(seals))):
        return "its seals are not of epochs one after the other"
    seqs = [s.seq for s in seals]
    if seqs != sorted(seqs) or seqs[0] <= m.after or seqs[-1] != rows[-1].seq:
        return "its seals do not close its rows (the last seal ends at the last row)"
    if any(not seals[0].epoch <= c.epoch <= seals[-1].epoch for c in m.chains):
        return "a chain start outside the epochs of its seals"
    if m.after == 0 and not any(c.epoch == 0 for c in m.chains):
        return "the journal's first events come without the chain's start"
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

    Raises ValueError (never KeyError) for anything it refuses, naming it.
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
    if problem:
        raise ValueError(f"{name}: {problem}")
    return m
