"""Benchmark the table daemon: card-to-screen latency, start-up, idle CPU, memory.

Usage: python benchmarks/bench_daemon.py [--json] [--quick] [--cards N] [--idle SECONDS]

1. Card frame to player view: the production path in one process: a native ``CARD``
   line written to a pseudo-terminal's master, read by the ShoeLink (pyserial), journaled
   with fsync by the Table (durable SQLite file), applied, and published; the time from
   the end of the write to the player-view snapshot showing one more card (target: p99 at
   most 5 ms). The floor under it, in the same run and directory: a bare SQLite commit of
   one small row (WAL, ``synchronous=FULL``), the one disk flush each card must wait for
   (an event is on disk before it is shown).
2. ``threecard run --demo --headless`` as a real process: time from spawn to the sd_notify
   READY datagram (target at most 0.3 s) and its CPU time by then, and its resident memory
   once READY (target at most 60 MB).
3. ``threecard run --headless`` with a simulated shoe and no autoplay: the CPU time of the
   whole process while idle, once the environment's check beside it has ended (target under
   3 % of a core over 30 s), and its resident memory then.
"""

from __future__ import annotations

import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit, figure, parser, show, stats  # noqa: E402

import drivers  # noqa: E402
from controller.game.cards import DECK  # noqa: E402
from controller.game.engine import TableConfig  # noqa: E402
from controller.game.inputs import Decide, NextRound, NoMoreBets, PlaceBet, Reveal, Settle  # noqa: E402
from controller.game.table import Table  # noqa: E402
from drivers.dialects.native import encode_line  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def card_latency(n_cards: int, workdir: str) -> list[float]:
    """Milliseconds from a CARD frame written to the pty to the player view showing it."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    shown = threading.Condition()
    state = {"count": 0}

    def on_publish(_dealer, player) -> None:
        n = sum(len(s.cards) for s in player.seats) + len(player.dealer_cards)
        with shown:
            state["count"] = n
            state["t"] = time.perf_counter()
            shown.notify_all()

    table = Table(os.path.join(workdir, "latency.sqlite3"),
                  TableConfig(seats=1, table_id="BENCH"), on_publish=on_publish)
    table.start()
    link = drivers.open_link(f"serial://{path}?dialect=native", table.inbox)
    link.start()
    rng = random.Random(5)
    seq = 0
    out: list[float] = []
    try:
        deadline = time.monotonic() + 10
        while table.views()[0].link_state != "online":
            if time.monotonic() > deadline:
                raise RuntimeError("the link did not come online")
            table.wait_for_version(table.version, 0.2)
        while len(out) < n_cards:
            table.submit(PlaceBet(seat=1, bet="ante", amount=100))
            table.submit(NoMoreBets())
            table.drain()
            for card in rng.sample(DECK, 6):
                with shown:
                    before = state["count"]
                os.write(master, encode_line(seq, "CARD", str(card)))
                t0 = time.perf_counter()
                seq += 1
                with shown:
                    if not shown.wait_for(lambda b=before: state["count"] > b, timeout=5):
                        raise RuntimeError("card not shown within 5 s")
                    out.append((state["t"] - t0) * 1000)
            for c in (Decide(seat=1, decision="play"), Reveal(), Settle(), NextRound()):
                table.submit(c)
            table.drain()
    finally:
        link.stop()
        table.stop()
        os.close(master)
        os.close(slave)
    return out[:n_cards]


def commit_latency(n: int, workdir: str) -> list[float]:
    """Milliseconds of ``n`` bare SQLite commits of one small row (WAL, synchronous=FULL)."""
    db = sqlite3.connect(os.path.join(workdir, "floor.sqlite3"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, body TEXT)")
    out = []
    try:
        for i in range(n):
            t0 = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO events VALUES (?, ?)", (i, '{"card": "As"}' * 8))
            db.execute("COMMIT")
            out.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.002)  # a card's pace in the latency run: one at a time
    finally:
        db.close()
    return out


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _watch_for(stream, text: bytes, seen: threading.Event) -> None:
    """Set ``seen`` once a line holds ``text``; read to the end (the pipe never fills)."""
    for line in stream:
        if text in line:
            seen.set()


def daemon_run(workdir: str, idle: float, demo: bool) -> dict[str, float]:
    """One daemon process: seconds to READY, CPU seconds and resident MB at READY; then,
    unless ``idle`` is 0, its idle CPU (% of one core) and resident MB after ``idle`` s."""
    addr = os.path.join(workdir, f"notify-{time.monotonic_ns()}.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    sock.settimeout(30)
    env = dict(os.environ, NOTIFY_SOCKET=addr, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               STATE_DIRECTORY=workdir)  # each new journal's seal key: left in the scratch folder
    args = (["--demo"] if demo else ["--shoe", "sim://?dialect=native"])
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless",
                             "--journal", os.path.join(workdir, f"d{t0}.sqlite3"), *args],
                            stdout=subprocess.PIPE if idle else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, cwd=workdir)
    checked = threading.Event()
    if idle:
        threading.Thread(target=_watch_for, args=(proc.stdout, b"environment sha256", checked),
                         daemon=True).start()
    try:
        while b"READY=1" not in sock.recv(4096):
            pass
        out = {"ready": time.monotonic() - t0, "ready_cpu": _cpu_seconds(proc.pid),
               "ready_rss": _rss_mb(proc.pid)}
        if idle:  # the environment's check beside the table is start-up work: not idle
            checked.wait(60)
            time.sleep(1.0)
            c0, w0 = _cpu_seconds(proc.pid), time.monotonic()
            time.sleep(idle)
            out["idle_cpu"] = (_cpu_seconds(proc.pid) - c0) / (time.monotonic() - w0) * 100
            out["idle_rss"] = _rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(20)
        sock.close()
    return out


def main() -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=None)
    ap.add_argument("--idle", type=float, default=None)
    ap.add_argument("--starts", type=int, default=None)
    args = ap.parse_args()
    n_cards = args.cards or 600  # a p99 wants many: the same in a quick run
    idle = args.idle or (10.0 if args.quick else 30.0)
    starts = args.starts or (2 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="bench-daemon-") as work:
        lat = card_latency(n_cards, work)
        floor = commit_latency(n_cards, work)
        demos = [daemon_run(work, 0, demo=True) for _ in range(starts)]
        quiet = daemon_run(work, idle, demo=False)
    floor_note = "bare SQLite commit of one small row, WAL, synchronous=FULL, same directory"
    figures = [
        figure("card frame on the pty to player view snapshot, p50", "ms", "lower",
               stats([statistics.median(lat)], f"{len(lat)} cards, durable journal"),
               {"disk floor": stats([statistics.median(floor)], floor_note)}),
        figure("card frame on the pty to player view snapshot, p99", "ms", "lower",
               stats([percentile(lat, 99)], f"{len(lat)} cards"),
               {"disk floor": stats([percentile(floor, 99)], floor_note)},
               note="target: at most 5 ms; each card waits for one commit to reach the disk "
               "(the disk floor, measured in the same run)"),
        figure("daemon start to READY (sd_notify), `run --demo --headless`", "s", "lower",
               stats([r["ready"] for r in demos], "spawn to the READY datagram"),
               note="target: at most 0.3 s"),
        figure("daemon CPU time to READY, `run --demo --headless`", "s", "lower",
               stats([r["ready_cpu"] for r in demos], "user + system, /proc/<pid>/stat"),
               note="the CPU the start-up costs; wall time adds what other processes take"),
        figure("daemon resident memory once READY, `run --demo --headless`", "MB", "lower",
               stats([r["ready_rss"] for r in demos], "VmRSS at the READY datagram"),
               note="target: at most 60 MB"),
        figure(f"daemon idle CPU over {idle:.0f} s, headless", "% of a core", "lower",
               stats([quiet["idle_cpu"]], "whole process, /proc/<pid>/stat, simulated shoe, "
                     "once the environment's check has ended, "
                     "no autoplay"), note="target: under 3 %"),
        figure(f"daemon resident memory after {idle:.0f} s idle", "MB", "lower",
               stats([quiet["idle_rss"]], "VmRSS, simulated shoe, no autoplay")),
    ]
    notes = [f"latency max {max(lat):.2f} ms, mean {statistics.fmean(lat):.2f} ms; disk floor "
             f"max {max(floor):.2f} ms, mean {statistics.fmean(floor):.2f} ms"]
    (emit if args.json else show)("daemon", figures, notes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
