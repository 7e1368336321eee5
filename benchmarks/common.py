"""Shared helpers for the benchmark scripts, and the figure convention they all follow.

Convention: every ``benchmarks/bench_*.py`` script accepts ``--json`` (and ``--quick`` for a
short run) and then prints ONE JSON object on the last line of its standard output::

    {"bench": "eval",
     "figures": [
       {"name": "6 Card Bonus classification",      # row label
        "unit": "sets/s",                          # unit of the numbers below
        "better": "higher",                        # or "lower" (times, latencies, memory)
        "ours": {"median": 1.2e7, "min": 1.1e7, "max": 1.3e7, "runs": 5},
        "peers": {"phevaluator": {"median": 2.4e6, "min": ..., "max": ..., "runs": 3,
                                  "note": "sample of 200,000 sets, extrapolated"},
                  "treys": {"na": "why this peer cannot do it"}},
        "note": "how it was measured"}],
     "notes": ["free text shown under the table"]}

``ours`` and each peer are *stats*: ``median`` (required), ``min``/``max`` (the spread over
``runs`` repeats), optional ``p25``/``p75`` and ``note``; or ``{"na": "reason"}`` when the
thing cannot be measured. ``peers`` and ``note`` are optional. A script that prints a flat
object of numbers instead (``{"p99_ms": 3.1, ...}``) is still shown, one row per number.

A script measuring the same figures in several cases may add ``side_by_side``: ``{"columns":
[case, ...], "rows": [{"name", "unit", "better", "values": [one a column: a number, a short
text, or null], "note"}]}``; ``run.py`` then shows that table instead of the figures' rows.
Exit status 0; anything else is reported as "not available" with the script's last error.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

Stats = dict[str, Any]


def stats(samples: Sequence[float], note: str | None = None) -> Stats:
    """Median and spread (min-max, and the quartiles from 4 runs on) of repeated samples."""
    xs = sorted(samples)
    out: Stats = {"median": statistics.median(xs), "min": xs[0], "max": xs[-1], "runs": len(xs)}
    if len(xs) >= 4:
        q = statistics.quantiles(xs, n=4)
        out["p25"], out["p75"] = q[0], q[2]
    if note:
        out["note"] = note
    return out


def na(reason: str) -> Stats:
    """A figure that cannot be measured, with the reason."""
    return {"na": reason}


def time_runs(fn: Callable[[], Any], runs: int, warmup: int = 1) -> tuple[list[float], Any]:
    """Wall time in seconds of ``runs`` calls of ``fn`` after ``warmup`` untimed calls.

    Returns:
        The list of times and the value of the last call.
    """
    value = None
    for _ in range(warmup):
        value = fn()
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return times, value


def rate_stats(times: Sequence[float], work: float, note: str | None = None) -> Stats:
    """Throughput stats (work per second) from run times."""
    return stats([work / t for t in times], note)


def figure(name: str, unit: str, better: str, ours: Stats, peers: dict[str, Stats] | None = None,
           note: str | None = None) -> dict[str, Any]:
    """One figure of the convention above."""
    f: dict[str, Any] = {"name": name, "unit": unit, "better": better, "ours": ours}
    if peers:
        f["peers"] = peers
    if note:
        f["note"] = note
    return f


def emit(bench: str, figures: list[dict[str, Any]], notes: Sequence[str] = (),
         side_by_side: dict[str, Any] | None = None) -> None:
    """Print the one JSON object of the convention (the script's last line of output)."""
    sys.stdout.flush()
    out: dict[str, Any] = {"bench": bench, "figures": figures, "notes": list(notes)}
    if side_by_side is not None:
        out["side_by_side"] = side_by_side
    print(json.dumps(out))


def last_json(text: str) -> Any:
    """The last line of ``text`` that parses as a JSON object (a script's figures), else
    the whole of ``text`` as JSON, else None."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def parser(description: str) -> argparse.ArgumentParser:
    """The common command line: ``--json`` and ``--quick``."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--json", action="store_true", help="print one JSON object of figures")
    p.add_argument("--quick", action="store_true", help="fewer repeats and smaller samples")
    return p


def show(bench: str, figures: list[dict[str, Any]], notes: Sequence[str] = ()) -> None:
    """Print figures readably (a script run without ``--json``)."""
    for f in figures:
        print(f"{f['name']} [{f['unit']}, {f['better']} is better]")
        for who, s in [("ours", f["ours"]), *(f.get("peers") or {}).items()]:
            if "na" in s:
                print(f"  {who:<28} n/a: {s['na']}")
            else:
                print(f"  {who:<28} {s['median']:.6g} (min {s['min']:.6g}, max {s['max']:.6g},"
                      f" {s['runs']} runs){'  ' + s['note'] if s.get('note') else ''}")
        if f.get("note"):
            print(f"  note: {f['note']}")
    for n in notes:
        print(f"note: {n}")


def fmt(v: float | None) -> str:
    """A figure as the tables write it: thousands separated, 3 or 4 significant digits."""
    if v is None:
        return ""
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.3g}" if a < 10 else f"{v:.1f}"
    return f"{v:.3g}"


def cell(v: Any) -> str:
    """One value of a side-by-side table as text: a number as :func:`fmt` writes it, a
    text as it is, nothing (null or NaN: not measured in that case) as a dash."""
    if isinstance(v, str):
        return v
    if v is None or v != v:
        return "—"
    return fmt(v)


def show_side_by_side(bench: str, table: dict[str, Any], notes: Sequence[str] = ()) -> None:
    """Print a side-by-side table (see the convention above) readably, one column a case."""
    cols = table["columns"]
    head = ["figure", "unit", *cols]
    body = [[r["name"], r["unit"], *(cell(v) for v in r["values"])] for r in table["rows"]]
    widths = [max(len(str(row[i])) for row in [head, *body]) for i in range(len(head))]
    print(bench)
    for row in [head, *body]:
        print("  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths, strict=True))))
    for r in table["rows"]:
        if r.get("note"):
            print(f"note: {r['name']}: {r['note']}")
    for n in notes:
        print(f"note: {n}")


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or the platform's processor string)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    info: dict[str, Any] = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
    }
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            kb = int(fh.readline().split()[1])
        info["memory"] = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    try:
        import numpy

        info["numpy"] = numpy.__version__
    except ImportError:  # pragma: no cover
        pass
    return info
