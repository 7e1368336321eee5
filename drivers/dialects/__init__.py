r"""Dialects: pure, incremental translators between shoe bytes and shoe events.

A *decoder* has ``feed(data: bytes) -> list[ShoeEvent]``. It keeps any unfinished frame
between calls, so the events depend only on the byte stream and never on how it was split
into reads; it resynchronises after noise; it never raises and never invents a card; it
counts what it drops in :class:`DecoderStats` and reports each dropped frame as a
:class:`~controller.game.events.FrameError` event.

An *encoder* turns events back into bytes (the simulators and tests use it).

Dialects are found by name, lazily::

    decoder = make_decoder("native")
    events = decoder.feed(b"$17,CARD,Qh*...\\r\\n")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from controller.game.events import FrameError, ShoeEvent

DIALECTS: tuple[str, ...] = ("native", "beetek")
"""The dialect names this product speaks."""


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


class Encoder(Protocol):
    """Turns events into the bytes a shoe of one dialect would send."""

    name: str

    def encode(self, event: ShoeEvent) -> bytes:
        """Encode one event as one frame, including its line end."""
        ...


class UnsupportedEvent(ValueError):
    """The dialect has no way to say this event (e.g. ``beetek`` has no heartbeat)."""


def make_decoder(name: str) -> Decoder:
    """A new decoder for the named dialect.

    Args:
        name: ``native`` or ``beetek``.

    Returns:
        A fresh decoder with empty buffers and counters.

    Raises:
        ValueError: unknown dialect name.
    """
    if name == "native":
        from drivers.dialects.native import NativeDecoder

        return NativeDecoder()
    if name == "beetek":
        from drivers.dialects.beetek import BeetekDecoder

        return BeetekDecoder()
    raise ValueError(f"unknown shoe dialect {name!r} (expected one of {', '.join(DIALECTS)})")


def make_encoder(name: str, **options: object) -> Encoder:
    """A new encoder for the named dialect.

    Args:
        name: ``native`` or ``beetek``.
        **options: dialect options, e.g. ``style="suit-first"`` or ``ten="T"`` for beetek.

    Returns:
        An encoder.

    Raises:
        ValueError: unknown dialect name.
    """
    if name == "native":
        from drivers.dialects.native import NativeEncoder

        return NativeEncoder()
    if name == "beetek":
        from drivers.dialects.beetek import BeetekEncoder

        return BeetekEncoder(**options)  # type: ignore[arg-type]
    raise ValueError(f"unknown shoe dialect {name!r} (expected one of {', '.join(DIALECTS)})")
