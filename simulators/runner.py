"""Running a simulated shoe by itself: heartbeats, dealing at a pace, scheduled faults."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from simulators.shoe import SimulatedShoe

MIN_HEARTBEAT_MS = 50
# While no host listens, how often a dealing runner looks: the rest of a round must follow
# the host's open by the interval (a restarted table would open its next round first).
HOST_POLL_MS = 50


class ShoeRunner:
    """Runs a shoe by itself: heartbeats, dealing at an interval, scheduled faults.

    Timed dealing stops while no host listens, and a round's cards are counted as the table
    fills its positions (docs/shoe-simulator.md), so shoe and table stay in step.

    Args:
        shoe: the shoe.
        interval_ms: deal a card every this many milliseconds; None or 0: only :meth:`deal`.
        heartbeat_ms: heartbeat period (native), default 1000.
        schedule: faults as ``(when, name, options)``, ``when`` ``("card", n)`` (before the
            n-th card) or ``("time", seconds)`` after start.
        on_deal: called with each card text dealt.
        round_cards: cards in a round (burns, three a seat and the dealer); None: endless.
        burn_cards: the burn positions at the start of each round.
        gap_ms: the pause after a round (and after a host opens the port), milliseconds.
        fresh_packs: shuffled packs loaded before every round after the first; 0 deals on.

    Attributes:
        in_round: positions of the current round filled so far.
        extra: cards of the current round that fill no position (extra burns).
    """

    def __init__(self, shoe: SimulatedShoe, *, interval_ms: int | None = None,
                 heartbeat_ms: int = 1000,
                 schedule: Sequence[tuple[tuple[str, float], str, dict[str, object]]] = (),
                 on_deal: Callable[[str | None], None] | None = None,
                 round_cards: int | None = None, gap_ms: int = 0,
                 fresh_packs: int = 0, burn_cards: int = 0) -> None:
        self.shoe = shoe
        self.interval = (interval_ms or 0) / 1000
        self.heartbeat = max(MIN_HEARTBEAT_MS, heartbeat_ms) / 1000
        self.schedule = list(schedule)
        self.on_deal = on_deal
        self.round_cards = round_cards if round_cards and round_cards > 0 else None
        self.gap = max(0, gap_ms) / 1000
        self.fresh_packs = max(0, fresh_packs)
        self.burn_cards = max(0, burn_cards)
        self.dealt = 0
        self.in_round = 0
        self.extra = 0
        self._filled: list[bool] = []  # per card of this round: it filled a position
        self._begun = False  # the runner has dealt a round's first card
        self.rounds = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the runner thread."""
        thread = threading.Thread(target=self._run, name="shoe-sim", daemon=True)
        thread.start()
        self._thread = thread  # only once started: a stop in between has nothing to join

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the runner thread and wait for it."""
        self._stop.set()
        if self._thread is not None and self._thread.ident is not None:
            self._thread.join(timeout)

    def _fire(self, kind: str, value: float) -> None:
        for item in [s for s in self.schedule if s[0] == (kind, value)]:
            self.schedule.remove(item)
            burns = self.shoe.flagged_burns
            self.shoe.inject(item[1], **item[2])
            for _ in range(self.shoe.flagged_burns - burns):  # unreadable burns
                self._count(burn=True)
            if item[1].replace("-", "_") == "retract" and self._filled:
                self.in_round -= self._filled.pop()

    def _count(self, *, burn: bool) -> None:
        """One card read in this round: it fills a position unless it is an extra burn."""
        filled = not burn or self.in_round < self.burn_cards
        self.in_round += filled
        self.extra += not filled
        self._filled.append(filled)

    @property
    def round_done(self) -> bool:
        """True before a round's first card: every card of the last round is dealt."""
        return self.round_cards is not None and (not self._begun
                                                 or self.in_round >= self.round_cards)

    def deal(self) -> str | None:
        """Deal one card now, after the faults scheduled for it (fresh packs at a round's start)."""
        with self._lock:
            if self.round_done:
                if self.rounds and self.fresh_packs:
                    self.shoe.load_deck(packs=self.fresh_packs)
                self.rounds += 1
                self.in_round = self.extra = 0
                self._filled = []
                self._begun = True
            self._fire("card", self.dealt + 1)
            burns = self.shoe.flagged_burns
            card = self.shoe.deal()
            self.dealt += 1
            if card is not None:
                self._count(burn=self.shoe.flagged_burns > burns)
        if self.on_deal is not None:
            self.on_deal(card)
        return card

    def _pause_after(self) -> float:
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
            if self.interval and not listening:
                due.append(now + HOST_POLL_MS / 1000)
            self._stop.wait(max(0.0, min(due) - time.monotonic()))
