"""The bets of the table, each declared once; every other module names a bet from here.

:data:`BETS` is in screen and meter order; pay order, return groups, journal codes and keys
are fields of a :class:`BetType` or derived from them.
"""

from __future__ import annotations

from typing import NamedTuple

ANTE = "ante"
PLAY = "play"
ANTE_BONUS = "ante_bonus"
PAIR_PLUS = "pair_plus"
SIX_CARD_BONUS = "six_card_bonus"
ANTE_PLAY = "ante_play"  # the return group of the Ante, the Play and the Ante Bonus


class BetType(NamedTuple):
    """One bet: its name (in views, records, settle lines, profiles, catalogue keys) and roles."""

    name: str
    pay_rank: int  # its place in the order the dealer settles a seat (docs/rules.md)
    group: str  # the par sheet's return group it counts in
    per_seat: bool  # settled on the seat's own three cards alone: a seat is one trial
    held: bool  # a wager a seat holds (the Ante Bonus is only a result of the Ante)
    code: int | None  # the journal's number for it (append only); None: no chip places it
    key: str | None  # the dealer's key of its chip spot; None: it has no spot
    paytable: bool  # paid on a line of its paytable (a profile's section named after it)


BETS: tuple[BetType, ...] = (
    BetType(ANTE, 2, ANTE_PLAY, False, True, 0, "a", False),
    BetType(PLAY, 0, ANTE_PLAY, False, True, None, None, False),
    BetType(ANTE_BONUS, 1, ANTE_PLAY, False, False, None, None, True),
    BetType(PAIR_PLUS, 3, PAIR_PLUS, True, True, 1, "p", True),
    BetType(SIX_CARD_BONUS, 4, SIX_CARD_BONUS, False, True, 2, "x", True),
)
BY_NAME: dict[str, BetType] = {b.name: b for b in BETS}
#: the names in the order of :data:`BETS` (the screens', meters' and reports' order)
NAMES: tuple[str, ...] = tuple(b.name for b in BETS)
PAY_ORDER: tuple[str, ...] = tuple(b.name for b in sorted(BETS, key=lambda b: b.pay_rank))
#: the bets a chip places (``--bets``, settle lines, limits), by journal code
PLACED: tuple[str, ...] = tuple(
    b.name for b in sorted(BETS, key=lambda b: b.code or 0) if b.code is not None)
HELD: tuple[str, ...] = tuple(b.name for b in BETS if b.held)
LINE_BETS: tuple[str, ...] = tuple(b.name for b in BETS if b.paytable)
#: return group -> its bets; a group's return is per unit of its first bet's stake
GROUPS: dict[str, tuple[str, ...]] = {
    g: tuple(b.name for b in BETS if b.group == g) for g in dict.fromkeys(b.group for b in BETS)}
#: the groups whose seats' results are independent of each other
PER_SEAT_GROUPS: frozenset[str] = frozenset(
    g for g in GROUPS if all(b.per_seat for b in BETS if b.group == g))
#: chip spot -> the dealer's key
KEYS: dict[str, str] = {b.name: b.key for b in BETS if b.key is not None}
