"""``threecard settle``: settle rounds given as JSON Lines on stdin, one result line each.

Input line::

    {"player": ["As","Ks","Qs"], "dealer": ["2c","3d","5h"],
     "bets": {"ante": 100, "pair_plus": 10, "six_card_bonus": 10}, "decision": "play"}

Output line: the hands, whether the dealer qualifies, the 6 Card Bonus hand, one result
per bet placed (plus the Ante Bonus when it pays) in pay order, and the seat's net, all
in minor units. A bad line gives ``{"error": "...", "line": N}``; the other lines are
still settled and the exit status is 1. A blank line is skipped.

The lines at hand are decoded by msgspec in one call against their declaration
(:class:`SettleLine`, its wagers a :class:`~controller.game.settlement.Bets`), each result
encoded by msgspec once and remembered for the lines that settle alike; a line the
declaration refuses, or that does not settle, is read again by :func:`settle_line`, which
says exactly what is wrong with it.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

import msgspec

from controller.game.cards import CARDS_BY_TEXT, CardError, parse_cards
from controller.game.hands import (
    SUIT_MAJOR_BIT,
    VALUES_BY_MASK,
    HandClass,
    SixCardClass,
    six_card_class,
)
from controller.game.rules import RuleProfile, RuleProfileError, load_profile
from controller.game.settlement import (
    BetError,
    Bets,
    Decision,
    Outcome,
    SeatSettlement,
    bets_from_mapping,
    settle,
    settle_hands,
)

DECISIONS = {d.value: d for d in Decision}


class InputError(ValueError):
    """A settle input line that is not a valid round."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules`` and ``--limits``."""
    parser.add_argument("--rules", default="live",
                        help="rule profile: live, classic or a TOML file path (default live)")
    parser.add_argument("--limits", action="store_true",
                        help="also reject bets outside the profile's table limits")


class SettleLine(msgspec.Struct, forbid_unknown_fields=True):
    """One input line: the declaration every line is decoded against.

    Attributes:
        player: the seat's three cards (``As``, ``10h``...).
        dealer: the dealer's three cards.
        bets: the wagers (a bet type not declared there is refused).
        decision: ``play`` or ``fold``; required with an Ante.
    """

    player: list[str]
    dealer: list[str]
    bets: Bets
    decision: Decision | None = None


class BetAnswer(msgspec.Struct):
    """One bet's result in an output line: win, lose or push, and its net (minor units)."""

    outcome: Outcome
    net: int


class Answer(msgspec.Struct):
    """One output line: a settled seat (see the module docstring), keys in this order."""

    player_hand: str
    dealer_hand: str
    dealer_qualifies: bool
    six_card_hand: str
    results: dict[str, BetAnswer]
    net: int


# one table per enum: members of the two IntEnums are equal when their values are
_KEYS3 = {c: c.key for c in HandClass}
_KEYS6 = {c: c.key for c in SixCardClass}


def _answer(s: SeatSettlement) -> Answer:
    """The output line of one settled seat."""
    return Answer(_KEYS3[s.player_hand.hand_class], _KEYS3[s.dealer_hand.hand_class],
                  s.dealer_qualifies, _KEYS6[s.six_card_hand],
                  {r.bet: BetAnswer(r.outcome, r.net) for r in s.results}, s.net)


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
    return msgspec.to_builtins(_answer(settle(profile, player, dealer, bets, decision,
                                              apply_limits=apply_limits)))


def settle_stream(profile: RuleProfile, lines: BinaryIO, out: BinaryIO,
                  apply_limits: bool = False) -> int:
    """Settle every line of ``lines``, writing one JSON line each to ``out`` in order.

    Blank lines (a trailing newline, a gap between rounds) are skipped: they answer
    nothing and are no error. An error names its input line number. The lines at hand
    are decoded together; when any of them is not a round, each is read alone.

    Args:
        profile: the rules in force.
        lines: the input, binary (UTF-8 JSON Lines).
        out: where the answers go, binary; each is JSON as ``json.dumps`` spaces it.
        apply_limits: also check the table limits.

    Returns:
        The number of bad lines.
    """
    decode = msgspec.json.Decoder(list[SettleLine]).decode
    answer = _answers(profile, apply_limits)
    done = bad = 0
    rest: list[bytes] = []  # the start of a line not read to its end yet
    while chunk := lines.read1(_CHUNK):
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            rest.append(chunk)
            continue
        block = b"".join((*rest, chunk[:cut]))
        rest = [chunk[cut:]]
        count = block.count(b"\n")
        try:
            items = decode(b"[" + block[:-1].replace(b"\n", b",") + b"]")
            if len(items) != count:  # a line holding two rounds
                raise InputError("not one round per line")
            out.write(b"".join(map(answer, items)))
        except (ValueError, KeyError):  # msgspec.DecodeError, CardError, BetError included
            bad += _each_line(answer, block.splitlines(keepends=True), done, out, profile,
                              apply_limits)
        done += count
    if last := b"".join(rest):
        bad += _each_line(answer, [last], done, out, profile, apply_limits)
    out.flush()
    return bad


def _each_line(answer: Callable[[SettleLine], bytes], lines: list[bytes], done: int,
               out: BinaryIO, profile: RuleProfile, apply_limits: bool) -> int:
    """Answer each line alone (line numbers after ``done``); return how many are bad."""
    decode = _decode_line
    bad = 0
    answers = []
    for n, raw in enumerate(lines, start=done + 1):
        try:
            answers.append(answer(decode(raw)))
            continue
        except (ValueError, KeyError):
            if not raw.strip():
                continue
        try:  # read again, to say what is wrong (or settle what it reads otherwise)
            result = settle_line(profile, raw.decode("utf-8", "replace"), apply_limits)
        except (InputError, CardError, BetError) as exc:
            result = {"error": str(exc), "line": n}
            bad += 1
        answers.append(json.dumps(result).encode() + b"\n")
    out.write(b"".join(answers))
    return bad


_CHUNK = 1 << 16  # input bytes read at most at once
_decode_line = msgspec.json.Decoder(SettleLine).decode
_BIT = {text: 1 << c.index for text, c in CARDS_BY_TEXT.items()}
_SUIT_MAJOR = {text: SUIT_MAJOR_BIT[c.index] for text, c in CARDS_BY_TEXT.items()}


_KNOWN = 4096  # answers remembered at most (then forgotten all at once)


def _answers(profile: RuleProfile, apply_limits: bool) -> Callable[[SettleLine], bytes]:
    """The function giving a decoded line's output line (bytes), or raising.

    A line alike in what decides its answer is answered from memory (see ``key``).
    """
    bit, sm, value = _BIT, _SUIT_MAJOR, dict(VALUES_BY_MASK)
    qualifies, play = profile.qualifier.qualifies, Decision.PLAY
    known: dict[tuple, bytes] = {}
    encode = msgspec.json.Encoder().encode

    def answer(line: SettleLine) -> bytes:
        p1, p2, p3 = line.player
        d1, d2, d3 = line.dealer
        pm, dm = bit[p1] | bit[p2] | bit[p3], bit[d1] | bit[d2] | bit[d3]
        if (pm | dm).bit_count() != 6:
            raise CardError("a card is there twice")  # settle_line says which
        p, d = value[pm], value[dm]
        decision = line.decision
        six = six_card_class(sm[p1] | sm[p2] | sm[p3] | sm[d1] | sm[d2] | sm[d3])
        # all an answer depends on: the hand classes (and mini royal), the dealer qualifying,
        # the stronger hand, the 6 Card Bonus hand (one int), the wagers and the decision
        # (an int too: an Enum member hashes in Python)
        hands = ((((p.hand_class * 2 + p.mini_royal) * 6 + d.hand_class) * 2
                  + qualifies(d)) * 3 + (p.strength > d.strength)
                 - (p.strength < d.strength) + 1) * 10 + six
        key = (hands, line.bets, 0 if decision is None else 1 if decision is play else 2)
        text = known.get(key)
        if text is None:
            s = settle_hands(profile, p, d, six, line.bets, decision, apply_limits)
            # spaced as json.dumps spaces it
            text = msgspec.json.format(encode(_answer(s)), indent=0) + b"\n"
            if len(known) >= _KNOWN:
                known.clear()
            known[key] = text
        return text

    return answer


def run(args: argparse.Namespace) -> int:
    """Settle stdin to stdout.

    Returns:
        0 when every line settled, 1 when any line was bad, 2 for a bad rule profile.
    """
    try:
        profile = load_profile(args.rules)
    except RuleProfileError as exc:
        print(f"threecard settle: --rules: {exc}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    gc.freeze()  # what start-up built lives on: the collector need not walk it per batch
    return 1 if settle_stream(profile, sys.stdin.buffer, sys.stdout.buffer, args.limits) else 0
