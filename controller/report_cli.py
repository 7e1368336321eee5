"""``threecard report shift``: the shift report a pit boss signs, as a PDF.

Example::

    threecard report shift --journal /var/lib/threecard/journal.sqlite3 --lang fr
        --from 2025-03-14T18:00Z --to 2025-03-15T02:00Z --out shift.pdf

The figures come from :mod:`controller.game.shift` (the same replay and meters as
``threecard meters`` and ``threecard recall``); the PDF from :mod:`display.report`. The
journal is opened read-only: the table may be running.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timedelta
from pathlib import Path

from controller.cli import whole_number
from controller.game.numbers import LANGUAGES

MAX_HOURS = 24 * 366
"""The longest period ``--hours`` takes: a year."""


def _utc(text: str) -> datetime:
    from controller.game.shift import parse_utc

    try:
        return parse_utc(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``report shift --journal J [--from UTC --to UTC | --hours N] [--lang L] --out F``."""
    sub = parser.add_subparsers(dest="report", metavar="REPORT", required=True)
    s = sub.add_parser("shift", help="the shift report (PDF)",
                       description="The shift report as a PDF: meters by bet and seat, "
                       "returns against the exact ones, voids, alarms, role actions, the "
                       "software identities and the journal's anchors, lines to sign. "
                       "Default period: the whole journal.")
    s.add_argument("--journal", required=True, help="the journal file (read-only)")
    s.add_argument("--archive", metavar="FILE", help="the archive the journal's settled "
                   "history was moved to (default: the one beside the journal)")
    s.add_argument("--from", dest="start", type=_utc, metavar="UTC",
                   help="the period's start, ISO 8601 (2025-03-14T18:00Z; no offset: UTC)")
    s.add_argument("--to", dest="end", type=_utc, metavar="UTC",
                   help="the period's end (default: the journal's newest event)")
    s.add_argument("--hours", type=whole_number(1, MAX_HOURS), metavar="N",
                   help="the N hours before --to (or after --from)")
    s.add_argument("--lang", choices=LANGUAGES, default="en", help="language (default en)")
    s.add_argument("--out", required=True, help="the PDF file to write (ending in .pdf)")


def _fail(message: str, status: int) -> int:
    print(f"threecard report shift: {message}", file=sys.stderr)
    return status


def _period(args: argparse.Namespace) -> tuple[datetime | None, datetime | None]:
    """The period the flags name: (start, end), None for an open end.

    Raises:
        ValueError: --hours with both --from and --to.
    """
    start, end, hours = args.start, args.end, args.hours
    if hours is None:
        return start, end
    if start is not None and end is not None:
        raise ValueError("--hours goes with --from or --to, not both")
    if start is not None:
        return start, start + timedelta(hours=hours)
    if end is None:
        from controller.game.shift import newest_time

        end = newest_time(args.journal, args.archive)
        if end is None:
            return None, None
    return end - timedelta(hours=hours), end


def _check_out(text: str) -> Path:
    out = Path(text)
    if out.suffix.lower() != ".pdf":
        raise ValueError(f"--out: {text} does not end in .pdf")
    if out.is_dir():
        raise ValueError(f"--out: {out} is a folder; give the PDF file's path")
    if not out.parent.is_dir():
        raise ValueError(f"--out: folder {out.parent} does not exist (create it first)")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise ValueError(f"--out: folder {out.parent} is not writable")
    return out


def run(args: argparse.Namespace) -> int:
    """Make the report.

    Returns:
        0 when written; 1 when the journal cannot be read, or its hash chain is broken
        (the report is written all the same, saying so on its first page); 2 for a bad
        period or ``--out``.
    """
    from controller.game.journal import JournalError
    from controller.game.shift import shift
    from controller.identity import identify

    try:
        out = _check_out(args.out)
        start, end = _period(args)
        if start is not None and end is not None and end < start:
            raise ValueError("the period ends before it starts (--to before --from)")
    except ValueError as exc:
        return _fail(str(exc), 2)
    except JournalError as exc:
        return _fail(str(exc), 1)
    try:
        sh = shift(args.journal, start, end, args.archive)
    except JournalError as exc:
        return _fail(str(exc), 1)
    from display.report.document import write_pdf

    try:
        pages = write_pdf(sh, out, args.lang, made_by=identify().version)
    except OSError as exc:
        return _fail(f"--out: cannot write {out}: {exc.strerror or exc}", 2)
    dealt = (f" ({sh.settled_as_outcomes} settled and {sh.voided_as_outcomes} voided dealt "
             "as outcomes)" if sh.outcomes else "")
    print(f"{out}: {pages} pages; table {sh.table_id}, {sh.period_from} to {sh.period_to}: "
          f"{sh.settled} rounds settled, {sh.voided} voided{dealt}")
    if not sh.chain_ok:
        return _fail(f"WARNING: the journal's hash chain is broken ({sh.chain_message}); "
                     "the report says so", 1)
    return 0
