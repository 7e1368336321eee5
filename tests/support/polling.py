"""Waiting in tests for something another thread or process does."""

from __future__ import annotations

import time
from collections.abc import Callable


def until(pred: Callable[[], object], timeout: float = 5.0, every: float = 0.02) -> bool:
    """Poll ``pred`` every ``every`` seconds until it is true; False after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True
