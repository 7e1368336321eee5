"""Autoplay: the next dealer commands for a table, from its dealer view alone.

Used by ``threecard run --autoplay`` and ``threecard simulate``. Every seat places the
same wagers (:class:`AutoPlayer` ``bets``); betting closes at once; each seat plays
with Q-6-4 or better (the optimal strategy, docs/rules.md) and folds below it; then reveal,
settle and the next round. Supervisor steps (acknowledging a void, voiding a round
paused for a supervisor, unblocking the deck) use the PIN it was given; without one it
leaves them to a person. A misread is not autoplay's to resolve: the shoe re-presents
the card, or a supervisor enters it by hand. With a shoe that deals by itself, the next
round opens only once no card has been read for :data:`QUIET_MS`, so that shoe and table
are in step again one round after a void.
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
    """The wagers autoplay places on every seat under ``profile``.

    Args:
        profile: the rules in force.
        given: the wagers asked for (``--bets``), or None for :data:`DEMO_BETS` less the
            bets the profile does not offer, each brought within the table limits.

    Returns:
        Bet type -> minor units.

    Raises:
        BetError: wagers the profile does not take (a bet not offered, outside the limits).
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
"""Strength of Q-6-4: the weakest hand the optimal strategy plays."""


def should_play(cards: tuple[str | None, ...]) -> bool:
    """The Q-6-4 rule: play Q-6-4 or better, fold below it."""
    return evaluate3([parse_card(c) for c in cards]).strength >= Q64


@dataclass
class AutoPlayer:
    """Produces the next commands for a table.

    Args:
        bets: wagers placed on every seat each round, bet type -> minor units.
        seats: the seats that play (None: every seat of the table).
        pin: a supervisor PIN for the supervisor steps, or None.
    """

    bets: Mapping[str, int] = field(default_factory=lambda: {ANTE: 100})
    seats: tuple[int, ...] | None = None
    pin: str | None = None
    _rebet_round: int = 0

    def bet_commands(self, view: DealerView, round_id: int | None = None) -> list[DealerCommand]:
        """The wagers of a round with no bets yet (``round_id``: default the view's).

        The first round places every bet (marks it, on a table taking bets as outcomes);
        later ones repeat them with one ``Rebet``.
        """
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

        Args:
            view: the newest dealer view.
            chain: after settling, go on with the next round's bets and "no more bets"
                in the same list (fewer journal commits; the simulator uses it).
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

QUIET_MS = 1500
"""With a shoe that deals by itself: how long no card may have been read, in
milliseconds, before autoplay opens the next round.

Why it waits. A shoe that deals on its own (``threecard shoe-sim``, a dealer with a real
shoe) goes on with a round the table has voided (a duplicate card, an interrupted
round): opened at once, the next round would take those cards in its betting ("card
before no more bets" voids it too) or in its deal (hands from two rounds), and shoe
and table would stay out of step round after round. A card read between rounds is set
aside as an extra card and voids nothing (the outcome is fixed: docs/rules.md
"Malfunction after the outcome is fixed"), so autoplay lets the rest of a round fall
there: it opens the next round only in the shoe's pause between rounds, and the pair
is in step again from that round on. A void costs that one round.

Why 1500. It must be longer than the pause between two cards of a round (shoe-sim
deals one every 1000 ms by default) and shorter than the pause between rounds less
the time autoplay needs to open a round, place the bets and close them (shoe-sim
pauses 3000 ms by default; autoplay needs well under 500 ms): half of shoe-sim's
default gap. What counts as "a card read" is what autoplay can see of the table: a
new dealer view (every journaled input makes one: cards, link changes, its own
commands), so any activity restarts the wait; heartbeats make none.
"""


def _split_at_next_round(commands: list[DealerCommand]) -> tuple[list[DealerCommand],
                                                                  list[DealerCommand]]:
    """``(before, from_next_round)``: the commands up to the first ``NextRound``, and the rest."""
    for i, command in enumerate(commands):
        if isinstance(command, NextRound):
            return commands[:i], commands[i:]
    return commands, []


def autoplay_loop(table: Any, player: AutoPlayer, stop: threading.Event,
                  idle_timeout: float = 0.5, *, pace: float = 0.0,
                  on_idle: Callable[[DealerView], None] | None = None,
                  on_betting: Callable[[DealerView], None] | None = None,
                  beat: Callable[[], None] | None = None, quiet: float = 0.0) -> None:
    """Play a running table until ``stop`` is set (``threecard run --autoplay``).

    Reads the newest dealer view, submits autoplay's commands to the table's inbox,
    waits until the table has applied them, and looks again. Cards still come from the
    shoe. Run it in its own thread beside :meth:`Table.start`.

    Args:
        table: a started :class:`~controller.game.table.Table`.
        player: the autoplayer.
        stop: set it to end the loop.
        idle_timeout: how long to wait for a new view before looking again, seconds.
        pace: seconds to wait before each step a person would see (no more bets, reveal,
            settle, next round) and before each card ``on_idle`` deals; 0 for none.
        on_idle: called with the view when autoplay has nothing to do (e.g. a demo's
            simulated shoe deals the card that is due); again for the same step (round,
            state, card due, link) only once ``idle_timeout`` has passed, not on a view
            that moved for another reason meanwhile.
        on_betting: called with the view when a round opens, before its bets (e.g. the
            demo loads a freshly shuffled deck into its simulated shoe).
        beat: called every loop (the daemon's thread heartbeat).
        quiet: seconds without a new view (no card read, nothing applied) before the
            next round opens, for a shoe that deals by itself (:data:`QUIET_MS`); 0 for
            none (a shoe that deals only when ``on_idle`` asks). The steps before it
            (decisions, reveal, settle, a supervisor's acknowledgement) are not held.
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
            commands, later = _split_at_next_round(commands)
            held = later or held
            left = since + quiet - time.monotonic()
            if held and left <= 0:
                commands, held = commands + held, []
        if commands:
            if on_betting is not None and dealer.state == "betting":
                on_betting(dealer)
            for cmd in commands:
                if pace and isinstance(cmd, _PACED) and stop.wait(pace):
                    return
                table.submit(cmd)
            table.drain()
        elif held:
            table.wait_for_version(seen, min(idle_timeout, max(0.0, left)))
        elif on_idle is not None:
            step = (dealer.round_id, dealer.state, dealer.next_card, dealer.link_state)
            left = idle_timeout - (time.monotonic() - idled[1]) if idled else 0.0
            if idled is not None and idled[0] == step and left > 0:
                # the view moved for another reason (a record of the table's own): the card
                # dealt for this step is not read yet, none is dealt again before its time
                seen = -1
                table.wait_for_version(dealer.version, left)
                continue
            if pace and stop.wait(pace / 2):
                return
            on_idle(dealer)
            idled = (step, time.monotonic())
            seen = -1  # look again even if the card changes nothing yet
            table.wait_for_version(dealer.version, idle_timeout)
