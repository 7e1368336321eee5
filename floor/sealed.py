"""The floor's check of a round message: the journal's rows and seals, verified, not trusted.

Rows, chain hashes, each seal with the key expected for its epoch (epoch 0: the table's
pinned key), then the replay (docs/floor-format.md, "The recorder").
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.game.engine import Game
from controller.journal import Record
from controller.journal.anchor import GENESIS
from controller.journal.codec import chain_hash
from controller.journal.seal import message, signature_ok
from floor.derive import Finished, Replay
from floor.messages import ChainRow, EventMessage, RoundMessage, SealRow

AHEAD = "ahead"
DUPLICATE = "duplicate"


class Refused(Exception):
    """A message refused; ``conflict``: the table's key signed another seal for a verified epoch."""

    def __init__(self, why: str, conflict: bool = False) -> None:
        super().__init__(why)
        self.why = why
        self.conflict = conflict


@dataclass(slots=True)
class Position:
    """Where the floor verified one journal up to: the last seal, the next epoch's key, the game."""

    journal_id: str
    chain_key: bytes
    epoch: int
    key: bytes
    seq: int
    head: str
    first_utc: str
    game: Game
    ends: dict[int, tuple[int, str]] = field(default_factory=dict)

    @property
    def round_id(self) -> int:
        """The newest round finished up to :attr:`seq`."""
        return max(self.ends, default=0)

    def state_blob(self) -> bytes:
        """The game and the round ends as stored (zlib-compressed JSON)."""
        return zlib.compress(json.dumps({"game": self.game.to_dict(), "ends": [
            [r, s, h] for r, (s, h) in sorted(self.ends.items())]}).encode(), 6)

    @staticmethod
    def game_from(blob: bytes) -> tuple[Game, dict[int, tuple[int, str]]]:
        """The game and round ends of :meth:`state_blob` (ValueError: unreadable)."""
        try:
            d = json.loads(zlib.decompress(blob))
            return Game.from_dict(d["game"]), {r: (s, h) for r, s, h in d["ends"]}
        except Exception as exc:  # noqa: BLE001 - any unreadable state is the same fault
            raise ValueError(f"the replayed state cannot be read: {exc}") from None


@dataclass(frozen=True, slots=True)
class Verified:
    """A message verified and replayed (``pinned``: a key taken on first use, else None)."""

    position: Position
    seals: list[tuple[SealRow, int]]
    rounds: list[Finished]
    events: list[EventMessage]
    after: int
    pinned: bytes | None = None


def _key(text: str) -> bytes:
    return bytes.fromhex(text)


def _signed(key: bytes, jid: str, s: SealRow) -> bool:
    return signature_ok(key, bytes.fromhex(s.signature),
                        message(jid, s.epoch, s.seq, s.head, _key(s.next_key)))


def verify(m: RoundMessage, pos: Position | None, keys: Sequence[bytes],
           stored: Callable[[int], SealRow | None], table_id: str) -> Verified | str:
    """Check a round message against what the floor verified of its journal.

    Args:
        m: the message (its form checked: :func:`floor.messages.decode`).
        pos: where the floor verified the journal up to (None: from its start).
        keys: the table's pinned keys (none: the first chain's key is pinned on first use).
        stored: the seal the floor holds for an epoch (None: none).
        table_id: the table (the events it makes carry it).

    Returns:
        The verified message, or :data:`AHEAD` or :data:`DUPLICATE`.

    Raises:
        Refused: not sealed as expected (forged or altered), or a seal in conflict.
    """
    rows, seals = list(m.rows), list(m.seals)
    if not seals:
        raise Refused("it carries no seal: unsealed")
    if pos is not None:
        if m.journal_id != pos.journal_id:
            raise Refused(f"its seals name journal id {m.journal_id[:16]}, the floor verified "
                          f"this journal as {pos.journal_id[:16]}")
        if m.after > pos.seq:
            return AHEAD
        rows, seals = _after_verified(m, pos, stored)
        if not seals:
            return DUPLICATE
    elif m.after:
        return AHEAD
    return _verify_new(m, pos, keys, rows, seals, table_id)


def _after_verified(m: RoundMessage, pos: Position, stored: Callable[[int], SealRow | None]
                    ) -> tuple[list[Any], list[SealRow]]:
    """The rows and seals of ``m`` past the verified position; its earlier seals compared.

    Raises Refused when an earlier seal differs from the one stored, or ``m`` ends no
    verified epoch there.
    """
    old = [s for s in m.seals if s.epoch < pos.epoch]
    for s in old:
        held = stored(s.epoch)
        if held == s:
            continue
        key = _epoch_key(s.epoch, pos, stored)
        signed = key is not None and _signed(key, m.journal_id, s)
        where = (f"the floor holds epoch {s.epoch} sealed at event "
                 f"{held.seq if held else '?'}, this message another seal of it, at event "
                 f"{s.seq}")
        if signed:
            raise Refused(f"{where}, signed with the journal's key: the journal at the table "
                          "is not the one the floor recorded (put back to an older copy and "
                          "played on, or replaced)", conflict=True)
        raise Refused(f"{where}, not signed with the journal's key: forged")
    new = [s for s in m.seals if s.epoch >= pos.epoch]
    if not new:
        return [], []
    if old and old[-1].seq != pos.seq:
        raise Refused(f"its seals do not end at the floor's verified event {pos.seq}")
    return [r for r in m.rows if r.seq > pos.seq], new


def _epoch_key(epoch: int, pos: Position, stored: Callable[[int], SealRow | None]
               ) -> bytes | None:
    """The public key of a verified epoch: the seal before it names it (epoch 0: the chain's)."""
    if epoch == 0:
        return pos.chain_key
    before = stored(epoch - 1)
    return _key(before.next_key) if before is not None else None


def _verify_new(m: RoundMessage, pos: Position | None, keys: Sequence[bytes],
                rows: list[Any], seals: list[SealRow], table_id: str) -> Verified:
    jid = m.journal_id
    prev, epoch = (pos.head, pos.epoch) if pos is not None else (GENESIS, 0)
    key = pos.key if pos is not None else None
    chain_key = pos.chain_key if pos is not None else None
    if seals[0].epoch != epoch:
        raise Refused(f"its first seal is of epoch {seals[0].epoch}; the floor expects "
                      f"epoch {epoch}")
    if rows[0].seq != (pos.seq if pos is not None else 0) + 1:
        raise Refused("its rows do not follow the floor's verified event")
    heads: dict[int, str] = {}
    records = []
    for r in rows:
        h = chain_hash(prev, r.seq, r.utc, r.mono_ns, r.kind, r.actor, r.body)
        heads[r.seq] = prev = h
        records.append((Record(r.seq, r.utc, r.mono_ns, r.kind, r.actor, r.body), h))
    if pos is None and m.journal != heads[1]:
        raise Refused("it names another journal than its first event's hash")
    starts = {c.epoch: c for c in m.chains}
    pinned = None
    for s in seals:
        c = starts.get(s.epoch)
        if c is not None:
            ck = _key(c.key)
            if c.epoch == 0 and pos is None:
                if keys and ck not in keys:
                    raise Refused(f"its chain starts with the key {c.key[:16]}..., not the "
                                  "table's verification key (a new journal's key is enrolled "
                                  "with `threecard floor enrol`)")
                pinned = None if keys else ck
                chain_key = ck
            elif ck not in keys:
                raise Refused(f"a new seal chain at epoch {c.epoch} with the key "
                              f"{c.key[:16]}..., not a key enrolled for the table")
            _check_start_head(c, heads, pos)
            key = ck
        if key is None or not _signed(key, jid, s):
            raise Refused(f"the seal of epoch {s.epoch} (events to {s.seq}) does not verify "
                          "with the key the floor expects for it: forged or altered")
        if heads.get(s.seq) != s.head:
            raise Refused(f"the seal of epoch {s.epoch} names event {s.seq} with another hash "
                          "than the rows make: the rows were altered")
        key, epoch = _key(s.next_key), s.epoch + 1
    assert chain_key is not None and key is not None
    if pos is None:
        game, ends, first_utc = Game(), {}, rows[0].utc
    else:
        game, ends, first_utc = pos.game, pos.ends, pos.first_utc
    replay = Replay(table_id, game, m.journal, first_utc, ends)
    events, finished, sealed = _replayed(replay, records, seals)
    last = seals[-1]
    new = Position(jid, chain_key, epoch, key, last.seq, last.head, replay.first_utc, game,
                   dict(replay.ends))
    return Verified(new, sealed, finished, events, pos.seq if pos is not None else 0, pinned)


def _check_start_head(c: ChainRow, heads: dict[int, str], pos: Position | None) -> None:
    at = GENESIS if c.seq == 0 else heads.get(c.seq) or (
        pos.head if pos is not None and c.seq == pos.seq else None)
    if at is not None and at != c.head:
        raise Refused(f"its chain start at epoch {c.epoch} names event {c.seq} with "
                      "another hash than the rows make")


def _replayed(replay: Replay, records: list[tuple[Record, str]], seals: list[SealRow]
              ) -> tuple[list[EventMessage], list[Finished], list[tuple[SealRow, int]]]:
    """Replay the records: their events, the rounds they finish, each seal's last round."""
    events: list[EventMessage] = []
    done: dict[int, Finished] = {}
    sealed: list[tuple[SealRow, int]] = []
    at_seal = {s.seq: s for s in seals}
    for rec, h in records:
        ev, fin = replay.apply(rec, h)
        events += ev
        done.update((f.round_id, f) for f in fin)
        if rec.seq in at_seal:
            sealed.append((at_seal[rec.seq], replay.last_round))
    return events, [done[r] for r in sorted(done)], sealed


__all__ = ["AHEAD", "DUPLICATE", "Position", "Refused", "Verified", "verify"]
