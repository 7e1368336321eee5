"""What the ``threecard`` command line says, read in this process (``controller.cli.main``).

A usage error is the error first, then where the usage is, never the whole usage; a bad
flag's error names the flag, a bad file's the file, section and key; every sub-command's
``--help`` says what it asks and its defaults.
"""

from __future__ import annotations

import pytest

from controller.cli import main


def _usage_error(capsys, *argv: str) -> list[str]:
    """The lines ``threecard ARGV...`` writes for an argparse usage error (exit status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err.splitlines()


@pytest.mark.parametrize("argv, prog, why", [
    (["run", "--rounds", "0"], "threecard run", "argument --rounds: must be 1 or more, got 0"),
    (["floor", "serve", "--broker", "mqtt://localhost"], "threecard floor serve",
     "the following arguments are required: --store"),
    (["no-such-command"], "threecard", "argument COMMAND: invalid choice: 'no-such-command'"),
    (["par-sheet", "--no-such-flag"], "threecard par-sheet",
     "unrecognized arguments: --no-such-flag"),
])
def test_a_usage_error_is_the_error_then_where_the_usage_is(capsys, argv, prog, why):
    error, pointer = _usage_error(capsys, *argv)
    assert error.startswith(f"{prog}: error: {why}")
    assert pointer == f"{prog}: see `{prog} --help` for usage"
