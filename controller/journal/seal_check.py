"""The check of a journal's seals with the public keys its chain carries (R16)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from controller.journal.seal import (
    ChainStart,
    Seal,
    is_journal_id,
    key_text,
    message,
    signature_ok,
)


@dataclass(slots=True)
class SealReport:
    """What the check of the seals found (``problems``: it stops at the first bad epoch)."""

    problems: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    last: Seal | None = None
    checked: int = 0
    anchored: bool = False


def verify(journal_id: str | None, starts: Sequence[ChainStart], seals: Sequence[Seal],
           heads: Mapping[int, str | None], *, keys: Sequence[bytes] = (),
           first_epoch: int = 0, round_of: Callable[[int], int | None] | None = None
           ) -> SealReport:
    """Check seals from ``first_epoch`` (start-up: its snapshot's) on.

    ``seals`` are oldest first from the epoch before (its key unchecked); ``heads``: the chain
    hash at each sealed event (None: not compared); ``keys``: raw 32-byte keys, one of which
    must start every chain; ``round_of`` names a bad seal's round.
    """
    rep = SealReport()
    problem = _unreadable(journal_id, starts)
    if problem is not None:
        rep.problems.append(problem)
        return rep
    before = [s for s in seals if s.epoch < first_epoch]
    key = _key_before(starts, before, first_epoch)
    if starts[0].seq and first_epoch == 0:
        rep.notes.append(f"the journal's seals start at event {starts[0].seq} (`seal init`): "
                         f"events 1 to {starts[0].seq} were sealed then, not as they were "
                         "written")
    given = set(keys)
    if given and first_epoch == 0 and starts[0].key not in given:
        rep.problems.append((f"the journal's verification key is {key_text(starts[0].key)}, "
                             "not the key given: this is another journal, or it was sealed "
                             "anew", None, 0))
        return rep
    by_start = {c.epoch: c for c in starts}
    epoch, prev_seq = first_epoch, before[-1].seq if before else -1
    for s in (s for s in seals if s.epoch >= first_epoch):
        if epoch != s.epoch:
            rep.problems.append((f"the seal of epoch {epoch} is missing: the epochs are not "
                                 "contiguous (a seal was deleted)", None, epoch))
            return rep
        c, problem = by_start.get(epoch), None
        if c is not None:
            key = c.key
            problem = _chain_start_problem(c, given, heads, rep.notes)
        problem = problem or _seal_problem(s, key, journal_id, heads, prev_seq, round_of)
        if problem is not None:
            rep.problems.append(problem)
            return rep
        rep.checked += 1
        rep.last = s
        prev_seq, key, epoch = s.seq, s.next_key, s.epoch + 1
    rep.anchored = bool(given)
    return rep


Problem = tuple[str, int | None, int | None]


def _unreadable(journal_id: str | None, starts: Sequence[ChainStart]) -> Problem | None:
    if not starts or starts[0].epoch != 0:
        return ("the journal's seals have no chain start at epoch 0: they were deleted or "
                "made up", None, 0)
    if not journal_id or len(journal_id) != 64:
        return ("the journal's id was removed from its file: its seals cannot be checked",
                None, None)
    if not is_journal_id(journal_id):  # a byte overwritten: no id a seal could have signed
        return ("the journal's id in its file is damaged (not 64 hexadecimal digits): its "
                "seals cannot be checked", None, None)
    return None


def _key_before(starts: Sequence[ChainStart], before: Sequence[Seal],
                first_epoch: int) -> bytes | None:
    """The key of ``first_epoch``'s seal when no chain starts there (None: not known)."""
    if before:
        return before[-1].next_key
    if first_epoch not in {c.epoch for c in starts}:
        known = [c for c in starts if c.epoch <= first_epoch]
        return known[-1].key if known else None
    return None


def _chain_start_problem(c: ChainStart, given: set[bytes], heads: Mapping[int, str | None],
                         notes: list[str]) -> Problem | None:
    epoch = c.epoch
    if given and c.key not in given:
        return (f"the chain starting at epoch {epoch} (event {c.seq}) has the key "
                f"{key_text(c.key)[:16]}..., not a verification key given", c.seq, epoch)
    if c.seq and heads.get(c.seq) not in (None, c.head):
        return (f"the chain starting at epoch {epoch} names event {c.seq} with another hash: "
                "an event before it was changed", c.seq, epoch)
    if epoch and c.seq:
        notes.append(f"a new seal chain starts at epoch {epoch}, at event {c.seq} (key "
                     f"{key_text(c.key)[:16]}...): what came before it was sealed anew then")
    return None


def _seal_problem(s: Seal, key: bytes | None, journal_id: str,
                  heads: Mapping[int, str | None], prev_seq: int,
                  round_of: Callable[[int], int | None] | None) -> Problem | None:
    def where() -> str:  # the round is asked only of a bad seal
        rid = round_of(s.seq) if round_of is not None else None
        return f"epoch {s.epoch} (events to {s.seq}" + (f", round {rid})" if rid else ")")

    if key is None or not signature_ok(
            key, s.signature, message(journal_id, s.epoch, s.seq, s.head, s.next_key)):
        return (f"the seal of {where()} does not verify with its epoch's key: it was forged "
                "or changed", s.seq, s.epoch)
    head = heads.get(s.seq)
    if s.seq < prev_seq or (head is not None and head != s.head) or s.seq not in heads:
        return (f"the seal of {where()} does not match the journal: an event at or before "
                f"event {s.seq} was changed, inserted, deleted or reordered", s.seq, s.epoch)
    return None


__all__ = ["SealReport", "verify"]
