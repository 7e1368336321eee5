"""The identity of everything the table runs on (R18): one digest, every file checked.

Every installed distribution's files against their ``RECORD`` hashes, other files of the
site folders named as added, and start-up code no distribution owns (``.pth``,
``sitecustomize``). The digest is what a laboratory compares (README, "Software identity").
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.environment_places import (
    STDLIB_STARTUP,
    _distributions,
    _load_known,
    _record,
    _save_known,
    _site_folders,
    _stdlib_folders,
    _walked_folders,
    interpreter_files,
    known_hashes,
    norm,
)
from controller.identity import open_regular

# The first line of what the digest covers: a change of its form changes this line.
FORMAT = "threecard-environment 1"
STARTUP_MODULES = ("sitecustomize", "usercustomize")
BLOCK = 1 << 20


class _Stopped(Exception):
    """The check was asked to stop."""


@dataclass(frozen=True, slots=True)
class Environment:
    """What :func:`check_environment` found.

    ``altered``: (what, path) of each file not as recorded: ``changed``, ``missing``,
    ``added``, ``bytecode``, ``unreadable``, ``unrecorded``; ``read``: files hashed anew.
    """

    sha256: str
    distributions: int = 0
    files: int = 0
    hashed: int = 0
    unhashed: int = 0
    compiled: int = 0
    interpreter: tuple[str, ...] = ()
    startup: tuple[tuple[str, str], ...] = ()
    altered: tuple[tuple[str, str], ...] = ()
    unread: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    read: int = 0

    @property
    def ok(self) -> bool:
        """No start-up code outside the distributions, every file as recorded."""
        return not (self.startup or self.altered)

    def named(self) -> list[str]:
        """``what path`` for every finding, the start-up code first."""
        return [f"{what} {path}" for what, path in (*self.startup, *self.altered)]

    def journal_form(self, most: int, alarm: bool = True) -> dict[str, Any]:
        """The ``environment`` record's body, naming at most ``most`` findings."""
        from controller.game.text import for_terminal

        return {"sha256": self.sha256, "distributions": self.distributions,
                "files": self.files, "startup": len(self.startup),
                "altered": len(self.altered),
                "named": [for_terminal(n)[:512] for n in self.named()[:most]],
                "alarm": alarm and not self.ok}

    def as_json(self) -> dict[str, Any]:
        """Every fact, for ``threecard identify --json``."""
        return {"sha256": self.sha256, "ok": self.ok, "distributions": self.distributions,
                "files": self.files, "hashed": self.hashed, "unhashed": self.unhashed,
                "compiled": self.compiled, "interpreter": list(self.interpreter),
                **{kind: [p for k, p in self.startup if k == kind]
                   for kind in ("pth", *STARTUP_MODULES)},
                **{what: [p for w, p in self.altered if w == what]
                   for what in ("changed", "missing", "added", "bytecode", "unreadable",
                                "unrecorded")},
                "unread": [{"folder": f, "why": why} for f, why in self.unread],
                "seconds": round(self.seconds, 3)}


def check_environment(manifest: str = "", stop: threading.Event | None = None,
                      known: Path | None = None) -> Environment | None:
    """Check and digest every file of this process's environment (None: ``stop`` came).

    A file of ``known`` with unchanged inode, size, modification and change times is not read
    again (only root can set a change time back); an unreadable file never raises.
    """
    t0 = time.monotonic()
    kept = _load_known(known)
    check = _Check(stop, kept)
    try:
        check.run(manifest)
    except _Stopped:
        return None
    if known is not None and check.seen != kept:  # written only when what it holds changed
        _save_known(known, check.seen)
    digest = hashlib.sha256("".join(f"{line}\n" for line in sorted(check.lines))
                            .encode("utf-8", "surrogateescape")).hexdigest()
    return Environment(digest, check.distributions, check.files, check.hashed,
                       check.unhashed, check.compiled, tuple(check.interpreter),
                       tuple(sorted(check.startup)), tuple(sorted(check.altered)),
                       tuple(sorted(check.unread.items())), time.monotonic() - t0,
                       check.read)


def check_beside(table: Any, software: dict[str, Any], stop: threading.Event,
                 done: threading.Event | None = None) -> Environment | None:
    """Check the environment after READY, beside the table, and journal it (``done`` then set).

    Findings beside an installed package hold the deck until a supervisor unblocks it; beside
    a source tree they are only logged. None when stopped or failed (logged, no alarm).
    """
    try:
        return _check_beside(table, software, stop)
    finally:
        if done is not None:  # once the record is applied: its view is the newest
            applied, until = table.fence(), time.monotonic() + 5.0
            while not (applied.wait(0.1) or stop.is_set() or time.monotonic() > until):
                pass
            done.set()


def _check_beside(table: Any, software: dict[str, Any], stop: threading.Event
                  ) -> Environment | None:
    import logging

    from controller.game.inputs import MAX_NAMED_FILES, EnvironmentRecord
    from controller.identity import installed

    log = logging.getLogger("threecard")
    manifest = "" if software.get("problem") else software.get("sha256", "")
    alarm = installed()
    # at the table's priority: a thread of lower priority holding the interpreter's lock (a
    # JSON parse of its kept hashes) on a loaded machine kept the table's loops waiting
    try:
        env = check_environment(manifest, stop, known_hashes())
    except Exception:  # noqa: BLE001 - no evidence of an alteration: logged, no alarm
        log.exception("environment: the check could not be made; run `threecard identify`")
        return None
    if env is None:
        return None
    # journaled first: whatever is asked after its log line comes after the record
    table.submit(EnvironmentRecord(**env.journal_form(MAX_NAMED_FILES, alarm)))
    for folder, why in env.unread:
        log.warning("environment: %s not read (%s): nothing there was checked", folder, why)
    found = env.named()
    if found:
        log.log(logging.ERROR if alarm else logging.WARNING,
                "ENVIRONMENT ALTERED: %d start-up files no distribution owns, %d files not "
                "as their installers recorded (threecard identify names them%s): %s%s",
                len(env.startup), len(env.altered), "; the table holds the deck until a "
                "supervisor acknowledges" if alarm else "", "; ".join(found[:10]),
                "; ..." if len(found) > 10 else "")
    log.info("environment sha256 %s: %d distributions, %d files, %d start-up files of the "
             "interpreter checked in %.1f s", env.sha256, env.distributions, env.files,
             len(env.interpreter), env.seconds)
    return env


_norm = norm


def _is_cache(path: str) -> bool:
    return path.endswith(".pyc") and os.path.basename(os.path.dirname(path)) == "__pycache__"


class _Check:

    def __init__(self, stop: threading.Event | None, known: dict[str, Any] | None = None
                 ) -> None:
        self.stop = stop
        self.known = known  # an earlier check's hashes, by path (None: read every file)
        self.seen: dict[str, Any] = {}
        self.read = 0
        self.lines: list[str] = [FORMAT, f"python {sys.version.split()[0]} "
                                         f"{sys.implementation.cache_tag}"]
        self.distributions = self.files = self.hashed = self.unhashed = self.compiled = 0
        self.interpreter: list[str] = []
        self.startup: list[tuple[str, str]] = []
        self.altered: list[tuple[str, str]] = []
        self.unread: dict[str, str] = {}
        self.owned: set[str] = set()  # every listed file, as :func:`_norm` gives it

    def run(self, manifest: str) -> None:
        if manifest:
            self.lines.append(f"manifest {manifest}")
        folders = self._readable([*(p for p in sys.path if p), *_site_folders()])
        for dist, base, label in _distributions():
            self._distribution(dist, base, label)
        self._interpreter()
        hooks = self._startup_code(folders)
        for folder in _walked_folders():
            self._walk(folder, hooks)

    # -- reading ------------------------------------------------------------------------
    def _found(self, what: str, named: str, line: str) -> None:
        """A file that does not match: ``named`` to a person, ``line`` in the digest."""
        self.altered.append((what, named))
        self.lines.append(line)

    def _tick(self) -> None:
        if self.stop is not None and self.stop.is_set():
            raise _Stopped

    def _hash(self, path: str, other: str | None = None) -> tuple[str, str | None]:
        """(SHA-256 hex, the ``other`` digest in RECORD's form or None); OSError if unreadable."""
        self._tick()
        key = f"{path}\0{other or ''}"
        if self.known is not None:
            st = os.stat(path)
            stamp = [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
            was = self.known.get(key)
            if isinstance(was, list) and len(was) == 3 and was[0] == stamp:
                self.seen[key] = was
                return was[1], was[2]
        h = hashlib.sha256()
        o = hashlib.new(other) if other else None
        self.read += 1
        with open_regular(path) as f:
            while block := f.read(BLOCK):
                h.update(block)
                if o is not None:
                    o.update(block)
        out = (h.hexdigest(), None if o is None else
               base64.urlsafe_b64encode(o.digest()).rstrip(b"=").decode())
        if self.known is not None:
            self.seen[key] = [stamp, *out]
        return out

    def _readable(self, folders: list[str]) -> list[str]:
        out = []
        for folder in dict.fromkeys(_norm(f) for f in folders):
            try:
                with os.scandir(folder):
                    out.append(folder)
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError as exc:
                self.unread[folder] = exc.strerror or type(exc).__name__
        return out

    # -- distributions ------------------------------------------------------------------
    def _distribution(self, dist: Any, base: str, label: str) -> None:
        self.distributions += 1
        try:
            files = _record(dist)
        except Exception as exc:  # noqa: BLE001 - a record that cannot be read or parsed
            self._found("unreadable", f"{base} ({label}: {exc})", f"unreadable {label}")
            return
        if files is None:
            self._found("unrecorded", f"{base} ({label})", f"unrecorded {label}")
            return
        for f, mode, value in files:
            path = os.path.normpath(os.path.join(base, f))  # base: absolute
            self.owned.add(path)
            self.files += 1
            try:
                sha, recorded = self._hash(path, mode if mode and mode != "sha256" else None)
            except FileNotFoundError:
                if mode is not None or not _is_cache(path):  # a cache: Python makes it again
                    self._found("missing", path, f"missing {label} {f}")
                continue
            except OSError as exc:
                self._found("unreadable", f"{path} ({exc.strerror})", f"unreadable {label} {f}")
                continue
            except ValueError:  # a hash this Python does not know: nothing to compare with
                self._found("unreadable", f"{path} (no such hash: {mode})",
                            f"unreadable {label} {f}")
                continue
            self.lines.append(f"file {sha} {label} {f}")
            if mode is None:
                self.unhashed += 1
                continue
            self.hashed += 1
            if recorded is None:
                recorded = base64.urlsafe_b64encode(bytes.fromhex(sha)).rstrip(b"=").decode()
            if recorded != value.rstrip("="):
                self.altered.append(("changed", path))

    # -- the interpreter ----------------------------------------------------------------
    def _interpreter(self) -> None:
        for path in interpreter_files():
            self._interpreter_file(path)

    def _interpreter_file(self, path: str) -> None:
        if path in self.interpreter:
            return
        try:
            sha, _ = self._hash(path)
        except FileNotFoundError:
            return
        except OSError as exc:
            self._found("unreadable", f"{path} ({exc.strerror})", f"unreadable interpreter {path}")
            return
        self.interpreter.append(path)
        self.lines.append(f"interpreter {sha} {path}")

    # -- start-up code ------------------------------------------------------------------
    def _startup_code(self, folders: list[str]) -> set[str]:
        """Name the start-up code no distribution owns; every start-up file's path."""
        from importlib.machinery import PathFinder

        found: list[tuple[str, str]] = []
        for folder in self._readable(_site_folders()):
            try:
                with os.scandir(folder) as entries:
                    found += [("pth", _norm(e.path)) for e in entries
                              if e.name.endswith(".pth")]
            except OSError as exc:
                self.unread[folder] = exc.strerror or type(exc).__name__
        stdlib = _stdlib_folders()
        for name in STARTUP_MODULES:
            for folder in folders:
                try:
                    spec = PathFinder.find_spec(name, [folder])
                except (ImportError, OSError, ValueError):
                    continue
                if spec is None or not spec.has_location or not spec.origin:
                    continue
                if os.path.dirname(_norm(spec.origin)) in stdlib:
                    self._interpreter_file(_norm(spec.origin))  # shipped with Python itself
                else:
                    found.append((name, _norm(spec.origin)))
        paths = set()
        for kind, path in dict.fromkeys(found):
            paths.add(path)
            if path in self.owned:
                continue  # a distribution's own file, checked with it
            try:
                sha, _ = self._hash(path)
            except OSError as exc:
                sha = f"({exc.strerror})"
            self.startup.append((kind, path))
            self.lines.append(f"startup {sha} {kind} {path}")
        return paths

    # -- the site folders ---------------------------------------------------------------
    def _walk(self, folder: str, skip: set[str]) -> None:
        """Name every file of ``folder`` no distribution lists (its caches checked)."""
        def unread(exc: OSError) -> None:
            self.unread[_norm(exc.filename or folder)] = exc.strerror or type(exc).__name__

        for top, dirs, names in os.walk(folder, onerror=unread):
            self._tick()
            for name in names + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
                path = os.path.join(top, name)
                if path in self.owned or path in skip:
                    continue
                if _is_cache(path) and self._cache(path):
                    continue
                try:
                    sha, _ = self._hash(path) if not os.path.isdir(path) else ("link", None)
                except OSError as exc:
                    sha = f"({exc.strerror})"
                self._found("added", path, f"added {sha} {path}")

    def _cache(self, path: str) -> bool:
        import importlib.util

        from controller.identity import made_from_source

        name = os.path.basename(path)
        try:
            source = _norm(importlib.util.source_from_cache(path))
        except ValueError:  # another tool's tag (pytest's ``NAME.TAG-pytest-X.Y.Z.pyc``)
            source = _norm(os.path.join(path, "..", "..", name.split(".")[0] + ".py"))
            return source in self.owned  # a cache of a listed source Python never loads
        if source not in self.owned:
            return False
        if name.split(".")[1] != sys.implementation.cache_tag:
            return True  # another Python's: never loaded by this one
        if not os.path.isfile(source):
            return True  # never loaded without its source, which is named missing
        self._tick()
        self.compiled += 1
        try:
            same = made_from_source(Path(path), Path(source))
            sha = "" if same else self._hash(path)[0]
        except OSError as exc:
            self._found("unreadable", f"{path} ({exc.strerror})", f"unreadable {path}")
            return True
        if not same:
            self._found("bytecode", path, f"bytecode {sha} {path}")
        return True


__all__ = ["Environment", "FORMAT", "STARTUP_MODULES", "STDLIB_STARTUP", "check_beside",
           "check_environment", "interpreter_files"]
