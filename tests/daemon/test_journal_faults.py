"""``threecard run``: a journal fault that passes clears itself, without a restart (R2, R20).

A journal on a small tmpfs filled to the last byte, then freed: the table retries and
goes on by itself; a card read while it could not write waits, with its round, for a
supervisor (void, or resume and the card presented again). SQLite's write lock held by
another process (``BEGIN EXCLUSIVE``), then let go: the table goes on by itself. Each
time the fault and its clearing are journaled and ``verify-journal`` passes.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.game.auth import DEMO_PINS, hash_pin
from controller.journal import Journal

BETS = {"ante": 100}
SUP = DEMO_PINS["supervisor"]


def config(tmp_path: Path, journal: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "FAULT-1"\nseats = 2\nrules = "live"\n'
                    f'[journal]\npath = "{journal}"\n'
                    f'[roles]\nsupervisor = "{hash_pin(SUP)}"\n[log]\nlevel = "debug"\n')
    return path


def start(daemons, tmp_path: Path, journal: Path, shoe_url: str):
    """The daemon, autoplaying (no supervisor PIN: the supervisor's steps are the test's)."""
    d = daemons(["--config", str(config(tmp_path, journal)), "--shoe", shoe_url,
                 "--headless", "--autoplay", "--bets", json.dumps(BETS), "--control-stdin"],
                env={"XDG_STATE_HOME": str(tmp_path / "state")})  # the seal key elsewhere
    d.wait_for(r"environment sha256")              # its record journaled: all written so far
    d.cursor = 0                                    # round 1 may have opened before it
    return d


def verified(journal: Path) -> dict:
    p = subprocess.run([sys.executable, "-m", "controller.cli", "verify-journal", "--journal",
                        str(journal), "--json"], capture_output=True, text=True, timeout=60)
    return json.loads(p.stdout)


def recall(journal: Path) -> list[dict]:
    p = subprocess.run([sys.executable, "-m", "controller.cli", "recall", "--journal",
                        str(journal), "--json"], capture_output=True, text=True, timeout=60)
    return json.loads(p.stdout)


def fault_records(journal: Path) -> list[dict]:
    """The bodies of the journal's ``journal_fault`` records, in order."""
    j = Journal(journal, readonly=True)
    try:
        return [json.loads(r.body) for r in j.records() if r.kind == "journal_fault"]
    finally:
        j.close()


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs (root only: CI runs the tests as root, and must run this one)."""
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("CI runs the tests as root: a tmpfs is mounted for this test")
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    """Fill the disk to its last byte with a file of its own."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_freed_clears_itself_and_a_lost_card_waits_for_a_supervisor(
        tmp_path, small_disk, daemons, scripted_shoe):
    journal = small_disk / "journal.sqlite3"
    # each round: two cards, the disk filled, two cards read (the disk's last pages may
    # take the first), the disk freed; round 1 is voided, round 2 resumed and the cards
    # not recorded presented again
    round_1 = "Ah 7s Qh Kd 5c 5d 2c 3d 4s".split()
    round_2 = "Jc Ks 9d 8h Qd 6c 3s 4h 2h".split()
    shoe = scripted_shoe(" ".join(round_1 + round_2))
    d = start(daemons, tmp_path, journal, shoe.url)
    pid = d.proc.pid
    # a reader (recall, the floor's feed) keeps the log's file: the table's own connection
    # closed by a try does not fold it in and free its space
    reader = sqlite3.connect(journal.as_uri() + "?mode=ro", uri=True)
    reader.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    lost, dealt = {}, {}
    for n in (1, 2):
        d.wait_for(rf"round {n} no_more_bets")
        shoe.deal(2)
        d.wait_for(rf"round {n}: 2 cards dealt")
        reader.execute("BEGIN")                       # its snapshot held: the log cannot start
        reader.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # over its own pages
        filler = fill(small_disk)
        dealt[n] = 2
        while True:  # a card or two may still fit in the last page the log's file holds
            shoe.deal(1)
            dealt[n] += 1
            if d.wait_for(rf"round {n}: \d+ cards dealt|JOURNAL FAULT: database or disk is "
                          r"full; retrying")[0].startswith("JOURNAL FAULT"):
                break
            assert dealt[n] < len(round_1 if n == 1 else round_2), "the disk never filled"
        d.send("reveal")
        d.wait_for(r"control: refused reveal: journal fault: database or disk is full")
        d.wait_for(r"journal fault: try \d+ failed: .*database or disk is full")
        filler.unlink()
        reader.execute("COMMIT")
        lost[n] = d.wait_for(r"card_not_recorded: Cards read while the journal could not be "
                             r"written are in no record: ([^.]+)\.", timeout=30)[1].split()
        d.wait_for(rf"round {n} paused")
        d.wait_for(r"journal fault cleared")
        if n == 1:
            d.send("void", pin=SUP, reason="cards not recorded")
            d.wait_for(r"round 1 VOID \(cards not recorded\)")
            shoe.deal(len(round_1) - dealt[1])       # the rest, between rounds: set aside
        else:
            d.send("resume", pin=SUP)
            d.wait_for(r"round 2 dealing")
            for card in lost[2]:                     # presented again, read again
                shoe.shoe.inject("duplicate_card", card=card)
            shoe.deal(len(round_2) - dealt[2])
    d.wait_for(r"round 2: dealer ")                 # round 2 played out, by the same process
    assert d.proc.pid == pid and d.proc.poll() is None
    assert sum("READY" in line for line in d.lines) == 1
    assert d.stop() == 0
    reader.close()
    assert [r["cards"] for r in fault_records(journal)] == [lost[1], lost[2]]
    assert all(r["refused"] == {"reveal": 1} for r in fault_records(journal))
    rounds = {r["round_id"]: [c for c, _, _ in r["deal"]] for r in recall(journal)}
    assert rounds[1] + lost[1] == round_1[:dealt[1]]     # each card recorded, or said lost
    assert rounds[2] == round_2
    v = verified(journal)
    assert v["ok"], v


def test_a_foreign_write_lock_let_go_clears_itself_and_play_goes_on(
        tmp_path, daemons, scripted_shoe):
    journal = tmp_path / "journal.sqlite3"
    shoe = scripted_shoe("Ah 7s Qh Kd 7d 5s 9c 2c 3d")
    d = start(daemons, tmp_path, journal, shoe.url)
    d.wait_for(r"round 1 no_more_bets")
    foreign = sqlite3.connect(journal, isolation_level=None)
    foreign.execute("BEGIN EXCLUSIVE")                # another process's write lock
    held = time.monotonic()
    try:
        d.send("void", reason="test")                 # no PIN: journaled as refused...
        d.wait_for_each(r"control: refused void: journal fault: database is locked; retrying",
                        r"ERROR +JOURNAL FAULT: database is locked; retrying")  # either first
        while time.monotonic() - held < 25:           # held 25 s: the tries go on, backing off
            d.wait_for(r"journal fault: try \d+ failed: database is locked")
    finally:
        foreign.execute("ROLLBACK")
        foreign.close()
    d.wait_for(r"journal fault cleared", timeout=30)
    shoe.deal(9)                                      # the round goes on by itself
    d.wait_for(r"round 1: dealer ")
    assert d.stop() == 0
    (record,) = fault_records(journal)
    assert record["reason"] == "database is locked" and record["refused"] == {"void": 1}
    assert record["tries"] >= 2 and record.get("cards", []) == []
    v = verified(journal)
    assert v["ok"], v
