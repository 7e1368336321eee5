"""The table's record of a journal fault that passed (docs/requirements.md R20).

A write the journal could not make (a full disk, SQLite's write lock held by another
process) puts the table in a journal fault: inputs are refused, and the table retries
until a self-check proves the fault gone (:mod:`controller.game.journal_fault`). Then,
first in the journal again, it records the fault and its clearing as one ``journal_fault``
record (actor ``system``): why the writes failed, since when, and what was not recorded
meanwhile. A device that goes and comes back (the floor's broker, a screen) is journaled
when it goes and when it is back, as ``device`` records (:class:`DeviceRecord`). Declared
apart from :mod:`controller.game.inputs`, which reads these declarations as the bodies of
those kinds (and re-exports them). A leaf: it imports only :mod:`msgspec` and the rule for
free text (:mod:`controller.game.text`, itself a leaf).
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from controller.game.text import SAFE_TEXT_PATTERN, for_terminal

JOURNAL_FAULT = "journal_fault"
"""The journal kind of a fault's record, journaled once it cleared."""
MAX_CARDS = 52
"""The most cards a record names (``lost`` counts them all)."""
Name = Annotated[str, Meta(max_length=40)]
Count = Annotated[int, Meta(ge=1)]
Counts = Annotated[dict[Name, Count], Meta(max_length=64)]


class JournalFault(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A journal fault and its clearing, journaled by the self-check that cleared it.

    The record's own time is when the fault cleared.

    Attributes:
        reason: why the writes failed, in the journal's words (``database or disk is
            full``).
        began: when the first write failed (ISO 8601 UTC).
        tries: the self-checks made; the last one passed.
        refused: dealer commands refused during the fault, by name: each was answered
            with a refusal (the screen showed it), and may be given again.
        lost: the shoe's events and the table's own records not recorded, by kind
            (``card``, ``link``, ``environment``...).
        cards: the cards among them, as the shoe read them (``?``: a misread), at most
            :data:`MAX_CARDS`: out of the shoe, on the layout, in no record. A round being
            dealt then waits for a supervisor (void, or resume and present them again).
    """

    reason: Annotated[str, Meta(max_length=512)]
    began: Annotated[str, Meta(max_length=64)]
    tries: Count = 1
    refused: Counts = {}
    lost: Counts = {}
    cards: Annotated[tuple[Annotated[str, Meta(max_length=16)], ...],
                     Meta(max_length=MAX_CARDS)] = ()


DEVICE = "device"
"""The journal kind of a device lost or back (:class:`DeviceRecord`)."""
FLOOR_BROKER = "floor broker"
"""The device of the floor feed's broker connection."""
DEVICES = (FLOOR_BROKER, "player screen", "dealer screen")
"""The devices a :class:`DeviceRecord` names."""
MAX_DETAIL = 200
"""The longest ``detail`` of a :class:`DeviceRecord`, characters."""
MAX_AWAY_MS = 10 * 365 * 86_400_000
"""The longest ``away_ms`` (ten years): a bound, never a time a device is expected away."""


class DeviceRecord(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A device lost, or back after it was lost (R20): journaled by the table (``system``).

    Only changes are journaled, never a check. Build one with :func:`device_record` (its
    detail made fit); the table checks every field against this declaration before it
    journals it, and refuses a record that fails (nothing journaled).

    Attributes:
        device: one of :data:`DEVICES`.
        state: ``lost`` or ``back``.
        detail: why it was lost, in the words of whatever lost it (``output 1 not found
            (1 found)``, the MQTT client's reason), at most :data:`MAX_DETAIL` characters,
            no control character; on ``back``, what proved it back.
        away_ms: on ``back``, how long it was away (milliseconds); 0 on ``lost``.
    """

    device: Literal["floor broker", "player screen", "dealer screen"]
    state: Literal["lost", "back"]
    detail: Annotated[str, Meta(max_length=MAX_DETAIL, pattern=SAFE_TEXT_PATTERN)] = ""
    away_ms: Annotated[int, Meta(ge=0, le=MAX_AWAY_MS)] = 0


def device_record(device: str, state: str, detail: object = "",
                  away_ms: float = 0) -> DeviceRecord:
    """A :class:`DeviceRecord` whose detail fits: control characters escaped, cut short.

    Args:
        device: one of :data:`DEVICES` (checked when the table journals it).
        state: ``lost`` or ``back`` (checked likewise).
        detail: any value; its text is made fit.
        away_ms: milliseconds, made a whole number.
    """
    return DeviceRecord(device=device, state=state,  # type: ignore[arg-type]
                        detail=for_terminal(detail)[:MAX_DETAIL], away_ms=int(away_ms))


__all__ = ["DEVICE", "DEVICES", "FLOOR_BROKER", "JOURNAL_FAULT", "MAX_AWAY_MS", "MAX_CARDS",
           "MAX_DETAIL", "DeviceRecord", "JournalFault", "device_record"]
