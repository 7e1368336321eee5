"""Round engine throughput: ``threecard simulate`` with and without the durable journal.

Runs ``threecard simulate --rules live --seats 7 --rounds N --seed S --json`` once with
``--journal :memory:`` and once with a journal file in a fresh temporary directory (every
event committed before it is applied), and reads ``rounds_per_second`` from its JSON. The
journal's size per settled round is measured over a day's dealing (1,200 rounds of 7
seats), as the file and its write-ahead log once the command has ended, with what each of
its tables takes of it (SQLite's ``dbstat``): once as ``simulate`` commits (an input and
the ones waiting with it in one commit), once with every input committed on its own at a
live table's pace (0.3 to 4 s between inputs). Those two runs write to ``/dev/shm`` where
there is one: the bytes do not depend on the disk, only the time the run takes.

Run: ``python benchmarks/bench_simulate.py [--json] [--quick]``.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Stats, emit, figure, last_json, na, parser, show, stats  # noqa: E402


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
    if p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        return {"_error": f"exit {p.returncode}: {err[-1] if err else ''}"[:240]}
    data = last_json(p.stdout)
    if not isinstance(data, dict):
        return {"_error": "printed no JSON object"}
    data["_wall"] = wall
    return data


def journal_bytes(folder: str) -> int:
    """The journal's bytes in ``folder``: the file and any write-ahead log."""
    return sum(f.stat().st_size for f in Path(folder).glob("journal.db*")
               if f.suffix not in (".lock", ".anchor"))


def scratch() -> tempfile.TemporaryDirectory:
    """A scratch folder, in memory (``/dev/shm``) where there is one."""
    shm = Path("/dev/shm")
    return tempfile.TemporaryDirectory(prefix="tc-bench-",
                                       dir=str(shm) if shm.is_dir() else None)


def table_bytes(path: str) -> dict[str, int]:
    """Bytes of the journal file each table (and index) takes, from SQLite's ``dbstat``."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return dict(db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
        finally:
            db.close()
    except sqlite3.Error:
        return {}


PACED = """
import random, sys
from datetime import UTC, datetime, timedelta
from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.config import TableConfig
from controller.game.table import Table
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe

class PacedClock:
    # a live table's pace: 0.3 to 4 s between commits; the monotonic clock read just after
    def __init__(self):
        self.rng, self.us, self.ns = random.Random(5), 0, 40_000_000_000
    def utc(self):
        gap = self.rng.randint(300_000, 4_000_000)
        self.us += gap
        self.ns += gap * 1000 + self.rng.randint(0, 50_000)
        return (datetime(2026, 6, 1, tzinfo=UTC) + timedelta(microseconds=self.us)).isoformat()
    def monotonic_ns(self):
        return self.ns

path, rounds = sys.argv[1], int(sys.argv[2])
t = Table(path, TableConfig(seats=7, pin_hashes=demo_pin_hashes()), clock=PacedClock())
batch = t.process
t.process = lambda items, flush=True: [v for i in items for v in batch([i], flush)]
simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100, "six_card_bonus": 100},
                       pin=DEMO_PINS["supervisor"]), EventShoe(7), rounds)
print(t.game.meters_dict()["rows"]["total"][3])
t.close()
"""


def journal_size(rounds: int, paced: bool) -> tuple[Stats, dict[str, float]]:
    """Journal bytes per settled round after ``rounds`` rounds, and per table.

    ``paced``: every input committed alone at a live table's pace (:data:`PACED`); else
    ``threecard simulate`` as it commits.
    """
    with scratch() as tmp:
        path = str(Path(tmp) / "journal.db")
        cmd = ([sys.executable, "-c", PACED, path, str(rounds)] if paced else
               [threecard(), "simulate", "--rules", "live", "--seats", "7", "--rounds",
                str(rounds), "--seed", "100", "--journal", path, "--json"])
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
        if p.returncode != 0:
            err = (p.stderr or p.stdout).strip().splitlines()
            return na(f"exit {p.returncode}: {err[-1] if err else ''}"[:240]), {}
        settled = (int(p.stdout.split()[-1]) if paced
                   else find_number(last_json(p.stdout), "rounds_settled") or rounds)
        size, tables = journal_bytes(tmp), table_bytes(path)
    how = ("each input its own commit, 0.3 to 4 s apart (its times then take a few bytes "
           "an event)" if paced else "as `threecard simulate` commits")
    return (stats([size / settled], f"the journal file after {settled:,} settled rounds "
                  f"(a day's dealing), {how}"),
            {k: v / settled for k, v in tables.items()})


def measure(rounds: int, journal: str | None, runs: int, label: str, budget: float
            ) -> dict[str, Any]:
    """Rounds per second over ``runs`` runs of at most ``rounds`` rounds, sized by a short
    trial run so that one run takes about ``budget`` seconds."""
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
    return stats(rates, f"{rounds:,} rounds of 7 seats per run, {label}")


def main() -> int:
    args = parser(__doc__.splitlines()[0]).parse_args()
    runs = 3
    mem_rounds = 2_000 if args.quick else 10_000
    disk_rounds = 300 if args.quick else 1_500
    budget = 5.0 if args.quick else 20.0
    day = 1_200  # rounds a table deals in a day
    batched, batched_tables = journal_size(day, paced=False)
    paced, paced_tables = journal_size(300 if args.quick else day, paced=True)
    figures = [
        figure("`threecard simulate` throughput, journal in memory", "rounds/s", "higher",
               measure(mem_rounds, ":memory:", runs, "--journal :memory:", budget),
               note="7 seats, Ante + Pair Plus + 6 Card Bonus, Q-6-4 play; target 2,000+"),
        figure("`threecard simulate` throughput, durable journal", "rounds/s", "higher",
               measure(disk_rounds, None, runs, "journal file in a temporary directory",
                       budget),
               note="every event committed before it is applied; target 100+"),
        figure("journal bytes per settled 7-seat round", "bytes", "lower", batched,
               note="target: at most 1,000"),
        figure("journal bytes per settled 7-seat round, one input a commit", "bytes", "lower",
               paced, note="as a live table commits: each input alone, its own time"),
    ]
    notes = [f"journal bytes per settled round by table (dbstat), {what}: "
             + ", ".join(f"{name} {size:,.0f}" for name, size in
                         sorted(tables.items(), key=lambda x: -x[1]))
             for what, tables in (("as simulate commits", batched_tables),
                                  ("one input a commit", paced_tables)) if tables]
    (emit if args.json else show)("simulate", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
