"""A pit broker bridged to a central one, as README.md's "Beyond one broker" says, with
the shipped ACL and bridge files: the pit's rounds reach the central store; a table whose
prefix names another pit is refused by the central broker and missing from the floor."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from floor_feed import verification_key

REPO = Path(__file__).resolve().parents[2]
PIT = "pit-3"
RECORDER = "floor.recorder"


def _readme_sed(start: str, out: Path, **swap: str) -> None:
    """README's ``sed`` line that starts with ``start``, run on the repository's file,
    its output in ``out`` (``swap``: a text of the line replaced)."""
    (line,) = [x.strip().strip("`") for x in (REPO / "README.md").read_text().splitlines()
               if x.strip().startswith(start)]
    line = line[line.index("`sed") + 1:] if "`sed" in line else line
    cmd, _, _ = line.rpartition(" >")
    for old, new in swap.items():
        cmd = cmd.replace(old, new)
    text = subprocess.run(shlex.split(cmd), cwd=REPO, check=True, capture_output=True,
                          text=True, timeout=30).stdout
    out.write_text(text)


def test_a_pits_rounds_reach_the_central_store_and_another_pits_do_not(floor, tmp_path):
    # the central broker: the shipped ACL, and the bridge's lines appended as README says
    acl = tmp_path / "central.acl"
    _readme_sed("only): `sed 's/pit-2/pit-3/g' systemd/mosquitto-threecard-pit.acl", acl)
    acl.write_text(floor.acl.read_text() + "\n" + acl.read_text())
    users = tmp_path / "central-users"
    users.mkdir()
    security = [line.replace(str(floor.acl), str(acl))
                for line in floor.shipped_security(floor.shipped_users(users))]
    central = floor.broker(security, users={**floor.users, PIT: "bridge-secret"}).start()

    # the pit's broker: the shipped configuration, and the bridge from the shipped file
    bridge = tmp_path / "bridge.conf"
    _readme_sed("`sed 's/pit-2/pit-3/g; s/central-broker.casino.lan/", bridge,
                **{"the-bridge-password": "bridge-secret"})
    lines = [line for line in bridge.read_text().splitlines()
             if line and not line.startswith(("#", "bridge_cafile"))]
    lines = [f"address 127.0.0.1:{central.port}" if line.startswith("address") else line
             for line in lines]
    pit_users = tmp_path / "pit-users"
    pit_users.mkdir()
    port = floor.free_port()
    pit = floor.broker([*floor.shipped_security(floor.shipped_users(pit_users)),
                        f"listener {port} 127.0.0.1", *lines], port=port,
                       users=floor.users).start()

    store = tmp_path / "floor.sqlite3"
    password = floor.secret("recorder.pw", floor.users[RECORDER])
    recorder = floor.recorder(central, store, "--username", RECORDER, "--password-file",
                              str(password))
    a = floor.secured_table(pit, "TCP-A", tmp_path / "TCP-A.sqlite3", 20,
                            topic_prefix=f"threecard/{PIT}")
    b = floor.secured_table(pit, "TCP-B", tmp_path / "TCP-B.sqlite3", 20,
                            topic_prefix="threecard/pit-9")  # not its bridge's pit
    for t in (a, b):
        t.wait_for(r"round 3: dealer", 60)
        assert t.stop() == 0
    want = floor.finished(tmp_path / "TCP-A.sqlite3")
    floor.wait_until(lambda: floor.stored(store, "TCP-A") == want, 30,
                     "pit 3's rounds in the central store")
    # the recorder's witness went back through the bridge, to the table's topic in its pit
    own = floor.client(pit, "TCP-A", floor.users["TCP-A"])
    own.c.subscribe(f"threecard/{PIT}/TCP-A/witness", qos=1)
    floor.wait_until(lambda: own.payloads, 10, "the witness retained on the pit's broker")

    # TCP-B (another pit's prefix) never reached the recorder: enrolled, floor status
    # names it, never heard, with no round
    assert floor.stored(store, "TCP-B") == []
    key = verification_key(tmp_path / "TCP-B.sqlite3")
    subprocess.run([sys.executable, "-m", "controller.cli", "floor", "enrol", "--store",
                    str(store), "--table", "TCP-B", "--verify-key", key], check=True,
                   capture_output=True, timeout=60)
    (status,) = floor.cli_json(["floor", "status", "--store", str(store), "--json"])
    tables = {t["table_id"]: t for t in status["tables"]}
    assert tables["TCP-B"]["status"] == "unknown" and tables["TCP-B"]["heard_utc"] is None
    assert tables["TCP-B"]["last_round"] == 0
    assert tables["TCP-A"]["last_round"] == want[0]["round_id"]
    text = subprocess.run([sys.executable, "-m", "controller.cli", "floor", "status",
                           "--store", str(store)], capture_output=True, text=True,
                          timeout=60).stdout
    (line,) = [x for x in text.splitlines() if x.startswith("TCP-B")]
    assert "UNKNOWN" in line and "heard never" in line, text
    assert recorder.proc.poll() is None
