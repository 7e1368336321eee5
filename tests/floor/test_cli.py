"""Reading the floor, and the floor as the journal's anchor, through the real commands.

The store is the one the recorder writes (:class:`floor.recorder.Recorder` fed the
messages a real journal makes); ``threecard verify-journal --floor-store`` then catches a
journal cut short or rewritten at the table, its anchor file deleted with it, from the
floor's record alone, and ``threecard floor status`` shows each table's
line, its hold computed from the journal's meters here. Bad settings and files get one
line and an exit status, never a traceback.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest
from journal_edit import copy_keys, first_of, rewrite_chain_from
from pg_server import STORES, new_store

from controller.autoplay import AutoPlayer
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.config import ConfigError, load_config
from controller.game.engine import TableConfig
from controller.game.events import Alarm
from controller.game.table import Table
from controller.simulate_cli import simulate
from floor.follower import Follower
from floor.messages import StatusMessage, encode
from floor.mqtt import FloorError, FloorSettings
from floor.recorder import Recorder
from floor.store import Store
from simulators.event_shoe import EventShoe, parse_faults

TABLE = "TCP-11"


def cli(*commands: list[str]) -> list[subprocess.CompletedProcess]:
    """``threecard`` commands, run side by side; their results in the same order."""
    procs = [(args, subprocess.Popen([sys.executable, "-m", "controller.cli", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)) for args in commands]
    out = []
    for args, p in procs:
        stdout, stderr = p.communicate(timeout=120)
        out.append(subprocess.CompletedProcess(args, p.returncode, stdout, stderr))
    return out


def _record(journal: Path, store_path: str | Path) -> None:
    """What the recorder makes of the journal's feed, into the store ``store_path``."""
    store = Store(store_path)
    rec = Recorder(store, lambda *_: None)
    f = Follower(journal, TABLE)
    msgs = []
    while (batch := f.poll()) is not None:
        msgs += [m.body for m in batch]
    f.close()
    msgs.append(StatusMessage(table=TABLE, journal=msgs[0].journal, status="online"))
    for m in msgs:
        rec.on_message(TABLE, m.name, encode(m))
    store.close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, Path]:
    """A journal (12 rounds, then a shoe alarm) and the store the floor made of it."""
    folder = tmp_path_factory.mktemp("cli")
    journal, store_path = folder / "journal.sqlite3", folder / "floor.sqlite3"
    t = Table(journal, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100},
                           pin=DEMO_PINS["supervisor"]),
             EventShoe(21, parse_faults("misread=0.1")), 12)
    t.process([Alarm(code="JAM", text="feed jam")])
    t.close()
    _record(journal, store_path)
    return journal, store_path


@pytest.fixture(scope="module", params=STORES)
def recorded_on(request, recorded, tmp_path_factory) -> tuple[Path, str | Path]:
    """:func:`recorded`'s journal and the store the floor made of it, of each kind."""
    if request.param == "sqlite":
        return recorded
    url = new_store(request, request.param, tmp_path_factory.mktemp("cli"))
    _record(recorded[0], url)
    return recorded[0], url


def _copy(journal: Path, to: Path, anchor: bool = True) -> Path:
    shutil.copyfile(journal, to)
    if anchor:
        shutil.copyfile(str(journal) + ".anchor", str(to) + ".anchor")
        copy_keys(journal, to)
    return to


def _verify(store: Path, *journals: Path) -> list[tuple[int, dict]]:
    out = []
    for p in cli(*[["verify-journal", "--journal", str(j), "--floor-store", str(store),
                    "--json"] for j in journals]):
        assert p.returncode in (0, 1), p.stderr
        out.append((p.returncode, json.loads(p.stdout)))
    return out


def test_a_journal_equal_to_the_floor_verifies(recorded_on):
    journal, store = recorded_on
    as_json, as_text = cli(["verify-journal", "--journal", str(journal), "--floor-store",
                            str(store), "--json"],
                           ["verify-journal", "--journal", str(journal), "--floor-store",
                            str(store)])
    out = json.loads(as_json.stdout)
    assert as_json.returncode == 0 and out["ok"] and out["floor"]["ok"]
    assert out["floor"]["table"] == TABLE and out["floor"]["rounds_checked"] >= 12
    assert as_text.returncode == 0
    assert as_text.stdout.splitlines()[1].startswith(
        f"floor OK: the {out['floor']['rounds_checked']} rounds the floor recorded of table "
        f"{TABLE}")


def _cut(path: Path, keep: int) -> None:
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq > ?", (keep,))
    db.commit()
    db.close()


def _rewrite(path: Path, seq: int) -> None:
    """A forger's edit: an event's body changed and every hash after it recomputed."""
    rewrite_chain_from(path, seq, lambda body: body.replace("}", ',"x":1}', 1))


def test_a_journal_cut_or_rewritten_without_its_anchor_is_caught_by_the_floor(
        recorded_on, tmp_path):
    journal, store = recorded_on
    s = Store(store, readonly=True)
    genesis = s.journals(TABLE)[-1]
    links = {rid: seq for rid, seq, _h in s.links(TABLE, genesis)}
    sealed = {rid: seal for seal, rid in s.seals(TABLE, genesis)}
    s.close()
    middle = sorted(links)[len(links) // 2]

    # the tail cut at the table, the anchor deleted with it: the floor verified the seal
    # of each round, outside the table
    cut = _copy(journal, tmp_path / "cut.sqlite3", anchor=False)
    _cut(cut, links[middle] - 1)

    # an event rewritten, the chain recomputed, the anchor deleted
    forged = _copy(journal, tmp_path / "forged.sqlite3", anchor=False)
    edited = first_of(forged, "card", links[middle])
    _rewrite(forged, edited)
    rid, first_bad = min(((r, seal) for r, seal in sealed.items() if seal.seq >= edited),
                         key=lambda x: x[1].epoch)

    # another journal under the same table id (replaced, or rewritten from event 1)
    other = tmp_path / "other.sqlite3"
    t = Table(other, TableConfig(seats=3, pin_hashes=demo_pin_hashes(), table_id=TABLE))
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(5, {}), 2)
    t.close()

    (cut_status, cut_out), (forged_status, forged_out), (other_status, other_out) = \
        _verify(store, cut, forged, other)
    assert "tail unchecked: no anchor" in cut_out["notes"]
    assert cut_status == 1 and not cut_out["floor"]["ok"]
    assert cut_out["floor"]["problems"][0].startswith(
        f"the journal changed: the floor holds round {middle} sealed at event "
        f"{sealed[middle].seq}, the journal ends at event {links[middle] - 1} (round "
        f"{middle - 1}): it was cut, or put back to an older copy")
    assert forged_status == 1 and not forged_out["floor"]["ok"]
    assert f"the journal changed: event {first_bad.seq}, where the floor's seal of epoch " \
        f"{first_bad.epoch} (round {rid}) ends, carries another hash: the journal was " \
        "rewritten" in forged_out["floor"]["verdict"]
    assert other_status == 1 and "none starting with this journal's first event" in \
        other_out["floor"]["problems"][0]


def test_a_floor_record_the_table_never_sealed_is_the_floors_not_the_journals(
        recorded, tmp_path):
    journal, store = recorded
    edited, resealed = tmp_path / "edited.sqlite3", tmp_path / "resealed.sqlite3"
    for path in (edited, resealed):
        shutil.copyfile(store, path)
    db = sqlite3.connect(edited)  # a record made richer in the store: the seals intact
    (record,) = db.execute("SELECT record FROM rounds WHERE round_id = 5").fetchone()
    rec = json.loads(record)
    rec["seats"][0]["net"] = 5_000_000
    db.execute("UPDATE rounds SET record = ? WHERE round_id = 5", (json.dumps(rec),))
    db.commit()
    db.close()
    db = sqlite3.connect(resealed)  # a seal of the store's replaced by a made-up one
    epoch, rid = db.execute("SELECT epoch, round_id FROM seals ORDER BY epoch LIMIT 1 "
                            "OFFSET 6").fetchone()
    db.execute("UPDATE seals SET signature = ? WHERE epoch = ?", ("ab" * 64, epoch))
    db.commit()
    db.close()
    (e_status, e_out), (r_status, r_out) = _verify(edited, journal) + _verify(resealed,
                                                                               journal)
    for status, out in ((e_status, e_out), (r_status, r_out)):
        assert status == 0 and out["ok"] and out["floor"]["ok"], out  # the journal is sound
        assert out["floor"]["problems"] == [] and len(out["floor"]["never_sealed"]) == 1
        assert out["floor"]["verdict"].startswith(
            f"floor STORE SUSPECT: the journal matches what the floor verified of table "
            f"{TABLE}, but the floor holds a record the table never sealed: ")
    assert "its record of round 5 differs from the one the journal's sealed rows make" in \
        e_out["floor"]["verdict"]
    assert f"its seal of epoch {epoch} (round {rid}) does not verify with the journal's keys" \
        in r_out["floor"]["verdict"]


def test_rounds_the_floor_has_not_yet_recorded_are_noted_not_faulted(recorded, tmp_path):
    journal, store = recorded
    partial = tmp_path / "partial.sqlite3"
    shutil.copyfile(store, partial)
    db = sqlite3.connect(partial)
    newest = db.execute("SELECT MAX(round_id) FROM rounds").fetchone()[0]
    db.execute("DELETE FROM rounds WHERE round_id > ?", (newest - 2,))
    db.commit()
    db.close()
    ((status, out),) = _verify(partial, journal)
    assert status == 0 and out["floor"]["ok"]
    assert out["floor"]["notes"] == [f"rounds {newest - 1} to {newest} not on the floor yet"]


def test_floor_status_shows_each_table_its_hold_and_its_open_alarms(recorded_on):
    journal, store = recorded_on
    status_json, status_text, meters, recall = cli(
        ["floor", "status", "--store", str(store), "--json"],
        ["floor", "status", "--store", str(store)],
        ["meters", "--journal", str(journal), "--json"],
        ["recall", "--journal", str(journal), "--json", "--last", "2"])
    assert status_json.returncode == 0, status_json.stderr
    (row,) = json.loads(status_json.stdout)["tables"]
    total = json.loads(meters.stdout)["rows"]["total"]
    house = total["won"] - total["paid"]
    newest = json.loads(recall.stdout)
    last = next(r for r in newest if r["status"] in ("settled", "void"))
    assert row["table_id"] == TABLE and row["status"] == "online"
    assert row["last_round"] == last["round_id"]
    assert row["last_round_utc"] == last["ended_utc"]
    assert row["rounds_last_hour"] == last["round_id"]  # dealt just now
    assert abs(row["hold_ppm"] - house * 1_000_000 / total["wagered"]) <= 0.5
    assert row["open_alarms"] == ["alarm"] and row["lacking"] is None
    line = status_text.stdout.splitlines()[1]
    assert line.startswith(f"{TABLE:12} ONLINE   last round {last['round_id']} ended ")
    # the hold as the pit page and the screens write a percentage: 12.34%, two decimals
    (hold,) = re.findall(r"  hold (\S+)  ", line)
    assert re.fullmatch(r"-?\d+\.\d\d%", hold) and "alarms: alarm" in line
    assert abs(Decimal(hold[:-1]) * 10_000 - row["hold_ppm"]) <= 50


BAD = [
    (["run", "--demo", "--headless", "--floor", "http://floor:1883"], 2,
     "threecard run: --floor: must be an mqtt:// or mqtts:// URL, got 'http://floor:1883'"),
    (["simulate", "--floor", "mqtt://user:pw@floor", "--rounds", "1"], 2,
     "must be mqtt://HOST[:PORT] with nothing else (put the user and password in [floor])"),
    (["floor", "serve", "--broker", "mqtt://x", "--store", "s", "--password-file", "/nope"],
     2, "threecard floor serve: --password-file /nope: cannot read"),
    (["floor", "rounds", "--store", "/nowhere/floor.sqlite3", "--table", "T 1"], 2,
     "argument --table: must be"),
    (["floor", "rounds", "--store", "/nowhere/floor.sqlite3", "--table", "T1"], 1,
     "/nowhere/floor.sqlite3: no such floor store"),
]


def test_bad_settings_get_one_line_and_an_exit_status(recorded):
    journal, _ = recorded
    results = cli(*[args for args, _, _ in BAD], ["floor", "status", "--store", str(journal)])
    for (args, status, says), p in zip(BAD, results, strict=False):
        assert p.returncode == status, (args, p.stdout + p.stderr)
        assert says in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)
    # a journal is not a floor store
    assert results[-1].returncode == 1 and "not a floor store (it holds" in results[-1].stderr


def test_the_floor_section_of_the_configuration_is_checked(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('[floor]\nbroker = "mqtts://floor.lan"\nca_file = "/etc/ca.pem"\n'
                    'topic_prefix = "casino/pit-2"\n')
    c = load_config(path)
    assert (c.floor_broker, c.floor_ca_file, c.floor_topic_prefix) == (
        "mqtts://floor.lan", "/etc/ca.pem", "casino/pit-2")
    for text, says in (('[floor]\nbrokr = "mqtt://x"\n', "[floor] brokr: unknown key"),
                       ('[floor]\ntopic_prefix = "a/#"\n', "[floor] topic_prefix: must be"),
                       ('[floor]\nbroker = "mqtt://x:99999"\n', "[floor] broker: bad port"),
                       ('[floor]\nbroker = "mqtt://floor/x"\n',
                        "[floor] broker: must be mqtt://HOST[:PORT] with nothing else"),
                       ('[floor]\nbroker = "tcp://floor"\n',
                        "[floor] broker: must be an mqtt:// or mqtts:// URL")):
        path.write_text(text)
        with pytest.raises(ConfigError, match=r".*") as err:
            load_config(path)
        assert says in str(err.value)
    # files named in [floor] are checked before the feed starts, naming the setting
    missing = FloorSettings("mqtts://floor.lan", ca_file=str(tmp_path / "none.pem"))
    with pytest.raises(FloorError, match=r"\[floor\] ca_file .*none.pem: no such file"):
        missing.check()
    empty = tmp_path / "empty.pw"
    empty.write_text("")
    with pytest.raises(FloorError, match="the first line must hold the password"):
        FloorSettings("mqtt://floor.lan", password_file=str(empty)).check()
    with pytest.raises(FloorError, match=r"\[floor\] client_cert: goes with client_key"):
        FloorSettings("mqtts://floor.lan", client_cert=str(empty)).check()


def test_floor_rounds_writes_money_as_recall_does(recorded_on):
    journal, store = recorded_on
    floor_rounds, recall = cli(["floor", "rounds", "--store", str(store), "--table", TABLE,
                                "--last", "5"], ["recall", "--journal", str(journal), "--last",
                                                 "5"])
    assert floor_rounds.returncode == recall.returncode == 0, floor_rounds.stderr
    head, *lines = floor_rounds.stdout.splitlines()
    assert head.startswith(f"table {TABLE}, journal ") and head.endswith(
        ": 5 round(s), amounts in EUR")
    assert recall.stdout.splitlines() == ["amounts in EUR", *lines]
    assert re.search(r" ante 1\.00, pair_plus 1\.00", floor_rounds.stdout)


def test_floor_status_with_the_broker_unreachable_says_so_and_each_table_is_unknown(
        recorded, floor, tmp_path):
    _, store = recorded
    copy = tmp_path / "floor.sqlite3"
    shutil.copyfile(store, copy)
    broker = floor.broker()  # made, not started: nothing listens on its port
    recorder = floor.recorder(broker, copy, wait=False)
    recorder.wait_for(rf"floor: broker {re.escape(broker.url)} unreachable \(")

    def said() -> dict | None:
        (s,) = floor.cli_json(["floor", "status", "--store", str(copy), "--json"])
        return s if s["recorder"]["broker_lost_utc"] else None

    status = floor.wait_until(said, 15, "the recorder to say so in the store")
    assert status["recorder"]["state"] == "running"
    assert status["recorder"]["broker"] == broker.url
    assert [t["status"] for t in status["tables"]] == ["unknown"]
    assert status["tables"][0]["unknown_since_utc"] == status["recorder"]["broker_lost_utc"]
    (text,) = cli(["floor", "status", "--store", str(copy)])
    head, line = text.stdout.splitlines()
    assert re.fullmatch(rf"recorder threecard-floor: running \(heard \d+ s ago\); broker "
                        rf"{re.escape(broker.url)} UNREACHABLE since \S+Z \(unreachable: "
                        r"Connection refused\): each table's status is unknown since then",
                        head), head
    assert re.match(rf"{TABLE} +UNKNOWN since \S+Z +last round 12 ", line), line
    assert recorder.stop() == 0


def rc_recall(journal: Path) -> list[dict]:
    """The journal's rounds as ``recall --json`` gives them, oldest first."""
    return sorted(rc.recall(journal, 1_000_000), key=lambda r: r["round_id"])


def _z(utc: str) -> str:
    """A record's end time written as a casino's system would give it: ``...Z``."""
    return utc.replace("+00:00", "Z")


def test_floor_rounds_exports_every_tables_rounds_by_end_time_as_json_and_csv(recorded_on):
    journal, store = recorded_on
    ends = {r["round_id"]: r["ended_utc"] for r in rc_recall(journal)}
    base = ["floor", "rounds", "--store", str(store)]
    window = ["--from", _z(ends[5]), "--to", _z(ends[9])]
    day = ends[1][:10]
    as_json, as_csv, whole, other, bad, both, other_csv, other_json, inverted = cli(
        [*base, *window, "--format", "json"], [*base, *window, "--format", "csv"],
        [*base, "--from", day, "--json"], [*base, "--from", day, "--table", "TCP-99"],
        [*base, "--from", "2026-12-05T14:00:00+01:00"], [*base, *window, "--json",
                                                          "--format", "csv"],
        [*base, "--from", day, "--table", "TCP-99", "--format", "csv"],
        [*base, "--from", day, "--table", "TCP-99", "--json"],
        [*base, "--from", _z(ends[9]), "--to", _z(ends[5]), "--json"])
    rows = json.loads(as_json.stdout)
    # from inclusive, to exclusive: rounds 5 to 8, each with its table and journal
    assert [r["round_id"] for r in rows] == [5, 6, 7, 8]
    assert {(r["table_id"], r["currency"]) for r in rows} == {(TABLE, "EUR")}
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert [int(r["round_id"]) for r in table] == [5, 6, 7, 8]
    assert [r["journal"] for r in table] == [r["journal"] for r in rows]
    assert [int(r["total_wagered"]) for r in table] == [r["groups"]["total"]["wagered"]
                                                        for r in rows]
    # the whole day: every round, and the amounts by bet group add up to the meters the
    # table kept as it played (minor units)
    everything = json.loads(whole.stdout)
    assert [r["round_id"] for r in everything] == list(range(1, 13))
    kept = rc.meters(journal).rows
    for group in ("total", "ante", "pair_plus", "play"):
        sums = [sum(r["groups"].get(group, {}).get(k, 0) for r in everything)
                for k in ("wagered", "paid", "net")]
        wagered, paid, won = kept[group][:3]
        assert sums == [wagered, paid, paid - won], group
    # a table the floor never heard of: said, as --last says it, the output still valid
    for unknown in (other, other_csv, other_json):
        assert unknown.returncode == 1
        assert unknown.stderr == "threecard floor: the floor holds no round of table TCP-99\n"
    assert other.stdout.startswith("0 round(s) ended in ")
    assert json.loads(other_json.stdout) == []
    assert other_csv.stdout.splitlines() == as_csv.stdout.splitlines()[:1]  # the header
    assert inverted.returncode == 2 and inverted.stdout == ""
    assert inverted.stderr.splitlines() == [
        f"threecard floor rounds: --from {_z(ends[9])} is not before --to {_z(ends[5])}: no "
        "round can end in that window"]
    assert bad.returncode == both.returncode == 2
    assert bad.stderr.splitlines() == [bad.stderr.strip()] and bad.stderr.startswith(
        "threecard floor rounds: --from: '2026-12-05T14:00:00+01:00' is not a time in UTC")
    assert "--json is --format json" in both.stderr


def test_a_postgresql_server_gone_mid_read_is_one_line_not_a_traceback(recorded, tmp_path,
                                                                         request):
    import psycopg

    journal, _ = recorded
    url = new_store(request, "postgresql", tmp_path)
    _record(journal, url)
    locker = psycopg.connect(url)  # holds the tables the readers read next: they wait
    locker.execute("LOCK TABLE seals, rounds IN ACCESS EXCLUSIVE MODE")
    admin = psycopg.connect(url, autocommit=True)
    procs = [subprocess.Popen([sys.executable, "-m", "controller.cli", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for args in (["verify-journal", "--journal", str(journal), "--floor-store", url],
                          ["floor", "rounds", "--store", url, "--from", "2026-01-01"])]
    try:
        def waiting() -> list:
            return admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = "
                                 "current_database() AND wait_event_type = 'Lock'").fetchall()
        deadline = time.monotonic() + 60
        while len(waiting()) < 2:
            assert time.monotonic() < deadline, "the readers never reached the locked tables"
            time.sleep(0.05)
        for (pid,) in waiting():  # the server ends their connections mid-read
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        outs = [p.communicate(timeout=60) for p in procs]
    finally:
        locker.close()
        admin.close()
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 1, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert "cannot read the floor store: terminating connection" in err, err
