"""``threecard floor rounds --from/--to --format`` and ``threecard floor prune``.

The export for the casino's system, by the tables' own end times, in minor units; retention
moves old rounds into a verified archive while the recorder writes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.game.text import for_terminal

FORMAT_HELP = ("json (--json is short for it) or csv: one row per round with a header; "
               "amounts in minor units of the table's currency, as integers")


def add_rounds_options(rounds: argparse.ArgumentParser) -> None:
    """``--from``, ``--to`` and ``--format`` of ``floor rounds``."""
    rounds.add_argument("--from", dest="from_utc", metavar="UTC",
                        help="rounds that ended at or after this time, the table's clock: "
                        "ISO 8601 UTC, 2026-12-05T14:00:00Z, or a date (its midnight UTC); "
                        "every table unless --table names one")
    rounds.add_argument("--to", dest="to_utc", metavar="UTC",
                        help="rounds that ended before this time (as --from)")
    rounds.add_argument("--format", choices=("text", "json", "csv"), help=FORMAT_HELP)


def add_prune(sub: Any, store_help: str) -> None:
    """The ``floor prune`` sub-command."""
    prune = sub.add_parser(
        "prune", help="move old rounds into an archive file",
        description="Move the rounds that ended more than DAYS days ago (the table's clock), "
        "with their events, out of the store into an archive file: a floor store "
        "(SQLite) holding them, read back and compared with the store (counts and hashes) "
        "before anything is deleted. The recorder may be running. The store keeps, for "
        "each journal, up to which round it was pruned, into which file and the file's "
        "SHA-256: floor status, floor rounds and verify-journal --floor-store say so "
        "rather than call the rounds lacking. Only rounds verified without a gap are "
        "moved, and a journal's newest round always stays.")
    prune.add_argument("--store", required=True, metavar="STORE", help=store_help)
    prune.add_argument("--older-than", required=True, type=_days, metavar="DAYS",
                       help="rounds that ended more than this many days ago (a whole number)")
    prune.add_argument("--archive", metavar="FILE",
                       help="the archive to make (it must not exist); default "
                       "floor-archive-YYYYMMDDTHHMMSSZ.sqlite3 beside a SQLite store, in the "
                       "current folder for a PostgreSQL one")


def _days(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a whole number of days, got {text!r}")
    return int(text)


def output_format(args: argparse.Namespace) -> str:
    """The format ``floor rounds`` writes: ``text``, ``json`` or ``csv`` (ValueError: a clash)."""
    if args.json and args.format not in (None, "json"):
        raise ValueError(f"--json is --format json: not with --format {args.format}")
    return "json" if args.json else args.format or "text"


def export(args: argparse.Namespace, currency: Any) -> int:
    """``floor rounds --from/--to``: rounds in the window (``currency``: a journal's, or None)."""
    from floor.export import as_json, parse_utc, write_csv
    from floor.store import StoreError, read_store

    try:
        if args.last is not None or args.journal is not None:
            raise ValueError("--last and --journal go without --from/--to")
        fmt = output_format(args)
        window = [parse_utc(flag, t) if t is not None else None
                  for flag, t in (("--from", args.from_utc), ("--to", args.to_utc))]
        if None not in window and window[0] >= window[1]:
            raise ValueError(f"--from {args.from_utc} is not before --to {args.to_utc}: no "
                             "round can end in that window")
    except ValueError as exc:
        print(for_terminal(f"threecard floor rounds: {exc}"), file=sys.stderr)
        return 2

    def read(store: Any) -> tuple[list[dict[str, Any]], list[Any], bool]:
        known: dict[tuple[str, str], str | None] = {}
        rows = []
        for t, j, rec in store.rounds_between(*window, args.table):
            if (t, j) not in known:
                known[t, j] = currency(store, t, j)
            rows.append(as_json(t, j, rec, known[t, j]))
        return rows, store.prunes(args.table), not args.table or bool(
            store.journals(args.table))

    try:
        rows, prunes, heard = read_store(args.store, read)
    except StoreError as exc:
        print(for_terminal(f"threecard floor: {exc}"), file=sys.stderr)
        return 1
    if fmt == "json":
        print(json.dumps(rows))
    elif fmt == "csv":
        write_csv(rows, sys.stdout)
    else:
        from controller.recall_cli import format_round

        print(f"{len(rows)} round(s) ended in [{window[0] or '-'}, {window[1] or '-'}), "
              "amounts in their currency")
        for r in rows:
            print(for_terminal(f"table {r['table_id']}, journal {r['journal'][:16]}:"))
            print(format_round(r, r["currency"]))
    for p in prunes:  # what the window may miss: in archives
        print(for_terminal(pruned_line(p)), file=sys.stderr if fmt != "text" else sys.stdout)
    if not heard:  # a table id mistyped, as --last says it
        print(for_terminal(f"threecard floor: the floor holds no round of table {args.table}"),
              file=sys.stderr)
        return 1
    return 0


def pruned_line(p: Any) -> str:
    """One line saying where a prune moved a series' rounds (:class:`floor.store.PruneRow`)."""
    return (f"table {p.table}, journal {p.journal[:16]}: rounds up to {p.to_round} PRUNED "
            f"into {p.archive} (sha256 {p.sha256[:16]}...)")


def prune(args: argparse.Namespace) -> int:
    """``floor prune``: move old rounds into a verified archive (:func:`floor.prune.prune`)."""
    from floor import prune as retention
    from floor.store import StoreError

    try:
        done = retention.prune(args.store, args.older_than, args.archive)
    except (StoreError, retention.PruneError) as exc:
        print(for_terminal(f"threecard floor prune: {exc}"), file=sys.stderr)
        return 1
    if done is None:
        print(f"nothing ended more than {args.older_than} day(s) ago: nothing pruned")
        return 0
    for p in done.prunes:
        print(for_terminal(f"{pruned_line(p)}: {p.rounds} round(s), {p.events} event(s)"))
    for why in done.left:
        print(for_terminal(why))
    print(for_terminal(f"archive {done.archive}: sha256 {done.sha256}, verified"))
    return 0


__all__ = ["add_prune", "add_rounds_options", "export", "output_format", "prune",
           "pruned_line"]
