"""What a dealer-screen control does: a dealer command, or one of these screen actions.

Only :meth:`~display.dealer.screen.DealerScreen.handle` interprets them.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.inputs import DealerCommand


@dataclass(frozen=True, slots=True)
class SelectSeat:
    """Put the keyboard's seat keys on ``seat`` (the outlined seat)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PickChip:
    """Use the chip of ``value`` minor units for the bets that follow."""

    value: int


@dataclass(frozen=True, slots=True)
class AddChip:
    """Add the chip in use to ``bet`` at ``seat`` (a :class:`PlaceBet` of its value)."""

    seat: int
    bet: str


@dataclass(frozen=True, slots=True)
class PlayRest:
    """Record Play for every seat still undecided; ``reveal``: then turn the dealer's cards."""

    reveal: bool = False


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last chip placed (betting) or the last decision (deciding)."""


@dataclass(frozen=True, slots=True)
class Show:
    """Open a screen: ``main``, ``recall`` or ``meters``."""

    screen: str


@dataclass(frozen=True, slots=True)
class ShowRecall:
    """Show the recall round at ``index`` (0 = the newest)."""

    index: int


@dataclass(frozen=True, slots=True)
class OpenPad:
    """Open the pads for the supervisor action ``command`` (its reason or card, then PIN)."""

    command: str


@dataclass(frozen=True, slots=True)
class PadReason:
    """The void reason chosen (a key of :data:`display.i18n.VOID_REASONS`)."""

    key: str


@dataclass(frozen=True, slots=True)
class PadRank:
    """A card rank chosen on the card pad (``A``, ``T``, ``2``)."""

    rank: str


@dataclass(frozen=True, slots=True)
class PadSuit:
    """A card suit chosen on the card pad (``s``, ``h``, ``d``, ``c``)."""

    suit: str


@dataclass(frozen=True, slots=True)
class PadCardDone:
    """The card is chosen: on to the PIN."""


@dataclass(frozen=True, slots=True)
class PadDigit:
    """A PIN digit typed."""

    digit: str


@dataclass(frozen=True, slots=True)
class PadDelete:
    """The last PIN digit taken back."""


@dataclass(frozen=True, slots=True)
class PadCancel:
    """Close the pads; nothing is sent."""


@dataclass(frozen=True, slots=True)
class PadSend:
    """Send the supervisor action with the PIN typed."""


@dataclass(frozen=True, slots=True)
class MarkPaid:
    """Tick ``seat`` as paid (or untick it): its payouts, takes and returns are done."""

    seat: int


@dataclass(frozen=True, slots=True)
class AllPaid:
    """Tick every seat as paid; ``next_round``: then open the next round."""

    next_round: bool = False


@dataclass(frozen=True, slots=True)
class DismissRefusal:
    """The refusal on show was read."""


ScreenAction = (SelectSeat | PickChip | AddChip | PlayRest | Undo | Show | ShowRecall | OpenPad
                | PadReason | PadRank | PadSuit | PadCardDone | PadDigit | PadDelete | PadCancel
                | PadSend | MarkPaid | AllPaid | DismissRefusal)
"""Every screen action."""
Action = DealerCommand | ScreenAction
"""What a dealer-screen button does."""
