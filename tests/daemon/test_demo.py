"""``threecard run --demo`` as a new user meets it: how to stop it, where its journal is,
a first round soon after READY, and a stop that raises no alarm."""

from __future__ import annotations

import ast
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ALARM = re.compile(r"^\S+ (WARNING|ERROR|CRITICAL) ")


def _alarms(lines: list[str]) -> list[str]:
    return [line for line in lines if ALARM.match(line)]


def test_the_demo_says_how_to_stop_it_and_where_its_journal_is(daemons):
    d = daemons(["--demo", "--headless", "--rounds", "1"])
    demo = d.wait_for(r"DEMO: .*journal (\S+) \(temporary, deleted at exit; --journal PATH "
                      r"keeps it\).*Stop with Ctrl\+C \(or SIGTERM: kill (\d+)\)")
    journal = Path(demo.group(1))
    assert int(demo.group(2)) == d.proc.pid
    d.wait_for("READY")
    assert journal.exists()                          # the journal is where it says
    d.wait_for(rf"demo journal {re.escape(str(journal))} deleted \(run with --journal PATH")
    assert d.proc.wait(30) == 0                      # --rounds 1: it stops by itself
    d.stop()
    assert not journal.exists()
    assert _alarms(d.lines) == []


def test_a_demo_journal_given_is_kept_and_readable(tmp_path, daemons):
    journal = tmp_path / "demo.sqlite3"
    d = daemons(["--demo", "--headless", "--rounds", "1", "--journal", str(journal)])
    d.wait_for(rf"DEMO: .*journal {re.escape(str(journal))} \(kept\)")
    d.wait_for(rf"demo journal kept: {re.escape(str(journal))}")
    assert d.proc.wait(30) == 0
    d.stop()
    recall = subprocess.run([sys.executable, "-m", "controller.cli", "recall", "--journal",
                             str(journal), "--json"], capture_output=True, text=True,
                            timeout=60)
    assert recall.returncode == 0, recall.stderr
    assert [r["status"] for r in json.loads(recall.stdout)][-1] == "settled"


def _seconds_after_ready(d, pattern: str) -> float:
    d.wait_for(r"READY: ")
    ready = time.monotonic()
    d.wait_for(pattern)
    return time.monotonic() - ready


@pytest.mark.parametrize("pace", [None, "900"], ids=["headless-pace", "screen-pace"])
def test_the_first_card_is_dealt_within_3_s_of_ready(daemons, pace):
    """At the headless pace and at the pace the demo keeps on screens (900 ms a step)."""
    d = daemons(["--demo", "--headless", "--log-level", "debug",
                 *(["--pace-ms", pace] if pace else [])])
    assert _seconds_after_ready(d, r"round 1: 1 cards dealt") <= 3.0
    assert d.stop() == 0


def test_the_headless_demo_prints_its_first_round_within_3_s_of_ready(daemons):
    d = daemons(["--demo", "--headless"])
    assert _seconds_after_ready(d, r"round 1: dealer .* \| seat 1 ") <= 3.0
    assert d.stop() == 0


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_in_the_middle_of_a_deal_raises_no_alarm(daemons, signum):
    d = daemons(["--demo", "--headless", "--log-level", "debug", "--pace-ms", "300"])
    d.wait_for(r"round 1: 4 cards dealt")          # mid-deal: the shoe link is busy
    d.proc.send_signal(signum)
    d.wait_for(rf"signal {signum.name} received")
    d.wait_for(r"stopping")
    d.wait_for(r"stopped: ")
    # one signal stops it: wait for the exit (a second SIGTERM while the interpreter
    # finalises meets the default action again)
    assert d.proc.wait(30) == 0
    d.stop()
    assert _alarms(d.lines) == []
    assert not [line for line in d.lines if re.search(r"link_lost|paused", line)
                and " DEBUG " not in line]


def test_the_demo_under_rules_without_the_6_card_bonus_plays_without_it(daemons):
    """No ``--bets``: the demo's bets less the 6 Card Bonus the classic rules do not offer."""
    d = daemons(["--demo", "--rules", "classic", "--headless", "--rounds", "1"])
    demo = d.wait_for(r"DEMO: simulated shoe, automatic bets (\{.*?\}), journal")
    bets = ast.literal_eval(demo.group(1))
    assert "six_card_bonus" not in bets and bets["ante"] > 0 and bets["pair_plus"] > 0
    d.wait_for(r"round 1: dealer ")
    assert d.proc.wait(30) == 0
    d.stop()
    assert _alarms(d.lines) == []
