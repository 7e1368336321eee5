"""Sealed records: what the seals cost the table, and how fast they are checked.

- Disk flushes per journaled event and per settled 7-seat round: ``strace -f -c`` (the
  fsync and fdatasync calls) of the real daemon, ``threecard run --demo --headless
  --seats 7 --rounds N --pace-ms 0`` on a new journal (ext4 here), and the bytes it
  writes (``write_bytes`` of ``/proc/<pid>/io``). ``--baseline DIR`` measures a checkout of
  an earlier version the same way (its ``controller`` imported from DIR).
- Seals signed and verified per second (Ed25519, ``cryptography``): a seal is the next
  key derived, the signature made; a check is the signature checked with the epoch's key.
- Start to READY (a :class:`~controller.game.table.Table` constructed) and the full check
  (``verify-journal``: chain, seals, replay) on journals of 15,000 and 100,000 rounds;
  the full check's rate in events a second.

Run: ``python benchmarks/bench_seals.py [--json] [--quick] [--baseline DIR] [--keep DIR]``
(``--quick``: 20 rounds for the disk figures and the 15,000-round journal only).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_startup import open_table, write_journal  # noqa: E402
from common import emit, figure, machine, na, parser, show, stats  # noqa: E402

_IO = """import sys
from controller.cli import main
rc = main(sys.argv[1:])
io = dict(x.split(": ") for x in open("/proc/self/io").read().splitlines() if x)
print("WRITE_BYTES", io["write_bytes"], file=sys.stderr)
sys.exit(rc)
"""


def daemon_io(tree: str | None, rounds: int, tmp: Path) -> dict[str, float]:
    """Flushes and bytes of ``run --demo`` for ``rounds`` 7-seat rounds (tree: a checkout)."""
    tmp.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp / "state"))
    if tree:
        env["PYTHONPATH"] = tree
    args = ["run", "--demo", "--headless", "--seats", "7", "--rounds", str(rounds),
            "--pace-ms", "0"]
    out: dict[str, float] = {}
    if shutil.which("strace"):
        journal = tmp / "flush.sqlite3"
        trace = tmp / "strace.txt"
        subprocess.run(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(trace),
                        sys.executable, "-c", _IO, *args, "--journal", str(journal)],
                       env=env, cwd=tree or None, capture_output=True, check=True)
        calls = sum(int(m.group(1)) for m in re.finditer(
            r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?f(?:data)?sync$",
            trace.read_text(), re.M))
        events = _count(journal, "SELECT COUNT(*) FROM events")
        out.update(fsyncs=calls, events=events)
    journal = tmp / "bytes.sqlite3"
    p = subprocess.run([sys.executable, "-c", _IO, *args, "--journal", str(journal)],
                       env=env, cwd=tree or None, capture_output=True, text=True, check=True)
    out["bytes"] = int(re.search(r"WRITE_BYTES (\d+)", p.stderr).group(1))
    out["rounds"] = rounds
    return out


def _count(path: Path, sql: str) -> int:
    import sqlite3

    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.close()


def seal_rates(n: int) -> tuple[float, float]:
    """(seals signed a second, seals verified a second) over ``n`` epochs."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from controller.journal import seal as sealing

    jid, head = "ab" * 32, "cd" * 32
    key = Ed25519PrivateKey.generate()
    made = []
    t0 = time.perf_counter()
    for e in range(n):
        nxt = sealing.next_key(key, jid, e + 1)
        pub = sealing.raw_public(nxt)
        made.append((sealing.raw_public(key), e, pub,
                     key.sign(sealing.message(jid, e, e, head, pub))))
        key = nxt
    signed = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for public, e, pub, sig in made:
        assert sealing.signature_ok(public, sig, sealing.message(jid, e, e, head, pub))
    return signed, n / (time.perf_counter() - t0)


def full_check(path: Path) -> tuple[float, int]:
    """Seconds ``verify-journal`` takes (in this process), and the events it checked."""
    from controller.game import recall

    t0 = time.perf_counter()
    v = recall.verify(path)
    took = time.perf_counter() - t0
    assert v.ok, v.summary()
    return took, v.events


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--baseline", metavar="DIR", help="a checkout of an earlier version")
    ap.add_argument("--keep", metavar="DIR", help="keep and reuse the large journals here")
    args = ap.parse_args()
    rounds = 20 if args.quick else 60
    figures, notes = [], []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        keep = Path(args.keep) if args.keep else tmp
        keep.mkdir(parents=True, exist_ok=True)
        os.environ["XDG_STATE_HOME"] = str(keep / "state")  # the kept journals' keys
        runs = {"ours": daemon_io(None, rounds, tmp / "ours")}
        if args.baseline:
            (tmp / "base").mkdir()
            runs["baseline"] = daemon_io(args.baseline, rounds, tmp / "base")
        for name, unit, fn in (
                ("disk flushes per journaled event", "fsyncs",
                 lambda r: r["fsyncs"] / r["events"] if "fsyncs" in r else None),
                ("disk flushes per settled 7-seat round", "fsyncs",
                 lambda r: r["fsyncs"] / r["rounds"] if "fsyncs" in r else None),
                ("bytes written per settled 7-seat round", "KB",
                 lambda r: r["bytes"] / r["rounds"] / 1000)):
            vals = {k: fn(r) for k, r in runs.items()}
            ours = (stats([vals["ours"]], f"{rounds} rounds of run --demo, 7 seats")
                    if vals["ours"] is not None else na("strace missing"))
            peers = ({"earlier version": stats([vals["baseline"]])}
                     if vals.get("baseline") is not None else {})
            figures.append(figure(name, unit, "lower", ours, peers))
        signed, verified = seal_rates(2000 if args.quick else 20000)
        figures.append(figure("seals signed", "seals/s", "higher", stats([signed])))
        figures.append(figure("seals verified", "seals/s", "higher", stats([verified])))
        for size in ([15_000] if args.quick else [15_000, 100_000]):
            path = keep / f"sealed-{size}.sqlite3"
            if not path.exists() or _count(path, "SELECT rounds FROM meters WHERE name = "
                                                 "'total'") < size:
                print(f"writing a {size:,}-round journal...", file=sys.stderr)
                t0 = time.perf_counter()
                write_journal(path, size)
                notes.append(f"{size:,}-round journal written in "
                             f"{time.perf_counter() - t0:.0f} s (sealed, 7 seats)")
            ready = [open_table(path) for _ in range(3)]
            figures.append(figure(f"start to READY, {size:,} rounds", "s", "lower",
                                  stats(ready)))
            took, events = full_check(path)
            figures.append(figure(f"full check (verify-journal), {size:,} rounds", "s",
                                  "lower", stats([took], f"{events:,} events")))
            figures.append(figure(f"full check rate, {size:,} rounds", "events/s", "higher",
                                  stats([events / took])))
    notes.append(f"machine: {machine()}")
    (emit if args.json else show)("seals", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
