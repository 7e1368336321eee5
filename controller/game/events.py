"""What a card shoe and its link can say: frozen msgspec Structs, no hardware library.

The struct a dialect builds is the record the table checks, journals and applies.
"""

from __future__ import annotations

import enum
from typing import Annotated

from msgspec import Meta, Struct

# Beetek, the format of the shoes on the tables, unless ?dialect=, --dialect or shoe.dialect
# names another (each listed once, in drivers.dialects.DIALECTS).
DEFAULT_DIALECT = "beetek"


class ShoeEvent(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every event a shoe sends."""

    seq: int | None = None

    @property
    def type(self) -> str:
        """The event's wire-neutral type name, as ``threecard decode`` prints it."""
        return _TYPE_NAMES[type(self)]


class Hello(ShoeEvent):
    """The shoe powered up or reconnected (native ``HELLO``; seq 0 after a restart)."""

    model: str = ""
    serial: str = ""
    firmware: str = ""


class CardRead(ShoeEvent):
    """A card left the shoe and was read: ``code`` as sent, ``card`` canonical or None (void).

    ``burn``: read in burn mode, never a hand card; ``burn_rule``: the table's (2 for a burn).
    """

    card: str | None = None
    code: str = ""
    burn: bool = False
    burn_rule: Annotated[int, Meta(ge=1, le=2)] = 1


class Misread(ShoeEvent):
    """A card left the shoe but could not be identified (``burn``: an unreadable burn, no fault)."""

    burn: bool = False


class Retract(ShoeEvent):
    """A card already reported was pushed back (``card_seq``: the line it undoes, or None)."""

    card_seq: int | None = None


class Lid(ShoeEvent):
    """The card compartment lid opened (``open`` True) or closed."""

    open: bool = False


class Cut(ShoeEvent):
    """The cut card was reached: this pack ends after the round."""


class Empty(ShoeEvent):
    """No card is left in the shoe."""


class Alarm(ShoeEvent):
    """A device fault such as a jam (``code`` e.g. ``JAM`` or ``E3``, ``text`` its words)."""

    code: str = ""
    text: str = ""


class Warning(ShoeEvent):  # noqa: A001 - the trade's word; never shadows the builtin in use
    """A device warning (beetek ``<W0x01>``): ``code`` is the hex code as sent."""

    code: str = ""


class Heartbeat(ShoeEvent):
    """The shoe is alive (native ``HB``): ``uptime_ms`` milliseconds since it started."""

    uptime_ms: int = 0


class FrameError(ShoeEvent):
    """A frame was dropped, or broke the line sequence (``reason``: ``crc``, ``seq_back``...)."""

    reason: str = "malformed"
    detail: str = ""


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
