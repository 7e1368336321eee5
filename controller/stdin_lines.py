"""Lines from a file descriptor, each at most a given length (the control channel's input).

A longer line is skipped as it arrives, reported as one ``None``: a runaway writer grows nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator


def read_lines(fd: int, limit: int) -> Iterator[bytes | None]:
    """The lines read from ``fd`` until end of input, without newline (None: one over ``limit``)."""
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
