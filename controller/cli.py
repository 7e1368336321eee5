"""The ``threecard`` command: one entry point, one sub-command per job.

Each sub-command lives in the package that owns it and is imported only when it is
asked for, so ``threecard settle`` never loads pygame and ``threecard screenshot``
never loads pyserial. A sub-command module exposes ``add_arguments(parser)`` and
``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

#: sub-command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("controller.daemon", "run the table (shoe, engine, screens) until SIGTERM"),
    "settle": ("controller.settle_cli", "settle rounds given as JSON Lines on stdin"),
    "par-sheet": ("controller.par_sheet_cli", "exact return of a rule profile by full enumeration"),
    "simulate": ("controller.simulate_cli", "run the engine against a simulated shoe"),
    "recall": ("controller.recall_cli", "game recall: the last rounds from the journal"),
    "meters": ("controller.recall_cli", "meters per bet type and per seat from the journal"),
    "verify-journal": ("controller.recall_cli", "check the journal's hash chain"),
    "shoe-sim": ("simulators.cli", "run a simulated card shoe on a pty or TCP port"),
    "decode": ("drivers.cli", "decode raw shoe bytes into one JSON line per event"),
    "screenshot": ("display.screenshot", "render a named scenario of a screen to PNG"),
    "hash-pin": ("controller.pin_cli", "hash a supervisor or technician PIN for the config"),
}


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every sub-command's arguments.

    Returns:
        The parser; each sub-parser carries ``_module`` so ``main`` can dispatch.
    """
    parser = argparse.ArgumentParser(prog="threecard", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = _chosen_command(sys.argv[1:])
    for name, (module_name, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_module=module_name, _command=name)
        if name == chosen:
            module = importlib.import_module(module_name)
            adder = getattr(module, f"add_{name.replace('-', '_')}_arguments", None)
            (adder or module.add_arguments)(sp)
    return parser


def _chosen_command(argv: list[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the ``threecard`` command line.

    Args:
        argv: arguments without the program name; ``sys.argv[1:]`` when None.

    Returns:
        The process exit status (0 success, 1 bad input seen, 2 usage error).
    """
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep stdout for output
    if argv is not None:
        sys.argv = [sys.argv[0], *argv]
    parser = build_parser()
    args = parser.parse_args()
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    module = importlib.import_module(args._module)
    runner = getattr(module, f"run_{args._command.replace('-', '_')}", None) or module.run
    try:
        return int(runner(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
