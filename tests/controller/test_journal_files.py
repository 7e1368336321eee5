"""The journal's files: one writer per real file, no journal on a device, readers that write
nothing (read-only media), and a full disk that stops the table with one clear line."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.game.auth import demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.inputs import NoMoreBets, PlaceBet
from controller.game.table import Table
from controller.journal import Journal, JournalError

CONFIG = TableConfig(seats=2, pin_hashes=demo_pin_hashes())


def threecard(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                          text=True, timeout=120, **kw)


def simulate(journal: Path | str, rounds: int = 5, **kw) -> subprocess.CompletedProcess:
    return threecard("simulate", "--seats", "2", "--rounds", str(rounds), "--journal",
                     str(journal), "--json", **kw)


# ---------------------------------------------------------------- one writer per real file
def test_a_second_writer_through_a_hard_link_is_refused(tmp_path):
    """A hard link is another name for the same file (its own lock file beside it): the
    lock on the journal file itself refuses the second writer."""
    path = tmp_path / "journal.sqlite3"
    t = Table(path, CONFIG)
    link = tmp_path / "hard.sqlite3"
    os.link(path, link)
    try:
        with pytest.raises(JournalError, match="under another name"):
            Journal(link)
        p = simulate(link)                                 # the real command, another process
        assert p.returncode == 2 and "under another name" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
        assert not (tmp_path / "hard.sqlite3.lock").exists()  # refused: nothing left beside
    finally:
        t.close()
    p = simulate(link)                                     # once free, the link opens it
    assert p.returncode == 0, p.stderr


def test_a_second_writer_through_a_symlink_is_refused(tmp_path):
    path = tmp_path / "journal.sqlite3"
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "link.sqlite3"
    link.symlink_to(path)
    t = Table(path, CONFIG)
    try:
        with pytest.raises(JournalError, match="in use by another table process"):
            Journal(link)
        p = simulate(link)                                 # the real command, another process
        assert p.returncode == 2
        assert "in use by another table process" in p.stderr
        assert "Traceback" not in p.stderr
    finally:
        t.close()
    assert not (tmp_path / "elsewhere" / "link.sqlite3.lock").exists()
    p = simulate(link)                                     # once free, the link opens it
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "journal.sqlite3.anchor").is_file()  # the anchor beside the real file


def test_a_file_that_is_no_journal_gets_no_lock_file_beside_it(tmp_path):
    """The journal's own lock file given as a journal (a tab completion, a glob of the
    journal's files) was refused only after a lock file was made beside it:
    ``journal.sqlite3.lock.lock``."""
    journal = tmp_path / "journal.sqlite3"
    assert simulate(journal, 1).returncode == 0
    lock = Path(f"{journal}.lock")
    other = tmp_path / "notes.txt"
    other.write_text("not a journal\n")
    for path in (lock, other):
        before = sorted(p.name for p in tmp_path.iterdir())
        with pytest.raises(JournalError, match="not a usable journal"):
            Journal(path)
        p = simulate(path, 1)
        assert p.returncode == 2 and "not a usable journal" in p.stderr, p.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert simulate(journal, 1).returncode == 0               # the journal itself goes on


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_journal_that_is_not_a_regular_file_is_refused_and_nothing_is_left_beside_it(
        tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (fifo, Path(os.devnull)):
        existed = Path(f"{path}.lock").exists()
        with pytest.raises(JournalError, match="not a regular file"):
            Journal(path)
        p = simulate(path)
        assert p.returncode == 2 and "not a regular file" in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
        if not existed:
            assert not Path(f"{path}.lock").exists()
            assert not Path(f"{path}.anchor").exists()
    with pytest.raises(JournalError, match="is a directory"):
        Journal(tmp_path)


@pytest.mark.parametrize("command", ["verify-journal", "recall", "meters"])
def test_an_empty_file_is_not_a_journal(tmp_path, command):
    """``/proc/self/status`` reads as 0 bytes to SQLite: it was "journal OK: 0 events"."""
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    for path in (empty, Path("/proc/self/status")):
        if not path.exists():
            continue
        p = subprocess.run([sys.executable, "-m", "controller.cli", command, "--journal",
                            str(path)], capture_output=True, text=True, timeout=60)
        assert (p.returncode, p.stdout) == (1, ""), p.stdout
        assert p.stderr == (f"threecard {command}: {path}: not a journal: it reads as an "
                            "empty file\n")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["empty.sqlite3"]


# ---------------------------------------------------------------- read-only media
def fingerprint(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.iterdir())}


def crashed_writer(path: Path) -> None:
    """A table that wrote some rounds and died: its -wal and -shm stay beside the file."""
    pid = os.fork()
    if pid == 0:
        try:
            t = Table(path, CONFIG)
            t.process([PlaceBet(seat=1, bet="ante", amount=100), NoMoreBets()])
            os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(3)
    os.waitpid(pid, 0)


def without_file_override() -> None:
    """Run as root without the capabilities that ignore file modes (``CAP_DAC_OVERRIDE``,
    ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``): a mode 0444 file or a 0555 directory it owns
    is then read-only to it, as on read-only media."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):
        if libc.prctl(24, cap, 0, 0, 0) != 0:              # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def read_only_for_children(directory: Path) -> dict:
    """Keyword arguments for subprocess.run so that ``directory`` is read-only to it."""
    kw = {"preexec_fn": without_file_override} if os.geteuid() == 0 else {}
    probe = subprocess.run([sys.executable, "-c", "import os, sys; sys.exit(os.access("
                            "sys.argv[1], os.W_OK) or os.access(sys.argv[2], os.W_OK))",
                            str(directory), str(next(directory.iterdir()))], **kw)
    if probe.returncode != 0:
        pytest.skip("cannot make a directory read-only to a child process here")
    return kw


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_recall_meters_and_verify_read_a_journal_on_read_only_media(tmp_path):
    """The readers open the journal read-only and create nothing beside it.

    The journals (one closed, one whose writer died with its -wal and -shm beside it)
    sit in a directory of mode 0555, their files 0444, and the commands cannot write
    there: run as root, they run without the capabilities that ignore file modes.
    """
    clean = tmp_path / "clean.sqlite3"
    assert simulate(clean, 3).returncode == 0               # closed: no -wal beside it
    crashed = tmp_path / "crashed.sqlite3"
    crashed_writer(crashed)
    assert Path(f"{crashed}-wal").exists()
    media = tmp_path / "media"
    media.mkdir()
    try:
        for p in tmp_path.iterdir():
            if p.name.startswith(("clean.", "crashed.")) and not p.name.endswith(".lock"):
                shutil.copyfile(p, media / p.name)
                (media / p.name).chmod(0o444)
        media.chmod(0o555)
        before = fingerprint(media)
        kw = read_only_for_children(media)
        for name in ("clean.sqlite3", "crashed.sqlite3"):
            journal = str(media / name)
            v = threecard("verify-journal", "--journal", journal, "--json", **kw)
            assert v.returncode == 0, v.stdout + v.stderr
            notes = json.loads(v.stdout)["notes"]             # the anchor was read too:
            assert notes == [] if name == "clean.sqlite3" else [  # a crash left it behind
                n for n in notes if not n.startswith("events ")] == [], notes
            m = threecard("meters", "--journal", journal, "--json", **kw)
            assert m.returncode == 0 and json.loads(m.stdout)["reconciled"], m.stderr
            r = threecard("recall", "--journal", journal, "--json", **kw)
            assert r.returncode == 0 and isinstance(json.loads(r.stdout), list), r.stderr
        assert fingerprint(media) == before                 # nothing created, nothing changed
    finally:
        media.chmod(0o755)


def test_a_reader_never_creates_a_journal(tmp_path):
    p = threecard("verify-journal", "--journal", str(tmp_path / "none.sqlite3"))
    assert p.returncode == 1 and "no such journal" in p.stderr
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- a full disk
class FullDiskJournal(Journal):
    """The seam: the disk fills at this journal's ``at``-th commit."""

    def __init__(self, path: Path, at: int) -> None:
        super().__init__(path)
        self.at = at

    def _commit(self) -> None:
        if self.commits + 1 >= self.at:
            raise sqlite3.OperationalError("database or disk is full")
        super()._commit()


def test_a_full_disk_locks_the_table_and_loses_nothing_written(tmp_path):
    path = tmp_path / "j.sqlite3"
    t = Table(FullDiskJournal(path, 4), CONFIG)
    assert t.process([PlaceBet(seat=1, bet="ante", amount=100)])[0].accepted
    with pytest.raises(JournalError, match="database or disk is full"):
        t.process([NoMoreBets()])
    assert t.locked and "database or disk is full" in t.locked
    assert not t.process([NoMoreBets()])[0].accepted       # locked: nothing more is taken
    t.close()
    t = Table(path, CONFIG)                                 # the disk has room again
    assert t.locked is None
    assert t.game.seats[1].bets == {"ante": 100}            # the bet before it is there
    t.close()


def test_simulate_on_a_full_disk_says_so_in_one_line_and_stops(tmp_path):
    """A real write failure: the file may not grow past 1 MB (``RLIMIT_FSIZE``)."""
    journal = tmp_path / "j.sqlite3"

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))

    for _ in range(2):                                      # and again, once restarted
        p = simulate(journal, 100_000, preexec_fn=small_disk)
        assert p.returncode == 1 and p.stdout == ""
        lines = [x for x in p.stderr.strip().splitlines()
                 if not x.startswith("verification key: ")]  # the new journal's key
        assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
        assert lines[0].startswith(f"threecard simulate: {journal}: journal write failed: ")
    v = json.loads(threecard("verify-journal", "--journal", str(journal), "--json").stdout)
    assert v["ok"] and v["notes"] == [], v                  # what was written is sound


def test_the_daemon_on_a_full_disk_stops_play_in_one_line_and_stops_cleanly(tmp_path):
    """``threecard run --demo``: a real write failure is a journal fault (R2, R20), said in
    one log line; the table retries, and the daemon stops cleanly on SIGTERM, with no
    traceback."""
    journal = tmp_path / "j.sqlite3"

    def small_disk() -> None:  # the log, copied in after every round, reaches it in round 1
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))

    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--demo",
                             "--headless", "--journal", str(journal)], preexec_fn=small_disk,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    lines: list[str] = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if "JOURNAL FAULT" in line or len(lines) > 2000:
                break
        fault = [x for x in lines if "JOURNAL FAULT" in x]
        assert fault and "ERROR" in fault[0] and "retrying" in fault[0], "".join(lines[-20:])
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0
    assert "Traceback" not in "".join(lines) + rest


# ---------------------------------------------------------------- a journal cut as it is made
CUT_WHILE_MADE = r"""
import os, signal, sqlite3, sys
from controller.journal.schema import tables_of
from controller.journal.store import V2_SCHEMA
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size=1")        # pages spill to the file before the commit
db.execute("BEGIN")
for statement in tables_of(V2_SCHEMA).values():
    db.execute(statement)
db.execute("CREATE TABLE filler (x TEXT)")
for _ in range(200):
    db.execute("INSERT INTO filler VALUES (?)", ("x" * 2000,))
os.kill(os.getpid(), signal.SIGKILL)     # a power cut before the commit
"""


def test_a_journal_cut_while_it_was_made_reads_as_the_table_will_read_it(tmp_path):
    """A hot rollback journal beside the file: readers read it rolled back, never torn."""
    from controller.journal.schema import hot_rollback

    path = tmp_path / "j.sqlite3"
    p = subprocess.run([sys.executable, "-c", CUT_WHILE_MADE, str(path)])
    assert p.returncode == -signal.SIGKILL
    assert hot_rollback(str(path)) and path.stat().st_size > 100_000  # half made, on disk
    raw = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    with pytest.raises(sqlite3.DatabaseError):                        # as it lies: torn
        raw.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    raw.close()
    before = sorted(os.listdir(tmp_path))
    out = threecard("verify-journal", "--journal", str(path))
    assert out.returncode == 1 and "not a journal: it reads as an empty file" in out.stderr, \
        out                                       # what the rollback leaves: nothing yet
    assert "Traceback" not in out.stderr and "no such table" not in out.stderr
    assert sorted(os.listdir(tmp_path)) == before  # the reader rolled back a copy only
    assert hot_rollback(str(path))
    t = Table(path, CONFIG)                       # the table's start: rolled back, made anew
    try:
        assert t.locked is None and t.verdict.ok
        t.process([PlaceBet(seat=1, bet="ante", amount=100)])
    finally:
        t.close()
    assert not hot_rollback(str(path))
    out = threecard("verify-journal", "--journal", str(path))
    assert out.returncode == 0 and out.stdout.startswith("journal OK"), out


def test_a_journal_is_made_in_one_transaction_or_not_at_all(tmp_path):
    from controller.journal.schema import create

    db = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    with pytest.raises(sqlite3.DatabaseError):
        create(db, "PRAGMA user_version=7;", "CREATE TABLE IF NOT EXISTS a (x); "
               "CREATE TABLE IF NOT EXISTS b (x); CREATE TABLE c (;")
    assert db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    assert not db.in_transaction
    db.close()
