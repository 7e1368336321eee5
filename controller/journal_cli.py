"""``threecard journal archive``: settled history moved out of the journal, verified first.

docs/journal-archive.md gives the rules; the table must be stopped. Exit status: 0 done (or
nothing to move), 1 journal or archive unusable (nothing deleted), 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import timedelta

from controller.cli import whole_number
from controller.game.numbers import format_number

MAX_DAYS = 36_500


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``archive`` sub-command."""
    sub = parser.add_subparsers(dest="journal_command", metavar="JOURNAL_COMMAND",
                                required=True)
    a = sub.add_parser("archive", help="move settled history older than N days to an archive",
                       description="Move the journal's settled history older than DAYS into "
                       "an archive file (its events with their chain hashes, verified before "
                       "they leave the journal); the journal keeps the cut's hash and a "
                       "snapshot, so it verifies alone and with the archive. The table must "
                       "be stopped.")
    a.add_argument("--journal", required=True, help="the journal file (its table stopped)")
    a.add_argument("--older-than", required=True, type=whole_number(0, MAX_DAYS),
                   metavar="DAYS", help=f"move events older than DAYS days (0 to {MAX_DAYS})")
    a.add_argument("--out", metavar="FILE", help="the archive (default: the one the journal "
                   "names, else JOURNAL.archive beside it); a later run extends it")
    a.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Run ``journal archive``. Returns the exit status."""
    from controller.game.archive import archive
    from controller.journal import JournalError

    try:
        r = archive(args.journal, timedelta(days=args.older_than), args.out)
    except JournalError as exc:
        print(f"threecard journal archive: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"journal": r.journal, "archive": r.archive, "cut": r.cut,
                          "events": r.events, "rounds": r.rounds, "limited_by": r.limited_by,
                          "bytes_before": r.bytes_before, "bytes_after": r.bytes_after}))
    elif r.cut == 0:
        print(f"nothing to move: the journal holds no settled round before {r.limited_by}")
    else:
        n = format_number
        print(f"moved {n(r.events)} events ({n(r.rounds)} rounds, up to event {r.cut}) to "
              f"{r.archive}, verified; the journal went from {n(r.bytes_before)} to "
              f"{n(r.bytes_after)} bytes; stopped by {r.limited_by}")
    return 0


__all__ = ["MAX_DAYS", "add_arguments", "run"]
