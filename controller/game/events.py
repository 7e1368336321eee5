"""What a card shoe can say, and what its link can say about itself.

Frozen dataclasses, the one vocabulary shared by dialects, links, simulators and the
controller. This module imports no hardware library.

``seq`` is the shoe's own line number (``native`` dialect) or None (``beetek``, which
has no sequence numbers).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

DEFAULT_DIALECT = "beetek"
"""The dialect a shoe speaks unless its URL (``?dialect=``), ``--dialect`` or the
configuration's ``shoe.dialect`` names another: beetek, the format of the shoes on the
tables. Every dialect is listed once, in :data:`drivers.dialects.DIALECTS`."""


@dataclass(frozen=True, slots=True)
class ShoeEvent:
    """Base of every event a shoe sends.

    Attributes:
        seq: the shoe's sequence number 0..65535 (native), or None (beetek).
    """

    seq: int | None = field(default=None, kw_only=True)

    @property
    def type(self) -> str:
        """The event's wire-neutral type name, as ``threecard decode`` prints it."""
        return _TYPE_NAMES[type(self)]


@dataclass(frozen=True, slots=True)
class Hello(ShoeEvent):
    """The shoe powered up or reconnected (native ``HELLO``; seq 0 after a restart)."""

    model: str = ""
    serial: str = ""
    firmware: str = ""


@dataclass(frozen=True, slots=True)
class CardRead(ShoeEvent):
    """A card left the shoe and was read.

    Attributes:
        card: canonical card text (``Qh``, ``Td``), or None when ``code`` is not one of the
            52 cards (an unknown or foreign card: the controller voids, never guesses).
        code: the card code exactly as the shoe sent it (``10H``, ``H3``, ``Qh``).
        burn: True when the shoe read it in burn mode: a burn card, never a hand card.
    """

    card: str | None = None
    code: str = ""
    burn: bool = False


@dataclass(frozen=True, slots=True)
class Misread(ShoeEvent):
    """A card left the shoe but could not be identified.

    Attributes:
        burn: True when the shoe read it in burn mode: an unreadable burn card, never a
            hand card and never an irregularity (beetek ``[Manual Burn Cards]<Game>``,
            native ``MISREAD,BURN``).
    """

    burn: bool = False


@dataclass(frozen=True, slots=True)
class Retract(ShoeEvent):
    """A card already reported was pushed back into the shoe.

    Attributes:
        card_seq: the seq of the card line it undoes (native), or None (undo the last card).
    """

    card_seq: int | None = None


@dataclass(frozen=True, slots=True)
class Lid(ShoeEvent):
    """The card compartment lid opened (``open`` True) or closed."""

    open: bool = False


@dataclass(frozen=True, slots=True)
class Cut(ShoeEvent):
    """The cut card was reached: this pack ends after the round."""


@dataclass(frozen=True, slots=True)
class Empty(ShoeEvent):
    """No card is left in the shoe."""


@dataclass(frozen=True, slots=True)
class Alarm(ShoeEvent):
    """A device fault such as a jam (``code`` e.g. ``JAM`` or ``E3``, ``text`` its words)."""

    code: str = ""
    text: str = ""


@dataclass(frozen=True, slots=True)
class Warning(ShoeEvent):  # noqa: A001 - the trade's word; never shadows the builtin in use
    """A device warning (beetek ``<W0x01>``): ``code`` is the hex code as sent."""

    code: str = ""


@dataclass(frozen=True, slots=True)
class Heartbeat(ShoeEvent):
    """The shoe is alive (native ``HB``): ``uptime_ms`` milliseconds since it started."""

    uptime_ms: int = 0


@dataclass(frozen=True, slots=True)
class FrameError(ShoeEvent):
    """A frame was dropped, or broke the line sequence.

    ``reason`` is ``crc``, ``malformed`` or ``oversize``; in the native dialect also
    ``seq_reuse``, ``seq_back`` or ``restart_without_hello`` (:mod:`drivers.dialects.native`,
    rules 5, 7 and 8).
    """

    reason: str = "malformed"
    detail: str = ""


@dataclass(frozen=True, slots=True)
class SeqGap(ShoeEvent):
    """Lines were lost between two seq numbers: the round must pause for the dealer."""

    expected: int = 0
    got: int = 0


class LinkState(enum.Enum):
    """The state of the link to one shoe."""

    CONNECTING = "connecting"
    ONLINE = "online"
    SILENT = "silent"
    DISCONNECTED = "disconnected"


LINK_STOPPED = "shoe link stopped"
"""The ``detail`` of the :class:`LinkStatus` ``DISCONNECTED`` a link sends when it was told
to stop (the table stopping): no alarm, unlike a link lost."""


@dataclass(frozen=True, slots=True)
class LinkStatus(ShoeEvent):
    """The link changed state.

    Attributes:
        state: the new state.
        detail: an operator message, e.g. ``permission denied on /dev/ttyUSB0: add the
            service user to the dialout group``.
    """

    state: LinkState = LinkState.CONNECTING
    detail: str = ""


_TYPE_NAMES: dict[type, str] = {
    Hello: "hello",
    CardRead: "card",
    Misread: "misread",
    Retract: "retract",
    Lid: "lid",
    Cut: "cut",
    Empty: "empty",
    Alarm: "alarm",
    Warning: "warning",
    Heartbeat: "heartbeat",
    FrameError: "frame_error",
    SeqGap: "seq_gap",
    LinkStatus: "link",
}


@dataclass(frozen=True, slots=True)
class NoFrameDecoded(ShoeEvent):
    """Bytes keep arriving from the shoe but no frame decodes: is the dialect right?

    A shoe speaking another dialect (or at another baud rate) than the link expects sends
    bytes that every decoder skips as noise: without this event nothing would say so. The
    link sends it once per episode, after a few seconds of such bytes, and once more with
    ``cleared`` True when a frame decodes again. With ``nbytes`` 0 no byte at all came
    since the link connected (a ``native`` shoe on TCP waits for the table's ``PING``,
    which a ``beetek`` link never sends); the first byte clears it.

    Attributes:
        nbytes: bytes received since the last decoded frame (0: none since connecting).
        dialect: the dialect the link decodes (a name of ``drivers.dialects.DIALECTS``).
        cleared: True when a frame decoded again: the episode is over.
    """

    nbytes: int = 0
    dialect: str = ""
    cleared: bool = False

    @property
    def message(self) -> str:
        """The operator hint: ``no frame decoded from N bytes: is the dialect right?``.

        With no byte at all, what a shoe that waits for the table's first message means.
        """
        if not self.nbytes:
            return ("nothing heard from the shoe since it connected: a native shoe waits for "
                    "the table's first message — is the dialect right? (this link speaks "
                    f"{self.dialect})")
        return f"no frame decoded from {self.nbytes} bytes: is the dialect right?"


_TYPE_NAMES[NoFrameDecoded] = "no_frame"
