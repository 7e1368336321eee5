"""A table that finds another table with its id on the broker: a mixin of the feed.

Two tables with one id share one client id (:class:`floor.publisher.FloorPublisher`):
:meth:`SameId._on_status` reads each status on the table's own topic and says so, and the
table that connected second waits :data:`YIELD_S`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from floor.messages import StatusMessage, decode

YIELD_S = 60.0
"""Seconds a table that found another table with its id waits before connecting again."""


def _utc(us: int) -> str:
    """Microseconds since the epoch as an ISO 8601 UTC time, to the second."""
    return datetime.fromtimestamp(us / 1e6, UTC).isoformat(timespec="seconds")


class SameId:
    """Reads the statuses on the table's own topic (see the module docstring)."""

    settings: Any
    table_id: str
    connected: bool
    genesis: str
    _client: Any
    _connection: int
    _before: int
    _witness_read: bool
    _yielded: bool
    _throttle: Any

    def _on_status(self, payload: bytes) -> None:
        """A status on our own topic: ours, a last will of our own, or another table's.

        The last will of another journal's connection opened after our previous one: a
        table with our id (our client id) connected in between, closing our connection,
        and ours closed it in turn; this table says so
        (:data:`floor.publisher.QUICK_LOSSES` decides which one waits). Another table
        online with our id and another journal, connected before us (a broker that lets
        both connect): this table says so, marks its own journal offline and waits
        :data:`YIELD_S` (the first one keeps the floor). Anything else not ours (a will of
        our own previous connection, the newer table's online) is answered with our
        ``online`` again, so the retained status stays ours.
        """
        try:
            other = decode(StatusMessage.name, payload)
        except ValueError:
            return
        if other.connection == self._connection or not self.connected:
            if self.connected and not self._witness_read and other.status == "online":
                self._witness_read = True  # our own online: any retained witness came first
                self._compare(None)
            return  # our own
        s, c = self.settings, self._client
        if other.status == "offline" and not other.stopped and other.journal != self.genesis \
                and 0 < self._before < other.connection:
            self._throttle.log("duplicate", logging.ERROR, "floor: another table connected "
                               "to %s as table %s (journal %s, connected %s), closing this "
                               "table's connection: each table needs an id of its own",
                               s.broker, self.table_id, other.journal[:16],
                               _utc(other.connection))
        if other.status == "online" and other.journal != self.genesis:
            first = (other.connection, other.journal) < (self._connection, self.genesis)
            self._throttle.log("duplicate", logging.ERROR, "floor: another table is online "
                               "on %s as table %s (journal %s, connected %s): each table "
                               "needs an id of its own; %s", s.broker, self.table_id,
                               other.journal[:16], _utc(other.connection),
                               f"this table's feed waits and tries again in {YIELD_S:.0f} s"
                               if first else "it waits, this table goes on")
            if first:
                c.publish(s.topic(self.table_id, "status"), self._status("offline"), qos=1,
                          retain=True)
                self._yielded = True
                c.disconnect()
                return
        self._online()
