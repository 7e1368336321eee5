"""The full ``live`` par sheet: ours against a plain, obviously-correct enumeration.

Ours counts (``controller.game.counting``): the 6 Card Bonus classes of the 20,358,520
six-card sets by rank pattern and suit arrangement (timed on its own too, against the NumPy
enumeration the tests hold it to), the dealer hands of each of the 1,755 suit classes of
player hands by inclusion-exclusion. ``threecard par-sheet --rules live --json`` is timed
as a user runs it, process start included (target: at most 0.5 s).

The plain enumeration below is written to be read, not to be fast: for every player hand
it walks every one of the 18,424 dealer hands that share no card with it and counts
outcomes; it derives play/fold by comparing the two expected values; it sums Pair Plus over
the 22,100 hands; and it classifies every one of the 20,358,520 six-card sets with the
scalar ``best_five_of_six``. Its returns must equal ours exactly (fractions).

Run: ``python benchmarks/bench_par_sheet.py [--json] [--quick] [--plain-runs N]``.
``--quick`` times the plain enumeration on a systematic sample (every k-th player hand and
six-card set) and extrapolates; the full run times it 3 times by default (minutes each).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, figure, na, parser, show, stats, time_runs  # noqa: E402

from controller.game.cards import DECK  # noqa: E402
from controller.game.hands import best_five_of_six, evaluate3  # noqa: E402
from controller.game.rules import RuleProfile, load_profile  # noqa: E402

N3 = math.comb(52, 3)
N_DEALER = math.comb(49, 3)
N6 = math.comb(52, 6)


def plain_par_sheet(profile: RuleProfile, hand_step: int = 1,
                    set_step: int = 1) -> tuple[dict[str, Fraction], dict[str, float]]:
    """Plain enumeration of the three bets (every ``hand_step``-th player hand and every
    ``set_step``-th six-card set; 1 = all).

    Returns:
        Returns to player (exact when both steps are 1) and the seconds spent per part.
    """
    secs: dict[str, float] = {}
    t0 = time.perf_counter()
    # strength of every 3-card hand, by its three card indexes (a < b < c)
    strength = [[[0] * 52 for _ in range(52)] for _ in range(52)]
    value = {}
    for hand in itertools.combinations(range(52), 3):
        v = evaluate3([DECK[i] for i in hand])
        strength[hand[0]][hand[1]][hand[2]] = v.strength
        value[hand] = v
    qualify = profile.qualifier.min_strength
    secs["setup"] = time.perf_counter() - t0

    # Ante / Play: per player hand, count dealer outcomes over the disjoint dealer hands
    t0 = time.perf_counter()
    total = 0  # sum over player hands of the best EV, in units of 1 / N_DEALER per Ante
    hands = list(itertools.combinations(range(52), 3))[::hand_step]
    for hand in hands:
        mine = strength[hand[0]][hand[1]][hand[2]]
        rest = [i for i in range(52) if i not in hand]
        no_qualify = win = lose = push = 0
        for i, a in enumerate(rest):
            row_a = strength[a]
            for j in range(i + 1, 49):
                row_ab = row_a[rest[j]]
                for c in rest[j + 1:]:
                    theirs = row_ab[c]
                    if theirs < qualify:
                        no_qualify += 1  # Ante wins, Play pushes
                    elif mine > theirs:
                        win += 1  # Ante and Play win
                    elif mine < theirs:
                        lose += 1  # Ante and Play lose
                    else:
                        push += 1
        assert no_qualify + win + lose + push == N_DEALER
        bonus = profile.ante_bonus_pay(value[hand].hand_class)
        play = bonus * N_DEALER + no_qualify + 2 * win - 2 * lose
        fold = -N_DEALER
        total += max(play, fold)
    rtp: dict[str, Fraction] = {"ante_play": 1 + Fraction(total, len(hands) * N_DEALER)}
    secs["ante_play"] = time.perf_counter() - t0

    # Pair Plus: the player's three cards alone
    t0 = time.perf_counter()
    net = 0
    for hand in itertools.combinations(range(52), 3):
        v = value[hand]
        pay = profile.pair_plus_pay(v.hand_class, v.mini_royal)
        net += pay if pay else -1
    rtp["pair_plus"] = 1 + Fraction(net, N3)
    secs["pair_plus"] = time.perf_counter() - t0

    # 6 Card Bonus: every six-card set is equally likely (each is 20 player/dealer splits)
    if profile.offers_six_card_bonus:
        t0 = time.perf_counter()
        net = n = 0
        for six in itertools.islice(itertools.combinations(DECK, 6), 0, None, set_step):
            pay = profile.six_card_pay(best_five_of_six(six))
            net += pay if pay else -1
            n += 1
        rtp["six_card_bonus"] = 1 + Fraction(net, n)
        secs["six_card_bonus"] = time.perf_counter() - t0
    return rtp, secs


def ours_in_process(profile: RuleProfile) -> tuple[Any, dict[str, Fraction]] | None:
    try:
        from controller.game.par_sheet import compute_par_sheet
    except ImportError:
        return None

    def run() -> dict[str, Fraction]:
        sheet = compute_par_sheet(profile)
        out = {"ante_play": sheet.ante_play.rtp, "pair_plus": sheet.pair_plus.rtp}
        if sheet.six_card_bonus is not None:
            out["six_card_bonus"] = sheet.six_card_bonus.rtp
        return out

    return run, run()


def cli_time(runs: int) -> dict[str, Any]:
    exe = shutil.which("threecard") or str(Path(sys.executable).with_name("threecard"))
    cmd = [exe, "par-sheet", "--rules", "live", "--json"]
    times, cpu = [], []
    for _ in range(runs):
        before = os.times()
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        times.append(time.perf_counter() - t0)
        after = os.times()
        cpu.append(after.children_user + after.children_system - before.children_user
                   - before.children_system)
        if p.returncode != 0:
            return na(f"`threecard par-sheet` failed: {(p.stderr or p.stdout).strip()[-200:]}")
        json.loads(p.stdout)
    return stats(times, "`threecard par-sheet --rules live --json`, whole process, counted "
                 f"afresh; CPU time (user + system) median {statistics.median(cpu):.3f} s")


def six_card_counts(runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Seconds to count the 6 Card Bonus classes of all sets: ours, and NumPy enumerating."""
    from controller.game import counting, enumeration

    ours, got = time_runs(counting.six_card_class_counts, runs)
    theirs, want = time_runs(enumeration.six_card_class_counts, max(2, runs // 2), warmup=0)
    same = "the same counts" if got == want else "DIFFERENT COUNTS"
    return (stats(ours, f"by rank pattern and suit arrangement, plain Python; {same}"),
            stats(theirs, "NumPy, every set classified in blocks of 65,536"))


def main() -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--plain-runs", type=int, default=None,
                    help="repeats of the plain enumeration (default 3; --quick: 2 sampled)")
    args = ap.parse_args()
    profile = load_profile("live")
    notes: list[str] = []
    runs = 3 if args.quick else 5
    found = ours_in_process(profile)
    if found is None:
        ours = na("controller.game.par_sheet.compute_par_sheet is not available yet")
        ours_rtp: dict[str, Fraction] = {}
    else:
        fn, ours_rtp = found
        times, _ = time_runs(fn, runs, warmup=0)
        ours = stats(times, "compute_par_sheet(live), every count counted afresh: Ante/Play "
                     "strategy derived over all 22,100 x 18,424 hands, Pair Plus, 6 Card Bonus "
                     "over all sets and over the folded hands' sets")

    step_hand, step_set = (50, 50) if args.quick else (1, 1)
    plain_runs = args.plain_runs or (2 if args.quick else 3)
    plain_times: list[float] = []
    plain_rtp: dict[str, Fraction] = {}
    parts: dict[str, float] = {}
    for _ in range(plain_runs):
        plain_rtp, secs = plain_par_sheet(profile, step_hand, step_set)
        est = (secs["setup"] + secs["ante_play"] * step_hand + secs["pair_plus"]
               + secs.get("six_card_bonus", 0.0) * step_set)
        plain_times.append(est)
        parts = secs
    label = ("plain Python enumeration in this benchmark"
             + (f"; timed on every {step_hand}th player hand and six-card set, extrapolated"
                if step_hand > 1 else "; every hand and set") + "; parts (s): "
             + ", ".join(f"{k} {v * (step_hand if k in ('ante_play', 'six_card_bonus') else 1):.1f}"
                         for k, v in parts.items()))
    plain = stats(plain_times, label)

    if ours_rtp:
        for bet, want in plain_rtp.items():
            have = ours_rtp.get(bet)
            if step_hand == 1:
                ok = have == want
                notes.append(f"{bet}: ours {float(have):.6f}, plain {float(want):.6f}: "
                             + ("identical (exact fractions)" if ok else "DIFFERENT"))
            elif bet == "pair_plus":
                notes.append(f"pair_plus: ours {float(have):.6f}, plain {float(want):.6f}: "
                             + ("identical" if have == want else "DIFFERENT"))
            else:
                notes.append(f"{bet}: ours {float(have):.6f}, plain on a 1/{step_hand} sample "
                             f"{float(want):.6f} (sample, not expected to match exactly)")
    figures = [figure("par sheet `live`, wall time", "s", "lower", ours,
                      {"plain enumeration": plain},
                      "both in-process, same profile; ratio = plain time / our time")]
    ours6, numpy6 = six_card_counts(runs)
    figures.append(figure("6 Card Bonus class counts of all 20,358,520 sets", "s", "lower",
                          ours6, {"NumPy enumeration (the tests' oracle)": numpy6},
                          "target: well under 0.1 s"))
    cli_runs = 3 if args.quick else 5
    try:
        cli = cli_time(cli_runs) if found is not None else na("not available yet")
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
        cli = na(f"`threecard par-sheet` not runnable: {exc}")
    figures.append(figure("`threecard par-sheet --rules live --json`, wall time", "s", "lower",
                          cli, note="target: at most 0.5 s; the command as a user runs it, "
                          "process start included"))
    (emit if args.json else show)("par_sheet", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
