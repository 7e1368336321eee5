"""A message larger than the broker takes, sent in parts and joined again, never shortened.

An MQTT 5 broker says in its CONNACK the largest packet it takes (Maximum Packet Size:
Mosquitto's ``max_packet_size``); a larger PUBLISH makes it close the connection. The
table (:mod:`floor.publisher`) sends such a message as :class:`~floor.messages.Part`
payloads on the message's own topic (the broker's ACL needs no new topic), each within the
limit: the whole payload's bytes cut in order, each part naming the SHA-256 of the whole.
The recorder (:class:`Joiner`) keeps the parts of each whole apart, and once all are there
and their bytes hash to the name, takes the whole as if it had come in one: verified as
any message, before anything of it is stored. A part lost leaves its whole incomplete:
the round lacks on the floor, and the recorder asks for it again as for any round lost
(the table sends it again, in new parts); parts of a whole that never completes are
dropped after :data:`KEEP_S`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from floor.messages import MAX_PARTS, MAX_PAYLOAD_BYTES, Part, encode

MIN_PART_DATA = 256
"""A part carries at least this many bytes of its whole: a broker that takes less in a
packet is too small for the feed (the table says so and waits)."""
PUBLISH_OVERHEAD = 12
"""Bytes of an MQTT 5 PUBLISH besides its topic and payload, at most: the fixed header
(1, and 4 for the length), the topic's length (2), the packet id (2) and the properties'
length (1), 2 to spare."""
KEEP_S = 120.0
"""Seconds the recorder keeps the parts of a whole that does not complete."""
OPEN_LIMIT = 8 * MAX_PAYLOAD_BYTES
"""Bytes of incomplete wholes the recorder keeps per table, at most (the oldest go first)."""


class TooSmall(ValueError):
    """The broker's packet limit leaves no room for a part (see :data:`MIN_PART_DATA`)."""


def packet_size(topic: str, payload: bytes) -> int:
    """The size of the PUBLISH packet that carries ``payload`` on ``topic``, at most."""
    return len(topic.encode()) + len(payload) + PUBLISH_OVERHEAD


def split(whole: bytes, topic: str, limit: int, table: str, journal: str,
          sent_us: int) -> list[bytes]:
    """The payloads of the parts of ``whole``, each in a packet of at most ``limit`` bytes.

    Args:
        whole: the message's payload as it would be sent in one.
        topic: the topic it goes to (its parts go there too).
        limit: the broker's Maximum Packet Size, in bytes.
        table: the table's id, which every part carries.
        journal: the whole's journal, which every part carries.
        sent_us: the whole's send time, which every part carries.

    Raises:
        TooSmall: a packet of ``limit`` bytes cannot carry :data:`MIN_PART_DATA` bytes of it.
    """
    digest = hashlib.sha256(whole).hexdigest()
    frame = encode(Part(table=table, journal=journal, sent_us=sent_us, whole=digest,
                        part=MAX_PARTS, parts=MAX_PARTS, data=b"\0"))
    room = limit - packet_size(topic, frame) + 4  # base64 of the one byte in the frame: 4
    per = room // 4 * 3  # base64 writes 3 bytes in 4 characters
    if per < MIN_PART_DATA or -(-len(whole) // per) > MAX_PARTS:
        raise TooSmall(f"a packet of {limit} bytes leaves {max(per, 0)} bytes for a part of "
                       f"a {len(whole)}-byte message on {topic} (at least {MIN_PART_DATA})")
    chunks = [whole[i:i + per] for i in range(0, len(whole), per)]
    return [encode(Part(table=table, journal=journal, sent_us=sent_us, whole=digest,
                        part=n, parts=len(chunks), data=c))
            for n, c in enumerate(chunks, 1)]


@dataclass
class _Whole:
    """The parts of one whole received so far."""

    parts: int
    since: float
    data: dict[int, bytes] = field(default_factory=dict)
    size: int = 0


class Joiner:
    """The recorder's side: parts kept per table until they make their whole.

    Args:
        clock: seconds, monotonic.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._open: dict[tuple[str, str, str], _Whole] = {}  # (table, topic name, whole)

    def take(self, table: str, name: str, p: Part) -> bytes | None:
        """Keep part ``p`` of ``table``'s topic ``name``; the whole once all its parts are in.

        A part received again (QoS 1 delivers at least once) changes nothing.

        Raises:
            ValueError: the part's count differs from its whole's other parts, the parts
                make more than :data:`~floor.messages.MAX_PAYLOAD_BYTES`, or they do not
                hash to the whole they name (what was kept of that whole is dropped).
        """
        now = self.clock()
        self._drop(lambda k, w: now - w.since > KEEP_S)
        key = (table, name, p.whole)
        w = self._open.get(key)
        if w is None:
            w = self._open[key] = _Whole(p.parts, now)
        if w.parts != p.parts:
            del self._open[key]
            raise ValueError(f"part {p.part} of {p.parts} of a message sent in {w.parts}")
        if p.part not in w.data:
            w.data[p.part] = p.data
            w.size += len(p.data)
        if w.size > MAX_PAYLOAD_BYTES:
            del self._open[key]
            raise ValueError(f"parts of more than the {MAX_PAYLOAD_BYTES} bytes a table sends")
        self._limit(table)
        if len(w.data) < w.parts:
            return None
        del self._open[key]
        whole = b"".join(w.data[n] for n in range(1, w.parts + 1))
        if hashlib.sha256(whole).hexdigest() != p.whole:
            raise ValueError(f"its {w.parts} parts do not make the message they name")
        return whole

    def _limit(self, table: str) -> None:
        """Drop the table's oldest incomplete wholes past :data:`OPEN_LIMIT` bytes."""
        mine = sorted((w.since, k) for k, w in self._open.items() if k[0] == table)
        total = sum(self._open[k].size for _, k in mine)
        for _, k in mine[:-1]:
            if total <= OPEN_LIMIT:
                break
            total -= self._open.pop(k).size

    def _drop(self, old: Callable[[tuple[str, str, str], _Whole], bool]) -> None:
        for k in [k for k, w in self._open.items() if old(k, w)]:
            del self._open[k]

    @property
    def waiting(self) -> int:
        """Wholes with parts still to come."""
        return len(self._open)
