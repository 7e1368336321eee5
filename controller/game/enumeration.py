"""Vectorised, table-driven enumeration of six-card sets (the 6 Card Bonus).

Every one of the C(52,6) = 20,358,520 six-card sets is classified in NumPy, a block at a
time, with no Python loop per set.

Method: a set is one 52-bit mask with bit ``suit * 13 + rank`` (rank 0 = deuce), so each
13-bit field is one suit's rank mask. The ranks held in at least 1, 2, 3 and 4 suits are
bitwise OR / majority functions of the four fields; their popcounts (a table of 8,192)
give the pairing shape (pair, two pair, trips, full house, quads) without sorting. The
rank mask indexes a straight table (8,192 entries, A-2-3-4-5 included); a suit field with
five or more bits is a flush, whose field indexes the same straight table (royal =
T-J-Q-K-A of one suit). Sets are generated per first card from one precomputed
co-lexicographic table of 5-card combinations.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator

import numpy as np

from controller.game.hands import (
    IS_STRAIGHT,
    ROYAL_MASK,
    SUIT_MAJOR_POS,
    SixCardClass,
    pairing_class,
)

_C = SixCardClass
N_SIX_CARD_SETS = math.comb(52, 6)

SIX_CARD_COUNTS: dict[SixCardClass, int] = {
    _C.ROYAL_FLUSH: 188, _C.STRAIGHT_FLUSH: 1_656, _C.FOUR_OF_A_KIND: 14_664,
    _C.FULL_HOUSE: 165_984, _C.FLUSH: 205_792, _C.STRAIGHT: 361_620,
    _C.THREE_OF_A_KIND: 732_160, _C.TWO_PAIR: 2_532_816, _C.PAIR: 9_730_740,
    _C.HIGH_CARD: 6_612_900,
}
"""Best-five class counts of all C(52,6) sets as published in docs/rules.md. A property of the
deck, not of any paytable: the exhaustive test proves :func:`six_card_class_counts`
reproduces them, so start-up checks may use them instead of enumerating again."""


N_HAND_PAIRS = math.comb(52, 3) * math.comb(49, 3)
"""(player hand, dealer hand) pairs that share no card: 22,100 x 18,424 = 407,170,400, each
six-card set split 20 ways (C(6,3))."""

Q64_FOLDED_SIX_COUNTS: dict[SixCardClass, int] = {
    _C.ROYAL_FLUSH: 84, _C.STRAIGHT_FLUSH: 6_444, _C.FOUR_OF_A_KIND: 21_600,
    _C.FULL_HOUSE: 388_800, _C.FLUSH: 706_272, _C.STRAIGHT: 3_107_376,
    _C.THREE_OF_A_KIND: 2_880_000, _C.TWO_PAIR: 11_858_400, _C.PAIR: 61_485_336,
    _C.HIGH_CARD: 52_198_488,
}
"""Best-five class counts of the six cards of every (folded hand, dealer hand) pair, where
the folded hands are the 7,200 below Q-6-4 (the hands the Q-6-4 strategy folds) and each
meets the 18,424 dealer hands that share no card with it: 132,652,800 pairs. A property of
the deck and of that set of hands: the tests prove :func:`hand_pair_six_card_counts`
reproduces them (and a second, independent count over the six-card sets), so the par
sheet's fast path may use them instead of enumerating again."""


def hand_pair_six_card_counts(hands: np.ndarray) -> dict[SixCardClass, int]:
    """Count the best-five class of every (hand, dealer hand) pair, for the given hands.

    Each hand meets each of the 18,424 three-card hands that share no card with it. The
    counts do not change when the suits are renamed, so one hand per suit-renaming class
    is enumerated, weighted by how many of the given hands fall in that class.

    Args:
        hands: integer array of shape (K, 3): card indexes (``Card.index``), distinct
            hands.

    Returns:
        Count per class; the counts sum to K x 18,424.
    """
    perms = list(itertools.permutations(range(4)))
    orbits: dict[tuple[int, ...], int] = {}
    for hand in np.asarray(hands, dtype=np.intp).tolist():
        key = min(tuple(sorted(c // 4 * 4 + perm[c % 4] for c in hand)) for perm in perms)
        orbits[key] = orbits.get(key, 0) + 1
    every = _colex_combinations(52, 3).astype(np.intp)
    every_bits = np.bitwise_or.reduce(np.uint64(1) << every.astype(np.uint64), axis=1)
    totals = np.zeros(len(SixCardClass), dtype=np.int64)
    for key, weight in orbits.items():
        own = np.uint64(sum(1 << c for c in key))
        dealers = every[(every_bits & own) == 0]
        sets = np.hstack([np.broadcast_to(np.array(key, dtype=np.intp), (len(dealers), 3)),
                          dealers])
        totals += weight * np.bincount(classify_six(sets), minlength=len(SixCardClass))
    return {c: int(totals[c]) for c in SixCardClass}


def _colex_combinations(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as rows (sorted ascending) in co-lexicographic order.

    The first C(m, k) rows are exactly the k-subsets of range(m), for every m <= n.
    """
    rows = np.arange(n, dtype=np.uint8).reshape(-1, 1)[: n]  # k = 1
    if k == 1:
        return rows
    table = rows
    for kk in range(2, k + 1):
        parts = []
        for top in range(kk - 1, n):
            below = table[: math.comb(top, kk - 1)]
            parts.append(np.hstack([below, np.full((len(below), 1), top, dtype=np.uint8)]))
        table = np.vstack(parts)
    return table


STRAIGHT_TABLE = np.array(IS_STRAIGHT, dtype=bool)
"""The straight table of :mod:`controller.game.hands` as an array, indexed by rank mask."""
POPCOUNT13 = np.array([i.bit_count() for i in range(1 << 13)], dtype=np.int8)
_SUIT_MAJOR_BIT = np.uint64(1) << np.array(SUIT_MAJOR_POS, dtype=np.uint64)


def _pairing_table() -> np.ndarray:
    """:func:`~controller.game.hands.pairing_class` tabulated by (2+ ranks, 3+ ranks, quads)."""
    t = np.empty((7, 7, 2), dtype=np.int8)
    for p2 in range(7):
        for p3 in range(7):
            for q in range(2):
                t[p2, p3, q] = pairing_class(p2, p3, bool(q))
    return t


PAIRING = _pairing_table()
_M13 = np.uint64(0x1FFF)


def classify_masks(mask: np.ndarray) -> np.ndarray:
    """Classify six-card sets given as 52-bit suit-major masks (bit ``suit*13 + rank``).

    Args:
        mask: uint64 array of shape (N,), six bits set in each.

    Returns:
        int8 array of shape (N,): the :class:`SixCardClass` value of each set's best five.
    """
    f = [((mask >> np.uint64(13 * s)) & _M13).astype(np.uint16) for s in range(4)]
    a, b, c, d = f
    s1 = a | b | c | d
    ab, cd = a & b, c & d
    s2 = ab | cd | ((a | b) & (c | d))
    s3 = (ab & (c | d)) | (cd & (a | b))
    s4 = ab & cd
    cls = PAIRING[POPCOUNT13[s2], POPCOUNT13[s3], (s4 != 0).astype(np.int8)]
    straight = STRAIGHT_TABLE[s1] & (cls < _C.STRAIGHT)
    cls[straight] = _C.STRAIGHT
    for fs in f:
        flush = POPCOUNT13[fs] >= 5
        if flush.any():
            suited = fs[flush]
            fcls = np.full(len(suited), _C.FLUSH, dtype=np.int8)
            fcls[STRAIGHT_TABLE[suited]] = _C.STRAIGHT_FLUSH
            fcls[(suited & ROYAL_MASK) == ROYAL_MASK] = _C.ROYAL_FLUSH
            cls[flush] = fcls  # 5+ suited cards rule out quads and a full house
    return cls


def six_card_mask_blocks(chunk: int = 1 << 16) -> Iterator[np.ndarray]:
    """Yield all 20,358,520 six-card sets once, as uint64 suit-major masks in chunks."""
    tail = _colex_combinations(51, 5)
    bits = _SUIT_MAJOR_BIT
    for first in range(47):
        t = tail[: math.comb(51 - first, 5)] + np.uint8(first + 1)
        rest = bits[t[:, 0]] | bits[t[:, 1]] | bits[t[:, 2]] | bits[t[:, 3]] | bits[t[:, 4]]
        rest |= bits[first]
        for i in range(0, len(rest), chunk):
            yield rest[i:i + chunk]


def classify_six(cards: np.ndarray) -> np.ndarray:
    """Classify six-card sets given as card indexes.

    Args:
        cards: integer array of shape (N, 6): card indexes 0..51 (``Card.index``,
            ``(rank - 2) * 4 + suit``), distinct within each row.

    Returns:
        int8 array of shape (N,): the :class:`SixCardClass` value of each row's best five.
    """
    cards = np.asarray(cards, dtype=np.intp)
    bits = _SUIT_MAJOR_BIT[cards]
    return classify_masks(np.bitwise_or.reduce(bits, axis=1))


def six_card_class_counts(progress: Callable[[int], None] | None = None) -> dict[SixCardClass,
                                                                                   int]:
    """Count the best-five class over all 20,358,520 six-card sets by full enumeration.

    Args:
        progress: called with the number of sets done after each block, if given.

    Returns:
        Count per class; the counts sum to C(52, 6).
    """
    totals = np.zeros(len(SixCardClass), dtype=np.int64)
    for masks in six_card_mask_blocks():
        totals += np.bincount(classify_masks(masks), minlength=len(SixCardClass))
        if progress:
            progress(len(masks))
    return {c: int(totals[c]) for c in SixCardClass}
