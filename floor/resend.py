"""Rounds the floor asks a table for again, read from its journal without slowing the table.

One replay at a time, at most every :data:`RESEND_EVERY_S`, in the feed's paced chunks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from controller.game.replay import ReplayError
from controller.journal import JournalError
from floor.follower import Follower, Outgoing
from floor.messages import ResendRequest
from floor.mqtt import Throttle

log = logging.getLogger("threecard.floor")

RESEND_EVERY_S = 10.0


class Resends:
    """The replays a table makes for the floor, one at a time (``pending``: the next to start)."""

    def __init__(self, path: str, table_id: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self.table_id = table_id
        self.clock = clock
        self.follower: Follower | None = None
        self.pending: int | None = None
        self._until = 0
        self._next_start = 0.0
        self._throttle = Throttle(log)  # rounds it cannot send: said once a minute

    def ask(self, req: ResendRequest, genesis: str, position: int) -> None:
        """A request for journal ``genesis``, up to ``position``, started by :meth:`poll`."""
        if req.journal != genesis:
            log.info("floor: resend asked for another journal (%s): not this table's",
                     req.journal[:16])
            return
        r = self.follower
        if r is not None and r.rounds_from <= req.from_round:
            return  # already on its way
        if self.pending is None or req.from_round < self.pending:
            log.info("floor: the floor asks for rounds from %d again", req.from_round)
            self.pending = req.from_round
        self._until = max(self._until, position)

    def poll(self, limit: int, pause: Callable[[float], None] | None = None
             ) -> list[Outgoing] | None:
        """The next ``round`` messages of the replay under way (None: none); starts one when due."""
        now = self.clock()
        if self.pending is not None and now >= self._next_start and (
                self.follower is None or self.pending < self.follower.rounds_from):
            self.close()
            try:
                self.follower = Follower(self.path, self.table_id, rounds_from=self.pending,
                                         until=self._until, pause=pause)
            except (JournalError, ReplayError) as exc:
                log.error("floor: cannot read the journal to send rounds again: %s", exc)
            self.pending, self._next_start = None, now + RESEND_EVERY_S
        r = self.follower
        if r is None:
            return None
        msgs = r.poll(limit)
        if (note := r.withheld_note()) is not None:
            self._throttle.log("withheld", logging.WARNING, "%s", note)
        if msgs is None or r.done:
            log.info("floor: rounds from %d up to event %d sent again", r.rounds_from,
                     r.position)
            self.close()
        return msgs or []

    def close(self) -> None:
        """Stop the replay under way (a pending request stays)."""
        if self.follower is not None:
            self.follower.close()
            self.follower = None
