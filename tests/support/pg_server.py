"""A real PostgreSQL server from Debian's package, in a temporary folder, for the tests and
the floor benchmark (benchmarks/bench_floor.py).

``initdb`` and the server refuse to run as root (CI runs as root): there they run as
``nobody`` (``runuser``), in a folder it owns. The server listens on a free loopback port
and on a unix socket in its folder, trusts local connections, and skips what only a crash
needs (``fsync=off``): a test's database is made in a blink (:meth:`PgServer.database`).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any


def pg_bin() -> Path | None:
    """The newest installed server's programs (/usr/lib/postgresql/N/bin), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


STORES = ("sqlite", "postgresql")
"""The kinds of store the floor runs on (tests taking ``store_kind`` or ``store_at`` run on
each)."""


def new_store(request: Any, kind: str, folder: Path, name: str = "floor") -> str:
    """A new, empty store of ``kind``: a SQLite file in ``folder``, or a database of the
    session's PostgreSQL server (the ``pg_server`` fixture)."""
    if kind == "sqlite":
        return str(folder / f"{name}.sqlite3")
    return request.getfixturevalue("pg_server").database()


class PgServer:
    """One PostgreSQL server; :meth:`database` makes an empty database for a test.

    Args:
        bin_dir: the server's programs (:func:`pg_bin`).
        tag: part of every database's name (each test process has its own).
        folder_in: where its temporary folder is made (default: the system's temporary
            folder; the floor benchmark puts it on /dev/shm).
    """

    USER = "floor"

    def __init__(self, bin_dir: Path, tag: str = "", folder_in: Path | None = None) -> None:
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="threecard-pg-", dir=folder_in))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # the server will not run as root
            shutil.chown(self.folder, "nobody", "nogroup")
            self.as_user = ["runuser", "-u", "nobody", "--"]
        self.tag = tag
        self.names = itertools.count(1)

    def _run(self, *args: str) -> None:
        p = subprocess.run([*self.as_user, *args], capture_output=True, text=True, timeout=120,
                           cwd=self.folder)
        assert p.returncode == 0, f"{args[0]} failed:\n{p.stdout}\n{p.stderr}"

    def start(self) -> PgServer:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", self.USER,
                  "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        options = (f"-k {self.folder} -p {self.port} -h 127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                  str(self.folder / "server.log"), "-w", "-t", "60", "-o", options, "start")
        return self

    def url(self, dbname: str) -> str:
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/{dbname}"

    def database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = f"floor{self.tag}_{next(self.names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data),
                            "-m", "immediate", "stop"], capture_output=True, timeout=60,
                           cwd=self.folder)
        shutil.rmtree(self.folder, ignore_errors=True)
