"""Dealer commands: what the dealer screen (or autoplay, or a test) asks the table to do.

A command is a frozen dataclass put on the table's inbox; the table validates it against
the current state, journals it, applies it and publishes new views. A command that is
not allowed is rejected with a reason, recorded, and changes nothing.

Supervisor actions carry the PIN entered on the PIN pad; the table checks it against
the hashed PINs of the roles and locks the role out after repeated failures.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class DealerCommand:
    """Base of every dealer command.

    Attributes:
        pin: PIN typed for a supervisor/technician action, else None.
    """

    pin: str | None = field(default=None, kw_only=True)

    @property
    def name(self) -> str:
        """The command's name, as listed in ``DealerView.allowed``."""
        return _NAMES[type(self)]


@dataclass(frozen=True, slots=True)
class PlaceBet(DealerCommand):
    """Add ``amount`` minor units to ``bet`` (ante, pair_plus, six_card_bonus) at ``seat``."""

    seat: int = 0
    bet: str = "ante"
    amount: int = 0


@dataclass(frozen=True, slots=True)
class ClearBets(DealerCommand):
    """Remove every wager of ``seat`` (betting open only)."""

    seat: int = 0


@dataclass(frozen=True, slots=True)
class Rebet(DealerCommand):
    """Place the seat's wagers of the last round again (``seat`` 0 = every seat)."""

    seat: int = 0


@dataclass(frozen=True, slots=True)
class NoMoreBets(DealerCommand):
    """Close betting ("No more bets" / "Rien ne va plus"); dealing may start."""


@dataclass(frozen=True, slots=True)
class Decide(DealerCommand):
    """Record a seat's decision: ``play`` (Play equal to the Ante) or ``fold``."""

    seat: int = 0
    decision: str = "play"


@dataclass(frozen=True, slots=True)
class Reveal(DealerCommand):
    """Turn the dealer's cards (every decision must be recorded)."""


@dataclass(frozen=True, slots=True)
class Settle(DealerCommand):
    """Settle every seat (after the reveal) and record the results."""


@dataclass(frozen=True, slots=True)
class NextRound(DealerCommand):
    """Open betting for the next round (after settlement or a void)."""


@dataclass(frozen=True, slots=True)
class VoidRound(DealerCommand):
    """Void the round: every wager is returned (supervisor PIN; ``reason`` recorded)."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class ManualCard(DealerCommand):
    """Enter a card by hand for a misread (supervisor PIN; recorded as manual)."""

    card: str = ""


@dataclass(frozen=True, slots=True)
class UnblockDeck(DealerCommand):
    """Clear a blocked deck after a duplicate or unknown card (supervisor PIN)."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class Resume(DealerCommand):
    """Continue a paused or interrupted round whose record is complete.

    A supervisor PIN is needed where the pause requires one.
    """


@dataclass(frozen=True, slots=True)
class NewDeck(DealerCommand):
    """A fresh deck (pack) is loaded: the seen-card inventory starts again."""


@dataclass(frozen=True, slots=True)
class ExposedCard(DealerCommand):
    """The dealer reports a card exposed by accident.

    ``dealer_hand`` False: the last card read was exposed; the table burns it and deals
    on, or voids, as its ``exposed_card_policy`` says. ``dealer_hand`` True: the dealer's
    cards were exposed; before every decision is recorded this voids the round.
    """

    dealer_hand: bool = False


@dataclass(frozen=True, slots=True)
class ConfigChange(DealerCommand):
    """Change one table setting between rounds (supervisor or technician PIN).

    Keys: ``deal_pattern``, ``burn_cards``, ``exposed_card_policy``, ``max_pin_failures``,
    ``lockout_seconds``, ``rules`` (a profile name or path). Old and new values are recorded.
    """

    key: str = ""
    value: str | int = ""


@dataclass(frozen=True, slots=True)
class ChangePin(DealerCommand):
    """Set a role's PIN (technician PIN; the journal keeps only the salted hash)."""

    role: str = "supervisor"
    new_pin: str = ""


_NAMES: dict[type, str] = {
    PlaceBet: "place_bet",
    ClearBets: "clear_bets",
    Rebet: "rebet",
    NoMoreBets: "no_more_bets",
    Decide: "decide",
    Reveal: "reveal",
    Settle: "settle",
    NextRound: "next_round",
    VoidRound: "void",
    ManualCard: "manual_card",
    UnblockDeck: "unblock_deck",
    Resume: "resume",
    NewDeck: "new_deck",
    ExposedCard: "exposed_card",
    ConfigChange: "config_change",
    ChangePin: "change_pin",
}
