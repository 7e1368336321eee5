"""The deck's exact counts a par sheet is made of, and the stored copy of them.

Start-up reads ``deck_counts.json``, checked against its SHA-256, so the table counts nothing
(R3); docs/deck-counts.md gives the method and the format.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

import msgspec

from controller.game.cards import CARDS_BY_TEXT, Card, CardError
from controller.game.hands import (
    VALUES_BY_MASK,
    HandValue,
    Qualifier,
    SixCardClass,
    card_mask,
)

_C = SixCardClass
N_HANDS = math.comb(52, 3)
N_DEALER = math.comb(49, 3)
N_SIX_CARD_SETS = math.comb(52, 6)
# (player hand, dealer hand) pairs sharing no card; each six-card set split 20 ways (C(6,3)).
N_HAND_PAIRS = N_HANDS * N_DEALER

# Best-five class counts of all C(52,6) sets as docs/rules.md publishes them.
SIX_CARD_COUNTS: dict[SixCardClass, int] = {
    _C.ROYAL_FLUSH: 188, _C.STRAIGHT_FLUSH: 1_656, _C.FOUR_OF_A_KIND: 14_664,
    _C.FULL_HOUSE: 165_984, _C.FLUSH: 205_792, _C.STRAIGHT: 361_620,
    _C.THREE_OF_A_KIND: 732_160, _C.TWO_PAIR: 2_532_816, _C.PAIR: 9_730_740,
    _C.HIGH_CARD: 6_612_900,
}

# Best-five classes of every (folded hand, dealer hand) pair, the folded hands being the 7,200
# below Q-6-4: 132,652,800 pairs (docs/rules.md quotes the paying ones).
Q64_FOLDED_SIX_COUNTS: dict[SixCardClass, int] = {
    _C.ROYAL_FLUSH: 84, _C.STRAIGHT_FLUSH: 6_444, _C.FOUR_OF_A_KIND: 21_600,
    _C.FULL_HOUSE: 388_800, _C.FLUSH: 706_272, _C.STRAIGHT: 3_107_376,
    _C.THREE_OF_A_KIND: 2_880_000, _C.TWO_PAIR: 11_858_400, _C.PAIR: 61_485_336,
    _C.HIGH_CARD: 52_198_488,
}

STORED_SHA256 = "06ab03cbb4d7735ce8a4af88d0c009dc0795efb156f4536c1867c904798e4c05"

QUALIFIERS = ("pair", *(f"{r}-high" for r in "56789TJQKA"))


class DeckCountsError(ValueError):
    """The stored counts are missing, changed or damaged (the message says which)."""


@dataclass(frozen=True, slots=True)
class HandKind:
    """The 3-card hands that differ only by a renaming of suits (``weight``: 4, 12 or 24 hands)."""

    cards: tuple[Card, Card, Card]
    weight: int
    value: HandValue

    @property
    def ranks(self) -> tuple[int, int, int]:
        """The ranks, high to low (2..14)."""
        return (self.cards[0].rank, self.cards[1].rank, self.cards[2].rank)


@dataclass(frozen=True, slots=True)
class DealerCounts:
    """How the 18,424 dealer hands that share no card with one player hand stand to it."""

    weaker: int
    tied: int
    not_qualifying: int

    def outcomes(self, hand_qualifies: bool) -> tuple[int, int, int, int]:
        """(dealer not qualifying, weaker, tie, stronger) for a hand that qualifies or not."""
        nq = self.not_qualifying
        if not hand_qualifies:
            return nq, 0, 0, N_DEALER - nq
        return nq, self.weaker - nq, self.tied, N_DEALER - self.weaker - self.tied


class DeckCounts(Protocol):
    """Where a par sheet's counts come from."""

    def kinds(self) -> Sequence[HandKind]:
        """The 1,755 suit classes of 3-card hands; their weights sum to 22,100."""

    def dealer_counts(self, qualifier: Qualifier) -> Sequence[DealerCounts]:
        """For each kind (in :meth:`kinds` order), its dealer hands under ``qualifier``."""

    def six_card(self) -> Mapping[SixCardClass, int]:
        """Best-five class counts of all 20,358,520 six-card sets."""

    def dealer_six_card(self, kinds: Iterable[int]) -> Mapping[SixCardClass, int]:
        """Best-five class counts of every (hand, dealer hand) pair, for kinds given by position."""


def stored_text(kinds: Sequence[HandKind], dealer: Sequence[Sequence[DealerCounts]],
                six_by_kind: Sequence[Mapping[SixCardClass, int]],
                six_card: Mapping[SixCardClass, int]) -> str:
    """The text of ``deck_counts.json``, one kind a line (docs/deck-counts.md)."""
    classes = list(SixCardClass)
    head = {"counts": "exact counts of the deck for the par sheet (controller.game.deck_counts)",
            "qualifiers": list(QUALIFIERS),
            "six_card_classes": [c.key for c in classes],
            "six_card_sets": [six_card[c] for c in classes],
            "kind": ["hand", "weight", "weaker", "tied", "not_qualifying per qualifier",
                     "six_card_bonus per class"]}
    lines = [json.dumps(head, separators=(",", ":"))]
    for k, d, six in zip(kinds, dealer, six_by_kind, strict=True):
        assert all(x.weaker == d[0].weaker and x.tied == d[0].tied for x in d)
        lines.append(json.dumps([" ".join(map(str, k.cards)), k.weight, d[0].weaker,
                                 d[0].tied, [x.not_qualifying for x in d],
                                 [six[c] for c in classes]], separators=(",", ":")))
    return "{\"head\":" + lines[0] + ",\n\"kinds\":[\n" + ",\n".join(lines[1:]) + "]}\n"


class StoredCounts:
    """The counts stored in ``deck_counts.json`` (DeckCountsError: missing, wrong digest or sum)."""

    def __init__(self, data: bytes | None = None, sha256: str = STORED_SHA256) -> None:
        name = "controller/game/deck_counts.json"
        if data is None:
            try:
                data = (resources.files("controller.game") / "deck_counts.json").read_bytes()
            except OSError as exc:
                raise DeckCountsError(f"{name}: cannot be read ({exc}); reinstall the "
                                      "package") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise DeckCountsError(f"{name}: does not match its SHA-256: the file was changed "
                                  "or damaged; reinstall the package")
        try:
            self._load(msgspec.json.decode(data))
        except (ValueError, KeyError, TypeError, IndexError, CardError,
                msgspec.DecodeError) as exc:
            raise DeckCountsError(f"{name}: not readable: {exc}") from None

    def _load(self, doc: dict[str, Any]) -> None:
        head = doc["head"]
        if head["qualifiers"] != list(QUALIFIERS) or head["six_card_classes"] != [
                c.key for c in SixCardClass]:
            raise ValueError("another list of qualifiers or classes")
        self._qualifiers = {Qualifier(q).min_strength: i for i, q in enumerate(QUALIFIERS)}
        self._six = dict(zip(SixCardClass, head["six_card_sets"], strict=True))
        kinds, rows, six = [], [], []
        # a KeyError: not a card's text, or not three distinct cards
        card, value = CARDS_BY_TEXT.__getitem__, VALUES_BY_MASK.__getitem__
        for text, weight, weaker, tied, nq, six_row in doc["kinds"]:
            cards: Any = tuple(map(card, text.split(" ")))
            kinds.append(HandKind(cards, weight, value(card_mask(cards))))
            rows.append((weaker, tied, tuple(nq)))
            six.append(tuple(six_row))
            if len(nq) != len(QUALIFIERS) or sum(six_row) != N_DEALER:
                raise ValueError(f"the counts of {text} do not add up")
        # each (hand, dealer hand) pair seen from both sides: as many pairs where the
        # hand is the weaker as where it is the stronger; every hand that does not
        # qualify is a dealer hand to 18,424 hands; every six-card set is 20 pairs
        weights = [k.weight for k in kinds]

        def weighted(column: Iterable[int]) -> int:
            return sum(map(operator.mul, weights, column))

        weaker, tied, nq_rows = zip(*rows, strict=True)
        if weighted(weaker) != N_HANDS * N_DEALER - weighted(weaker) - weighted(tied):
            raise ValueError("the weaker and the stronger dealer hands do not add up")
        strengths = [k.value.strength for k in kinds]
        for q, column in zip(QUALIFIERS, zip(*nq_rows, strict=True), strict=True):
            low = Qualifier(q).min_strength
            below = sum(w for w, s in zip(weights, strengths, strict=True) if s < low)
            if weighted(column) != below * N_DEALER:
                raise ValueError(f"the counts under the qualifier {q} do not add up")
        totals = [weighted(column) for column in zip(*six, strict=True)]
        if (sum(weights) != N_HANDS or self._six != SIX_CARD_COUNTS
                or totals != [20 * SIX_CARD_COUNTS[c] for c in SixCardClass]):
            raise ValueError("the counts do not add up to the deck's")
        self._kinds, self._rows, self._six_by_kind = tuple(kinds), rows, six

    def kinds(self) -> Sequence[HandKind]:
        """See :class:`DeckCounts`."""
        return self._kinds

    def dealer_counts(self, qualifier: Qualifier) -> Sequence[DealerCounts]:
        """See :class:`DeckCounts`."""
        i = self._qualifiers[qualifier.min_strength]
        return [DealerCounts(w, t, nq[i]) for w, t, nq in self._rows]

    def six_card(self) -> Mapping[SixCardClass, int]:
        """See :class:`DeckCounts`."""
        return dict(self._six)

    def dealer_six_card(self, kinds: Iterable[int]) -> Mapping[SixCardClass, int]:
        """See :class:`DeckCounts`."""
        totals = [0] * len(SixCardClass)
        for i in kinds:
            w = self._kinds[i].weight
            for j, n in enumerate(self._six_by_kind[i]):
                totals[j] += w * n
        return dict(zip(SixCardClass, totals, strict=True))


@functools.cache
def stored_counts() -> StoredCounts:
    """The counts shipped with the package, read and checked once per process."""
    return StoredCounts()
