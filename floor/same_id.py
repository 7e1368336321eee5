"""A table that finds another table with its id on the broker: a mixin of the feed."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from floor.messages import StatusMessage, decode

# Seconds a table that found another with its id waits before connecting again.
YIELD_S = 60.0


def _utc(us: int) -> str:
    return datetime.fromtimestamp(us / 1e6, UTC).isoformat(timespec="seconds")


class SameId:
    """Reads the statuses on the table's own topic."""

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

        A table with our id that connected before us keeps the floor: we say so, go offline and
        wait :data:`YIELD_S`; anything else not ours is answered with our ``online``.
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
