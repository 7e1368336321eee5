"""What the shoe-link tests share: a simulated shoe on a pty, a running link, waiting for events.

This folder is on ``sys.path`` while the tests run (``pythonpath`` in pyproject.toml), so a
test imports it as ``shoe_rig`` whether it runs from the source tree or against the
installed package from elsewhere.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import drivers
from controller.game.events import CardRead, LinkState, LinkStatus, ShoeEvent
from drivers.link import ShoeLink
from simulators.pty_shoe import PtyPort
from simulators.shoe import SimulatedShoe

FAST = {"backoff_initial": 0.02, "backoff_max": 0.2}
"""Reconnect back-off for tests: first retry after 20 ms, never more than 200 ms apart."""


def wait_for(q: queue.Queue, pred: Callable[[ShoeEvent], bool], timeout: float = 10.0,
             seen: list | None = None) -> ShoeEvent:
    """Take events off ``q`` until one matches ``pred`` and return it.

    Every event taken, the matching one included, is appended to ``seen`` when given.
    Fails the test (AssertionError naming the last events seen) after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    log = [] if seen is None else seen
    while True:
        try:
            ev = q.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"timed out after {timeout:g} s; {len(log)} events seen, "
                                 f"the last: {log[-20:]}") from None
        log.append(ev)
        if pred(ev):
            return ev


def state_is(state: LinkState) -> Callable[[ShoeEvent], bool]:
    """A ``wait_for`` predicate: the link reports ``state``."""
    return lambda ev: isinstance(ev, LinkStatus) and ev.state == state


def shoe_on_pty(dialect: str, folder: str | Path | None = None,
                **options: Any) -> tuple[SimulatedShoe, PtyPort]:
    """A simulated shoe of ``dialect`` plugged into a new pty (its stable link in ``folder``).

    ``options`` go to :class:`SimulatedShoe` (``seed=``, ``cards=``...). The caller
    closes the port.
    """
    shoe = SimulatedShoe(dialect, **options)
    port = PtyPort(None if folder is None else str(folder), dialect=dialect)
    shoe.attach(port)
    return shoe, port


@contextmanager
def running_link(url: str, q: queue.Queue | None = None,
                 **opts) -> Iterator[tuple[ShoeLink, queue.Queue]]:
    """``drivers.open_link(url, q, **opts)`` started, with ``FAST`` back-off unless ``opts``
    set it; stopped on the way out, where its thread must end. Yields the link and its
    queue (a new one by default)."""
    q = queue.Queue() if q is None else q
    link = drivers.open_link(url, q, **{**FAST, **opts})
    link.start()
    try:
        yield link, q
    except BaseException:
        link.stop()
        raise
    assert link.stop(), f"the link to {url} did not stop"


def card_arrives(url: str, shoe: SimulatedShoe, **opts) -> LinkStatus:
    """Run a link on ``url`` (as :func:`running_link`): it must come online, and the card
    ``shoe`` deals then must arrive. Returns the link's ONLINE status (its detail names
    the port it opened)."""
    with running_link(url, **opts) as (_link, q):
        online = wait_for(q, state_is(LinkState.ONLINE))
        card = shoe.deal()
        assert wait_for(q, lambda ev: isinstance(ev, CardRead)).card == card
    return online
