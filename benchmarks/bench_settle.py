"""Settlement throughput: ``threecard settle`` (JSON Lines) against a plain JSON pipe, and
the ``settle()`` function.

A "round" here is one input line: one seat (Ante, Pair Plus, 6 Card Bonus, the Q-6-4
decision) against a dealer hand, dealt from a seeded shuffle.

The plain pipe is the least any JSON Lines filter does: a Python process that reads each
line with ``json.loads`` and writes it back with ``json.dumps``. It runs on the same lines
in the same run, each repeat right before ``threecard settle``; the ratio of their
throughputs (target: at least 1.0) is taken per repeat, so both meet the same machine.

Run: ``python benchmarks/bench_settle.py [--json] [--quick]``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, figure, na, parser, rate_stats, show, stats, time_runs  # noqa: E402

from controller.game.cards import DECK  # noqa: E402
from controller.game.hands import evaluate3  # noqa: E402
from controller.game.rules import load_profile  # noqa: E402
from controller.game.settlement import Bets, Decision, settle  # noqa: E402

PLAIN = ("import json, sys\n"
         "out = sys.stdout\n"
         "for line in sys.stdin:\n"
         "    out.write(json.dumps(json.loads(line)) + '\\n')\n")

Q64 = evaluate3([c for c in DECK if (c.rank, c.suit) in ((12, "c"), (6, "d"), (4, "h"))])


def rounds(n: int, seed: int = 11) -> list[tuple[list, list, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cards = rng.sample(DECK, 6)
        player, dealer = cards[:3], cards[3:]
        decision = "play" if evaluate3(player).strength >= Q64.strength else "fold"
        out.append((player, dealer, decision))
    return out


def main() -> int:
    args = parser(__doc__.splitlines()[0]).parse_args()
    n = 100_000  # the same lines in a quick run: the ratio depends on how many (start-up)
    runs = 3 if args.quick else 5
    deals = rounds(n)
    figures = []
    notes: list[str] = []

    exe = shutil.which("threecard") or str(Path(sys.executable).with_name("threecard"))
    bets = {"ante": 100, "pair_plus": 100, "six_card_bonus": 100}
    text = "".join(json.dumps({"player": [str(c) for c in p], "dealer": [str(c) for c in d],
                               "bets": bets, "decision": dec}) + "\n" for p, d, dec in deals)
    pipes = {"plain": [sys.executable, "-c", PLAIN], "settle": [exe, "settle", "--rules", "live"]}
    wall: dict[str, list[float]] = {"settle": [], "plain": []}
    cpu: dict[str, list[float]] = {"settle": [], "plain": []}
    cli = None
    for _ in range(runs):
        for name, cmd in pipes.items():
            before = os.times()
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(cmd, input=text, capture_output=True, text=True,
                                      timeout=600, check=False)
            except (OSError, subprocess.SubprocessError) as exc:
                cli = na(f"`{' '.join(cmd[:2])}` not runnable: {exc}")
                break
            wall[name].append(time.perf_counter() - t0)
            after = os.times()
            cpu[name].append(after.children_user + after.children_system
                             - before.children_user - before.children_system)
            lines = proc.stdout.splitlines()
            if proc.returncode != 0 or len(lines) != n or '"error"' in proc.stdout:
                cli = na(f"{name} failed (exit {proc.returncode}): "
                         f"{(proc.stderr or proc.stdout).strip()[-200:]}")
                break
        if cli is not None:
            break
    if cli is None:
        cli = rate_stats(wall["settle"], n, f"{n:,} JSON lines piped through one process, "
                         "start-up included")
        plain = rate_stats(wall["plain"], n, "the same lines through json.loads/json.dumps "
                           "in one Python process, start-up included")
        ratios = [p / s for s, p in zip(wall["settle"], wall["plain"], strict=True)]
        cpu_ratio = statistics.median(p / s for s, p in zip(cpu["settle"], cpu["plain"],
                                                              strict=True))
        figures.append(figure("`threecard settle` throughput", "rounds/s", "higher", cli,
                              {"plain JSON pipe": plain},
                              note="one round = one seat with Ante, Pair Plus and 6 Card Bonus "
                              "against a dealer hand"))
        figures.append(figure("`threecard settle` throughput against a plain JSON pipe",
                              "×", "higher",
                              stats(ratios, "settle rounds/s over plain-pipe lines/s, per "
                                    "repeat, wall time"),
                              note="target: at least 1.0"))
        notes.append(f"by CPU time instead of wall time (user + system of each process) the "
                     f"ratio is {cpu_ratio:.2f} (median over {runs} repeats)")
    else:
        figures.append(figure("`threecard settle` throughput", "rounds/s", "higher", cli))

    profile = load_profile("live")
    seats = [(p, d, Bets(100, 100, 100), Decision(dec)) for p, d, dec in deals]

    def lib() -> int:
        return sum(settle(profile, p, d, b, dec).net for p, d, b, dec in seats)

    t, _ = time_runs(lib, runs)
    figures.append(figure("settle() function throughput", "rounds/s", "higher",
                          rate_stats(t, n, f"{n:,} calls in-process, no JSON")))
    (emit if args.json else show)("settle", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
