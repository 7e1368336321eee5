"""The table's record of a journal fault that passed (docs/requirements.md R20).

A write the journal could not make (a full disk, SQLite's write lock held by another
process) puts the table in a journal fault: inputs are refused, and the table retries
until a self-check proves the fault gone (:mod:`controller.game.journal_fault`). Then,
first in the journal again, it records the fault and its clearing as one ``journal_fault``
record (actor ``system``): why the writes failed, since when, and what was not recorded
meanwhile. Declared apart from :mod:`controller.game.inputs`, which reads this declaration
as the body of that kind (and re-exports it). A leaf: it imports only :mod:`msgspec`.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

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


__all__ = ["JOURNAL_FAULT", "MAX_CARDS", "JournalFault"]
