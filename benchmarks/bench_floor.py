"""The floor feed under a floor's load: 50 paced tables, one Mosquitto, one recorder.

Usage: python benchmarks/bench_floor.py [--json] [--quick] [--tables N] [--seconds S]
                                        [--round-ms MS] [--workers W]

Starts Eclipse Mosquitto (``mosquitto`` on PATH or in /usr/sbin) on a free loopback port,
the recorder (``threecard floor serve``, a subprocess with its own store), and N tables
(default 50) in W worker processes. Each table is the real :class:`Table` on its own
journal with its own floor feed (``controller.floor_link.open_floor``, as ``threecard
simulate --floor`` wires it) and deals one whole round (two seats, autoplay) every
``--round-ms`` (default 200 ms), the tables' rounds spread evenly over that period.
After ``--seconds`` of dealing (default 30; 10 with --quick) the tables stop, their feeds
drain, and the recorder is stopped. Figures:

- rounds recorded per second: rounds stored by the recorder, over the time from the start
  of dealing to the last round stored (the tables' target is N / round period; the rate
  they kept is shown beside it);
- publish-to-store latency, p50 and p99: from the publisher's send time (``sent_us`` in
  each round's payload) to the recorder's commit of it (same machine, same clock); and
  from the round's end in its journal to the store;
- the recorder's CPU: its user and system time over the run, in percent of one core.

Journals are on /dev/shm when it exists (tmpfs: the figure is the floor's, not the disk's:
a table's commits each wait for the disk).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pwd
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import emit, figure, parser, show, stats  # noqa: E402


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


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _worker(ids: list[str], folder: str, broker: str, round_s: float, start: float,
            seconds: float, out: mp.Queue) -> None:
    """Deal ``ids``' tables, each one round every ``round_s``, until ``start + seconds``."""
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
    dealt = 0
    late = 0
    offsets = [round_s * i / len(tables) for i in range(len(tables))]
    k = 0
    while True:
        due = start + k * round_s
        if due >= start + seconds:
            break
        for (t, _feed, shoe, player), off in zip(tables, offsets, strict=True):
            wait = due + off - time.time()
            if wait > 0:
                time.sleep(wait)
            elif wait < -round_s:
                late += 1
            g = t.game
            total = g.meters.rows.get("total")
            settled = total.rounds if total is not None else 0
            dealt += simulate(t, player, shoe, settled + 1)
        k += 1
    dealt_until = time.time()
    for t, feed, _shoe, _player in tables:
        feed.stop()
        t.close()
    out.put((dealt, late, dealt_until))


def run(n_tables: int, seconds: float, round_ms: int, workers: int) -> dict:
    """Run the floor and return the raw figures."""
    shm = Path("/dev/shm")
    tmp = Path(tempfile.mkdtemp(prefix="bench-floor-", dir=shm if shm.is_dir() else None))
    broker, url = _broker(tmp)
    store = tmp / "floor.sqlite3"
    recorder = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "serve",
                                 "--broker", url, "--store", str(store), "--log-level",
                                 "warning"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(1.5)  # the recorder is connected and subscribed
        ids = [f"BENCH-{i:02d}" for i in range(n_tables)]
        start = time.time() + 3.0  # every worker has opened its tables by then
        out: mp.Queue = mp.Queue()
        procs = [mp.Process(target=_worker, args=(ids[w::workers], str(tmp), url,
                                                  round_ms / 1000, start, seconds, out))
                 for w in range(workers)]
        for p in procs:
            p.start()
        cpu0 = _cpu_s(recorder.pid)
        time.sleep(max(0.0, start - time.time()))
        cpu_start = _cpu_s(recorder.pid)
        results = [out.get(timeout=seconds + 600) for _ in procs]
        for p in procs:
            p.join(60)
        time.sleep(2.0)  # the last rounds reach the store
        end = time.time()
        cpu_end = _cpu_s(recorder.pid)
        recorder.send_signal(signal.SIGTERM)
        recorder.wait(30)
    finally:
        if recorder.poll() is None:
            recorder.kill()
        broker.kill()
        broker.wait(10)
    import sqlite3

    db = sqlite3.connect(store)
    rows = db.execute("SELECT sent_us, stored_us, ended_utc FROM rounds").fetchall()
    db.close()
    dealt_until = max(u for _, _, u in results)
    last_stored = max((r[1] for r in rows), default=start * 1e6) / 1e6
    publish = sorted((s - p) / 1000 for p, s, _e in rows)
    from_end = sorted((s - datetime.fromisoformat(e).timestamp() * 1e6) / 1000
                      for _p, s, e in rows)
    dealt = sum(d for d, _, _ in results)
    shutil.rmtree(tmp, ignore_errors=True)
    return {
        "tables": n_tables, "seconds": seconds, "round_ms": round_ms,
        "target_rounds_per_s": n_tables * 1000 / round_ms,
        "dealt": dealt, "late": sum(late for _, late, _ in results), "recorded": len(rows),
        "dealt_per_s": dealt / (dealt_until - start),
        "recorded_per_s": len(rows) / (last_stored - start),
        "publish_to_store_ms": publish, "end_to_store_ms": from_end,
        "recorder_cpu_percent": 100 * (cpu_end - cpu_start) / (end - start),
        "recorder_cpu_setup_s": cpu_start - cpu0,
    }


def _pct(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> int:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--seconds", type=float, default=None)
    p.add_argument("--round-ms", type=int, default=200)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                   help="processes the tables are spread over (default: one per core)")
    args = p.parse_args()
    seconds = args.seconds or (10.0 if args.quick else 30.0)
    load0 = os.getloadavg()[0]
    r = run(args.tables, seconds, args.round_ms, args.workers)
    load1 = os.getloadavg()[0]
    pub, end = r["publish_to_store_ms"], r["end_to_store_ms"]
    how = (f"{r['tables']} tables in {args.workers} processes, one round (2 seats) every "
           f"{r['round_ms']} ms each, for {seconds:.0f} s; one Mosquitto, one recorder")
    figures = [
        figure("rounds recorded per second", "rounds/s", "higher",
               stats([r["recorded_per_s"]], f"target {r['target_rounds_per_s']:.0f}; the "
                     f"tables dealt {r['dealt_per_s']:.1f} rounds/s ({r['dealt']} rounds, "
                     f"{r['recorded']} recorded; {r['late']} table turns more than a period "
                     "late)"), note=how),
        figure("publish-to-store latency, p50", "ms", "lower",
               stats([_pct(pub, 0.5)], f"{len(pub)} rounds; from the round's end in its "
                     f"journal: {_pct(end, 0.5):.1f} ms")),
        figure("publish-to-store latency, p99", "ms", "lower",
               stats([_pct(pub, 0.99)], f"from the round's end in its journal: "
                     f"{_pct(end, 0.99):.1f} ms; max {max(pub, default=float('nan')):.1f} "
                     "ms")),
        figure("recorder CPU", "% of a core", "lower",
               stats([r["recorder_cpu_percent"]], "user + system time of `threecard floor "
                     "serve` over the dealing period and its drain")),
    ]
    notes = [f"mean publish-to-store latency {statistics.fmean(pub):.1f} ms" if pub else
             "no round recorded", "journals on /dev/shm (tmpfs): the floor's cost, not the "
             "disk's", f"floor feed: {os.cpu_count()} cores, load average (1 min) "
             f"{load0:.1f} at the start and {load1:.1f} at the end: where the tables deal "
             "fewer rounds than their target, they (not the floor) ran out of CPU, and every "
             "round they dealt was recorded"]
    if args.json:
        emit("floor", figures, notes)
    else:
        show("floor", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
