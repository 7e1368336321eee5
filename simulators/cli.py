"""``threecard shoe-sim``: a simulated card shoe on a pseudo-terminal or a TCP port.

For people and for other programs: the first line out is the shoe URL, dialect included,
exactly as ``threecard run --shoe`` takes it (flushed at once)::

    threecard shoe-sim --dialect native --pty --seats 2
    serial:///dev/pts/5?dialect=native
    threecard run --autoplay --seats 2 --shoe 'serial:///dev/pts/5?dialect=native'

    threecard shoe-sim --dialect beetek --tcp 127.0.0.1:7100 --manual
    socket://127.0.0.1:7100?dialect=beetek      <- Enter deals a card

How it deals, and why. A real shoe deals when the dealer draws a card: the table never
asks for one (the ``beetek`` dialect is listen-only, and the only line a ``native`` host
sends is ``PING``). A simulated shoe must therefore deal at a pace the table can follow
without being asked, and deal each round the cards the table expects:

* By default it deals rounds. One Three Card Poker round (``--burn-cards`` burns, then
  three cards to each of ``--seats`` seats and to the dealer) comes at one card every
  ``--interval`` ms. Then the shoe pauses ``--gap`` ms while the table settles, takes the
  next bets and closes them. The next round comes from freshly shuffled packs, because
  the table checks every round against one full deck. The first round starts ``--gap``
  ms after a table opens the port, and nothing is dealt while no table listens: cards
  dealt into a closed port would all arrive at once when a table opens it. When
  ``--seats`` equals the table's seats and ``--gap`` is longer than the table takes from
  its last card to "no more bets" (well under a second for ``run --autoplay``), every
  card arrives while a card is due: round after round settles and none is void.
* ``--manual``: Enter deals a card. The operator is the dealer and follows the screen.
  Rounds have the same size, each from a fresh deck.

Dealing one endless pack on a timer does not work: its cards fall into betting and
settling ("card before no more bets" voids the round), and the pack runs out
mid-round. Dealing when the table asks does not work either: reading ``PING`` as "deal"
would change the protocol, and a ``beetek`` table cannot ask at all.

``--fault NAME[:KEY=VALUE[,KEY=VALUE]][@WHEN]`` injects a fault of
:data:`simulators.faults.FAULTS`; ``WHEN`` is ``N`` (just before the N-th card) or ``Ns``
(N seconds after start); without ``@WHEN`` the fault is injected at start. Examples:
``--fault bad_crc@3``, ``--fault silence@10s``, ``--fault stall:seconds=20@5``,
``--fault unknown_card:code=D12@4``. After a ``replug`` the new port's URL is printed as a
further line on standard output. Progress goes to standard error. The simulator runs until
SIGTERM or Ctrl-C (or the end of standard input with ``--manual``).
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import tempfile
import threading
from typing import Any

from controller.game.cards import CardError, parse_card
from drivers.dialects import DIALECTS
from simulators.faults import FAULTS, FaultNotSupported, fault_name
from simulators.ports import ShoePort
from simulators.runner import ShoeRunner
from simulators.shoe import SimulatedShoe


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``shoe-sim`` arguments to its sub-parser."""
    parser.add_argument("--dialect", required=True, choices=DIALECTS,
                        help="the dialect the shoe speaks")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true",
                       help="serve on a new pseudo-terminal (its path is the first line out)")
    where.add_argument("--tcp", metavar="HOST:PORT",
                       help="serve on a TCP port (loopback), e.g. 127.0.0.1:7100")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (reproducible)")
    parser.add_argument("--packs", type=int, default=1, help="shuffled packs in the shoe")
    parser.add_argument("--deck-file", metavar="F",
                        help="scripted deal order: card texts separated by spaces or lines "
                             "(# starts a comment); several packs may follow one another")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--interval", type=int, metavar="MS", default=None,
                      help="deal a card every MS milliseconds within a round (default 1000)")
    pace.add_argument("--manual", action="store_true",
                      help="deal a card each time Enter is pressed")
    parser.add_argument("--seats", type=int, default=7, metavar="N",
                        help="the table's seats (1-7, default 7 like the table): a round is "
                             "three cards to each seat and to the dealer")
    parser.add_argument("--burn-cards", type=int, default=0, metavar="N",
                        help="burn cards before each round's deal (the table's burn_cards)")
    parser.add_argument("--gap", type=int, default=3000, metavar="MS",
                        help="pause between rounds, and before the first round once a table "
                             "opens the port (default 3000)")
    parser.add_argument("--heartbeat", type=int, metavar="MS", default=1000,
                        help="heartbeat period of the native dialect (default 1000)")
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
    """Parse ``NAME[:KEY=VALUE,...][@WHEN]``.

    Args:
        spec: the ``--fault`` argument.

    Returns:
        ``(when, name, options)``; ``when`` is ``("card", n)``, ``("time", s)`` or None.

    Raises:
        ValueError: unknown fault name or malformed spec.
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
            raise ValueError(f"bad WHEN {when_text!r} in {spec!r}: use N (card) or Ns") from None
    return when, name, options


def read_deck_file(path: str) -> list[str]:
    """Card texts from a deck file (whitespace separated, ``#`` comments)."""
    cards: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            for text in line.split("#", 1)[0].split():
                cards.append(str(parse_card(text)))
    return cards


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
    """The shoe URL a table opens, dialect included.

    ``serial:///dev/pts/N?dialect=...`` for a pty (``DIR/card-shoe``, which follows a
    replug, with ``--link-dir``), ``socket://HOST:PORT?dialect=...`` for TCP.
    """
    if args.pty and not args.link_dir:
        return f"serial://{port.path}?dialect={args.dialect}"  # type: ignore[attr-defined]
    return getattr(port, "stable_url", port.url)


def round_cards(seats: int, burn_cards: int = 0) -> int:
    """Cards in one round: the burns, then three to each seat and three to the dealer."""
    return burn_cards + 3 * (seats + 1)


def _check_pace(args: argparse.Namespace) -> None:
    for flag, value, low, high in (("--seats", args.seats, 1, 7),
                                   ("--burn-cards", args.burn_cards, 0, 52),
                                   ("--gap", args.gap, 0, None),
                                   ("--interval", args.interval, 1, None)):
        if value is not None and (value < low or (high is not None and value > high)):
            span = f"{low} to {high}" if high is not None else f"{low} or more"
            raise ValueError(f"{flag} must be {span}, got {value}")


def run(args: argparse.Namespace) -> int:
    """Run ``threecard shoe-sim`` until SIGTERM, Ctrl-C, or end of input (``--manual``).

    Args:
        args: parsed arguments.

    Returns:
        0 on a clean stop, 2 on bad arguments or a port that cannot be opened.
    """
    try:
        _check_pace(args)
        schedule = [parse_fault(spec) for spec in args.fault]
        cards = read_deck_file(args.deck_file) if args.deck_file else None
        shoe = SimulatedShoe(args.dialect, seed=args.seed, packs=args.packs, cards=cards)
        for _, name, _ in schedule:
            if name == "stall" and args.manual:
                raise ValueError("stall needs --interval")
            shoe.check_fault(name)
    except (ValueError, OSError, CardError, FaultNotSupported) as exc:
        print(f"threecard shoe-sim: {exc}", file=sys.stderr)
        return 2
    tmp = tempfile.TemporaryDirectory(prefix="shoe-sim-") if args.pty else None
    try:
        try:
            port = _make_port(args, tmp.name if tmp else None)
        except (OSError, ValueError, OverflowError) as exc:
            print(f"threecard shoe-sim: cannot open the port: {exc}", file=sys.stderr)
            return 2
        url = _shown(port, args)
        print(url, flush=True)
        n = round_cards(args.seats, args.burn_cards)
        pace = ("Enter deals a card" if args.manual else
                f"a card every {args.interval or 1000} ms, {args.gap} ms between rounds")
        burns = (f" (and burn_cards = {args.burn_cards} in its configuration)"
                 if args.burn_cards else "")
        print(f"shoe-sim: rounds of {n} cards ({args.seats} seats, {args.burn_cards} burn "
              f"cards), {pace}; start the table with: threecard run --seats {args.seats} "
              f"--shoe {shlex.quote(url)}{burns}", file=sys.stderr, flush=True)
        shoe.attach(port)
        return _serve(args, shoe, schedule)
    except FaultNotSupported as exc:
        print(f"threecard shoe-sim: {exc}", file=sys.stderr)
        return 2
    finally:
        if shoe.port is not None:
            shoe.port.close()
        if tmp is not None:
            tmp.cleanup()


def _serve(args: argparse.Namespace, shoe: SimulatedShoe,
           schedule: list[tuple[tuple[str, float] | None, str, dict[str, Any]]]) -> int:
    def dealt(card: str | None) -> None:
        left = shoe.remaining
        print(f"dealt {card} ({left} left)" if card else "shoe empty", file=sys.stderr,
              flush=True)

    timed = [(w, n, o) for w, n, o in schedule if w is not None]
    runner = ShoeRunner(shoe, interval_ms=None if args.manual else (args.interval or 1000),
                        heartbeat_ms=args.heartbeat, schedule=timed, on_deal=dealt,
                        round_cards=round_cards(args.seats, args.burn_cards), gap_ms=args.gap,
                        fresh_packs=0 if args.deck_file else max(1, args.packs))
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
    stop = threading.Event()

    def terminate(*_: object) -> None:
        stop.set()
        raise KeyboardInterrupt

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, terminate)
    runner.start()
    try:
        if args.manual:
            print("press Enter to deal a card", file=sys.stderr, flush=True)
            for _ in sys.stdin:
                runner.deal()
        else:
            while not stop.wait(3600):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        runner.stop()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0
