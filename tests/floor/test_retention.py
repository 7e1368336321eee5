"""Retention, and what a PostgreSQL store cannot hold, with the real recorder running.

``threecard floor prune`` moves old rounds into an archive file while a real table deals
and the real recorder writes: the store and its archives together hold every round the
journal holds, once each; ``floor status`` and ``verify-journal --floor-store`` call the
rounds pruned, not lacking, and the archive verifies against the journal on its own. On
PostgreSQL a message carrying text the database cannot hold (a NUL) or a number beyond
its integers is refused and logged; the recorder goes on.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import paho.mqtt.client as mqtt

from floor.messages import EventMessage, StatusMessage, encode
from floor.store import Store

TABLE = "TCP-R"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                          text=True, timeout=120)


def _ids(rounds: list[dict]) -> list[int]:
    return sorted(r["round_id"] for r in rounds)


def _rounds_total(store: str) -> float:
    """``threecard_floor_rounds_total`` of the table as ``/metrics`` serves it."""
    from prometheus_client.exposition import generate_latest
    from prometheus_client.parser import text_string_to_metric_families

    from floor.web_metrics import registry

    s = Store(store, readonly=True)
    try:
        text = generate_latest(registry(lambda what: what(s))).decode()
    finally:
        s.close()
    return next(x.value for fam in text_string_to_metric_families(text) for x in fam.samples
                if x.name == "threecard_floor_rounds_total" and x.labels == {"table": TABLE})


def test_prune_moves_old_rounds_into_a_verified_archive_while_the_recorder_writes(
        floor, tmp_path, store_at):
    broker = floor.broker().start()
    recorder = floor.recorder(broker, store_at)
    journal = tmp_path / "r.sqlite3"
    table = floor.table(broker, TABLE, journal, 20)
    floor.wait_until(lambda: len(floor.stored(store_at, TABLE)) >= 6, 60, "6 rounds stored")
    archive, again = tmp_path / "old.sqlite3", tmp_path / "older.sqlite3"
    young = _run("floor", "prune", "--store", store_at, "--older-than", "3650",
                 "--archive", str(archive))
    assert young.returncode == 0 and young.stdout.startswith("nothing ended more than 3650")
    assert not archive.exists()
    # every round that ended before now (the newest stays), the table dealing meanwhile
    first = _run("floor", "prune", "--store", store_at, "--older-than", "0", "--archive",
                 str(archive))
    assert first.returncode == 0, first.stderr
    moved = int(re.search(r"rounds up to (\d+) PRUNED into ", first.stdout)[1])
    assert moved >= 5
    sha = hashlib.sha256(archive.read_bytes()).hexdigest()
    assert f"archive {archive}: sha256 {sha}, verified" in first.stdout
    table.wait_for(rf"round {moved + 4}: dealer", 60)  # the table deals on, recorded
    assert table.stop() == 0
    done = floor.finished(journal)
    floor.wait_until(lambda: _ids(floor.stored(store_at, TABLE) + floor.stored(archive, TABLE))
                     == _ids(done), 30, "the store and its archive to hold every round")
    live, old = floor.stored(store_at, TABLE), floor.stored(archive, TABLE)
    assert _ids(old) == list(range(1, moved + 1))  # once each, and equal to the journal's
    assert sorted(live + old, key=lambda r: r["round_id"]) == sorted(
        done, key=lambda r: r["round_id"])
    assert _rounds_total(store_at) == len(done)  # a counter: pruned rounds still count
    # an archive is made, never added to; a second prune makes another
    refused = _run("floor", "prune", "--store", store_at, "--older-than", "0", "--archive",
                   str(archive))
    assert refused.returncode == 1 and refused.stderr.strip() == (
        f"threecard floor prune: {archive}: exists already (an archive is made, never added "
        "to)")
    second = _run("floor", "prune", "--store", store_at, "--older-than", "0", "--archive",
                  str(again))
    assert second.returncode == 0 and f"rounds up to {len(done) - 1} PRUNED" in second.stdout
    assert _rounds_total(store_at) == len(done)  # never down after a prune
    s = Store(store_at, readonly=True)
    try:
        prunes = s.prunes(TABLE)
        assert [(p.to_round, p.archive, p.rounds) for p in prunes] == [
            (moved, str(archive), moved), (len(done) - 1, str(again), len(done) - 1 - moved)]
        assert prunes[0].sha256 == sha
    finally:
        s.close()
    (status,) = floor.cli_json(["floor", "status", "--store", store_at, "--json"])
    (row,) = status["tables"]
    assert row["lacking"] is None and row["unconfirmed"] is None and not row["older_lacking"]
    assert row["last_round"] == len(done) and str(again) in row["pruned"][0]
    verdicts = floor.cli_json(*[["verify-journal", "--journal", str(journal), "--floor-store",
                                 str(where), "--json"] for where in (store_at, archive, again)])
    assert all(v["floor"]["ok"] and not v["floor"]["never_sealed"] for v in verdicts)
    assert [v["floor"]["rounds_checked"] for v in verdicts] == [1, moved, len(done) - 1 - moved]
    assert f"rounds 1 to {len(done) - 1} pruned from the floor's store into {archive}" in \
        verdicts[0]["floor"]["verdict"]
    assert "not on the floor yet" not in verdicts[0]["floor"]["verdict"]
    assert recorder.stop() == 0


def test_a_value_postgresql_cannot_hold_is_the_messages_fault_not_the_recorders(
        floor, tmp_path, request):
    from pg_server import new_store

    store = new_store(request, "postgresql", tmp_path)
    broker = floor.broker().start()
    recorder = floor.recorder(broker, store)
    c = floor.client(broker, client_id="forger")
    journal = "ab" * 32
    nul = EventMessage(table=TABLE, journal=journal, seq=3, hash="cd" * 32, round_id=1,
                       kind="alarm\x00", severity="error")
    huge = json.loads(encode(StatusMessage(table=TABLE, journal=journal, status="online")))
    huge["connection"] = 2**63  # beyond PostgreSQL's BIGINT
    assert c.publish(f"threecard/{TABLE}/event", encode(nul)) == mqtt.MQTT_ERR_SUCCESS
    assert c.publish(f"threecard/{TABLE}/status", json.dumps(huge).encode()) == 0
    recorder.wait_for(rf"refused a message on table {TABLE}'s topic: the store cannot hold "
                      r"it: PostgreSQL text fields cannot contain NUL")
    recorder.wait_for(rf"refused a message on table {TABLE}'s topic: .*connection")
    # the recorder goes on: the next message is stored
    assert c.publish(f"threecard/{TABLE}/status", encode(StatusMessage(
        table=TABLE, journal=journal, status="online"))) == 0
    floor.wait_until(lambda: floor.cli_json(["floor", "status", "--store", store, "--json"])[0]
                     ["tables"], 15, "the table's status stored")
    assert recorder.proc.poll() is None and "Traceback" not in recorder.text()
    assert recorder.stop() == 0
