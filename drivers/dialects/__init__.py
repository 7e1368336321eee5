"""Dialects: pure, incremental translators between shoe bytes and shoe events.

Each dialect is listed once, in :data:`DIALECTS` (docs/shoe-frames.md).
"""

from __future__ import annotations

import pkgutil
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.game.events import FrameError, ShoeEvent


@dataclass(frozen=True, slots=True)
class Dialect:
    """One shoe dialect: its translators (classes, or ``"module:Class"`` imported at first use).

    Attributes:
        name: its name in URLs, ``--dialect`` and the configuration (``[a-z0-9_-]``).
        baud: its shoes' serial speed, bits per second, unless the URL says ``baud=``.
        heartbeat: its shoes send heartbeats and answer ``PING``: a quiet one is ``SILENT``.
        numbered: every line carries a seq and a CRC (a simulator can fault them).
    """

    name: str
    decoder: str | type
    encoder: str | type
    baud: int = 9600
    heartbeat: bool = False
    numbered: bool = False


# The dialects this product speaks: the one list every part reads.
DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("beetek", "drivers.dialects.beetek:BeetekDecoder",
            "drivers.dialects.beetek:BeetekEncoder", baud=9600),
    Dialect("native", "drivers.dialects.native:NativeDecoder",
            "drivers.dialects.native:NativeEncoder", baud=115200, heartbeat=True,
            numbered=True),
)}

_NAME = re.compile(r"[a-z][a-z0-9_-]*")


def register_dialect(dialect: Dialect) -> Dialect:
    """Add a dialect to :data:`DIALECTS`; ValueError for a name not fit for a URL, or taken."""
    if not _NAME.fullmatch(dialect.name):
        raise ValueError(f"bad dialect name {dialect.name!r}: lower-case letters, digits, "
                         f"'-' and '_', starting with a letter")
    known = DIALECTS.get(dialect.name)
    if known is not None and known != dialect:
        raise ValueError(f"the shoe dialect {dialect.name!r} is already registered")
    DIALECTS[dialect.name] = dialect
    return dialect


def dialect_named(name: str) -> Dialect:
    """The registered dialect called ``name``; ValueError listing the known ones if none."""
    try:
        return DIALECTS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown shoe dialect {name!r} "
                         f"(expected one of {', '.join(DIALECTS)})") from None


def _resolve(ref: str | type) -> Any:
    return pkgutil.resolve_name(ref) if isinstance(ref, str) else ref


@dataclass(slots=True)
class DecoderStats:
    """What a decoder has seen and dropped since it was made (docs/shoe-frames.md)."""

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
    """Shared ``feed`` of the dialect decoders: the guard that makes it never raise."""

    name = "?"

    def __init__(self) -> None:
        self.stats = DecoderStats()

    def reset(self) -> None:
        """Forget any unfinished frame."""
        raise NotImplementedError

    def _feed(self, data: bytes, out: list[ShoeEvent]) -> None:
        raise NotImplementedError

    def feed(self, data: bytes) -> list[ShoeEvent]:
        """The events these bytes complete, in order; never raises (errors count as malformed)."""
        out: list[ShoeEvent] = []
        try:
            self._feed(bytes(data), out)
        except Exception as exc:  # noqa: BLE001 - defensive: feed() must never raise
            self.stats.internal_errors += 1
            self.reset()
            out.append(FrameError(reason="malformed", detail=f"decoder error: {exc!r}"))
        return out


class ScanningDecoder(BaseDecoder):
    """A decoder whose frames are marked by the bytes ``SPECIAL`` matches.

    Runs of other bytes go to ``_plain(data, pos, end, out)``, each special byte to
    ``_special(byte, out)``.
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
        """Encode one event as one frame with its line end; UnsupportedEvent if it cannot."""
        ...


class CheckedEncoder(Encoder, Protocol):
    """The encoder of a numbered dialect, whose every line carries a CRC."""

    def encode_bad_crc(self, event: ShoeEvent) -> bytes:
        """The frame :meth:`encode` gives, with a wrong CRC (fault injection)."""
        ...


class UnsupportedEvent(ValueError):
    """The dialect has no way to say this event (e.g. ``beetek`` has no heartbeat)."""


def make_decoder(name: str) -> Decoder:
    """A new decoder for the named dialect; ValueError for an unknown name."""
    return _resolve(dialect_named(name).decoder)()  # type: ignore[no-any-return]


def make_encoder(name: str, **options: object) -> Encoder:
    """A new encoder for the named dialect (``options``: its encoder's, e.g. ``ten="T"``).

    Raises:
        ValueError: unknown dialect name; TypeError: an option its encoder does not take.
    """
    return _resolve(dialect_named(name).encoder)(**options)  # type: ignore[no-any-return]
