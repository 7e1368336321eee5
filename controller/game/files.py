"""Files written whole or not at all: what the commands hand over (a key, a report, a bundle).

A temporary file beside the target is flushed, then put in place in one step (a rename, or a
hard link where an existing file must not be replaced): a crash leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (the new name) to the disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def new_file(path: str | Path, mode: int = 0o644, replace: bool = True
             ) -> Iterator[BinaryIO]:
    """Write ``path`` whole or not at all; yields a binary temporary file in the same folder.

    ``mode`` is set whatever the umask (``0o600`` for a private key).

    Raises:
        FileExistsError: ``replace`` is False and ``path`` exists (checked atomically).
        OSError: the file cannot be written; nothing is left behind.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            yield f
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if a file is there: never overwritten
            os.unlink(tmp)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)


def write_new_file(path: str | Path, data: bytes, mode: int = 0o644, replace: bool = True
                   ) -> None:
    """Write ``data`` to ``path`` whole or not at all (:func:`new_file`; same errors)."""
    with new_file(path, mode, replace) as f:
        f.write(data)


__all__ = ["new_file", "write_new_file"]
