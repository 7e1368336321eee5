"""Rebuilding a table's recorded state and views at any event, as start-up does (R1); no writes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from controller.game.engine import Game, TableConfig
from controller.game.table_views import ViewBuilder
from controller.game.verdict import integrity_lock
from controller.game.views import DealerView, PlayerView
from controller.journal import Journal, JournalError, Record


class ReplayError(JournalError):
    """The journal cannot be replayed; a table meeting one at start-up locks (R4)."""


def start_state(journal: Journal, upto: int | None = None, use_snapshots: bool = True,
                config: TableConfig | None = None) -> tuple[Game, int]:
    """The state replay starts from (newest snapshot at or before ``upto``), and its event.

    Without a usable snapshot: an empty table from ``config`` at event 0. ReplayError: the
    snapshot's seal does not match the journal, or it cannot be loaded.
    """
    snap = journal.latest_snapshot(upto) if use_snapshots else None
    if snap is None:
        return Game(config or TableConfig()), 0
    seq, seal, state = snap
    if not journal.snapshot_ok(seq, seal, state):
        raise ReplayError(f"Snapshot at event {seq} does not match the journal")
    try:
        return Game.from_dict(json.loads(state)), seq
    except Exception as exc:  # noqa: BLE001 - any unreadable snapshot is the same fault
        raise ReplayError(f"Snapshot at event {seq} cannot be loaded: {exc}") from None


def apply_each(game: Game, records: Iterable[Record], upto: int | None = None
               ) -> Iterator[tuple[Record, str | None]]:
    """Apply records to ``game`` in order, yielding (record, None or the rejection reason)."""
    for r in records:
        if upto is not None and r.seq > upto:
            break
        try:
            verdict = game.apply(r.seq, r.utc, r.kind, json.loads(r.body), r.actor,
                                 mono_ns=r.mono_ns)
        except Exception as exc:  # noqa: BLE001 - any failure to replay is the same fault
            raise ReplayError(f"Journal replay failed at event {r.seq}: {exc}") from None
        yield r, verdict


def apply_records(game: Game, journal: Journal, after: int, upto: int | None = None) -> None:
    """Apply records ``after < seq <= upto`` to ``game`` (ReplayError names a bad seq)."""
    for _ in apply_each(game, journal.records(after), upto):
        pass


def rebuild(journal: Journal, upto: int | None = None, use_snapshots: bool = True) -> Game:
    """The recorded state after event ``upto`` (None: the newest); ReplayError if it fails."""
    game, after = start_state(journal, upto, use_snapshots)
    apply_records(game, journal, after, upto)
    return game


def state_before_round(journal: Journal, round_id: int) -> tuple[Game, int]:
    """The newest sealed snapshot before round ``round_id`` opened, and the event it follows."""
    for seq in reversed(journal.snapshot_seqs()):  # read one by one: thousands in a long one
        snap = journal.snapshot(seq)
        try:
            rid = json.loads(snap[2]).get("round_id", 0) if snap else None
        except ValueError:
            rid = None
        if isinstance(rid, int) and rid < round_id:
            return start_state(journal, seq)
    return start_state(journal, journal.first_seq - 1)


def round_records(journal: Journal, last: int | None = None, first: int | None = None,
                  upto: int | None = None) -> list[dict[str, Any]]:
    """Finished rounds' recall records, newest first, by replaying the journal.

    Raises:
        ReplayError: the journal cannot be replayed.
        JournalError: the rounds wanted are in an archive not found here.
    """
    ids = [rid for rid, _, end in journal.round_ends(first if first is not None else -(2**63))
           if upto is None or end is None or end <= upto]
    if last is not None:
        ids = ids[-last:] if last > 0 else []
    if not ids:
        return []
    wanted, top = set(ids), ids[-1]
    game, at = state_before_round(journal, ids[0])
    found: dict[int, dict[str, Any]] = {}
    for _r, _ in apply_each(game, journal.records(at), upto):
        for rid, rec in game.take_derived().rounds.items():
            if rid in wanted:
                found[rid] = rec
        if game.round_id > top:  # the newest wanted can change no more
            break
    return [found[rid] for rid in sorted(found, reverse=True)]


def views_at(journal: Journal | str | Path, seq: int) -> tuple[DealerView, PlayerView]:
    """The dealer and player views right after event ``seq``, once the chain is checked.

    Raises:
        ValueError: ``seq`` is not an event of this journal.
        ReplayError: the hash chain is broken, or the replay fails.
        JournalError: the file is not a usable journal.
    """
    j = journal if isinstance(journal, Journal) else Journal(journal, readonly=True)
    try:
        report = j.verify()
        if not report.ok:
            raise ReplayError(integrity_lock(report.message))
        if isinstance(seq, bool) or not isinstance(seq, int) or \
                not j.first_seq <= seq <= j.last_seq:
            raise ValueError(f"event {seq!r} is not in this journal (events {j.first_seq} "
                             f"to {j.last_seq})")
        game = rebuild(j, seq)
    finally:
        if j is not journal:
            j.close()
    return ViewBuilder().build(game, seq)


def views_after(journal: Journal, seqs: Iterable[int]
                ) -> Iterator[tuple[int, DealerView, PlayerView]]:
    """:func:`views_at` for several increasing events in one replay; the caller checks the chain."""
    wanted = sorted(set(seqs))
    if not wanted:
        return
    game = rebuild(journal, wanted[0])
    builder = ViewBuilder()
    pending = iter(wanted[1:])
    yield (wanted[0], *builder.build(game, wanted[0]))
    nxt = next(pending, None)
    if nxt is None:
        return
    for r, _ in apply_each(game, journal.records(wanted[0]), wanted[-1]):
        if r.seq == nxt:
            yield (r.seq, *builder.build(game, r.seq))
            nxt = next(pending, None)
            if nxt is None:
                return


__all__ = ["ReplayError", "apply_each", "apply_records", "rebuild", "round_records",
           "start_state", "state_before_round", "views_after", "views_at"]
