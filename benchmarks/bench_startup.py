"""Table start-up time against journal size, before and after the anchored start point.

For journals of 1,000 to 100,000 rounds (7 seats, about 36 events a round, written by the
real table through ``simulate``), each followed by 190 more rounds (``--window``): a
snapshot is taken every 50 rounds (the table's default), so start-up replays the 40 rounds
after the newest (at most it replays 49). Measures:

- start-up now: a :class:`~controller.game.table.Table` opened on the journal, from the
  constructor to ready (the verifier from the verified snapshot the anchor names, the
  replay of the events after it, the start-up record), and the CPU time it takes (both
  threads: the cheap checks of the history run beside the replay), which a machine
  shared with other work does not inflate as it does the elapsed time;
- the start-up before: the hash chain checked from event 1, then the state rebuilt
  from the newest snapshot (what start-up did until the anchor), with the same
  journal functions;
- the first start-up without an anchor (a journal written before the anchor existed,
  or its anchor lost): the full check from event 1, as ``verify-journal`` makes it;
- the anchor's cost: one anchor write (two slots, ``fdatasync``) against one journal
  commit (WAL, ``synchronous=FULL``), and what a commit costs the table thread for it
  (the write itself runs on a thread of its own).

Run: ``python benchmarks/bench_startup.py [--json] [--quick] [--sizes 1000,10000]
[--keep DIR]`` (``--keep`` keeps the generated journals in DIR and reuses them; a
100,000-round journal takes several minutes to write).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, figure, machine, na, parser, show, stats  # noqa: E402


def write_journal(path: Path, rounds: int) -> None:
    """A journal of ``rounds`` settled rounds, 7 seats, written by the real table (a
    journal already there is continued up to that many)."""
    from controller.autoplay import AutoPlayer
    from controller.game.auth import DEMO_PINS, demo_pin_hashes
    from controller.game.engine import TableConfig
    from controller.game.table import Table
    from controller.simulate_cli import DEFAULT_BETS, simulate
    from simulators.event_shoe import EventShoe, parse_faults

    t = Table(path, TableConfig(seats=7, pin_hashes=demo_pin_hashes()))
    simulate(t, AutoPlayer(bets=json.loads(DEFAULT_BETS), pin=DEMO_PINS["supervisor"]),
             EventShoe(1, parse_faults("")), rounds)
    t.close()


def open_table(path: Path, cpu: list[float] | None = None) -> float:
    """Seconds from the constructor to a table ready; its CPU seconds added to ``cpu``."""
    from controller.game.auth import demo_pin_hashes
    from controller.game.engine import TableConfig
    from controller.game.table import Table

    c0, t0 = time.process_time(), time.perf_counter()
    t = Table(path, TableConfig(seats=7, pin_hashes=demo_pin_hashes()))
    took = time.perf_counter() - t0
    if cpu is not None:
        cpu.append(time.process_time() - c0)
    locked = t.locked
    t.close()
    if locked:
        raise RuntimeError(locked)
    return took


def start_up_before(path: Path) -> float:
    """The start-up before the anchor: the chain from event 1, the replay from the newest
    snapshot (the derived-table comparison it made after that was a few rows)."""
    from controller.game.replay import rebuild
    from controller.journal import Journal

    t0 = time.perf_counter()
    j = Journal(path, readonly=True)
    try:
        if not j.verify().ok:
            raise RuntimeError("chain broken")
        rebuild(j)
    finally:
        j.close()
    return time.perf_counter() - t0


def without_anchor(path: Path, copy: Path) -> float:
    """The start-up of a copy of the journal, which has no anchor: the full check."""
    from controller.journal.seal import default_folder, key_files_of

    shutil.copyfile(path, copy)                      # closed cleanly: no -wal to copy
    keys = []
    for key in key_files_of(default_folder(), path):  # a key is its file's: the copy's own
        keys.append(key.with_name(f"{key.name.rsplit('-', 1)[0]}-{copy.stat().st_ino}.key"))
        shutil.copyfile(key, keys[-1])
    try:
        return open_table(copy)
    finally:
        for p in [*copy.parent.glob(copy.name + "*"), *keys]:
            p.unlink()


def each(fn, n: int, scale: float) -> list[float]:
    """The time of each of ``n`` calls ``fn(i)``, in seconds times ``scale``."""
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * scale)
    return out


def anchor_costs(tmp: Path, n: int) -> list[dict]:
    import sqlite3

    from controller.journal.anchor import Anchor, AnchorFile, AnchorWriter

    db = sqlite3.connect(tmp / "commit.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, body TEXT)")

    def commit(i: int) -> None:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * 200))
        db.execute("COMMIT")

    f = AnchorFile(str(tmp / "a.anchor"))
    w = AnchorWriter(AnchorFile(str(tmp / "b.anchor")))
    commits = each(commit, n, 1e3)
    writes = each(lambda i: f.write(Anchor(i, "a" * 64, i, "b" * 64)), n, 1e3)
    posts = each(lambda i: w.post(Anchor(i, "a" * 64, i, "b" * 64)), n, 1e6)
    db.close()
    f.close()
    w.close()
    return [
        figure("journal commit (WAL, synchronous=FULL), for comparison", "ms", "lower",
               stats(commits, f"{n} commits of one 200-byte row")),
        figure("anchor write: one slot, then fdatasync", "ms", "lower",
               stats(writes, f"{n} writes"),
               note="on its own thread: a burst of commits is anchored at its newest head"),
        figure("anchor cost to the table thread per commit", "us", "lower",
               stats(posts, f"{n} posts to the anchor's thread")),
    ]


def main() -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--sizes", help="journal sizes in rounds, comma-separated")
    ap.add_argument("--keep", help="keep (and reuse) the generated journals in this directory")
    ap.add_argument("--window", type=int, default=190,
                    help="rounds written after the last full 200 (default 190)")
    args = ap.parse_args()
    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes
             else [1_000, 5_000] if args.quick else [1_000, 10_000, 100_000])
    runs = 3 if args.quick else 5
    tmp = Path(tempfile.mkdtemp(prefix="tc-startup-"))
    keep = Path(args.keep) if args.keep else tmp
    keep.mkdir(parents=True, exist_ok=True)
    os.environ["STATE_DIRECTORY"] = str(keep / "state")  # the journals' seal keys, beside them
    figures, notes = [], []
    try:
        for base in sizes:
            rounds = base + args.window
            path = keep / f"journal-{base}.sqlite3"
            if not Path(f"{path}.anchor").exists() and path.exists():
                open_table(path)                     # written elsewhere: anchored once
            if _settled(path) < rounds:
                t0 = time.perf_counter()
                print(f"writing a {rounds:,}-round journal...", file=sys.stderr)
                write_journal(path, rounds)
                notes.append(f"{rounds:,}-round journal written in "
                             f"{time.perf_counter() - t0:,.0f} s")
            events = _events(path)
            size = f"{rounds:,} rounds ({events:,} events, " \
                   f"{path.stat().st_size / 2**20:,.0f} MiB)"
            print(f"measuring {size}...", file=sys.stderr)
            cpu: list[float] = []
            now = [open_table(path, cpu) for _ in range(runs)]
            before = [start_up_before(path) for _ in range(1 if rounds >= 50_000 else runs)]
            first = [without_anchor(path, tmp / "copy.sqlite3")] if base <= 100_000 else []
            figures.append(figure(
                f"start-up, {size}", "s", "lower",
                stats(now, "from the verified snapshot the anchor names"),
                peers={"the start-up before": stats(before, "chain from event 1, then "
                                                    "the replay from the newest snapshot"),
                       "first start without an anchor": stats(first, "the full check from "
                                                               "event 1, once")
                       if first else na("not measured at this size")}))
            figures.append(figure(f"start-up CPU time, {size}", "s", "lower",
                                  stats(cpu, "the start-up above, both threads")))
        figures += anchor_costs(tmp, 100 if args.quick else 400)
        notes.append(f"machine: {machine()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    (emit if args.json else show)("startup", figures, notes)
    return 0


def _events(path: Path) -> int:
    return _query(path, "SELECT MAX(seq) FROM events")


def _settled(path: Path) -> int:
    if not path.exists():
        return 0
    return _query(path, "SELECT rounds FROM meters WHERE name = 'total'")


def _query(path: Path, sql: str) -> int:
    import sqlite3

    db = sqlite3.connect(f"file:{os.fspath(path)}?mode=ro", uri=True)
    try:
        row = db.execute(sql).fetchone()
        return (row[0] if row else 0) or 0
    finally:
        db.close()


if __name__ == "__main__":
    sys.exit(main())
