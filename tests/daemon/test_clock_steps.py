"""A real daemon whose wall clock is set back two days and forward again (libfaketime).

A machine without a real-time clock boots with a stale clock that NTP then steps: here
libfaketime (Debian package ``faketime``) moves the daemon's wall clock through a file the
test rewrites while it plays, and leaves its monotonic clock alone
(``FAKETIME_DONT_FAKE_MONOTONIC``). The steps must be journaled as facts; recall, the shift
report and verify-journal read the journal afterwards on the real clock.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime

import pytest

from controller.game.clock_steps import CLOCK_STEP
from controller.journal import Journal

TWO_DAYS_MS = 2 * 86_400_000
ABOUT_TWO_DAYS = r"(2 d 00:00:0\d|1 d 23:59:5\d)\.\d{3}"
"""Two days as a step's words, to the second either side (the clocks are read in turn)."""
LIBS = ("/usr/lib/*/faketime/libfaketimeMT.so.1", "/usr/lib/faketime/libfaketimeMT.so.1",
        "/usr/local/lib/faketime/libfaketimeMT.so.1")


def _faketime() -> str:
    """libfaketime's library for threaded programs; skipped without it (failed in CI)."""
    found = [p for pattern in LIBS for p in sorted(glob.glob(pattern))]
    if found:
        return found[0]
    why = "libfaketime is not installed (Debian package faketime)"
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        pytest.fail(f"{why}: CI installs it (.ci/run)")
    pytest.skip(why)


def _set_offset(path, offset: str) -> None:
    """Step the daemon's wall clock: libfaketime reads the file at every call."""
    tmp = path.with_suffix(".new")
    tmp.write_text(offset + "\n")
    os.replace(tmp, path)  # never a half-written file


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def _t(utc: str) -> datetime:
    return datetime.fromisoformat(utc)


def test_a_clock_set_back_two_days_and_forward_again_is_journaled_and_read_right(
        daemons, table_config, tmp_path):
    lib = _faketime()
    journal = tmp_path / "journal.sqlite3"
    offset = tmp_path / "faketime.rc"
    _set_offset(offset, "+0")
    d = daemons(["--config", str(table_config), "--shoe", "sim://?dialect=native",
                 "--headless", "--autoplay", "--rounds", "4", "--pace-ms", "30"],
                env={"LD_PRELOAD": lib, "FAKETIME_TIMESTAMP_FILE": str(offset),
                     "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1"})
    d.wait_for(r"READY")
    d.wait_for(r"INFO +round 1: dealer ")
    _set_offset(offset, "-2d")  # back two days, as a clock a stale boot set
    d.wait_for(r"INFO +round 2: dealer ")
    _set_offset(offset, "+0")   # and NTP puts it right
    assert d.proc.wait(60) == 0  # --rounds 4: it stops by itself
    d.stop()
    assert any("stopped: 4 rounds settled" in line for line in d.lines)
    for way in ("back", "forward"):  # said where an operator sees it
        assert any(re.search(rf"WARNING +the wall clock was set {way} by 17(2799|2800)\.\d+ s",
                             line) for line in d.lines), way

    j = Journal(journal, readonly=True)
    try:
        steps = [json.loads(r.body) for r in j.records() if r.kind == CLOCK_STEP]
    finally:
        j.close()
    assert [round(s["ms"] / TWO_DAYS_MS) for s in steps] == [-1, 1], steps
    for s, sign in zip(steps, (-1, 1), strict=True):
        assert abs(s["ms"] - sign * TWO_DAYS_MS) < 1000, s  # the monotonic clock ran true
        assert not s.get("restart")

    run = _cli("recall", "--journal", journal, "--json")
    assert run.returncode == 0, run.stderr
    rounds = json.loads(run.stdout)
    assert [r["round_id"] for r in rounds] == [4, 3, 2, 1]  # the journal's order
    for r in rounds:
        assert _t(r["started_utc"]) <= _t(r["ended_utc"]), r
    ends = [_t(r["ended_utc"]) for r in reversed(rounds)]
    assert ends == sorted(ends)
    assert sorted(s["ms"] for r in rounds for s in r.get("clock_steps", ())) == \
        sorted(s["ms"] for s in steps)

    out = tmp_path / "shift.pdf"
    run = _cli("report", "shift", "--journal", journal, "--hours", "1", "--out", out)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ": 4 rounds settled, 0 voided" in run.stdout  # the period, on corrected times
    if shutil.which("pdftotext") is not None:
        text = " ".join(subprocess.run(["pdftotext", str(out), "-"], capture_output=True,
                                       text=True, check=True).stdout.split())
        assert re.search(f"The table's clock was set back {ABOUT_TWO_DAYS}", text)
        assert re.search(f"The table's clock was set forward {ABOUT_TWO_DAYS}", text)

    run = _cli("verify-journal", "--journal", journal)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "journal OK" in run.stdout
    assert re.search(f"; clock set back {ABOUT_TWO_DAYS} at event", run.stdout)
    assert re.search(f"; clock set forward {ABOUT_TWO_DAYS} at event", run.stdout)
