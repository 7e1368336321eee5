"""Rebuilding a table's recorded state, and its views, at any event of a journal.

This is the replay the :class:`~controller.game.table.Table` runs at start-up
(docs/requirements.md R1: restart = replay the journal): the newest sealed snapshot at or
before the event, then every record after it, each applied with
:meth:`~controller.game.engine.Game.apply`.
:func:`views_at` builds from that state the same :class:`~controller.game.views.DealerView`
and :class:`~controller.game.views.PlayerView` the running table published, so a disputed
round can be shown as the dealer and the players saw it at any event. Nothing here
writes to the journal.
"""

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
    """The journal cannot be replayed: a broken chain, a bad snapshot, a record that fails.

    A table that meets one at start-up locks itself (docs/requirements.md R4).
    """


def start_state(journal: Journal, upto: int | None = None, use_snapshots: bool = True,
                config: TableConfig | None = None) -> tuple[Game, int]:
    """The state replay starts from: the newest snapshot at or before ``upto``.

    Args:
        journal: an open journal.
        upto: the last event wanted (None: the newest).
        use_snapshots: False starts from an empty table at event 0 (a full replay).
        config: the settings of the empty table used when no snapshot applies (the
            journal's first ``startup`` record sets the recorded ones).

    Returns:
        (the state, the event it is the state after); an empty :class:`Game` and 0
        when there is no snapshot to start from.

    Raises:
        ReplayError: the snapshot's seal does not match the journal, or its state
            cannot be loaded.
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
    """Apply records to ``game`` in order, yielding each once it is applied.

    Args:
        game: the state before the first record (changed in place).
        records: journal records in order (from a journal, or a dispute bundle).
        upto: the last event to apply (None: every record).

    Yields:
        (the record, None when applied or the reason it was rejected, as on the table).

    Raises:
        ReplayError: a record cannot be read or applied (its seq is named).
    """
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
    """Apply the journal's records ``after < seq <= upto`` to ``game``, in order.

    Args:
        game: the state after event ``after`` (changed in place).
        journal: an open journal.
        after: the event ``game`` is the state after.
        upto: the last event to apply (None: the newest).

    Raises:
        ReplayError: a record cannot be read or applied (its seq is named).
    """
    for _ in apply_each(game, journal.records(after), upto):
        pass


def rebuild(journal: Journal, upto: int | None = None, use_snapshots: bool = True) -> Game:
    """The recorded state after event ``upto`` (:func:`start_state`, :func:`apply_records`).

    Args:
        journal: an open journal.
        upto: the last event to apply (None: the newest).
        use_snapshots: False replays every record from the first.

    Returns:
        The state; its ``last_seq`` is the last event applied.

    Raises:
        ReplayError: see :func:`start_state` and :func:`apply_records`.
    """
    game, after = start_state(journal, upto, use_snapshots)
    apply_records(game, journal, after, upto)
    return game


def state_before_round(journal: Journal, round_id: int) -> tuple[Game, int]:
    """The newest sealed snapshot taken before round ``round_id`` opened (else the first).

    Returns:
        (the state, the event it is the state after): from it, replaying the events tells
        the round's whole story. Without a snapshot early enough, the journal's start (an
        empty table, or the snapshot after the cut when the history before it is not here).

    Raises:
        ReplayError: the snapshot's seal does not match the journal, or it cannot be loaded.
    """
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
    """Finished rounds' game-recall records, newest first, made by replaying the journal.

    A compact journal keeps no whole record (only each round's status and the event that
    closed it); a journal of format 1 keeps them, and they equal these
    (``verify-journal`` compares them). The replay starts from the newest snapshot taken
    before the first round wanted.

    Args:
        journal: an open journal.
        last: the newest ``last`` finished rounds (None: every one).
        first: only rounds from this id on.
        upto: only rounds finished at or before this event.

    Returns:
        The records, newest first.

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
    """The dealer and player views of the table right after event ``seq`` was applied.

    The hash chain is checked first: views are never rebuilt from an altered journal.
    The views equal those the table published after that event, except ``version``,
    which here is ``seq`` (a table that commits one input at a time and has not
    restarted numbers its views the same way). The player view holds no dealer hole
    card before the reveal (docs/requirements.md R13), as on the table.

    Args:
        journal: an open journal, or the path of a journal file (opened read-only).
        seq: an event sequence number, 1 to the newest.

    Returns:
        (dealer view, player view).

    Raises:
        ValueError: ``seq`` is not an event of this journal.
        ReplayError: the hash chain is broken, or the replay fails (see :func:`rebuild`).
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
    """:func:`views_at` for several events of an open journal, in one replay.

    Each pair equals what :func:`views_at` gives for its event (the same rebuild and view
    builder); the state is rebuilt once, from the newest snapshot before the first event.
    The caller checks the hash chain first (:meth:`Journal.verify`).

    Args:
        journal: an open journal.
        seqs: events, in increasing order.

    Yields:
        (seq, dealer view, player view) for each event.

    Raises:
        ReplayError: the replay fails (see :func:`rebuild`).
    """
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
