"""A simulated card shoe that speaks ``native`` or ``beetek`` and can misbehave on demand.

The shoe holds a deck (seeded shuffled packs, or a scripted list of cards), writes its
frames to a :class:`~simulators.ports.ShoePort` (in-memory, pty, TCP or USB) and can
inject every fault of the shoe protocol notes by name. Typical use::

    from simulators.ports import MemoryPort
    from simulators.shoe import SimulatedShoe

    shoe = SimulatedShoe("native", seed=7)           # one shuffled pack, reproducible
    port = MemoryPort(dialect="native")
    shoe.attach(port)                                # HELLO goes out when a host opens
    link = drivers.open_link(port.url, inbox)        # the production link finds it
    link.start()
    shoe.deal()                                      # -> "Qh" (the card sent)
    shoe.inject("bad_crc"); shoe.deal()              # a corrupted line, then a seq gap
    shoe.inject("unplug"); shoe.deal()               # half a frame, then the cable is out
    shoe.inject("replug")                            # back under another name

Firmware model (what the host may rely on when testing against it):

* ``native``: every line the shoe sends gets the next seq (0..65535, wrapping); ``HELLO``
  with seq 0 at power-up (and after ``restart``), ``HELLO`` with the next seq whenever a
  host (re)opens the port; ``HB`` on :meth:`heartbeat` and in answer to ``PING``.
* Store and forward: lines made while no host is listening (cable out, port closed) wait
  in an outbox and go out, in order, when a host opens the port again; a frame cut by an
  unplug is resent whole. Heartbeats are not stored (and use no seq while nobody listens).
* ``beetek`` has no seq, heartbeat, hello, retract, lid, cut or empty: injecting a fault
  that needs one raises :class:`FaultNotSupported`.

Thread safety: every public method may be called from any thread.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

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
from drivers.dialects import make_encoder
from drivers.dialects.native import encode_line, event_fields
from simulators.ports import PortGone, ShoePort

FAULTS: dict[str, str] = {
    "split": "next frame written in pieces (pieces=N, default 3; or at=[offsets])",
    "coalesce": "next frames written in one write (count=N, default 3)",
    "noise": "noise and non-ASCII bytes now, between frames (data=bytes to send)",
    "lone_cr": "a lone CR now",
    "lone_lf": "a lone LF now",
    "bad_crc": "next line with a wrong CRC (native; resend=True sends it again, right)",
    "seq_skip": "skip seq numbers before the next line (count=N, default 1) (native)",
    "seq_repeat": "next line sent twice, same seq (native)",
    "seq_reorder": "next two lines sent in swapped order (native)",
    "misread": "a card leaves the shoe unidentified (uses the next card); in burn mode "
               "(burn=True, or a pending burn) an unreadable burn",
    "alarm": "a device alarm (code=, text=)",
    "warning": "a device warning (code=)",
    "retract": "the last card dealt is pushed back in; it will be dealt again (native)",
    "unknown_card": "a card whose code is not one of the 52 (code=, default XX)",
    "duplicate_card": "a card already out of this deck is read again (card=, default the last)",
    "burn": "the next cards, misreads included, are read in burn mode (count=N, default 1)",
    "cut": "the cut card is reached (native)",
    "empty": "the shoe reports it is empty (native)",
    "lid_open": "the lid opens mid-pack (native)",
    "lid_close": "the lid closes (native)",
    "silence": "heartbeats and PING answers stop while the port stays open",
    "resume": "heartbeats and PING answers resume",
    "unplug": "the cable is pulled mid-frame during the next line (at=byte offset); now=True "
              "pulls it at once",
    "replug": "the shoe comes back on a port under another name",
    "busy": "opening the port fails as busy (busy=False undoes)",
    "permission_denied": "opening the port fails with permission denied (denied=False undoes)",
    "restart": "the shoe restarts mid-round: HELLO with seq 0 (native)",
    "stall": "the dealer stalls: no card for a while (seconds=, default 30; runner only)",
}
"""Every fault :meth:`SimulatedShoe.inject` knows, with its options."""

NATIVE_ONLY = frozenset({"bad_crc", "seq_skip", "seq_repeat", "seq_reorder", "retract", "cut",
                         "empty", "lid_open", "lid_close", "restart"})

_PING = re.compile(rb"\$(\d{1,5}),PING\*[0-9A-Fa-f]{4}")


class FaultNotSupported(ValueError):
    """The fault cannot be expressed in the shoe's dialect, or is unknown."""


@dataclass(slots=True)
class _Mods:
    split: list[int] | int | None = None
    coalesce: int = 0
    coalesced: list[bytes] | None = None
    bad_crc: bool = False
    bad_crc_resend: bool = False
    seq_skip: int = 0
    repeat: bool = False
    reorder: bool = False
    held: bytes | None = None
    burn: int = 0
    unplug_at: int | None = None


class SimulatedShoe:
    """A shoe with a deck, speaking one dialect to one port at a time.

    Args:
        dialect: ``native`` or ``beetek``.
        seed: seed of the shuffle (reproducible); None for a random one.
        cards: a scripted deal order (card texts such as ``"As"``, ``"10h"``; several packs
            may follow one another); when given, ``seed`` and ``packs`` are unused.
        packs: shuffled 52-card packs in the shoe.
        cut_at: send ``CUT`` (native) after this many cards, or None.
        model: HELLO model field.
        serial: HELLO serial field.
        firmware: HELLO firmware field.
        beetek_style: ``rank-suit`` (``4S``) or ``suit-first`` (``S4``) card codes.
        beetek_ten: ``10`` or ``T`` for tens in beetek codes.
        clock: monotonic clock in seconds (heartbeat uptime).

    Attributes:
        dialect: the dialect spoken.
        dealt: canonical texts of the cards that left the shoe, in order (retracted cards
            removed); misreads are included as the card that was really there.
        sent: every event sent, with its seq (for tests).
        stalled_until: clock time until which the runner deals no card (``stall``).
    """

    def __init__(self, dialect: str = "native", *, seed: int | None = None,
                 cards: Sequence[str] | None = None, packs: int = 1, cut_at: int | None = None,
                 model: str = "SIM-3CP", serial: str = "SIM0001", firmware: str = "1.0",
                 beetek_style: str = "rank-suit", beetek_ten: str = "10",
                 clock: Callable[[], float] = time.monotonic) -> None:
        if dialect not in ("native", "beetek"):
            raise ValueError(f"unknown shoe dialect {dialect!r}")
        self.dialect = dialect
        self._encoder = (make_encoder("beetek", style=beetek_style, ten=beetek_ten)
                         if dialect == "beetek" else make_encoder("native"))
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
        self._connected_once = False
        if dialect == "native":
            self._emit(self._hello())

    # -- deck --------------------------------------------------------------------------

    @property
    def remaining(self) -> int:
        """Cards left in the shoe."""
        return len(self._deck) - self._pos

    def load_deck(self, seed: int | None = None, packs: int = 1) -> None:
        """Load freshly shuffled packs, replacing the cards still in the shoe.

        What a dealer (or an automatic shuffler) does between rounds when every round is
        dealt from a full deck.

        Args:
            seed: shuffle seed (None: draw one from the shoe's own generator).
            packs: 52-card packs to load.
        """
        with self._lock:
            rng = random.Random(self._rng.random() if seed is None else seed)
            self._deck = [str(c) for _ in range(max(1, packs)) for c in shuffled_deck(rng)]
            self._pos = 0

    def peek(self) -> str | None:
        """The next card that :meth:`deal` would send, or None when empty."""
        with self._lock:
            return self._deck[self._pos] if self._pos < len(self._deck) else None

    def deal(self, *, burn: bool = False) -> str | None:
        """Deal the next card: it leaves the shoe and its frame is sent.

        Args:
            burn: read it in burn mode (a burn card, never a hand card).

        Returns:
            The card's canonical text, or None when the shoe is empty (``EMPTY`` is sent
            in native).
        """
        with self._lock:
            if self._pos >= len(self._deck):
                if self.dialect == "native":
                    self._emit(Empty())
                return None
            card = self._deck[self._pos]
            self._pos += 1
            if self._mods.burn > 0:
                self._mods.burn -= 1
                burn = True
            code = self._encoder.card_code(card) if self.dialect == "beetek" else card
            sent = self._emit(CardRead(card=card, code=code, burn=burn))
            self.dealt.append(card)
            self._dealt_seq.append(sent.seq if sent else None)
            if self.cut_at is not None and len(self.dealt) == self.cut_at \
                    and self.dialect == "native":
                self._emit(Cut())
            return card

    # -- port --------------------------------------------------------------------------

    def attach(self, port: ShoePort) -> None:
        """Connect the shoe to a port (replacing any previous one).

        Args:
            port: the device side of a transport; when a host opens it, the outbox and a
                ``HELLO`` (native) go out.
        """
        with self._lock:
            self.port = port
            port.on_host_open = self.host_ready
            port.on_host_data = self.host_data
            connected = port.host_connected
        if connected:
            self.host_ready()

    def host_ready(self) -> None:
        """A host has opened the port: send what waits in the outbox, then ``HELLO``.

        Ports call this themselves; a test calls it only for a port that cannot tell.
        """
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
            if self.dialect == "native" and self._connected_once:
                self._emit(self._hello())
            self._connected_once = True

    def host_data(self, data: bytes) -> None:
        """Bytes from the host: a ``PING`` is answered with ``HB`` unless silenced."""
        for _ in _PING.finditer(data):
            if self.dialect == "native" and not self.silent:
                self.heartbeat(force=True)

    def heartbeat(self, *, force: bool = False) -> bool:
        """Send ``HB`` (native) if a host listens and the shoe is not silenced.

        Args:
            force: send even when silenced (a test's explicit heartbeat).

        Returns:
            True if a heartbeat was sent.
        """
        with self._lock:
            if self.dialect != "native" or (self.silent and not force):
                return False
            if self.port is None or not self.port.host_connected:
                return False
            uptime = int((self._clock() - self._started) * 1000)
            return self._emit(Heartbeat(uptime_ms=uptime), keep=False) is not None

    def send(self, event: ShoeEvent) -> ShoeEvent | None:
        """Send any event the dialect can say (its seq is assigned here).

        Args:
            event: the event (its ``seq`` is ignored).

        Returns:
            The event as sent, with its seq.
        """
        with self._lock:
            return self._emit(event)

    # -- faults ------------------------------------------------------------------------

    def inject(self, name: str, **kw: object) -> object:
        """Inject one fault of :data:`FAULTS`.

        Args:
            name: the fault (``-`` and ``_`` are the same).
            **kw: the fault's options (see :data:`FAULTS`).

        Returns:
            What the fault produced, if anything (``replug`` returns the new port).

        Raises:
            FaultNotSupported: unknown fault, or one the dialect cannot express.
        """
        name = name.replace("-", "_")
        if name not in FAULTS:
            raise FaultNotSupported(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
        if name in NATIVE_ONLY and self.dialect != "native":
            raise FaultNotSupported(f"fault {name!r} needs the native dialect")
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

    def _fault_seq_repeat(self) -> None:
        self._mods.repeat = True

    def _fault_seq_reorder(self) -> None:
        self._mods.reorder = True

    def _fault_misread(self, burn: bool = False) -> ShoeEvent | None:
        if self._mods.burn > 0:
            self._mods.burn -= 1
            burn = True
        if self._pos < len(self._deck):
            self.dealt.append(self._deck[self._pos])
            self._pos += 1
            event = self._emit(Misread(burn=bool(burn)))
            self._dealt_seq.append(event.seq if event else None)
            return event
        return self._emit(Misread(burn=bool(burn)))

    def _fault_alarm(self, code: str | None = None, text: str | None = None) -> ShoeEvent | None:
        native = self.dialect == "native"
        return self._emit(Alarm(code=code or ("JAM" if native else "E3"),
                                text=text if text is not None else (
                                    "feed jam" if native else "Card Not Read")))

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
        code = self._encoder.card_code(text) if self.dialect == "beetek" else text
        return self._emit(CardRead(card=text, code=code))

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

    def _fault_restart(self) -> ShoeEvent | None:
        self._seq = 0
        self._outbox.clear()
        self._mods = _Mods()
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
        if self.dialect == "native":
            self._seq = (self._seq + mods.seq_skip) % 65536
            mods.seq_skip = 0
            event = replace(event, seq=self._seq)
            self._seq = (self._seq + 1) % 65536
            if mods.bad_crc:
                mods.bad_crc = False
                good = encode_line(event.seq, *event_fields(event))
                frame = encode_line(event.seq, *event_fields(event),
                                    crc=int(good[-6:-2], 16) ^ 0x5A5A)
                self._transmit(frame, keep)
                if mods.bad_crc_resend:
                    self._transmit(good, keep)
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


class ShoeRunner:
    """Runs a shoe by itself: heartbeats, dealing at an interval, scheduled faults.

    Args:
        shoe: the shoe.
        interval_ms: deal one card every this many milliseconds; None or 0 for none
            (manual dealing through :meth:`deal`).
        heartbeat_ms: heartbeat period (native), default 1000.
        schedule: faults to inject, as ``(when, name, options)``: ``when`` is
            ``("card", n)`` (just before the n-th card this runner deals) or
            ``("time", seconds)`` after start.
        on_deal: called with each card text dealt (e.g. to print it).
        round_cards: deal in rounds of this many cards (a Three Card Poker round: three
            to each seat and to the dealer, plus the burn cards); None for one endless run.
        gap_ms: with ``round_cards``: the pause, in milliseconds, after the last card of a
            round (and after a host opens the port) before the next round's first card:
            the time the table has to settle, take the next bets and close them.
        fresh_packs: with ``round_cards``: load this many freshly shuffled packs before
            every round after the first (a table that deals every round from a shuffled
            deck); 0 deals on from the cards in the shoe (a scripted deck).

    Timed dealing goes on only while a host listens: cards are not dealt into a port
    nobody has open (they would all arrive at once when a host opens it). The thread
    waits on an event between due times: it never busy-polls.

    Attributes:
        dealt: cards this runner has dealt.
        in_round: cards dealt in the current round (``round_cards``).
        rounds: rounds begun (``round_cards``).
    """

    def __init__(self, shoe: SimulatedShoe, *, interval_ms: int | None = None,
                 heartbeat_ms: int = 1000,
                 schedule: Sequence[tuple[tuple[str, float], str, dict[str, object]]] = (),
                 on_deal: Callable[[str | None], None] | None = None,
                 round_cards: int | None = None, gap_ms: int = 0,
                 fresh_packs: int = 0) -> None:
        self.shoe = shoe
        self.interval = (interval_ms or 0) / 1000
        self.heartbeat = max(0.05, heartbeat_ms / 1000)
        self.schedule = list(schedule)
        self.on_deal = on_deal
        self.round_cards = round_cards if round_cards and round_cards > 0 else None
        self.gap = max(0, gap_ms) / 1000
        self.fresh_packs = max(0, fresh_packs)
        self.dealt = 0
        self.in_round = 0
        self.rounds = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the runner thread."""
        self._thread = threading.Thread(target=self._run, name="shoe-sim", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the runner thread and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _fire(self, kind: str, value: float) -> None:
        for item in [s for s in self.schedule if s[0] == (kind, value)]:
            self.schedule.remove(item)
            self.shoe.inject(item[1], **item[2])

    @property
    def round_done(self) -> bool:
        """True before a round's first card: every card of the last round is dealt."""
        return self.round_cards is not None and (self.in_round == 0
                                                 or self.in_round >= self.round_cards)

    def deal(self) -> str | None:
        """Deal one card now, first injecting faults scheduled for it.

        The first card of a round (after the first) comes from freshly shuffled packs
        when ``fresh_packs`` is set.
        """
        with self._lock:
            if self.round_done:
                if self.rounds and self.fresh_packs:
                    self.shoe.load_deck(packs=self.fresh_packs)
                self.rounds += 1
                self.in_round = 0
            self._fire("card", self.dealt + 1)
            card = self.shoe.deal()
            self.dealt += 1
            self.in_round += 1
        if self.on_deal is not None:
            self.on_deal(card)
        return card

    def _pause_after(self) -> float:
        """Seconds until the next timed card: the gap between rounds, else the interval."""
        return self.gap if self.round_done else self.interval

    def _run(self) -> None:
        start = time.monotonic()
        next_hb = start + self.heartbeat
        next_deal: float | None = None
        listening = False
        while not self._stop.is_set():
            now = time.monotonic()
            for item in [s for s in self.schedule if s[0][0] == "time"]:
                if now - start >= item[0][1]:
                    self._fire("time", item[0][1])
            if now >= next_hb:
                self.shoe.heartbeat()
                next_hb = now + self.heartbeat
            if self.interval:
                port = self.shoe.port
                host = port is not None and port.host_connected
                if host and not listening:  # a host opened the port (again)
                    next_deal = now + self._pause_after()
                listening = host
                if not host:
                    next_deal = None
                elif next_deal is not None and now >= next_deal:
                    if now >= self.shoe.stalled_until:
                        self.deal()
                    next_deal = max(now, self.shoe.stalled_until) + self._pause_after()
            due = [next_hb] + ([next_deal] if next_deal is not None else []) + [
                start + s[0][1] for s in self.schedule if s[0][0] == "time"]
            self._stop.wait(max(0.0, min(due) - time.monotonic()))
