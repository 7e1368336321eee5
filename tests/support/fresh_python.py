"""What a fresh interpreter has loaded after running some code: import walls seen in a process.

A module imported by the test process itself proves nothing about what a daemon or a driver
loads on its own; these run the code in a new interpreter (the one running the tests) and
read its ``sys.modules`` afterwards.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable

_REPORT = "\nimport sys as _sys\nprint(' '.join(_sys.modules))\n"


def modules_after(code: str, timeout: float = 120) -> frozenset[str]:
    """Every module name in ``sys.modules`` once ``code`` has run in a fresh interpreter.

    Raises:
        AssertionError: the code failed (its stderr in the message).
    """
    done = subprocess.run([sys.executable, "-c", code + _REPORT], capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"the probe exited {done.returncode}:\n{done.stderr}"
    return frozenset(done.stdout.splitlines()[-1].split())


def packages_after(code: str, among: Iterable[str], timeout: float = 120) -> list[str]:
    """The top-level packages of ``among`` loaded once ``code`` has run, sorted."""
    return sorted({m.split(".")[0] for m in modules_after(code, timeout)} & set(among))
