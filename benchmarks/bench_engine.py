"""Engine benchmark: par sheet wall time, 3-card and 6-card throughput, settle rounds/s.

Usage: python benchmarks/bench_engine.py [--json] [--repeat N]
Prints a readable table, or with --json one JSON object of figures (medians with spread).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import time

import numpy as np

from controller.cards import DECK
from controller.enumeration import N_SIX_CARD_SETS, classify_six, six_card_class_counts
from controller.hands import all_hands3, evaluate3
from controller.par_sheet import compute_par_sheet
from controller.rules import load_profile
from controller.settle_cli import settle_stream


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "runs": len(values)}


def settle_input(n, seed=1):
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        cards = rng.sample(DECK, 6)
        lines.append(json.dumps({"player": [str(c) for c in cards[:3]],
                                 "dealer": [str(c) for c in cards[3:]],
                                 "bets": {"ante": 100, "pair_plus": 25, "six_card_bonus": 25},
                                 "decision": rng.choice(["play", "fold"])}))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    live = load_profile("live")
    hands = [cards for cards, _ in all_hands3()]

    par = timed(lambda: compute_par_sheet(live), args.repeat)
    three = timed(lambda: [evaluate3(h) for h in hands], args.repeat)
    six_all = timed(six_card_class_counts, args.repeat)
    sample = np.array([[c.index for c in random.Random(i).sample(DECK, 6)]
                       for i in range(200_000)])
    six_rows = timed(lambda: classify_six(sample), args.repeat)
    n_settle = 20_000
    text = settle_input(n_settle)

    def do_settle():
        settle_stream(live, io.StringIO(text), io.StringIO())
    settle = timed(do_settle, args.repeat)

    figures = {
        "par_sheet_live_s": summary(par),
        "three_card_evals_per_s": summary([len(hands) / t for t in three]),
        "six_card_all_sets_s": summary(six_all),
        "six_card_classifications_per_s": summary([N_SIX_CARD_SETS / t for t in six_all]),
        "six_card_rows_per_s_random_sample": summary([len(sample) / t for t in six_rows]),
        "settle_rounds_per_s": summary([n_settle / t for t in settle]),
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{'figure':40} {'median':>14} {'min':>14} {'max':>14}")
    for name, f in figures.items():
        print(f"{name:40} {f['median']:>14,.3f} {f['min']:>14,.3f} {f['max']:>14,.3f}")
    print("targets: par sheet < 5 s; settle >= 10,000 rounds/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
