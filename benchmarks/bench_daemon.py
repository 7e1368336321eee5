"""Benchmark the table daemon: card-to-screen latency, start-up, idle CPU, memory.

Usage: python benchmarks/bench_daemon.py [--json] [--quick] [--cards N] [--idle SECONDS]

1. Card frame to player view: the production path in one process: a native ``CARD``
   line written to a pseudo-terminal's master, read by the ShoeLink (pyserial), journaled
   with fsync by the Table (durable SQLite file), applied, and published; the time from
   the end of the write to the player-view snapshot showing one more card (targets: p99
   under 20 ms).
2. ``threecard run --headless`` as a real process with a simulated shoe: time from spawn
   to the sd_notify READY datagram (target under 3 s), then the CPU time of the whole
   process while idle (target under 3 % of a core over 30 s) and its resident memory
   (target under 150 MB).
"""

from __future__ import annotations

import os
import random
import socket
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


def daemon_run(workdir: str, idle: float) -> tuple[float, float, float]:
    """(seconds to READY, idle CPU % of one core, resident MB) of one daemon process."""
    addr = os.path.join(workdir, f"notify-{time.monotonic_ns()}.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(addr)
    sock.settimeout(30)
    env = dict(os.environ, NOTIFY_SOCKET=addr, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless",
                             "--journal", os.path.join(workdir, f"d{t0}.sqlite3"),
                             "--shoe", "sim://?dialect=native"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        while b"READY=1" not in sock.recv(4096):
            pass
        ready = time.monotonic() - t0
        time.sleep(2.0)  # let start-up work settle before measuring idle
        c0, w0 = _cpu_seconds(proc.pid), time.monotonic()
        time.sleep(idle)
        cpu = (_cpu_seconds(proc.pid) - c0) / (time.monotonic() - w0) * 100
        rss = _rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(20)
        sock.close()
    return ready, cpu, rss


def main() -> int:
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=None)
    ap.add_argument("--idle", type=float, default=None)
    ap.add_argument("--starts", type=int, default=None)
    args = ap.parse_args()
    n_cards = args.cards or (150 if args.quick else 600)
    idle = args.idle or (10.0 if args.quick else 30.0)
    starts = args.starts or (2 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="bench-daemon-") as work:
        lat = card_latency(n_cards, work)
        runs = [daemon_run(work, idle if i == 0 else 0.5) for i in range(starts)]
    ready = [r[0] for r in runs]
    figures = [
        figure("card frame on the pty to player view snapshot, p50", "ms", "lower",
               stats([statistics.median(lat)], f"{len(lat)} cards, durable journal")),
        figure("card frame on the pty to player view snapshot, p99", "ms", "lower",
               stats([percentile(lat, 99)], f"{len(lat)} cards"), note="target: under 20 ms"),
        figure("daemon start to READY (sd_notify)", "s", "lower", stats(ready),
               note="target: under 3 s"),
        figure(f"daemon idle CPU over {idle:.0f} s, headless", "% of a core", "lower",
               stats([runs[0][1]], "whole process, /proc/<pid>/stat"),
               note="target: under 3 %"),
        figure("daemon resident memory", "MB", "lower", stats([r[2] for r in runs]),
               note="target: under 150 MB"),
    ]
    notes = [f"latency max {max(lat):.2f} ms, mean {statistics.fmean(lat):.2f} ms"]
    (emit if args.json else show)("daemon", figures, notes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
