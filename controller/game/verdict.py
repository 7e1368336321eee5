"""What the journal verifier (:mod:`.verifier`) answers: problems, verdict, recovery."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.journal import OUTBOX_TABLE

if TYPE_CHECKING:  # what a recovery holds: the verifier replays into them
    from controller.game.engine import Derived, Game

# The journal: the hash chain, every table derived from it, and ``meta`` (its cut: the
# events after it chain to the hash it keeps).
CHECKED_TABLES = frozenset({"events", "rounds", "meters", "counters", "outcome_meters",
                            "snapshots", "rejections", "derived_at", "meta", "chains",
                            "seals"})
# The floor feed's outbox cursor sits in the journal's file, beside the hash chain, and is
# left out of every check ON PURPOSE: it is not a record of the table but the position up
# to which the floor's broker acknowledged the feed, moved by the publisher's own
# connection whenever an acknowledgement comes, at any moment, outside the table's
# commits. Nothing of the game is derived from it or replayed into it. A cursor edited
# or deleted changes no record: the feed sends rounds again (the recorder drops the
# duplicates) or skips some (the recorder sees the gap in the round chain and asks the
# table to send them again from this journal). Checking it would lock a sound table.
UNCHECKED_TABLES = frozenset({OUTBOX_TABLE})

class Note(str):
    """A verdict's note: English words (the string) with a ``key`` and ``params`` to translate."""

    key: str
    params: dict[str, Any]

    def __new__(cls, text: str, key: str = "", **params: Any) -> Note:  # noqa: D102
        note = super().__new__(cls, text)
        note.key, note.params = key, params
        return note


NO_ANCHOR = Note("tail unchecked: no anchor", "no_anchor")

# A snapshot whose seal is not that of the chain at its event (its event, to format).
UNSEALED = "the snapshot after event {} is not sealed to the chain: it was changed"

INTEGRITY_FAILED = "Journal integrity check failed"


def integrity_lock(message: str) -> str:
    """The lock reason of a table whose journal failed (R4): screens show ``journal_broken``."""
    return f"{INTEGRITY_FAILED}: {message}"


def unreplayed_note(first: int, last: int, where: str) -> Note:
    """The note on events a check counted and checked for form but did not rehash."""
    return Note(f"events {first} to {last} were not rehashed or replayed {where} (counted, "
                "their records checked for form): `threecard verify-journal` checks them",
                "unreplayed", first=first, last=last)


def after_anchor_note(anchor: int, last: int) -> Note:
    """The note on events after the anchor and the last seal (a crash leaves a few)."""
    return Note(f"events {anchor + 1} to {last} ({last - anchor}) are after the anchor (event "
                f"{anchor}): the anchor does not cover them", "after_anchor", first=anchor + 1,
                last=last, anchor=anchor)


CHEAP_CHECKS = {"count": "the count of the events",
                "records": "the records before the start point",
                "pages": "the file's pages"}


def unfinished_note(who: str, unfinished: list[str], seconds: float) -> Note:
    """The note on the cheap checks (keys of :data:`CHEAP_CHECKS`) not finished in ``seconds``."""
    said = [CHEAP_CHECKS[p] for p in unfinished]
    what = ", ".join(said[:-1]) + " and " if said[1:] else ""
    return Note(f"{who} did not finish {what}{said[-1]} in {seconds:g} s: `threecard "
                "verify-journal` checks them", "unfinished", parts=tuple(unfinished),
                seconds=seconds)


class ProblemKind(enum.Enum):
    """What is wrong with a journal."""

    # The anchor beside the journal cannot be read.
    ANCHOR = "anchor"
    # The journal holds no events, but its anchor names one.
    EMPTIED = "emptied"
    # The journal ends before the event its anchor (or a logged head) names.
    TAIL_DELETED = "tail_deleted"
    # An anchored or logged event carries another hash: the chain was recomputed.
    REWRITTEN = "rewritten"
    # SQLite cannot read the file (a damaged page).
    UNREADABLE = "unreadable"
    # An event is missing from the sequence.
    EVENT_MISSING = "event_missing"
    # An event's hash does not recompute or does not link to the one before.
    EVENT_ALTERED = "event_altered"
    # An event's body is not a JSON object.
    EVENT_UNREADABLE = "event_unreadable"
    # An event cannot be applied.
    REPLAY = "replay"
    # A snapshot was changed, deleted or added, or is not sealed to the chain.
    SNAPSHOT = "snapshot"
    # The record of the event the derived tables were written after was changed.
    DERIVED_MARK = "derived_mark"
    # The stored meters differ from the replay.
    METERS = "meters"
    # The stored event counters differ from the replay.
    COUNTERS = "counters"
    # A round record was changed, deleted or added.
    ROUND = "round"
    # A round record is not readable JSON.
    ROUND_UNREADABLE = "round_unreadable"
    # A rejection was changed, deleted or added.
    REJECTION = "rejection"
    # A seal does not verify, does not match the journal, is missing, or its chain is not the
    # verification key's (or a witness's seal is not held).
    SEAL = "seal"
    # The file holds a trigger (code that would change what the table writes) or a view (rows
    # made up in a table's place): no journal has either.
    SCHEMA_OBJECT = "schema_object"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a journal, in English, with where (``seq``, or ``key``: a round id)."""

    kind: ProblemKind
    message: str
    seq: int | None = None
    key: str | None = None


@dataclass(frozen=True, slots=True)
class JournalVerdict:
    """The answer of :func:`check`.

    ``checked_from``: 1, or the event after the verified snapshot; ``unreplayed``: (first,
    last) checked for form only; ``last_seal``: (epoch, event, signature hex) or None.
    """

    problems: tuple[Problem, ...] = ()
    events: int = 0
    checked_from: int = 1
    snapshots_checked: int = 0
    rounds_checked: int = 0
    anchor_seq: int | None = None
    notes: tuple[str, ...] = ()
    unreplayed: tuple[int, int] | None = None
    last_seal: tuple[int, int, str] | None = None
    verification_key: str | None = None
    key_given: bool = False

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    @property
    def after_anchor(self) -> int:
        """Events after the anchor and the last seal (a crash leaves a few)."""
        if self.anchor_seq is None:
            return 0
        sealed = self.last_seal[1] if self.last_seal is not None else 0
        return max(0, self.events - max(self.anchor_seq, sealed))

    @property
    def problem(self) -> Problem | None:
        """The first problem found, or None."""
        return self.problems[0] if self.problems else None

    @property
    def message(self) -> str:
        """The problems in one line (empty when sound)."""
        return "; ".join(p.message for p in self.problems)

    def key(self) -> tuple[tuple[str, int | None, str | None], ...]:
        """The verdict as comparable data: (kind, seq, key) of every problem."""
        return tuple((p.kind.value, p.seq, p.key) for p in self.problems)

    def seal_words(self) -> str:
        """What the seals say, for :meth:`summary` ("" for a verdict that checked none)."""
        if self.verification_key is None:
            return "; not sealed" if self.events and self.checked_from == 1 else ""
        if self.last_seal is None:
            return "; no seal yet"
        epoch, seq, _ = self.last_seal
        words = f"; sealed to event {seq} (epoch {epoch})"
        if self.key_given:
            words += " from the verification key given"
        elif self.checked_from == 1:
            words += (", consistent but unanchored: no verification key given (the "
                      f"journal's own is {self.verification_key})")
        if self.events > seq:
            words += f"; events {seq + 1} to {self.events} not sealed yet"
        return words

    def summary(self) -> str:
        """One line for an operator: OK with what was checked, or what is wrong."""
        notes = "".join(f"; {n}" for n in self.notes)
        if not self.ok:
            return f"JOURNAL BROKEN: {self.message}{notes}"
        anchor = (f"; anchor at event {self.anchor_seq} holds" if self.anchor_seq is not None
                  else "")
        anchor += self.seal_words()
        return (f"journal OK: {self.events} events, hash chain intact from event "
                f"{self.checked_from}, {self.snapshots_checked} snapshots and "
                f"{self.rounds_checked} round records match a replay{anchor}{notes}")


@dataclass
class Recovery:
    """A :func:`check` with what start-up needs: ``pending`` rows, the ``verified`` snapshot."""

    verdict: JournalVerdict
    game: Game | None = None
    pending: list[Derived] = field(default_factory=list)
    verified: tuple[int, str] | None = None


__all__ = ["CHEAP_CHECKS", "CHECKED_TABLES", "INTEGRITY_FAILED", "JournalVerdict", "NO_ANCHOR",
           "UNSEALED", "Note", "Problem", "ProblemKind", "Recovery", "UNCHECKED_TABLES",
           "after_anchor_note", "integrity_lock", "unfinished_note", "unreplayed_note"]
