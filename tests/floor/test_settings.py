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
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from controller.game.config import DEMO_SHOE
from floor.follower import Follower
from floor.publisher import QUICK_S

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


def _cli(command: str) -> list[str]:
    """A ``threecard ...`` command line as printed, run through this interpreter."""
    words = shlex.split(command)
    assert words[0] == "threecard", command
    return words[1:]


def test_simulate_keeps_a_temporary_journal_the_floor_did_not_take(floor, tmp_path):
    broker = floor.broker()  # made, not started: nothing listens on its port yet
    bets = '{"ante": 100, "pair_plus": 200}'  # the 6 Card Bonus is not a classic bet
    p = _run("simulate", "--rounds", "5", "--floor", broker.url, "--table-id", "TCP-Z",
             "--seats", "3", "--rules", "classic", "--bets", bets)
    assert p.returncode == 1, p.stdout + p.stderr
    m = re.search(r"did not acknowledge the last \d+ journal event\(s\); the journal keeps "
                  r"them: (\S+) \(kept, not deleted\); `([^`]+)` sends them", p.stderr)
    assert m, p.stderr
    journal = Path(m.group(1))
    command = _cli(m.group(2))
    # a copy-paste resumes the same table: its id, broker, rules and seats
    assert command == ["simulate", "--rounds", "1", "--bets", bets, "--journal", str(journal),
                       "--table-id", "TCP-Z", "--floor", broker.url, "--rules", "classic",
                       "--seats", "3"]
    try:
        _send_kept(floor, broker, journal, command, tmp_path, "TCP-Z")
    finally:
        shutil.rmtree(journal.parent)
    # a journal in memory cannot be read by the feed: said before anything runs
    p = _run("simulate", "--rounds", "5", "--journal", ":memory:", "--floor", broker.url)
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "threecard simulate: the floor feed reads the journal: it needs a journal file, "
        "not :memory:"], p.stderr


def _send_kept(floor, broker, journal: Path, command: list[str], tmp_path: Path,
               table: str) -> None:
    assert len(floor.finished(journal)) == 5  # nothing lost
    # the command it names sends them, once the broker is there
    broker.start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    sent = _run(*command)
    assert sent.returncode == 0, sent.stderr
    assert "written by table" not in sent.stderr  # the same table, not another
    floor.wait_until(lambda: floor.stored(store, table) == floor.finished(journal), 15,
                     "the kept rounds on the floor")


def test_run_says_how_to_send_what_the_broker_did_not_take(floor, tmp_path):
    broker = floor.broker()  # not started
    journal = tmp_path / "r.sqlite3"
    p = _run("run", "--demo", "--headless", "--rounds", "2", "--pace-ms", "0", "--journal",
             str(journal), "--floor", broker.url, "--table-id", "TCP-R", "--seats", "3")
    m = re.search(r"the broker did not acknowledge the last \d+ journal event\(s\) "
                  r"\(\d+ to \d+\); the journal keeps them: `([^`]+)` sends them",
                  p.stdout + p.stderr)
    assert m, p.stdout + p.stderr
    command = _cli(m.group(1))
    # the demo's shoe and no screens, as it ran: the command opens neither a shoe device
    # nor windows
    assert command == ["run", "--shoe", DEMO_SHOE, "--headless", "--journal", str(journal),
                       "--table-id", "TCP-R", "--floor", broker.url, "--rules", "live",
                       "--seats", "3"]
    broker.start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    before = floor.finished(journal)
    assert len(before) >= 2
    sent = _run(*command, "--demo", "--headless", "--rounds", "1")
    assert sent.returncode == 0, sent.stdout + sent.stderr
    floor.wait_until(lambda: floor.stored(store, "TCP-R") == floor.finished(journal), 15,
                     "the rounds on the floor under the same table id")


def test_a_journal_of_another_table_is_refused_with_a_floor_and_warned_about_without(
        floor, tmp_path):
    broker = floor.broker().start()
    journal = tmp_path / "a.sqlite3"
    p = _run("simulate", "--rounds", "2", "--journal", str(journal), "--table-id", "TCP-A")
    assert p.returncode == 0, p.stderr
    size = journal.stat().st_size
    p = _run("simulate", "--rounds", "3", "--journal", str(journal), "--table-id", "TCP-B",
             "--floor", broker.url)
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.strip().splitlines() == [
        f"threecard simulate: the journal {journal} was written by table TCP-A, this is table "
        "TCP-B: its rounds would reach the floor under the wrong id; run it as --table-id "
        "TCP-A, or give this table a journal of its own"], p.stderr
    assert journal.stat().st_size == size and len(floor.finished(journal)) == 2
    p = _run("run", "--demo", "--headless", "--rounds", "1", "--journal", str(journal),
             "--table-id", "TCP-B", "--floor", broker.url)
    assert p.returncode == 2 and "was written by table TCP-A" in p.stderr, p.stderr
    # without a floor it is said, and the table runs
    p = _run("simulate", "--rounds", "3", "--journal", str(journal), "--table-id", "TCP-B")
    assert p.returncode == 0, p.stderr
    assert (f"the journal {journal} was written by table TCP-A, this is table TCP-B"
            in p.stderr), p.stderr


def test_a_topic_prefix_with_wildcards_or_empty_levels_is_refused(floor, tmp_path):
    broker = floor.broker().start()
    for prefix in ("casino/+", "casino/#", "casino//pit", "/casino", "casino/"):
        p = _run("floor", "serve", "--broker", broker.url, "--store",
                 str(tmp_path / "floor.sqlite3"), "--topic-prefix", prefix)
        assert p.returncode == 2, p.stdout + p.stderr
        lines = p.stderr.strip().splitlines()
        assert lines == [f"threecard floor serve: --topic-prefix: must be topic levels of A-Z "
                         f"a-z 0-9 _ - joined by /, got {prefix!r}"], p.stderr
        config = _config(tmp_path / "t.toml", tmp_path / "j.sqlite3", broker=broker.url,
                         topic_prefix=prefix)
        p = _run("run", "--demo", "--headless", "--config", str(config), "--rounds", "1")
        assert p.returncode == 2 and "[floor] topic_prefix: must be topic levels" in p.stderr
    assert not (tmp_path / "floor.sqlite3").exists()


def test_two_tables_with_one_id_are_named_and_the_first_keeps_the_floor(floor, tmp_path):
    # one id, one client id: each connection of one closes the other's; the second, whose
    # connections are closed soon after the broker accepts them, says so and waits
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    first_journal = tmp_path / "first.sqlite3"
    first = floor.run("first", "run", "--demo", "--headless", "--seats", "2", "--pace-ms",
                      "50", "--journal", str(first_journal), "--floor", broker.url,
                      "--table-id", "TCP-D")
    first.wait_for(r"floor: connected to \S+ as TCP-D$", 60)
    time.sleep(QUICK_S)  # the first one's connection is older than a quick loss
    second = floor.run("second", "run", "--demo", "--headless", "--seats", "2", "--pace-ms",
                       "50", "--journal", str(tmp_path / "second.sqlite3"), "--floor",
                       broker.url, "--table-id", "TCP-D")
    second.wait_for(r"ERROR +floor: broker mqtt://\S+ closed the connection of table TCP-D 3 "
                    r"times in a row within 3 s of accepting it: another client connects "
                    r"with its client id TCP-D \(another table with its id\? Each table "
                    r"needs an id of its own\); this table's feed waits and tries again in "
                    r"60 s", 60)
    first.wait_for(r"ERROR +floor: another table connected to mqtt://\S+ as table TCP-D "
                   r"\(journal [0-9a-f]{16}, connected \S+\), closing this table's "
                   r"connection: each table needs an id of its own", 15)
    log = broker.folder / "mosquitto.log"
    connections = log.read_text().count(" as TCP-D ")
    time.sleep(5.0)  # no fight: the second waits, the first keeps its connection
    assert log.read_text().count(" as TCP-D ") == connections, log.read_text()
    assert second.text().count("waits and tries again") == 1
    assert "waits and tries again" not in first.text()
    f = Follower(first_journal, "TCP-D")
    first_genesis = f.genesis
    f.close()
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert [(r["table_id"], r["status"], r["journal"]) for r in status["tables"]] == [
        ("TCP-D", "online", first_genesis)]
