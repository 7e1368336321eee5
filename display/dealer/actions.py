"""What a dealer-screen control does: a dealer command, or one of these screen actions.

Every button of the dealer screen carries a typed action. One that reaches the table is a
:class:`~controller.game.inputs.DealerCommand` (its declaration in
:mod:`controller.game.inputs`); one that only changes the screen (a seat chosen, a pad
opened, a seat ticked as paid) is a small frozen class here. The screen applies them in
:meth:`~display.dealer.screen.DealerScreen.handle`; nothing else interprets them.
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
    """Record Play for every seat still undecided (one :class:`Decide` each).

    ``reveal``: then turn the dealer's cards (outcome mode: one touch for both).
    """

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
    """Open the pads for the supervisor action named ``command`` (a command's name).

    A void asks for its reason, a manual card for the card, then each asks for the PIN.
    """

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
    """Tick every seat as paid.

    ``next_round``: then open the next round (outcome mode: one touch for both).
    """

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
