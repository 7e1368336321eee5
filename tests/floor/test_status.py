"""What ``threecard floor status`` says of a table is what happened to it, and when.

Real tables (``threecard run --demo --headless --floor``), a real Mosquitto and the real
recorder: a table killed (SIGKILL: a crash) or hung (SIGSTOP: a frozen machine, a pulled
cable, nothing more on the wire) is OFFLINE on the floor within the broker's keep-alive
limit (1.5 times the keep-alive interval, and Mosquitto's whole seconds): within 15 s, by
its last will, although the will was made when the table connected, before its
``online``. A table stopped cleanly is STOPPED, its alarms none; and the first line says
whether the recorder runs, stopped, or fell silent. An ``offline`` forged under a running
table's journal is answered by the table's ``online``.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

from controller.journal import Journal
from floor.messages import StatusMessage, decode, encode
from floor.mqtt import KEEPALIVE_S
from floor.report import SILENT_AFTER_S
from floor.store import Store


def _statuses(store_path) -> dict[str, str | None]:
    try:
        s = Store(store_path, readonly=True)
    except Exception:  # noqa: BLE001 - not written yet
        return {}
    try:
        return {t.table_id: t.status for t in s.tables()}
    finally:
        s.close()


def _tables(floor, tmp_path, **paces: int) -> tuple:
    """A broker, a recorder and a demo table per id (its pace in ms), each connected."""
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    tables = [floor.table(broker, tid.replace("_", "-"), tmp_path / f"{tid}.sqlite3", pace)
              for tid, pace in paces.items()]
    for t in tables:
        t.wait_for(r"floor: connected to", 60)
    return broker, store, *tables


def test_a_table_killed_or_hung_is_offline_within_the_keep_alive_limit(floor, tmp_path):
    broker, store, killed, hung = _tables(floor, tmp_path, TCP_K=50, TCP_H=50)
    for t in (killed, hung):
        t.wait_for(r"round 2: dealer", 60)
    floor.wait_until(lambda: _statuses(store) == {"TCP-K": "online", "TCP-H": "online"}, 15,
                     "both tables online")
    killed.proc.send_signal(signal.SIGKILL)
    hung.proc.send_signal(signal.SIGSTOP)
    t0 = time.monotonic()
    # Mosquitto drops a silent client after 1.5 keep-alives (counted in whole seconds,
    # checked now and then): the will then reaches the recorder, about 8 to 10 s on a quiet
    # machine. The bound here is loose, for a loaded one: what fails is a will that loses.
    bound = 6 * KEEPALIVE_S
    floor.wait_until(lambda: _statuses(store).get("TCP-K") == "offline", bound,
                     "the killed table offline", every=0.05)
    floor.wait_until(lambda: _statuses(store).get("TCP-H") == "offline",
                     max(bound - (time.monotonic() - t0), 1.0), "the hung table offline",
                     every=0.05)
    print(f"killed and hung tables offline on the floor after {time.monotonic() - t0:.1f} s")
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert {r["table_id"]: r["status"] for r in status["tables"]} == {
        "TCP-H": "offline", "TCP-K": "offline"}
    for line in _status_text(store)[1:]:  # its alarms are the ones it showed last
        assert " OFFLINE " in line and "(when last heard)  heard " in line, line


def _status_text(store) -> list[str]:
    p = subprocess.run([sys.executable, "-m", "controller.cli", "floor", "status", "--store",
                        str(store)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def test_floor_status_says_whether_the_recorder_runs_and_which_table_stopped(floor, tmp_path,
                                                                           store_at):
    # on each kind of store: `floor serve --store` a file, or postgresql://
    broker = floor.broker().start()
    store = store_at
    recorder = floor.recorder(broker, store)
    journal = tmp_path / "s.sqlite3"
    table = floor.table(broker, "TCP-S", journal, 50)
    table.wait_for(r"round 2: dealer", 60)
    assert table.stop() == 0  # a clean stop: its shoe link closes, and it says so
    floor.wait_until(lambda: _statuses(store).get("TCP-S") == "stopped", 15, "TCP-S stopped")
    floor.wait_until(lambda: floor.stored(store, "TCP-S") == floor.finished(journal), 15,
                     "every round the table dealt in the store")
    head, line = _status_text(store)
    assert re.fullmatch(r"recorder threecard-floor: running \(heard \d+ s ago\)", head), head
    assert line.startswith("TCP-S        STOPPED  last round "), line
    assert "alarms: none" in line and re.search(r"  heard \d+ s ago", line), line
    assert recorder.stop() == 0
    head, _ = _status_text(store)
    assert re.fullmatch(r"recorder threecard-floor: STOPPED at \S+: what follows is the floor "
                        r"as it stood then", head), head
    # a recorder killed, or its machine down, writes nothing more: after 15 s it is silent
    s = Store(store)
    s.beat("threecard-floor", time.time_ns() // 1000 - (SILENT_AFTER_S + 1) * 1_000_000)
    s.close()
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert status["recorder"]["state"] == "silent"
    assert "SILENT since" in _status_text(store)[0]


def test_an_offline_forged_under_a_running_tables_journal_is_answered_by_the_table(
        floor, tmp_path):
    # on a broker without an ACL anyone may write on a table's status topic: an "offline"
    # naming the table's own journal is believed for a moment, and the table, which reads
    # its own status, answers it with its online
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    floor.recorder(broker, store)
    journal = tmp_path / "f.sqlite3"
    table = floor.table(broker, "TCP-F", journal, 50)
    table.wait_for(r"round 2: dealer", 60)
    floor.wait_until(lambda: _statuses(store).get("TCP-F") == "online", 15, "TCP-F online")
    j = Journal(journal, readonly=True)
    genesis = j.genesis()[0]
    j.close()
    forger = floor.client(broker, None, None)
    forged = StatusMessage(table="TCP-F", journal=genesis, status="offline",
                           connection=time.time_ns() // 1000, sent_us=time.time_ns() // 1000)
    assert forger.publish("threecard/TCP-F/status", encode(forged), retain=True) == 0
    time.sleep(2.0)
    floor.wait_until(lambda: _statuses(store).get("TCP-F") == "online", 10,
                     "the table's online again")
    # and the broker keeps the table's word for whoever subscribes next
    reader = floor.client(broker, None, None)
    reader.c.subscribe("threecard/TCP-F/status", qos=1)
    floor.wait_until(lambda: reader.payloads, 10, "the retained status")
    assert decode("status", reader.payloads[-1][1]).status == "online"
    assert table.stop() == 0


def test_a_recorder_whose_session_is_taken_over_stops_with_exit_2(floor, tmp_path):
    # two recorders with one client id share one session on the broker: each would take
    # messages the other then never stores. The first one stops and says why.
    broker = floor.broker().start()
    first = floor.recorder(broker, tmp_path / "a.sqlite3", name="first")
    second = floor.recorder(broker, tmp_path / "b.sqlite3", name="second")
    assert first.proc.wait(30) == 2, first.text()
    lines = [line for line in first.text().splitlines() if "ERROR" in line]
    assert len(lines) == 1 and re.search(
        r"ERROR +floor: recorder stopped: its session on mqtt://\S+ was taken over by another "
        r"client with the client id threecard-floor \((the broker said so|3 connections lost "
        r"within 10 s)\): is another "
        r"`threecard floor serve` running with it\? Give each recorder a user of its own \(a "
        r"--client-id of its own on a broker without users\)$", lines[0]), first.text()
    assert "Traceback" not in first.text()
    # the second keeps the session: no fight (Mosquitto 2.0.11 does not say 0x8E; each
    # recorder reconnects and takes the session back until the first taken over stops)
    time.sleep(12.0)
    assert second.proc.poll() is None, second.text()
    connected = second.text().count("recorder connected")
    time.sleep(3.0)
    assert second.text().count("recorder connected") == connected, second.text()
    # with ids of their own, two recorders run side by side
    third = floor.recorder(broker, tmp_path / "c.sqlite3", "--client-id", "floor-2",
                           name="third")
    time.sleep(3.0)
    assert second.proc.poll() is None and third.proc.poll() is None
    assert second.stop() == 0 and third.stop() == 0


def test_serve_help_documents_the_client_id():
    p = subprocess.run([sys.executable, "-m", "controller.cli", "floor", "serve", "--help"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    text = " ".join(p.stdout.split())
    assert "--client-id CLIENT_ID" in text, text
    assert "(default its --username, which the shipped broker configuration binds it to; " \
        "without one threecard-floor)" in text, text
    assert "exit status 2" in text, text


def _state(table: str, journal: str, seq: int, alarms: list | None = None) -> bytes:
    from floor.messages import Alarm, StateMessage

    return encode(StateMessage(table=table, journal=journal, seq=seq, last_round=0,
                               last_round_seq=0, last_round_hash="0" * 64, round_in_play=1,
                               round_state="betting",
                               open_alarms=[Alarm(*a) for a in alarms or []]))


def _meters(table: str, journal: str, seq: int, total: list[int]) -> bytes:
    from floor.messages import Meters, MetersMessage

    return encode(MetersMessage(table=table, journal=journal, seq=seq,
                                meters=Meters(rows={"total": total})))


def test_the_newest_state_and_meters_are_kept_by_event_and_bad_rows_show_a_dash(
        floor, tmp_path):
    broker = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    recorder = floor.recorder(broker, store)
    j = "a" * 64
    c = floor.client(broker, None, None)
    assert c.publish("threecard/TCP-M/status", encode(StatusMessage(
        table="TCP-M", journal=j, status="online"))) == 0
    # older state and meters, retained at the broker, then newer ones
    assert c.publish("threecard/TCP-M/state", _state("TCP-M", j, 50), retain=True) == 0
    assert c.publish("threecard/TCP-M/meters", _meters("TCP-M", j, 50, [
        500, 500, 0, 1, 0, 0]), retain=True) == 0
    assert c.publish("threecard/TCP-M/state", _state("TCP-M", j, 100, [
        ("misread", "warning", "Misread")])) == 0
    assert c.publish("threecard/TCP-M/meters", _meters("TCP-M", j, 100, [
        1000, 100, 400, 3, 0, 0])) == 0
    floor.wait_until(lambda: "hold 30.00%" in " ".join(_status_text(store)), 15,
                     "the newer meters")
    # the recorder starts again: the broker sends it the older retained copies
    assert recorder.stop() == 0
    recorder = floor.recorder(broker, store, name="again")
    # meters no table sends (a row of three) are refused at the door
    assert c.publish("threecard/TCP-M/meters", b'{"table": "TCP-M", "journal": "' + j.encode()
                     + b'", "seq": 200, "meters": {"rows": {"total": [1, 2, 3]}}}') == 0
    assert c.publish("threecard/TCP-M/status", encode(StatusMessage(
        table="TCP-M", journal=j, status="offline"))) == 0  # after the retained copies

    def line() -> str:
        rows = [x for x in _status_text(store)[1:] if x.startswith("TCP-M")]
        return rows[0] if rows else ""
    floor.wait_until(lambda: "OFFLINE" in line(), 15, "TCP-M's last message on the floor")
    text = line()
    # (won 400 - paid 100) / wagered 1000, and the alarm of the newer state
    assert "hold 30.00%" in text and "alarms: misread" in text, text
    # a row written by something else than the recorder: "-" for what cannot be read
    s = Store(store)
    s.db.execute("UPDATE tables SET state = 'not json', meters = ? WHERE table_id = 'TCP-M'",
                 ('{"meters": {"rows": {"total": ["x"]}}}',))
    s.close()
    p = subprocess.run([sys.executable, "-m", "controller.cli", "floor", "status", "--store",
                        str(store)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    (text,) = [x for x in p.stdout.splitlines() if x.startswith("TCP-M")]
    assert "hold -" in text and "alarms: -" in text, text
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    (row,) = status["tables"]
    assert row["hold_ppm"] is None and row["open_alarms"] is None


def test_a_table_silent_for_30_s_is_offline_even_when_its_will_was_lost(floor, tmp_path):
    # TCP-G hangs, and the broker is restarted without persistence: its last will is lost
    # with it. TCP-Q deals nothing for a minute (one step a minute), but is there.
    broker, store, hung, idle = _tables(floor, tmp_path, TCP_G=50, TCP_Q=60_000)
    hung.wait_for(r"round 2: dealer", 60)
    floor.wait_until(lambda: _statuses(store) == {"TCP-G": "online", "TCP-Q": "online"}, 15,
                     "both tables online")
    hung.proc.send_signal(signal.SIGSTOP)
    broker.kill()
    broker.start()
    idle.wait_for(r"floor: connected to[\s\S]*floor: connected to", 30)
    time.sleep(2.0)
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert {r["table_id"]: r["status"] for r in status["tables"]} == {
        "TCP-G": "online", "TCP-Q": "online"}  # its will never came: online for now
    time.sleep(32.0)
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    assert {r["table_id"]: r["status"] for r in status["tables"]} == {
        "TCP-G": "offline", "TCP-Q": "online"}
    lines = {x[:6]: x for x in _status_text(store)[1:]}
    assert " OFFLINE " in lines["TCP-G "] and " ONLINE " in lines["TCP-Q "], lines
    hung.proc.send_signal(signal.SIGCONT)
