"""The floor as the journal's anchor outside the table (``verify-journal --floor-store``).

Every round the floor recorded names its journal (the hash of the first event) and its
last event (sequence number and hash). A journal at the table must still hold each of
those events with those hashes, and the record of each of those rounds: a journal cut
short, emptied, rewritten with a recomputed chain, or replaced by another is caught, even
with its anchor file deleted beside it. Rounds the journal holds and the floor has not yet
recorded are noted, not faulted (the feed may lag, or the floor may have been down).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.game.recall import as_recalled, recorded_config
from controller.game.replay import round_records
from controller.journal import Journal
from floor.follower import FINISHED
from floor.store import SeriesRow, Store


@dataclass(frozen=True, slots=True)
class FloorVerdict:
    """A journal compared with the floor's record.

    Attributes:
        table_id: the table the journal belongs to (its ``startup`` records say).
        journal: the hash of the journal's first event ("" for an empty journal).
        rounds_checked: rounds the floor recorded and the journal was checked against.
        problems: what does not match, in English (empty: it matches).
        notes: what was not compared.
    """

    table_id: str
    journal: str
    rounds_checked: int
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the journal holds everything the floor recorded of it."""
        return not self.problems

    def summary(self) -> str:
        """One line for an operator."""
        notes = "".join(f"; {n}" for n in self.notes)
        if not self.ok:
            return f"FLOOR MISMATCH: {'; '.join(self.problems)}{notes}"
        return (f"floor OK: the {self.rounds_checked} rounds the floor recorded of table "
                f"{self.table_id} match the journal{notes}")


def _table_id(j: Journal) -> str:
    return str(recorded_config(j).get("table_id", ""))


def _disowned(store: Store, series: SeriesRow | None, round_id: int,
              end: tuple[int, str]) -> bool:
    """True when the table's chain names another end for a stored round.

    The round after it names another previous-round event, or (the newest round) the
    table's newest state names another last-round event. Such a record is not the
    table's word (a message sent under its name, not from its journal); the recorder asks
    the table for the round again.
    """
    nxt = store.link(series.table, series.journal, round_id + 1) if series else None
    if nxt is not None:
        return (nxt.prev_seq, nxt.prev_hash) != end
    return series is not None and series.announced == round_id \
        and series.announced_hash is not None \
        and (series.announced_seq, series.announced_hash) != end


def _records(j: Journal, links: list[tuple[int, int, str]]) -> list[dict[str, Any]]:
    """The journal's records of the rounds the floor recorded (one replay)."""
    if not links:
        return []
    first = min(rid for rid, _, _ in links)
    return round_records(j, first=max(first, 1))


def compare(journal_path: str | Path, store_path: str | Path,
            archive: str | Path | None = None) -> FloorVerdict:
    """Compare a journal with the floor's store (both opened read-only).

    The journal is read with its archive (``archive``, else the one beside it): rounds
    moved there are compared too.

    Raises:
        JournalError: the journal cannot be read.
        StoreError: the store cannot be read.
    """
    store = Store(store_path, readonly=True)
    j = Journal(journal_path, readonly=True, archive=archive)
    try:
        return _compare(j, store)
    finally:
        j.close()
        store.close()


def _compare(j: Journal, store: Store) -> FloorVerdict:
    table = _table_id(j)
    genesis, first_utc = j.genesis()
    journals = store.journals(table)
    finished = max((rid for rid, status, _ in j.round_ends() if status in FINISHED),
                   default=0)
    if genesis not in journals:
        if not journals:
            if finished == 0:
                return FloorVerdict(table, genesis, 0, notes=("no round to compare",))
            return FloorVerdict(table, genesis, 0, (
                f"the floor holds nothing of table {table!r}: it never recorded this "
                "table, or the journal names another table",))
        return FloorVerdict(table, genesis, 0, (
            f"the floor recorded {len(journals)} journal(s) of table {table!r}, none starting "
            "with this journal's first event: the journal was replaced or rewritten from "
            "its start" + ("" if genesis else " (it holds no events)"),))
    problems: list[str] = []
    links = store.links(table, genesis)
    stored = {r["round_id"]: r for r in store.rounds(table, genesis)}
    series = next((r for r in store.series() if (r.table, r.journal) == (table, genesis)),
                  None)
    differ, disowned = [], []
    mine = {r["round_id"]: as_recalled(r, first_utc) for r in _records(j, links)}
    archived = 0
    for rid, seq, h in links:
        if _disowned(store, series, rid, (seq, h)):
            disowned.append(rid)
            continue
        if seq < j.first_seq:  # in an archive not found here
            archived += 1
            continue
        got = j.event_hash(seq)
        if got is None:
            problems.append(f"the journal ends at event {j.last_seq}, but the floor recorded "
                            f"round {rid} ending at event {seq}: events were deleted")
            break
        if got != h:
            problems.append(f"event {seq}, where round {rid} ended, carries another hash "
                            "than the floor recorded: the journal was rewritten")
            break
        if mine.get(rid) != stored[rid]:
            differ.append(rid)
    if differ:
        problems.append(f"the journal's record of {len(differ)} round(s) differs from the "
                        f"floor's: round {', '.join(map(str, differ[:10]))}"
                        + (" ..." if len(differ) > 10 else ""))
    notes = [f"{archived} round(s) in an archive not found here: not compared"
             ] if archived else []
    if disowned:
        notes.append(f"the floor's record of round {', '.join(map(str, disowned[:10]))} is "
                     "disowned by the table's own chain (the round after it, or its state, "
                     "names another end): not compared until the table sends it again")
    newest = links[-1][0] if links else 0
    if finished > newest:
        notes.append(f"rounds {newest + 1} to {finished} not on the floor yet")
    return FloorVerdict(table, genesis, len(links), tuple(problems), tuple(notes))
