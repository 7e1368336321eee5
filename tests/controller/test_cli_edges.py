"""The edges of the ``threecard`` command line, run as a user runs them (subprocesses).

A bad value gets one error line naming the flag, then where the sub-command's usage is,
and exit status 2; nothing starts.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from journal_edit import copy_journal, events, sql

ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _threecard(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, env=ENV, cwd=cwd)


@pytest.fixture
def threecard(tmp_path):
    """Run ``threecard ARGS...`` in an empty folder (a table started by mistake would
    leave its journal there); returns the completed process."""
    return lambda *args, stdin="": _threecard(tmp_path, *args, stdin=stdin)


def _usage_error(p: subprocess.CompletedProcess, command: str, flag: str) -> str:
    """The error line of an argparse usage error; checks it points at the sub-command's
    usage."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    error, pointer = p.stderr.strip().splitlines()
    assert pointer == f"threecard {command}: see `threecard {command} --help` for usage"
    assert error.startswith(f"threecard {command}: error: "), p.stderr
    assert flag in error, p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    return error


@pytest.mark.parametrize("command", ["run", "simulate"])
@pytest.mark.parametrize("rounds", ["0", "-1", "-25", "three"])
def test_rounds_must_be_1_or_more(threecard, command, rounds):
    error = _usage_error(threecard(command, "--rounds", rounds), command, "--rounds")
    assert ("1 or more" if rounds.lstrip("-").isdigit() else "whole number") in error


@pytest.mark.parametrize("command", ["run", "simulate"])
@pytest.mark.parametrize("seats", ["0", "8", "9"])
def test_seats_are_1_to_7(threecard, command, seats):
    error = _usage_error(threecard(command, "--seats", seats), command, "--seats")
    assert "1 to 7" in error


@pytest.mark.parametrize("command", ["run", "simulate"])
def test_a_bet_above_10_to_the_9_minor_units_is_refused(threecard, command):
    error = _usage_error(threecard(command, "--bets", '{"ante": 1000000001}'), command,
                         "--bets")
    assert "'ante' must be a whole number of minor units 1 to 1000000000" in error


@pytest.mark.parametrize("pin", ["123", "1234567890123", "12a4"])
def test_a_supervisor_pin_flag_is_4_to_12_digits(threecard, pin):
    p = threecard("run", "--headless", "--supervisor-pin", pin, "--journal", "j.sqlite3")
    assert p.returncode == 2
    assert p.stderr == "threecard run: --supervisor-pin: a PIN is 4 to 12 digits\n"


def test_a_configuration_with_9_seats_names_the_key(threecard, tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[table]\nseats = 9\n")
    p = threecard("run", "--config", str(path), "--headless")
    assert p.returncode == 2
    assert str(path) in p.stderr
    assert "[table] seats: must be a whole number 1 to 7, got 9" in p.stderr


def test_simulate_runs_seven_seats(threecard):
    p = threecard("simulate", "--seats", "7", "--rounds", "2", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["seats"] == 7


@pytest.mark.parametrize("command", ["run", "simulate", "recall", "meters", "settle",
                                     "par-sheet", "verify-journal"])
def test_an_unknown_flag_points_at_the_sub_commands_usage(threecard, command, tmp_path):
    required = ["--journal", str(tmp_path / "j.sqlite3")] if command in (
        "recall", "meters", "verify-journal") else []
    _usage_error(threecard(command, *required, "--no-such-flag"), command, "--no-such-flag")


@pytest.mark.parametrize("command", ["run", "simulate"])
@pytest.mark.parametrize("bets, why", [
    ("notjson", "not JSON"),
    ("[100]", "object"),
    ('{"ante": -5}', "'ante'"),
    ('{"ante": 1.5}', "'ante'"),
    ('{"insurance": 100}', "'insurance'"),
])
def test_bad_bets_name_the_flag(threecard, command, bets, why):
    args = ["--autoplay"] if command == "run" else []
    error = _usage_error(threecard(command, *args, "--bets", bets), command, "--bets")
    assert why in error


@pytest.mark.parametrize("command", ["run", "simulate"])
def test_bets_the_rules_refuse_name_the_flag(threecard, command):
    # the classic profile offers no 6 Card Bonus
    args = ["--demo", "--headless"] if command == "run" else []
    p = threecard(command, *args, "--rules", "classic", "--bets",
                  '{"ante": 100, "six_card_bonus": 100}')
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [p.stderr.strip()]          # one line
    assert p.stderr.startswith(f"threecard {command}: --bets: ")
    assert "6 Card Bonus" in p.stderr


@pytest.fixture(scope="module")
def journal(tmp_path_factory):
    """A journal of 14 settled rounds on 2 seats (more than game recall keeps in memory)."""
    path = tmp_path_factory.mktemp("j") / "journal.sqlite3"
    p = _threecard(path.parent, "simulate", "--seats", "2", "--rounds", "14", "--journal",
                   str(path), "--json")
    assert p.returncode == 0, p.stderr
    return path


def test_recall_shows_when_round_1_opened(threecard, journal):
    p = threecard("recall", "--journal", str(journal), "--last", "14", "--json")
    assert p.returncode == 0, p.stderr
    rounds = {r["round_id"]: r for r in json.loads(p.stdout)}
    assert sorted(rounds) == list(range(1, 15))
    opened = [rounds[i]["started_utc"] for i in range(1, 15)]
    assert all(opened), opened
    assert opened == sorted(opened)                          # round 1 opened first
    first_event = events(journal)[0][1]
    assert opened[0] == first_event                          # with the table's first event
    text = threecard("recall", "--journal", str(journal), "--last", "14").stdout
    round_1 = text.split("GAME RECALL  round 1  ")[1]
    assert re.fullmatch(rf"  opened {re.escape(first_event)}  closed \S+",
                        round_1.splitlines()[1])


def test_recall_last_must_be_1_or_more(threecard, journal):
    _usage_error(threecard("recall", "--journal", str(journal), "--last", "0"), "recall",
                 "--last")


def test_meters_exit_1_when_they_do_not_reconcile(threecard, journal, tmp_path):
    assert threecard("meters", "--journal", str(journal)).returncode == 0
    bad = copy_journal(journal, tmp_path / "bad.sqlite3")
    # the stored meters pay 1.00 more than the rounds
    sql(bad, "UPDATE meters SET paid = paid + 100 WHERE name = 'total'")
    text = threecard("meters", "--journal", str(bad))
    assert "DOES NOT RECONCILE" in text.stdout
    assert text.returncode == 1
    as_json = threecard("meters", "--journal", str(bad), "--json")
    assert json.loads(as_json.stdout)["reconciled"] is False
    assert as_json.returncode == 1


def test_settle_skips_blank_lines(threecard):
    line = ('{"player": ["As","Ks","Qs"], "dealer": ["2c","3d","5h"], '
            '"bets": {"ante": 100}, "decision": "play"}')
    p = threecard("settle", stdin=f"\n{line}\n\n   \n{line}\n\n")
    assert p.returncode == 0, p.stdout
    out = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(out) == 2 and all("error" not in r for r in out)
    bad = threecard("settle", stdin=f"{line}\n\nnot json\n")
    assert bad.returncode == 1
    assert json.loads(bad.stdout.splitlines()[1])["line"] == 3   # input line numbers kept


def test_bad_faults_name_the_flag(threecard):
    p = threecard("simulate", "--faults", "bogus=1", "--rounds", "1")
    assert p.returncode == 2
    assert p.stderr.startswith("threecard simulate: --faults: unknown fault 'bogus'")


@pytest.mark.parametrize("last", ["1000001", "100000000000000000000"])
def test_recall_last_is_at_most_a_million(threecard, journal, last):
    error = _usage_error(threecard("recall", "--journal", str(journal), "--last", last),
                         "recall", "--last")
    assert "1 to 1000000" in error
    assert threecard("recall", "--journal", str(journal), "--last", "1000000").returncode == 0


@pytest.mark.parametrize("pace", ["60001", "100000000000000000000", "-1"])
def test_run_pace_is_0_to_a_minute(threecard, tmp_path, pace):
    error = _usage_error(threecard("run", "--demo", "--headless", "--pace-ms", pace), "run",
                         "--pace-ms")
    assert "0 to 60000" in error
    assert not list(tmp_path.iterdir())                              # nothing started


def test_ctrl_c_while_the_sub_command_imports_exits_130_quietly(tmp_path):
    """Ctrl+C in the first moments of a command, while its module (pygame, the game...)
    is still being imported: status 130 and no traceback. A module stands in for a slow
    import: it says it has begun, then waits for the signal."""
    (tmp_path / "slow_import.py").write_text(
        "import sys, time\nprint('importing', file=sys.stderr, flush=True)\ntime.sleep(30)\n")
    code = ("import sys\nfrom controller import cli\n"
            "cli.COMMANDS['recall'] = ('slow_import', 'a command slow to import')\n"
            "sys.exit(cli.main(['recall']))\n")
    path = os.pathsep.join([str(tmp_path), *sys.path])
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(ENV, PYTHONPATH=path))
    assert p.stderr.readline() == "importing\n"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130
    assert (out, err) == ("", "")


@pytest.mark.parametrize("command", ["recall", "meters", "verify-journal"])
def test_a_folder_given_as_the_journal_is_named_a_directory(threecard, tmp_path, command):
    p = threecard(command, "--journal", str(tmp_path))
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert f"{tmp_path}: is a directory; give the journal file's path" in p.stderr
    assert "no such journal" not in p.stderr


def test_hash_pin_help_names_every_role_a_pin_is_for(threecard):
    from controller.game.config import ROLES

    p = threecard("hash-pin", "--help")
    assert p.returncode == 0
    assert all(role in p.stdout for role in ROLES), p.stdout
    assert len(ROLES) == 3
