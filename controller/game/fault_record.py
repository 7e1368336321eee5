"""The records of a journal fault that passed and of a device lost and back (R20).

A leaf (msgspec and :mod:`controller.game.text`); :mod:`controller.game.inputs` reads them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from controller.game.text import SAFE_TEXT_PATTERN, for_terminal

JOURNAL_FAULT = "journal_fault"
MAX_CARDS = 52
Name = Annotated[str, Meta(max_length=40)]
Count = Annotated[int, Meta(ge=1)]
Counts = Annotated[dict[Name, Count], Meta(max_length=64)]


class JournalFault(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A journal fault and its clearing; the record's own time is when it cleared.

    ``refused``: commands refused meanwhile; ``lost``: inputs not recorded, by kind; ``cards``:
    those out of the shoe in no record (``?`` a misread); a round being dealt awaits a supervisor.
    """

    reason: Annotated[str, Meta(max_length=512)]
    began: Annotated[str, Meta(max_length=64)]
    tries: Count = 1
    refused: Counts = {}
    lost: Counts = {}
    cards: Annotated[tuple[Annotated[str, Meta(max_length=16)], ...],
                     Meta(max_length=MAX_CARDS)] = ()


DEVICE = "device"
FLOOR_BROKER = "floor broker"
DEVICES = (FLOOR_BROKER, "player screen", "dealer screen")
MAX_DETAIL = 200
# The longest away_ms (ten years): a bound, never a time a device is expected away.
MAX_AWAY_MS = 10 * 365 * 86_400_000


class DeviceRecord(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A device lost, or back (R20); made by :func:`device_record`."""

    device: Literal["floor broker", "player screen", "dealer screen"]
    state: Literal["lost", "back"]
    detail: Annotated[str, Meta(max_length=MAX_DETAIL, pattern=SAFE_TEXT_PATTERN)] = ""
    away_ms: Annotated[int, Meta(ge=0, le=MAX_AWAY_MS)] = 0


def device_record(device: str, state: str, detail: object = "",
                  away_ms: float = 0) -> DeviceRecord:
    """A :class:`DeviceRecord` whose detail fits: control characters escaped, cut short."""
    return DeviceRecord(device=device, state=state,  # type: ignore[arg-type]
                        detail=for_terminal(detail)[:MAX_DETAIL], away_ms=int(away_ms))


__all__ = ["DEVICE", "DEVICES", "FLOOR_BROKER", "JOURNAL_FAULT", "MAX_AWAY_MS", "MAX_CARDS",
           "MAX_DETAIL", "DeviceRecord", "JournalFault", "device_record"]
