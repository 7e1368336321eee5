"""``config_change`` of the rules on ``--control-stdin``: the profile's text is journaled.

A FIFO named as the profile hung the table thread (it waited for a writer), and every
later start-up and ``verify-journal`` with it. Now the file is read where the change
is taken, without waiting on it: a FIFO is refused in words and nothing is journaled; a
profile file is journaled by its text, so editing the file afterwards changes nothing
the journal says.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources

import pytest

from controller.game.auth import DEMO_PINS
from controller.game.inputs import ConfigChange
from controller.journal import Journal

SUP = DEMO_PINS["supervisor"]
LIVE = (resources.files("controller.game") / "profiles" / "live.toml").read_text()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_rules_change_to_a_fifo_is_refused_and_a_file_is_journaled_by_its_text(
        daemons, table_config, tmp_path):
    fifo, house = tmp_path / "fifo.toml", tmp_path / "house.toml"
    os.mkfifo(fifo)
    house.write_text(LIVE.replace('name = "live"', 'name = "house"'))
    args = ["--config", str(table_config), "--shoe", "sim://?dialect=native", "--headless",
            "--control-stdin"]
    d = daemons(args)
    d.wait_for(r"READY")
    d.send("config_change", key="rules", value=str(fifo), pin=SUP)
    d.wait_for(r" WARNING +control: refused config_change: bad value for rules: "
               + str(fifo) + ": not a regular file: a rule profile is a TOML file", timeout=10)
    d.send("config_change", key="rules", value=str(house), pin=SUP)
    d.wait_for(r"control: config_change")
    d.send("place_bet", seat=1, bet="ante", amount=100)     # the table thread goes on
    d.wait_for(r"control: place_bet")
    assert d.stop() == 0
    assert not [x for x in d.lines if "TABLE LOCKED" in x or "Traceback" in x]
    journal = tmp_path / "journal.sqlite3"
    j = Journal(journal, readonly=True)
    changes = [json.loads(r.body) for r in j.records() if r.kind == ConfigChange.name]
    rejected = len(j.rejections())
    j.close()
    assert changes == [{"key": "rules", "value": str(house), "old": "live",
                        "rules_text": house.read_text()}] and rejected == 0
    house.write_text(LIVE.replace("\npair = 1\n", "\npair = 3\n"))   # edited afterwards
    p = subprocess.run([sys.executable, "-m", "controller.cli", "verify-journal", "--journal",
                        str(journal)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("journal OK"), p.stdout + p.stderr
    d = daemons(args)                                         # and the table starts again
    d.wait_for(r"READY")
    assert d.stop() == 0
    assert not [x for x in d.lines if "TABLE LOCKED" in x or "JOURNAL BROKEN" in x]


def test_a_rules_change_to_a_profile_start_up_refuses_is_refused_in_the_same_words(
        daemons, table_config, tmp_path):
    """A profile returning 100 % or more was taken on the control line; start-up refused it.

    After a restart the table went back to the configured profile without a word.
    """
    generous = tmp_path / "generous.toml"
    generous.write_text(LIVE.replace('name = "live"', 'name = "generous"')
                        .replace("\npair = 1\n", "\npair = 10\n"))
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "--rules",
                        str(generous), "--journal", str(tmp_path / "other.sqlite3")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    words = re.search(r"\S+: pair_plus returns [0-9.]+ ?% to the player \(100 % or more\)",
                      p.stderr)
    assert words, p.stderr

    d = daemons(["--config", str(table_config), "--shoe", "sim://?dialect=native",
                 "--headless", "--control-stdin"])
    d.wait_for(r"READY")
    d.send("config_change", key="rules", value=str(generous), pin=SUP)
    m = d.wait_for(r" WARNING +control: refused config_change: bad value for rules: (.*) - at "
                   r"`\$\.value`$", timeout=10)
    assert m.group(1) == words.group()
    assert len([x for x in d.lines if words.group() in x and " DEBUG " not in x]) == 1
    d.send("place_bet", seat=1, bet="ante", amount=100)     # the table goes on, on live
    d.wait_for(r"control: place_bet")
    assert d.stop() == 0
    j = Journal(tmp_path / "journal.sqlite3", readonly=True)
    kinds = [r.kind for r in j.records()]
    j.close()
    assert ConfigChange.name not in kinds
