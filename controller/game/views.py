"""Immutable snapshots of what each audience may see of the table; ``display/`` renders only these.

The dealer's hole cards are absent from the data until the reveal (docs/requirements.md R13).
Money is minor units; ``None`` in a card list is face down; in outcome mode bets are 1-unit
marks and results outcomes, never money.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.game.numbers import DEFAULT_CURRENCY

# What a text shows for a card its audience may not see yet (as game recall writes a hole card).
HIDDEN_CARD = "??"


@dataclass(frozen=True, slots=True)
class BetLine:
    """One settled bet as displayed: ``net`` won (+) or lost (-), ``multiple`` "X to 1" or 0."""

    bet: str
    outcome: str
    stake: int
    net: int
    multiple: int = 0
    line: str = ""


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as an audience sees it (``seat`` 1-based; ``bets`` empty when not in the round)."""

    seat: int
    bets: dict[str, int] = field(default_factory=dict)
    cards: tuple[str | None, ...] = ()
    hand: str | None = None
    decision: str | None = None
    results: tuple[BetLine, ...] = ()
    net: int | None = None
    six_card_hand: str | None = None


@dataclass(frozen=True, slots=True)
class Banner:
    """A notice across the screen: ``kind`` and ``params`` to translate, English words beside."""

    kind: str
    severity: str = "warning"
    message: str = ""
    action: str = ""
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Paytables:
    """The rules in force for the player screen (R14); returns in ppm (966270).

    ``rtp_strategy``: side bets' returns for a ``strategy`` player (a fold loses them).
    """

    profile: str = ""
    ante_bonus: tuple[tuple[str, int], ...] = ()
    pair_plus: tuple[tuple[str, int], ...] = ()
    six_card_bonus: tuple[tuple[str, int], ...] = ()
    limits: tuple[tuple[str, int, int], ...] = ()
    rtp: tuple[tuple[str, int], ...] = ()
    rtp_strategy: tuple[tuple[str, int], ...] = ()
    strategy: str = ""
    qualifier: str = "Q-high"
    player_cards_face_up: bool = True
    need_ante: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One recent round for the results strip (``dealer_qualifies`` None for a void)."""

    round_id: int
    status: str
    dealer_cards: tuple[str, ...] = ()
    dealer_hand: str | None = None
    dealer_qualifies: bool | None = None
    seat_nets: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class PayoutLine:
    """One line of the dealer's payout list, in pay order across seats."""

    seat: int
    bet: str
    outcome: str
    amount: int
    multiple: int = 0
    line: str = ""


@dataclass(frozen=True, slots=True)
class RecallRound:
    """One round of game recall (R5): ``deal`` holds (card or None, position, manual), burns too."""

    round_id: int
    status: str
    void_reason: str | None = None
    started_utc: str = ""
    deal: tuple[tuple[str | None, str, bool], ...] = ()
    dealer_cards: tuple[str, ...] = ()
    seats: tuple[SeatView, ...] = ()
    bet_entry: str = "amounts"


@dataclass(frozen=True, slots=True)
class MeterRow:
    """One line of the meters screen (R6 in docs/requirements.md): ``paid`` out, ``won`` in."""

    name: str
    wagered: int = 0
    paid: int = 0
    won: int = 0
    net: int = 0
    rounds: int = 0
    voids: int = 0
    refunded: int = 0


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What the player screen shows; ``version`` grows with every snapshot."""

    table_id: str = ""
    round_id: int = 0
    state: str = "betting"
    seats: tuple[SeatView, ...] = ()
    dealer_cards: tuple[str | None, ...] = ()
    dealer_hand: str | None = None
    dealer_qualifies: bool | None = None
    banners: tuple[Banner, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    paytables: Paytables = field(default_factory=Paytables)
    link_state: str = "connecting"
    version: int = 0
    currency: str = DEFAULT_CURRENCY
    bet_entry: str = "amounts"


@dataclass(frozen=True, slots=True)
class DealerView:
    """What the dealer screen shows.

    ``next_card``: ``(3, 2)`` seat 3 card 2, ``(0, 1)`` dealer card 1, ``(-1, 1)`` first burn,
    or None. ``refusal_seq``: the input the ``rejected`` banner is about; ``pin_locked_ms``:
    milliseconds PIN entry stays locked.
    """

    table_id: str = ""
    round_id: int = 0
    state: str = "betting"
    next_action: str = ""
    next_action_key: str = ""
    next_card: tuple[int, int] | None = None
    seats: tuple[SeatView, ...] = ()
    dealer_cards: tuple[str | None, ...] = ()
    dealer_hand: str | None = None
    dealer_qualifies: bool | None = None
    link_state: str = "connecting"
    link_detail: str = ""
    banners: tuple[Banner, ...] = ()
    payouts: tuple[PayoutLine, ...] = ()
    allowed: frozenset[str] = frozenset()
    pin_needed: frozenset[str] = frozenset()
    awaiting_supervisor: str | None = None
    deck_blocked: bool = False
    recall: tuple[RecallRound, ...] = ()
    meters: tuple[MeterRow, ...] = ()
    paytables: Paytables = field(default_factory=Paytables)
    chip_values: tuple[int, ...] = (100, 500, 2500, 10000)
    version: int = 0
    cards_due: int = 0
    pause_reason: str | None = None
    void_reason: str | None = None
    currency: str = DEFAULT_CURRENCY
    bet_entry: str = "amounts"
    outcome_meters: tuple[tuple[str, int], ...] = ()
    waiting_card: tuple[int, int] | None = None
    refusal_seq: int | None = None
    pin_attempts_left: int = 5
    pin_locked_ms: int = 0
    rounds_voided: int = 0
