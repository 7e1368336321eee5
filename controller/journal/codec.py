"""The compact journal format (format 2): how an event is stored, and read back exactly.

The chain hash is taken over the logical record (:func:`chain_hash`), not its storage, so
format 1 and format 2 hold the same chain. Columns, deltas, codes and checkpoints:
docs/journal-format.md "Format 2, column by column".
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from controller.game import inputs

FORMAT = 2
"""The format written by this version (``PRAGMA user_version``); format 1 is all text."""
KEYFRAME = 64
"""Every event with ``seq % KEYFRAME == 1`` stores absolute times."""
CHECKPOINT = 32
"""Every event with ``seq % CHECKPOINT == 0`` stores its chain hash; no other does."""

KINDS: tuple[str, ...] = (
    "card", inputs.Decide.name, inputs.PlaceBet.name, inputs.Rebet.name,
    inputs.NoMoreBets.name, inputs.Reveal.name, inputs.Settle.name, inputs.NextRound.name,
    inputs.MarkBet.name, inputs.ClearBets.name, inputs.VoidRound.name, inputs.ManualCard.name,
    inputs.UnblockDeck.name, inputs.Resume.name, inputs.NewDeck.name, inputs.ExposedCard.name,
    inputs.ConfigChange.name, inputs.ChangePin.name, inputs.STARTUP, "misread", "retract",
    "link", "seq_gap", "hello", "alarm", "lid", "cut", "empty", "warning", "frame_error",
    "no_frame", inputs.RemoveChip.name, inputs.UndoDecision.name, inputs.ENVIRONMENT,
    inputs.CLOCK_STEP, inputs.JOURNAL_FAULT, inputs.DEVICE, inputs.ReopenBets.name)
"""Journal kinds by code (append only; commands named through their declaration)."""
ACTORS: tuple[str, ...] = ("shoe", "dealer", "system", "supervisor", "technician", "dealer!")
"""Actors by code (append only; at most 8)."""
SHOE_KINDS = frozenset({"card", "misread", "retract", "link", "seq_gap", "hello", "alarm",
                        "lid", "cut", "empty", "warning", "frame_error", "no_frame"})
"""Kinds whose body is a shoe event's: each has a ``seq`` (None unless the shoe numbers)."""

KEYS: dict[str, int] = {"seat": 0, "bet": 1, "amount": 2, "decision": 3, "card": 4, "code": 5,
                        "seq": 6, "burn": 7, "burn_rule": 8, "on": 9, "rule": 10}
"""Body field -> the number that stands for it as a stored key (one byte)."""
CARD_TEXTS: tuple[str, ...] = tuple(r + s for r in "23456789TJQKA" for s in "cdhs")
VALUES: dict[str, tuple[str, ...]] = {
    "bet": inputs.BET_NAMES, "decision": ("play", "fold"),
    "card": CARD_TEXTS}
"""Field -> the texts stored as their index (cards: ``2c`` 0 ... ``As`` 51)."""
IMPLIED: dict[str, dict[str, Any]] = {
    **{kind: {"seq": None} for kind in SHOE_KINDS},
    "card": {"seq": None, "burn": False},
    "misread": {"seq": None, "burn": False},
    inputs.Rebet.name: {"seat": 0},
    inputs.MarkBet.name: {"on": True},
}
"""Kind -> fields left out of a stored body while they hold these values."""

_LONG = {v: k for k, v in KEYS.items()}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_pack = msgspec.msgpack.Encoder().encode
_unpack = msgspec.msgpack.Decoder().decode
_canonical = json.JSONEncoder(allow_nan=False, sort_keys=True, separators=(",", ":")).encode
"""The canonical JSON text of a body (the chain hashes it): frozen with the format."""


class FormatError(ValueError):
    """A stored value that format 2 cannot decode (a damaged or edited row)."""


# ------------------------------------------------------------------ times
def utc_micros(utc: str) -> int | None:
    """Microseconds since 1970 of a canonical UTC text, else None (stored as text)."""
    try:
        dt = datetime.fromisoformat(utc)
    except (TypeError, ValueError):
        return None
    if dt.utcoffset() != timedelta(0):
        return None
    us = (dt - _EPOCH) // _US
    return us if utc_text(us) == utc else None


def utc_text(us: int) -> str:
    """The canonical UTC text of microseconds since 1970 (``datetime.isoformat``)."""
    return (_EPOCH + timedelta(microseconds=us)).isoformat()


class Times:
    """The running time state of a file's events, written or read in order.

    Attributes:
        us: the previous event's UTC time in µs (None: no previous event, or its time
            was stored as text: the next is absolute).
        mono: the previous event's monotonic time.
        utc: the previous event's UTC text.
    """

    __slots__ = ("mono", "us", "utc")

    def __init__(self) -> None:
        self.us: int | None = None
        self.mono = 0
        self.utc = ""

    def encode(self, seq: int, utc: str, mono: int) -> tuple[int | str, int]:
        """The stored (t, m) of the next event; moves the state to it."""
        us = utc_micros(utc) if utc != self.utc or self.us is None else self.us
        if us is None or self.us is None or seq % KEYFRAME == 1:
            t: int | str = utc if us is None else us
            m = mono
        else:
            m = mono - self.mono
            t = (us - self.us) - m // 1000
        self.us, self.mono, self.utc = us, mono, utc
        return t, m

    def decode(self, seq: int, t: Any, m: Any) -> tuple[str, int]:
        """The (utc, mono) of the next stored event; moves the state to it.

        Raises:
            FormatError: the values are not a format-2 time, or a delta has no event
                before it to count from.
        """
        if t == 0 == m and type(t) is int is type(m) and self.us is not None \
                and seq % KEYFRAME != 1:
            return self.utc, self.mono  # an event of the same commit as the one before
        if type(m) is not int:
            raise FormatError(f"event {seq}: its monotonic time is not a whole number")
        if isinstance(t, str):
            self.us, self.mono, self.utc = utc_micros(t), m, t
            return t, m
        if type(t) is not int:
            raise FormatError(f"event {seq}: its time is not a whole number")
        if self.us is None or seq % KEYFRAME == 1:
            us, mono = t, m
        else:
            mono = self.mono + m
            us = self.us + t + m // 1000
        try:
            utc = self.utc if us == self.us else utc_text(us)
        except (OverflowError, ValueError):
            raise FormatError(f"event {seq}: its time is out of range") from None
        self.us, self.mono, self.utc = us, mono, utc
        return utc, mono


# ------------------------------------------------------------------ kind and actor
def encode_kind(kind: str, actor: str) -> int | str:
    """The stored ``k`` of a kind and actor."""
    if kind in _KIND_CODE and actor in _ACTOR_CODE:
        return 8 * _KIND_CODE[kind] + _ACTOR_CODE[actor]
    return json.dumps([kind, actor])


def decode_kind(k: Any) -> tuple[str, str]:
    """The (kind, actor) of a stored ``k``.

    Raises:
        FormatError: not a code of the tables, nor a ``["kind","actor"]`` text.
    """
    if type(k) is int:
        pair = _KIND_OF.get(k)
        if pair is not None:
            return pair
    elif isinstance(k, str):
        try:
            pair = json.loads(k)
        except ValueError:
            pair = None
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
            return pair[0], pair[1]
    raise FormatError(f"not a kind and actor: {str(k)[:40]!r}")


def kind_codes(kind: str) -> tuple[int, int]:
    """The range of ``k`` codes of a kind, ``lo <= k < hi`` (any actor)."""
    code = _KIND_CODE.get(kind)
    return (-1, -1) if code is None else (8 * code, 8 * code + 8)


_KIND_CODE = {k: i for i, k in enumerate(KINDS)}
_ACTOR_CODE = {a: i for i, a in enumerate(ACTORS)}
_KIND_OF = {8 * i + j: (k, a) for i, k in enumerate(KINDS) for j, a in enumerate(ACTORS)}


# ------------------------------------------------------------------ bodies
def record_text(record: msgspec.Struct) -> str:
    """The body of an input's checked record as the chain hashes it: canonical JSON.

    Raises:
        InputError: a value JSON cannot hold (a number that is not finite).
    """
    return inputs.encode_body(inputs.record_body(record))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def encode_body(kind: str, text: str) -> bytes | str | None:
    """The stored ``b`` of a body given as its JSON text.

    Returns:
        None for ``{}``, the compact MessagePack map, or the text itself when the compact
        form would not give the same text back (or the text is not canonical).
    """
    if text == "{}":
        return None
    if kind == "card":
        card = _PLAIN_CARD.match(text)
        if card is not None:  # most events of a round: the same bytes, without the detour
            i = _CARD_INDEX[card[1]]
            if card[2] == "null":
                return bytes((0x81, KEYS["card"], i))
            return bytes((0x82, KEYS["card"], i, KEYS["seq"])) + _pack(int(card[2]))
    try:
        body = json.loads(text)
    except ValueError:
        return text
    if not isinstance(body, dict):
        return text
    implied = IMPLIED.get(kind, {})
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key in implied and _same(value, implied[key]):
            continue
        if key == "code" and kind == "card" and isinstance(value, str) \
                and _same(value, body.get("card")):
            continue
        table = VALUES.get(key)
        if table is not None and isinstance(value, str) and value in table:
            value = table.index(value)
        out[KEYS.get(key, key)] = value
    try:
        packed = _pack(out)
        if decode_body(kind, packed) != text:
            return text
    except (TypeError, OverflowError, msgspec.EncodeError, FormatError):
        return text
    return packed


def decode_body(kind: str, b: Any) -> str:
    """The JSON text of a stored ``b``.

    Raises:
        FormatError: not a format-2 body.
    """
    if b is None:
        return "{}"
    if isinstance(b, str):
        return b
    if not isinstance(b, bytes):
        raise FormatError("a body is a map, a text or nothing")
    if kind == "card" and len(b) >= 3 and b[1] == 4 and b[2] < 52:
        text = _plain_card(b)
        if text is not None:
            return text
    try:
        stored = _unpack(b)
    except msgspec.DecodeError:
        raise FormatError("the body is not MessagePack") from None
    if not isinstance(stored, dict):
        raise FormatError("the body is not a map")
    body: dict[str, Any] = {}
    for stored_key, value in stored.items():
        key = _LONG.get(stored_key) if type(stored_key) is int else stored_key
        if not isinstance(key, str) or key in body:
            raise FormatError(f"not a field: {stored_key!r}")
        table = VALUES.get(key)
        if table is not None and type(value) is int:
            if not 0 <= value < len(table):
                raise FormatError(f"no value {value} of {key!r}")
            value = table[value]
        body[key] = value
    for key, value in IMPLIED.get(kind, {}).items():
        body.setdefault(key, value)
    if kind == "card" and "code" not in body and isinstance(body.get("card"), str):
        body["code"] = body["card"]
    try:
        return _canonical(body)
    except (TypeError, ValueError):
        raise FormatError("the body holds a value JSON cannot") from None


_PLAIN_CARD = re.compile(r'\{"burn":false,"card":"([2-9TJQKA][cdhs])","code":"\1",'
                         r'"seq":(null|0|[1-9][0-9]{0,17})\}\Z')
"""The body of a card read as most are: canonical, no burn (:func:`encode_body`)."""
_CARD_INDEX = {c: i for i, c in enumerate(CARD_TEXTS)}


def _plain_card(b: bytes) -> str | None:
    """The text of a plain card's body (``{4: card}`` or ``{4: card, 6: seq}``), else None.

    Gives what the general decoding gives, without building the body.
    """
    card = CARD_TEXTS[b[2]]
    if b[0] == 0x81 and len(b) == 3:
        seq: Any = "null"
    elif b[0] == 0x82 and len(b) > 4 and b[3] == KEYS["seq"]:
        try:
            seq = _unpack(b[4:])
        except msgspec.DecodeError:
            return None
        if type(seq) is not int:
            return None
    else:
        return None
    return f'{{"burn":false,"card":"{card}","code":"{card}","seq":{seq}}}'


class BodyCache:
    """Decoded bodies by their stored form: a journal repeats few bodies many times."""

    __slots__ = ("_d",)
    LIMIT = 8192

    def __init__(self) -> None:
        self._d: dict[tuple[int | str, Any], str] = {}

    def text(self, kind: str, k: int | str, b: Any) -> str:
        """:func:`decode_body`, remembered.

        Raises:
            FormatError: not a format-2 body.
        """
        key = (k, b)
        text = self._d.get(key)
        if text is None:
            text = decode_body(kind, b)
            if len(self._d) >= self.LIMIT:
                self._d.clear()
            self._d[key] = text
        return text


# ------------------------------------------------------------------ hashes and snapshots
def chain_hash(prev: str, seq: int, utc: str, mono_ns: int, kind: str, actor: str,
               body: str) -> str:
    """The hash of one event, chained to the previous event's hash (every format)."""
    return hashlib.sha256(f"{prev}\n{seq}\t{utc}\t{mono_ns}\t{kind}\t{actor}\t{body}"
                          .encode()).hexdigest()


def hash_bytes(h: str) -> bytes:
    """A chain hash or seal (64 hex digits) as the 32 bytes stored."""
    return bytes.fromhex(h)


def hash_text(b: Any) -> str:
    """A stored hash as its 64 hex digits ("" for a value that is not 32 bytes)."""
    return b.hex() if isinstance(b, bytes) and len(b) == 32 else ""


def pack_state(state: str) -> bytes:
    """A snapshot's state (canonical JSON text) as stored: zlib-compressed."""
    return zlib.compress(state.encode(), 9)


def unpack_state(stored: Any) -> str:
    """A stored snapshot state as its JSON text ("" when it cannot be read)."""
    if isinstance(stored, str):
        return stored
    try:
        return zlib.decompress(stored).decode()
    except (zlib.error, TypeError, UnicodeDecodeError):
        return ""


__all__ = ["ACTORS", "BodyCache", "CARD_TEXTS", "CHECKPOINT", "FORMAT", "FormatError",
           "IMPLIED", "KEYFRAME", "KEYS", "KINDS", "SHOE_KINDS", "Times", "VALUES",
           "chain_hash", "decode_body", "decode_kind", "encode_body", "encode_kind", "hash_bytes",
           "hash_text", "kind_codes", "pack_state", "record_text", "unpack_state", "utc_micros",
           "utc_text"]
