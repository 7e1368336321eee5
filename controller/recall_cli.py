"""``threecard recall``, ``threecard meters``, ``threecard verify-journal``.

Each reads ``--journal`` read-only and escapes what it prints for the terminal. Exit status:
0 fine, 1 a broken or unreconciled journal, 2 usage or no readable journal.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from typing import Any

from controller.cli import whole_number
from controller.game import recall as rc
from controller.game.clock_times import JournaledStep
from controller.game.meters import ROUNDS_VOIDED, TOTAL, row_order
from controller.game.numbers import format_money, format_number
from controller.game.pay_lines import items_in_pay_order, pay_rank
from controller.game.text import for_terminal
from controller.journal import Journal, JournalError, JournalUnreadable
from controller.journal.read import unusable
from controller.journal.seal import parse_key
from controller.round_log import outcome_words

MAX_LAST = 1_000_000


def _journal_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--journal", required=True, help="the journal file")
    archive_arg(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")


def archive_arg(parser: argparse.ArgumentParser) -> None:
    """``--archive FILE``: where the journal's moved history is, if not beside it."""
    parser.add_argument("--archive", metavar="FILE",
                        help="the archive the journal's settled history was moved to "
                        "(`threecard journal archive`); default: the one beside the journal")


def add_recall_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``recall``."""
    _journal_arg(parser)
    parser.add_argument("--last", type=whole_number(1, MAX_LAST), default=10,
                        help=f"rounds to show, 1 to {format_number(MAX_LAST)} (default 10)")


def add_meters_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``meters``."""
    _journal_arg(parser)


def add_verify_journal_arguments(parser: argparse.ArgumentParser) -> None:
    """``verify-journal --journal PATH [--anchor SEQ:HASH]... [--json]``."""
    _journal_arg(parser)
    parser.add_argument("--anchor", action="append", default=[], metavar="SEQ:HASH",
                        help="a journal head the daemon logged (`journal head SEQ HASH` in "
                        "the system log): the event SEQ must still carry that hash, so a "
                        "journal rewritten with a recomputed chain is caught even without "
                        "the anchor file beside it (<journal>.anchor, always checked)")
    parser.add_argument("--verify-key", action="append", default=[], metavar="KEY",
                        help="the table's verification key (64 hexadecimal digits, from its "
                        "commissioning record): every seal must follow from it; give one "
                        "more for each chain `seal init` started")
    parser.add_argument("--witness", metavar="SEQ:SIG", action="append", default=[],
                        help="the last seal a signed shift report printed (event and "
                        "signature): the journal must still hold it")
    parser.add_argument("--resume", metavar="SEQ:SEAL", help=argparse.SUPPRESS)
    parser.add_argument("--progress", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--floor-store", metavar="PATH",
                        help="the floor's store (`threecard floor serve --store`): every round "
                        "the floor recorded of this journal must still end at the same event "
                        "with the same hash and the same record, so a journal cut, rewritten "
                        "or replaced at the table is caught")


def _fail(cmd: str, exc: Exception) -> int:
    """Say why on one line; exit 2 when the file is no readable journal, else 1."""
    print(for_terminal(f"threecard {cmd}: {exc}"), file=sys.stderr)
    return 2 if isinstance(exc, JournalUnreadable) else 1


def _unreadable(path: str, exc: Exception) -> Exception:
    return unusable(path, os.path.realpath(path), exc) if isinstance(exc, sqlite3.Error) else exc


def _warn_if_broken(cmd: str, path: str, archive: str | None = None) -> bool:
    """Say so on stderr when the journal's hash chain is broken (nothing is trusted); True if so."""
    try:
        j = Journal(path, readonly=True, archive=archive)
    except JournalError:
        return False
    try:
        report = j.verify()
    finally:
        j.close()
    if not report.ok:
        print(for_terminal(f"threecard {cmd}: WARNING: the journal's hash chain is broken "
                           f"({report.message}); these records cannot be trusted. Run "
                           "`threecard verify-journal` and call a technician."),
              file=sys.stderr)
    return not report.ok


def _money(v: int | None, currency: str | None, sign: bool = True) -> str:
    if v is None:
        return "-"
    if currency is None:
        return f"{v:+d}" if sign else str(v)
    return format_money(v, "en", currency, sign=sign)


def count_and_amount(bets: int, refunded: int, currency: str | None) -> str:
    """``36 bets voided, 708.00 refunded``: a count never stands bare beside an amount."""
    noun = "bet" if bets == 1 else "bets"
    return f"{format_number(bets)} {noun} voided, {_money(refunded, currency, False)} refunded"


def run_recall(args: argparse.Namespace) -> int:
    """Print game recall, newest first."""
    try:
        rounds = rc.recall(args.journal, args.last, args.archive)
        cur = rc.currency(args.journal, args.archive) if rounds and not args.json else None
    except (JournalError, sqlite3.DatabaseError) as exc:
        return _fail("recall", _unreadable(args.journal, exc))
    broken = _warn_if_broken("recall", args.journal, args.archive)
    if args.json:
        print(json.dumps(rounds))
    else:
        if not rounds:
            print("no rounds recorded")
        else:
            print(f"amounts in {cur}")
            for r in rounds:
                print(format_round(r, cur))
    return 1 if broken else 0


def _outcome(x: dict[str, Any]) -> str:
    return outcome_words(x["outcome"], x["multiple"]) + (f" ({x['line']})" if x.get("line")
                                                         else "")


def _result(x: dict[str, Any], currency: str | None) -> str:
    """A result with money: ``win +5.00``, ``lose -5.00``, a void's ``refund 5.00`` (the stake)."""
    if x["outcome"] == "refund":
        return f"refund {_money(x['stake'], currency, False)}"
    return f"{x['outcome']} {_money(x['net'], currency)}"


def format_round(r: dict[str, Any], currency: str | None) -> str:
    """A round record as recall prints it, pay order, escaped (``currency`` None: minor units)."""
    head = f"GAME RECALL  round {r['round_id']}  {r['status'].upper()}"
    if r["void_reason"]:
        head += f"  void: {r['void_reason']}"
    outcomes = r.get("bet_entry") == "outcomes"
    head += "  bets as outcomes" if outcomes else "  bets in amounts"
    lines = [head, f"  opened {r['started_utc'] or '-'}"
             + (f"  closed {r['ended_utc']}" if r.get("ended_utc") else "")]
    lines += clock_lines(r)
    deal = "  ".join(f"{c or ('unreadable' if p == 'burn' else 'misread')}->{p}"
                     f"{' (manual)' if m else ''}" for c, p, m in r["deal"])
    lines.append(f"  deal: {deal or '-'}")
    dealer = " ".join(r["dealer_cards"]) or "-"
    if r["dealer_hand"]:
        dealer += f"  {r['dealer_hand']}, " + ("qualifies" if r["dealer_qualifies"]
                                               else "does not qualify")
    lines.append(f"  dealer: {dealer}")
    for s in r["seats"]:
        results = items_in_pay_order(s["results"])
        if outcomes:  # marked bets: no amounts, each result an outcome
            bets = ", ".join(sorted(s["bets"], key=pay_rank))
            res = ", ".join(f"{k} {_outcome(x)}" for k, x in results)
            net = ""
        else:
            bets = ", ".join(f"{k} {_money(v, currency, False)}"
                             for k, v in items_in_pay_order(s["bets"]))
            res = ", ".join(f"{k} {_result(x, currency)}" for k, x in results)
            net = f"  net {_money(s['net'], currency)}"
        lines.append(f"  seat {s['seat']}: {' '.join(s['cards']) or '-'}  bets {bets}  "
                     f"decision {s['decision'] or '-'}  {res}{net}")
    return "\n".join(map(for_terminal, lines))


def clock_lines(r: dict[str, Any]) -> list[str]:
    """A recalled round's clock steps and recorded times, as recall prints them."""
    out = [f"  {JournaledStep(**s).words()}" for s in r.get("clock_steps", ())]
    recorded = [f"{word} {r[key]}" for word, key in (("opened", "recorded_started_utc"),
                                                     ("closed", "recorded_ended_utc"))
                if r.get(key)]
    if recorded:
        out.append("  times corrected for the clock steps journaled since (recorded: "
                   + ", ".join(recorded) + ")")
    return out


def run_meters(args: argparse.Namespace) -> int:
    """Print meters per bet type and seat, and the event counters (voids named apart)."""
    try:
        rep = rc.meters(args.journal, args.archive)
        cur = rc.currency(args.journal, args.archive)
    except (JournalError, sqlite3.DatabaseError) as exc:
        return _fail("meters", _unreadable(args.journal, exc))
    broken = _warn_if_broken("meters", args.journal, args.archive)
    order = row_order(rep.rows)
    if args.json:
        print(json.dumps({"rows": {k: dict(zip(("wagered", "paid", "won", "rounds", "voids",
                                                "refunded"), rep.rows[k], strict=True))
                                   for k in order},
                          "counters": rep.counters, "outcomes": rep.outcomes,
                          "reconciled": rep.reconciled,
                          "problems": rep.problems}))
    else:
        print(f"amounts in {cur}")
        print(f"{'meter':15} {'wagered':>16} {'paid':>16} {'won':>16} {'house net':>16} "
              f"{'rounds':>8} {'bets refunded':>13} {'refunded':>14}")
        for k in order:
            w, p, won, n, v, rf = rep.rows[k]
            m = [_money(x, cur, False) for x in (w, p, won, rf)]
            print(for_terminal(f"{k:15} {m[0]:>16} {m[1]:>16} {m[2]:>16} "
                               f"{_money(won - p, cur):>16} {format_number(n):>8} "
                               f"{format_number(v):>13} {m[3]:>14}"))
        total = rep.rows.get(TOTAL, [0] * 6)
        print(f"rounds voided {format_number(rep.counters.get(ROUNDS_VOIDED, 0))}")
        print(count_and_amount(total[4], total[5], cur))
        for k, v in sorted(rep.counters.items()):
            if k != ROUNDS_VOIDED:
                print(for_terminal(f"  {k}: {format_number(v)}"))
        if rep.outcomes:
            print("outcome meters (rounds dealt as outcomes):")
            for k, v in sorted(rep.outcomes.items()):
                print(for_terminal(f"  {k}: {format_number(v)}"))
        print("reconciled with the round records" if rep.reconciled
              else for_terminal("DOES NOT RECONCILE: " + "; ".join(rep.problems)))
    return 0 if rep.reconciled and not broken else 1


def _logged_heads(anchors: list[str]) -> list[tuple[int, str]]:
    """``--anchor SEQ:HASH`` values as (seq, hash); ValueError if not digits and hexadecimal."""
    heads = []
    for anchor in anchors:
        seq_text, _, want = anchor.partition(":")
        if not (seq_text.isascii() and seq_text.isdigit()) or int(seq_text) < 1 or not want \
                or any(c not in "0123456789abcdefABCDEF" for c in want):
            raise ValueError(f"--anchor {anchor!r}: expected SEQ:HASH")
        heads.append((int(seq_text), want))
    return heads


def _witness(text: str) -> tuple[int, str]:
    """``--witness SEQ:SIG`` as (seq, 16 to 128 hex digits of signature); ValueError if not."""
    seq, _, sig = text.partition(":")
    if not (seq.isascii() and seq.isdigit() and 0 < int(seq) < 2**63) or not \
            16 <= len(sig) <= 128 or any(c not in "0123456789abcdefABCDEF" for c in sig):
        raise ValueError(f"--witness {text[:80]!r}: expected SEQ:SIGNATURE (the event and at "
                         "least 16 hexadecimal digits of the seal's signature)")
    return int(seq), sig.lower()


def _resume(text: str | None) -> tuple[int, str] | None:
    if not text:
        return None
    seq, _, seal = text.partition(":")
    return (int(seq), seal) if seq.isdigit() and seal else None


def _progress(seq: int, seal: str) -> None:
    print(json.dumps({"progress": seq, "seal": seal}), flush=True)


def run_verify_journal(args: argparse.Namespace) -> int:
    """Verify the journal from its first event and print the verdict (``--json``: one object).

    ``--floor-store`` adds a line comparing it with the floor's record. 0 sound, 1 not, 2 usage.
    """
    try:
        logged = _logged_heads(args.anchor)
        keys = [parse_key(k) for k in args.verify_key]
        witnesses = [_witness(w) for w in args.witness]
    except ValueError as exc:
        print(for_terminal(f"threecard verify-journal: {exc}"), file=sys.stderr)
        return 2
    try:
        v = rc.verify(args.journal, logged, archive=args.archive, keys=keys,
                      witness=witnesses or None, resume=_resume(args.resume),
                      checked=_progress if args.progress else None)
        floor = _floor_verdict(args.journal, args.floor_store, args.archive)
    except JournalError as exc:
        return _fail("verify-journal", exc)
    except ValueError as exc:  # the floor's store cannot be read
        return _fail("verify-journal", exc)
    if args.json:
        print(json.dumps({"ok": v.ok, "verdict": v.summary(), "events": v.events,
                          "checked_from": v.checked_from,
                          "snapshots_checked": v.snapshots_checked,
                          "rounds_checked": v.rounds_checked, "anchor_seq": v.anchor_seq,
                          "notes": list(v.notes),
                          "verification_key": v.verification_key, "key_given": v.key_given,
                          "last_seal": ({"epoch": v.last_seal[0], "seq": v.last_seal[1],
                                         "signature": v.last_seal[2]}
                                        if v.last_seal else None),
                          "problems": [{"kind": p.kind.value, "message": p.message,
                                        "seq": p.seq, "key": p.key} for p in v.problems],
                          **({"floor": {"ok": floor.ok, "verdict": floor.summary(),
                                        "table": floor.table_id,
                                        "rounds_checked": floor.rounds_checked,
                                        "problems": list(floor.problems),
                                        "never_sealed": list(floor.never_sealed),
                                        "notes": list(floor.notes)}} if floor else {})}))
    else:
        print(for_terminal(v.summary()))
        if floor is not None:
            print(for_terminal(floor.summary()))
    return 0 if v.ok and (floor is None or floor.ok) else 1


def _floor_verdict(journal: str, store: str | None, archive: str | None = None) -> Any:
    """The journal compared with the floor's store (None without ``--floor-store``).

    Raises:
        ValueError: the store cannot be read.
        JournalError: the journal cannot be read.
    """
    if store is None:
        return None
    from floor.anchors import compare
    from floor.store import StoreError

    try:
        return compare(journal, store, archive)
    except StoreError as exc:
        raise ValueError(str(exc)) from None
