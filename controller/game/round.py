"""The round state machine: states, the explicit transition table, and what each accepts.

Every change of :class:`RoundState` made by :class:`~controller.game.engine.Game` goes through
:func:`check_transition`, which looks the move up in :data:`TRANSITIONS`; a move that is
not listed there is a programming error and raises. Which dealer commands a state
accepts is :data:`ALLOWED_COMMANDS`; a command not listed for the current state is
rejected with a reason, recorded, and changes nothing. Shoe events are facts: every
state takes them and the game decides what they mean (a card before "no more bets"
voids the round, for instance).
"""

from __future__ import annotations

import enum


class RoundState(enum.Enum):
    """Where the round stands. The value is the name the views show."""

    BETTING = "betting"
    NO_MORE_BETS = "no_more_bets"
    DEALING = "dealing"
    DECIDING = "deciding"
    REVEAL = "reveal"
    SETTLED = "settled"
    PAUSED = "paused"
    VOID = "void"
    LOCKED = "locked"


S = RoundState

#: (state, trigger) -> the states that trigger may lead to. The only moves there are.
TRANSITIONS: dict[tuple[RoundState, str], frozenset[RoundState]] = {
    (S.BETTING, "no_more_bets"): frozenset({S.NO_MORE_BETS}),
    (S.NO_MORE_BETS, "card"): frozenset({S.DEALING, S.DECIDING}),
    (S.DEALING, "card"): frozenset({S.DECIDING}),
    (S.DECIDING, "retract"): frozenset({S.DEALING, S.NO_MORE_BETS}),
    (S.DEALING, "retract"): frozenset({S.NO_MORE_BETS}),
    (S.DECIDING, "exposed_card"): frozenset({S.DEALING, S.NO_MORE_BETS}),
    (S.DEALING, "exposed_card"): frozenset({S.NO_MORE_BETS}),
    (S.DECIDING, "reveal"): frozenset({S.REVEAL}),
    (S.REVEAL, "settle"): frozenset({S.SETTLED}),
    (S.SETTLED, "next_round"): frozenset({S.BETTING}),
    (S.VOID, "next_round"): frozenset({S.BETTING}),
    (S.NO_MORE_BETS, "pause"): frozenset({S.PAUSED}),
    (S.DEALING, "pause"): frozenset({S.PAUSED}),
    (S.PAUSED, "resume"): frozenset({S.NO_MORE_BETS, S.DEALING, S.DECIDING}),
    (S.BETTING, "void"): frozenset({S.VOID}),
    (S.NO_MORE_BETS, "void"): frozenset({S.VOID}),
    (S.DEALING, "void"): frozenset({S.VOID}),
    (S.DECIDING, "void"): frozenset({S.VOID}),
    (S.PAUSED, "void"): frozenset({S.VOID}),
}

_BETWEEN_ROUNDS = frozenset({"config_change", "change_pin", "unblock_deck", "new_deck"})

#: state -> dealer command names it accepts (``DealerCommand.name``).
ALLOWED_COMMANDS: dict[RoundState, frozenset[str]] = {
    S.BETTING: frozenset({"place_bet", "clear_bets", "rebet", "no_more_bets"}) | _BETWEEN_ROUNDS,
    S.NO_MORE_BETS: frozenset({"void"}),
    S.DEALING: frozenset({"void", "exposed_card"}),
    S.DECIDING: frozenset({"decide", "reveal", "void", "exposed_card"}),
    S.REVEAL: frozenset({"settle"}),
    S.SETTLED: frozenset({"next_round"}) | _BETWEEN_ROUNDS,
    S.PAUSED: frozenset({"resume", "void", "manual_card", "unblock_deck"}),
    S.VOID: frozenset({"next_round"}) | _BETWEEN_ROUNDS,
    S.LOCKED: frozenset(),
}

#: states in which cards are due from the shoe (a lost link pauses the round here).
CARDS_DUE = frozenset({S.NO_MORE_BETS, S.DEALING})
#: states of a round still in play (recall shows it as ``in_progress``).
IN_PLAY = frozenset({S.NO_MORE_BETS, S.DEALING, S.DECIDING, S.REVEAL, S.PAUSED})


class TransitionError(RuntimeError):
    """A state change that the transition table does not list (a bug, never an input)."""


def check_transition(state: RoundState, trigger: str, target: RoundState) -> RoundState:
    """Return ``target`` if the table lists ``state --trigger--> target``.

    Raises:
        TransitionError: the move is not in :data:`TRANSITIONS`.
    """
    if target not in TRANSITIONS.get((state, trigger), ()):
        raise TransitionError(f"no transition {state.value} --{trigger}--> {target.value}")
    return target


def deal_positions(seats: list[int], pattern: str, burns: int = 0) -> list[tuple[int, int]]:
    """Where each card of a round goes, in deal order.

    Args:
        seats: the seats with a wager, in seat order.
        pattern: ``round_robin`` (one card to each seat then the dealer, three passes) or
            ``by_hand`` (three to each seat in order, then three to the dealer).
        burns: burn cards before the first hand card.

    Returns:
        ``(seat, card_no)`` pairs: seat 0 is the dealer, seat -1 a burn; card_no 1..3
        (burns count 1..burns).

    Raises:
        ValueError: an unknown pattern.
    """
    out = [(-1, i + 1) for i in range(burns)]
    hands = [*seats, 0]
    if pattern == "round_robin":
        out += [(s, n) for n in (1, 2, 3) for s in hands]
    elif pattern == "by_hand":
        out += [(s, n) for s in hands for n in (1, 2, 3)]
    else:
        raise ValueError(f"unknown deal pattern {pattern!r} (round_robin or by_hand)")
    return out


def position_name(seat: int) -> str:
    """``seat 3``, ``dealer`` or ``burn`` for a position's seat number."""
    if seat == 0:
        return "dealer"
    if seat < 0:
        return "burn"
    return f"seat {seat}"
