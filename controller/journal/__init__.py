"""The journal's storage: the file, its rows, its lock, its anchor and its seals.

:class:`Journal` (``journal.py``) opens a journal and appends to it; ``read.py`` answers
every question a reader asks; ``store.py`` and ``codec.py`` are how rows sit in the file
(docs/journal-format.md); ``schema.py`` the tables; ``lock.py`` the one writer;
``anchor.py`` the head kept beside the file; ``seal.py`` the forward-secure signatures.
Nothing here replays the game: the verifier and the archive, which do, are in
:mod:`controller.game` and import this package.
"""

from controller.journal.journal import (
    ARCHIVE_OF,
    GENESIS,
    OUTBOX_TABLE,
    WAL_SIZE_LIMIT,
    AnchorError,
    ChainReport,
    Journal,
    JournalError,
    JournalUnreadable,
    Record,
    chain_hash,
    snapshot_hash,
)

__all__ = ["ARCHIVE_OF", "AnchorError", "ChainReport", "GENESIS", "Journal", "JournalError",
           "JournalUnreadable", "OUTBOX_TABLE", "Record", "WAL_SIZE_LIMIT", "chain_hash",
           "snapshot_hash"]
