"""Run every benchmark, print one table of figures and write BENCHMARKS.md.

    pip install -e '.[bench]'            # the peers: pokerkit, treys, phevaluator
    python benchmarks/run.py [--quick]   # --quick: fewer repeats, smaller samples

Each ``benchmarks/bench_*.py`` script runs in its own process with ``--json`` (see
``common.py`` for the convention) and prints one JSON object of figures. A script that is
missing, fails or prints no figures is reported as "not available"; the run goes on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import cell, fmt, last_json, machine  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SOAK_RESULT = HERE / "soak-result.json"
SEALS_RESULT = HERE / "seals-result.json"  # bench_seals.py's full run (100,000 rounds)
LAST_RUN = HERE / "last-run.json"  # the figures behind BENCHMARKS.md, for --render

#: script -> (title, what it measures); run in this order, then any other bench_*.py
BENCHES: dict[str, tuple[str, str]] = {
    "bench_eval.py": ("Hand evaluation", "3-card and 6 Card Bonus evaluation against peers"),
    "bench_par_sheet.py": ("Par sheet", "the full `live` par sheet against a plain enumeration"),
    "bench_settle.py": ("Settlement", "`threecard settle` rounds per second"),
    "bench_simulate.py": ("Round engine", "`threecard simulate` rounds per second"),
    "bench_shoe_link.py": ("Shoe link", "card frame on the pty to event on the queue"),
    "bench_display.py": ("Display", "render time per frame, idle display CPU"),
    "bench_daemon.py": ("Daemon", "card frame to player view latency, start-up, idle CPU, "
                                  "memory"),
    "bench_startup.py": ("Start-up", "table start-up time against journal size; the anchor's "
                                     "cost"),
    "bench_floor.py": ("Floor feed", "SQLite and PostgreSQL stores side by side, 50 and 200 "
                                     "tables at a round every 30 s and 50 at top speed, "
                                     "through one Mosquitto to the recorder: rounds recorded "
                                     "per second, latency, recorder CPU and memory, store "
                                     "bytes per round"),
    "bench_seals.py": ("Sealed records", "disk flushes and bytes a round, seals signed and "
                                         "verified, start-up and the full check of a sealed "
                                         "journal"),
}
PEERS = ("pokerkit", "treys", "phevaluator")


# ------------------------------------------------------------------ running the scripts

def _flat_figures(data: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    """Figures from an object of numbers or of stats (a script not following the convention):
    ``{"p99_ms": 3.1}`` or ``{"render_ms": {"median": 3.1, "min": 2.9, "max": 3.5}}``."""
    units = [("_per_second", "/s"), ("_per_s", "/s"), ("_percent", "%"), ("_pct", "%"),
             ("_mib", "MiB"), ("_mb", "MB"), ("_ms", "ms"), ("_us", "µs"), ("_s", "s")]
    out = []
    for key, v in data.items():
        name = f"{prefix}{key}"
        if isinstance(v, dict) and isinstance(v.get("median"), (int, float)):
            s = {k: v[k] for k in ("median", "min", "max", "runs", "p25", "p75") if k in v}
            s.setdefault("min", v["median"])
            s.setdefault("max", v["median"])
            s.setdefault("runs", 1)
        elif isinstance(v, dict):
            out += _flat_figures(v, f"{name}.")
            continue
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            s = {"median": v, "min": v, "max": v, "runs": 1,
                 "note": "single value, as printed by the script"}
        else:
            continue
        unit = _unit_of(key, units)
        better = "higher" if unit == "/s" else "lower"
        out.append({"name": name, "unit": unit, "better": better, "ours": s})
    return out


def _unit_of(key: str, units: list[tuple[str, str]]) -> str:
    """Unit guessed from a figure's name: a suffix (``render_ms``) or a token (``lat_ms_p99``)."""
    k = key.lower()
    for suf, unit in units:
        if k.endswith(suf):
            return unit
    tokens = k.split("_")
    for suf, unit in units:
        if suf.lstrip("_") in tokens[1:] and suf not in ("_s", "_per_s"):
            return unit
    return "s" if "seconds" in tokens else ""


def run_bench(script: str, quick: bool, timeout: float) -> dict[str, Any]:
    """Run one bench script; returns its JSON object or ``{"error": ...}``."""
    path = HERE / script
    if not path.exists():
        return {"error": f"not available: benchmarks/{script} does not exist yet"}
    base = [sys.executable, str(path), "--json"]
    attempts = [base + ["--quick"], base] if quick else [base]
    last_err = ""
    t0 = time.perf_counter()
    for cmd in attempts:
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               cwd=ROOT, check=False)
        except subprocess.TimeoutExpired:
            return {"error": f"not available: timed out after {timeout:.0f} s"}
        except OSError as exc:
            return {"error": f"not available: {exc}"}
        if p.returncode == 2 and "unrecognized arguments" in p.stderr:
            last_err = p.stderr.strip().splitlines()[-1]
            continue  # the script has no --quick: run it in full
        data = last_json(p.stdout)
        if p.returncode != 0 or not isinstance(data, dict):
            err = (p.stderr or p.stdout).strip().splitlines()
            return {"error": f"not available: exit {p.returncode}"
                             + (f": {err[-1][:200]}" if err else "")}
        if "figures" not in data:
            data = {"bench": script, "figures": _flat_figures(data),
                    "notes": ["figures read from a plain JSON object (not the convention of "
                              "common.py): single process, names as printed"]}
        if not data["figures"]:
            return {"error": "not available: the script printed no figures"}
        data["_seconds"] = time.perf_counter() - t0
        return data
    return {"error": f"not available: {last_err}"}


# ------------------------------------------------------------------ formatting

def spread(s: dict[str, Any]) -> str:
    if "na" in s:
        return ""
    text = f"{fmt(s.get('min'))} – {fmt(s.get('max'))}"
    if "p25" in s:
        text += f" (IQR {fmt(s['p25'])} – {fmt(s['p75'])})"
    return text


def ratio(f: dict[str, Any], peer: dict[str, Any]) -> str:
    """How far ours is ahead of a peer (> 1: ours better), from the medians."""
    ours = f["ours"]
    if "na" in ours or "na" in peer or not peer.get("median") or not ours.get("median"):
        return "—"
    r = (ours["median"] / peer["median"] if f.get("better") == "higher"
         else peer["median"] / ours["median"])
    return f"ours {r:,.1f}× ahead" if r >= 1 else f"peer {1 / r:,.1f}× ahead"


def _best_peer(f: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The strongest peer of a figure (by median), among those that could be measured."""
    peers = [(k, v) for k, v in (f.get("peers") or {}).items() if "na" not in v]
    if not peers:
        return None
    pick = max if f.get("better") == "higher" else min
    return pick(peers, key=lambda kv: kv[1]["median"])


def summary_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    """A headline table (ours against the strongest peer per figure) and the issue's goals."""
    out = ["| figure | ours | strongest peer | peer | ours vs strongest peer |",
           "|---|---|---|---|---|"]
    goals = []
    for res in results.values():
        for f in res.get("figures", []):
            best = _best_peer(f)
            if best is None or "na" in f["ours"]:
                continue
            name, peer = best
            unit = f.get("unit", "")
            out.append(f"| {md_escape(f['name'])} | {fmt(f['ours']['median'])} {unit} | "
                       f"{md_escape(name)} | {fmt(peer['median'])} {unit} | {ratio(f, peer)} |")
            if f["name"].startswith("6 Card Bonus classification, all"):
                ahead = all(ratio(f, v).startswith("ours") for v in f["peers"].values()
                            if "na" not in v)
                goals.append(f"- Ours ahead of every peer on 6 Card Bonus classification "
                             f"throughput: **{'yes' if ahead else 'NO'}**.")
            if f["name"].startswith("par sheet"):
                r = peer["median"] / f["ours"]["median"]
                goals.append(f"- Par sheet at least 5 times faster than the plain enumeration: "
                             f"**{'yes' if r >= 5 else 'NO'}** ({r:,.0f}×).")
    return (out if len(out) > 2 else []) + [""] + goals


def _figure(results: dict[str, dict[str, Any]], script: str, name: str
            ) -> dict[str, Any] | None:
    for f in results.get(script, {}).get("figures", []):
        if f["name"] == name:
            return f
    return None


TARGET_HEADERS = ["figure", "ours", "target", "met", "measured beside it"]


def target_rows(results: dict[str, dict[str, Any]]) -> list[list[str]]:
    """One row per target of the lean table: ours (median) against the target."""
    out = []
    for script, name, target, how, note in TARGETS:
        f = _figure(results, script, name)
        if f is None or "na" in f["ours"]:
            why = (f["ours"]["na"] if f is not None else
                   results.get(script, {}).get("error", "not measured"))
            out.append([name, "n/a", f"{how} {fmt(target)}", "—", note or why])
            continue
        v, unit = f["ours"]["median"], f.get("unit", "")
        met = v <= target if how == "at most" else v >= target
        beside = [note] if note else []
        for peer, s in (f.get("peers") or {}).items():
            if "na" not in s:
                beside.append(f"{peer} {fmt(s['median'])} {unit}")
        if f["ours"].get("runs", 1) > 1:
            beside.append(f"spread {spread(f['ours'])} over {f['ours']['runs']} runs")
        if name == "journal bytes per settled 7-seat round":
            paced = _figure(results, script, name + ", one input a commit")
            if paced is not None and "na" not in paced["ours"]:
                beside.append(f"one input a commit {fmt(paced['ours']['median'])} bytes")
        if name.startswith("daemon start to READY"):
            cpu = _figure(results, script, "daemon CPU time to READY, `run --demo --headless`")
            if cpu is not None and "na" not in cpu["ours"]:
                beside.append(f"CPU time to READY {fmt(cpu['ours']['median'])} s")
        out.append([name, f"{fmt(v)} {unit}", f"{how} {fmt(target)} {unit}",
                    "not addressed here" if note else ("yes" if met else "NO"),
                    "; ".join(beside)])
    return out


def rows(result: dict[str, Any]) -> list[list[str]]:
    """Table rows: figure, who, median, unit, spread, runs, ratio, note."""
    out = []
    for f in result.get("figures", []):
        entries = [("ours", f["ours"]), *(f.get("peers") or {}).items()]
        for i, (who, s) in enumerate(entries):
            name = f["name"] if i == 0 else ""
            if "na" in s:
                out.append([name, who, "n/a", "", "", "", "", s["na"]])
                continue
            out.append([name, who, fmt(s["median"]), f.get("unit", "") if i == 0 else "",
                        spread(s), str(s.get("runs", "")), ratio(f, s) if i else "",
                        s.get("note", "")])
    return out


HEADERS = ["figure", "who", "median", "unit", "spread min – max", "runs", "ours vs peer",
           "how"]


def side_rows(table: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """A side-by-side table's header and rows (the convention's ``side_by_side``)."""
    return (["figure", "unit", *table["columns"]],
            [[r["name"], r.get("unit", ""), *(cell(v) for v in r["values"])]
             for r in table["rows"]])


def _rich_side_by_side(title: str, table: dict[str, Any]) -> Any:
    from rich.table import Table

    head, body = side_rows(table)
    out = Table(title=title, title_justify="left")
    for i, h in enumerate(head):
        out.add_column(h, overflow="fold", justify="right" if i > 1 else "left",
                       max_width=None if i > 1 else 32)
    for r in body:
        out.add_row(*r)
    return out


def print_tables(info: dict[str, Any], results: dict[str, dict[str, Any]], quick: bool) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover - rich is a runtime dependency
        for script, res in results.items():
            print(f"== {BENCHES.get(script, (script,))[0]}")
            for r in rows(res) or [["", "", res.get("error", "")]]:
                print(" | ".join(r))
        return
    console = Console(width=max(Console().width, 140))
    console.print(f"[bold]threecard-table benchmarks[/] ({'quick' if quick else 'full'} run) — "
                  f"{info['cpu']}, {info['cores']} cores, {info['python']}")
    targets = Table(title="The lean table: ours against the targets", title_justify="left")
    for h in TARGET_HEADERS:
        targets.add_column(h, overflow="fold", max_width=48 if h == "figure" else None)
    for r in target_rows(results):
        targets.add_row(*r)
    console.print(targets)
    for script, res in results.items():
        title = BENCHES.get(script, (script, ""))[0]
        if "error" in res:
            console.print(f"[bold]{title}[/] ({script}): [yellow]{res['error']}[/]")
            continue
        if "side_by_side" in res:
            console.print(_rich_side_by_side(f"{title} ({script})", res["side_by_side"]))
            for n in res.get("notes", []):
                console.print(f"  • {n}")
            continue
        table = Table(title=f"{title} ({script})", title_justify="left", show_lines=False)
        for h in HEADERS[:-1]:
            table.add_column(h, overflow="fold",
                             justify="right" if h in ("median", "runs") else "left",
                             max_width=44 if h == "figure" else None)
        for r in rows(res):
            if r[2] == "n/a":
                r = [*r[:6], r[7][:120]]
            table.add_row(*r[:7])
        console.print(table)
        for n in res.get("notes", []):
            console.print(f"  • {n}")


# ------------------------------------------------------------------ BENCHMARKS.md

METHOD = """\
## How our 6 Card Bonus classifier works

`controller.game.enumeration` classifies all 20,358,520 six-card sets in NumPy, a block of
65,536 sets at a time, with no Python code per set:

1. A set is one 52-bit integer with bit `suit * 13 + rank`, so each 13-bit field is one
   suit's rank mask. Sets are generated per first card from one precomputed table of 5-card
   combinations in co-lexicographic order (array arithmetic, no `itertools`).
2. Bit-slicing: with the four suit fields `a b c d`, the ranks held in at least 1, 2, 3 and 4
   suits are `a|b|c|d`, `ab|cd|(a|b)&(c|d)`, `ab&(c|d) | cd&(a|b)` and `ab&cd` (with
   `ab = a&b`, `cd = c&d`). The popcounts of those masks (an 8,192-entry table) give the
   pairing shape — pair, two pair, trips, full house, quads — without sorting anything.
3. The any-suit rank mask indexes an 8,192-entry straight table (A-2-3-4-5 included); a suit
   field with five or more bits is a flush, and that field indexes the same table for a
   straight flush; T-J-Q-K-A of one suit is the royal.
4. `np.bincount` of the classes gives the counts of the paytable.

Every set costs a few dozen vectorised integer operations and no interpreter dispatch, so
the whole enumeration takes a fraction of the time the fastest peer (phevaluator's C core,
called from Python) needs for it. The peers are general 5-to-7-card
evaluators called once per set from Python: they return a full 7,462-level rank (more than
the bet needs) and pay the interpreter's per-call cost 20 million times. Their figures come
from a seeded random sample of sets (the same sets for every peer), extrapolated to the full
enumeration, and their class counts on that sample are checked against ours.

## How the par sheet counts

The par sheet (`controller.game.par_sheet`) is arithmetic on counts of the deck, and
`controller.game.counting` counts them in plain Python, visiting neither the 20,358,520
six-card sets nor the 407,170,400 (player, dealer) pairs; the classifier above is kept as
the tests' oracle, which every count must equal (for every shipped profile, and for the
hands a Q-6-4 player folds):

1. The 22,100 player hands fall into 1,755 suit classes (renaming suits changes no count);
   each class is counted once and weighted.
2. Ante/Play: for each class, the dealer hands weaker, tied and not qualifying, by
   inclusion–exclusion over shared cards (every hand, less those holding one of the
   player's cards, plus those holding two) with binary searches in sorted strength lists.
3. 6 Card Bonus over all sets: by rank pattern and suit arrangement. Four ranks or fewer
   (quads and a pair, two pair and two singles, ...) hold no straight and no flush, so the
   pattern gives the class and the count is a product of binomials; five ranks with one
   paired and six single ranks are counted per rank set (1,287 and 1,716 of them), of
   whose 1,536 and 4,096 suit arrangements 12 and 76 put five or six cards in one suit.
4. The folded hands' sets (what a fold takes out of play): per class of hand, the dealer
   hands by rank pattern, then the rank sets that complete a straight, then the suit
   arrangements that complete a flush with the hand's own suited cards.

The table's start-up self-check reads the same counts for every qualifier from
`controller/game/deck_counts.json`, checked against its SHA-256 (and the tests prove the
file equals both the counting and the enumeration): it counts nothing.
"""

#: The lean table's targets: (script, figure, target, "at most" or "at least", note)
TARGETS: list[tuple[str, str, float, str, str]] = [
    ("bench_simulate.py", "journal bytes per settled 7-seat round", 1_000, "at most", ""),
    ("bench_daemon.py", "daemon resident memory once READY, `run --demo --headless`", 60,
     "at most", ""),
    ("bench_daemon.py", "daemon start to READY (sd_notify), `run --demo --headless`", 0.3,
     "at most", ""),
    ("bench_par_sheet.py", "`threecard par-sheet --rules live --json`, wall time", 0.5,
     "at most", ""),
    ("bench_settle.py", "`threecard settle` throughput against a plain JSON pipe", 1.0,
     "at least", ""),
    ("bench_daemon.py", "card frame on the pty to player view snapshot, p99", 5, "at most",
     ""),
]


def peer_versions() -> dict[str, str]:
    out = {}
    for name in PEERS:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed (pip install -e '.[bench]' installs it)"
    return out


def md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def seals_section() -> str:
    """The full run of ``bench_seals.py`` (its 100,000-round journal takes 15 minutes)."""
    head = "## Sealed records, full run\n\n"
    cmd = ("`python benchmarks/bench_seals.py --json --baseline DIR --keep DIR > "
           "benchmarks/seals-result.json` (DIR: a checkout of the version before seals; not "
           "part of CI)")
    try:
        res = json.loads(SEALS_RESULT.read_text(encoding="utf-8").strip().splitlines()[-1])
    except (OSError, json.JSONDecodeError, IndexError) as exc:
        return head + f"Not available ({exc}). Command: {cmd}.\n"
    out = [head + f"Command: {cmd}.\n", "| " + " | ".join(HEADERS) + " |",
           "|" + "---|" * len(HEADERS)]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows(res)]
    out += [""] + [f"- {md_escape(n)}" for n in res.get("notes", [])]
    return "\n".join(out) + "\n"


def soak_section() -> str:
    head = "## Soak run\n\n"
    cmd = "`python benchmarks/soak.py` (one command; not part of CI)"
    if not SOAK_RESULT.exists():
        return head + f"Not run yet. Command: {cmd}.\n"
    try:
        data = json.loads(SOAK_RESULT.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return head + f"The soak result file could not be read ({exc}).\n"
    rounds = data.get("rounds")
    lines = [head + f"Command: {cmd}, by default 1,000,000 rounds. Result of "
             f"{data.get('finished', '?')}"
             + (f", {rounds:,} rounds" if isinstance(rounds, int) else "") + ":\n"]
    lines.append("| check | result | detail |\n|---|---|---|")
    for c in data.get("checks", []):
        lines.append(f"| {md_escape(c.get('name', ''))} | {c.get('result', '')} | "
                     f"{md_escape(c.get('detail', ''))} |")
    for n in data.get("notes", []):
        lines.append(f"\n- {md_escape(n)}")
    return "\n".join(lines) + "\n"


def write_markdown(path: Path, info: dict[str, Any], results: dict[str, dict[str, Any]],
                   quick: bool, seconds: float, finished: str | None = None) -> None:
    out = ["# Benchmarks", "",
           "Our figures and each peer's, measured side by side in one run on one machine. "
           "Regenerate with:", "",
           "```sh", "pip install -e '.[bench]'",
           f"python benchmarks/run.py{' --quick' if quick else ''}", "```", "",
           f"This file: {'quick' if quick else 'full'} run of "
           f"{finished or '?'}, {seconds / 60:.1f} min (figures also in "
           "`benchmarks/last-run.json`). "
           "Each figure is the median of several runs; the spread is min – max over those runs "
           "(and the interquartile range from four runs on). \"ours vs peer\" is the ratio of "
           "the medians, oriented so that a number above 1 means ours is ahead.", "",
           "## Machine", "", "| | |", "|---|---|"]
    for k, v in info.items():
        out.append(f"| {k} | {md_escape(v)} |")
    out += ["", "Peers (benchmark extra only, never a runtime dependency):", ""]
    for name, ver in peer_versions().items():
        out.append(f"- {name} {ver}")
    out += ["", "## The lean table: ours against the targets", "",
            "| " + " | ".join(TARGET_HEADERS) + " |", "|" + "---|" * len(TARGET_HEADERS)]
    out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in target_rows(results)]
    out += ["", "Times are wall times of this run, on this machine, with what else ran on it "
            "(the load average above): where a whole process is timed, its CPU time is given "
            "beside it (in the figures below)."]
    out += ["", "## Summary", ""] + summary_lines(results) + ["", "## Figures", ""]
    for script, res in results.items():
        title, what = BENCHES.get(script, (script, ""))
        out.append(f"### {title}")
        out.append("")
        if what:
            out.append(f"{what} (`benchmarks/{script}`).")
            out.append("")
        if "error" in res:
            out.append(f"**{md_escape(res['error'])}**")
            out.append("")
            continue
        if "side_by_side" in res:
            head, body = side_rows(res["side_by_side"])
            out.append("| " + " | ".join(md_escape(h) for h in head) + " |")
            out.append("|---|---|" + "---:|" * (len(head) - 2))
            out += ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in body]
            out.append("")
            out += [f"- *{md_escape(r['name'])}*: {md_escape(r['note'])}"
                    for r in res["side_by_side"]["rows"] if r.get("note")]
            out += [f"- {md_escape(n)}" for n in res.get("notes", [])]
            out.append("")
            continue
        out.append("| " + " | ".join(HEADERS) + " |")
        out.append("|" + "---|" * len(HEADERS))
        for r in rows(res):
            out.append("| " + " | ".join(md_escape(c) for c in r) + " |")
        out.append("")
        for f in res.get("figures", []):
            if f.get("note"):
                out.append(f"- *{md_escape(f['name'])}*: {md_escape(f['note'])}")
        for n in res.get("notes", []):
            out.append(f"- {md_escape(n)}")
        out.append("")
    out += ["## What the peers cannot do", "",
            "- **3-card hands**: treys and phevaluator evaluate 5 to 7 cards only, and rank "
            "a flush above a straight (5-card order). pokerkit's `RhodeIslandHoldemHand` "
            "ranks 3-card hands in the Three Card Poker order (straight above flush, A-2-3 "
            "the lowest straight); the benchmark checks that it orders all 22,100 hands "
            "exactly as we do.",
            "- **6 Card Bonus**: every peer can find the best five of six cards, but none "
            "enumerates sets in bulk; each is called once per set. A royal flush is read as "
            "rank 1 (treys, phevaluator) or the top straight flush (pokerkit).",
            "- **Par sheet, settlement, the round engine, the shoe link and the screens** "
            "have no counterpart in these libraries: those figures stand against the targets "
            "of the issues and, for the par sheet, a plain enumeration written in the "
            "benchmark.", ""]
    out.append(METHOD)
    out.append(seals_section())
    out.append("<!-- soak -->")
    out.append(soak_section())
    out.append("<!-- /soak -->")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ main

def _loadavg() -> float | None:
    """The 1-minute load average (other work on the machine skews every figure)."""
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, smaller samples")
    ap.add_argument("--only", nargs="+", metavar="SCRIPT",
                    help="run only these scripts (e.g. bench_eval.py)")
    ap.add_argument("--output", type=Path, default=ROOT / "BENCHMARKS.md",
                    help="where to write the report (default BENCHMARKS.md at the repo root)")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--timeout", type=float, default=3600,
                    help="seconds allowed per script (default 3600)")
    ap.add_argument("--render", action="store_true",
                    help="rewrite the report from the last run's saved figures, run nothing")
    args = ap.parse_args()

    if args.render:
        saved = json.loads(LAST_RUN.read_text(encoding="utf-8"))
        print_tables(saved["machine"], saved["results"], saved["quick"])
        write_markdown(args.output, saved["machine"], saved["results"], saved["quick"],
                       saved["seconds"], saved.get("finished"))
        return 0
    scripts = list(BENCHES) + sorted(p.name for p in HERE.glob("bench_*.py")
                                     if p.name not in BENCHES)
    if args.only:
        scripts = [s if s.endswith(".py") else f"{s}.py" for s in args.only]
    # an installed wheel has its bytecode compiled (pip does it); so does the tree measured
    subprocess.run([sys.executable, "-m", "compileall", "-q", "controller", "drivers",
                    "display", "simulators"], cwd=ROOT, check=False)
    info = machine()
    info["bytecode"] = "compiled before the run (compileall), as a pip install leaves it"
    load0 = _loadavg()
    results: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for script in scripts:
        print(f"running {script} ...", file=sys.stderr, flush=True)
        results[script] = run_bench(script, args.quick, args.timeout)
        took = results[script].get("_seconds")
        if took is not None:
            print(f"  done in {took:.0f} s", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - t0
    if load0 is not None:
        info["load average (1 min) at start / end"] = f"{load0:.2f} / {_loadavg():.2f}"
    print_tables(info, results, args.quick)
    if not args.no_write:
        finished = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        LAST_RUN.write_text(json.dumps({"machine": info, "results": results, "quick": args.quick,
                                        "seconds": seconds, "finished": finished}, indent=1)
                            + "\n", encoding="utf-8")
        write_markdown(args.output, info, results, args.quick, seconds, finished)
        print(f"wrote {args.output.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
