"""Running a simulated shoe by itself: heartbeats, dealing at a pace, scheduled faults.

:class:`ShoeRunner` is what ``threecard shoe-sim`` and ``sim://`` use to make a
:class:`~simulators.shoe.SimulatedShoe` deal like a dealer at a table, in rounds::

    runner = ShoeRunner(shoe, interval_ms=500, round_cards=9, gap_ms=3000, fresh_packs=1)
    runner.start()
    ...
    runner.stop()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from simulators.shoe import SimulatedShoe


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
