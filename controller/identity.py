"""``threecard identify``: the installed software's identity, and a check of every file (GLI-11).

The identity is the SHA-256 of the wheel's :data:`MANIFEST` (``sha256sum --check`` form);
byte code is checked against a fresh compilation (README, "Software identity"). Standard
library only at import: the build loads this module by its path.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import CodeType
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from controller.environment import Environment

DISTRIBUTION = "threecard-table"
MANIFEST = "controller/MANIFEST.sha256"
CACHE_DIR = "__pycache__"


def package_files(root: Path, packages: list[str] | tuple[str, ...]) -> list[str]:
    """Every file of ``packages`` below ``root``, sorted relative POSIX paths, caches left out.

    Raises:
        OSError: a folder cannot be listed (``filename`` names it).
    """
    out = []
    for name in packages:
        for path in _files_below(root / name):
            rel = path.relative_to(root)
            text = rel.as_posix()
            if CACHE_DIR not in rel.parts and text != MANIFEST:
                out.append(text)
    return sorted(out)


def _files_below(base: Path, links: list[Path] | None = None) -> list[Path]:
    """Every file below ``base`` (OSError: an unlistable folder).

    Folder links are not followed; they go to ``links`` if given.
    """
    def unlisted(exc: OSError) -> None:
        if not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
            raise exc

    out = []
    for top, dirs, names in os.walk(base, onerror=unlisted):
        if links is not None:
            links += [Path(top, d) for d in dirs if os.path.islink(os.path.join(top, d))]
        out += [Path(top, name) for name in names]
    return out


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as 64 lowercase hexadecimal digits (OSError, as read)."""
    return hashlib.sha256(read_file(path)).hexdigest()


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """A regular file opened for reading; OSError for anything else (a pipe is never waited on)."""
    f = open(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb")  # noqa: SIM115 - returned
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return f


def read_file(path: Path) -> bytes:
    """A regular file's bytes (OSError: see :func:`open_regular`)."""
    with open_regular(path) as f:
        return f.read()


def make_manifest(root: Path, packages: list[str] | tuple[str, ...]) -> bytes:
    """The manifest of ``packages`` below ``root``: ``<sha256>  <path>`` per line, sorted."""
    return "".join(f"{file_sha256(root / p)}  {p}\n"
                   for p in package_files(root, packages)).encode("utf-8")


def write_manifest(root: Path, packages: list[str] | tuple[str, ...]) -> Path:
    """Write :data:`MANIFEST` below ``root`` (the build step); its path."""
    path = root / MANIFEST
    path.write_bytes(make_manifest(root, packages))
    return path


def _opt_level(cached: Path) -> int:
    parts = cached.name.split(".")
    return int(parts[2][4:]) if len(parts) == 4 and parts[2][4:].isdigit() else 0


def made_from_source(cached: Path, source: Path) -> bool:
    """Whether a byte code file holds what ``source`` compiles to (a header proves nothing).

    A file Python would not load (another magic, other source) is harmless: True.
    """
    data, text = read_file(cached), read_file(source)
    return not _loaded(data, text, source) or _same_code(data, text, source, cached)


def _loaded(data: bytes, text: bytes, source: Path) -> bool:
    """Whether this Python loads byte code ``data`` for ``source`` (of bytes ``text``)."""
    import importlib.util

    if data[:4] != importlib.util.MAGIC_NUMBER or len(data) < 16:
        return False  # this Python ignores it (and compiles the source)
    flags = int.from_bytes(data[4:8], "little")
    if flags == 0:  # time-stamped: loaded while the source's time and size are the same
        st = source.stat()
        return data[8:16] == ((int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                              + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little"))
    # hash-based: loaded unchecked, or while the source's hash is the same
    return not flags & 0b10 or data[8:16] == importlib.util.source_hash(text)


def _same_code(data: bytes, text: bytes, source: Path, cached: Path) -> bool:
    """Whether byte code ``data`` holds what source bytes ``text`` compile to."""
    import marshal

    try:
        code = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError):
        return False
    try:
        compiled = compile(text, str(source), "exec", dont_inherit=True,
                           optimize=_opt_level(cached))
    except (SyntaxError, ValueError):
        return False
    return isinstance(code, CodeType) and _same_code_object(code, compiled)


# what CPython's ``==`` on code leaves out (the stack's depth, the qualified name, which
# locals are cells) changes what runs; the file name is left out: a moved install keeps it
_CODE_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals",
                "co_stacksize", "co_flags", "co_firstlineno", "co_code", "co_names",
                "co_varnames", "co_freevars", "co_cellvars", "co_name", "co_qualname",
                "co_linetable", "co_exceptiontable")


def _same_code_object(a: CodeType, b: CodeType) -> bool:
    """Code objects equal in every field that changes what runs, nested code included."""
    return (all(getattr(a, f, None) == getattr(b, f, None) for f in _CODE_FIELDS)
            and len(a.co_consts) == len(b.co_consts)
            and all(map(_same_constant, a.co_consts, b.co_consts)))


def _same_constant(x: object, y: object) -> bool:
    if type(x) is not type(y):
        return False
    if isinstance(x, CodeType):
        return _same_code_object(x, y)  # type: ignore[arg-type]
    if isinstance(x, tuple):
        return len(x) == len(y) and all(map(_same_constant, x, y))  # type: ignore[arg-type]
    if isinstance(x, (float, complex)):
        return repr(x) == repr(y)  # -0.0 is not 0.0
    return x == y


def check_bytecode(root: Path, packages: list[str] | tuple[str, ...],
                   listed: dict[str, str], known: Path | None = None
                   ) -> tuple[list[str], list[str]]:
    """Check the byte code of ``packages`` this Python would load (OSError names a bad file).

    Byte code ``known`` holds as made from its source, by both files' SHA-256, is not
    compiled again; the byte code found so is kept there. The hashes are of the very bytes
    compared, so no file swapped in between is kept as sound.

    Returns (files not made from their source, files whose source ``listed`` lacks).
    """
    import importlib.util

    from controller.environment_places import _load_known, _save_known

    tag = sys.implementation.cache_tag
    wrong, stray = [], []
    before = _load_known(known) or {}
    sound: dict[str, str] = {}
    for name in packages:
        links: list[Path] = []
        files = _files_below(root / name, links)
        # a cache folder that is a link: Python loads what it points at, unwalked here
        wrong += sorted(p.relative_to(root).as_posix() for p in links if p.name == CACHE_DIR)
        for cached in sorted(files):
            rel = cached.relative_to(root).as_posix()
            if cached.parent.name != CACHE_DIR or cached.suffix not in (".pyc", ".pyo"):
                continue
            try:
                source = Path(importlib.util.source_from_cache(str(cached)))
            except ValueError:  # a name Python never asks for: junk, but not code it runs
                stray.append(rel)
                continue
            if cached.name.split(".")[1] != tag:
                continue
            if source.relative_to(root).as_posix() not in listed:
                stray.append(rel)
            elif not source.is_file():
                continue  # never loaded without its source, which is named missing
            else:
                data, text = read_file(cached), read_file(source)
                if not _loaded(data, text, source):
                    continue  # harmless while so: looked at again at every check
                text_sha = hashlib.sha256(text).hexdigest()
                if text_sha != listed[source.relative_to(root).as_posix()]:
                    wrong.append(rel)  # not compared with the manifest's source: unproven
                    continue
                key = f"{hashlib.sha256(data).hexdigest()} {text_sha}"
                if before.get(str(cached)) == key or _same_code(data, text, source, cached):
                    sound[str(cached)] = key
                else:
                    wrong.append(rel)
    if known is not None and sound != before:
        _save_known(known, sound)
    return wrong, stray


def parse_manifest(data: bytes) -> dict[str, str]:
    """A manifest's lines as path -> SHA-256 (ValueError: not ``<sha256>  <path>``)."""
    out = {}
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        digest, sep, path = line.partition("  ")
        if (not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest)
                or not path or PurePosixPath(path).is_absolute() or ".." in path.split("/")):
            raise ValueError(f"{MANIFEST}: line {n} is not '<sha256>  <path>'")
        out[path] = digest
    return out


@dataclass(frozen=True, slots=True)
class Identity:
    """The installed software's identity and what the check found.

    ``sha256`` is empty without a manifest; ``installed`` is False for a source tree.
    """

    version: str
    sha256: str
    files: int = 0
    changed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    problem: str = ""
    installed: bool = True
    bytecode: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """A manifest was found and every installed file matches it."""
        return bool(self.sha256) and not (self.problem or self.altered())

    def altered(self) -> list[tuple[str, str]]:
        """(what, path) of each file that does not match: changed, missing, added, bytecode."""
        return ([("changed", p) for p in self.changed] + [("missing", p) for p in self.missing]
                + [("added", p) for p in self.added]
                + [("bytecode", p) for p in self.bytecode])

    def journal_form(self, most: int = 50) -> dict[str, Any]:
        """The identity as the start-up record keeps it, naming at most ``most`` altered files."""
        named = self.altered()
        return {"version": self.version[:64], "sha256": self.sha256, "files": self.files,
                "altered": len(named),
                "named": [f"{what} {path}"[:512] for what, path in named[:most]],
                "problem": self.problem[:512], "alarm": self.installed and not self.ok}


def installed_root() -> Path:
    """The folder holding the installed packages (``site-packages``, a ``--target``)."""
    return Path(__file__).resolve().parent.parent


def installed() -> bool:
    """This package was installed from a built package (its metadata lies beside it)."""
    return bool(_metadata(installed_root()))


def _metadata(root: Path) -> list[Path]:
    return sorted(root.glob(f"{DISTRIBUTION.replace('-', '_')}-*.dist-info"))


def _version(root: Path) -> str:
    """The distribution's version from its metadata (importlib.metadata only as a last resort).

    Importing it costs about 0.1 s and several MB at start-up.
    """
    folders = [root] + [Path(d) for d in sys.path if d and Path(d) != root]
    # os.path.isdir: False for a folder that cannot be looked at (the environment's
    # check names it), where Path.is_dir would raise
    for info in (m for folder in folders if os.path.isdir(folder) for m in _metadata(folder)):
        try:
            with open(info / "METADATA", encoding="utf-8") as f:
                for line in f:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def identify(root: Path | None = None, known: Path | None = None) -> Identity:
    """Read the manifest below ``root`` and check every file; problems go in ``problem``.

    ``known``: where the byte code found made from its source is kept (:func:`check_bytecode`).
    """
    root = installed_root() if root is None else root
    version = _version(root)
    try:
        data = read_file(root / MANIFEST)
    except FileNotFoundError:
        if _metadata(root):  # installed from a wheel, yet the manifest is gone
            return Identity(version, "", missing=(MANIFEST,), problem=f"{MANIFEST} is "
                            "missing from this installation: its files cannot be checked")
        return Identity(version, "", installed=False,
                        problem="no manifest: a source tree run in place (an editable "
                        "install), not a built package; its files are not checked")
    except OSError as exc:
        return Identity(version, "", changed=(MANIFEST,),
                        problem=f"{MANIFEST} cannot be read: {exc.strerror}")
    digest = hashlib.sha256(data).hexdigest()
    try:
        listed = parse_manifest(data)
    except (ValueError, UnicodeDecodeError) as exc:
        return Identity(version, digest, changed=(MANIFEST,), problem=str(exc))
    packages = sorted({p.split("/")[0] for p in listed})
    try:
        present = set(package_files(root, packages))
        changed, missing = [], []
        for path, want in listed.items():
            if path not in present:
                missing.append(path)
            elif file_sha256(root / path) != want:
                changed.append(path)
        wrong, stray = check_bytecode(root, packages, listed, known)
    except OSError as exc:
        return Identity(version, digest, len(listed), problem=f"{exc.filename or root} "
                        f"cannot be read ({exc.strerror or type(exc).__name__}): the "
                        "software there cannot be checked")
    return Identity(version, digest, len(listed), tuple(changed), tuple(missing),
                    tuple(sorted((present - listed.keys()) | set(stray))),
                    bytecode=tuple(wrong))


def bytecode_known() -> Path:
    """Where start-up keeps the byte code its last check found sound (the state folder).

    Whoever can rewrite it and a byte code file could as well rewrite this module's: a check
    run by the software proves nothing against them; ``threecard identify`` compiles all, and
    its digest holds every byte code file's SHA-256 (README.md, "Software identity").
    """
    from controller.journal.seal import default_folder

    return default_folder() / "bytecode-checked.json"


def installed_version() -> str:
    """The version of the package this process runs ("unknown" when not installed)."""
    return _version(installed_root())


def startup_identity() -> dict[str, Any]:
    """The identity as the daemon journals it at start-up, logged.

    An altered install logs an error; the table starts with ``alarm`` set, the deck held.
    """
    import logging

    from controller.game.inputs import MAX_NAMED_FILES

    log = logging.getLogger("threecard")
    ident = identify(known=bytecode_known())
    if ident.problem and ident.installed:
        log.error("SOFTWARE NOT VERIFIED: %s %s (the table holds the deck until a "
                  "supervisor acknowledges)", ident.version, ident.problem)
    elif ident.problem:
        log.info("software %s: %s", ident.version, ident.problem)
    elif not ident.ok:
        log.error("SOFTWARE ALTERED: %s from the manifest of identity sha256 %s (threecard "
                  "identify names them; the table holds the deck until a supervisor "
                  "acknowledges)", _files_differ(len(ident.altered())), ident.sha256)
    else:
        log.info("software %s, identity sha256 %s: %d files checked", ident.version,
                 ident.sha256, ident.files)
    return ident.journal_form(MAX_NAMED_FILES)


def _files_differ(n: int) -> str:
    return ("1 installed file is missing or differs" if n == 1
            else f"{n} installed files are missing or differ")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``identify [--json]``."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Print the identity, the environment's digest and the verdict; 0 if all matches, else 1."""
    from controller.environment import STARTUP_MODULES, check_environment

    ident = identify()
    env = check_environment("" if ident.problem else ident.sha256)
    if env is None:  # only a stop ends it early, and none is asked for here
        return 1
    ok = ident.ok and env.ok
    if args.json:
        print(json.dumps({"ok": ok, **ident.journal_form(),
                          "changed": list(ident.changed), "missing": list(ident.missing),
                          "added": list(ident.added), "bytecode": list(ident.bytecode),
                          **{what: [p for w, p in env.startup if w == what]
                             for what in ("pth", *STARTUP_MODULES)},
                          "environment": env.as_json()}))
        return 0 if ok else 1
    _print_identity(ident)
    _print_environment(env)
    if ident.problem:
        print(f"threecard identify: {ident.problem}", file=sys.stderr)
        return 1
    if ok:
        print("OK: every installed file matches the manifest and every file of the "
              "environment its installer's record; no start-up code outside them")
    return 0 if ok else 1


def _print_identity(ident: Identity) -> None:
    print(f"{DISTRIBUTION} {ident.version}")
    if ident.sha256 and not ident.problem:  # a manifest that cannot be read is no identity
        print(f"identity: sha256 {ident.sha256}")
        print(f"manifest: {ident.files} files, written when the package was built ({MANIFEST})")
    named = ident.altered()
    if named:
        print(f"ALTERED: {_files_differ(len(named))} from the manifest")
        for what, path in named:
            print(f"  {what:8} {path}")


def _print_environment(env: Environment) -> None:
    from controller.game.text import for_terminal

    print(f"environment: sha256 {env.sha256}")
    print(f"  {env.distributions} distributions, {env.files} files their installers "
          f"listed: {env.hashed} compared with the hash recorded, {env.unhashed} listed without "
          "one (the records themselves, byte code compiled at install) are in the digest "
          f"as they are; {env.compiled} byte code files written since compiled again; "
          f"{len(env.interpreter)} start-up files of the interpreter; {env.seconds:.1f} s")
    for folder, why in env.unread:
        print(f"  not read ({why}): {for_terminal(folder)}")
    if env.startup:
        print(f"START-UP CODE no distribution owns ({len(env.startup)}; Python runs it at "
              "every start):")
        for what, path in env.startup:
            print(f"  {what:13} {for_terminal(path)}")
    if env.altered:
        n = len(env.altered)
        print(f"ENVIRONMENT ALTERED: {n} file{'s' if n != 1 else ''} not as "
              f"{'their installers' if n != 1 else 'its installer'} recorded")
        for what, path in env.altered:
            print(f"  {what:10} {for_terminal(path)}")
