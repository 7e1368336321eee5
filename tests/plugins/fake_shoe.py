"""A third shoe dialect and a URL scheme from outside the product, as a plugin adds them.

Importing this module registers both, with one line each (at the bottom):

* the ``fake`` dialect: one line per card, ``CARD <code>`` and a line feed
  (``CARD QH``, ``CARD 10D``); any other non-empty line is a malformed frame;
* the ``fake://NAME`` scheme: a shoe inside the process that deals the 52 cards in the
  order of :data:`controller.game.cards.DECK` (``2c 2d 2h 2s 3c ...``), starting again
  from the top at every :meth:`FakeShoe.load_deck`, in the ``fake`` dialect.
"""

from __future__ import annotations

import queue

from controller.game.cards import DECK
from controller.game.codes import normalise_code
from controller.game.events import CardRead, FrameError, ShoeEvent
from drivers.dialects import BaseDecoder, Dialect, UnsupportedEvent, register_dialect
from drivers.transports import Connector, Transport
from drivers.url import ShoeUrl, register_scheme


class FakeDecoder(BaseDecoder):
    """``CARD <code>`` lines."""

    name = "fake"

    def __init__(self) -> None:
        super().__init__()
        self._line = bytearray()

    def reset(self) -> None:
        self._line.clear()

    def _feed(self, data: bytes, out: list[ShoeEvent]) -> None:
        for byte in data:
            if byte not in b"\r\n":
                self._line.append(byte)
                continue
            text, self._line = self._line.decode("ascii", "replace").strip(), bytearray()
            word, _, code = text.partition(" ")
            if not text:
                continue
            if word != "CARD" or not code:
                self.stats.malformed += 1
                out.append(FrameError(reason="malformed", detail=repr(text)))
                continue
            self.stats.frames += 1
            out.append(CardRead(card=normalise_code(code), code=code))


class FakeEncoder:
    """Cards as ``CARD <RANK><SUIT>`` lines, upper case, tens as ``10``."""

    name = "fake"

    def card_code(self, card: str) -> str:
        return card[:-1].replace("T", "10") + card[-1].upper()

    def encode(self, event: ShoeEvent) -> bytes:
        if not isinstance(event, CardRead):
            raise UnsupportedEvent(f"the fake dialect has no line for {type(event).__name__}")
        return f"CARD {event.code or self.card_code(event.card or '??')}\n".encode("ascii")


class FakeShoe:
    """Deals :data:`DECK` in order when asked (the daemon's autoplay asks when a card is due)."""

    def __init__(self) -> None:
        self.lines: queue.Queue[bytes] = queue.Queue()
        self._next = 0

    def load_deck(self) -> None:
        self._next = 0

    def deal(self) -> str:
        card = str(DECK[self._next % len(DECK)])
        self._next += 1
        self.lines.put(FakeEncoder().encode(CardRead(card=card)))
        return card


class FakeTransport(Transport):
    def __init__(self, shoe: FakeShoe, name: str) -> None:
        self.shoe, self.name = shoe, name

    def read(self, timeout: float) -> bytes:
        try:
            return self.shoe.lines.get(timeout=timeout)
        except queue.Empty:
            return b""

    def write(self, data: bytes) -> None:
        pass

    def cancel(self) -> None:
        self.shoe.lines.put(b"")

    def close(self) -> None:
        pass


class FakeConnector(Connector):
    def __init__(self, name: str) -> None:
        self.description = f"fake://{name}"
        self.shoe = FakeShoe()  # the daemon's autoplay deals through link.simulator

    def open(self) -> Transport:
        return FakeTransport(self.shoe, self.description)


def open_fake(url: ShoeUrl, dialect: Dialect, **_: object) -> FakeConnector:
    url.check()
    return FakeConnector(url.target)


register_dialect(Dialect("fake", FakeDecoder, FakeEncoder))
register_scheme("fake", open_fake)
