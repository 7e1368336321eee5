"""Retention: settled history moved into an archive file (``journal archive``).

docs/journal-archive.md gives the rules; the table must be stopped (the writer lock).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from controller.game.engine import Derived
from controller.game.inputs import NextRound
from controller.game.replay import ReplayError, apply_each, start_state
from controller.game.verifier import check
from controller.journal import ARCHIVE_OF, OUTBOX_TABLE, Journal, Record, codec, snapshot_hash
from controller.journal.anchor import AnchorError, AnchorFile, JournalError

ARCHIVE_SUFFIX = ".archive"
BATCH = 5000


class ArchiveError(JournalError):
    """Nothing could be archived, or the archive did not verify (nothing was deleted)."""


@dataclass(frozen=True, slots=True)
class ArchiveResult:
    """What one :func:`archive` did: ``cut`` 0 if nothing moved, ``limited_by`` why not later."""

    journal: str
    archive: str
    cut: int
    events: int
    rounds: int
    limited_by: str
    bytes_before: int
    bytes_after: int


def default_archive(journal: str | Path) -> str:
    """The archive's path beside a journal: its real path with :data:`ARCHIVE_SUFFIX`."""
    return os.path.realpath(journal) + ARCHIVE_SUFFIX


def _utc(text: str) -> datetime | None:
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t


def floor_cursor(j: Journal) -> int | None:
    """The floor feed's cursor in this journal (None: no floor; a copy's cursor counts as 0)."""
    if OUTBOX_TABLE not in j.table_names():
        return None
    row = j.db.execute(f"SELECT seq, journal FROM {OUTBOX_TABLE} WHERE id = 1").fetchone()
    return row[0] if row and row[1] == j.genesis()[0] else 0


def choose_cut(j: Journal, before: datetime) -> tuple[int, str]:
    """The newest event history may be cut after, and what keeps it from being later."""
    rejected = j.rejections(j.base_seq)
    opens = [s for s in j.store.seqs_of(NextRound.name) if s > j.base_seq and s not in rejected]
    wanted = set(opens)
    old = [seq for seq, utc in j.times() if seq in wanted and (_utc(utc) or before) < before]
    cut, why = (old[-1] if old else 0), f"events older than {before.isoformat()}"
    anchor = AnchorFile.beside(j.real).read()
    if anchor is not None and cut > anchor.verified_seq:
        cut = max([s for s in old if s <= anchor.verified_seq], default=0)
        why = (f"the snapshot after event {anchor.verified_seq}, which start-up replays from "
               "(the table anchors a newer one as it plays)")
    cursor = floor_cursor(j)
    if cursor is not None:
        passed = [s for s in opens if s <= cursor]
        limit = passed[-2] if len(passed) >= 2 else 0
        if cut > limit:
            cut = max([s for s in old if s <= limit], default=0)
            why = f"the floor feed, which has delivered up to event {cursor}"
    return cut, why


def archive(journal: str | Path, older_than: timedelta, out: str | Path | None = None,
            now: datetime | None = None) -> ArchiveResult:
    """Move settled history older than ``older_than`` into an archive, verified first.

    Raises:
        JournalError: the journal cannot be opened for writing (a table runs on it), or read.
        ArchiveError: not this journal's archive, or it did not verify (journal left whole).
    """
    if not os.path.isfile(journal):
        raise JournalError(f"{journal}: no such journal")
    live = Journal(journal)
    try:
        before = os.path.getsize(live.real)
        try:
            cut, why = choose_cut(live, (now or datetime.now(UTC)) - older_than)
        except AnchorError as exc:
            raise ArchiveError(f"{journal}: {exc}; run `threecard verify-journal`") from None
        path = str(out) if out is not None else _named(live) or default_archive(journal)
        if cut == 0:
            return ArchiveResult(str(journal), path, 0, 0, 0, why, before, before)
        events, rounds = _move(live, cut, path)
    finally:
        live.close()
    after = os.path.getsize(os.path.realpath(journal))
    return ArchiveResult(str(journal), path, cut, events, rounds, why, before, after)


def _named(live: Journal) -> str | None:
    name = live.meta.get("archive")
    if not isinstance(name, str) or not name:
        return None
    return os.path.join(os.path.dirname(live.real), os.path.basename(name))


def _verdict(journal: str, cut: int, archive: str | None = None) -> str:
    """What is wrong with the journal from its cut on ("": nothing)."""
    reader = Journal(journal, readonly=True, archive=archive)
    try:
        verdict = check(reader, full=False).verdict
        chain = reader.verify(cut + 1)
    finally:
        reader.close()
    return verdict.message if not verdict.ok else "" if chain.ok else chain.message


def _move(live: Journal, cut: int, path: str) -> tuple[int, int]:
    """Write and verify the archive, then cut the journal; (events, rounds) moved."""
    wrong = _verdict(live.path, cut)
    if wrong:
        raise ArchiveError(f"{live.path}: the journal does not verify, nothing moved: {wrong}; "
                           "run `threecard verify-journal`")
    genesis, genesis_utc = live.genesis()
    out = _open_archive(live, path, genesis)
    base = out.last_seq
    try:
        game, rounds = _copy(live, out, cut)
    except (ReplayError, JournalError) as exc:
        out.close()
        _trim(path, base)
        raise ArchiveError(f"{live.path}: the history cannot be replayed, nothing moved: {exc}"
                           ) from None
    out.close()
    reader = Journal(path, readonly=True)
    try:
        verdict = check(reader, full=True, logged=[(cut, live.event_hash(cut) or "")]).verdict
    finally:
        reader.close()
    if not verdict.ok:
        _trim(path, base)
        raise ArchiveError(f"{path}: the archive did not verify, nothing deleted: "
                           f"{verdict.message}")
    cut_hash = live.event_hash(cut) or ""
    state = game.dumps()
    db, store = live.db, live.store
    first = next(live.rows(cut + 1, cut + 1), None)  # the journal's first event from now
    try:
        db.execute("BEGIN IMMEDIATE")
        store.set_meta({"base_seq": cut, "base_hash": codec.hash_bytes(cut_hash),
                        "genesis": codec.hash_bytes(genesis), "genesis_utc": genesis_utc,
                        "archive": os.path.basename(path)})
        store.delete_through(cut, game.round_id)
        store.write_snapshot(cut, snapshot_hash(cut_hash, state), state)
        if first is not None:
            store.store_absolute(first[0], first[1], first[2])
        db.execute("COMMIT")
    except Exception:
        db.execute("ROLLBACK")
        raise
    db.executescript("PRAGMA incremental_vacuum;")  # to the end: every page freed (format 2)
    wrong = _verdict(live.path, cut, path)
    if wrong:  # cut, and then not sound: never seen; say so, loudly
        raise ArchiveError(f"{live.path}: cut after event {cut}, then did not verify: {wrong}")
    return cut - base, rounds


def _open_archive(live: Journal, path: str, genesis: str) -> Journal:
    """The archive to write, ending at the journal's cut (made when missing; ArchiveError)."""
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    out = Journal(path, fmt=codec.FORMAT, as_archive=True)
    try:
        if fresh:
            _begin_archive(live, out, genesis)
            out.close()
            return Journal(path, fmt=codec.FORMAT, as_archive=True)
        if out.meta.get(ARCHIVE_OF) != codec.hash_bytes(genesis):
            raise ArchiveError(f"{path}: not the archive of this journal; name another file")
        if out.last_seq < live.base_seq or (
                live.base_seq and out.event_hash(live.base_seq) != live.base_hash):
            raise ArchiveError(f"{path}: this archive does not end where the journal was cut "
                               f"(event {live.base_seq}); name another file")
    except BaseException:
        out.close()
        raise
    if out.last_seq > live.base_seq:  # a run that crashed before cutting the journal
        out.close()
        _trim(path, live.base_seq)
        return Journal(path, fmt=codec.FORMAT, as_archive=True)
    return out


def _begin_archive(live: Journal, out: Journal, genesis: str) -> None:
    meta: dict[str, Any] = {ARCHIVE_OF: codec.hash_bytes(genesis)}
    snap = None
    if live.base_seq:
        meta.update({k: live.meta[k] for k in ("base_seq", "base_hash", "genesis",
                                                 "genesis_utc", "archive") if k in live.meta})
        snap = live.snapshot(live.base_seq)
    out.db.execute("BEGIN IMMEDIATE")
    out.store.set_meta(meta)
    if snap is not None:
        out.store.write_snapshot(*snap[:3])
        out.db.execute("INSERT OR REPLACE INTO derived_at VALUES (1, ?)", (live.base_seq,))
    out.db.execute("COMMIT")


def _copy(live: Journal, out: Journal, cut: int) -> tuple[Any, int]:
    """Copy events after the archive's end up to ``cut`` with their replayed derived rows."""
    game, at = start_state(live, out.last_seq)
    if at != out.last_seq:
        raise ArchiveError(f"{live.path}: no snapshot after event {out.last_seq} to start from")
    first_round = game.round_id
    batch: list[tuple[Any, ...]] = []
    acc = Derived()

    def records() -> Any:
        for row in live.rows(at + 1, cut):
            batch.append(row)
            yield Record(*row[:6])

    for _r, _ in apply_each(game, records()):
        d = game.take_derived()
        acc.rounds.update(d.rounds)
        acc.ends.update(d.ends)
        acc.rejections += d.rejections
        acc.meters = d.meters or acc.meters
        acc.snapshot = d.snapshot
        if d.snapshot is not None or len(batch) >= BATCH:  # one snapshot a commit
            out.copy_in(batch, acc)
            batch.clear()
            acc = Derived()
    if batch:
        out.copy_in(batch, acc)
    out.write_derived(Derived(meters=game.meters_dict()), mark=True)  # the meters at the cut
    return game, game.round_id - first_round


def _trim(path: str, seq: int) -> None:
    out = Journal(path, fmt=codec.FORMAT, as_archive=True)
    try:
        out.db.execute("BEGIN IMMEDIATE")
        out.store.delete_after(seq)
        out.db.execute("INSERT OR REPLACE INTO derived_at VALUES (1, ?)", (seq,))
        out.db.execute("COMMIT")
    finally:
        out.close()


__all__ = ["ARCHIVE_SUFFIX", "ArchiveError", "ArchiveResult", "archive", "choose_cut",
           "default_archive", "floor_cursor"]
