"""Reading and editing a journal file behind the table's back, in whatever format it is stored.

Tests tamper with journals the way a forger with sqlite3 would: a body changed in place
(its hash left as it was), or changed with every hash after it computed again. These
helpers do it for a journal of format 1 (every column text) and of format 2 (compact rows,
:mod:`controller.journal.codec`: a hash stored at the checkpoints only) alike.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

from controller.journal import Journal, chain_hash, codec, snapshot_hash
from controller.journal.seal import default_folder, key_file

BEYOND_START_UP = {
    "old round voided": "UPDATE rounds SET status = 'void' WHERE round_id = 2",
    "old round's event moved": "UPDATE rounds SET seq = 30 WHERE round_id = 1",
    "old event's time edited": "UPDATE events SET t = t + 100000000 WHERE seq = 800",
    "old rejection added": "INSERT INTO rejections VALUES (100, 'x')",
}
"""Edits before the verified snapshot that start-up's own checks cannot reach (it rehashes
and replays only after that snapshot, and these leave every record there well formed),
as SQL on a compact journal of 60 settled 3-seat rounds (``simulate --seed 9``): the full
check ``simulate`` makes before dealing on, and ``run`` once READY, finds each.
"""


def sql(path: Path | str, statement: str, *args) -> None:
    """Run one statement on the journal file and commit it (an edit with sqlite3)."""
    db = sqlite3.connect(path)
    db.execute(statement, args)
    db.commit()
    db.close()


def copy_journal(path: Path | str, copy: Path | str, keys: bool = True) -> Path:
    """Copy the journal file to ``copy`` the way sqlite3 does it (an online backup).

    ``keys``: its seal key too (the copy is then a table of its own that can go on);
    without it, the copy is a journal whose key is missing.
    """
    src, dst = sqlite3.connect(path), sqlite3.connect(copy)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    if keys:
        copy_keys(path, copy)
    return Path(copy)


def copy_keys(path: Path | str, copy: Path | str) -> None:
    """Give the journal copied to ``copy`` the seal key of ``path`` (none: nothing)."""
    j = Journal(path, readonly=True)
    try:
        jid = j.meta.get("journal_id")
    finally:
        j.close()
    if not jid:
        return
    src, dst = key_file(default_folder(), path, jid), key_file(default_folder(), copy, jid)
    if src.exists():
        shutil.copyfile(src, dst)
        dst.chmod(0o600)


def as_before_seals(path: Path | str) -> None:
    """The journal as a version before seals wrote it: no seal tables, no journal id."""
    sql(path, "DROP TABLE IF EXISTS chains")
    sql(path, "DROP TABLE IF EXISTS seals")
    sql(path, "DELETE FROM meta WHERE key = 'journal_id'")


def file_format(path: Path | str) -> int:
    """1 or 2."""
    j = Journal(path, readonly=True)
    try:
        return j.format
    finally:
        j.close()


def events(path: Path | str, first: int = 1) -> list[tuple]:
    """Every event: (seq, utc, mono_ns, kind, actor, body, prev, hash)."""
    j = Journal(path, readonly=True)
    try:
        return list(j.rows(first))
    finally:
        j.close()


def checkpoint_after(seq: int) -> int:
    """The first event at or after ``seq`` that stores its hash in format 2."""
    return -(-seq // codec.CHECKPOINT) * codec.CHECKPOINT


def found_at(path: Path | str, seq: int) -> int:
    """Where the chain's check finds an edit of event ``seq`` made in place: at the event
    (format 1 stores every hash), or at the checkpoint after it (format 2)."""
    return seq if file_format(path) == 1 else checkpoint_after(seq)


def first_of(path: Path | str, kind: str, after: int = 0) -> int:
    """The first event of ``kind`` after event ``after``."""
    return next(e[0] for e in events(path, after + 1) if e[3] == kind)


def _write(db: sqlite3.Connection, fmt: int, seq: int, kind: str, body: str, prev: str,
           h: str) -> None:
    if fmt == 1:
        db.execute("UPDATE events SET body = ?, prev = ?, hash = ? WHERE seq = ?",
                   (body, prev, h, seq))
    else:  # a hash only where one is stored (the checkpoints)
        db.execute("UPDATE events SET b = ?, h = CASE WHEN h IS NULL THEN NULL ELSE ? END "
                   "WHERE seq = ?", (codec.encode_body(kind, body), codec.hash_bytes(h), seq))


def edit_body(path: Path | str, seq: int, edit: Callable[[str], str]) -> None:
    """Change event ``seq``'s body in place; its hash stays as it was (a broken chain)."""
    fmt = file_format(path)
    (row,) = events(path, seq)[:1]
    db = sqlite3.connect(path)
    _write(db, fmt, seq, row[3], edit(row[5]), row[6], row[7])
    db.commit()
    db.close()


def rewrite_chain_from(path: Path | str, seq: int, edit: Callable[[str], str]) -> None:
    """A forger's edit: change event ``seq`` and recompute every hash after it."""
    rewrite_bodies(path, lambda s, body: edit(body) if s == seq else body, seq)


def rewrite_bodies(path: Path | str, edit: Callable[[int, str], str], first: int = 1) -> None:
    """Every body from event ``first`` on made ``edit(seq, body)``, every hash recomputed."""
    fmt = file_format(path)
    rows = events(path, first)
    db = sqlite3.connect(path)
    prev = rows[0][6]
    for s, utc, mono, kind, actor, body, _, _ in rows:
        body = edit(s, body)
        h = chain_hash(prev, s, utc, mono, kind, actor, body)
        _write(db, fmt, s, kind, body, prev, h)
        prev = h
    db.commit()
    db.close()


def snapshot_state(path: Path | str, seq: int) -> str:
    """The state JSON of the snapshot after event ``seq``."""
    j = Journal(path, readonly=True)
    try:
        return j.snapshot(seq)[2]
    finally:
        j.close()


def set_snapshot_state(path: Path | str, seq: int, state: str, reseal: bool = False) -> None:
    """Replace a snapshot's state (``reseal``: and seal it again to the chain)."""
    fmt = file_format(path)
    j = Journal(path, readonly=True)
    try:
        seal = j.snapshot(seq)[1]
        if reseal:
            seal = snapshot_hash(j.event_hash(seq), state)
    finally:
        j.close()
    db = sqlite3.connect(path)
    if fmt == 1:
        db.execute("UPDATE snapshots SET hash = ?, state = ? WHERE seq = ?", (seal, state, seq))
    else:
        db.execute("UPDATE snapshots SET seal = ?, state = ? WHERE seq = ?",
                   (codec.hash_bytes(seal), codec.pack_state(state), seq))
    db.commit()
    db.close()


def journal_as_before(table, kind: str, body: dict, actor: str) -> None:
    """Journal and apply an input as an earlier version did: past today's declaration.

    For a record such a version wrote (a void reason holding a NUL), which the table must
    still replay and its screens and readers still show.
    """
    from controller.game.inputs import encode_body

    table._process([(kind, body, actor, encode_body(body))])  # noqa: SLF001


def floor_replay(path: Path | str, config) -> tuple[object, list]:
    """The floor's replay of a journal (:class:`floor.derive.Replay` of a game with
    ``config``), fed every row: the replay (its game at the journal's head) and the
    ``event`` messages it made."""
    from controller.game.engine import Game
    from controller.journal import Record
    from floor.derive import Replay

    j = Journal(path, readonly=True)
    try:
        replay = Replay("T1", Game(config))
        heard, _ = replay.apply_all((Record(*r[:6]), r[7]) for r in j.rows())
    finally:
        j.close()
    return replay, heard
