"""Lines from a file descriptor, each at most a given length (the control channel's input).

A line longer than the limit is never held whole in memory: it is skipped as it arrives
and reported as one ``None``, so a runaway writer on stdin cannot grow the daemon.
"""

from __future__ import annotations

import os
from collections.abc import Iterator


def read_lines(fd: int, limit: int) -> Iterator[bytes | None]:
    """The lines read from ``fd`` until end of input, without their newline.

    Args:
        fd: an open file descriptor (blocking reads of up to 64 KiB).
        limit: the longest line taken, in bytes.

    Yields:
        Each line's bytes, or None for a line over ``limit`` bytes.
    """
    pending, skipping = b"", False
    while chunk := os.read(fd, 65536):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if skipping:
                skipping = False
                yield None
            elif len(line) > limit:
                yield None
            else:
                yield line
        if len(pending) > limit:
            pending, skipping = b"", True
    if skipping or len(pending) > limit:
        yield None
    elif pending:
        yield pending
