"""The ``sim://`` shoe: a simulated shoe inside the process, over an in-memory pair.

Importing this module registers ``sim`` in :data:`drivers.url.SCHEMES`; the drivers
never import a simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drivers.transports import Connector, Transport
from drivers.transports.memory import MemoryConnector
from drivers.url import register_scheme
from simulators.ports import MemoryPort
from simulators.runner import ShoeRunner
from simulators.shoe import SimulatedShoe

if TYPE_CHECKING:
    from drivers.dialects import Dialect
    from drivers.url import ShoeUrl

SCHEME = "sim"


def open_sim(url: ShoeUrl, dialect: Dialect, **_: object) -> SimConnector:
    """The opener of ``sim://?seed=N&interval=MS&heartbeat=MS&packs=N``; its shoe runs already.

    No ``interval``: cards are dealt on demand; ``heartbeat`` defaults to 1000 ms.

    Raises:
        ValueError: an unknown option or a bad number.
    """
    url.check("seed", "interval", "heartbeat", "packs", target=False)
    return SimConnector(dialect=dialect.name, seed=url.number("seed", int, None),
                        interval_ms=url.number("interval", int, None),
                        heartbeat_ms=url.number("heartbeat", int, 1000),
                        packs=url.number("packs", int, 1))


class SimConnector(Connector):
    """Owns an in-process simulated shoe and opens its in-memory port.

    Args:
        dialect: a name of :data:`drivers.dialects.DIALECTS`.
        seed: shuffle seed (None: random).
        interval_ms: deal a card every this many ms by itself; None for manual dealing.
        heartbeat_ms: heartbeat period (native), milliseconds.
        packs: shuffled packs in the shoe.
        cards: a scripted deal order instead of shuffled packs.
    """

    def __init__(self, *, dialect: str, seed: int | None = None,
                 interval_ms: int | None = None, heartbeat_ms: int = 1000, packs: int = 1,
                 cards: list[str] | None = None) -> None:
        self.shoe = SimulatedShoe(dialect, seed=seed, packs=packs, cards=cards)
        self.port = MemoryPort(dialect=dialect)
        self.shoe.attach(self.port)
        self.runner = ShoeRunner(self.shoe, interval_ms=interval_ms, heartbeat_ms=heartbeat_ms)
        self.runner.start()
        self._inner = MemoryConnector(f"{self.port.base}-*")
        self.description = "sim://?" + "&".join(  # the options set, none left unset
            f"{k}={v}" for k, v in (("dialect", dialect), ("seed", seed),
                                    ("interval", interval_ms or None)) if v is not None)

    def open(self) -> Transport:
        """Open the simulated shoe's current port."""
        return self._inner.open()

    def close(self) -> None:
        """Stop the simulated shoe."""
        self.runner.stop()
        if self.shoe.port is not None:
            self.shoe.port.close()


register_scheme(SCHEME, open_sim)
