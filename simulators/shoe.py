"""A simulated card shoe that speaks any registered dialect and can misbehave on demand.

Its firmware model and its faults: docs/shoe-simulator.md. Every public method may be
called from any thread.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from msgspec.structs import replace

from controller.game.cards import parse_card, shuffled_deck
from controller.game.events import (
    Alarm,
    CardRead,
    Cut,
    Empty,
    Heartbeat,
    Hello,
    Lid,
    Misread,
    Retract,
    ShoeEvent,
    Warning,
)
from drivers.dialects import (
    CheckedEncoder,
    Encoder,
    UnsupportedEvent,
    dialect_named,
    make_encoder,
)
from simulators.faults import FAULT_NEEDS, NUMBERED, FaultNotSupported, fault_name
from simulators.ports import PortGone, ShoePort

_PING = re.compile(rb"\$(\d{1,5}),PING\*[0-9A-Fa-f]{4}")
_ALARM = Alarm(code="E3", text="Card Not Read")


def _can_say(encoder: Encoder, event: ShoeEvent) -> bool:
    try:
        encoder.encode(event)
    except UnsupportedEvent:
        return False
    return True


@dataclass(slots=True)
class _Mods:
    split: list[int] | int | None = None
    coalesce: int = 0
    coalesced: list[bytes] | None = None
    bad_crc: bool = False
    bad_crc_resend: bool = False
    seq_skip: int = 0
    seq_back: int = 0
    repeat: bool = False
    reorder: bool = False
    held: bytes | None = None
    burn: int = 0
    unplug_at: int | None = None


class SimulatedShoe:
    """A shoe with a deck, speaking one dialect to one port at a time.

    Args:
        dialect: a name of :data:`drivers.dialects.DIALECTS`.
        seed: seed of the shuffle (reproducible); None for a random one.
        cards: a scripted deal order (``"As"``, ``"10h"``...); then ``seed`` and ``packs``
            are unused.
        packs: shuffled 52-card packs in the shoe.
        cut_at: send ``CUT`` (where the dialect has it) after this many cards, or None.
        model: HELLO model field.
        serial: HELLO serial field.
        firmware: HELLO firmware field.
        encoder_options: the dialect's encoder options (beetek ``{"ten": "T"}``...).
        clock: monotonic clock in seconds (heartbeat uptime).

    Attributes:
        dealt: cards that left the shoe, in order (retracted removed; a misread as the
            card really there).
        flagged_burns: cards read in burn mode so far; a runner counts rounds by it.
        stalled_until: clock time until which the runner deals no card (``stall``).
    """

    def __init__(self, dialect: str, *, seed: int | None = None,
                 cards: Sequence[str] | None = None, packs: int = 1, cut_at: int | None = None,
                 model: str = "SIM-3CP", serial: str = "SIM0001", firmware: str = "1.0",
                 encoder_options: Mapping[str, object] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.dialect = dialect
        self._spec = dialect_named(dialect)
        self._encoder = make_encoder(dialect, **(encoder_options or {}))
        self._says = {type(ev) for ev in (Hello(), Cut(), Empty(), Lid(), Retract(card_seq=0))
                      if _can_say(self._encoder, replace(ev, seq=0))}
        if cards is not None:
            self._deck = [str(parse_card(c)) for c in cards]
        else:
            rng = random.Random(seed)
            self._deck = [str(c) for _ in range(max(1, packs)) for c in shuffled_deck(rng)]
        self._pos = 0
        self.cut_at = cut_at
        self.model, self.serial, self.firmware = model, serial, firmware
        self._clock = clock
        self._started = clock()
        self._lock = threading.RLock()
        self._seq = 0
        self._outbox: deque[bytes] = deque(maxlen=4096)
        self._mods = _Mods()
        self._rng = random.Random(seed)
        self.port: ShoePort | None = None
        self.dealt: list[str] = []
        self._dealt_seq: list[int | None] = []
        self.sent: list[ShoeEvent] = []
        self.silent = False
        self.stalled_until = 0.0
        self.flagged_burns = 0
        self._connected_once = False
        if Hello in self._says:
            self._emit(self._hello())

    # -- deck --------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Cards left in the shoe."""
        return len(self._deck) - self._pos

    def load_deck(self, seed: int | None = None, packs: int = 1) -> None:
        """Load freshly shuffled packs in place of the cards left (``seed`` None: the shoe's)."""
        with self._lock:
            rng = random.Random(self._rng.random() if seed is None else seed)
            self._deck = [str(c) for _ in range(max(1, packs)) for c in shuffled_deck(rng)]
            self._pos = 0

    def peek(self) -> str | None:
        """The next card that :meth:`deal` would send, or None when empty."""
        with self._lock:
            return self._deck[self._pos] if self._pos < len(self._deck) else None

    def deal(self, *, burn: bool = False) -> str | None:
        """Deal the next card (``burn``: in burn mode); its text, or None when empty (``EMPTY``)."""
        with self._lock:
            if self._pos >= len(self._deck):
                if Empty in self._says:
                    self._emit(Empty())
                return None
            card = self._deck[self._pos]
            self._pos += 1
            if self._mods.burn > 0:
                self._mods.burn -= 1
                burn = True
            self.flagged_burns += bool(burn)
            sent = self._emit(CardRead(card=card, code=self._encoder.card_code(card),
                                       burn=burn))
            self.dealt.append(card)
            self._dealt_seq.append(sent.seq if sent else None)
            if self.cut_at is not None and len(self.dealt) == self.cut_at and Cut in self._says:
                self._emit(Cut())
            return card

    # -- port --------------------------------------------------------------------------

    def attach(self, port: ShoePort) -> None:
        """Connect the shoe to a port (replacing any): outbox and HELLO go when a host opens it."""
        with self._lock:
            self.port = port
            port.on_host_open = self.host_ready
            port.on_host_data = self.host_data
            connected = port.host_connected
        if connected:
            self.host_ready()

    def host_ready(self) -> None:
        """A host has opened the port: send what waits in the outbox, then ``HELLO``."""
        with self._lock:
            port = self.port
            if port is None:
                return
            while self._outbox:
                frame = self._outbox[0]
                try:
                    port.write(frame)
                except PortGone:
                    return
                self._outbox.popleft()
            if Hello in self._says and self._connected_once:
                self._emit(self._hello())
            self._connected_once = True

    def host_data(self, data: bytes) -> None:
        """Bytes from the host: a ``PING`` is answered with ``HB`` unless silenced."""
        for _ in _PING.finditer(data):
            if self._spec.heartbeat and not self.silent:
                self.heartbeat(force=True)

    def heartbeat(self, *, force: bool = False) -> bool:
        """Send ``HB`` if a host listens and the shoe is not silenced (``force``: even then)."""
        with self._lock:
            if not self._spec.heartbeat or (self.silent and not force):
                return False
            if self.port is None or not self.port.host_connected:
                return False
            uptime = int((self._clock() - self._started) * 1000)
            return self._emit(Heartbeat(uptime_ms=uptime), keep=False) is not None

    def send(self, event: ShoeEvent) -> ShoeEvent | None:
        """Send any event the dialect can say, its seq assigned here; the event as sent."""
        with self._lock:
            return self._emit(event)

    # -- faults ------------------------------------------------------------------------

    def check_fault(self, name: str) -> str:
        """The fault's name as :data:`~simulators.faults.FAULTS` spells it, if the dialect can.

        Raises:
            FaultNotSupported: unknown fault, or one the dialect cannot express.
        """
        name = fault_name(name)
        need = FAULT_NEEDS.get(name)
        if need == NUMBERED and not self._spec.numbered:
            raise FaultNotSupported(f"fault {name!r} needs numbered lines with a CRC, which "
                                    f"the {self.dialect} dialect has not")
        if isinstance(need, type) and need not in self._says:
            raise FaultNotSupported(f"fault {name!r} needs a {need.__name__} event, which the "
                                    f"{self.dialect} dialect cannot say")
        return name

    def inject(self, name: str, **kw: object) -> object:
        """Inject one fault of :data:`simulators.faults.FAULTS` (``kw``: its options).

        Returns:
            What the fault produced, if anything (``replug`` returns the new port).

        Raises:
            FaultNotSupported: unknown fault, or one the dialect cannot express.
        """
        name = self.check_fault(name)
        with self._lock:
            return getattr(self, f"_fault_{name}")(**kw)

    def _fault_split(self, pieces: int = 3, at: list[int] | None = None) -> None:
        self._mods.split = list(at) if at is not None else max(2, int(pieces))

    def _fault_coalesce(self, count: int = 3) -> None:
        self._mods.coalesce = max(2, int(count))
        self._mods.coalesced = []

    def _fault_noise(self, data: bytes | None = None, size: int = 16) -> None:
        if data is None:
            alphabet = b"\x00\xff\xfe\x80 !#%&()+-./09:;=?@AZaz{}|~\x1b\x07"
            data = bytes(self._rng.choice(alphabet) for _ in range(size))
        self._raw(bytes(data))

    def _fault_lone_cr(self) -> None:
        self._raw(b"\r")

    def _fault_lone_lf(self) -> None:
        self._raw(b"\n")

    def _fault_bad_crc(self, resend: bool = False) -> None:
        self._mods.bad_crc = True
        self._mods.bad_crc_resend = bool(resend)

    def _fault_seq_skip(self, count: int = 1) -> None:
        self._mods.seq_skip += max(1, int(count))

    def _fault_seq_reuse(self, back: int = 1) -> None:
        self._mods.seq_back = max(1, int(back))

    def _fault_seq_repeat(self) -> None:
        self._mods.repeat = True

    def _fault_seq_reorder(self) -> None:
        self._mods.reorder = True

    def _fault_misread(self, burn: bool = False) -> ShoeEvent | None:
        if self._mods.burn > 0:
            self._mods.burn -= 1
            burn = True
        self.flagged_burns += bool(burn)
        if self._pos < len(self._deck):
            self.dealt.append(self._deck[self._pos])
            self._pos += 1
            event = self._emit(Misread(burn=bool(burn)))
            self._dealt_seq.append(event.seq if event else None)
            return event
        return self._emit(Misread(burn=bool(burn)))

    def _fault_alarm(self, code: str | None = None, text: str | None = None) -> ShoeEvent | None:
        return self._emit(Alarm(code=code or _ALARM.code,
                                text=_ALARM.text if text is None else text))

    def _fault_warning(self, code: str = "0x01") -> ShoeEvent | None:
        return self._emit(Warning(code=code))

    def _fault_retract(self) -> ShoeEvent | None:
        if not self.dealt:
            raise FaultNotSupported("no card to retract")
        card = self.dealt.pop()
        seq = self._dealt_seq.pop()
        self._pos -= 1
        self._deck[self._pos] = card
        return self._emit(Retract(card_seq=seq))

    def _fault_unknown_card(self, code: str = "XX") -> ShoeEvent | None:
        return self._emit(CardRead(card=None, code=code))

    def _fault_duplicate_card(self, card: str | None = None) -> ShoeEvent | None:
        text = str(parse_card(card)) if card else (self.dealt[-1] if self.dealt else "As")
        return self._emit(CardRead(card=text, code=self._encoder.card_code(text)))

    def _fault_burn(self, count: int = 1) -> None:
        self._mods.burn += max(1, int(count))

    def _fault_cut(self) -> ShoeEvent | None:
        return self._emit(Cut())

    def _fault_empty(self) -> ShoeEvent | None:
        return self._emit(Empty())

    def _fault_lid_open(self) -> ShoeEvent | None:
        return self._emit(Lid(open=True))

    def _fault_lid_close(self) -> ShoeEvent | None:
        return self._emit(Lid(open=False))

    def _fault_silence(self) -> None:
        self.silent = True

    def _fault_resume(self) -> None:
        self.silent = False

    def _fault_unplug(self, at: int | None = None, now: bool = False) -> None:
        if now:
            if self.port is not None:
                self.port.unplug()
            return
        self._mods.unplug_at = -1 if at is None else max(1, int(at))

    def _fault_replug(self) -> ShoePort:
        if self.port is None:
            raise FaultNotSupported("the shoe is not attached to a port")
        new = self.port.replug()
        self.attach(new)
        return new

    def _fault_busy(self, busy: bool = True) -> None:
        if self.port is not None:
            self.port.set_busy(bool(busy))

    def _fault_permission_denied(self, denied: bool = True) -> None:
        if self.port is not None:
            self.port.set_denied(bool(denied))

    def _fault_restart(self, lost_hello: bool = False) -> ShoeEvent | None:
        self._seq = 0
        self._outbox.clear()
        self._mods = _Mods(bad_crc=bool(lost_hello))
        self._started = self._clock()
        return self._emit(self._hello())

    def _fault_stall(self, seconds: float = 30.0) -> None:
        self.stalled_until = self._clock() + float(seconds)

    # -- frames ------------------------------------------------------------------------

    def _hello(self) -> Hello:
        return Hello(model=self.model, serial=self.serial, firmware=self.firmware)

    def _emit(self, event: ShoeEvent, *, keep: bool = True) -> ShoeEvent | None:
        """Assign a seq, encode, apply one-shot faults, transmit. Lock held by callers."""
        mods = self._mods
        if self._spec.numbered:
            self._seq = (self._seq + mods.seq_skip) % 65536
            mods.seq_skip = 0
            if mods.seq_back:
                event = replace(event, seq=(self._seq - mods.seq_back) % 65536)
                mods.seq_back = 0
            else:
                event = replace(event, seq=self._seq)
                self._seq = (self._seq + 1) % 65536
            if mods.bad_crc:
                mods.bad_crc = False
                encoder = cast(CheckedEncoder, self._encoder)  # numbered: lines have a CRC
                self._transmit(encoder.encode_bad_crc(event), keep)
                if mods.bad_crc_resend:
                    self._transmit(encoder.encode(event), keep)
                self.sent.append(event)
                return event
        else:
            event = replace(event, seq=None)
        frame = self._encoder.encode(event)
        self.sent.append(event)
        if mods.reorder:
            mods.reorder = False
            mods.held = frame
            return event
        self._transmit(frame, keep)
        if mods.repeat:
            mods.repeat = False
            self._transmit(frame, keep)
        if mods.held is not None:
            held, mods.held = mods.held, None
            self._transmit(held, keep)
        return event

    def _raw(self, data: bytes) -> None:
        port = self.port
        if port is not None and port.host_connected:
            try:
                port.write(data)
            except PortGone:
                pass

    def _transmit(self, frame: bytes, keep: bool) -> None:
        mods = self._mods
        port = self.port
        if port is None or not port.host_connected or self._outbox:
            if keep:
                self._outbox.append(frame)
            return
        if mods.coalesced is not None:
            mods.coalesced.append(frame)
            if len(mods.coalesced) < mods.coalesce:
                return
            frame, mods.coalesced, mods.coalesce = b"".join(mods.coalesced), None, 0
        try:
            if mods.unplug_at is not None:
                at = len(frame) // 2 if mods.unplug_at < 0 else min(mods.unplug_at,
                                                                     len(frame) - 1)
                mods.unplug_at = None
                port.write(frame[:at])
                port.unplug()
                if keep:
                    self._outbox.append(frame)
                return
            if mods.split is not None:
                split, mods.split = mods.split, None
                cuts = (sorted({c for c in split if 0 < c < len(frame)})
                        if isinstance(split, list)
                        else sorted(self._rng.sample(range(1, len(frame)),
                                                     min(split, len(frame)) - 1)))
                for a, b in zip([0, *cuts], [*cuts, len(frame)], strict=True):
                    port.write(frame[a:b])
                return
            port.write(frame)
        except PortGone:
            if keep:
                self._outbox.append(frame)
