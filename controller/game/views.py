"""Immutable view snapshots: what each audience may see of the table, and nothing more.

The :class:`~controller.game.table.Table` builds a new :class:`DealerView` and
:class:`PlayerView` after every applied event; ``display/`` renders only these. The
player view is built WITHOUT the dealer's hole cards until the reveal: the secret is
absent from the data (docs/requirements.md R13), not hidden by the renderer. The dealer view
does not carry them either before the reveal (the shoe has read them; the screen need
not show them), except in the text of an alarm about that card (a card read twice): the
dealer must find it.

All money is integers in minor units. Card texts are canonical (``Qh``); ``None`` in a
card list is a card dealt face down / not shown. A round dealt in outcome mode
(``bet_entry`` ``outcomes``) holds no money: its bets are marks (a stake of 1 unit) and
its results outcomes (``outcome`` and ``multiple``; a net in units), which the screens
give as "pays X to 1", "push" or "loses".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.game.numbers import DEFAULT_CURRENCY

HIDDEN_CARD = "??"
"""What stands in a text for a card its audience may not see yet: in no language, as the
game recall writes a hole card before the reveal."""


@dataclass(frozen=True, slots=True)
class BetLine:
    """One settled bet as displayed.

    Attributes:
        bet: ``play``, ``ante_bonus``, ``ante``, ``pair_plus``, ``six_card_bonus``.
        outcome: ``win``, ``lose``, ``push`` (``refund`` for a voided round).
        stake: minor units.
        net: minor units won (+) / lost (-), the stake aside.
        multiple: "X to 1" paid on a win, else 0.
        line: the paytable line a win of the Ante Bonus, Pair Plus or 6 Card Bonus was paid
            on (a hand key such as ``straight_flush``, or ``mini_royal``), which the display
            names; else empty.
    """

    bet: str
    outcome: str
    stake: int
    net: int
    multiple: int = 0
    line: str = ""


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as an audience sees it.

    Attributes:
        seat: seat number, 1-based.
        bets: placed wagers by bet type (``ante``, ``play``, ``pair_plus``,
            ``six_card_bonus``), minor units; empty when the seat is not in the round.
        cards: the cards dealt so far in deal order; ``None`` where face down.
        hand: the 3-card hand name (``pair``...) once all three are shown, else None.
        decision: ``play``, ``fold`` or None (undecided / not applicable).
        results: per-bet results in pay order once settled (or refunds once void, in the
            same order).
        net: the seat's net once settled, minor units, else None.
        six_card_hand: the 6 Card Bonus hand name once settled and bet, else None.
    """

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
    """An alarm, irregularity or notice to show across the screen.

    Attributes:
        kind: a stable key: ``link_lost``, ``link_silent``, ``misread``, ``seq_gap``,
            ``void``, ``duplicate_card``, ``unknown_card``, ``deck_blocked``,
            ``wrong_count``, ``card_before_no_more_bets``, ``alarm``, ``lid_open``,
            ``cut_card``, ``shoe_warning``, ``shoe_empty``, ``exposed_card``,
            ``interrupted_round``, ``journal_locked`` (the journal cannot be written),
            ``journal_broken`` (it failed its integrity check), ``rejected``.
        severity: ``info``, ``warning`` or ``error``.
        message: what happened, in English (the display may translate by ``kind``).
        action: what the dealer must do next, in English.
        params: values for translation (card, seat, code, ...), all strings.
    """

    kind: str
    severity: str = "warning"
    message: str = ""
    action: str = ""
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Paytables:
    """The rules in force, for the player screen (docs/requirements.md R14).

    Attributes:
        profile: profile name.
        ante_bonus / pair_plus / six_card_bonus: hand key (``three_of_a_kind``, which
            the display translates) -> "X to 1", high to low.
        limits: bet type -> (min, max) minor units.
        rtp: bet type (``ante_play``, ``pair_plus``, ``six_card_bonus``) -> return to
            player in parts per million (966270 = 96.6270 %), from the par sheet: the
            paytable's return, a side bet settled on its cards (the hand played).
        rtp_strategy: the side bets whose return differs for a player who follows the
            strategy (``strategy``), a fold losing the side bets: bet type -> that return
            in parts per million (``six_card_bonus`` 717301 under the live rules).
        strategy: the weakest hand that strategy plays, e.g. ``Q-6-4``.
        qualifier: e.g. ``Q-high``.
        player_cards_face_up: the profile deals player cards face up.
        need_ante: the side bets placed only beside an Ante (``pair_plus``,
            ``six_card_bonus``), so the dealer screen refuses one on a seat without.
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
    """One recent round for the results strip.

    Attributes:
        round_id: the round number.
        status: ``settled`` or ``void``.
        dealer_cards: the dealer's cards (empty for a void before the reveal).
        dealer_hand: hand name or None.
        dealer_qualifies: True / False / None (void).
        seat_nets: (seat, net minor units) for each seat in the round.
    """

    round_id: int
    status: str
    dealer_cards: tuple[str, ...] = ()
    dealer_hand: str | None = None
    dealer_qualifies: bool | None = None
    seat_nets: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class PayoutLine:
    """One line of the dealer's payout list, in pay order across seats.

    Attributes:
        seat: seat number.
        bet: bet type in pay order (``play``, ``ante_bonus``, ``ante``, ``pair_plus``,
            ``six_card_bonus``).
        outcome: ``win``, ``lose``, ``push`` or ``refund``.
        amount: minor units to pay (win: the winnings; push/refund: the stake returned;
            lose: the stake taken); in outcome mode a count of units.
        multiple: "X to 1" paid on a win, else 0 (outcome mode: what the dealer pays).
        line: the paytable line a win was paid on (:attr:`BetLine.line`), else empty.
    """

    seat: int
    bet: str
    outcome: str
    amount: int
    multiple: int = 0
    line: str = ""


@dataclass(frozen=True, slots=True)
class RecallRound:
    """One round of game recall (docs/requirements.md R5), for the RECALL screen.

    Attributes:
        round_id: the round number.
        status: ``settled``, ``void`` or ``in_progress``.
        void_reason: why it was voided, or None.
        started_utc: ISO 8601 UTC time the round opened.
        deal: (card, position e.g. ``seat 3`` / ``dealer`` / ``burn``, manual) in deal
            order, burns included; the card is None for an unreadable burn or an unknown
            code.
        dealer_cards: the dealer's cards.
        seats: each seat's record (cards, bets, decision, results, net).
        bet_entry: how its bets were taken: ``amounts`` or ``outcomes``.
    """

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
    """One line of the meters screen (docs/requirements.md R6).

    Attributes:
        name: ``ante``, ``play``, ``pair_plus``, ``six_card_bonus``, ``seat 3``, ``total``.
        wagered: minor units wagered.
        paid: minor units paid out to players (winnings, stakes aside).
        won: minor units the house won (stakes taken).
        net: house net = won - paid.
        rounds: rounds in which it had a wager.
        voids: wagers of this kind returned by a void.
        refunded: minor units returned by voids.
    """

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
    """What the player-facing screen shows. Never holds a dealer hole card pre-reveal.

    Attributes:
        table_id: the table's name.
        round_id: current round number.
        state: round state name (``betting``, ``no_more_bets``, ``dealing``,
            ``deciding``, ``reveal``, ``settled``, ``paused``, ``void``, ``locked``).
        seats: every seat of the table in order.
        dealer_cards: the dealer's cards: ``None`` for each card dealt face down before the
            reveal, the card texts after it.
        dealer_hand: hand name after the reveal, else None.
        dealer_qualifies: after the reveal, else None.
        banners: full-width banners (void with refunds, lost shoe link).
        history: recent rounds, newest first.
        paytables: rules in force with limits and return to player.
        link_state: ``connecting``, ``online``, ``silent`` or ``disconnected``.
        version: increases with every snapshot; a display redraws when it changes.
        currency: the ISO 4217 code of every amount (minor units), from the configuration.
        bet_entry: how the round shown takes its bets: ``amounts`` or ``outcomes``
            (marks and outcomes, no money).
    """

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
    """What the dealer-facing screen shows.

    Attributes:
        table_id: the table's name.
        round_id: current round number.
        state: round state name (see :class:`PlayerView`).
        next_action: the one next thing the dealer does, in English
            (``Place bets, then press No more bets``).
        next_action_key: stable key for translation (``place_bets``, ``mark_bets``,
            ``no_more_bets``, ``deal``, ``decide``, ``reveal``, ``settle``, ``next_round``,
            ``resolve``, ``supervisor``, ``locked``).
        next_card: where the next card goes, e.g. ``(3, 2)`` = seat 3 card 2,
            ``(0, 1)`` = dealer card 1, ``(-1, 1)`` = the first burn; None when no card is
            due.
        seats: every seat (player cards always shown to the dealer).
        dealer_cards: as in :class:`PlayerView` (hidden until the reveal).
        dealer_hand / dealer_qualifies: after the reveal.
        link_state: shoe link state; link_detail: the operator message.
        banners: alarms and irregularities, each naming what to do.
        payouts: after settlement (or void), the payout list in pay order.
        allowed: command names the table accepts now (to enable buttons): those of the
            current state, less those its situation refuses (Resume while a misread or a
            lost link holds the round, Manual card without a misread, Unblock deck without
            a blocked deck, No more bets on a blocked deck, Reveal with seats undecided).
        pin_needed: command names that need a supervisor's or technician's PIN now.
        awaiting_supervisor: the supervisor action pending (``void``, ``manual_card``,
            ``unblock_deck``, ``resume``), or None.
        deck_blocked: the deck is blocked until a supervisor clears it.
        recall: the last rounds, newest first (at least 10).
        meters: meter rows per bet type, per seat and total.
        paytables: rules in force.
        chip_values: chip denominations for the bet buttons, minor units.
        version: increases with every snapshot.
        cards_due: cards still to come from the shoe this round (0 when none is due).
        pause_reason: why the round is paused (``misread``, ``link_lost``, ``seq_gap``,
            ``shoe_restart``, ``alarm``, ``frame_error``, ``shoe_empty``,
            ``interrupted``), or None.
        void_reason: why the round was voided, or None.
        currency: the ISO 4217 code of every amount (minor units), from the configuration.
        bet_entry: how the round shown takes its bets: ``amounts`` or ``outcomes`` (the
            dealer marks bets; results are outcomes, never money).
        outcome_meters: the outcome meters of the rounds dealt in outcome mode
            (:func:`controller.game.meters.outcome_key` -> count), sorted by name.
        waiting_card: where the card the deal waits for goes, while the round is paused
            mid-deal (the shoe sends it once the round goes on), else None.
        refusal_seq: the journal seq of the input the ``rejected`` banner is about, while
            that banner is up, else None (a screen tells a new refusal by it).
        pin_attempts_left: wrong PINs still taken before PIN entry locks.
        pin_locked_ms: milliseconds PIN entry stays locked, as of the last event (0: not
            locked); a screen counts down from it.
        rounds_voided: rounds voided since the meters began (the ``voids`` counter),
            dealt either way.
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
