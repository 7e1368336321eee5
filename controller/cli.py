"""The ``threecard`` command: one entry point, one sub-command per job.

A sub-command's module (``add_arguments``, ``run``) is imported only when asked for.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TextIO

from controller.game.text import for_terminal

#: sub-command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("controller.daemon", "run the table (shoe, engine, screens) until SIGTERM"),
    "settle": ("controller.settle_cli", "settle rounds given as JSON Lines on stdin"),
    "par-sheet": ("controller.par_sheet_cli", "exact return of a rule profile, every case counted"),
    "simulate": ("controller.simulate_cli", "run the engine against a simulated shoe"),
    "recall": ("controller.recall_cli", "game recall: the last rounds from the journal"),
    "meters": ("controller.recall_cli", "meters per bet type and per seat from the journal"),
    "verify-journal": ("controller.recall_cli", "check the journal's hash chain"),
    "seal": ("controller.seal_cli", "a journal's verification key and seals; start a chain"),
    "journal": ("controller.journal_cli", "move settled history to a verified archive file"),
    "floor": ("controller.floor_cli", "the casino floor: record every table's feed, read it"),
    "shoe-sim": ("simulators.cli", "run a simulated card shoe on a pty or TCP port"),
    "decode": ("drivers.cli", "decode raw shoe bytes into one JSON line per event"),
    "screenshot": ("display.screenshot", "render a named scenario of a screen to PNG"),
    "hash-pin": ("controller.pin_cli", "hash a dealer, supervisor or technician PIN for [roles]"),
    "report": ("controller.report_cli", "shift report as a PDF: meters, returns, voids, alarms"),
    "dispute": ("controller.dispute", "a signed bundle of one round for a dispute; or verify one"),
    "keygen": ("controller.signing", "make the table's signing key beside its configuration"),
    "identify": ("controller.identity", "the installed software's identity; check every file"),
}


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that ends each option's text with ``(default: X)``, unless it names or has none."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (action.option_strings and "default" not in text and action.default is not None
                and action.default is not False and action.default not in ("", [])
                and action.default is not argparse.SUPPRESS):
            default = (json.dumps(action.default).replace("%", "%%")
                       if isinstance(action.default, dict) else "%(default)s")
            return f"{text} (default: {default})"
        return action.help


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose usage error is the error first, then where the usage is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` and where ``--help`` is; exit status 2."""
        self.exit(2, f"{self.prog}: error: {message}\n"
                     f"{self.prog}: see `{self.prog} --help` for usage\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser; only the chosen sub-command is imported (``_module``)."""
    parser = CommandParser(prog="threecard",
                           description=(__doc__ or "threecard").splitlines()[0]
                           .replace("``", ""))  # (python -OO has no docstrings)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _chosen_command(sys.argv[1:] if argv is None else argv)
    commands: dict[str, argparse.ArgumentParser] = {}
    for name, (module_name, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_module=module_name, _command=name)
        commands[name] = sp
        if name == chosen:
            module = importlib.import_module(module_name)
            adder = getattr(module, f"add_{name.replace('-', '_')}_arguments", None)
            (adder or module.add_arguments)(sp)
    parser.set_defaults(_commands=commands)
    return parser


def _chosen_command(argv: list[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a whole number ``low`` to ``high`` (None: unbounded)."""
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"{low} or more" if high is None else f"{low} to {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return convert


def counted(n: int, noun: str) -> str:
    """``1 round``, ``2 rounds``, ``0 rounds``: a count and its noun, singular for one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def wagers(text: str) -> dict[str, int]:
    """An argparse ``type`` for ``--bets``: a JSON object of bet type to minor units.

    Raises:
        argparse.ArgumentTypeError: not JSON, not an object, an unknown bet or a bad amount.
    """
    from controller.game.config import amount_problem
    from controller.game.inputs import BET_NAMES
    from controller.game.settlement import BetError, bets_from_mapping

    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg} at column {exc.colno}); "
                                         'expected e.g. {"ante": 100}') from None
    except (ValueError, RecursionError):
        raise argparse.ArgumentTypeError('expected a JSON object such as {"ante": 100}'
                                         ) from None
    try:
        bets_from_mapping(raw, BET_NAMES)
    except BetError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    for bet, amount in raw.items():  # 0 is no bet; a bet is 1 to 10^9 minor units
        if amount and amount_problem(amount):
            raise argparse.ArgumentTypeError(f"bet {bet!r} {amount_problem(amount)}")
    return dict(raw)


# The smallest dealer screen, pixels (a 7-inch panel; upright 480x800): touch targets and
# text are sized for it.
DEALER_MIN = (800, 480)


def window_size(text: str) -> str:
    """An argparse ``type`` for ``--dealer-size``: ``WIDTHxHEIGHT``, 200 to 8000 pixels each."""
    try:
        _parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


# run's flags that override a setting of the file: setting -> flag. A bad value given so is
# named by its flag, never blamed on the file.
RUN_FLAGS: dict[str, str] = {
    "shoe_url": "--shoe", "dialect": "--dialect", "rules": "--rules", "seats": "--seats",
    "journal_path": "--journal", "headless": "--headless", "language": "--lang",
    "log_level": "--log-level", "dealer_size": "--dealer-size", "floor_broker": "--floor",
    "table_id": "--table-id"}


def run_overrides(args: argparse.Namespace, **made: Any) -> dict[str, Any]:
    """The settings ``run``'s flags give (None: not given); ``made``: settings made in place."""
    return {name: made[name] if name in made else getattr(args, flag[2:].replace("-", "_"))
            for name, flag in RUN_FLAGS.items()}


def note_overrides(parser: argparse.ArgumentParser, flags: dict[str, str]) -> None:
    """End each flag's help with the setting it overrides and that setting's default."""
    from controller.game.config import TableConfig

    built_in = TableConfig()
    for action in parser._actions:
        name = next((n for n, f in flags.items() if f in action.option_strings), None)
        if name is None:
            continue
        text, default = action.help or "", getattr(built_in, name)
        note = f"overrides {built_in.place(name)}"
        if "default" not in text and default not in ("", False):
            note += f"; default {default}"
        action.help = f"{text} ({note})".lstrip()


def dealer_window(config: Any) -> tuple[int, int] | None:
    """The dealer window's (width, height) ``[display] dealer_size`` sets, or None: the default.

    Raises:
        ConfigError: malformed or below :data:`DEALER_MIN`, named by its key or flag.
    """
    if not config.dealer_size:
        return None
    try:
        size = _parse_size(config.dealer_size)
        if min(size) < min(DEALER_MIN) or max(size) < max(DEALER_MIN):
            raise ValueError(f"{size[0]}x{size[1]} is smaller than the dealer screen can be "
                             f"drawn on: at least {DEALER_MIN[0]}x{DEALER_MIN[1]} "
                             f"({DEALER_MIN[1]}x{DEALER_MIN[0]} upright)")
        return size
    except ValueError as exc:
        from controller.game.config import ConfigError

        raise ConfigError(f"{config.place('dealer_size')}: {exc}") from None


def screens_record(config: Any) -> dict[str, Any] | None:
    """The screens' language and size as the start-up record journals them; None with no screen."""
    if not (config.dealer_screen or config.player_screen):
        return None
    size = dealer_window(config)
    return {"language": config.language, "fullscreen": config.fullscreen,
            "dealer_size": f"{size[0]}x{size[1]}" if size else ""}


def _parse_size(text: str) -> tuple[int, int]:
    """``800x480`` as (800, 480), as the screens read it (by name: no screen library here)."""
    return importlib.import_module("display.screenshot").parse_size(text)


def input_script(path: str) -> Any:
    """An argparse ``type`` for ``--input-script``: the script read and checked."""
    return importlib.import_module("display.input_script").argument(path)


def escape_unencodable(*streams: TextIO) -> None:
    """Make text streams write what their encoding cannot as backslash escapes, losing no line."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # closed or not a text stream: leave it
                pass


class LineFormatter(logging.Formatter):
    """One log record, one line: control characters escaped so free text forges no record."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The record's line, its message escaped."""
        record.message = for_terminal(record.message)
        return super().formatMessage(record)


def line_handler(stream: TextIO) -> logging.Handler:
    """A log handler writing each record as one escaped line (time, level, message)."""
    escape_unencodable(stream)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LineFormatter("%(asctime)s %(levelname)-7s %(message)s",
                                       "%Y-%m-%dT%H:%M:%S"))
    return handler


def main(argv: list[str] | None = None) -> int:
    """Run the ``threecard`` command line: 0 done, 1 bad input, 2 usage, 130 Ctrl+C."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep stdout for output
    escape_unencodable(sys.stdout, sys.stderr)
    argv = sys.argv[1:] if argv is None else argv
    try:
        parser = build_parser(argv)  # imports the sub-command's module
        args, unknown = parser.parse_known_args(argv)
        if not getattr(args, "command", None):
            if unknown:
                parser.error(f"unrecognized arguments: {' '.join(unknown)}")
            parser.print_help()
            return 2
        if unknown:  # the sub-command's usage, not the top level's
            args._commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
        module = importlib.import_module(args._module)
        runner = getattr(module, f"run_{args._command.replace('-', '_')}", None) or module.run
        return int(runner(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
