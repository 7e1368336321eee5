"""A message larger than the broker takes, sent in parts and joined again, never shortened.

The format and what is refused: docs/floor-format.md, "Parts".
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from floor.messages import MAX_PARTS, MAX_PAYLOAD_BYTES, Part, encode

# A broker that takes less than this in a packet is too small for the feed.
MIN_PART_DATA = 256
# PUBLISH bytes besides topic and payload: fixed header (1 + 4 for the length), topic
# length (2), packet id (2), properties' length (1), 2 to spare.
PUBLISH_OVERHEAD = 12
KEEP_S = 120.0
# Per table; the oldest go first.
OPEN_LIMIT = 8 * MAX_PAYLOAD_BYTES


class TooSmall(ValueError):
    """The broker's packet limit leaves no room for a part (see :data:`MIN_PART_DATA`)."""


def packet_size(topic: str, payload: bytes) -> int:
    """The size of the PUBLISH packet that carries ``payload`` on ``topic``, at most."""
    return len(topic.encode()) + len(payload) + PUBLISH_OVERHEAD


def split(whole: bytes, topic: str, limit: int, table: str, journal: str,
          sent_us: int) -> list[bytes]:
    """The payloads of the parts of ``whole``, each in a packet of at most ``limit`` bytes.

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

    parts: int
    since: float
    data: dict[int, bytes] = field(default_factory=dict)
    size: int = 0


class Joiner:
    """The recorder's side: parts kept per table until they make their whole."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._open: dict[tuple[str, str, str], _Whole] = {}  # (table, topic name, whole)

    def take(self, table: str, name: str, p: Part) -> bytes | None:
        """Keep part ``p`` of ``table``'s topic ``name``; the whole once all its parts are in.

        Raises ValueError, dropping the whole, when the parts disagree or do not make it.
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
