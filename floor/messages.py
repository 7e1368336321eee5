"""Every payload of the floor feed, declared once (msgspec Structs, JSON on the wire).

The follower builds them, the publisher stamps them with the table, its journal and the
send time, and the recorder decodes each against its declaration: a payload that fails
(a field missing or of the wrong type, a round id below 1, a number SQLite cannot hold, a
journal name that is not a SHA-256 hash) is refused whole, named, and nothing of it is stored.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta, Struct

from controller.game.config import TABLE_ID_PATTERN
from controller.game.records import RoundRecord

INT_MAX = 2**63 - 1
"""The largest integer the store (SQLite) holds: every count and id is at most this."""
SENT_US_MAX = 4_102_444_800_000_000
"""The latest send time a payload may carry: 2100-01-01T00:00:00Z in microseconds."""

Hash = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
Seq = Annotated[int, Meta(ge=0, le=INT_MAX)]
RoundId = Annotated[int, Meta(ge=1, le=INT_MAX)]
SentUs = Annotated[int, Meta(ge=0, le=SENT_US_MAX)]
TableId = Annotated[str, Meta(pattern=f"^{TABLE_ID_PATTERN.pattern}$")]


class Message(Struct, frozen=True, kw_only=True):
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
    """

    name: ClassVar[str] = "round"
    round_id: RoundId
    seq: Seq
    hash: Hash
    prev_seq: Seq
    prev_hash: Hash
    record: RoundRecord


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


class MetersMessage(Message, frozen=True, kw_only=True):
    """The meters after the newest round (topic ``meters``, retained).

    Attributes:
        seq: the newest event replayed.
        meters: ``rows`` (name -> wagered, paid, won, rounds, voids, refunded, minor
            units) and ``counters``, as ``threecard meters`` reads them.
    """

    name: ClassVar[str] = "meters"
    seq: Seq
    meters: dict[str, Any]


class Alarm(Struct, frozen=True):
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
    """

    name: ClassVar[str] = "state"
    seq: Seq
    last_round: Seq
    last_round_seq: Seq
    last_round_hash: Hash
    round_in_play: RoundId
    round_state: str
    open_alarms: list[Alarm] = []


class StatusMessage(Message, frozen=True, kw_only=True):
    """``online``, or ``offline`` (also the last will) (topic ``status``, retained)."""

    name: ClassVar[str] = "status"
    status: Literal["online", "offline"]


class ResendRequest(Struct, frozen=True, kw_only=True):
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


def decode(name: str, payload: bytes) -> Struct:
    """A payload of topic ``name`` checked against its declaration.

    Raises:
        ValueError: not JSON, or a field missing, unknown in type or out of range (the
            message names it); ``KeyError`` is never raised: an unknown name is a
            ValueError too.
    """
    cls = BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"no payload is declared for topic {name!r}")
    try:
        return msgspec.json.decode(payload, type=cls)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise ValueError(f"{name}: {exc}") from None
