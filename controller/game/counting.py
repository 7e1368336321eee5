"""Exact counts of the deck by counting cases in groups, not one by one (docs/deck-counts.md)."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence

from controller.game.cards import DECK, Card
from controller.game.deck_counts import (
    QUALIFIERS,
    DealerCounts,
    HandKind,
    stored_text,
)
from controller.game.hands import (
    IS_STRAIGHT,
    ROYAL_MASK,
    STRAIGHT_RUNS,
    VALUES_BY_MASK,
    Qualifier,
    SixCardClass,
    card_mask,
    evaluate3,
    pairing_class,
)

_C = SixCardClass


def _card(rank: int, suit: int) -> Card:
    return DECK[(rank - 2) * 4 + suit]


def hand_kinds() -> tuple[HandKind, ...]:
    """The 1,755 suit classes of the 22,100 three-card hands, ranks high to low."""
    kinds: list[HandKind] = []

    def add(cards: tuple[tuple[int, int], ...], weight: int) -> None:
        hand = tuple(_card(r, s) for r, s in cards)
        kinds.append(HandKind(hand, weight, evaluate3(hand)))  # type: ignore[arg-type]

    for a, b, c in itertools.combinations(range(14, 1, -1), 3):
        add(((a, 0), (b, 0), (c, 0)), 4)
        add(((a, 0), (b, 0), (c, 1)), 12)
        add(((a, 0), (b, 1), (c, 0)), 12)
        add(((a, 1), (b, 0), (c, 0)), 12)
        add(((a, 0), (b, 1), (c, 2)), 24)
    for p in range(14, 1, -1):
        for k in range(14, 1, -1):
            if k != p:
                for kicker in (0, 2):  # in the suit of one of the pair's cards; in a third
                    add(tuple(sorted(((p, 0), (p, 1), (k, kicker)), key=lambda x: -x[0])), 12)
        add(((p, 0), (p, 1), (p, 2)), 4)
    return tuple(kinds)


# ------------------------------------------------------------------ Ante/Play

class _Strengths:
    """Sorted strengths of every hand, of the hands holding a card, holding two (13 + 169 lists)."""

    def __init__(self) -> None:
        value = {m: v.strength for m, v in VALUES_BY_MASK.items()}
        bit = [1 << i for i in range(52)]
        self.every = sorted(value.values())
        self.one: dict[int, list[int]] = {}
        self.two: dict[tuple[int, int, bool], list[int]] = {}
        for r in range(2, 15):
            x = (r - 2) * 4
            rest = [bit[i] for i in range(52) if i != x]
            self.one[r] = sorted([value[bit[x] | y | z]
                                  for y, z in itertools.combinations(rest, 2)])
            for r2 in range(2, r + 1):
                for suited in ((False,) if r2 == r else (True, False)):
                    y = (r2 - 2) * 4 + (0 if suited else 1)
                    self.two[r, r2, suited] = sorted([value[bit[x] | bit[y] | bit[z]]
                                                      for z in range(52) if z not in (x, y)])

    def below(self, hand: Sequence[Card], strengths: Sequence[int]) -> list[int]:
        """Hands sharing no card with ``hand`` (ranks high to low) below each strength."""
        a, b, c = hand
        one, two, left = self.one, self.two, bisect.bisect_left
        o1, o2, o3 = one[a.rank], one[b.rank], one[c.rank]
        t1 = two[a.rank, b.rank, a.suit == b.suit and a.rank != b.rank]
        t2 = two[a.rank, c.rank, a.suit == c.suit and a.rank != c.rank]
        t3 = two[b.rank, c.rank, b.suit == c.suit and b.rank != c.rank]
        every, own = self.every, VALUES_BY_MASK[card_mask(hand)].strength
        # the hand itself: once in every hand, three times held one card, three times two
        return [left(every, s) - left(o1, s) - left(o2, s) - left(o3, s) + left(t1, s)
                + left(t2, s) + left(t3, s) - (own < s) for s in strengths]


def dealer_counts(kinds: Sequence[HandKind], qualifiers: Sequence[Qualifier]
                  ) -> list[tuple[DealerCounts, ...]]:
    """For each kind, one :class:`DealerCounts` per qualifier, in the order given."""
    st = _Strengths()
    out = []
    for k in kinds:
        s = k.value.strength
        weaker, up_to, *nq = st.below(k.cards, [s, s + 1, *(q.min_strength for q in qualifiers)])
        out.append(tuple(DealerCounts(weaker, up_to - weaker, n) for n in nq))
    return out


# ------------------------------------------------------------------ 6 Card Bonus, all sets

def _flush_class(suited: int) -> SixCardClass:
    if suited & ROYAL_MASK == ROYAL_MASK:
        return _C.ROYAL_FLUSH
    return _C.STRAIGHT_FLUSH if IS_STRAIGHT[suited] else _C.FLUSH


def _pattern_class(mults: Iterable[int]) -> SixCardClass:
    """The pairing class of ranks held these many times each (no straight, no flush)."""
    m = list(mults)
    return pairing_class(sum(x >= 2 for x in m), sum(x >= 3 for x in m), 4 in m)


def _bits(ranks: Iterable[int]) -> int:
    m = 0
    for r in ranks:
        m |= 1 << (r - 2)
    return m


def six_card_class_counts() -> dict[SixCardClass, int]:
    """Count the best-five class of all 20,358,520 six-card sets by rank pattern."""
    counts = dict.fromkeys(_C, 0)
    # at most four ranks: the pattern alone gives the class
    for pattern in ((4, 2), (4, 1, 1), (3, 3), (3, 2, 1), (3, 1, 1, 1), (2, 2, 2),
                    (2, 2, 1, 1)):
        ranks = math.perm(13, len(pattern))
        for size in set(pattern):
            ranks //= math.factorial(pattern.count(size))
        suits = math.prod(math.comb(4, m) for m in pattern)
        counts[_pattern_class(pattern)] += ranks * suits
    # five ranks, one of them paired (five ways): 12 of 1,536 arrangements are flushes
    for ranks5 in itertools.combinations(range(2, 15), 5):
        m = _bits(ranks5)
        counts[_C.STRAIGHT if IS_STRAIGHT[m] else _C.PAIR] += 5 * (1536 - 12)
        counts[_flush_class(m)] += 5 * 12
    # six ranks: 4 arrangements in one suit, 12 for each rank left out of a five-suit
    for ranks6 in itertools.combinations(range(2, 15), 6):
        m = _bits(ranks6)
        counts[_C.STRAIGHT if IS_STRAIGHT[m] else _C.HIGH_CARD] += 4096 - 4 - 6 * 12
        counts[_flush_class(m)] += 4
        for r in ranks6:
            counts[_flush_class(m & ~(1 << (r - 2)))] += 12
    return counts


# ------------------------------------------------------------------ 6 Card Bonus, per hand

_DEALER_RANKS = tuple(itertools.combinations_with_replacement(range(2, 15), 3))


def _pattern_counts(ranks: tuple[int, ...]) -> dict[SixCardClass, int]:
    """Dealer hands per pairing class of the six ranks, alike for a whole rank pattern."""
    held = {r: ranks.count(r) for r in ranks}
    counts = dict.fromkeys(_C, 0)
    for d in _DEALER_RANKS:
        ways = 1
        both = dict(held)
        for r in set(d):
            k = d.count(r)
            ways *= math.comb(4 - held.get(r, 0), k)
            both[r] = both.get(r, 0) + k
        if ways:
            counts[_pattern_class(both.values())] += ways
    return counts


def _runs_holding(ranks: int) -> int:
    """How many of the ten 5-card straights hold every rank of ``ranks`` (a rank mask)."""
    return sum(run & ranks == ranks for run in STRAIGHT_RUNS)


def _sixes_holding() -> dict[int, int]:
    """Six-rank sets holding a straight, per set of three ranks they hold (rank masks)."""
    held: dict[int, int] = {}
    rank_bits = [1 << i for i in range(13)]
    sixes = {run | extra for run in STRAIGHT_RUNS for extra in rank_bits if not run & extra}
    for six in sixes:
        for t in itertools.combinations([b for b in rank_bits if six & b], 3):
            key = t[0] | t[1] | t[2]
            held[key] = held.get(key, 0) + 1
    return held


class _SixCounter:
    """Dealer hands per 6 Card Bonus class for hands of given kinds (docs/deck-counts.md)."""

    def __init__(self) -> None:
        self.patterns: dict[tuple[int, ...], dict[SixCardClass, int]] = {}
        self.by_ranks: dict[tuple[int, ...], dict[SixCardClass, int]] = {}
        self.sixes = _sixes_holding()

    def counts(self, kind: HandKind) -> dict[SixCardClass, int]:
        """Dealer hands per class for one hand of the kind (they sum to 18,424)."""
        ranks = kind.ranks
        got = self.by_ranks.get(ranks)
        if got is None:
            shape = tuple(sorted((ranks.count(r) for r in set(ranks)), reverse=True))
            if shape not in self.patterns:
                self.patterns[shape] = _pattern_counts(ranks)
            got = self.by_ranks[ranks] = self._rank_counts(ranks, self.patterns[shape])
        counts = dict(got)
        self._flush_moves(kind.cards, counts)
        return counts

    def _rank_counts(self, ranks: tuple[int, ...], pattern: dict[SixCardClass, int]
                     ) -> dict[SixCardClass, int]:
        """Dealer hands per class of the six ranks (no flush), for a hand of these ranks."""
        counts = dict(pattern)
        mask = _bits(ranks)
        distinct = mask.bit_count()
        moves: list[tuple[SixCardClass, int]] = []
        if distinct == 3:
            moves = [(_C.HIGH_CARD, 64 * self.sixes.get(mask, 0)),
                     (_C.PAIR, 192 * _runs_holding(mask))]
        elif distinct == 2:
            moves = [(_C.PAIR, 64 * _runs_holding(mask))]
        for cls, n in moves:
            counts[cls] -= n
            counts[_C.STRAIGHT] += n
        return counts

    def _flush_moves(self, hand: tuple[Card, Card, Card],
                     counts: dict[SixCardClass, int]) -> None:
        """Move the dealer hands that make five or six of one suit to their flush class."""
        by_suit: dict[str, list[int]] = {}
        for c in hand:
            by_suit.setdefault(c.suit, []).append(c.rank)
        suit, suited = max(by_suit.items(), key=lambda kv: len(kv[1]))
        if len(suited) < 2:
            return
        mine = _bits(suited)
        if len(suited) == 2:
            odd = _bits(c.rank for c in hand if c.suit != suit)
            runs = _runs_holding(mine)
            royal = int(mine & ROYAL_MASK == mine)
            counts[_C.ROYAL_FLUSH] += royal
            counts[_C.STRAIGHT_FLUSH] += runs - royal
            counts[_C.FLUSH] += 165 - runs
            if mine & odd:  # a pair: the odd card pairs one of the suited ones
                counts[_C.STRAIGHT] -= runs
                counts[_C.PAIR] -= 165 - runs
                return
            three = mine | odd
            paired, apart = _runs_holding(three), self.sixes.get(three, 0)
            counts[_C.STRAIGHT] -= paired + apart
            counts[_C.PAIR] -= 45 - paired
            counts[_C.HIGH_CARD] -= 120 - apart
            return
        others = [1 << i for i in range(13) if not mine >> i & 1]
        for t in itertools.combinations(others, 3):
            six = mine | sum(t)
            counts[_flush_class(six)] += 1
            counts[_C.STRAIGHT if IS_STRAIGHT[six] else _C.HIGH_CARD] -= 1
        for t in itertools.combinations(others, 2):
            five = mine | sum(t)
            for i in range(13):
                counts[_flush_class(five)] += 3
                counts[_old_class(five, 1 << i)] -= 3


def _old_class(suited: int, extra: int) -> SixCardClass:
    """The class the ranks alone give to five suited ranks plus one more rank (bit mask)."""
    if suited & extra:
        return _C.STRAIGHT if IS_STRAIGHT[suited] else _C.PAIR
    return _C.STRAIGHT if IS_STRAIGHT[suited | extra] else _C.HIGH_CARD


def dealer_six_card_counts(kinds: Iterable[HandKind]) -> dict[SixCardClass, int]:
    """6 Card Bonus classes of every (hand, dealer hand) pair of the kinds' hands, by weight."""
    totals = dict.fromkeys(_C, 0)
    counter = _SixCounter()
    for k in kinds:
        for cls, n in counter.counts(k).items():
            totals[cls] += k.weight * n
    return totals


class Counted:
    """The deck's counts, counted when first asked for and kept (a ``DeckCounts``)."""

    def __init__(self) -> None:
        self._kinds: tuple[HandKind, ...] | None = None

    def kinds(self) -> Sequence[HandKind]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        if self._kinds is None:
            self._kinds = hand_kinds()
        return self._kinds

    def dealer_counts(self, qualifier: Qualifier) -> Sequence[DealerCounts]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        return [d for (d,) in dealer_counts(self.kinds(), [qualifier])]

    def six_card(self) -> Mapping[SixCardClass, int]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        return six_card_class_counts()

    def dealer_six_card(self, kinds: Iterable[int]) -> Mapping[SixCardClass, int]:
        """See :class:`~controller.game.deck_counts.DeckCounts`."""
        every = self.kinds()
        return dealer_six_card_counts(every[i] for i in kinds)


def counted_text() -> str:
    """The text of ``deck_counts.json``, counted now (for every qualifier)."""
    kinds = hand_kinds()
    dealer = dealer_counts(kinds, [Qualifier(q) for q in QUALIFIERS])
    counter = _SixCounter()
    return stored_text(kinds, dealer, [counter.counts(k) for k in kinds],
                       six_card_class_counts())


if __name__ == "__main__":  # write the stored counts: python -m controller.game.counting
    import hashlib
    import sys

    text = counted_text()
    sys.stdout.write(text)
    print(f"sha256 {hashlib.sha256(text.encode()).hexdigest()}", file=sys.stderr)
