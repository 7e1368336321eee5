"""What the screens say of a settled bet: the paytable line it was paid on, and the pay order.

A round's record keeps the seat's hands and cards, from which :func:`result_line` names the
line again by the settlement's rule (:meth:`RuleProfile.paid_line`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from controller.game.bet_types import LINE_BETS, PAIR_PLUS, PAY_ORDER, SIX_CARD_BONUS
from controller.game.rules import RuleProfile

_R = TypeVar("_R")
_V = TypeVar("_V")


def pay_rank(bet: str) -> int:
    """A bet's place in :data:`~controller.game.bet_types.PAY_ORDER` (an unknown bet last)."""
    return PAY_ORDER.index(bet) if bet in PAY_ORDER else len(PAY_ORDER)


def in_pay_order(results: Iterable[_R]) -> tuple[_R, ...]:
    """``results`` (anything with a ``bet``) sorted in the pay order of the rules."""
    return tuple(sorted(results, key=lambda r: pay_rank(r.bet)))  # type: ignore[attr-defined]


def items_in_pay_order(per_bet: Mapping[str, _V]) -> tuple[tuple[str, _V], ...]:
    """A record's bet -> value mapping as pairs in the pay order, as the screens list them."""
    return tuple(sorted(per_bet.items(), key=lambda kv: pay_rank(kv[0])))


@functools.lru_cache(maxsize=4096)
def _mini_royal(cards: tuple[str | None, ...]) -> bool:
    if len(cards) != 3 or None in cards:
        return False
    from controller.game.cards import parse_card
    from controller.game.hands import evaluate3

    return evaluate3([parse_card(c) for c in cards]).mini_royal  # type: ignore[arg-type]


def result_line(profile: RuleProfile, bet: str, outcome: str, multiple: int,
                hand: str | None, six_card_hand: str | None, cards: Sequence[str | None],
                recorded: str = "") -> str:
    """The paytable line a bet's win was paid on (a hand key, or ``mini_royal``), else "".

    ``six_card_hand`` is the best five of six's key; ``cards`` (canonical texts) tell a mini
    royal; a ``recorded`` line wins. Only a win has a line.
    """
    if recorded or outcome != "win" or bet not in LINE_BETS:
        return recorded
    if bet == SIX_CARD_BONUS:
        return six_card_hand or ""
    mini = _mini_royal(tuple(cards))
    line = profile.paid_line(bet, hand or "", mini)
    if bet == PAIR_PLUS and mini and profile.pair_plus.get(line) != multiple:
        # paid under rules that named the other line: a mini royal pays on one of two
        line = hand or "" if line == "mini_royal" else "mini_royal"
    return line
