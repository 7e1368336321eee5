"""The floor store's verified half: seals, positions, pinned keys, provisional events."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from floor.messages import EventMessage, RoundMessage, SealRow, WitnessSeal, decode, encode
from floor.sealed import Position, Verified
from floor.store_base import greater, upsert

if TYPE_CHECKING:
    from floor.store_base import Database

# How a verification key was pinned: by ``threecard floor enrol``, or from the table's first
# sealed message.
ENROLLED = "enrolled"
FIRST_USE = "pinned on first use"
_ROUND = ("table_id", "journal", "round_id", "seq", "hash", "prev_seq", "prev_hash", "status",
          "ended_utc", "record", "sent_us", "stored_us", "epoch")
_EVENT = ("table_id", "journal", "seq", "kind", "severity", "body", "stored_us")
_SEAL = ("table_id", "journal", "epoch", "seq", "head", "next_key", "signature", "round_id")
_POSITION = ("table_id", "journal", "journal_id", "chain_key", "epoch", "key", "seq", "head",
             "first_utc", "state")


def _unstamped(body: str | None) -> dict[str, Any] | None:
    if body is None:
        return None
    d = json.loads(body)
    d.pop("sent_us", None)
    return d


@dataclass(frozen=True, slots=True)
class PinnedKey:
    """A table's verification key as the floor pinned it (``since_us``: microseconds)."""

    key: str
    how: str
    since_us: int


class SealedStore:
    """The verified half of a floor store (``self.db``: its open connection)."""

    db: Database

    def _seen(self, table: str, journal: str, now_us: int) -> None:
        raise NotImplementedError

    def put_verified(self, table: str, v: Verified, m: RoundMessage, now_us: int
                     ) -> list[EventMessage]:
        """Store what a verified round message makes, in one transaction (``now_us``: received).

        Returns the unsealed events held in its range that its rows do not make (dropped).
        """
        j, p = m.journal, v.position
        with self.db.transaction():
            self._seen(table, j, now_us)
            # rounds pruned into an archive are never stored again (a table sending anew)
            pruned = self.db.execute("SELECT to_round, to_seq FROM prunes WHERE table_id = ? "
                                     "AND journal = ? ORDER BY to_round DESC LIMIT 1",
                                     (table, j)).fetchone() or (0, 0)
            if v.pinned is not None:
                self.pin_key(table, v.pinned.hex(), FIRST_USE, now_us)
            if v.after == 0:  # verified from the start (again): nothing before stands
                self.db.execute("DELETE FROM seals WHERE table_id = ? AND journal = ?",
                                (table, j))
                self.db.execute("UPDATE rounds SET epoch = NULL WHERE table_id = ? AND "
                                "journal = ?", (table, j))
            self._put_rounds(table, v, m, now_us, pruned[0])
            dropped = self._put_events(table, j, v, now_us, pruned[1])
            self.db.executemany(upsert("seals", _SEAL, _SEAL[:3]),
                                [(table, j, s.epoch, s.seq, s.head, s.next_key, s.signature,
                                  rid) for s, rid in v.seals])
            self.db.execute(upsert("positions", _POSITION, _POSITION[:2]),
                            (table, j, p.journal_id, p.chain_key.hex(), p.epoch, p.key.hex(),
                             p.seq, p.head, p.first_utc, p.state_blob()))
            self.db.execute("UPDATE series SET contiguous = ? WHERE table_id = ? AND "
                            "journal = ?", (p.round_id, table, j))
        return dropped

    def _put_rounds(self, table: str, v: Verified, m: RoundMessage, now_us: int,
                    pruned: int) -> None:
        seals = [s for s, _ in v.seals]
        for f in (f for f in v.rounds if f.round_id > pruned):
            epoch = next(s.epoch for s in seals if s.seq >= f.seq)
            rec = f.record
            prev = f.prev or (0, "")
            self.db.execute(
                upsert("rounds", _ROUND, ("table_id", "journal", "round_id")),
                (table, m.journal, f.round_id, f.seq, f.hash, prev[0], prev[1], rec["status"],
                 rec.get("ended_utc"), json.dumps(rec, separators=(",", ":")), m.sent_us,
                 now_us, epoch))

    def _put_events(self, table: str, j: str, v: Verified, now_us: int, pruned: int
                    ) -> list[EventMessage]:
        """Replace the events of the message's range; those held unsealed it drops."""
        derived = {(e.seq, e.kind): encode(e).decode() for e in v.events}
        after, to = v.after, v.position.seq
        held = self.db.execute("SELECT seq, kind, body FROM pending_events WHERE "
                               "table_id = ? AND journal = ? AND seq > ? AND seq <= ?",
                               (table, j, after, to)).fetchall()
        dropped = [decode("event", body.encode()) for seq, kind, body in held
                   if _unstamped(body) != _unstamped(derived.get((seq, kind)))]
        self.db.execute("DELETE FROM pending_events WHERE table_id = ? AND journal = ? "
                        "AND seq > ? AND seq <= ?", (table, j, after, to))
        self.db.execute("DELETE FROM events WHERE table_id = ? AND journal = ? AND seq > ? "
                        "AND seq <= ?", (table, j, after, to))
        self.db.executemany(upsert("events", _EVENT, _EVENT[:4]),
                            [(table, j, e.seq, e.kind, e.severity, derived[e.seq, e.kind],
                              now_us) for e in v.events if e.seq > pruned])
        return dropped

    def put_event(self, m: EventMessage, now_us: int, limit: int) -> bool | None:
        """Keep a provisional event: True, False (held already) or None (``limit`` reached)."""
        body = encode(m).decode()
        with self.db.transaction():
            same = self.db.execute("SELECT body FROM pending_events WHERE table_id = ? AND "
                                   "journal = ? AND seq = ? AND kind = ?",
                                   (m.table, m.journal, m.seq, m.kind)).fetchall()
            if any(_unstamped(b) == _unstamped(body) for (b,) in same):
                return False
            held = self.db.execute("SELECT COUNT(*) FROM pending_events WHERE table_id = ? "
                                   "AND journal = ?", (m.table, m.journal)).fetchone()[0]
            if held >= limit:
                return None
            self._seen(m.table, m.journal, now_us)
            self.db.execute("INSERT INTO pending_events VALUES (?,?,?,?,?,?)",
                            (m.table, m.journal, m.seq, m.kind, body, now_us))
        return True

    def sealed_event(self, table: str, journal: str, seq: int, kind: str) -> str | None:
        """The body of an event the store holds from sealed rows (None: none such)."""
        row = self.db.execute("SELECT body FROM events WHERE table_id = ? AND journal = ? AND "
                              "seq = ? AND kind = ?", (table, journal, seq, kind)).fetchone()
        return row[0] if row else None

    def add_forged(self, table: str, why: str, now_us: int, n: int = 1) -> None:
        """Count ``n`` messages refused on a table's topics as forged (``why``: the last's)."""
        self.db.execute("INSERT INTO forged VALUES (?,?,?,?) ON CONFLICT (table_id) DO UPDATE "
                        "SET count = forged.count + excluded.count, why = excluded.why, "
                        "last_us = excluded.last_us", (table, n, why[:500], now_us))

    def pin_key(self, table: str, key: str, how: str, now_us: int) -> list[str]:
        """Pin a table's key (an enrolled one replaces first-use ones, never the reverse)."""
        gone = []
        if how == ENROLLED:
            gone = [k for (k,) in self.db.execute(
                "SELECT key FROM keys WHERE table_id = ? AND how = ? AND key != ?",
                (table, FIRST_USE, key))]
            self.db.execute("DELETE FROM keys WHERE table_id = ? AND how = ? AND key != ?",
                            (table, FIRST_USE, key))
        self.db.execute("INSERT INTO keys VALUES (?,?,?,?) ON CONFLICT (table_id, key) DO "
                        "UPDATE SET "
                        "how = excluded.how, since_us = excluded.since_us WHERE "
                        f"excluded.how = '{ENROLLED}'", (table, key, how, now_us))
        return gone

    def announce(self, table: str, journal: str, round_id: int, now_us: int) -> None:
        """A message named a round past those verified (the ones between were lost)."""
        with self.db.transaction():
            self._seen(table, journal, now_us)
            self.db.execute(f"UPDATE series SET announced = {greater('announced', '?')} "
                            "WHERE table_id = ? AND journal = ?",
                            (round_id, round_id, table, journal))

    def _has(self, table: str) -> bool:
        return bool(self.db.columns(table))

    def keys(self, table: str) -> list[PinnedKey]:
        """The verification keys pinned for a table, oldest first."""
        if not self._has("keys"):
            return []
        return [PinnedKey(*r) for r in self.db.execute(
            "SELECT key, how, since_us FROM keys WHERE table_id = ? ORDER BY since_us, key",
            (table,))]

    def enrolled(self) -> list[str]:
        """The tables with a verification key pinned (enrolled, or on first use), by id."""
        if not self._has("keys"):
            return []
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT table_id FROM keys ORDER BY table_id")]

    def position(self, table: str, journal: str) -> Position | None:
        """Where the floor verified a journal up to (None: nothing); ValueError: unreadable."""
        if not self._has("positions"):
            return None
        row = self.db.execute("SELECT journal_id, chain_key, epoch, key, seq, head, first_utc, "
                              "state FROM positions WHERE table_id = ? AND journal = ?",
                              (table, journal)).fetchone()
        if row is None:
            return None
        jid, chain_key, epoch, key, seq, head, first_utc, blob = row
        game, ends = Position.game_from(blob)
        return Position(jid, bytes.fromhex(chain_key), epoch, bytes.fromhex(key), seq, head,
                        first_utc, game, ends)

    def position_mark(self, table: str, journal: str) -> tuple[int, int] | None:
        """(event, epoch) the floor verified a journal up to (None: nothing): a cheap check."""
        row = self.db.execute("SELECT seq, epoch FROM positions WHERE table_id = ? AND "
                              "journal = ?", (table, journal)).fetchone()
        return (row[0], row[1]) if row else None

    def seal(self, table: str, journal: str, epoch: int) -> SealRow | None:
        """The seal of an epoch the floor verified (None: none)."""
        if not self._has("seals"):
            return None
        row = self.db.execute("SELECT epoch, seq, head, next_key, signature FROM seals WHERE "
                              "table_id = ? AND journal = ? AND epoch = ?",
                              (table, journal, epoch)).fetchone()
        return SealRow(*row) if row else None

    def seals(self, table: str, journal: str) -> list[tuple[SealRow, int]]:
        """Every seal the floor verified of a journal, oldest first, with its newest round."""
        if not self._has("seals"):
            return []
        return [(SealRow(*r[:5]), r[5]) for r in self.db.execute(
            "SELECT epoch, seq, head, next_key, signature, round_id FROM seals WHERE "
            "table_id = ? AND journal = ? ORDER BY epoch", (table, journal))]

    def chain(self, table: str, journal: str) -> tuple[str, str] | None:
        """(journal id, the chain's start key) of a journal the floor verified (None: none)."""
        if not self._has("positions"):
            return None
        row = self.db.execute("SELECT journal_id, chain_key FROM positions WHERE table_id = ? "
                              "AND journal = ?", (table, journal)).fetchone()
        return (row[0], row[1]) if row else None

    def witness(self, table: str) -> list[WitnessSeal]:
        """The newest seal the floor verified of each journal of a table."""
        if not self._has("seals"):
            return []
        return [WitnessSeal(journal=j, journal_id=jid, epoch=e, seq=s, round_id=r,
                            signature=sig) for j, jid, e, s, r, sig in self.db.execute(
            "SELECT s.journal, p.journal_id, s.epoch, s.seq, s.round_id, s.signature FROM "
            "seals s JOIN positions p ON p.table_id = s.table_id AND p.journal = s.journal "
            "WHERE s.table_id = ? AND s.epoch = p.epoch - 1 ORDER BY s.journal", (table,))]

    def witnessed(self) -> list[str]:
        """The tables the floor verified seals of."""
        if not self._has("positions"):
            return []
        return [t for (t,) in self.db.execute("SELECT DISTINCT table_id FROM positions "
                                              "ORDER BY table_id")]

    def forged(self) -> dict[str, tuple[int, str]]:
        """Table -> (messages refused as forged, why the last one was)."""
        if not self._has("forged"):
            return {}
        return {t: (n, why) for t, n, why in self.db.execute(
            "SELECT table_id, count, why FROM forged")}

    def sealed_rounds(self, table: str, journal: str) -> list[tuple[int, int, int | None]]:
        """(round id, last event, its seal's epoch; None: stored unsealed) of a journal's rounds."""
        have = self.db.columns("rounds")
        epoch = "epoch" if "epoch" in have else "NULL"
        return self.db.execute(f"SELECT round_id, seq, {epoch} FROM rounds WHERE table_id = ? "
                               "AND journal = ? ORDER BY round_id", (table, journal)).fetchall()


__all__ = ["ENROLLED", "FIRST_USE", "PinnedKey", "SealedStore"]
