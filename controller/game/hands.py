"""Hand evaluation: 3-card hands, dealer qualification, and the 6 Card Bonus hand.

A straight beats a flush (docs/rules.md, "Cards and hands"); the ace plays high or low
(A-2-3 is the lowest straight), K-A-2 is no straight. A hand's *strength* is one integer,
higher wins and equal pushes: ``class * 15**3 + t1 * 15**2 + t2 * 15 + t3``.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from controller.game.cards import DECK, Card, CardError, parse_card


class HandClass(enum.IntEnum):
    """Three-card hand classes, ordered low to high; ``.name.lower()`` is the wire name."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5

    @property
    def key(self) -> str:
        """Wire and paytable name, e.g. ``three_of_a_kind``."""
        return _KEYS3[self]


class SixCardClass(enum.IntEnum):
    """Best 5-card poker hand out of 6 cards (the 6 Card Bonus), ordered low to high."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def key(self) -> str:
        """Wire and paytable name, e.g. ``full_house``."""
        return _KEYS6[self]


# one table per enum: IntEnum members of the two classes compare equal by value
_KEYS3: dict[HandClass, str] = {c: c.name.lower() for c in HandClass}
_KEYS6: dict[SixCardClass, str] = {c: c.name.lower() for c in SixCardClass}


@dataclass(frozen=True, slots=True)
class HandValue:
    """The value of a 3-card hand (A-2-3's tiebreak top card is 3; ``mini_royal``: A-K-Q suited)."""

    hand_class: HandClass
    strength: int
    tiebreak: tuple[int, ...]
    mini_royal: bool = False


def _pack(cls: int, t: Sequence[int]) -> int:
    t = (*t, 0, 0, 0)[:3]
    return ((cls * 15 + t[0]) * 15 + t[1]) * 15 + t[2]


def _evaluate_ranks(r: tuple[int, int, int], flush: bool) -> HandValue:
    a, b, c = r
    if a == b == c:
        return HandValue(HandClass.THREE_OF_A_KIND, _pack(4, (a,)), (a,))
    if a == b or b == c:
        pair, kicker = (a, c) if a == b else (b, a)
        return HandValue(HandClass.PAIR, _pack(1, (pair, kicker)), (pair, kicker))
    top = None
    if a - c == 2:
        top = a
    elif (a, b, c) == (14, 3, 2):
        top = 3
    if top is not None:
        if flush:
            return HandValue(HandClass.STRAIGHT_FLUSH, _pack(5, (top,)), (top,), mini_royal=a == 14
                             and top == 14)
        return HandValue(HandClass.STRAIGHT, _pack(3, (top,)), (top,))
    if flush:
        return HandValue(HandClass.FLUSH, _pack(2, r), r)
    return HandValue(HandClass.HIGH_CARD, _pack(0, r), r)


def _build_table() -> dict[int, HandValue]:
    """Every hand's value by card mask; hands of the same ranks and suitedness share one."""
    table: dict[int, HandValue] = {}
    bit = {r: [1 << ((r - 2) * 4 + s) for s in range(4)] for r in range(2, 15)}
    for a, b, c in itertools.combinations_with_replacement(range(14, 1, -1), 3):
        plain = _evaluate_ranks((a, b, c), False)
        suited = _evaluate_ranks((a, b, c), True) if a != b != c else plain
        for s1, x in enumerate(bit[a]):
            for s2, y in enumerate(bit[b]):
                if x == y:
                    continue
                xy = x | y
                for s3, z in enumerate(bit[c]):
                    if not xy & z:
                        table[xy | z] = suited if s1 == s2 == s3 else plain
    return table


_TABLE3: dict[int, HandValue] = _build_table()
VALUES_BY_MASK: Mapping[int, HandValue] = MappingProxyType(_TABLE3)


def card_mask(cards: Sequence[Card]) -> int:
    """Bit set of the cards' indexes (bit ``card.index``)."""
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


def evaluate3(cards: Sequence[Card]) -> HandValue:
    """Evaluate three distinct cards (CardError if not)."""
    if len(cards) != 3:
        raise CardError(f"a hand is 3 cards, got {len(cards)}", cards)
    value = _TABLE3.get(card_mask(cards))
    if value is None:
        raise CardError(f"the same card twice in {' '.join(map(str, cards))}", cards)
    return value


def all_hands3() -> list[tuple[tuple[Card, Card, Card], HandValue]]:
    """All 22,100 three-card hands with their values, in ``itertools.combinations`` order."""
    return [((x, y, z), _TABLE3[card_mask((x, y, z))])
            for x, y, z in itertools.combinations(DECK, 3)]


class Qualifier:
    """The dealer's minimum hand to qualify: ``"<rank>-high"`` (or any pair) or ``"pair"``."""

    def __init__(self, text: str = "Q-high") -> None:
        """Parse a qualifier text: ``<rank>-high`` or ``pair`` (else ValueError)."""
        self.text = text
        t = text.strip().lower()
        if t == "pair":
            self.min_strength = _pack(HandClass.PAIR, (2, 2))
        elif t.endswith("-high") and len(t) in (6, 7):
            try:
                rank = parse_card(t[:-5] + "c").rank
            except CardError:
                raise ValueError(f"bad dealer qualifier {text!r}: expected e.g. 'Q-high' or "
                                 "'pair'") from None
            if rank < 5:
                raise ValueError(f"bad dealer qualifier {text!r}: a high card is at least 5")
            # the lowest hand with that top card: rank, then the two lowest other ranks
            self.min_strength = _pack(HandClass.HIGH_CARD, (rank, 3, 2))
        else:
            raise ValueError(f"bad dealer qualifier {text!r}: expected e.g. 'Q-high' or 'pair'")

    def qualifies(self, value: HandValue) -> bool:
        """True when a dealer hand of ``value`` qualifies."""
        return value.strength >= self.min_strength

    def __repr__(self) -> str:
        return f"Qualifier({self.text!r})"


ROYAL_MASK = 0b1111100000000


# The ten 5-card straights as 13-bit rank masks (bit rank - 2), A-K-Q-J-T down to 5-4-3-2-A.
STRAIGHT_RUNS: tuple[int, ...] = (*(0b11111 << low for low in range(8, -1, -1)),
                                   0b1000000001111)


def _straight_table() -> list[bool]:
    table = [False] * (1 << 13)
    for run in STRAIGHT_RUNS:
        rest = sub = 0x1FFF & ~run
        while True:  # every mask holding the run: the run plus each subset of the rest
            table[run | sub] = True
            if not sub:
                break
            sub = (sub - 1) & rest
    return table


IS_STRAIGHT: list[bool] = _straight_table()
# Each card's bit (by Card.index) in a 52-bit suit-major mask, suit * 13 + rank - 2: each
# 13-bit field is one suit's rank mask (the vectorised enumeration reads it too).
SUIT_MAJOR_POS: tuple[int, ...] = tuple((i & 3) * 13 + (i >> 2) for i in range(52))
SUIT_MAJOR_BIT: tuple[int, ...] = tuple(1 << p for p in SUIT_MAJOR_POS)


def pairing_class(twice: int, thrice: int, quads: bool) -> SixCardClass:
    """Best pairing class of six cards by ranks held 2+, 3+, 4 times (no straight, no flush)."""
    if quads:
        return SixCardClass.FOUR_OF_A_KIND
    if thrice >= 2 or (thrice == 1 and twice >= 2):
        return SixCardClass.FULL_HOUSE
    if thrice:
        return SixCardClass.THREE_OF_A_KIND
    if twice >= 2:
        return SixCardClass.TWO_PAIR
    return SixCardClass.PAIR if twice else SixCardClass.HIGH_CARD


def best_five_of_six(cards: Sequence[Card]) -> SixCardClass:
    """The class of the best five of six distinct cards (CardError if not); royal: A-K-Q-J-T."""
    if len(cards) != 6 or len(set(cards)) != 6:
        raise CardError("the 6 Card Bonus needs six distinct cards", cards)
    m = 0
    for c in cards:
        m |= SUIT_MAJOR_BIT[c.index]
    return six_card_class(m)


def six_card_class(m: int) -> SixCardClass:
    """:func:`best_five_of_six` of six cards given as the OR of their suit-major bits."""
    a, b, c_, d = m & 0x1FFF, (m >> 13) & 0x1FFF, (m >> 26) & 0x1FFF, m >> 39
    for suited in (a, b, c_, d):
        if suited.bit_count() >= 5:
            if suited & ROYAL_MASK == ROYAL_MASK:
                return SixCardClass.ROYAL_FLUSH
            if IS_STRAIGHT[suited]:
                return SixCardClass.STRAIGHT_FLUSH
            return SixCardClass.FLUSH  # 5 suited distinct ranks + 1: no quads/full house
    ab, cd = a & b, c_ & d
    cls = pairing_class((ab | cd | ((a | b) & (c_ | d))).bit_count(),  # ranks held 2+ times
                        ((ab & (c_ | d)) | (cd & (a | b))).bit_count(),  # 3+ times
                        bool(ab & cd))
    if cls < SixCardClass.STRAIGHT and IS_STRAIGHT[a | b | c_ | d]:
        return SixCardClass.STRAIGHT
    return cls
