"""Rounds the floor asks a table for again, read from its journal without slowing the table.

The recorder asks (``<prefix>/<table>/resend``: ``{"journal": ..., "from_round": N}``)
when it lacks rounds; the table answers with a second :class:`~floor.follower.Follower`
that replays its journal from before round N up to where the live feed stood and makes
only ``round`` messages. A replay of a long journal takes a while, and the feed's thread
shares the table's process: so one replay at a time, a new one started at most every
:data:`RESEND_EVERY_S` (a request meanwhile waits, the lowest round asked for kept), and
the replay is read in the feed's paced chunks (:data:`floor.publisher.FEED_SHARE`).
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
"""Seconds between the starts of two replays for the floor, at least."""


class Resends:
    """The replays a table makes for the floor, one at a time.

    Args:
        path: the table's journal.
        table_id: the table's id.
        clock: seconds, monotonic.

    Attributes:
        follower: the replay under way, or None.
        pending: the lowest round asked for that no replay has started for yet, or None.
    """

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
        """A request from the floor: remember it (it starts in :meth:`poll`).

        Args:
            req: the request.
            genesis: the journal's name (its first event's hash): a request for another
                journal is not this table's.
            position: the live feed's position: the replay reads up to it.
        """
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
        """The next ``round`` messages of the replay under way (None: none under way).

        Starts the replay asked for when none runs and :data:`RESEND_EVERY_S` have passed
        since the last one started (an earlier round asked for restarts it).

        Args:
            limit: journal events to read at most.
            pause: called with the seconds a stretch of reading took (the feed's pacing).
        """
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
