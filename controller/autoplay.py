"""Autoplay: the next dealer commands for a table, from its dealer view alone.

Every seat bets the same, each plays Q-6-4 or better (docs/rules.md); supervisor steps use the
PIN given, else wait for a person. A misread is not autoplay's to resolve.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.game.bet_types import ANTE, PAIR_PLUS, SIX_CARD_BONUS
from controller.game.cards import parse_card, parse_cards
from controller.game.hands import evaluate3
from controller.game.inputs import (
    BET_NAMES,
    DealerCommand,
    Decide,
    MarkBet,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    VoidRound,
)
from controller.game.rules import RuleProfile
from controller.game.settlement import bets_from_mapping, validate_bets
from controller.game.views import DealerView

DEMO_BETS = {ANTE: 500, PAIR_PLUS: 100, SIX_CARD_BONUS: 100}
"""Autoplay's wagers when none are given (minor units), less what the rules do not offer."""


def autoplay_bets(profile: RuleProfile, given: Mapping[str, int] | None = None
                  ) -> dict[str, int]:
    """The wagers autoplay places on every seat under ``profile``, bet type -> minor units.

    ``given`` None: :data:`DEMO_BETS` within the profile. BetError: wagers it does not take.
    """
    if given:
        bets = dict(given)
    else:
        bets = {}
        for bet, amount in DEMO_BETS.items():
            if profile.offers(bet):
                lim = profile.limits.get(bet)
                bets[bet] = amount if lim is None else min(max(amount, lim.min), lim.max)
    validate_bets(profile, bets_from_mapping(bets, BET_NAMES))
    return bets


Q64 = evaluate3(parse_cards("Qc 6d 4h")).strength


def should_play(cards: tuple[str | None, ...]) -> bool:
    """The Q-6-4 rule: play Q-6-4 or better, fold below it."""
    return evaluate3([parse_card(c) for c in cards]).strength >= Q64


@dataclass
class AutoPlayer:
    """Produces the next commands for a table (``seats`` None: all; ``pin`` a supervisor's)."""

    bets: Mapping[str, int] = field(default_factory=lambda: {ANTE: 100})
    seats: tuple[int, ...] | None = None
    pin: str | None = None
    _rebet_round: int = 0

    def bet_commands(self, view: DealerView, round_id: int | None = None) -> list[DealerCommand]:
        """The wagers of a round with no bets yet: every bet the first round, then one ``Rebet``."""
        round_id = view.round_id if round_id is None else round_id
        if self._rebet_round and self._rebet_round != round_id:
            self._rebet_round = round_id
            return [Rebet(seat=0)]
        self._rebet_round = round_id
        seats = self.seats or tuple(s.seat for s in view.seats)
        if view.bet_entry == "outcomes":
            return [MarkBet(seat=s, bet=b) for s in seats for b, a in self.bets.items() if a]
        return [PlaceBet(seat=s, bet=b, amount=a) for s in seats for b, a in self.bets.items()
                if a]

    def next_commands(self, view: DealerView, chain: bool = False) -> list[DealerCommand]:
        """The commands to send now, in order (empty: wait for the shoe or a person).

        ``chain`` adds the next round's bets and "no more bets" after settling (fewer commits).
        """
        state = view.state
        if state == "betting":
            out: list[DealerCommand] = []
            if view.deck_blocked and self.pin:
                out.append(UnblockDeck(reason="autoplay", pin=self.pin))
            if not any(s.bets for s in view.seats):
                out += self.bet_commands(view)
            return [*out, NoMoreBets()]
        if state == "deciding":
            out = [Decide(seat=s.seat, decision="play" if should_play(s.cards) else "fold")
                   for s in view.seats if s.bets.get(ANTE) and s.decision is None]
            out += [Reveal(), Settle(), NextRound()]
            if chain and not view.deck_blocked:
                out += [*self.bet_commands(view, view.round_id + 1), NoMoreBets()]
            return out
        if state == "reveal":
            return [Settle(), NextRound()]
        if state == "settled":
            return [NextRound()]
        if state == "void":
            out = []
            if view.deck_blocked and self.pin:
                out.append(UnblockDeck(reason="autoplay", pin=self.pin))
            if view.awaiting_supervisor == VoidRound.name or view.deck_blocked:
                return [*out, NextRound(pin=self.pin)] if self.pin else out
            return [*out, NextRound()]
        if state == "paused":
            if view.awaiting_supervisor == Resume.name:
                return ([VoidRound(reason=f"autoplay: {view.pause_reason}", pin=self.pin)]
                        if self.pin else [])
            if view.pause_reason in ("alarm", "frame_error"):
                return [Resume()]
        return []


_PACED = (NoMoreBets, Reveal, Settle, NextRound)

# With a shoe that deals by itself (shoe-sim, a dealer with a real shoe), milliseconds without
# a new view before the next round opens. Such a shoe goes on with a round the table voided;
# opened at once, the next round would take those cards. A card read between rounds is set
# aside and voids nothing (docs/rules.md "Malfunction after the outcome is fixed"), so
# waiting for the shoe's pause between rounds puts the two back in step after one round.
# 1500: longer than shoe-sim's 1000 ms between cards, shorter than its 3000 ms between
# rounds less autoplay's own work (under 500 ms).
QUIET_MS = 1500


# Seconds a card dealt for a step may take to be read before it is dealt again (a card lost
# on its way changes no step). On a loaded machine a read took over 0.5 s, and the second
# card of one step was read as an extra one: a wrong-count void.
REDEAL_S = 5.0


def _split_at_next_round(commands: list[DealerCommand]) -> tuple[list[DealerCommand],
                                                                  list[DealerCommand]]:
    for i, command in enumerate(commands):
        if isinstance(command, NextRound):
            return commands[:i], commands[i:]
    return commands, []


def autoplay_loop(table: Any, player: AutoPlayer, stop: threading.Event,
                  idle_timeout: float = 0.5, *, pace: float = 0.0,
                  on_idle: Callable[[DealerView], None] | None = None,
                  on_betting: Callable[[DealerView], None] | None = None,
                  beat: Callable[[], None] | None = None, quiet: float = 0.0) -> None:
    """Play a running table until ``stop`` is set (``threecard run --autoplay``), in its thread.

    ``pace`` seconds precede each visible step; ``on_idle`` is called when there is nothing to
    do (again only after ``idle_timeout``); ``quiet`` holds the next round until no view came
    for that long (:data:`QUIET_MS`).
    """
    seen = -1
    since = time.monotonic()  # when the newest view appeared
    held: list[DealerCommand] = []  # the next round, waiting for the shoe to fall quiet
    idled: tuple[tuple[Any, ...], float] | None = None  # what ``on_idle`` was last given
    while not stop.is_set():
        if beat is not None:
            beat()
        dealer = table.views()[0]
        if dealer.version != seen:
            seen, since, held = dealer.version, time.monotonic(), []
            commands = [] if table.locked else player.next_commands(dealer)
        elif held:
            commands = []  # the same view: only the held next round may be due
        else:
            table.wait_for_version(seen, idle_timeout)
            continue
        if quiet:
            commands, held, left = _hold_next_round(commands, held, since + quiet)
        if commands:
            if on_betting is not None and dealer.state == "betting":
                on_betting(dealer)
            if not _submit(table, commands, pace, stop):
                return
        elif held:
            table.wait_for_version(seen, min(idle_timeout, max(0.0, left)))
        elif on_idle is not None:
            idled = _idle(table, dealer, on_idle, idled, idle_timeout, pace, stop)
            if idled is None:
                return
            seen = -1  # look again even if the card changes nothing yet


def _hold_next_round(commands: list[DealerCommand], held: list[DealerCommand], due: float
                     ) -> tuple[list[DealerCommand], list[DealerCommand], float]:
    """Commands now, the next round held until ``due`` (monotonic s), the seconds left."""
    commands, later = _split_at_next_round(commands)
    held = later or held
    left = due - time.monotonic()
    if held and left <= 0:
        return commands + held, [], left
    return commands, held, left


def _submit(table: Any, commands: list[DealerCommand], pace: float,
            stop: threading.Event) -> bool:
    """Submit ``commands`` and wait until they are applied; False: stopped meanwhile."""
    for cmd in commands:
        if pace and isinstance(cmd, _PACED) and stop.wait(pace):
            return False
        table.submit(cmd)
    table.drain()
    return True


def _idle(table: Any, dealer: DealerView, on_idle: Callable[[DealerView], None],
          idled: tuple[tuple[Any, ...], float] | None, idle_timeout: float, pace: float,
          stop: threading.Event) -> tuple[tuple[Any, ...], float] | None:
    """Give ``on_idle`` the view once a step and timeout; the step and when (None: stopped)."""
    step = (dealer.round_id, dealer.state, dealer.next_card, dealer.link_state)
    left = REDEAL_S - (time.monotonic() - idled[1]) if idled else 0.0
    if idled is not None and idled[0] == step and left > 0:
        # the view moved for another reason (a record of the table's own): the card
        # dealt for this step is not read yet, none is dealt again before its time
        table.wait_for_version(dealer.version, left)
        return idled
    if pace and stop.wait(pace / 2):
        return None
    on_idle(dealer)
    idled = (step, time.monotonic())
    table.wait_for_version(dealer.version, idle_timeout)
    return idled
