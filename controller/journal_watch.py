"""The whole journal checked once the table is READY: what start-up leaves to the full check.

Start-up checks from the anchored snapshot, so an old event edited in place is found only
from the first event. A child ``verify-journal --json`` of this very code spares the daemon's
memory; a broken journal locks the table (R4), a check that cannot be made locks nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.game.verdict import integrity_lock

log = logging.getLogger("threecard")

POLL_S = 0.5


@dataclass(frozen=True, slots=True)
class FullCheck:
    """The answer of :func:`check_in_full`: ``ok`` None when it could not be made (``summary``)."""

    ok: bool | None
    summary: str
    message: str = ""
    problems: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0


def check_in_full(journal: str, stop: threading.Event, resume: tuple[int, str] | None = None,
                  on_progress: Callable[[int, str], None] | None = None) -> FullCheck | None:
    """Run ``threecard verify-journal --json`` on ``journal``; its verdict (None: stopped).

    ``resume``: (snapshot event, seal) already verified; ``on_progress`` gets each new one.
    """
    t0 = time.monotonic()
    cmd = own_code_command("verify-journal", f"--journal={journal}", "--json", "--progress",
                           *([f"--resume={resume[0]}:{resume[1]}"] if resume else []))
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        return FullCheck(None, f"the check could not start: {exc}")
    lines: list[str] = []
    err: list[str] = []

    def read_out() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            if on_progress is not None and line.startswith('{"progress"'):
                try:
                    p = json.loads(line)
                    on_progress(int(p["progress"]), str(p["seal"]))
                except Exception:  # noqa: BLE001 - progress is no verdict: the check goes on
                    log.exception("journal %s: a full check's progress not kept", journal)

    readers = [threading.Thread(target=read_out, daemon=True),
               threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True)]
    for r in readers:
        r.start()
    while proc.poll() is None:
        if stop.wait(POLL_S) and proc.poll() is None:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            return None
    for r in readers:
        r.join(5)
    seconds = time.monotonic() - t0
    verdict = [x for x in lines if not x.startswith('{"progress"')]
    return _read_verdict(proc.returncode, "".join(verdict), "".join(err), seconds)


def own_code_command(*args: str) -> list[str]:
    """A command line running ``threecard ARGS`` with this very package, isolated (``-I``)."""
    import controller

    root = os.path.dirname(os.path.dirname(os.path.abspath(controller.__file__)))
    return [sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
            "from controller.cli import main; sys.exit(main(sys.argv[2:]))", root, *args]


def _mark_file(journal: str) -> str:
    return os.path.realpath(journal) + ".broken"


def broken_mark(journal: str) -> str | None:
    """The lock an earlier full check left beside ``journal`` (None: none).

    The next start locks at once: a restart is never a way round a lock (R2, R4).
    """
    try:
        with open(_mark_file(journal), encoding="utf-8", errors="replace") as f:
            return f.read(2000).strip() or integrity_lock("an earlier full check failed")
    except FileNotFoundError:
        return None
    except OSError as exc:  # there, but not readable: held all the same
        return integrity_lock(f"an earlier full check failed ({exc.strerror})")


def mark_broken(journal: str, reason: str) -> None:
    """Leave ``reason`` beside ``journal`` for the next start, whole or not at all (else logged)."""
    path = _mark_file(journal)
    try:
        with open(path + ".new", "w", encoding="utf-8") as f:
            f.write(reason + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(path + ".new", path)
        fd = os.open(os.path.dirname(path), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        log.error("journal %s: the lock could not be kept for the next start (%s)", journal,
                  exc)


def lift_mark(journal: str) -> None:
    """Remove the mark of :func:`mark_broken`: a full check found ``journal`` sound."""
    try:
        os.remove(_mark_file(journal))
    except FileNotFoundError:
        return
    except OSError as exc:
        log.error("journal %s: the lock an earlier check left could not be lifted (%s)",
                  journal, exc)
        return
    log.warning("journal %s verifies in full again: the lock an earlier full check left "
                "beside it is lifted from the next start", journal)


def check_beside(table: Any, journal: str, stop: threading.Event) -> FullCheck | None:
    """Check ``journal`` in full beside its running table; lock it when broken (None: stopped)."""
    resume = table.journal.checked_to()
    log.info("journal %s: checking it in full from %s (the table plays on meanwhile)", journal,
             f"event {resume[0]}, where an earlier check stopped" if resume
             else "its first event")
    out = check_in_full(journal, stop, resume, table.note_check)
    if out is None:
        return None
    if out.ok:
        log.info("journal %s checked in full in %.1f s: %s", journal, out.seconds, out.summary)
        lift_mark(journal)
    elif out.ok is None:
        log.error("journal %s: %s; run `threecard verify-journal`", journal, out.summary)
    else:
        log.error("journal %s: %s", journal, out.summary)
        table.lock(integrity_lock(out.message))
        mark_broken(journal, integrity_lock(out.message))
    return out


def _read_verdict(code: int, out: str, err: str, seconds: float) -> FullCheck:
    try:
        v = json.loads(out)
        ok, summary = v["ok"], v["verdict"]
        problems = tuple((p["kind"], p["message"]) for p in v["problems"])
    except (ValueError, TypeError, KeyError):
        why = (err.strip().splitlines() or [f"exit status {code}, no verdict"])[-1]
        return FullCheck(None, f"the check gave no verdict: {why[:300]}", seconds=seconds)
    if not isinstance(ok, bool) or not isinstance(summary, str) or ok is bool(problems):
        return FullCheck(None, "the check gave no verdict: its answer does not read",
                         seconds=seconds)
    return FullCheck(ok, summary, "; ".join(m for _, m in problems), problems, seconds)


__all__ = ["FullCheck", "broken_mark", "check_beside", "check_in_full", "lift_mark",
           "mark_broken"]
