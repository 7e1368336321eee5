"""Soak run: a million rounds of 7 seats with random shoe faults, then three checks.

    python benchmarks/soak.py            # threecard simulate --rounds 1000000 --seats 7
                                         #   --faults random --json, watched from outside

Every fault kind the simulated shoe knows is injected at a low rate (``random``: 0.001 per
round; ``--faults`` changes it). The journal is a file in a temporary directory (as
``threecard simulate`` uses by default); after the run its hash chain is verified with
``threecard verify-journal`` when that command is available.

Checks (written to ``benchmarks/soak-result.json`` and the soak section of BENCHMARKS.md):

1. **Invariants**: the simulation reports zero invariant violations.
2. **Memory**: resident memory (VmRSS of the process tree, sampled from /proc while it
   runs, or the simulation's own per-round samples when it prints them) is flat: the median
   over the last 10 % of the run is at most 10 % (or 10 MiB, whichever is larger) above the
   median over the first 10 %.
3. **Returns**: each bet's observed return is within three standard errors of its exact
   expected return. The expectation is the par sheet's, adjusted exactly where the rules
   change it (a fold loses the 6 Card Bonus under ``live``: enumerated over every folded
   hand and dealer hand). The standard error comes from the variance of a 7-seat round's
   total per bet (seats share the dealer's hand, so they are not independent), estimated by
   a vectorised side simulation of 200,000 rounds with our own evaluators.

Not part of CI; it takes as long as a million rounds take.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULT = HERE / "soak-result.json"
BENCHMARKS_MD = ROOT / "BENCHMARKS.md"
BETS = ("ante_play", "pair_plus", "six_card_bonus")


# ------------------------------------------------------------------ memory sampling

def _tree(pid: int) -> list[int]:
    """The process and all its descendants (from /proc/<pid>/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as fh:
                    todo += [int(c) for c in fh.read().split()]
        except OSError:
            continue
    return out


def rss_kib(pid: int) -> int | None:
    """Resident memory of a process tree in KiB, or None once it is gone."""
    total, seen = 0, False
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        seen = True
                        break
        except OSError:
            continue
    return total if seen else None


class Sampler(threading.Thread):
    """Samples the RSS of a process tree every ``every`` seconds until it exits."""

    def __init__(self, pid: int, every: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        t0 = time.monotonic()
        while not self.stop.is_set():
            kib = rss_kib(self.pid)
            if kib is None:
                break
            self.samples.append((time.monotonic() - t0, kib))
            self.stop.wait(self.every)


def memory_check(series: list[tuple[float, int]], source: str) -> dict[str, Any]:
    """Flatness of (position, KiB) samples: first 10 % against last 10 % of the run."""
    if len(series) < 20:
        return {"name": "resident memory flat", "result": "unknown",
                "detail": f"only {len(series)} memory samples ({source})"}
    span = series[-1][0] - series[0][0]
    first = [k for x, k in series if x <= series[0][0] + 0.1 * span]
    last = [k for x, k in series if x >= series[-1][0] - 0.1 * span]
    a, b = statistics.median(first), statistics.median(last)
    allowed = max(0.10 * a, 10 * 1024)
    ok = b - a <= allowed
    return {"name": "resident memory flat", "result": "pass" if ok else "FAIL",
            "detail": f"median RSS first 10 % {a / 1024:.1f} MiB, last 10 % {b / 1024:.1f} MiB "
                      f"(growth {(b - a) / 1024:+.1f} MiB, allowed {allowed / 1024:.1f}); "
                      f"peak {max(k for _, k in series) / 1024:.1f} MiB; {len(series)} samples, "
                      f"{source}"}


# ------------------------------------------------------------------ expected returns

def _strength_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """3-card strength, class and mini-royal flag by card indexes (any order), and all hands."""
    import itertools

    from controller.game.cards import DECK
    from controller.game.hands import evaluate3

    strength = np.zeros((52, 52, 52), dtype=np.int32)
    cls = np.zeros((52, 52, 52), dtype=np.int8)
    mini = np.zeros((52, 52, 52), dtype=bool)
    hands = np.array(list(itertools.combinations(range(52), 3)), dtype=np.intp)
    for a, b, c in hands:
        v = evaluate3((DECK[a], DECK[b], DECK[c]))
        for x, y, z in itertools.permutations((a, b, c)):
            strength[x, y, z] = v.strength
            cls[x, y, z] = int(v.hand_class)
            mini[x, y, z] = v.mini_royal
    return strength, cls, mini, hands


def expected_returns(profile: Any, min_play: int, tables: tuple) -> tuple[dict[str, float],
                                                                          list[str]]:
    """Exact expected return per bet under the strategy ``strength >= min_play`` and the
    profile's fold rule, from the par sheet plus an exact fold adjustment."""
    from controller.game.enumeration import classify_six
    from controller.game.hands import SixCardClass
    from controller.game.par_sheet import compute_par_sheet

    notes = []
    sheet = compute_par_sheet(profile)
    exp = {"ante_play": float(sheet.ante_play.rtp), "pair_plus": float(sheet.pair_plus.rtp)}
    strength, _, _, hands = tables
    hs = strength[hands[:, 0], hands[:, 1], hands[:, 2]]
    folded = hands[hs < min_play]
    six_pay = np.array([profile.six_card_pay(c) for c in SixCardClass], dtype=np.int64)
    pp_note = "Pair Plus: the par sheet's return (no folded hand holds a pair or better)"
    if sheet.six_card_bonus is not None:
        six = float(sheet.six_card_bonus.rtp)
        if profile.fold_loses_side_bets:
            bits = (np.uint64(1) << hands.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
            lost = 0  # sum over (folded hand, dealer hand) of what the fold gives up
            for p in folded:
                pm = (np.uint64(1) << p.astype(np.uint64)).sum(dtype=np.uint64)
                dealers = hands[(bits & pm) == 0]
                sets = np.hstack([np.broadcast_to(p, (len(dealers), 3)), dealers])
                pay = six_pay[classify_six(sets)]
                lost += int((pay[pay > 0] + 1).sum())
            six -= lost / (len(hands) * math.comb(49, 3))
            notes.append(f"6 Card Bonus: par {float(sheet.six_card_bonus.rtp):.6f} minus "
                         f"{lost / (len(hands) * math.comb(49, 3)):.6f} lost on folds "
                         f"(exact, {len(folded):,} folded hands x 18,424 dealer hands) "
                         f"= {six:.6f}")
        exp["six_card_bonus"] = six
    notes.append(pp_note)
    return exp, notes


def round_variance(profile: Any, min_play: int, tables: tuple, seats: int, rounds: int,
                   seed: int = 2024) -> dict[str, float]:
    """Variance of one round's total net per bet (unit stakes, ``seats`` seats), by a
    vectorised side simulation."""
    from controller.game.enumeration import classify_six
    from controller.game.hands import HandClass, SixCardClass

    strength, cls, mini, _ = tables
    ab = np.array([profile.ante_bonus_pay(c) for c in HandClass], dtype=np.int64)
    pp = np.array([[profile.pair_plus_pay(c, m) for m in (False, True)] for c in HandClass],
                  dtype=np.int64)
    six_pay = np.array([profile.six_card_pay(c) for c in SixCardClass], dtype=np.int64)
    qmin = profile.qualifier.min_strength
    rng = np.random.default_rng(seed)
    totals: dict[str, list[np.ndarray]] = {b: [] for b in BETS}
    done = 0
    while done < rounds:
        n = min(50_000, rounds - done)
        deal = np.argsort(rng.random((n, 52)), axis=1)[:, : 3 * seats + 3]
        d = deal[:, -3:]
        ds = strength[d[:, 0], d[:, 1], d[:, 2]]
        qual = ds >= qmin
        sums = {b: np.zeros(n, dtype=np.int64) for b in BETS}
        for s in range(seats):
            p = deal[:, 3 * s: 3 * s + 3]
            ps = strength[p[:, 0], p[:, 1], p[:, 2]]
            pc = cls[p[:, 0], p[:, 1], p[:, 2]]
            play = ps >= min_play
            cmp = np.sign(ps - ds)
            main = np.where(qual, 2 * cmp, 1) + ab[pc]  # Ante + Play + Ante Bonus
            sums["ante_play"] += np.where(play, main, -1)
            lost = ~play if profile.fold_loses_side_bets else np.zeros(n, dtype=bool)
            pay = pp[pc, mini[p[:, 0], p[:, 1], p[:, 2]].astype(np.intp)]
            sums["pair_plus"] += np.where(lost | (pay == 0), -1, pay)
            pay6 = six_pay[classify_six(np.hstack([p, d]))]
            sums["six_card_bonus"] += np.where(lost | (pay6 == 0), -1, pay6)
        for b in BETS:
            totals[b].append(sums[b])
        done += n
    return {b: float(np.var(np.concatenate(v), ddof=1)) for b, v in totals.items()}


# ------------------------------------------------------------------ reading simulate's JSON

def _find(obj: Any, keys: tuple[str, ...]) -> Any:
    """The first value under any of ``keys`` anywhere in a JSON value (breadth first)."""
    todo = [obj]
    while todo:
        cur = todo.pop(0)
        if isinstance(cur, dict):
            for k in keys:
                if k in cur:
                    return cur[k]
            todo += list(cur.values())
        elif isinstance(cur, list):
            todo += cur
    return None


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def observed_returns(data: dict[str, Any]) -> dict[str, float]:
    """Observed return per bet from the simulation's JSON (tolerant of its exact shape)."""
    out: dict[str, float] = {}
    ret = _find(data, ("return", "observed_return", "observed_returns", "returns",
                       "observed_rtp"))
    if isinstance(ret, dict):
        for b in BETS:
            v = _num(ret.get(b))
            if v is not None:
                out[b] = v
    net = _find(data, ("net", "net_per_bet", "nets"))
    wag = _find(data, ("wagered", "total_wagered", "wagered_per_bet"))
    if isinstance(net, dict) and isinstance(wag, dict):
        def n(k: str) -> float:
            return _num(net.get(k)) or 0.0
        if "ante_play" not in out and _num(wag.get("ante")):
            out["ante_play"] = 1 + (n("ante") + n("play") + n("ante_bonus")) / wag["ante"]
        for b in ("pair_plus", "six_card_bonus"):
            if b not in out and _num(wag.get(b)):
                out[b] = 1 + n(b) / wag[b]
    return out


def memory_from_json(data: dict[str, Any]) -> list[tuple[float, int]]:
    """Per-round memory samples printed by the simulation, as (round, KiB), if any."""
    raw = _find(data, ("rss_samples", "memory_samples"))
    out = []
    if isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                r = _num(item.get("round"))
                k = _num(item.get("rss_kib", item.get("rss_kb")))
                if k is None and _num(item.get("rss_bytes")) is not None:
                    k = item["rss_bytes"] / 1024
                if r is not None and k is not None:
                    out.append((r, int(k)))
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                out.append((float(item[0]), int(item[1])))
    return out


# ------------------------------------------------------------------ main

def write_outputs(result: dict[str, Any], journal: str) -> None:
    text = json.dumps(result, indent=2)
    result = json.loads(text.replace(json.dumps(journal)[1:-1], "JOURNAL"))  # no local paths
    RESULT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if BENCHMARKS_MD.exists():
        sys.path.insert(0, str(HERE))
        from run import soak_section

        text = BENCHMARKS_MD.read_text(encoding="utf-8")
        new = f"<!-- soak -->\n{soak_section()}<!-- /soak -->"
        text, n = re.subn(r"<!-- soak -->.*?<!-- /soak -->", lambda _: new, text, flags=re.S)
        if not n:
            text += "\n" + new + "\n"
        BENCHMARKS_MD.write_text(text, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1_000_000)
    ap.add_argument("--seats", type=int, default=7)
    ap.add_argument("--faults", default="random",
                    help="simulate's fault spec (default random: every kind at 0.001 a round)")
    ap.add_argument("--rules", default="live")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--journal", default=None,
                    help="journal for simulate (default: a file in a temporary directory)")
    ap.add_argument("--sample-every", type=float, default=1.0, help="seconds between RSS samples")
    ap.add_argument("--mc-rounds", type=int, default=200_000,
                    help="rounds of the side simulation that estimates the variance")
    ap.add_argument("--no-write", action="store_true", help="do not write the result files")
    args = ap.parse_args()

    from controller.game.cards import parse_cards
    from controller.game.hands import evaluate3
    from controller.game.rules import load_profile

    exe = shutil.which("threecard") or str(Path(sys.executable).with_name("threecard"))
    tmpdir = tempfile.TemporaryDirectory(prefix="tc-soak-")
    journal = args.journal or str(Path(tmpdir.name) / "soak-journal")

    def sim_cmd(rounds: int, journal_path: str) -> list[str]:
        return [exe, "simulate", "--rules", args.rules, "--seats", str(args.seats), "--rounds",
                str(rounds), "--seed", str(args.seed), "--faults", args.faults,
                "--journal", journal_path, "--json"]

    cmd = sim_cmd(args.rounds, journal)
    probe = subprocess.run([exe, "simulate", "--help"], capture_output=True, text=True,
                           check=False)
    if probe.returncode != 0:
        last = (probe.stderr or probe.stdout).strip().splitlines()
        print("soak: `threecard simulate` is not available: "
              + (last[-1] if last else f"exit {probe.returncode}"), file=sys.stderr)
        return 2

    profile = load_profile(args.rules)
    print("soak: exact expected returns and the round variance ...", file=sys.stderr)
    min_play = evaluate3(parse_cards("Qc 6d 4h")).strength  # the Q-6-4 decision
    tables = _strength_tables()
    expected, notes = expected_returns(profile, min_play, tables)
    var = round_variance(profile, min_play, tables, args.seats, args.mc_rounds)

    calib = str(Path(tmpdir.name) / "calibration-journal")
    t0 = time.monotonic()
    cal = subprocess.run(sim_cmd(200, calib), capture_output=True, text=True, check=False)
    per_round = (time.monotonic() - t0) / 200
    if cal.returncode != 0:
        last = (cal.stderr or cal.stdout).strip().splitlines()
        print("soak: a 200-round trial run failed: " + (last[-1] if last else ""),
              file=sys.stderr)
        return 2
    jbytes = sum(f.stat().st_size for f in Path(tmpdir.name).glob("calibration-journal*"))
    free = shutil.disk_usage(Path(journal).parent).free
    need = jbytes / 200 * args.rounds
    print(f"soak: about {per_round * args.rounds / 60:,.0f} min for {args.rounds:,} rounds, "
          f"journal about {need / 2**30:.1f} GiB ({free / 2**30:.1f} GiB free)",
          file=sys.stderr, flush=True)
    if need > 0.8 * free:
        print("soak: not enough disk for the journal; give --journal on a larger disk",
              file=sys.stderr)
        return 2
    print(f"soak: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, cwd=ROOT)
        sampler = Sampler(proc.pid, args.sample_every)
        sampler.start()
        try:
            last_report = time.monotonic()
            while proc.poll() is None:
                time.sleep(1)
                if time.monotonic() - last_report < 60:
                    continue
                last_report = time.monotonic()
                if sampler.samples:
                    t, k = sampler.samples[-1]
                    print(f"soak: {t / 60:.1f} min, RSS {k / 1024:.1f} MiB", file=sys.stderr,
                          flush=True)
        except KeyboardInterrupt:
            proc.terminate()
            proc.wait()
            raise
        sampler.stop.set()
        sampler.join()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    wall = time.monotonic() - started

    checks: list[dict[str, Any]] = []
    data: dict[str, Any] | None = None
    for line in reversed(stdout.strip().splitlines()):
        if line.strip().startswith("{"):
            try:
                data = json.loads(line)
                break
            except json.JSONDecodeError:
                continue
    if proc.returncode != 0 or data is None:
        tail = (stderr or stdout).strip().splitlines()[-3:]
        checks.append({"name": "simulation finished", "result": "FAIL",
                       "detail": f"exit {proc.returncode}: {' / '.join(tail)}"})
        data = data or {}
    settled = _num(_find(data, ("rounds_settled", "settled")))
    voided = _num(_find(data, ("rounds_voided", "voided")))
    rps = _num(_find(data, ("rounds_per_second",)))
    notes.insert(0, f"`threecard {' '.join(cmd[1:])}`: {wall / 60:.1f} min wall, settled "
                    f"{settled if settled is None else f'{settled:,.0f}'}, voided "
                    f"{voided if voided is None else f'{voided:,.0f}'}, rounds/s "
                    f"{rps if rps is None else f'{rps:,.1f}'}")

    viol = _find(data, ("invariant_violations", "violations"))
    n_viol = len(viol) if isinstance(viol, list) else _num(viol)
    checks.append({"name": "zero invariant violations",
                   "result": "unknown" if n_viol is None else ("pass" if n_viol == 0 else "FAIL"),
                   "detail": "simulate printed no invariant_violations" if n_viol is None
                   else f"{n_viol:,.0f} violations"
                   + (f": {json.dumps(viol[:3])[:300]}" if isinstance(viol, list) and viol
                      else "")})

    if settled is not None:
        checks.append({"name": "every round requested settled",
                       "result": "pass" if settled >= args.rounds else "FAIL",
                       "detail": f"{settled:,.0f} of {args.rounds:,} rounds settled"})
    vj = subprocess.run([exe, "verify-journal", "--journal", journal], capture_output=True,
                        text=True, check=False)
    vj_text = (vj.stdout or vj.stderr).strip().splitlines()
    if "ModuleNotFoundError" in vj.stderr or "invalid choice" in vj.stderr:
        notes.append("`threecard verify-journal` is not available: journal chain not checked")
    else:
        checks.append({"name": "journal hash chain verifies",
                       "result": "pass" if vj.returncode == 0 else "FAIL",
                       "detail": (vj_text[-1] if vj_text else f"exit {vj.returncode}")[:300]})
    jsize = sum(f.stat().st_size for f in Path(journal).parent.glob(Path(journal).name + "*"))
    notes.append(f"journal size after the run: {jsize / 2**20:,.1f} MiB")
    if isinstance(_find(data, ("z",)), dict):
        notes.append("simulate's own z per bet (its own expectation and standard error): "
                     + json.dumps(_find(data, ("z",))))

    own = memory_from_json(data)
    checks.append(memory_check(own, "per-round samples printed by simulate") if own
                  else memory_check(sampler.samples, "VmRSS sampled from /proc every "
                                    f"{args.sample_every:g} s (first/last 10 % of wall time)"))

    observed = observed_returns(data)
    n_rounds = settled or args.rounds
    for bet in BETS:
        if bet not in expected:
            continue
        se = math.sqrt(var[bet] / n_rounds) / args.seats
        if bet not in observed:
            checks.append({"name": f"{bet} return within 3 SE", "result": "unknown",
                           "detail": f"simulate printed no observed return for {bet}; "
                                     f"expected {expected[bet]:.6f}, SE {se:.6f}"})
            continue
        z = (observed[bet] - expected[bet]) / se
        checks.append({"name": f"{bet} return within 3 SE",
                       "result": "pass" if abs(z) <= 3 else "FAIL",
                       "detail": f"observed {observed[bet]:.6f}, expected {expected[bet]:.6f}, "
                                 f"SE {se:.6f} ({n_rounds:,.0f} rounds x {args.seats} seats), "
                                 f"z = {z:+.2f}"})
    notes.append(f"SE from the variance of a {args.seats}-seat round's total per bet "
                 f"(side simulation of {args.mc_rounds:,} rounds): "
                 + ", ".join(f"{b} {v:.2f}" for b, v in var.items()))

    if sampler.samples:
        peak_t, peak = max(sampler.samples, key=lambda tk: tk[1])
        end_t = sampler.samples[-1][0]
        tail = statistics.median(k for _, k in sampler.samples[-max(1, len(sampler.samples)
                                                                  // 10):])
        if peak > 2 * tail:
            notes.append(f"RSS peaked at {peak / 1024:,.0f} MiB {end_t - peak_t:,.0f} s before "
                         "the process ended (after the rounds, while it summarised the run), "
                         f"against {tail / 1024:,.0f} MiB while dealing")
    result = {"finished": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "command": "threecard " + " ".join(cmd[1:]), "rounds": args.rounds,
              "wall_seconds": round(wall, 1),
              "checks": checks, "notes": notes, "simulate": data}
    for c in checks:
        print(f"{c['result']:>7}  {c['name']}: {c['detail']}")
    for n in notes:
        print(f"   note  {n}")
    if not args.no_write:
        write_outputs(result, journal)
    tmpdir.cleanup()
    return 0 if all(c["result"] == "pass" for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
