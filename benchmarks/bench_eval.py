"""Hand evaluation: ours against pokerkit, treys and phevaluator, same machine, same run.

Figures:
* 3-card evaluation over all 22,100 hands (Three Card Poker ranking: a straight beats a
  flush, A-2-3 is the lowest straight). Peers that cannot rank 3-card hands are marked n/a.
* 6 Card Bonus classification (best five of six cards) over all 20,358,520 six-card sets:
  ours enumerates every set; the peers evaluate one set per Python call, so they are timed
  on a seeded random sample and their throughput is extrapolated (labelled so). Every
  peer's class counts on the sample are checked against ours.

Run: ``python benchmarks/bench_eval.py [--json] [--quick]``.
"""

from __future__ import annotations

import itertools
import math
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, figure, na, parser, rate_stats, show, time_runs  # noqa: E402

from controller.game.cards import DECK  # noqa: E402
from controller.game.enumeration import classify_six, six_card_class_counts  # noqa: E402
from controller.game.hands import HandClass, SixCardClass, evaluate3  # noqa: E402

N3 = math.comb(52, 3)
N6 = math.comb(52, 6)
RULES_SIX_COUNTS = {
    "royal_flush": 188, "straight_flush": 1656, "four_of_a_kind": 14664,
    "full_house": 165984, "flush": 205792, "straight": 361620, "three_of_a_kind": 732160,
    "two_pair": 2532816, "pair": 9730740, "high_card": 6612900,
}
RULES_THREE_COUNTS = {"straight_flush": 48, "three_of_a_kind": 52, "straight": 720,
                      "flush": 1096, "pair": 3744, "high_card": 16440}

# Cactus-Kev style 5-card rank (1 = royal flush .. 7462 = worst high card), used by both
# treys and phevaluator: the last rank of each class, best class first.
_KEV_LAST = [(1, SixCardClass.ROYAL_FLUSH), (10, SixCardClass.STRAIGHT_FLUSH),
             (166, SixCardClass.FOUR_OF_A_KIND), (322, SixCardClass.FULL_HOUSE),
             (1599, SixCardClass.FLUSH), (1609, SixCardClass.STRAIGHT),
             (2467, SixCardClass.THREE_OF_A_KIND), (3325, SixCardClass.TWO_PAIR),
             (6185, SixCardClass.PAIR), (7462, SixCardClass.HIGH_CARD)]


def _kev_class_table() -> list[int]:
    table = [-1] * 7463
    lo = 1
    for last, cls in _KEV_LAST:
        for r in range(lo, last + 1):
            table[r] = int(cls)
        lo = last + 1
    return table


KEV_CLASS = _kev_class_table()


def _kev_classes(evaluate: Callable[..., int], sets: Iterable[Sequence[int]]) -> Counter:
    """Class counts of ``sets`` (card indices) by a Cactus Kev evaluator of six cards."""
    c: Counter = Counter()
    for s in sets:
        c[KEV_CLASS[evaluate(*s)]] += 1
    return c


def _count_names(counts: dict[int, int] | Counter, enum: Any) -> dict[str, int]:
    return {enum(k).key: int(v) for k, v in sorted(counts.items(), reverse=True) if v}


# ---------------------------------------------------------------- 3-card hands

def three_card(runs: int, notes: list[str]) -> dict[str, Any]:
    hands = list(itertools.combinations(DECK, 3))

    def ours() -> list[Any]:
        return [evaluate3(h) for h in hands]

    times, values = time_runs(ours, runs)
    counts = Counter(v.hand_class for v in values)
    got = _count_names(counts, HandClass)
    if got != RULES_THREE_COUNTS:
        notes.append(f"OUR 3-CARD COUNTS DIFFER FROM docs/rules.md: {got}")
    peers: dict[str, Any] = {}
    try:
        from pokerkit import Card as PkCard
        from pokerkit import Label, RhodeIslandHoldemHand
    except ImportError as exc:
        peers["pokerkit"] = na(f"not installed ({exc})")
    else:
        pk_hands = [tuple(PkCard.parse("".join(map(str, h)))) for h in hands]
        label_class = {Label.HIGH_CARD: HandClass.HIGH_CARD, Label.ONE_PAIR: HandClass.PAIR,
                       Label.FLUSH: HandClass.FLUSH, Label.STRAIGHT: HandClass.STRAIGHT,
                       Label.THREE_OF_A_KIND: HandClass.THREE_OF_A_KIND,
                       Label.STRAIGHT_FLUSH: HandClass.STRAIGHT_FLUSH}

        def pokerkit_all() -> list[Any]:
            return [RhodeIslandHoldemHand(h) for h in pk_hands]

        pk_times, pk_values = time_runs(pokerkit_all, max(2, runs // 2))
        pk_counts = Counter(label_class[v.entry.label] for v in pk_values)
        agree = _count_names(pk_counts, HandClass) == got
        # same order? ours strength -> pokerkit index must be one-to-one and increasing
        pairs = sorted({(evaluate3(h).strength, v.entry.index) for h, v in zip(hands, pk_values,
                                                                               strict=True)})
        order_ok = (len({s for s, _ in pairs}) == len(pairs) == len({i for _, i in pairs})
                    and all(a[1] < b[1] for a, b in itertools.pairwise(pairs)))
        peers["pokerkit"] = rate_stats(
            pk_times, N3, "RhodeIslandHoldemHand (3-card ranking, same class order); "
            f"class counts {'agree' if agree else 'DIFFER'}, hand order "
            f"{'identical' if order_ok else 'DIFFERS'}")
    peers["treys"] = na("evaluates 5 to 7 cards only (and ranks a flush above a straight)")
    peers["phevaluator"] = na("evaluates 5 to 7 cards only (and ranks a flush above a straight)")
    return figure("3-card evaluation, all 22,100 hands", "hands/s", "higher",
                  rate_stats(times, N3, "evaluate3() per hand, class and tie-break strength"),
                  peers, "one Python call per hand for everyone; inputs pre-parsed")


# ---------------------------------------------------------------- 6-card sets

def _sample(n: int, seed: int = 7) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(range(52), 6))) for _ in range(n)]


def six_card(runs: int, quick: bool, notes: list[str]) -> list[dict[str, Any]]:
    times, counts = time_runs(six_card_class_counts, runs)
    got = {c.key: n for c, n in sorted(counts.items(), reverse=True)}
    if got != RULES_SIX_COUNTS:
        notes.append(f"OUR 6-CARD COUNTS DIFFER FROM docs/rules.md: {got}")
    n_big = 50_000 if quick else 200_000
    n_small = 4_000 if quick else 20_000
    sample = _sample(n_big)
    arr = np.array(sample, dtype=np.intp)
    # our card index is (rank-2)*4 + suit, the same numbering phevaluator uses
    ours_sample = np.bincount(classify_six(arr), minlength=len(SixCardClass))
    ref = {c: int(ours_sample[c]) for c in SixCardClass}
    ref_small = Counter(int(x) for x in classify_six(arr[:n_small]))
    peer_runs = 2 if quick else 3

    def check(name: str, got: Counter, small: bool) -> str:
        want = ref_small if small else ref
        ok = all(got.get(int(c), 0) == want.get(int(c), 0) for c in SixCardClass)
        if not ok:
            notes.append(f"{name}: class counts on the sample DIFFER from ours: "
                         f"{_count_names(got, SixCardClass)}")
        return "class counts agree with ours" if ok else "class counts DIFFER from ours"

    peers: dict[str, Any] = {}
    try:
        from phevaluator import evaluate_cards
    except ImportError as exc:
        peers["phevaluator"] = na(f"not installed ({exc})")
    else:
        t, c = time_runs(lambda: _kev_classes(evaluate_cards, sample), peer_runs)
        peers["phevaluator"] = rate_stats(
            t, n_big, f"evaluate_cards (6 cards); random sample of {n_big:,} sets, "
            f"extrapolated; {check('phevaluator', c, False)}")
        try:
            from phevaluator import _pheval  # the C core behind evaluate_cards
        except ImportError:
            pass
        else:
            ev6 = _pheval.evaluate_6cards
            t, c = time_runs(lambda: _kev_classes(ev6, sample), peer_runs)
            peers["phevaluator C core"] = rate_stats(
                t, n_big, f"private _pheval.evaluate_6cards, no argument conversion (its best "
                f"case); random sample of {n_big:,} sets, extrapolated; "
                f"{check('phevaluator core', c, False)}")
            if not quick:
                t, c = time_runs(
                    lambda: _kev_classes(ev6, itertools.combinations(range(52), 6)), 1,
                    warmup=0)
                full = _count_names(c, SixCardClass)
                peers["phevaluator C core, all sets"] = rate_stats(
                    t, N6, "every one of the 20,358,520 sets via itertools, one run; counts "
                    + ("match docs/rules.md" if full == RULES_SIX_COUNTS else f"DIFFER: {full}"))
    try:
        from treys import Card as TreysCard
        from treys import Evaluator
    except ImportError as exc:
        peers["treys"] = na(f"not installed ({exc})")
    else:
        ev = Evaluator()
        tc = [TreysCard.new(str(c)) for c in DECK]
        tsample = [[tc[i] for i in s] for s in sample]

        def tr() -> Counter:
            c: Counter = Counter()
            for s in tsample:
                c[KEV_CLASS[ev.evaluate(s[:2], s[2:])]] += 1
            return c

        t, c = time_runs(tr, peer_runs)
        peers["treys"] = rate_stats(
            t, n_big, f"Evaluator.evaluate(2 + 4 cards), best of the 6 fives; random sample of "
            f"{n_big:,} sets, extrapolated; {check('treys', c, False)}")
    try:
        from pokerkit import Card as PkCard
        from pokerkit import Label, StandardHighHand
    except ImportError as exc:
        peers["pokerkit"] = na(f"not installed ({exc})")
    else:
        pc = [next(iter(PkCard.parse(str(c)))) for c in DECK]
        psample = [[pc[i] for i in s] for s in sample[:n_small]]
        royal = StandardHighHand.lookup.get_entry("AsKsQsJsTs").index
        lab = {Label.HIGH_CARD: SixCardClass.HIGH_CARD, Label.ONE_PAIR: SixCardClass.PAIR,
               Label.TWO_PAIR: SixCardClass.TWO_PAIR,
               Label.THREE_OF_A_KIND: SixCardClass.THREE_OF_A_KIND,
               Label.STRAIGHT: SixCardClass.STRAIGHT, Label.FLUSH: SixCardClass.FLUSH,
               Label.FULL_HOUSE: SixCardClass.FULL_HOUSE,
               Label.FOUR_OF_A_KIND: SixCardClass.FOUR_OF_A_KIND,
               Label.STRAIGHT_FLUSH: SixCardClass.STRAIGHT_FLUSH}

        def pk() -> Counter:
            c: Counter = Counter()
            for s in psample:
                e = StandardHighHand.from_game(s).entry
                c[int(SixCardClass.ROYAL_FLUSH if e.index == royal else lab[e.label])] += 1
            return c

        t, c = time_runs(pk, max(2, peer_runs - 1), warmup=0)
        peers["pokerkit"] = rate_stats(
            t, n_small, f"StandardHighHand.from_game(6 cards); random sample of {n_small:,} "
            f"sets (it is slow), extrapolated; {check('pokerkit', c, True)}")

    t_s, _ = time_runs(lambda: np.bincount(classify_six(arr), minlength=10), runs)
    sample_peers = {k: v for k, v in peers.items() if "all sets" not in k}
    return [
        figure("6 Card Bonus classification, all 20,358,520 sets", "sets/s", "higher",
               rate_stats(times, N6, "six_card_class_counts(): vectorised bit-sliced NumPy "
                          "classifier over every set (generation included); counts "
                          + ("match docs/rules.md" if got == RULES_SIX_COUNTS else "DIFFER")),
               peers, "peers: one Python call per set; sample throughput extrapolated to the "
               "full enumeration (full time = 20,358,520 / rate)"),
        figure(f"6 Card Bonus classification, the same random sample of {n_big:,} sets",
               "sets/s", "higher",
               rate_stats(t_s, n_big, "classify_six() on the sample's card indexes"),
               sample_peers, "ours on exactly the sets the peers evaluate (pokerkit on the "
               f"first {n_small:,})"),
    ]


def main() -> int:
    args = parser(__doc__.splitlines()[0]).parse_args()
    runs = 3 if args.quick else 7
    notes: list[str] = []
    figures = [three_card(runs, notes), *six_card(3 if args.quick else 5, args.quick, notes)]
    (emit if args.json else show)("eval", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
