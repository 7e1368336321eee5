"""One readable line per finished round: the daemon's log and the headless demo's output.

Money is shown in major units with a sign (``+12.50``); a void names its reason and each
seat's refund.
"""

from __future__ import annotations

from typing import Any

from controller.game.cards import parse_cards
from controller.game.hands import evaluate3
from controller.game.views import RecallRound


def _money(minor: int) -> str:
    sign = "-" if minor < 0 else "+"
    return f"{sign}{abs(minor) // 100}.{abs(minor) % 100:02d}"


def describe_round(rec: RecallRound, profile: Any = None) -> str:
    """One readable line for a settled or voided round (the demo's headless output).

    Args:
        rec: the round's game recall record.
        profile: the rule profile, to name the dealer's hand and whether it qualifies.
    """
    if rec.status == "void":
        refunds = [f"seat {s.seat} refunded {_money(sum(s.bets.values()))[1:]}"
                   for s in rec.seats if s.bets]
        return (f"round {rec.round_id} VOID ({rec.void_reason or 'void'}): "
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
        parts.append(f"seat {s.seat} {cards} {what} {_money(s.net or 0)}")
    return " | ".join(parts)
