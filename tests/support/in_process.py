"""The ``threecard`` command run in the test's own process, for tests that run it many times.

The same ``controller.cli.main`` the installed command calls, without a new interpreter and
its imports each time (about 0.15 s of CPU a run, 1 s for a report's plotting library).
What only a new process shows (exit on a signal, a traceback, the console script) is tested
with ``subprocess`` elsewhere.
"""

from __future__ import annotations

import contextlib
import io
import subprocess

from controller.cli import main


def threecard(*argv: object) -> subprocess.CompletedProcess:
    """Run ``threecard ARGV...`` here: its exit status, standard output and error as text."""
    args = [str(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exc:  # argparse's refusals
            status = exc.code if isinstance(exc.code, int) else 1 if exc.code else 0
    return subprocess.CompletedProcess(["threecard", *args], int(status or 0),
                                       out.getvalue(), err.getvalue())
