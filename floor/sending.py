"""What a table's feed has made and the broker not yet acknowledged, and how it is sent."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import msgspec
from paho.mqtt.client import MQTT_ERR_SUCCESS

from floor.follower import Outgoing
from floor.messages import Message, encode
from floor.mqtt import FloorSettings
from floor.parts import TooSmall, packet_size, split

WINDOW = 50
# Seconds before a refused message goes again: the first wait, the longest (doubling; reset
# once a message is acknowledged).
REFUSED_S = (1.0, 60.0)
TOO_SMALL_WAIT_S = 60.0
# MQTT 5 reason code: packet larger than the broker takes.
PACKET_TOO_LARGE = 0x95


def stamped(body: Message) -> tuple[bytes, int]:
    """The payload of a message stamped with the time it is sent; that time (microseconds)."""
    now_us = time.time_ns() // 1000
    return encode(msgspec.structs.replace(body, sent_us=now_us)), now_us


@dataclass(slots=True)
class Entry:
    """A message not yet acknowledged (``mids``: its packets in flight; ``packet``: bytes)."""

    msg: Outgoing
    sent: bool = False
    mids: set[int] = field(default_factory=set)
    packet: int = 0
    acked: bool = False


class InFlight:
    """The feed's messages not yet acknowledged, and their packets in flight.

    ``limit`` is the Maximum Packet Size the CONNACK said (None: none), ``learned`` a limit
    found without it; ``problem`` says why the feed waits when no part fits.
    """

    def __init__(self, settings: FloorSettings, table_id: str) -> None:
        self.settings = settings
        self.table_id = table_id
        self.live: deque[Entry] = deque()
        self.resent: deque[Entry] = deque()
        self.by_mid: dict[int, Entry] = {}
        self.limit: int | None = None
        self.learned: int | None = None
        self.published = self.parts = 0
        self.problem: str | None = None
        self._hold_until = 0.0
        self._hold_s = REFUSED_S[0]

    @property
    def packet_limit(self) -> int | None:
        """The largest packet the broker takes, as far as the feed knows (None: no limit)."""
        known = [x for x in (self.limit, self.learned) if x]
        return min(known) if known else None

    def reset(self) -> None:
        """A connection opened or lost: nothing is in flight, everything goes again in order."""
        self.by_mid.clear()
        for e in (*self.resent, *self.live):
            e.sent = False
            e.mids.clear()
        self._hold_until = 0.0
        self.problem = None

    def clear(self) -> None:
        """Forget every message (the feed stopped)."""
        for q in (self.live, self.resent, self.by_mid):
            q.clear()

    def too_large(self) -> int | None:
        """A packet was too large for the broker: learn a limit below it (None: none in flight)."""
        largest = max((e.packet for e in self.by_mid.values()), default=0)
        if largest <= 1:
            return None
        self.learned = min(self.learned or largest, largest - 1)
        return self.learned

    def send(self, client: Any) -> bool:
        """Publish what is not in flight, resent rounds first, up to :data:`WINDOW`; True if any."""
        if time.monotonic() < self._hold_until:
            return False
        sent = False
        for q in (self.resent, self.live):
            for e in q:
                if e.acked or e.sent:
                    continue
                packets = self._packets(e)
                if packets is None:
                    return sent
                if self.by_mid and len(self.by_mid) + len(packets) > WINDOW:
                    return sent
                if not self._publish(client, e, packets):
                    return sent
                sent = True
        return sent

    def _packets(self, e: Entry) -> list[tuple[bytes, bool]] | None:
        """The payloads (and whether retained) that carry ``e``; None when no part fits."""
        topic = self.settings.topic(self.table_id, e.msg.name)
        payload, sent_us = stamped(e.msg.body)
        limit = self.packet_limit
        if limit is None or packet_size(topic, payload) <= limit:
            e.packet = packet_size(topic, payload)
            return [(payload, e.msg.retain)]
        try:  # a retained message in parts is not retained: the broker keeps one payload
            parts = split(payload, topic, limit, self.table_id, e.msg.body.journal, sent_us)
        except TooSmall as exc:
            self.problem = str(exc)
            self._hold_until = time.monotonic() + TOO_SMALL_WAIT_S
            return None
        e.packet = max(packet_size(topic, p) for p in parts)
        return [(p, False) for p in parts]

    def _publish(self, client: Any, e: Entry, packets: list[tuple[bytes, bool]]) -> bool:
        topic = self.settings.topic(self.table_id, e.msg.name)
        for payload, retain in packets:
            info = client.publish(topic, payload, qos=1, retain=retain)
            if info.rc != MQTT_ERR_SUCCESS:  # the connection went: it goes again whole
                for mid in e.mids:
                    self.by_mid.pop(mid, None)
                e.mids.clear()
                return False
            e.mids.add(info.mid)
            self.by_mid[info.mid] = e
        e.sent = True
        self.published += 1
        self.parts += len(packets) > 1
        return True

    def ack(self, mid: int, rc: Any) -> tuple[Entry | None, str]:
        """A PUBACK: its message, and ``acked``, ``part``, ``refused`` or ``unknown``."""
        e = self.by_mid.pop(mid, None)
        if e is None:
            return None, "unknown"
        if rc.is_failure:
            for m in e.mids:
                self.by_mid.pop(m, None)
            e.mids.clear()
            e.sent = False
            now = time.monotonic()
            if now >= self._hold_until:  # the first refusal of those in flight together
                self._hold_until = now + self._hold_s
                self._hold_s = min(self._hold_s * 2, REFUSED_S[1])
            return e, "refused"
        e.mids.discard(mid)
        if e.mids:
            return e, "part"
        e.acked = True
        self._hold_s = REFUSED_S[0]
        return e, "acked"

    @property
    def refused_wait_s(self) -> float:
        """Seconds until messages refused are sent again (0: not waiting)."""
        return max(0.0, self._hold_until - time.monotonic())
