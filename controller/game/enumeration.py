"""Vectorised NumPy enumeration of every six-card set: the tests' oracle (docs/deck-counts.md)."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from controller.game.deck_counts import (  # noqa: F401 - the published counts, also here
    N_HAND_PAIRS,
    N_SIX_CARD_SETS,
    Q64_FOLDED_SIX_COUNTS,
    SIX_CARD_COUNTS,
    DealerCounts,
    HandKind,
)
from controller.game.hands import (
    IS_STRAIGHT,
    ROYAL_MASK,
    SUIT_MAJOR_POS,
    VALUES_BY_MASK,
    Qualifier,
    SixCardClass,
    pairing_class,
)

_C = SixCardClass


def hand_pair_six_card_counts(hands: np.ndarray) -> dict[SixCardClass, int]:
    """Best-five class counts of every (hand, dealer hand) pair for (K, 3) hands."""
    perms = list(itertools.permutations(range(4)))
    orbits: dict[tuple[int, ...], int] = {}
    for hand in np.asarray(hands, dtype=np.intp).tolist():
        key = min(tuple(sorted(c // 4 * 4 + perm[c % 4] for c in hand)) for perm in perms)
        orbits[key] = orbits.get(key, 0) + 1
    weights = np.array(list(orbits.values()), dtype=np.int64)
    totals = (weights[:, None] * hand_six_card_counts(list(orbits))).sum(axis=0)
    return {c: int(totals[c]) for c in SixCardClass}


@functools.cache
def _every_hand() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All 22,100 hands: card indexes, card masks, suit-major masks."""
    every = _colex_combinations(52, 3).astype(np.intp)
    bits = np.bitwise_or.reduce(np.uint64(1) << every.astype(np.uint64), axis=1)
    return every, bits, np.bitwise_or.reduce(_SUIT_MAJOR_BIT[every], axis=1)


def hand_six_card_counts(hands: Sequence[Sequence[int]]) -> np.ndarray:
    """Per hand, a row of counts per :class:`SixCardClass` over its 18,424 dealer hands."""
    _, bits, suit_major = _every_hand()
    n = len(SixCardClass)
    out = np.zeros((len(hands), n), dtype=np.int64)
    for i in range(0, len(hands), 32):
        block = np.array(hands[i:i + 32], dtype=np.intp)
        own = np.bitwise_or.reduce(np.uint64(1) << block.astype(np.uint64), axis=1)
        own_sm = np.bitwise_or.reduce(_SUIT_MAJOR_BIT[block], axis=1)
        which, dealer = np.nonzero((bits[None, :] & own[:, None]) == 0)
        classes = classify_masks(own_sm[which] | suit_major[dealer])
        out[i:i + len(block)] = np.bincount(which * n + classes,
                                            minlength=len(block) * n).reshape(-1, n)
    return out


class Enumerated:
    """The deck's counts by visiting every case: the tests' oracle for the counting."""

    def __init__(self, kinds: Iterable[HandKind]) -> None:
        self._kinds = tuple(kinds)
        self._six: dict[SixCardClass, int] | None = None

    def kinds(self) -> Sequence[HandKind]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        return self._kinds

    def dealer_counts(self, qualifier: Qualifier) -> Sequence[DealerCounts]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        return [d for (d,) in self.dealer_counts_for([qualifier])]

    def dealer_counts_for(self, qualifiers: Sequence[Qualifier]
                          ) -> list[tuple[DealerCounts, ...]]:
        """For each kind, its :class:`DealerCounts` under each of ``qualifiers``."""
        _, bits, _ = _every_hand()
        strength = np.array([VALUES_BY_MASK[int(m)].strength for m in bits], dtype=np.int64)
        below = [strength < q.min_strength for q in qualifiers]
        out = []
        for i in range(0, len(self._kinds), 64):
            chunk = self._kinds[i:i + 64]
            own = np.array([sum(1 << c.index for c in k.cards) for k in chunk], dtype=np.uint64)
            s = np.array([k.value.strength for k in chunk], dtype=np.int64)[:, None]
            apart = (bits[None, :] & own[:, None]) == 0
            weaker = ((strength[None, :] < s) & apart).sum(axis=1).tolist()
            tied = ((strength[None, :] == s) & apart).sum(axis=1).tolist()
            nq = [(b[None, :] & apart).sum(axis=1).tolist() for b in below]
            out += [tuple(DealerCounts(weaker[j], tied[j], n[j]) for n in nq)
                    for j in range(len(chunk))]
        return out

    def six_card(self) -> Mapping[SixCardClass, int]:
        """See :class:`~controller.game.deck_counts.DeckCounts` (enumerated once)."""
        if self._six is None:
            self._six = six_card_class_counts()
        return dict(self._six)

    def dealer_six_card(self, kinds: Iterable[int]) -> Mapping[SixCardClass, int]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        chosen = [self._kinds[i] for i in kinds]
        weights = np.array([k.weight for k in chosen], dtype=np.int64).reshape(-1, 1)
        counts = hand_six_card_counts([[c.index for c in k.cards] for k in chosen])
        totals = (weights * counts).sum(axis=0)
        return {c: int(totals[c]) for c in SixCardClass}


def _colex_combinations(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) in co-lexicographic order (the first C(m, k) are those of m)."""
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
    """The :class:`SixCardClass` of each set given as a 52-bit mask (bit ``suit*13 + rank``)."""
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
    """The :class:`SixCardClass` of each row of six card indexes (``Card.index``)."""
    cards = np.asarray(cards, dtype=np.intp)
    bits = _SUIT_MAJOR_BIT[cards]
    return classify_masks(np.bitwise_or.reduce(bits, axis=1))


def six_card_class_counts(progress: Callable[[int], None] | None = None) -> dict[SixCardClass,
                                                                                   int]:
    """Count the best-five class over all 20,358,520 sets; ``progress`` gets the sets done."""
    totals = np.zeros(len(SixCardClass), dtype=np.int64)
    for masks in six_card_mask_blocks():
        totals += np.bincount(classify_masks(masks), minlength=len(SixCardClass))
        if progress:
            progress(len(masks))
    return {c: int(totals[c]) for c in SixCardClass}
