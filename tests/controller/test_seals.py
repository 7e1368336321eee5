"""Sealed records (R16, R17): a journal nobody can rewrite, even with the table's own files.

Every round closes an epoch: its seal is signed by a key the table then erases. The tests
play real rounds (``threecard simulate`` and the engine's own table), then act as an
insider with file access would: rewrite history with every hash recomputed, put files back
to older copies, kill the table while it seals.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from in_process import threecard
from journal_edit import copy_journal, first_of, rewrite_chain_from
from step_clock import HandClock

from controller.autoplay import AutoPlayer
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.inputs import PlaceBet
from controller.game.table import Table
from controller.journal import Journal, JournalError
from controller.journal import seal as sealing
from controller.simulate_cli import EventShoe, SimulationStuck, simulate

CONFIG = TableConfig(seats=3, pin_hashes=demo_pin_hashes())


def run(*argv: str) -> tuple[int, str, str]:
    """The ``threecard`` command in this process: (exit status, stdout, stderr)."""
    done = threecard(*argv)
    return done.returncode, done.stdout, done.stderr


def simulated(path: Path, rounds: int, seed: int) -> tuple[dict, str]:
    """``threecard simulate --journal PATH --json``: (its JSON, its stderr)."""
    status, out, err = run("simulate", "--rounds", str(rounds), "--seats", "3", "--seed",
                           str(seed), "--journal", str(path), "--json")
    assert status == 0, err
    return json.loads(out), err


def seal_rows(path: Path) -> list[tuple[int, int]]:
    """(epoch, event) of every seal, read with sqlite3."""
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT epoch, seq FROM seals ORDER BY epoch").fetchall()
    finally:
        db.close()


@pytest.fixture(scope="module")
def sealed(tmp_path_factory) -> tuple[Path, str]:
    """A named journal of 12 rounds made by simulate, and the key it printed."""
    path = tmp_path_factory.mktemp("sealed") / "table.sqlite3"
    result, err = simulated(path, 12, 5)
    printed = [x.removeprefix("verification key: ") for x in err.splitlines()
               if x.startswith("verification key: ")]
    assert printed == [result["verification_key"]], err
    return path, result["verification_key"]


def test_a_named_journal_made_by_simulate_verifies_with_its_verification_key(sealed):
    path, key = sealed
    status, out, _ = run("verify-journal", "--journal", str(path), "--verify-key", key)
    assert status == 0 and "journal OK" in out and "from the verification key given" in out
    status, out, _ = run("seal", "show", "--journal", str(path), "--json")
    shown = json.loads(out)
    assert shown["verification_key"] == key
    rounds = [r for r in seal_rows(path)]
    assert [e for e, _ in rounds] == list(range(len(rounds)))   # one epoch a round, none missing
    assert len(rounds) >= 12 and shown["last_seal"]["seq"] == rounds[-1][1]


def test_a_temporary_journal_prints_no_verification_key():
    status, out, err = run("simulate", "--rounds", "2", "--seats", "2", "--seed", "3", "--json")
    assert status == 0 and "verification key" not in err
    assert "verification_key" not in json.loads(out)


def test_another_journal_of_the_same_software_fails_with_this_tables_key(sealed, tmp_path):
    _, key = sealed
    other = tmp_path / "other.sqlite3"
    result, _ = simulated(other, 4, 6)
    assert result["verification_key"] != key
    status, out, _ = run("verify-journal", "--journal", str(other), "--verify-key", key)
    assert status == 1 and out.startswith("JOURNAL BROKEN") and "not the key given" in out


def test_an_old_event_changed_with_every_hash_recomputed_fails_naming_its_epoch(sealed,
                                                                                tmp_path):
    path, key = sealed
    forged = copy_journal(path, tmp_path / "forged.sqlite3")
    # one byte of a card of the third round (its suit), every hash after it recomputed,
    # and the anchor made again for the new head, all with the package's own rules
    third = first_of(forged, "card", max(s for e, s in seal_rows(forged) if e == 1))

    def one_byte(body: str) -> str:
        at = body.index('"card":"') + 9
        return body[:at] + ("h" if body[at] != "h" else "s") + body[at + 1:]
    rewrite_chain_from(forged, third, one_byte)
    j = Journal(forged, readonly=True)
    head = (j.last_seq, j.last_hash)
    j.close()
    Path(f"{forged}.anchor").unlink(missing_ok=True)
    w = Journal(forged, keys=False)
    w.start_anchoring(None)
    w.close()
    assert Journal(forged, readonly=True).last_hash == head[1]
    covering = min(e for e, s in seal_rows(forged) if s >= third)  # the seal of its round
    status, out, _ = run("verify-journal", "--journal", str(forged), "--verify-key", key)
    assert status == 1 and out.startswith("JOURNAL BROKEN")
    assert f"the seal of epoch {covering} " in out and "round 3" in out, out
    copy_journal(path, tmp_path / "copy.sqlite3")               # its key, in its place
    t = Table(forged, CONFIG)                                   # and the table will not deal
    try:
        assert t.locked and "seal of epoch" in t.locked
    finally:
        t.close()


def test_a_witness_holds_the_last_seal_and_fails_on_an_older_copy(sealed, tmp_path):
    path, _ = sealed
    older = copy_journal(path, tmp_path / "older.sqlite3")
    live = copy_journal(path, tmp_path / "live.sqlite3")
    simulated(live, 16, 5)                                      # four rounds more
    status, out, _ = run("seal", "show", "--journal", str(live))
    witness = next(x for x in out.splitlines() if x.startswith("witness: ")).split()[1]
    status, out, _ = run("verify-journal", "--journal", str(live), "--witness", witness)
    assert status == 0, out
    status, out, _ = run("verify-journal", "--journal", str(older), "--witness", witness)
    assert status == 1 and "journal rolled back" in out, out
    status, _, err = run("verify-journal", "--journal", str(live), "--witness", "7:zz")
    assert status == 2 and "--witness" in err


def test_a_journal_cut_after_its_last_seal_fails(sealed, tmp_path):
    path, key = sealed
    cut = copy_journal(path, tmp_path / "cut.sqlite3")
    last = seal_rows(cut)[-1][1]
    db = sqlite3.connect(cut)
    db.execute("DELETE FROM events WHERE seq > ?", (last - 5,))   # its anchor gone with it
    db.commit()
    db.close()
    status, out, _ = run("verify-journal", "--journal", str(cut), "--verify-key", key)
    assert status == 1 and f"a seal covers event {last}" in out, out


def keys_held(path: Path) -> list[int]:
    """The epochs whose private keys the journal's key file holds."""
    j = Journal(path, readonly=True)
    try:
        kf = sealing.KeyFile(sealing.key_file(sealing.default_folder(), path,
                                              j.meta["journal_id"]))
    finally:
        j.close()
    return sorted(e for e, _ in kf.read().values())


class Killed(BaseException):
    """The process dies here (nothing of it runs on: no rollback, no close)."""


def play(table: Table, rounds: int, seed: int = 11) -> None:
    simulate(table, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(seed + table.game.round_id, {}, None), rounds)


def die(table: Table) -> None:
    """What the kernel does to a killed table: its uncommitted transaction is gone."""
    j = table.journal
    j.db.close()  # an open transaction is rolled back, as SQLite does at the next open
    j._release_writer_lock()


def killed_after(owner, name: str):
    """A step of sealing after which the process dies: ``owner.name`` runs, then the kill."""
    def step(monkeypatch) -> None:
        real = getattr(owner, name)

        def then_killed(*args, **kwargs):
            real(*args, **kwargs)
            raise Killed
        monkeypatch.setattr(owner, name, then_killed)
    step.__name__ = f"after_{name}"
    return step


def after_commit(monkeypatch) -> None:
    """Killed once the seal is committed, before the next key is written over the used one."""
    def advance(self):
        raise Killed
    monkeypatch.setattr(sealing.Sealer, "advance", advance)


STEPS = [killed_after(sealing.Sealer, "stage"),        # the next key derived
         killed_after(sealing, "write_seal"),          # the seal's row written, not committed
         after_commit,
         killed_after(sealing.Sealer, "advance")]      # the next key written over the used one


@pytest.mark.parametrize("step", STEPS, ids=lambda f: f.__name__)
def test_a_kill_at_each_step_of_sealing_never_locks_and_keeps_the_chain_contiguous(
        tmp_path, monkeypatch, step):
    path = tmp_path / "j.sqlite3"
    t = Table(path, CONFIG)
    play(t, 3)
    sealed_before = len(seal_rows(path))
    with monkeypatch.context() as m:
        step(m)
        with pytest.raises(Killed):
            play(t, 5)
    die(t)
    t = Table(path, CONFIG)                                     # the next start
    try:
        assert t.locked is None
        assert keys_held(path) == [t.journal.sealer.epoch]      # no used key left readable
        play(t, 6)
    finally:
        t.close()
    epochs = [e for e, _ in seal_rows(path)]
    assert epochs == list(range(len(epochs))) and len(epochs) > sealed_before
    status, out, _ = run("verify-journal", "--journal", str(path))
    assert status == 0, out


def test_a_key_file_that_does_not_fit_locks_the_table_and_seal_init_starts_a_new_chain(
        tmp_path):
    path = tmp_path / "j.sqlite3"
    t = Table(path, CONFIG)
    play(t, 2)
    key = t.journal.verification_key
    kf = t.journal.sealer.path
    older = kf.read_bytes()                                     # the key file, 20 rounds back:
    play(t, 22)                                                 # more than a power cut loses
    t.close()
    newer = kf.read_bytes()
    for put, words in ((older, "older than the journal"), (None, "missing")):
        if put is None:
            kf.unlink()
        else:
            kf.write_bytes(put)
        t = Table(path, CONFIG)
        try:
            assert t.locked and words in t.locked, t.locked
            dealer, player = t.views()                           # the alarm on both screens
            assert "journal_broken" in [b.kind for b in dealer.banners]
            assert "journal_broken" in [b.kind for b in player.banners]
        finally:
            t.close()
    status, out, _ = run("seal", "init", "--journal", str(path))
    assert status == 0 and "verification key: " in out
    new_key = out.split("verification key: ")[1].split()[0]
    t = Table(path, CONFIG)
    try:
        assert t.locked is None
        play(t, 6)
    finally:
        t.close()
    status, out, _ = run("verify-journal", "--journal", str(path), "--verify-key", key)
    assert status == 1 and "not a verification key given" in out
    status, out, _ = run("verify-journal", "--journal", str(path), "--verify-key", key,
                         "--verify-key", new_key)
    assert status == 0, out
    assert newer != kf.read_bytes()


def test_no_event_waits_more_than_15_minutes_for_its_seal(tmp_path):
    clock = HandClock()
    t = Table(tmp_path / "j.sqlite3", CONFIG, clock=clock)
    play(t, 1)
    sealed_to = t.journal.sealed_seq
    clock.run(60)
    t.process([PlaceBet(seat=1, bet="ante", amount=100)])     # a round opens, and waits
    assert t.journal.sealed_seq == sealed_to < t.journal.last_seq
    clock.run(14 * 60)
    t._when_idle()
    assert t.journal.sealed_seq == sealed_to
    clock.run(60)
    t._when_idle()                                              # 15 minutes after the bet
    assert t.journal.sealed_seq == t.journal.last_seq > sealed_to
    t.close()


def test_seals_stripped_from_the_file_lock_the_table_and_seal_init_says_when_it_sealed(
        tmp_path):
    path = tmp_path / "j.sqlite3"
    t = Table(path, CONFIG)
    play(t, 3)
    key = t.journal.verification_key
    t.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE seals; DROP TABLE chains; "
                     "DELETE FROM meta WHERE key = 'journal_id';")
    db.commit()
    db.close()
    t = Table(path, CONFIG)                                     # its key file is still there
    try:
        assert t.locked and "seals were deleted" in t.locked and "seal init" in t.locked
    finally:
        t.close()
    status, out, _ = run("seal", "init", "--journal", str(path))
    assert status == 0, out                                     # the old key is set aside
    status, out, _ = run("verify-journal", "--journal", str(path))
    assert status == 0 and "were sealed then, not as they were written" in out, out
    status, out, _ = run("verify-journal", "--journal", str(path), "--verify-key", key)
    assert status == 1 and "not the key given" in out


def test_a_key_file_that_cannot_be_written_stops_the_table_and_a_fifo_never_hangs_it(
        tmp_path, monkeypatch):
    path = tmp_path / "j.sqlite3"
    t = Table(path, CONFIG)
    play(t, 1)

    def refused(self, *args, **kwargs):
        raise sealing.SealError("seal key: cannot be written: Read-only file system")
    monkeypatch.setattr(sealing.KeyFile, "write", refused)
    with pytest.raises((JournalError, SimulationStuck)):
        play(t, 3)
    assert t.locked and "cannot be written over" in t.locked
    t.close()
    monkeypatch.undo()
    t = Table(path, CONFIG)                                     # a key one epoch behind:
    try:                                                        # brought forward
        assert t.locked is None, t.locked
    finally:
        t.close()
    kf = t.journal.sealer.path
    kf.unlink()
    os.mkfifo(kf)
    t = Table(path, CONFIG)
    try:
        assert t.locked and "not a regular file" in t.locked
    finally:
        t.close()


def test_a_witness_that_is_not_one_is_a_usage_error_and_every_witness_is_checked(sealed):
    path, _ = sealed
    status, out, _ = run("seal", "show", "--journal", str(path))
    good = next(x for x in out.splitlines() if x.startswith("witness: ")).split()[1]
    for bad in ("0:" + "a" * 64, "99999999999999999999999:" + "a" * 64, good + "ab" * 40):
        status, _, err = run("verify-journal", "--journal", str(path), "--witness", bad)
        assert status == 2 and "--witness" in err, (bad, err)
    wrong = f"{good.split(':')[0]}:{'0' * 64}"
    status, out, _ = run("verify-journal", "--journal", str(path), "--witness", wrong,
                         "--witness", good)
    assert status == 1 and "does not hold the seal" in out


def test_a_journal_id_overwritten_with_other_bytes_locks_the_table_and_fails_the_check(tmp_path):
    path = tmp_path / "j.sqlite3"
    t = Table(path, CONFIG)
    play(t, 2)
    t.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'journal_id'", ("zz" * 32,))
    db.commit()
    db.close()
    t = Table(path, CONFIG)                                     # no traceback: locked, why
    try:
        assert t.locked and "id" in t.locked, t.locked
    finally:
        t.close()
    status, out, _ = run("verify-journal", "--journal", str(path))
    assert status == 1 and "journal's id in its file is damaged" in out, out
