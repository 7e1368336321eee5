"""``threecard report shift``: the shift report a pit boss signs, as a PDF (journal read-only)."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timedelta
from pathlib import Path

from controller.cli import whole_number
from controller.game.numbers import LANGUAGES

MAX_HOURS = 24 * 366


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
                   help="the N hours up to the journal's newest event (before --to, or "
                   "after --from, when given)")
    s.add_argument("--lang", choices=LANGUAGES, default="en", help="language (default en)")
    s.add_argument("--full-check", action="store_true",
                   help="check the whole journal from its first event, as verify-journal "
                   "does (default: from the snapshot the period's figures start from to the "
                   "anchored head; the report says which)")
    s.add_argument("--out", required=True, help="the PDF file to write (ending in .pdf)")


def _fail(message: str, status: int) -> int:
    print(f"threecard report shift: {message}", file=sys.stderr)
    return status


def _period(args: argparse.Namespace) -> tuple[datetime | None, datetime | None]:
    """The period the flags name: (start, end), None for an open end.

    ``--hours N`` alone ends at the newest event; with ``--to`` it ends there, with ``--from``
    it starts there.

    Raises:
        ValueError: --hours with both --from and --to; an end before the start, or a period
            holding none of the journal's time (an empty report nobody should sign).
        JournalError: the journal cannot be read.
    """
    from controller.game.shift import journal_span

    start, end, hours = args.start, args.end, args.hours
    if hours is not None and start is not None and end is not None:
        raise ValueError("--hours goes with --from or --to, not both")
    span = journal_span(args.journal, args.archive)
    if span is None:  # no event: shift() says so
        return start, end
    first, newest = span
    if hours is not None:
        if start is not None:
            end = start + timedelta(hours=hours)
        else:
            end = end if end is not None else newest
            start = end - timedelta(hours=hours)
    if start is not None and end is not None and end < start:
        raise ValueError("the period ends before it starts (--to before --from)")
    if start is not None and start > newest:
        raise ValueError(f"the period starts after the journal's newest event "
                         f"({newest.isoformat()}): it holds nothing to report")
    if end is not None and end < first:
        raise ValueError(f"the period ends before the journal's first event "
                         f"({first.isoformat()}): it holds nothing to report")
    return start, end


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
    """Make the report: 0 written; 1 altered software, bad journal or PDF unwritable; 2 usage."""
    from controller.game.shift import shift
    from controller.identity import installed_version
    from controller.journal import JournalError

    try:
        out = _check_out(args.out)
        start, end = _period(args)
    except ValueError as exc:
        return _fail(str(exc), 2)
    except JournalError as exc:
        return _fail(str(exc), 1)
    try:
        sh = shift(args.journal, start, end, args.archive, args.full_check)
    except JournalError as exc:
        return _fail(str(exc), 1)
    from display.report.document import write_pdf

    try:
        pages = write_pdf(sh, out, args.lang, made_by=installed_version())
    except OSError as exc:  # a full disk, a folder gone: the file there stays as it was
        return _fail(f"--out: cannot write {out}: {exc.strerror or exc}; nothing was written",
                     1)
    dealt = (f" ({sh.settled_as_outcomes} settled and {sh.voided_as_outcomes} voided dealt "
             "as outcomes)" if sh.outcomes else "")
    print(f"{out}: {pages} pages; table {sh.table_id}, {sh.period_from} to {sh.period_to}: "
          f"{sh.settled} rounds settled, {sh.voided} voided{dealt}")
    status = 0
    for ident in sh.altered:
        sw = ident.software or {}
        status = _fail(f"WARNING: SOFTWARE ALTERED: the software recorded at {ident.utc} "
                       f"({sw.get('version')}, sha256 {sw.get('sha256') or '-'}) has "
                       f"{sw.get('altered', 0)} files that differ from its build; the "
                       "report's first page says so", 1)
    if not sh.trusted:
        status = _fail(f"WARNING: the journal fails verification ({sh.verdict.message}); "
                       "these figures cannot be trusted, and every page of the report says "
                       "so (threecard verify-journal names every problem)", 1)
    return status
