"""``threecard floor serve | rounds | status | enrol | web``: the casino floor's side of the feed.

``serve`` runs the recorder into the store (SQLite, or ``postgresql://``); ``rounds``,
``status`` and ``web`` read it read-only; ``enrol`` pins a table's verification key. Exit
status: 0 fine, 1 a store or broker problem, 2 usage (or ``serve``'s session taken over).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from controller.cli import line_handler, whole_number
from controller.floor_export_cli import (
    add_prune,
    add_rounds_options,
    export,
    output_format,
    prune,
    pruned_line,
)
from controller.game.config import TABLE_ID_PATTERN
from controller.game.text import for_terminal
from controller.recall_cli import MAX_LAST, format_round

STORE_HELP = ("the floor's store: a SQLite file (created when missing), or a PostgreSQL "
              "database, postgresql://USER@HOST[:PORT]/DBNAME (its tables created when "
              "missing; the password in ~/.pgpass or PGPASSWORD rather than the URL)")
DEFAULT_CLIENT_ID = "threecard-floor"


def _table_id(text: str) -> str:
    if not TABLE_ID_PATTERN.fullmatch(text):
        raise argparse.ArgumentTypeError(f"must be 1 to 32 of A-Z a-z 0-9 _ -, got {text!r}")
    return text


def _share(text: str) -> str:
    from floor.recorder_serve import share_group

    try:
        return share_group(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _verify_key(text: str) -> str:
    from controller.journal.seal import key_text, parse_key

    try:
        return key_text(parse_key(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve``, ``rounds``, ``status`` and ``enrol`` sub-commands."""
    sub = parser.add_subparsers(dest="floor_command", metavar="FLOOR_COMMAND", required=True)
    _add_serve(sub)
    _add_rounds_and_status(sub)
    _add_enrol(sub)
    add_prune(sub, STORE_HELP)
    _add_web(sub)


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="record every table's feed into a store",
                           description="Record every table's rounds, state, meters and "
                           "events from the broker into a SQLite or PostgreSQL store (persistent "
                           "session); "
                           "ask a table to send again the rounds the store lacks. Stop with "
                           "SIGTERM or Ctrl+C.")
    serve.add_argument("--broker", required=True, metavar="URL",
                       help="mqtt://HOST[:1883] or mqtts://HOST[:8883]")
    serve.add_argument("--store", required=True, metavar="STORE", help=STORE_HELP)
    serve.add_argument("--ca-file", default="", help="PEM of the CA of the broker's certificate")
    serve.add_argument("--client-cert", default="", help="PEM client certificate, if asked")
    serve.add_argument("--client-key", default="", help="its PEM key")
    serve.add_argument("--username", default="", help="the recorder's user on the broker")
    serve.add_argument("--password-file", default="",
                       help="a file whose first line is the recorder's password")
    serve.add_argument("--topic-prefix", default="threecard",
                       help="the topics' first levels (default threecard)")
    serve.add_argument("--client-id", default="",
                       help="the recorder's client id (default its --username, which the "
                       "shipped broker configuration binds it to; without one "
                       f"{DEFAULT_CLIENT_ID}): its persistent session on the broker, which "
                       "keeps its messages while it is down; one recorder per id (a second "
                       "one with the same id takes the session over and the first stops, "
                       "exit status 2)")
    serve.add_argument("--share", default=None, metavar="GROUP", type=_share,
                       help="take part in the shared subscription group GROUP ($share/"
                       "GROUP/..., MQTT 5): recorders of one group on the same store each "
                       "take a part of the messages, and one goes on when another stops "
                       "(each with a client id of its own); default: every message")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                       default="info", help="the lowest level logged")


def _add_rounds_and_status(sub: Any) -> None:
    rounds = sub.add_parser("rounds", help="a table's rounds, or every table's by time",
                            description="A table's rounds as the floor recorded them, newest "
                            "first (--json: the JSON of `threecard recall --json`); with "
                            "--from/--to, the rounds of every table (or --table's) that "
                            "ended then, oldest first, for the casino management system "
                            "(--format csv: one row per round, amounts in minor units).")
    rounds.add_argument("--store", required=True, metavar="STORE", help=STORE_HELP)
    rounds.add_argument("--table", type=_table_id,
                        help="the table id (needed without --from/--to)")
    rounds.add_argument("--journal", metavar="HASH",
                        help="the journal (its first event's hash, or a prefix); default the "
                        "table's current one (the journal of its newest message, as floor "
                        "status shows)")
    rounds.add_argument("--last", type=whole_number(1, MAX_LAST),
                        help="the newest N rounds only")
    rounds.add_argument("--json", action="store_true", help="print JSON")
    add_rounds_options(rounds)
    status = sub.add_parser("status", help="one line a table: online, last round, "
                            "rounds per hour, hold, open alarms",
                            description="Whether the recorder runs, then one line a table: "
                            "online, stopped or offline, last round, rounds in the last hour, "
                            "hold, open alarms, when it was last heard, and what the floor "
                            "lacks. --json: {\"recorder\": ..., \"tables\": [...]}.")
    status.add_argument("--store", required=True, metavar="STORE", help=STORE_HELP)
    status.add_argument("--json", action="store_true", help="print JSON")


def _add_enrol(sub: Any) -> None:
    enrol = sub.add_parser("enrol", help="pin a table's verification key",
                           description="Pin the verification key of a table's journal (the "
                           "table prints it when it makes a journal; `threecard seal show` "
                           "prints it again): the floor then takes only rounds whose seal "
                           "chain starts with a key pinned for the table. A key enrolled "
                           "replaces one the floor pinned on first use. The recorder may be "
                           "running; the store is made when missing.")
    enrol.add_argument("--store", required=True, metavar="STORE", help=STORE_HELP)
    enrol.add_argument("--table", required=True, type=_table_id, help="the table id")
    enrol.add_argument("--verify-key", required=True, type=_verify_key, metavar="KEY",
                       help="the verification key: 64 hexadecimal digits")


def _add_web(sub: Any) -> None:
    web = sub.add_parser("web", help="the pit page in a browser, and /metrics",
                         description="Every table on one page (and one page a table), "
                         "updating by itself, for the pit; read-only. Log in with the pit "
                         "role's PIN: its hash is the `pit` of the [roles] section of "
                         "--config (`threecard hash-pin`), locked out as the table's roles "
                         "are (lockout_after, lockout_seconds). /metrics in Prometheus' "
                         "format: on the same server with --metrics-token-file, or on its "
                         "own loopback listener with --metrics-listen. Stop with SIGTERM "
                         "or Ctrl+C.")
    web.add_argument("--store", required=True, metavar="PATH", help="the floor's store")
    web.add_argument("--config", required=True, metavar="FILE",
                     help="the floor's configuration (TOML): [roles] pit = \"scrypt$...\"")
    web.add_argument("--listen", default="127.0.0.1:8080", metavar="HOST:PORT",
                     help="where the pit page answers")
    web.add_argument("--cert", default="", help="PEM certificate (chain): serve HTTPS")
    web.add_argument("--key", default="", help="its PEM key")
    web.add_argument("--metrics-token-file", default="", metavar="FILE",
                     help="serve /metrics on the same server to `Authorization: Bearer "
                     "TOKEN` only, TOKEN the file's first line (Prometheus' "
                     "`authorization` setting)")
    web.add_argument("--metrics-listen", default=None, metavar="HOST:PORT",
                     help="serve /metrics without a token on a listener of its own, on "
                     "the loopback interface (e.g. 127.0.0.1:9108)")


def run(args: argparse.Namespace) -> int:
    """Run the chosen floor sub-command. Returns the exit status."""
    return {"serve": _serve, "rounds": _rounds, "status": _status,
            "enrol": _enrol, "prune": prune, "web": _web}[args.floor_command](args)


def _web(args: argparse.Namespace) -> int:
    try:
        from floor.web import WebError, read_roles, read_token, serve
    except ImportError as exc:
        print(f"threecard floor web: {exc.name} is not installed: pip install "
              "'threecard-table[floor]'", file=sys.stderr)
        return 1
    from floor.store import Store, StoreError

    logging.basicConfig(level=logging.INFO, handlers=[line_handler(sys.stdout)])
    stop = _stop_on_signals()
    try:
        roles = read_roles(args.config)
        token = read_token(args.metrics_token_file) if args.metrics_token_file else None
        serve(lambda: Store(args.store, readonly=True), roles, args.listen, cert=args.cert,
              key=args.key, metrics_token=token, metrics_listen=args.metrics_listen,
              stop=stop, ready=lambda line: print(for_terminal(
                  f"threecard floor web: {line}"), flush=True))
    except (WebError, StoreError) as exc:
        print(for_terminal(f"threecard floor web: {exc}"), file=sys.stderr)
        return 1
    return 0


def _fail(exc: Exception) -> int:
    print(for_terminal(f"threecard floor: {exc}"), file=sys.stderr)
    return 1


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()

    def on_signal(_signum: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    return stop


def _serve(args: argparse.Namespace) -> int:
    from floor.mqtt import FloorError, FloorSettings
    from floor.recorder_serve import serve
    from floor.store import StoreError

    logging.basicConfig(level=getattr(logging, args.log_level.upper()),
                        handlers=[line_handler(sys.stdout)])
    settings = FloorSettings(args.broker, args.ca_file, args.client_cert, args.client_key,
                             args.username, args.password_file, args.topic_prefix)
    stop = _stop_on_signals()
    try:
        return serve(settings, args.store, args.client_id or args.username or DEFAULT_CLIENT_ID,
                     stop, args.share or "")
    except FloorError as exc:
        print(f"threecard floor serve: {exc.as_option()}", file=sys.stderr)
        return 2
    except StoreError as exc:
        return _fail(exc)


def _read(path: str, what: Callable[[Any], Any]) -> Any:
    """``what(store)`` on the store opened read-only (StoreError: cannot be opened or read)."""
    from floor.store import read_store

    return read_store(path, what)


def _currency(store: Any, table: str, journal: str) -> str | None:
    """The currency the journal's start-up recorded, from the floor's replay (None: minor units)."""
    from controller.game.numbers import currency_problem

    try:
        pos = store.position(table, journal)
    except ValueError:
        return None
    code = pos.game.config.currency if pos is not None else None
    return code if isinstance(code, str) and currency_problem(code) is None else None


def _rounds(args: argparse.Namespace) -> int:
    from floor.export import as_json, write_csv
    from floor.store import StoreError

    if args.from_utc is not None or args.to_utc is not None:
        return export(args, _currency)
    if args.table is None:
        print("threecard floor rounds: --table: needed without --from/--to", file=sys.stderr)
        return 2
    try:
        fmt = output_format(args)
    except ValueError as exc:
        print(f"threecard floor rounds: {exc}", file=sys.stderr)
        return 2

    def read(store: Any) -> tuple[list[str], list[dict[str, Any]], str | None, list[Any]]:
        journals = [j for j in store.journals(args.table)
                    if j.startswith((args.journal or "").lower())]
        current = next((t.journal for t in store.tables() if t.table_id == args.table), None)
        if args.journal is None and current in journals:  # the one floor status shows
            journals.append(current)
        if not journals:
            return journals, [], None, []
        return (journals, store.rounds(args.table, journals[-1], args.last),
                _currency(store, args.table, journals[-1]),
                [p for p in store.prunes(args.table) if p.journal == journals[-1]])

    try:
        journals, rounds, cur, prunes = _read(args.store, read)
    except StoreError as exc:
        return _fail(exc)
    if not journals:
        return _fail(ValueError(f"the floor holds no round of table {args.table}"
                                + (f" in journal {args.journal}" if args.journal else "")))
    if fmt == "json":
        print(json.dumps(rounds))
    elif fmt == "csv":
        write_csv((as_json(args.table, journals[-1], r, cur) for r in rounds), sys.stdout)
    else:
        print(for_terminal(f"table {args.table}, journal {journals[-1][:16]}: "
                           f"{len(rounds)} round(s), amounts in {cur or 'minor units'}"))
        for r in rounds:
            print(format_round(r, cur))
    for p in prunes:  # not lacking: in an archive
        print(for_terminal(pruned_line(p)), file=sys.stdout if fmt == "text" else sys.stderr)
    return 0


def _status(args: argparse.Namespace) -> int:
    from floor.report import floor_status, recorder_status
    from floor.store import StoreError

    now = datetime.now(UTC)
    try:
        recorder, rows = _read(args.store, lambda store: (recorder_status(store, now),
                                                          floor_status(store, now)))
    except StoreError as exc:
        return _fail(exc)
    if args.json:
        print(json.dumps({"recorder": recorder.to_dict(),
                          "tables": [r.to_dict() for r in rows]}))
    else:
        print(for_terminal(recorder.line(now)))  # the store's text, escaped line by line
        print("\n".join(for_terminal(r.line(now)) for r in rows) if rows
              else "no table heard yet")
    return 0


def _enrol(args: argparse.Namespace) -> int:
    import time

    from floor.store import ENROLLED, Store, StoreError

    try:
        store = Store(args.store)
    except StoreError as exc:
        return _fail(exc)
    try:
        with store.db.transaction():
            gone = store.pin_key(args.table, args.verify_key, ENROLLED, time.time_ns() // 1000)
    except store.db.errors as exc:
        return _fail(ValueError(f"{store.path}: cannot write the floor store: {exc}"))
    finally:
        store.close()
    print(for_terminal(f"table {args.table}: verification key {args.verify_key} enrolled"))
    for key in gone:
        print(for_terminal(f"table {args.table}: the key pinned on first use, {key}, is no "
                           "longer trusted"))
    return 0
