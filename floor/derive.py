"""What the floor hears of journal events, made by the game's own replay at both ends."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from controller.game.engine import Game
from controller.game.inputs import Role
from controller.game.recall import as_recalled
from controller.game.replay import apply_each
from controller.game.roles import WRONG_PIN
from controller.journal import Record
from controller.journal.anchor import GENESIS
from floor.messages import FINISHED, EventMessage

# Actors whose inputs are role actions on the ``event`` topic (WRONG_PIN: no role matched).
ROLES = (Role.SUPERVISOR.value, Role.TECHNICIAN.value, WRONG_PIN)


@dataclass(frozen=True, slots=True)
class Finished:
    """A round finished, or its record changed after it ended (a burn joined its deal).

    ``prev``: (seq, hash) of the previous round's last event; (0, genesis) before round 1;
    None when the replay started after it.
    """

    round_id: int
    record: dict[str, Any]
    seq: int
    hash: str
    prev: tuple[int, str] | None


class Replay:
    """A game fed journal rows in order; what each row finishes, and the events it makes.

    ``game`` is changed in place; ``ends``: round id -> (seq, hash) of its last event, for
    the rounds before the next row; ``journal`` is "" until the first event is applied.
    """

    def __init__(self, table_id: str, game: Game, journal: str = "", first_utc: str = "",
                 ends: dict[int, tuple[int, str]] | None = None) -> None:
        self.table_id = table_id
        self.game = game
        self.journal = journal
        self.first_utc = first_utc
        self.ends: dict[int, tuple[int, str]] = dict(ends or {})
        self.last_round = max(self.ends, default=0)
        self._notes = dict(game.notes)

    def apply(self, row: Record, h: str) -> tuple[list[EventMessage], list[Finished]]:
        """Apply one row (chain hash ``h``): its ``event`` messages, the rounds it finished.

        Raises ReplayError when the row cannot be read or applied.
        """
        if row.seq == 1:
            self.journal, self.first_utc = h, row.utc
        ((_, reason),) = apply_each(self.game, (row,))
        events = self._events(row, h, reason)
        done = []
        for rid, rec in sorted(self.game.take_derived().rounds.items()):
            if rec["status"] not in FINISHED:
                continue
            prev = self.ends.get(rid - 1, (0, GENESIS) if rid == 1 else None)
            self.ends[rid] = (row.seq, h)
            self.last_round = max(self.last_round, rid)
            done.append(Finished(rid, as_recalled(rec, self.first_utc), row.seq, h, prev))
        for rid in [r for r in self.ends if r < self.last_round - 1]:
            del self.ends[rid]
        return events, done

    def apply_all(self, rows: Iterable[tuple[Record, str]]
                  ) -> tuple[list[EventMessage], list[Finished]]:
        """:meth:`apply` for several rows; the rounds finished are the newest record of each."""
        events: list[EventMessage] = []
        done: dict[int, Finished] = {}
        for row, h in rows:
            ev, fin = self.apply(row, h)
            events += ev
            done.update((f.round_id, f) for f in fin)
        return events, [done[r] for r in sorted(done)]

    def _events(self, row: Record, h: str, reason: str | None) -> list[EventMessage]:
        """The ``event`` messages of one row: notices new or changed, a role action."""
        out = []
        g = self.game
        notes = g.notes
        if notes != self._notes:
            for name, note in notes.items():
                if self._notes.get(name) != note:
                    out.append(EventMessage(
                        table=self.table_id, journal=self.journal, seq=row.seq, hash=h,
                        round_id=g.round_id, kind=name, severity=note.severity,
                        message=note.message, action=note.action, params=dict(note.params),
                        input=row.kind, actor=row.actor))
            self._notes = dict(notes)
        if row.actor in ROLES:
            out.append(EventMessage(
                table=self.table_id, journal=self.journal, seq=row.seq, hash=h,
                round_id=g.round_id, kind="role_action",
                severity="info" if reason is None else "warning", input=row.kind,
                actor=row.actor, accepted=reason is None, reason=reason))
        return out


__all__ = ["Finished", "ROLES", "Replay"]
