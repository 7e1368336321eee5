"""``threecard shoe-sim``: a simulated card shoe on a pseudo-terminal or a TCP port.

The first line out is the shoe URL ``threecard run --shoe`` takes. It deals rounds at a
pace the table can follow without asking (a real table never asks for a card); how and
why, and ``--fault``: docs/shoe-simulator.md.
"""

from __future__ import annotations

import argparse
import math
import shlex
import signal
import sys
import tempfile
import threading
from typing import Any

from drivers.dialects import DIALECTS
from simulators.deck_file import read_deck_file
from simulators.faults import FAULTS, FaultNotSupported, fault_name
from simulators.ports import ShoePort
from simulators.runner import MIN_HEARTBEAT_MS, ShoeRunner
from simulators.shoe import SimulatedShoe

DEFAULT_INTERVAL_MS = 1000
DEFAULT_GAP_MS = 3000
# Bounds: the table's own on burn_cards; eight packs, the largest shoe a table uses.
MAX_BURN_CARDS = 5
MAX_PACKS = 8
# controller.autoplay.QUIET_MS, which the layout keeps simulators from importing (a test
# holds the two equal); --gap needs AUTOPLAY_MARGIN_MS more, to open and close betting.
AUTOPLAY_QUIET_MS = 1500
AUTOPLAY_MARGIN_MS = 500
# The printed recipe's supervisor PIN: autoplay resolves voids with it.
RECIPE_PIN = "2468"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``shoe-sim`` arguments to its sub-parser."""
    parser.add_argument("--dialect", required=True, choices=DIALECTS,
                        help="the dialect the shoe speaks")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true",
                       help="serve on a new pseudo-terminal (its path is the first line out)")
    where.add_argument("--tcp", metavar="HOST:PORT",
                       help="serve on a TCP port (loopback), e.g. 127.0.0.1:7100")
    parser.add_argument("--seed", type=int, default=None,
                        help="shuffle seed, for a deal that repeats (default: a random one)")
    parser.add_argument("--packs", type=int, default=1,
                        help=f"shuffled packs in the shoe (1-{MAX_PACKS})")
    parser.add_argument("--deck-file", metavar="F",
                        help="scripted deal order: card texts separated by spaces or lines "
                             "(# starts a comment); several packs may follow one another")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--interval", type=int, metavar="MS", default=None,
                      help="deal a card every MS milliseconds within a round (default "
                           f"{DEFAULT_INTERVAL_MS})")
    pace.add_argument("--manual", action="store_true",
                      help="deal a card each time Enter is pressed")
    parser.add_argument("--seats", type=int, default=7, metavar="N",
                        help="the table's seats (1-7, default 7 like the table): a round is "
                             "three cards to each seat and to the dealer")
    parser.add_argument("--burn-cards", type=int, default=0, metavar="N",
                        help=f"burn cards before each round's deal (0-{MAX_BURN_CARDS}, the "
                             "table's burn_cards; default 0)")
    parser.add_argument("--gap", type=int, default=DEFAULT_GAP_MS, metavar="MS",
                        help="pause between rounds, and before the first round once a table "
                             f"opens the port (default {DEFAULT_GAP_MS})")
    parser.add_argument("--heartbeat", type=int, metavar="MS", default=1000,
                        help="heartbeat period of the native dialect (default 1000, at least "
                             f"{MIN_HEARTBEAT_MS})")
    parser.add_argument("--link-dir", metavar="DIR",
                        help="with --pty: also name the port DIR/card-shoe (a stable symlink "
                             "that follows replugs) and DIR/ttySHOE<n>; print DIR/card-shoe")
    parser.add_argument("--fault", action="append", default=[], metavar="NAME[@WHEN]",
                        help="inject a fault (repeatable); names: " + ", ".join(FAULTS))


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_fault(spec: str) -> tuple[tuple[str, float] | None, str, dict[str, Any]]:
    """Parse ``NAME[:KEY=VALUE,...][@WHEN]`` into ``(when, name, options)``.

    ``when`` is ``("card", n)`` (n >= 1), ``("time", s)`` (s >= 0) or None.

    Raises:
        ValueError: unknown fault, malformed spec, a card below 1, a time below 0.
    """
    body, _, when_text = spec.partition("@")
    name, _, opts_text = body.partition(":")
    name = fault_name(name.strip())
    options: dict[str, Any] = {}
    for item in filter(None, opts_text.split(",")):
        key, eq, val = item.partition("=")
        if not eq:
            raise ValueError(f"fault option {item!r} is not KEY=VALUE")
        options[key.strip()] = _value(val.strip())
    when: tuple[str, float] | None = None
    if when_text:
        try:
            when = (("time", float(when_text[:-1])) if when_text.endswith("s")
                    else ("card", int(when_text)))
        except ValueError:
            when = None
        lowest = 1 if when is not None and when[0] == "card" else 0
        if when is None or not math.isfinite(when[1]) or when[1] < lowest:
            raise ValueError(f"bad WHEN {when_text!r} in {spec!r}: use N (the N-th card, 1 "
                             "or more) or Ns (seconds after start, 0 or more)")
    return when, name, options


def _make_port(args: argparse.Namespace, tmp: str | None) -> ShoePort:
    if args.pty:
        from simulators.pty_shoe import PtyPort

        return PtyPort(args.link_dir or tmp, dialect=args.dialect)
    from simulators.tcp_shoe import TcpPort

    host, _, port_text = args.tcp.rpartition(":")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"--tcp {args.tcp!r}: the port must be 0..65535 (0: any free port)")
    return TcpPort(host or "127.0.0.1", int(port_text), dialect=args.dialect)


def _shown(port: ShoePort, args: argparse.Namespace) -> str:
    """The shoe URL a table opens, dialect included (``DIR/card-shoe`` with ``--link-dir``)."""
    if args.pty and not args.link_dir:
        return f"serial://{port.path}?dialect={args.dialect}"  # type: ignore[attr-defined]
    return getattr(port, "stable_url", port.url)


def round_cards(seats: int, burn_cards: int = 0) -> int:
    """Cards in one round: the burns, then three to each seat and three to the dealer."""
    return burn_cards + 3 * (seats + 1)


def _check_pace(args: argparse.Namespace) -> None:
    for flag, value, low, high in (("--seats", args.seats, 1, 7),
                                   ("--burn-cards", args.burn_cards, 0, MAX_BURN_CARDS),
                                   ("--packs", args.packs, 1, MAX_PACKS),
                                   ("--heartbeat", args.heartbeat, MIN_HEARTBEAT_MS, None),
                                   ("--gap", args.gap, 0, None),
                                   ("--interval", args.interval, 1, None)):
        if value is not None and (value < low or (high is not None and value > high)):
            span = f"{low} to {high}" if high is not None else f"{low} or more"
            raise ValueError(f"{flag} must be {span}, got {value}")


def start_lines(args: argparse.Namespace, url: str) -> list[str]:
    """What shoe-sim tells the operator after its URL: the pace and how to start the table.

    The README's recipe, ``run --autoplay`` with a supervisor PIN; plain ``run`` with
    ``--manual``, where the operator is the dealer.
    """
    n = round_cards(args.seats, args.burn_cards)
    interval = args.interval or DEFAULT_INTERVAL_MS
    pace = ("Enter deals a card" if args.manual else
            f"a card every {interval} ms, {args.gap} ms between rounds")
    lines = [f"rounds of {n} cards ({args.seats} seats, {args.burn_cards} burn cards), {pace}"]
    table = (f"threecard run --seats {args.seats} --shoe {shlex.quote(url)}" if args.manual
             else f"threecard run --autoplay --seats {args.seats} --supervisor-pin "
                  f"{RECIPE_PIN} --journal trial.sqlite3 --shoe {shlex.quote(url)}")
    burns = (f" (and burn_cards = {args.burn_cards} in its configuration)"
             if args.burn_cards else "")
    lines.append(f"start the table with: {table}{burns}")
    if args.manual:
        lines.append("you are the dealer: place the bets and press No more bets on the "
                     "dealer screen, then press Enter for each card")
        return lines
    lines.append(f"without --autoplay a dealer must place the bets and press No more bets "
                 f"on the dealer screen before the {args.gap} ms gap ends (--manual is the "
                 "mode for a human dealer)")
    if interval >= AUTOPLAY_QUIET_MS or args.gap < AUTOPLAY_QUIET_MS + AUTOPLAY_MARGIN_MS:
        lines.append(f"note: run --autoplay opens the next round once no card has come for "
                     f"{AUTOPLAY_QUIET_MS} ms; it needs --interval under {AUTOPLAY_QUIET_MS} "
                     f"and --gap of {AUTOPLAY_QUIET_MS + AUTOPLAY_MARGIN_MS} or more to keep "
                     "in step")
    return lines


def run(args: argparse.Namespace) -> int:
    """Run ``threecard shoe-sim``: 0 on a clean stop, 2 on bad arguments or an unopenable port."""
    try:
        _check_pace(args)
        schedule = []
        for spec in args.fault:
            try:
                schedule.append(parse_fault(spec))
            except ValueError as exc:
                raise ValueError(f"--fault {spec}: {exc}") from None
        cards = ([c for line in read_deck_file(args.deck_file) for c in line]
                 if args.deck_file else None)
        shoe = SimulatedShoe(args.dialect, seed=args.seed, packs=args.packs, cards=cards)
        for _, name, _ in schedule:
            if name == "stall" and args.manual:
                raise ValueError("stall needs --interval")
            shoe.check_fault(name)
    except (ValueError, OSError) as exc:
        print(f"threecard shoe-sim: {exc}", file=sys.stderr)
        return 2
    tmp = tempfile.TemporaryDirectory(prefix="shoe-sim-") if args.pty else None
    previous = None
    if threading.current_thread() is threading.main_thread():
        # from the first line out, SIGTERM is a clean stop (exit 0), like Ctrl-C
        previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            port = _make_port(args, tmp.name if tmp else None)
        except (OSError, ValueError, OverflowError) as exc:
            print(f"threecard shoe-sim: cannot open the port: {exc}", file=sys.stderr)
            return 2
        url = _shown(port, args)
        print(url, flush=True)
        print("\n".join(f"shoe-sim: {line}" for line in start_lines(args, url)),
              file=sys.stderr, flush=True)
        shoe.attach(port)
        return _serve(args, shoe, schedule)
    except KeyboardInterrupt:
        return 0
    except FaultNotSupported as exc:
        print(f"threecard shoe-sim: {exc}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if shoe.port is not None:
            shoe.port.close()
        if tmp is not None:
            tmp.cleanup()


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _serve(args: argparse.Namespace, shoe: SimulatedShoe,
           schedule: list[tuple[tuple[str, float] | None, str, dict[str, Any]]]) -> int:
    def dealt(card: str | None) -> None:
        left = shoe.remaining
        print(f"dealt {card} ({left} left)" if card else "shoe empty", file=sys.stderr,
              flush=True)

    timed = [(w, n, o) for w, n, o in schedule if w is not None]
    runner = ShoeRunner(shoe, interval_ms=None if args.manual
                        else (args.interval or DEFAULT_INTERVAL_MS),
                        heartbeat_ms=args.heartbeat, schedule=timed, on_deal=dealt,
                        round_cards=round_cards(args.seats, args.burn_cards), gap_ms=args.gap,
                        fresh_packs=0 if args.deck_file else args.packs,
                        burn_cards=args.burn_cards)
    original_inject = shoe.inject

    def inject(name: str, **kw: object) -> object:
        result = original_inject(name, **kw)
        print(f"fault {name} {kw or ''}".rstrip(), file=sys.stderr, flush=True)
        if name.replace("-", "_") == "replug" and isinstance(result, ShoePort):
            print(_shown(result, args), flush=True)
        return result

    shoe.inject = inject  # type: ignore[method-assign]
    for when, name, options in schedule:
        if when is None:
            shoe.inject(name, **options)
    forever = threading.Event()
    try:
        runner.start()
        if args.manual:
            print("press Enter to deal a card", file=sys.stderr, flush=True)
            for _ in sys.stdin:
                runner.deal()
        else:
            while not forever.wait(3600):  # until SIGTERM or Ctrl-C
                pass
    except KeyboardInterrupt:
        pass
    finally:
        runner.stop()
    return 0
