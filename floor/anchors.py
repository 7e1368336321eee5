"""The floor as the journal's anchor outside the table (``verify-journal --floor-store``).

A journal cut short, put back, rewritten or replaced no longer holds the seals the floor
verified; a floor record that fails its seals is the floor's fault, not the journal's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.game.recall import as_recalled, recorded_config
from controller.game.replay import round_records
from controller.journal import Journal
from controller.journal import seal as sealing
from controller.journal.seal import message, signature_ok
from floor.messages import FINISHED, SealRow
from floor.store import Store, read_store


@dataclass(frozen=True, slots=True)
class FloorVerdict:
    """A journal compared with the floor's record (``never_sealed``: the store's faults)."""

    table_id: str
    journal: str
    rounds_checked: int
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    never_sealed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the journal holds everything the floor verified of it."""
        return not self.problems

    def summary(self) -> str:
        """One line for an operator."""
        notes = "".join(f"; {n}" for n in self.notes)
        floor = "".join(f"; {n}" for n in self.never_sealed)
        if not self.ok:
            return f"FLOOR MISMATCH: {'; '.join(self.problems)}{floor}{notes}"
        if self.never_sealed:
            return (f"floor STORE SUSPECT: the journal matches what the floor verified of "
                    f"table {self.table_id}, but {floor[2:]}{notes}")
        return (f"floor OK: the {self.rounds_checked} rounds the floor recorded of table "
                f"{self.table_id} match the journal{notes}")


def _table_id(j: Journal) -> str:
    return str(recorded_config(j).get("table_id", ""))


def _records(j: Journal, first: int) -> dict[int, dict[str, Any]]:
    _, first_utc = j.genesis()
    return {r["round_id"]: as_recalled(r, first_utc)
            for r in round_records(j, first=max(first, 1))}


def _floor_seals(chain: tuple[str, str] | None, seals: list[tuple[SealRow, int]]
                 ) -> tuple[list[tuple[SealRow, int]], str | None]:
    """The floor's seals that verify from its chain's start key, and why the rest do not."""
    if chain is None:
        return [], ("the floor holds seals of this journal but not its chain's start"
                    if seals else None)
    jid, key = chain[0], bytes.fromhex(chain[1])
    good = []
    for epoch, (s, rid) in enumerate(seals):
        if s.epoch != epoch or not signature_ok(key, bytes.fromhex(s.signature), message(
                jid, s.epoch, s.seq, s.head, bytes.fromhex(s.next_key))):
            return good, (f"the floor holds a record the table never sealed: its seal of "
                          f"epoch {s.epoch} (round {rid}) does not verify with the "
                          "journal's keys")
        good.append((s, rid))
        key = bytes.fromhex(s.next_key)
    return good, None


def _seal_changes(j: Journal, chain: tuple[str, str] | None,
                  verified: list[tuple[SealRow, int]]) -> str | None:
    """How the journal changed from the seals the floor verified (None: it holds them)."""
    jid = j.meta.get("journal_id")
    starts = sealing.chains(j.db)
    if chain is not None and (jid != chain[0] or not starts
                              or starts[0].key.hex() != chain[1]):
        return ("the journal changed: the floor verified it under journal id "
                f"{chain[0][:16]} with the verification key {chain[1][:16]}..., the journal "
                "now holds another chain (it was sealed anew or replaced)")
    mine = {s.epoch: s for s in sealing.seals(j.db)}
    last_round = max((rid for rid, status, end in j.round_ends() if status in FINISHED
                      and (end is None or end <= j.last_seq)), default=0)
    for s, rid in verified:
        held = mine.get(s.epoch)
        if j.last_seq < s.seq:
            return (f"the journal changed: the floor holds round {rid} sealed at event "
                    f"{s.seq}, the journal ends at event {j.last_seq} (round "
                    f"{last_round}): it was cut, or put back to an older copy")
        if held is None:
            return (f"the journal changed: it holds no seal of epoch {s.epoch}, which the "
                    f"floor verified (round {rid}, event {s.seq}): its seals were removed")
        if (held.seq, held.head, held.signature.hex()) != (s.seq, s.head, s.signature):
            return (f"the journal changed: its seal of epoch {s.epoch} is not the one the "
                    f"floor verified (round {rid}, event {s.seq}): it was put back to an "
                    "older copy and played on, or replaced")
        if s.seq >= j.first_seq and j.event_hash(s.seq) != s.head:
            return (f"the journal changed: event {s.seq}, where the floor's seal of epoch "
                    f"{s.epoch} (round {rid}) ends, carries another hash: the journal was "
                    "rewritten")
    return None


def compare(journal_path: str | Path, store_path: str | Path,
            archive: str | Path | None = None) -> FloorVerdict:
    """Compare a journal (with its archive) with the floor's store, both read-only.

    Raises JournalError or StoreError when either cannot be read.
    """
    def with_store(store: Store) -> FloorVerdict:
        j = Journal(journal_path, readonly=True, archive=archive)
        try:
            return _compare(j, store)
        finally:
            j.close()

    return read_store(store_path, with_store)  # a server gone mid-read: a StoreError


def _compare(j: Journal, store: Store) -> FloorVerdict:
    table = _table_id(j)
    genesis, _ = j.genesis()
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
    chain = store.chain(table, genesis)
    verified, bad = _floor_seals(chain, store.seals(table, genesis))
    changed = _seal_changes(j, chain, verified)
    problems = [changed] if changed else []
    never = [bad] if bad else []
    good_to = verified[-1][0].seq if verified else 0
    rounds = store.sealed_rounds(table, genesis)
    stored = {r["round_id"]: r for r in store.rounds(table, genesis)}
    notes: list[str] = []
    checked = [rid for rid, seq, epoch in rounds if epoch is not None and seq <= good_to]
    unsealed = [rid for rid, _, epoch in rounds if epoch is None]
    archived = [rid for rid, seq, _ in rounds if seq < j.first_seq]
    here = [rid for rid, seq, _ in rounds if seq >= j.first_seq]
    if not changed and here:
        mine = _records(j, min(here))
        differ = [rid for rid in checked if rid not in archived and mine.get(rid) != stored[rid]]
        if differ:
            never.append(f"the floor holds a record the table never sealed: its record of "
                         f"round {', '.join(map(str, differ[:10]))}"
                         + (" ..." if len(differ) > 10 else "")
                         + " differs from the one the journal's sealed rows make")
        odd = [rid for rid in unsealed if rid not in archived and mine.get(rid) != stored[rid]]
        if odd:
            never.append(f"the floor holds a record the table never sealed: round "
                         f"{', '.join(map(str, odd[:10]))}" + (" ..." if len(odd) > 10 else "")
                         + ", stored without a seal, differs from the journal's")
    if unsealed:
        notes.append(f"{len(unsealed)} round(s) recorded without a seal (a recorder of an "
                     "earlier version)")
    if archived:
        notes.append(f"{len(archived)} round(s) in an archive not found here: not compared")
    prunes = [p for p in store.prunes(table) if p.journal == genesis]
    if prunes:  # moved into archives by `floor prune`: not lacking
        notes.append(f"rounds 1 to {prunes[-1].to_round} pruned from the floor's store "
                     "into " + ", ".join(f"{p.archive} (sha256 {p.sha256[:16]}...)"
                                         for p in prunes)
                     + ": verify them with --floor-store ARCHIVE")
    newest = max(max(stored, default=0), prunes[-1].to_round if prunes else 0)
    if finished > newest:
        notes.append(f"rounds {newest + 1} to {finished} not on the floor yet")
    return FloorVerdict(table, genesis, len(checked), tuple(problems), tuple(notes),
                        tuple(never))
