"""What a card shoe and its link can say: frozen dataclasses, no hardware library."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

# Beetek, the format of the shoes on the tables, unless ?dialect=, --dialect or shoe.dialect
# names another (each listed once, in drivers.dialects.DIALECTS).
DEFAULT_DIALECT = "beetek"


@dataclass(frozen=True, slots=True)
class ShoeEvent:
    """Base of every event a shoe sends."""

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
    """A card left the shoe and was read: ``code`` as sent, ``card`` canonical or None (void).

    ``burn``: read in burn mode, never a hand card.
    """

    card: str | None = None
    code: str = ""
    burn: bool = False


@dataclass(frozen=True, slots=True)
class Misread(ShoeEvent):
    """A card left the shoe but could not be identified (``burn``: an unreadable burn, no fault)."""

    burn: bool = False


@dataclass(frozen=True, slots=True)
class Retract(ShoeEvent):
    """A card already reported was pushed back (``card_seq``: the line it undoes, or None)."""

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
    """A frame was dropped, or broke the line sequence (``reason``: ``crc``, ``seq_back``...)."""

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


# The detail of the DISCONNECTED a link sends when told to stop: no alarm, unlike a link lost.
LINK_STOPPED = "shoe link stopped"


@dataclass(frozen=True, slots=True)
class LinkStatus(ShoeEvent):
    """The link changed state; ``detail`` is an operator message (``permission denied on ...``)."""

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

    Sent once an episode after a few seconds, again with ``cleared``; ``nbytes`` 0: nothing
    since connecting (a ``native`` shoe on TCP waits for a ``PING``).
    """

    nbytes: int = 0
    dialect: str = ""
    cleared: bool = False

    @property
    def message(self) -> str:
        """The operator hint: ``no frame decoded from N bytes: is the dialect right?``."""
        if not self.nbytes:
            return ("nothing heard from the shoe since it connected: a native shoe waits for "
                    "the table's first message — is the dialect right? (this link speaks "
                    f"{self.dialect})")
        return f"no frame decoded from {self.nbytes} bytes: is the dialect right?"


_TYPE_NAMES[NoFrameDecoded] = "no_frame"
