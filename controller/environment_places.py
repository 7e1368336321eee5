"""Where the environment's files are: distributions, site folders, the interpreter's own.

The daemon keeps its check's hashes in the state folder so that the next reads only changes.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import site
import sys
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from controller.identity import open_regular

# What an interpreter runs before any code of its own (a folder: every .py file);
# python -X importtime -c pass lists them.
STDLIB_STARTUP = ("site.py", "_sitebuiltins.py", "os.py", "posixpath.py", "genericpath.py",
                  "stat.py", "_collections_abc.py", "codecs.py", "io.py", "abc.py",
                  "zipimport.py", "importlib/_bootstrap.py",
                  "importlib/_bootstrap_external.py", "encodings")


def norm(path: str | os.PathLike[str]) -> str:
    """An absolute path with ``..`` taken out (symbolic links left as they are)."""
    return os.path.normpath(os.path.abspath(path))


def known_hashes() -> Path:
    """Where the daemon keeps the hashes of its last check (the table's state folder)."""
    from controller.journal.seal import default_folder

    return default_folder() / "environment-hashes.json"


KNOWN_MOST_BYTES = 16 << 20
"""A kept hashes file larger than this is not read (the environment's: about 3 MB)."""


def _load_known(path: Path | None) -> dict[str, Any] | None:
    # anything but a readable regular file of a JSON object, of at most KNOWN_MOST_BYTES,
    # reads as nothing known: a pipe put in its place is never waited on, a file too big
    # never read, a nesting too deep for the decoder never raises
    if path is None:
        return None
    try:
        with open_regular(path) as f:
            if os.fstat(f.fileno()).st_size > KNOWN_MOST_BYTES:
                return {}
            data = json.loads(f.read())
    except (OSError, ValueError, RecursionError, MemoryError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_known(path: Path, seen: dict[str, Any]) -> None:
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # a name of its own, made anew (O_EXCL): a pipe or a link put where a copy would go
        # is neither waited on nor followed
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(seen))
        os.replace(tmp, path)
    except OSError:  # (a folder in the file's place, say): no copy left behind
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _distributions() -> list[tuple[Any, str, str]]:
    """Each distribution on the module search path once: (it, its files' folder, name==version)."""
    from importlib import metadata

    out, seen = [], set()
    for dist in metadata.distributions():
        base = os.path.realpath(dist.locate_file(""))
        meta = dist.metadata  # each reading parses the file again
        name = str(meta["Name"])
        where = getattr(dist, "_path", None)
        key = os.path.realpath(where) if where is not None else (base, name)
        if key in seen:
            continue
        seen.add(key)
        out.append((name.lower(), base, dist, f"{name}=={meta['Version']}"))
    return [(dist, base, label) for _, base, dist, label in sorted(out, key=lambda d: d[:2])]


def _record(dist: Any) -> list[tuple[str, str | None, str]] | None:
    """(path, hash name or None, hash value) of each file ``dist`` lists; None: no list.

    ``RECORD`` is read as :mod:`importlib.metadata` reads it (paths tidied as its path
    objects are, a row of more than three fields or a size that is not a number a
    ValueError), without a path object per file: a third of the check's time. An empty
    ``RECORD``, or none, goes to the library (``installed-files.txt``, or None).
    """
    text = dist.read_text("RECORD")
    if not text:
        files = dist.files
        return None if files is None else [
            (str(f), *((f.hash.mode, f.hash.value) if f.hash else (None, ""))) for f in files]
    out: list[tuple[str, str | None, str]] = []
    for row in csv.reader(text.splitlines()):
        if not 1 <= len(row) <= 3:
            raise ValueError(f"a RECORD row of {len(row)} fields" + (f": {row[0]}" if row else ""))
        path, digest, size = (*row, "", "")[:3]
        if size:
            int(size)
        if "//" in path or "./" in path or path.endswith(("/", "/.")) or path == ".":
            path = str(PurePosixPath(path))
        mode, _, value = digest.partition("=")
        out.append((path, mode if digest else None, value))
    return out


def _site_folders() -> list[str]:
    """The folders whose ``.pth`` files Python reads at start-up, and a wheel install's own."""
    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and hasattr(site, "getusersitepackages"):
        folders.append(site.getusersitepackages())
    installed = _installed_root()
    if installed:
        folders.append(installed)
    return list(dict.fromkeys(os.path.realpath(f) for f in folders))


def _walked_folders() -> list[str]:
    return [f for f in _site_folders() if os.path.isdir(f)]


def _installed_root() -> str | None:
    from controller.identity import installed, installed_root

    return str(installed_root()) if installed() else None


def _stdlib_folders() -> set[str]:
    import sysconfig

    return {norm(p) for key in ("stdlib", "platstdlib")
            if (p := sysconfig.get_paths(vars={"base": sys.base_prefix,
                                               "platbase": sys.base_exec_prefix}).get(key))}


def interpreter_files() -> list[str]:
    """The interpreter's start-up files: executable, ``libpython``, ``pyvenv.cfg``, the stdlib's."""
    import sysconfig

    out = [os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)]
    out += _libpython()
    if sys.prefix != sys.base_prefix:
        out.append(norm(os.path.join(sys.prefix, "pyvenv.cfg")))
    stdlib = sysconfig.get_paths(vars={"base": sys.base_prefix}).get("stdlib", "")
    for name in STDLIB_STARTUP:
        path = norm(os.path.join(stdlib, name))
        if name.endswith(".py"):
            out.append(path)
            continue
        try:
            out += sorted(e.path for e in os.scandir(path) if e.name.endswith(".py"))
        except OSError:
            continue
    return [p for p in dict.fromkeys(out) if os.path.isfile(p)]


def _libpython() -> list[str]:
    """The ``libpython`` this process runs on: from ``/proc/self/maps``, else the build's."""
    import sysconfig

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            mapped = {line.split(None, 5)[5].strip() for line in f
                      if len(line.split(None, 5)) == 6}
        return sorted(os.path.realpath(p) for p in mapped
                      if os.path.basename(p).startswith("libpython"))
    except OSError:
        pass
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return []
    name = sysconfig.get_config_var("INSTSONAME") or sysconfig.get_config_var("LDLIBRARY")
    libdir = sysconfig.get_config_var("LIBDIR")
    return [os.path.realpath(os.path.join(libdir, name))] if name and libdir else []


__all__ = ["STDLIB_STARTUP", "interpreter_files", "known_hashes", "norm"]
