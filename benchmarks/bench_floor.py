"""The floor feed under a floor's load, side by side: SQLite and PostgreSQL stores, 50 and
200 tables at real pace and 50 at top speed, each through one Mosquitto to one recorder.

Usage: python benchmarks/bench_floor.py [--json] [--quick] [--stores KIND[,KIND]]
                                        [--real-seconds S] [--top-seconds S] [--workers W]
       python benchmarks/bench_floor.py --tables N [--round-ms MS] [--seconds S] ...

Each case starts Eclipse Mosquitto (``mosquitto`` on PATH or in /usr/sbin) on a free
loopback port, a new empty store, the recorder (``threecard floor serve``, a subprocess)
and N tables in W worker processes. Each table is the real :class:`Table` on its own
journal with its own floor feed (``controller.floor_link.open_floor``, as ``threecard
simulate --floor`` wires it) and deals whole rounds (two seats, autoplay): at real pace
one round every 30 s, the tables' rounds spread evenly over those 30 s, for
``--real-seconds`` (default 120; 30 with --quick); at top speed one round after another,
table after table, for ``--top-seconds`` (default 20; 10 with --quick). The cases, for
each store (``--stores``, default ``sqlite,postgresql``): 50 tables at real pace, 200 at
real pace, 50 at top speed; ``--tables`` runs one case of its own instead. Dealing starts
once every table is open and the recorder is connected; a case ends when every round
dealt is stored (or once the store has grown no more for 30 s). Figures, one column a case:

- rounds recorded per second: rounds stored, over the time from the start of dealing to
  the last round stored; the rounds dealt and recorded beside it;
- publish-to-store latency, p50 and p99: from the publisher's send time (``sent_us`` in
  each round's payload) to the recorder's commit of it (same machine, same clock);
- the recorder's CPU (user + system time over the case, in percent of one core, and per
  round recorded) and its peak resident memory (VmHWM);
- the PostgreSQL server's CPU (every process of the server) over the same time;
- store bytes per round: what the store grew by, over the rounds recorded (SQLite: the
  file once its write-ahead log is checkpointed; PostgreSQL: the floor's tables with their
  indexes and TOAST, ``pg_total_relation_size``).

The PostgreSQL server is Debian's (/usr/lib/postgresql/N/bin), started in a temporary
folder as the tests start it (tests/support/pg_server.py; as ``nobody`` when run as root).
Journals, the SQLite store and the PostgreSQL server's data are on /dev/shm when it exists
(tmpfs; PostgreSQL with fsync off): the figures are the floor's cost, not the disk's.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pwd
import queue
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))  # the tree measured (the worker processes import it too)

from common import emit, figure, parser, show_side_by_side, stats  # noqa: E402

REAL_PACE_MS = 30_000
STORE_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
SHM = Path("/dev/shm")


@dataclass(frozen=True)
class Case:
    """One run: a kind of store, a number of tables, their round period (0: top speed)."""

    store: str
    tables: int
    round_ms: int
    seconds: float

    @property
    def label(self) -> str:
        pace = ("top speed" if self.round_ms == 0 else "real pace"
                if self.round_ms == REAL_PACE_MS else f"a round every {self.round_ms} ms")
        return f"{STORE_NAMES[self.store]}, {self.tables} tables, {pace}"


def _mosquitto() -> str:
    found = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
         if os.access(p, os.X_OK)), None)
    if found is None:
        raise SystemExit("mosquitto is not installed (Debian package mosquitto)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _broker(folder: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    conf = folder / "mosquitto.conf"
    conf.write_text(f"user {pwd.getpwuid(os.getuid()).pw_name}\nallow_anonymous true\n"
                    f"persistence false\nmax_queued_messages 1000000\n"
                    f"listener {port} 127.0.0.1\n")
    proc = subprocess.Popen([_mosquitto(), "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc, f"mqtt://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    raise SystemExit("mosquitto did not start")


def _cpu_s(pid: int, reaped: bool = False) -> float:
    """User + system CPU seconds of a process so far (/proc; 0 when it is gone); with
    ``reaped``, those of its children that ended and it waited for too."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(f) for f in fields[11:15 if reaped else 13])
    return ticks / os.sysconf("SC_CLK_TCK")


def _peak_rss_mb(pid: int) -> float:
    """A process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    return float("nan")


class _PgCpu:
    """CPU seconds of a PostgreSQL server: its postmaster, its children alive, and those
    that ended (the postmaster reaps them: autovacuum workers, connections)."""

    def __init__(self, data: Path) -> None:
        self.root = int((data / "postmaster.pid").read_text().split()[0])

    def pids(self) -> list[int]:
        out = [self.root]
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == self.root:
                    out.append(int(stat.parent.name))
            except (OSError, ValueError, IndexError):
                continue
        return out

    def snapshot(self) -> dict[int, float]:
        return {pid: _cpu_s(pid, reaped=pid == self.root) for pid in self.pids()}

    @staticmethod
    def spent(before: dict[int, float], after: dict[int, float]) -> float:
        """CPU seconds between two snapshots (a process started since counts in full; one
        ended since is in the postmaster's reaped time, less what it had spent before)."""
        return (sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())
                + sum(cpu for pid, cpu in before.items() if pid not in after))


def _worker(ids: list[str], folder: str, broker: str, round_s: float, seconds: float,
            ready: Any, go: Any, start_at: Any, out: Any) -> None:
    """Open ``ids``' tables, say so on ``ready``, wait for ``go``, then deal until
    ``start_at + seconds``: each table one round every ``round_s`` (0: one round after
    another, table after table)."""
    import logging

    from controller.autoplay import AutoPlayer
    from controller.floor_link import open_floor
    from controller.game.auth import DEMO_PINS, demo_pin_hashes
    from controller.game.engine import TableConfig
    from controller.game.table import Table
    from controller.simulate_cli import simulate
    from simulators.event_shoe import EventShoe

    logging.basicConfig(level=logging.WARNING)
    tables = []
    for n, tid in enumerate(ids):
        config = TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=tid,
                             floor_broker=broker)
        t = Table(Path(folder) / f"{tid}.sqlite3", config)
        tables.append((t, open_floor(config, t, drain_s=60), EventShoe(n + 1, {}),
                       AutoPlayer(bets={"ante": 100, "pair_plus": 100},
                                  pin=DEMO_PINS["supervisor"])))
    ready.put(len(tables))
    go.wait()
    start = start_at.value
    until = start + seconds

    def deal(t: Table, shoe: EventShoe, player: AutoPlayer) -> int:
        total = t.game.meters.rows.get("total")
        return simulate(t, player, shoe, (total.rounds if total is not None else 0) + 1)

    dealt = late = 0
    if round_s > 0:
        offsets = [round_s * i / len(tables) for i in range(len(tables))]
        due = start
        while due < until:
            for (t, _feed, shoe, player), off in zip(tables, offsets, strict=True):
                wait = due + off - time.time()
                if wait > 0:
                    time.sleep(wait)
                elif wait < -round_s:
                    late += 1
                dealt += deal(t, shoe, player)
            due += round_s
    else:
        while time.time() < until:
            for t, _feed, shoe, player in tables:
                if time.time() >= until:
                    break
                dealt += deal(t, shoe, player)
    dealt_until = time.time()
    for t, feed, _shoe, _player in tables:
        feed.stop()
        t.close()
    out.put((dealt, late, dealt_until))


def _store_bytes(target: str, folder: Path | None) -> int:
    """What the store holds on disk: the SQLite file (its log checkpointed into it first),
    or the floor's tables in PostgreSQL with their indexes and TOAST."""
    if folder is not None:
        db = sqlite3.connect(target)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        return sum(p.stat().st_size for p in folder.glob(Path(target).name + "*"))
    from floor.store import Store

    store = Store(target, readonly=True)
    try:
        return int(store.db.execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r'").fetchone()[0])
    finally:
        store.close()


def _read(target: str, sql: str) -> list[Any]:
    """Rows of one query on the store, opened read-only through the floor's own code."""
    from floor.store import Store

    store = Store(target, readonly=True)
    try:
        return store.db.execute(sql).fetchall()
    finally:
        store.close()


def _wait(what: Any, timeout: float, step: float = 0.2) -> bool:
    """Poll ``what()`` until it is true or ``timeout`` seconds have passed."""
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        try:
            if what():
                return True
        except Exception:  # noqa: BLE001 - the store is not there yet: poll again
            pass
        time.sleep(step)
    return False


def _drain(target: str, dealt: int, stuck_s: float = 30.0) -> int:
    """Wait until the store holds ``dealt`` rounds, or holds no more for ``stuck_s``
    seconds; return how many it holds (one connection: the server's CPU is the
    recorder's)."""
    from floor.store import Store

    store = Store(target, readonly=True)
    held, moved = -1, time.monotonic()
    try:
        while True:
            now = store.db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]
            if now >= dealt:
                return now
            if now != held:
                held, moved = now, time.monotonic()
            elif time.monotonic() - moved > stuck_s:
                return now
            time.sleep(0.2)
    finally:
        store.close()


def run(case: Case, workers: int, pg: Any) -> dict:
    """Run one case in a temporary folder (removed after it); return its raw figures.

    Args:
        case: what to run.
        workers: processes the tables are spread over.
        pg: the PostgreSQL server (``PgServer``, started) for a PostgreSQL case, else None.
    """
    tmp = Path(tempfile.mkdtemp(prefix="bench-floor-", dir=SHM if SHM.is_dir() else None))
    try:
        return _run_in(tmp, case, workers, pg)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_in(tmp: Path, case: Case, workers: int, pg: Any) -> dict:
    from floor.store import Store

    broker, url = _broker(tmp)
    target = str(tmp / "floor.sqlite3") if case.store == "sqlite" else pg.database()
    sqlite_folder = tmp if case.store == "sqlite" else None
    Store(target).close()  # the empty store: its schema is not the rounds' bytes
    bytes0 = _store_bytes(target, sqlite_folder)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    recorder = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "serve",
                                 "--broker", url, "--store", target, "--log-level",
                                 "warning"], stdout=subprocess.DEVNULL, env=env)
    procs: list[mp.Process] = []
    try:
        ids = [f"BENCH-{i:03d}" for i in range(case.tables)]
        ready, out, go = mp.Queue(), mp.Queue(), mp.Event()
        start_at = mp.Value("d", 0.0)
        procs = [mp.Process(target=_worker, args=(ids[w::workers], str(tmp), url,
                                                  case.round_ms / 1000, case.seconds, ready,
                                                  go, start_at, out))
                 for w in range(min(workers, case.tables))]
        for p in procs:
            p.start()
        try:
            opened = sum(ready.get(timeout=600) for _ in procs)
        except queue.Empty:
            raise SystemExit(f"{case.label}: the tables did not open in 10 minutes") from None
        if opened != case.tables:
            raise SystemExit(f"{case.label}: {opened} of {case.tables} tables opened")
        heard = _wait(lambda: (r := _read(target, "SELECT broker_lost_us FROM recorder"))
                      and r[0][0] is None, 60)
        if not heard:
            raise SystemExit(f"{case.label}: the recorder did not connect to the broker")
        pg_cpu = _PgCpu(pg.data) if case.store == "postgresql" else None
        start = start_at.value = time.time() + 0.5
        go.set()
        time.sleep(max(0.0, start - time.time()))
        cpu_start = _cpu_s(recorder.pid)
        pg_start = pg_cpu.snapshot() if pg_cpu else {}
        results = [out.get(timeout=case.seconds + 600) for _ in procs]
        for p in procs:
            p.join(60)
        dealt = sum(d for d, _, _ in results)
        _drain(target, dealt)
        end = time.time()
        cpu_end = _cpu_s(recorder.pid)
        pg_spent = pg_cpu.spent(pg_start, pg_cpu.snapshot()) if pg_cpu else None
        peak_mb = _peak_rss_mb(recorder.pid)
        recorder.send_signal(signal.SIGTERM)
        recorder.wait(30)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        if recorder.poll() is None:
            recorder.kill()
        broker.kill()
        broker.wait(10)
    rows = _read(target, "SELECT sent_us, stored_us FROM rounds")
    grown = _store_bytes(target, sqlite_folder) - bytes0
    dealt_until = max(u for _, _, u in results)
    last_stored = max((r[1] for r in rows), default=start * 1e6) / 1e6
    cpu = cpu_end - cpu_start
    return {
        "case": case.label, "store": case.store, "tables": case.tables,
        "round_ms": case.round_ms, "seconds": case.seconds,
        "dealt": dealt, "late": sum(late for _, late, _ in results), "recorded": len(rows),
        "dealt_per_s": dealt / (dealt_until - start),
        "recorded_per_s": len(rows) / (last_stored - start) if rows else 0.0,
        "publish_to_store_ms": sorted((s - p) / 1000 for p, s in rows),
        "recorder_cpu_percent": 100 * cpu / (end - start),
        "recorder_cpu_ms_per_round": 1000 * cpu / len(rows) if rows else float("nan"),
        "server_cpu_percent": None if pg_spent is None else 100 * pg_spent / (end - start),
        "recorder_peak_mb": peak_mb,
        "store_bytes_per_round": grown / len(rows) if rows else float("nan"),
    }


def _pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def cases(stores: list[str], real_s: float, top_s: float) -> list[Case]:
    """The side-by-side cases: per store, 50 and 200 tables at real pace, 50 at top speed."""
    return [c for s in stores for c in (Case(s, 50, REAL_PACE_MS, real_s),
                                        Case(s, 200, REAL_PACE_MS, real_s),
                                        Case(s, 50, 0, top_s))]


#: The rows of the side-by-side table: (name, unit, better, how a case's value is read)
ROWS: list[tuple[str, str, str, Any]] = [
    ("rounds recorded per second", "rounds/s", "higher", lambda r: r["recorded_per_s"]),
    ("rounds dealt per second", "rounds/s", "higher", lambda r: r["dealt_per_s"]),
    ("rounds dealt / recorded", "rounds", "", lambda r: f"{r['dealt']} / {r['recorded']}"),
    ("publish-to-store latency, p50", "ms", "lower",
     lambda r: _pct(r["publish_to_store_ms"], 0.5)),
    ("publish-to-store latency, p99", "ms", "lower",
     lambda r: _pct(r["publish_to_store_ms"], 0.99)),
    ("recorder CPU", "% of a core", "lower", lambda r: r["recorder_cpu_percent"]),
    ("recorder CPU per round", "ms", "lower", lambda r: r["recorder_cpu_ms_per_round"]),
    ("PostgreSQL server CPU", "% of a core", "lower", lambda r: r["server_cpu_percent"]),
    ("recorder peak memory", "MB", "lower", lambda r: r["recorder_peak_mb"]),
    ("store bytes per round", "bytes", "lower", lambda r: r["store_bytes_per_round"]),
]

#: What each row measures (the notes under the table)
ROW_NOTES = {
    "rounds recorded per second": "rounds stored over the time from the start of dealing to "
    "the last round stored; at real pace the tables' own rate bounds it (50 tables: 1.67, "
    "200 tables: 6.67 rounds/s)",
    "rounds dealt per second": "the tables' rate while they dealt (at top speed: all "
    "the rounds the cores left to the tables allowed)",
    "publish-to-store latency, p50": "from the publisher's send time in the round's payload "
    "to the recorder's commit of it",
    "recorder CPU": "user + system time of `threecard floor serve` from the start of dealing "
    "to the last round stored; per round: the same time over the rounds recorded (the "
    "tables' state and meters messages and the recorder's own beat included)",
    "PostgreSQL server CPU": "every process of the server (the recorder's connection, "
    "writers, autovacuum workers, those ended included) over the same time; the benchmark "
    "reads the store on one connection of its own while it waits for the last rounds",
    "recorder peak memory": "VmHWM of `threecard floor serve` at the end of the case",
    "store bytes per round": "what the store grew by over the rounds recorded (SQLite: the "
    "file, its write-ahead log checkpointed; PostgreSQL: pg_total_relation_size of the "
    "floor's tables, before any VACUUM)",
}


def side_by_side(results: list[dict]) -> dict:
    """The convention's optional side-by-side table: one column a case, one row a figure."""
    rows = []
    for name, unit, better, read in ROWS:
        values = [read(r) for r in results]
        if all(v is None for v in values):
            continue
        rows.append({"name": name, "unit": unit, "better": better, "values": values,
                     **({"note": ROW_NOTES[name]} if name in ROW_NOTES else {})})
    return {"columns": [r["case"] for r in results], "rows": rows}


def figures_of(results: list[dict]) -> list[dict]:
    """The same figures in the convention's form, one a case and row (for last-run.json)."""
    out = []
    for r in results:
        for name, unit, better, read in ROWS:
            v = read(r)
            if isinstance(v, (int, float)):
                out.append(figure(f"{name}, {r['case']}", unit, better, stats([v])))
    return out


def main() -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--stores", default="sqlite,postgresql",
                   help="kinds of store, comma-separated (default sqlite,postgresql)")
    p.add_argument("--real-seconds", type=float, default=None,
                   help="dealing time of a real-pace case (default 120; 30 with --quick)")
    p.add_argument("--top-seconds", type=float, default=None,
                   help="dealing time of a top-speed case (default 20; 10 with --quick)")
    p.add_argument("--tables", type=int, default=None,
                   help="run one case of N tables instead of the side-by-side cases")
    p.add_argument("--round-ms", type=int, default=REAL_PACE_MS,
                   help="with --tables: a table's round period (0: top speed)")
    p.add_argument("--seconds", type=float, default=None, help="with --tables: dealing time")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                   help="processes the tables are spread over (default: one per core)")
    args = p.parse_args()
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    if not stores or any(s not in STORE_NAMES for s in stores):
        p.error(f"--stores: one or more of {', '.join(STORE_NAMES)}")
    real_s = args.real_seconds or (30.0 if args.quick else 120.0)
    top_s = args.top_seconds or (10.0 if args.quick else 20.0)
    todo = ([Case(s, args.tables, args.round_ms, args.seconds or real_s) for s in stores]
            if args.tables else cases(stores, real_s, top_s))
    pg = None
    if "postgresql" in stores:
        sys.path.append(str(ROOT / "tests" / "support"))
        from pg_server import PgServer, pg_bin

        found = pg_bin()
        if found is None:
            raise SystemExit("PostgreSQL is not installed (Debian package postgresql)")
        pg = PgServer(found, folder_in=SHM if SHM.is_dir() else None).start()
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    results = []
    try:
        for case in todo:
            print(f"{case.label} ...", file=sys.stderr, flush=True)
            results.append(run(case, args.workers, pg))
    finally:
        if pg is not None:
            pg.stop()
    load1 = os.getloadavg()[0]
    late = {r["case"]: r["late"] for r in results if r["late"]}
    dealing = sorted({(c.round_ms, c.seconds) for c in todo}, reverse=True)
    notes = [f"{args.workers} worker processes deal the tables' rounds (real pace: a round "
             f"every {REAL_PACE_MS // 1000} s a table); dealing time a case: " + ", ".join(
                 f"{'top speed' if ms == 0 else 'real pace' if ms == REAL_PACE_MS else ms}"
                 f" {s:.0f} s" for ms, s in dealing)
             + f"; one Mosquitto and one recorder a case, {(time.monotonic() - t0) / 60:.1f} "
             "min in all",
             "journals and the SQLite store on /dev/shm (tmpfs), the PostgreSQL server's data "
             "too (fsync off, as the tests run it): the floor's cost, not the disk's",
             f"{os.cpu_count()} cores for everything (tables, broker, recorder, PostgreSQL), "
             f"load average (1 min) {load0:.1f} at the start and {load1:.1f} at the end (other "
             "work on the machine included)"]
    if late:
        notes.append("table turns more than a period late: " + ", ".join(
            f"{k}: {v}" for k, v in late.items()))
    table = side_by_side(results)
    if args.json:
        emit("floor", figures_of(results), notes, side_by_side=table)
    else:
        show_side_by_side("floor", table, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
