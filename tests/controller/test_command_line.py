"""What the ``threecard`` command line says, read in this process (``controller.cli.main``).

A usage error is the error first, then where the usage is, never the whole usage; a bad
flag's error names the flag, a bad file's the file, section and key; every sub-command's
``--help`` says what it asks and its defaults.
"""

from __future__ import annotations

import logging

import pytest

from controller.cli import RUN_FLAGS, main
from controller.game.config import load_config


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


@pytest.fixture
def root_logging():
    """``run`` sets the root logger up (a handler on this test's stdout): put it back."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


BAD = {  # setting: (its flag, its key in the file, a bad value, what is wrong with it)
    "rules": ("--rules", "[table] rules", "clasic", "clasic: no such rule profile"),
    "dealer_size": ("--dealer-size", "[display] dealer_size", "640x480",
                    "640x480 is smaller than the dealer screen can be drawn on"),
    "shoe_url": ("--shoe", "[shoe] url", "bogus://x", "unknown shoe URL scheme 'bogus'"),
    "table_id": ("--table-id", "[table] id", "a b", "must be 1 to 32 characters"),
    "floor_broker": ("--floor", "[floor] broker", "http://x", "must be an mqtt:// or mqtts://"),
    "journal_path": ("--journal", "[journal] path", "", "must be a non-empty string"),
}


@pytest.fixture(scope="module")
def good_file(tmp_path_factory):
    """A configuration file that loads, its shoe simulated."""
    path = tmp_path_factory.mktemp("config") / "nd.toml"
    path.write_text('[table]\nseats = 3\n[shoe]\nurl = "sim://?dialect=native"\n')
    return path


def _run_refused(capsys, *argv: str) -> str:
    """The one line ``threecard run ARGV... --headless`` refuses to start with (status 2)."""
    assert main(["run", *argv, "--headless"]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    (line,) = err.splitlines()
    return line


@pytest.mark.parametrize("setting", list(BAD))
def test_a_bad_flag_is_named_by_the_flag_not_the_configuration_file(
        capsys, root_logging, good_file, tmp_path, setting):
    flag, _, value, why = BAD[setting]
    journal = tmp_path / "j.sqlite3"
    line = _run_refused(capsys, "--config", str(good_file), "--journal", str(journal),
                        f"{flag}={value}")
    assert line.startswith(f"threecard run: {flag}: {why}"), line
    assert str(good_file) not in line
    assert not journal.exists()  # nothing started


@pytest.mark.parametrize("setting", list(BAD))
def test_a_bad_value_in_the_file_is_named_by_file_section_and_key(
        capsys, root_logging, tmp_path, setting):
    _, key, value, why = BAD[setting]
    section, name = key.strip("[").split("] ")
    path = tmp_path / "nd.toml"
    path.write_text(f'[{section}]\n{name} = "{value}"\n')
    line = _run_refused(capsys, "--config", str(path))
    assert line.startswith(f"threecard run: {path}: {key}: {why}"), line


def test_a_flag_overrides_a_bad_value_in_the_file(tmp_path):
    path = tmp_path / "nd.toml"
    path.write_text('[table]\nrules = "clasic"\n')
    config = load_config(path, RUN_FLAGS, rules="classic", seats=None)
    assert (config.rules, config.flags) == ("classic", {"rules": "--rules"})


@pytest.mark.parametrize("argv, flag", [
    (["simulate", "--rules", "clasic"], "--rules"),
    (["simulate", "--table-id", "a b"], "--table-id"),
    (["par-sheet", "--rules", "clasic"], "--rules"),
    (["settle", "--rules", "clasic"], "--rules"),
])
def test_the_other_commands_name_the_flag_too(capsys, argv, flag):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"threecard {argv[0]}: {flag}: "), err
    assert "[table]" not in err
