"""The round state machine: states, the explicit transition table, and what each accepts.

A move not in :data:`TRANSITIONS` is a bug and raises; a command not allowed in the state is
rejected, recorded, and changes nothing. Shoe events are taken in every state.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec
from msgspec import Struct

from controller.game.inputs import (
    ChangePin,
    ClearBets,
    ConfigChange,
    Decide,
    ExposedCard,
    ManualCard,
    MarkBet,
    NewDeck,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    RemoveChip,
    ReopenBets,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    UndoDecision,
    VoidRound,
)
from controller.game.refusals import Refusal


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

#: (state, trigger) -> the states that trigger may lead to. The only moves there are. A
#: trigger is a command's name, a shoe event's type (``card``, ``retract``), or ``pause``.
TRANSITIONS: dict[tuple[RoundState, str], frozenset[RoundState]] = {
    (S.BETTING, NoMoreBets.name): frozenset({S.NO_MORE_BETS}),
    (S.NO_MORE_BETS, ReopenBets.name): frozenset({S.BETTING}),
    (S.NO_MORE_BETS, "card"): frozenset({S.DEALING, S.DECIDING}),
    (S.DEALING, "card"): frozenset({S.DECIDING}),
    (S.DECIDING, "retract"): frozenset({S.DEALING, S.NO_MORE_BETS}),
    (S.DEALING, "retract"): frozenset({S.NO_MORE_BETS}),
    (S.DECIDING, ExposedCard.name): frozenset({S.DEALING, S.NO_MORE_BETS}),
    (S.DEALING, ExposedCard.name): frozenset({S.NO_MORE_BETS}),
    (S.DECIDING, Reveal.name): frozenset({S.REVEAL}),
    (S.REVEAL, Settle.name): frozenset({S.SETTLED}),
    (S.SETTLED, NextRound.name): frozenset({S.BETTING}),
    (S.VOID, NextRound.name): frozenset({S.BETTING}),
    (S.NO_MORE_BETS, "pause"): frozenset({S.PAUSED}),
    (S.DEALING, "pause"): frozenset({S.PAUSED}),
    (S.PAUSED, Resume.name): frozenset({S.NO_MORE_BETS, S.DEALING, S.DECIDING}),
    (S.BETTING, VoidRound.name): frozenset({S.VOID}),
    (S.NO_MORE_BETS, VoidRound.name): frozenset({S.VOID}),
    (S.DEALING, VoidRound.name): frozenset({S.VOID}),
    (S.DECIDING, VoidRound.name): frozenset({S.VOID}),
    (S.PAUSED, VoidRound.name): frozenset({S.VOID}),
}


def _names(*commands: type) -> frozenset[str]:
    return frozenset(c.name for c in commands)


_BETWEEN_ROUNDS = _names(ConfigChange, ChangePin, UnblockDeck, NewDeck)

#: state -> dealer command names it accepts (``DealerCommand.name``).
ALLOWED_COMMANDS: dict[RoundState, frozenset[str]] = {
    S.BETTING: _names(PlaceBet, MarkBet, RemoveChip, ClearBets, Rebet, NoMoreBets)
    | _BETWEEN_ROUNDS,
    S.NO_MORE_BETS: _names(VoidRound, ReopenBets),
    # once a card is dealt a reopen is refused, with why (cards_dealt)
    S.DEALING: _names(VoidRound, ExposedCard, ReopenBets),
    S.DECIDING: _names(Decide, UndoDecision, Reveal, VoidRound, ExposedCard, ReopenBets),
    S.REVEAL: _names(Settle),
    S.SETTLED: _names(NextRound) | _BETWEEN_ROUNDS,
    S.PAUSED: _names(Resume, VoidRound, ManualCard, UnblockDeck),
    S.VOID: _names(NextRound) | _BETWEEN_ROUNDS,
    S.LOCKED: frozenset(),
}

#: states in which cards are due from the shoe (a lost link pauses the round here).
CARDS_DUE = frozenset({S.NO_MORE_BETS, S.DEALING})
#: states of a round still in play (recall shows it as ``in_progress``).
IN_PLAY = frozenset({S.NO_MORE_BETS, S.DEALING, S.DECIDING, S.REVEAL, S.PAUSED})


class TransitionError(RuntimeError):
    """A state change that the transition table does not list (a bug, never an input)."""


def check_transition(state: RoundState, trigger: str, target: RoundState) -> RoundState:
    """Return ``target`` if ``state --trigger--> target`` is listed, else TransitionError."""
    if target not in TRANSITIONS.get((state, trigger), ()):
        raise TransitionError(f"no transition {state.value} --{trigger}--> {target.value}")
    return target


def deal_positions(seats: list[int], pattern: str, burns: int = 0) -> list[tuple[int, int]]:
    """Where each card of a round goes, in deal order: ``(seat, card_no)``.

    Seat 0 is the dealer, -1 a burn (numbered 1..burns); ``pattern`` ``round_robin`` or
    ``by_hand`` (else ValueError).
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


class Rejected(Exception):
    """An input refused: ``code`` and typed ``params`` (money in minor units); nothing changed."""

    def __init__(self, code: str, /, **params: Any) -> None:
        self.refusal = Refusal(code, params)
        super().__init__(self.refusal.journal_text())


class Pause(Struct, omit_defaults=True):
    """Why a round is paused and where it goes on (``position``: where a misread waits)."""

    reason: str
    resume_to: str
    supervisor: bool
    position: int | None = None


class Note(Struct, array_like=True, frozen=True):
    """A notice shown as a banner (snapshot form ``[severity, message, action, params]``)."""

    severity: str
    message: str
    action: str = ""
    params: dict[str, Any] = {}


class Notes(dict[str, Note]):
    """The banners in force, by kind (``void``, ``misread``, ``link_lost``...)."""

    def put(self, kind: str, message: str, action: str = "", severity: str = "warning",
            **params: str) -> None:
        """Show (or replace) the notice of ``kind``."""
        self[kind] = Note(severity, message, action, params)

    def drop(self, *kinds: str) -> None:
        """Take the notices of ``kinds`` down (those shown)."""
        for k in kinds:
            self.pop(k, None)


class Round(Struct):
    """The round in play: its number, state, dealer's hand, void and pause (mutable)."""

    round_id: int = 1
    state: RoundState = RoundState.BETTING
    started_utc: str = ""
    dealer_hand: str | None = None
    dealer_qualifies: bool | None = None
    void_reason: str | None = None
    void_acknowledged: bool = False
    pause: Pause | None = None
    seq_broken: bool = False

    def go(self, trigger: str, target: RoundState) -> None:
        """Move to ``target`` by ``trigger`` (:func:`check_transition`)."""
        self.state = check_transition(self.state, trigger, target)  # noqa: F821 - defined below

    def paused_for(self, reason: str) -> bool:
        """True when the round is paused for ``reason``."""
        return self.pause is not None and self.pause.reason == reason

    def start_pause(self, reason: str, supervisor: bool, position: int | None = None) -> None:
        """Pause the round where it stands."""
        resume_to = self.state.value
        self.go("pause", RoundState.PAUSED)
        self.pause = Pause(reason, resume_to, supervisor, position)

    def next_round(self, utc: str) -> None:
        """Open betting for the next round."""
        self.go(NextRound.name, RoundState.BETTING)
        self.round_id += 1
        self.started_utc = utc
        self.dealer_hand = self.dealer_qualifies = self.void_reason = None
        self.void_acknowledged = self.seq_broken = False

    def snapshot(self) -> dict[str, Any]:
        """The snapshot's keys for the round (JSON-ready)."""
        return {"state": self.state.value, "round_id": self.round_id,
                "started_utc": self.started_utc, "dealer_hand": self.dealer_hand,
                "dealer_qualifies": self.dealer_qualifies,
                "pause": None if self.pause is None else msgspec.to_builtins(self.pause),
                "void_reason": self.void_reason, "void_acknowledged": self.void_acknowledged,
                "seq_broken": self.seq_broken}

    @classmethod
    def from_snapshot(cls, d: dict[str, Any]) -> Round:
        """Inverse of :meth:`snapshot` (reads every snapshot written before)."""
        return cls(round_id=d["round_id"], state=RoundState(d["state"]),
                   started_utc=d["started_utc"], dealer_hand=d["dealer_hand"],
                   dealer_qualifies=d["dealer_qualifies"],
                   pause=None if d["pause"] is None else msgspec.convert(d["pause"], Pause),
                   void_reason=d["void_reason"], void_acknowledged=d["void_acknowledged"],
                   seq_broken=d["seq_broken"])
