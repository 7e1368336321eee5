"""``threecard seal show`` and ``threecard seal init``: a journal's seals (R16).

``show`` prints the verification key (for the commissioning record and the floor), the chain
starts and the last seal; ``init`` starts a new chain at the head (table stopped).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from controller.game.text import for_terminal

if TYPE_CHECKING:
    from controller.journal import Journal


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``show`` and ``init``."""
    sub = parser.add_subparsers(dest="seal_command", metavar="SEAL_COMMAND", required=True)
    show = sub.add_parser("show", help="the journal's verification key and its last seal",
                          description="Print the journal's verification key, its chains and "
                          "its last seal (read-only).")
    show.add_argument("--journal", required=True, help="the journal file")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    init = sub.add_parser("init", help="start a new seal chain at the journal's head",
                          description="Start a new seal chain at the journal's head, with a "
                          "new key in the table's state folder, and print its verification "
                          "key. For a journal made before seals, or whose key was lost. The "
                          "table must be stopped.")
    init.add_argument("--journal", required=True, help="the journal file (its table stopped)")


def run(args: argparse.Namespace) -> int:
    """Run ``seal show`` or ``seal init``. Returns the exit status."""
    from controller.journal import Journal, JournalError

    try:
        if args.seal_command == "init":
            if not os.path.isfile(args.journal):  # never a new journal by a typing error
                raise JournalError(f"{args.journal}: no such journal")
            return _init(Journal(args.journal))
        j = Journal(args.journal, readonly=True)
    except JournalError as exc:
        print(for_terminal(f"threecard seal {args.seal_command}: {exc}"), file=sys.stderr)
        return 1
    try:
        return _show(j, args.json)
    finally:
        j.close()


def _init(j: Journal) -> int:
    from controller.journal import JournalError

    try:
        key = j.seal_init()
        j.seal()  # what the journal holds now is sealed by the new chain's first key
    except JournalError as exc:
        print(for_terminal(f"threecard seal init: {exc}"), file=sys.stderr)
        return 1
    finally:
        j.close()
    print(f"new seal chain at event {j.last_seq}; verification key: {key}")
    print("keep it in the table's commissioning record and enrol it on the floor "
          "(`threecard floor enrol`): what came before this event was sealed now, not then")
    return 0


def _show(j: Journal, as_json: bool) -> int:
    from controller.journal import seal as sealing

    starts, last = sealing.chains(j.db), sealing.last_seal(j.db)
    facts = {
        "journal": j.path, "journal_id": j.meta.get("journal_id"),
        "verification_key": sealing.key_text(starts[0].key) if starts else None,
        "chains": [{"epoch": c.epoch, "seq": c.seq, "key": sealing.key_text(c.key)}
                   for c in starts],
        "last_seal": ({"epoch": last.epoch, "seq": last.seq, "signature": last.signature.hex()}
                      if last else None),
        "events": j.last_seq,
        "key_files": [str(p) for p in sealing.key_files_of(sealing.default_folder(), j.path)],
    }
    if as_json:
        print(json.dumps(facts))
        return 0
    if not starts:
        print(f"{j.path}: not sealed ({j.last_seq} events); start a chain with `threecard "
              "seal init` (the table stopped)")
        return 0
    print(f"verification key: {facts['verification_key']}")
    for c in starts[1:]:
        print(f"new chain from epoch {c.epoch} at event {c.seq}: key {sealing.key_text(c.key)}")
    if last is None:
        print(f"no seal yet; {j.last_seq} events")
    else:
        print(f"last seal: epoch {last.epoch}, event {last.seq}, signature "
              f"{last.signature.hex()}")
        print(f"witness: {last.seq}:{last.signature.hex()}")
        if j.last_seq > last.seq:
            print(f"events {last.seq + 1} to {j.last_seq} not sealed yet")
    for path in facts["key_files"]:
        print(f"seal key file: {path}")
    return 0


__all__ = ["add_arguments", "run"]
