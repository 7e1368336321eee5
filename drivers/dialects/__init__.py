r"""Dialects: pure, incremental translators between shoe bytes and shoe events.

A *decoder* has ``feed(data: bytes) -> list[ShoeEvent]``. It keeps any unfinished frame
between calls, so the events depend only on the byte stream and never on how it was split
into reads; it resynchronises after noise; it never raises and never invents a card; it
counts what it drops in :class:`DecoderStats` and reports each dropped frame as a
:class:`~controller.game.events.FrameError` event.

An *encoder* turns events back into bytes (the simulators and tests use it).

Every dialect is listed once, in :data:`DIALECTS`, and found by name; its modules are
imported when it is first used::

    decoder = make_decoder("native")
    events = decoder.feed(b"$17,CARD,Qh*...\\r\\n")

A new dialect is one :func:`register_dialect` call (or one entry in :data:`DIALECTS`):
shoe URLs (``?dialect=``), ``--dialect`` and the configuration's ``shoe.dialect`` then
take its name.
"""

from __future__ import annotations

import pkgutil
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.game.events import FrameError, ShoeEvent


@dataclass(frozen=True, slots=True)
class Dialect:
    """One shoe dialect: where its translators are, and what its shoes do.

    Attributes:
        name: its name in shoe URLs (``?dialect=NAME``), ``--dialect`` and the
            configuration; lower-case letters, digits, ``-`` and ``_``.
        decoder: its decoder class (a :class:`BaseDecoder`), or ``"module:Class"``
            naming it, imported at first use.
        encoder: its encoder class (an :class:`Encoder`), or ``"module:Class"``.
        baud: the serial speed of its shoes, bits per second, unless the URL says ``baud=``.
        heartbeat: its shoes send heartbeats and answer the host's ``PING`` (its encoder
            has ``ping(seq) -> bytes``): the link calls a quiet shoe ``SILENT`` and pings it.
        numbered: every line carries a sequence number and a CRC (a simulated shoe can
            then skip, repeat or reorder numbers and corrupt a CRC).
    """

    name: str
    decoder: str | type
    encoder: str | type
    baud: int = 9600
    heartbeat: bool = False
    numbered: bool = False


DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("beetek", "drivers.dialects.beetek:BeetekDecoder",
            "drivers.dialects.beetek:BeetekEncoder", baud=9600),
    Dialect("native", "drivers.dialects.native:NativeDecoder",
            "drivers.dialects.native:NativeEncoder", baud=115200, heartbeat=True,
            numbered=True),
)}
"""The dialects this product speaks, by name: the one list every part reads
(:data:`controller.game.events.DEFAULT_DIALECT` names the one used when none is given)."""

_NAME = re.compile(r"[a-z][a-z0-9_-]*")


def register_dialect(dialect: Dialect) -> Dialect:
    """Add a dialect to :data:`DIALECTS`.

    Args:
        dialect: the new dialect.

    Returns:
        The dialect, as registered.

    Raises:
        ValueError: a name that cannot stand in a URL, or one already taken by another
            dialect.
    """
    if not _NAME.fullmatch(dialect.name):
        raise ValueError(f"bad dialect name {dialect.name!r}: lower-case letters, digits, "
                         f"'-' and '_', starting with a letter")
    known = DIALECTS.get(dialect.name)
    if known is not None and known != dialect:
        raise ValueError(f"the shoe dialect {dialect.name!r} is already registered")
    DIALECTS[dialect.name] = dialect
    return dialect


def dialect_named(name: str) -> Dialect:
    """The registered dialect called ``name``.

    Raises:
        ValueError: no dialect of that name (the message lists the known ones).
    """
    try:
        return DIALECTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown shoe dialect {name!r} "
                         f"(expected one of {', '.join(DIALECTS)})") from None


def _resolve(ref: str | type) -> Any:
    return pkgutil.resolve_name(ref) if isinstance(ref, str) else ref


@dataclass(slots=True)
class DecoderStats:
    """What a decoder has seen and dropped since it was made (mutable counters).

    Attributes:
        frames: complete, valid frames decoded.
        crc: frames dropped for a bad CRC (native).
        malformed: frames dropped because they did not parse.
        oversize: frames dropped because they grew past the size limit.
        noise_bytes: bytes outside any frame, skipped (never an event).
        retransmissions: native lines ignored because their seq was already seen.
        seq_gaps: native seq gaps reported.
        late: native lines older than the expected seq but never seen, delivered late.
        internal_errors: defensive catches inside ``feed`` (should stay 0).
    """

    frames: int = 0
    crc: int = 0
    malformed: int = 0
    oversize: int = 0
    noise_bytes: int = 0
    retransmissions: int = 0
    seq_gaps: int = 0
    late: int = 0
    internal_errors: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    @property
    def frame_errors(self) -> dict[str, int]:
        """Dropped frames by reason: ``{"crc": n, "malformed": n, "oversize": n}``."""
        return {"crc": self.crc, "malformed": self.malformed, "oversize": self.oversize}


class Decoder(Protocol):
    """An incremental decoder of one dialect."""

    name: str
    stats: DecoderStats

    def feed(self, data: bytes) -> list[ShoeEvent]:
        """Decode more bytes; never raises."""
        ...

    def reset(self) -> None:
        """Forget any unfinished frame (after a reconnect); keep seq history."""
        ...


class BaseDecoder:
    """Shared ``feed`` of the dialect decoders: the guard that makes it never raise.

    Subclasses implement ``_feed(data, out)`` (append events to ``out``) and ``reset()``.
    """

    name = "?"

    def __init__(self) -> None:
        self.stats = DecoderStats()

    def reset(self) -> None:
        """Forget any unfinished frame."""
        raise NotImplementedError

    def _feed(self, data: bytes, out: list[ShoeEvent]) -> None:
        raise NotImplementedError

    def feed(self, data: bytes) -> list[ShoeEvent]:
        """Decode more bytes.

        Args:
            data: any bytes, possibly part of a frame or several frames.

        Returns:
            The events completed by these bytes, in order (possibly none). Never raises:
            an internal error is counted, reported as a malformed frame, and the
            unfinished frame forgotten.
        """
        out: list[ShoeEvent] = []
        try:
            self._feed(bytes(data), out)
        except Exception as exc:  # noqa: BLE001 - defensive: feed() must never raise
            self.stats.internal_errors += 1
            self.reset()
            out.append(FrameError(reason="malformed", detail=f"decoder error: {exc!r}"))
        return out


class ScanningDecoder(BaseDecoder):
    r"""A decoder of a dialect whose frames are marked by a few special bytes.

    ``_feed`` splits the bytes at each special byte: every run of other bytes goes to
    ``_plain(data, pos, end, out)`` and every special byte, in order, to
    ``_special(byte, out)``. Subclasses set ``SPECIAL`` and implement those two and
    ``reset()``; how the runs and bytes make frames is theirs.

    Attributes:
        SPECIAL: a pattern matching one special byte (e.g. ``rb"[$\r\n]"``).
    """

    SPECIAL: re.Pattern[bytes]

    def _plain(self, data: bytes, pos: int, end: int, out: list[ShoeEvent]) -> None:
        raise NotImplementedError

    def _special(self, byte: int, out: list[ShoeEvent]) -> None:
        raise NotImplementedError

    def _feed(self, data: bytes, out: list[ShoeEvent]) -> None:
        pos = 0
        n = len(data)
        search = self.SPECIAL.search
        while pos < n:
            m = search(data, pos)
            end = m.start() if m else n
            if end > pos:
                self._plain(data, pos, end, out)
            if m is None:
                return
            self._special(data[end], out)
            pos = end + 1


class Encoder(Protocol):
    """Turns events into the bytes a shoe of one dialect would send."""

    name: str

    def card_code(self, card: str) -> str:
        """The code a shoe of this dialect sends for a canonical card text (``Td``)."""
        ...

    def encode(self, event: ShoeEvent) -> bytes:
        """Encode one event as one frame, including its line end.

        Raises:
            UnsupportedEvent: the dialect has no way to say this event.
        """
        ...


class CheckedEncoder(Encoder, Protocol):
    """The encoder of a numbered dialect, whose every line carries a CRC."""

    def encode_bad_crc(self, event: ShoeEvent) -> bytes:
        """The frame :meth:`encode` gives, with a wrong CRC (fault injection)."""
        ...


class UnsupportedEvent(ValueError):
    """The dialect has no way to say this event (e.g. ``beetek`` has no heartbeat)."""


def make_decoder(name: str) -> Decoder:
    """A new decoder for the named dialect.

    Args:
        name: a name in :data:`DIALECTS`.

    Returns:
        A fresh decoder with empty buffers and counters.

    Raises:
        ValueError: unknown dialect name.
    """
    return _resolve(dialect_named(name).decoder)()  # type: ignore[no-any-return]


def make_encoder(name: str, **options: object) -> Encoder:
    """A new encoder for the named dialect.

    Args:
        name: a name in :data:`DIALECTS`.
        **options: the dialect's encoder options, e.g. ``style="suit-first"`` or
            ``ten="T"`` for beetek.

    Returns:
        An encoder.

    Raises:
        ValueError: unknown dialect name.
        TypeError: an option the dialect's encoder does not take.
    """
    return _resolve(dialect_named(name).encoder)(**options)  # type: ignore[no-any-return]
