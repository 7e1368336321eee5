"""What the ``threecard`` command line says, read in this process (``controller.cli.main``).

A usage error is the error first, then where the usage is, never the whole usage; a bad
flag's error names the flag, a bad file's the file, section and key; every sub-command's
``--help`` says what it asks and its defaults.
"""

from __future__ import annotations

import argparse
import logging
import re

import pytest

from controller.cli import COMMANDS, RUN_FLAGS, build_parser, main
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


def test_a_shoe_url_without_a_port_is_refused_at_start(capsys, root_logging, tmp_path):
    journal = tmp_path / "j.sqlite3"
    line = _run_refused(capsys, "--journal", str(journal), "--shoe", "socket://127.0.0.1")
    assert line == "threecard run: --shoe: socket://127.0.0.1: no port (socket://HOST:PORT)"
    assert not journal.exists()


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


def _help(capsys, *argv: str) -> str:
    """``threecard ARGV... --help``, its words joined by single spaces (as wrapped)."""
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def _parsers(command: str) -> dict[str, argparse.ArgumentParser]:
    """``threecard COMMAND``'s parser and its own sub-commands' (``floor serve``), by
    their names as help shows them."""
    found = {}
    todo = [build_parser([command]).get_default("_commands")[command]]
    while todo:
        parser = todo.pop()
        found[parser.prog] = parser
        todo += [p for a in parser._actions if isinstance(a, argparse._SubParsersAction)
                 for p in a.choices.values()]
    return found


def _option_help(command: str, flag: str) -> str:
    """The help text ``threecard COMMAND --help`` prints for ``flag`` (unwrapped)."""
    parser = _parsers(command)[f"threecard {command}"]
    (action,) = [a for a in parser._actions if flag in a.option_strings]
    return parser._get_formatter()._expand_help(action)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_option_says_what_it_asks_and_its_default(command):
    for prog, parser in _parsers(command).items():
        formatter = parser._get_formatter()
        for action in parser._actions:
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            text = formatter._expand_help(action) if action.help else ""
            assert text.strip(), f"{prog} {action.option_strings[0]}: no help"
            if action.default not in (None, False, "", [], argparse.SUPPRESS):
                assert "default" in text, f"{prog} {action.option_strings[0]}: {text}"


def test_simulate_help_names_its_defaults(capsys):
    from controller.simulate_cli import DEFAULT_BETS

    for flag, default in (("--rules", "live"), ("--seats", "7"), ("--rounds", "1000"),
                          ("--seed", "1"), ("--bets", DEFAULT_BETS)):
        assert _option_help("simulate", flag).endswith(f" (default: {default})")
    assert "(default: 1000)" in _help(capsys, "simulate")  # as printed


def test_run_help_lists_the_shoe_url_schemes_of_the_drivers_registry(capsys):
    import simulators.sim_link  # noqa: F401  (registers sim://, as a sim:// shoe does)
    from drivers.url import SCHEMES

    text = _help(capsys, "run")
    assert f"schemes: {', '.join(SCHEMES)} " in text


def test_an_unknown_scheme_is_refused_with_the_schemes_the_help_lists(capsys, root_logging,
                                                                     tmp_path):
    listed = _help(capsys, "run").split("schemes: ", 1)[1].split(" (overrides", 1)[0]
    assert "sim" in listed.split(", ")  # the simulated shoe, before any sim:// URL is used
    line = _run_refused(capsys, "--journal", str(tmp_path / "j.sqlite3"), "--shoe", "ftp://x")
    assert line.endswith(f"(expected one of {listed})"), line


def test_run_help_names_the_setting_each_flag_overrides(capsys):
    from controller.game.config import FILE_KEYS

    keys = {field: f"[{section}] {key}" for section, fields in FILE_KEYS.items()
            for key, field in fields.items()}
    for field, flag in RUN_FLAGS.items():
        text = _option_help("run", flag)
        assert re.search(rf"\(overrides {re.escape(keys[field])}[;)]", text), (flag, text)
    assert _option_help("run", "--rules").endswith(
        "(overrides [table] rules; default live)")
    assert "(overrides [journal] path)" in _help(capsys, "run")  # as printed


def test_dispute_help_shows_verify_as_the_other_form_not_a_required_word(capsys):
    text = _help(capsys, "dispute")
    usage = text.split(" a signed bundle")[0]
    assert usage.startswith("usage: threecard dispute --journal JOURNAL --round ROUND --out")
    assert "(--config CONFIG | --key KEY)" in usage
    assert "threecard dispute verify [--public-key FILE] [--verify-key KEY] bundle" in usage
    assert "verify ..." not in text
    assert _help(capsys, "dispute", "verify").startswith(
        "usage: threecard dispute verify [-h] [--public-key FILE]")


def test_hash_pin_help_says_it_asks_twice_or_reads_stdin(capsys):
    text = _help(capsys, "hash-pin")
    assert "asks for the PIN twice, without echo" in text
    assert "one line on stdin" in text and "4 to 12 digits" in text
