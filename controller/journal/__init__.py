"""The journal's storage: the file, its rows, its lock, its anchor and its seals (no replay)."""

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
