"""One writer per journal: the lock a table holds on its journal while it writes (R2)."""

from __future__ import annotations

import contextlib
import fcntl
import os

from controller.journal.anchor import JournalError


def _holder(lock_file: str) -> str:
    try:
        with open(lock_file, "rb") as f:
            return f.read(32).decode("ascii", "replace").strip()
    except OSError:
        return ""


class WriterLock:
    """The writer's lock on one journal, taken when made (JournalError: held, or not opened)."""

    def __init__(self, real: str, path: str) -> None:
        # the journal file itself first: a hard link is another path (and lock file) to
        # the same file, and flock holds on the file, not on its name (SQLite's own locks
        # are POSIX record locks, which flock leaves alone); refused here, a writer under
        # another name leaves no lock file beside this name
        try:
            file_fd = os.open(real, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise JournalError(f"{path}: cannot open the journal: {exc.strerror}") from None
        try:
            fcntl.flock(file_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(file_fd)
            holder = _holder(real + ".lock")
            raise JournalError(f"{path}: the journal is in use by another table process"
                               + (f" (pid {holder})" if holder else " under another name "
                                  "(a hard link)") + "; stop it first") from None
        try:
            fd = os.open(real + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            os.close(file_fd)
            raise JournalError(f"{path}: cannot open the journal: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            os.close(file_fd)
            raise JournalError(f"{path}: the journal is in use by another table "
                               f"process (pid {holder}); stop it first") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as exc:
            os.close(fd)
            os.close(file_fd)
            raise JournalError(f"{path}: cannot open the journal: {exc.strerror}") from None
        self._fds: list[int] = [file_fd, fd]

    def release(self) -> None:
        """Let another writer in by closing the lock's descriptors; the ``.lock`` file stays.

        Removing it could let two writers lock two files.
        """
        while self._fds:
            with contextlib.suppress(OSError):
                os.close(self._fds.pop(0))


__all__ = ["WriterLock"]
