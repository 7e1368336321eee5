"""The floor's settings through the real commands: checked whole before anything opens,
files read again at each connection, and problems said once, not thousands of times.

``threecard run --demo --headless`` with a ``[floor]`` section, ``threecard floor serve``
and a real Mosquitto: a CA file that is not a certificate, or a password file that cannot
be read, stops ``run`` with one line naming the setting before the journal is opened; a
password file unreadable for a moment while the table reconnects only delays the feed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from floor.follower import Follower

ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], env=ENV,
                          capture_output=True, text=True, timeout=120)


def _config(path, journal, **floor: str):
    lines = "".join(f'{k} = "{v}"\n' for k, v in floor.items())
    path.write_text(f'[table]\nid = "TCP-A"\n[journal]\npath = "{journal}"\n[floor]\n{lines}')
    return path


def test_floor_files_that_cannot_be_used_stop_run_before_the_journal_opens(tmp_path):
    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("this is no certificate\n")
    journal = tmp_path / "journal.sqlite3"
    cases = [
        ({"broker": "mqtts://floor.lan", "ca_file": str(not_pem)},
         f"[floor] ca_file {not_pem}: not a PEM file of CA certificates"),
        ({"broker": "mqtts://floor.lan", "client_cert": str(not_pem),
          "client_key": str(not_pem)},
         f"[floor] client_cert {not_pem} with client_key {not_pem}: not a PEM certificate"),
        ({"broker": "mqtt://floor.lan", "password_file": str(tmp_path / "none.pw")},
         f"[floor] password_file {tmp_path / 'none.pw'}: cannot read"),
        ({"broker": "mqtts://floor.lan", "ca_file": str(tmp_path / "none.pem")},
         f"[floor] ca_file {tmp_path / 'none.pem'}: no such file"),
    ]
    for i, (floor, says) in enumerate(cases):
        config = _config(tmp_path / f"table{i}.toml", journal, **floor)
        p = _run("run", "--demo", "--headless", "--config", str(config), "--rounds", "1")
        assert p.returncode == 2, p.stdout + p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], p.stderr
        assert not journal.exists()  # refused before the journal was opened
        assert "Traceback" not in p.stdout + p.stderr


def test_a_password_file_unreadable_for_a_moment_only_delays_the_feed(floor, tmp_path):
    broker = floor.secured().start()
    store = tmp_path / "floor.sqlite3"
    pw = floor.secret("recorder.pw", floor.users["floor.recorder"])
    floor.recorder(broker, store, "--username", "floor.recorder", "--password-file", str(pw))
    secret = floor.secret("TCP-A.pw", floor.users["TCP-A"])
    journal = tmp_path / "journal.sqlite3"
    config = _config(tmp_path / "table.toml", journal, broker=broker.url,
                     password_file=str(secret))
    table = floor.run("TCP-A", "run", "--demo", "--config", str(config), "--headless",
                      "--seats", "2", "--pace-ms", "20")
    table.wait_for(r"floor: connected to", 60)
    table.wait_for(r"round 2: dealer", 30)
    # the password file goes away for a moment, just as the broker restarts
    secret.rename(tmp_path / "moved.pw")
    broker.kill()
    broker.start()
    table.wait_for(rf"\[floor\] password_file {re.escape(str(secret))}: cannot read.*"
                   "trying again", 30)
    (tmp_path / "moved.pw").rename(secret)
    floor.wait_until(lambda: table.text().count("floor: connected to") >= 2, 30,
                     "the table connected again")
    before = len(floor.stored(store, "TCP-A"))
    floor.wait_until(lambda: len(floor.stored(store, "TCP-A")) > before + 2, 30,
                     "rounds reaching the floor again")
    assert table.stop() == 0
    deadline = time.monotonic() + 20
    while floor.stored(store, "TCP-A") != floor.finished(journal):
        assert time.monotonic() < deadline, "the store does not equal the journal"
        time.sleep(0.2)
    assert "the feed stopped on an error" not in table.text()


def test_simulate_keeps_a_temporary_journal_the_floor_did_not_take(floor, tmp_path):
    broker = floor.broker()  # made, not started: nothing listens on its port yet
    p = _run("simulate", "--rounds", "5", "--floor", broker.url)
    assert p.returncode == 1, p.stdout + p.stderr
    m = re.search(r"did not acknowledge the last \d+ journal event\(s\); the journal keeps "
                  r"them: (\S+) \(kept, not deleted\); `threecard simulate --journal \S+ "
                  r"--rounds 1 --floor (\S+)` sends them", p.stderr)
    assert m, p.stderr
    journal = Path(m.group(1))
    try:
        _send_kept(floor, broker, journal, m.group(2), tmp_path)
    finally:
        shutil.rmtree(journal.parent)
    # a journal in memory cannot be read by the feed: said before anything runs
    p = _run("simulate", "--rounds", "5", "--journal", ":memory:", "--floor", broker.url)
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "threecard simulate: the floor feed reads the journal: it needs a journal file, "
        "not :memory:"], p.stderr


def _send_kept(floor, broker, journal: Path, url: str, tmp_path: Path) -> None:
    assert len(floor.finished(journal)) == 5  # nothing lost
    # the command it names sends them, once the broker is there
    broker.start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    sent = _run("simulate", "--journal", str(journal), "--rounds", "1", "--floor", url)
    assert sent.returncode == 0, sent.stderr
    floor.wait_until(lambda: floor.stored(store, "TABLE-1") == floor.finished(journal), 15,
                     "the kept rounds on the floor")


def test_two_tables_with_one_id_are_named_and_the_first_keeps_the_floor(floor, tmp_path):
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    first_journal = tmp_path / "first.sqlite3"
    first = floor.run("first", "run", "--demo", "--headless", "--seats", "2", "--pace-ms",
                      "50", "--journal", str(first_journal), "--floor", broker.url,
                      "--table-id", "TCP-D")
    first.wait_for(r"floor: connected to", 60)
    second = floor.run("second", "run", "--demo", "--headless", "--seats", "2", "--pace-ms",
                       "50", "--journal", str(tmp_path / "second.sqlite3"), "--floor",
                       broker.url, "--table-id", "TCP-D")
    says = (r"ERROR +floor: another table is online on mqtt://\S+ as table TCP-D \(journal "
            r"[0-9a-f]{16}, connected \S+\): each table needs an id of its own; ")
    second.wait_for(says + r"this table's feed waits and tries again in 60 s", 60)
    first.wait_for(says + r"it waits, this table goes on", 15)
    time.sleep(8.0)  # no fight: one error each, two connections of the tables
    log = (broker.folder / "mosquitto.log").read_text()
    assert log.count("as threecard-table-TCP-D-") == 2, log
    assert second.text().count("another table is online") == 1
    assert first.text().count("another table is online") == 1
    f = Follower(first_journal, "TCP-D")
    first_genesis = f.genesis
    f.close()
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert [(r["table_id"], r["status"], r["journal"]) for r in status["tables"]] == [
        ("TCP-D", "online", first_genesis)]
