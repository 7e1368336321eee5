"""The daemon's log of the table: one line per finished round, one per notable event."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from controller.game.cards import parse_cards
from controller.game.hands import evaluate3
from controller.game.numbers import DEFAULT_CURRENCY, format_money, format_odds
from controller.game.views import DealerView, PlayerView, RecallRound

log = logging.getLogger("threecard")

# Banner kinds the shoe link logs itself, in more detail: logged at debug here, said once.
LOGGED_BY_THE_LINK = frozenset({"no_frame"})


@dataclass
class RoundLog:
    """Turns view changes into log lines, each finished round once (read from game recall)."""

    profile: Any = None
    last_state: str = ""
    last_round: int = -1
    last_link: str = ""
    banners: frozenset = frozenset()
    dealt: int = 0
    settled: int = 0
    last_logged: int | None = None
    stopping: bool = False

    def update(self, dv: DealerView, pv: PlayerView) -> str | None:
        """Log what changed (the stop's own effects at debug); ``settled``/``void`` or None."""
        alarm = logging.DEBUG if self.stopping else logging.WARNING
        if dv.link_state != self.last_link:  # the link logs the details itself
            log.debug("shoe link %s", dv.link_state)
            self.last_link = dv.link_state
        dealt = sum(len(s.cards) for s in dv.seats) + len(dv.dealer_cards)
        if dealt != self.dealt:
            if dealt:
                log.debug("round %d: %d cards dealt", dv.round_id, dealt)
            self.dealt = dealt
        keys = frozenset((b.kind, b.message) for b in dv.banners)
        for kind, message in sorted(keys - self.banners):
            log.log(logging.DEBUG if kind in LOGGED_BY_THE_LINK else alarm, "%s: %s", kind,
                    message)
        self.banners = keys
        finished = [r for r in dv.recall if r.status in ("settled", "void")]
        if self.last_logged is None:  # start-up: rounds already in the journal
            self.last_logged = max((r.round_id for r in finished), default=0)
        ended = None
        for rec in sorted(finished, key=lambda r: r.round_id):
            if rec.round_id > self.last_logged:
                line = describe_round(rec, self.profile, dv.currency)
                log.info("%s", line)
                self.last_logged = rec.round_id
                ended = rec.status
                self.settled += rec.status == "settled"
        if (dv.state, dv.round_id) != (self.last_state, self.last_round):
            level = alarm if dv.state in ("paused", "locked") else logging.DEBUG
            log.log(level, "round %d %s: %s", dv.round_id, dv.state, dv.next_action)
            self.last_state, self.last_round = dv.state, dv.round_id
        return ended


def outcome_words(outcome: str, multiple: int) -> str:
    """An outcome-mode result in words: ``pays 30 to 1``, ``push``, ``loses``, ``returned``."""
    if outcome == "win":
        return "pays " + format_odds(multiple)
    return {"lose": "loses", "refund": "returned"}.get(outcome, outcome)


def describe_round(rec: RecallRound, profile: Any = None,
                   currency: str = DEFAULT_CURRENCY) -> str:
    """One line for a settled or voided round (the headless demo's output), in ``currency``."""
    outcomes = rec.bet_entry == "outcomes"  # marks and outcomes: no money in the record
    if rec.status == "void":
        refunds = [f"seat {s.seat} refunded "
                   + (" ".join(s.bets) if outcomes
                      else format_money(sum(s.bets.values()), "en", currency))
                   for s in rec.seats if s.bets]
        return (f"round {rec.round_id} VOID ({rec.void_reason or '-'}): "
                + (", ".join(refunds) or "no wagers"))
    dealer = " ".join(rec.dealer_cards)
    head = f"round {rec.round_id}: dealer {dealer}"
    if profile is not None and len(rec.dealer_cards) == 3:
        value = evaluate3(parse_cards(rec.dealer_cards))
        qual = "qualifies" if profile.qualifier.qualifies(value) else "does not qualify"
        head += f" {value.hand_class.key.replace('_', ' ')} ({qual})"
    parts = [head]
    for s in rec.seats:
        if not s.bets:
            continue
        cards = " ".join(c or "??" for c in s.cards)
        what = "fold" if s.decision == "fold" else (s.hand or "").replace("_", " ")
        result = (", ".join(f"{r.bet} {outcome_words(r.outcome, r.multiple)}"
                            for r in s.results)
                  if outcomes else format_money(s.net or 0, "en", currency, sign=True))
        parts.append(f"seat {s.seat} {cards} {what} {result}")
    return " | ".join(parts)
