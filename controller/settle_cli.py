"""``threecard settle``: settle rounds given as JSON Lines on stdin, one result line each.

Input line::

    {"player": ["As","Ks","Qs"], "dealer": ["2c","3d","5h"],
     "bets": {"ante": 100, "pair_plus": 10, "six_card_bonus": 10}, "decision": "play"}

Output line: the hands, whether the dealer qualifies, the 6 Card Bonus hand, one result
per bet placed (plus the Ante Bonus when it pays) in pay order, and the seat's net, all
in minor units. A bad line gives ``{"error": "...", "line": N}``; the other lines are
still settled and the exit status is 1. A blank line is skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from controller.game.cards import CardError, parse_cards
from controller.game.rules import RuleProfile, RuleProfileError, load_profile
from controller.game.settlement import BetError, Decision, bets_from_mapping, settle


class InputError(ValueError):
    """A settle input line that is not a valid round."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules`` and ``--limits``."""
    parser.add_argument("--rules", default="live",
                        help="rule profile: live, classic or a TOML file path (default live)")
    parser.add_argument("--limits", action="store_true",
                        help="also reject bets outside the profile's table limits")


def settle_line(profile: RuleProfile, text: str, apply_limits: bool = False) -> dict[str, Any]:
    """Settle one input line.

    Args:
        profile: the rules in force.
        text: one JSON object (see the module docstring).
        apply_limits: also check the table limits.

    Returns:
        The output object (see the module docstring).

    Raises:
        InputError, CardError, BetError: the line is not a valid round (the message says why).
    """
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except ValueError:  # Python refuses integers of more than 4,300 digits
        raise InputError("not a settle line: a number is far too long") from None
    except RecursionError:
        raise InputError("not a settle line: nested too deeply") from None
    if not isinstance(obj, dict):
        raise InputError("each line must be a JSON object")
    unknown = set(obj) - {"player", "dealer", "bets", "decision"}
    if unknown:
        raise InputError(f"unknown field(s): {', '.join(sorted(unknown))}")
    for key in ("player", "dealer", "bets"):
        if key not in obj:
            raise InputError(f"missing field {key!r}")
    for key in ("player", "dealer"):
        if not isinstance(obj[key], list):
            raise InputError(f"{key!r} must be a list of three cards")
    player = parse_cards(obj["player"], 3)
    dealer = parse_cards(obj["dealer"], 3)
    bets = bets_from_mapping(obj["bets"])
    raw_decision = obj.get("decision")
    decision = None
    if raw_decision is not None:
        try:
            decision = Decision(raw_decision)
        except ValueError:
            raise InputError(f"decision must be 'play' or 'fold', got {raw_decision!r}") from None
    if bets.ante and decision is None:
        raise InputError("missing decision: 'play' or 'fold' is required with an Ante")
    s = settle(profile, player, dealer, bets, decision, apply_limits=apply_limits)
    return {
        "player_hand": s.player_hand.hand_class.key,
        "dealer_hand": s.dealer_hand.hand_class.key,
        "dealer_qualifies": s.dealer_qualifies,
        "six_card_hand": s.six_card_hand.key,
        "results": {r.bet: {"outcome": r.outcome.value, "net": r.net} for r in s.results},
        "net": s.net,
    }


def settle_stream(profile: RuleProfile, lines: TextIO, out: TextIO,
                  apply_limits: bool = False) -> int:
    """Settle every line of ``lines``, writing one JSON line each to ``out`` in order.

    Blank lines (a trailing newline, a gap between rounds) are skipped: they answer
    nothing and are no error. An error names its input line number.

    Returns:
        The number of bad lines.
    """
    bad = 0
    for n, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            result = settle_line(profile, text, apply_limits)
        except (InputError, CardError, BetError) as exc:
            result = {"error": str(exc), "line": n}
            bad += 1
        out.write(json.dumps(result) + "\n")
    out.flush()
    return bad


def run(args: argparse.Namespace) -> int:
    """Settle stdin to stdout.

    Returns:
        0 when every line settled, 1 when any line was bad, 2 for a bad rule profile.
    """
    try:
        profile = load_profile(args.rules)
    except RuleProfileError as exc:
        print(f"threecard settle: {exc}", file=sys.stderr)
        return 2
    return 1 if settle_stream(profile, sys.stdin, sys.stdout, args.limits) else 0
