"""Round engine throughput: ``threecard simulate`` with and without the durable journal.

Runs ``threecard simulate --rules live --seats 7 --rounds N --seed S --json`` once with
``--journal :memory:`` and once with a journal file in a fresh temporary directory (every
event committed before it is applied), and reads ``rounds_per_second`` from its JSON. The
durable runs also give the journal's size per settled round (the file and its write-ahead
log once the command has ended).

Run: ``python benchmarks/bench_simulate.py [--json] [--quick]``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, figure, last_json, na, parser, show, stats  # noqa: E402


def threecard() -> str:
    return shutil.which("threecard") or str(Path(sys.executable).with_name("threecard"))


def find_number(obj: Any, key: str) -> float | None:
    """The first number under ``key`` anywhere in a JSON value."""
    if isinstance(obj, dict):
        v = obj.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        for v in obj.values():
            found = find_number(v, key)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = find_number(v, key)
            if found is not None:
                return found
    return None


def simulate(rounds: int, journal: str | None, seed: int, timeout: float = 900) -> dict[str, Any]:
    """Run one simulation; returns its JSON plus ``_wall`` seconds, or ``{"_error": ...}``."""
    with tempfile.TemporaryDirectory(prefix="tc-bench-") as tmp:
        j = journal if journal is not None else str(Path(tmp) / "journal.db")
        cmd = [threecard(), "simulate", "--rules", "live", "--seats", "7", "--rounds",
               str(rounds), "--seed", str(seed), "--journal", j, "--json"]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            return {"_error": f"not runnable: {exc}"}
        wall = time.perf_counter() - t0
        size = sum(f.stat().st_size for f in Path(tmp).glob("journal.db*")
                   if f.suffix not in (".lock", ".anchor")) if journal is None else None
    if p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        return {"_error": f"exit {p.returncode}: {err[-1] if err else ''}"[:240]}
    data = last_json(p.stdout)
    if not isinstance(data, dict):
        return {"_error": "printed no JSON object"}
    data["_wall"] = wall
    data["_journal_bytes"] = size
    return data


def measure(rounds: int, journal: str | None, runs: int, label: str, budget: float,
            sizes: list[float] | None = None) -> dict[str, Any]:
    """Rounds per second over ``runs`` runs of at most ``rounds`` rounds, sized by a short
    trial run so that one run takes about ``budget`` seconds; a durable run's journal bytes
    per settled round go to ``sizes``."""
    trial = simulate(50, journal, seed=99)
    if "_error" in trial:
        return na(f"`threecard simulate` {trial['_error']}")
    trial_rps = find_number(trial, "rounds_per_second") or 50 / trial["_wall"]
    rounds = int(max(50, min(rounds, trial_rps * budget)))
    rates = []
    for i in range(runs):
        data = simulate(rounds, journal, seed=100 + i)
        if "_error" in data:
            return na(f"`threecard simulate` {data['_error']}")
        rps = find_number(data, "rounds_per_second")
        settled = find_number(data, "rounds_settled") or find_number(data, "settled")
        if rps is None:
            rps = (settled or rounds) / data["_wall"]
            label += "; rounds_per_second missing from its JSON, wall time used"
        rates.append(rps)
        if sizes is not None and data.get("_journal_bytes"):
            sizes.append(data["_journal_bytes"] / (settled or rounds))
    return stats(rates, f"{rounds:,} rounds of 7 seats per run, {label}")


def main() -> int:
    args = parser(__doc__.splitlines()[0]).parse_args()
    runs = 3
    mem_rounds = 2_000 if args.quick else 10_000
    disk_rounds = 300 if args.quick else 1_500
    budget = 5.0 if args.quick else 20.0
    sizes: list[float] = []
    figures = [
        figure("`threecard simulate` throughput, journal in memory", "rounds/s", "higher",
               measure(mem_rounds, ":memory:", runs, "--journal :memory:", budget),
               note="7 seats, Ante + Pair Plus + 6 Card Bonus, Q-6-4 play; target 2,000+"),
        figure("`threecard simulate` throughput, durable journal", "rounds/s", "higher",
               measure(disk_rounds, None, runs, "journal file in a temporary directory",
                       budget, sizes),
               note="every event committed before it is applied; target 100+"),
        figure("journal bytes per settled 7-seat round", "bytes", "lower",
               stats(sizes, "the journal file (and any write-ahead log) after a durable run, "
                     "over its settled rounds") if sizes else na("no durable run"),
               note="target: at most 2,000"),
    ]
    (emit if args.json else show)("simulate", figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
