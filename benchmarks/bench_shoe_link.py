"""Benchmark the shoe link on a real pseudo-terminal: latency and idle CPU.

Usage: python benchmarks/bench_shoe_link.py [--frames N] [--idle SECONDS]

1. Latency: a native ``CARD`` line is written to the pty master in one write; the time
   from the end of that write to the ``CardRead`` event on the link's queue is measured
   for every frame (targets: p99 under 2 ms).
2. Idle CPU: the link stays connected while the "shoe" sends only a heartbeat a second;
   the CPU time of the link's reader thread (its own thread CPU clock) and of the whole
   process is measured over the idle period (target: under 1 % of a core).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import sys
import threading
import time
import tty

import drivers
from controller.game.events import CardRead, LinkState, LinkStatus
from drivers.dialects.native import encode_line


def wait_online(q: queue.Queue, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        ev = q.get(timeout=max(0.0, deadline - time.monotonic()))
        if isinstance(ev, LinkStatus) and ev.state == LinkState.ONLINE:
            return


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--json", action="store_true", help="also print one JSON line")
    args = parser.parse_args()

    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    q: queue.Queue = queue.Queue()
    link = drivers.open_link(f"serial://{path}?dialect=native", q)
    link.start()
    try:
        wait_online(q)
        link_thread = link._thread
        assert link_thread is not None and link_thread.ident is not None

        # 1. latency
        lat_ms: list[float] = []
        seq = 1
        for i in range(args.frames):
            frame = encode_line(seq, "CARD", ("As", "Td", "2c", "Qh")[i % 4])
            os.write(master, frame)
            t0 = time.perf_counter()
            while True:
                ev = q.get(timeout=5)
                if isinstance(ev, CardRead):
                    break
            lat_ms.append((time.perf_counter() - t0) * 1000)
            seq += 1

        # 2. idle CPU, heartbeats once a second from a feeder thread
        stop = threading.Event()
        hb_seq = [seq]

        def heartbeats() -> None:
            while not stop.wait(1.0):
                os.write(master, encode_line(hb_seq[0], "HB", "0"))
                hb_seq[0] += 1

        feeder = threading.Thread(target=heartbeats, daemon=True)
        clock = time.pthread_getcpuclockid(link_thread.ident)
        thread_cpu0 = time.clock_gettime(clock)
        proc_cpu0 = time.process_time()
        wall0 = time.monotonic()
        feeder.start()
        stop.wait(args.idle)
        stop.set()
        feeder.join()
        wall = time.monotonic() - wall0
        thread_cpu = time.clock_gettime(clock) - thread_cpu0
        proc_cpu = time.process_time() - proc_cpu0
        drained = 0
        while not q.empty():
            q.get_nowait()
            drained += 1
    finally:
        link.stop()
        os.close(master)
        os.close(slave)

    result = {
        "frames": len(lat_ms),
        "latency_ms_p50": round(statistics.median(lat_ms), 3),
        "latency_ms_p99": round(percentile(lat_ms, 99), 3),
        "latency_ms_max": round(max(lat_ms), 3),
        "idle_seconds": round(wall, 2),
        "idle_link_thread_cpu_percent": round(100 * thread_cpu / wall, 3),
        "idle_process_cpu_percent": round(100 * proc_cpu / wall, 3),
        "heartbeats_during_idle": drained,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    print(f"pty frame -> queue latency over {result['frames']} frames: "
          f"p50 {result['latency_ms_p50']:.3f} ms, p99 {result['latency_ms_p99']:.3f} ms "
          f"(max {result['latency_ms_max']:.3f} ms; target p99 < 2 ms)")
    print(f"idle link over {wall:.1f} s: reader thread "
          f"{result['idle_link_thread_cpu_percent']:.3f} % of a core, whole process "
          f"{result['idle_process_cpu_percent']:.3f} % (target < 1 %)")
    print(f"machine: {result['cpus']} CPUs, load average {result['load_average_1min']} "
          f"(other work on the machine lengthens the latency tail)")
    if args.json:
        print(json.dumps(result))
    ok = result["latency_ms_p99"] < 2 and result["idle_link_thread_cpu_percent"] < 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
