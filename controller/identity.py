"""``threecard identify``: the installed software's identity, and a check of every file.

GLI-11 asks that the software running on a gaming device can be verified in the field.
When the wheel is built, a build step (``setup.py``) writes :data:`MANIFEST` into the
package: one line per file of the installed packages, ``<sha256>  <path>``, paths relative
to the folder that holds the packages (the format ``sha256sum --check`` reads there). The
software's identity is the SHA-256 of that manifest. :func:`identify` reads it and checks
every installed file against it: a file changed, missing, or present but not in the
manifest is named.

Byte code is what Python runs, so it is checked too, though no manifest can list it (it is
made at install time, by the Python that runs it): every cached ``.pyc`` this Python would
load (``__pycache__/NAME.<this Python's tag>[.opt-N].pyc``) must hold the code its source
compiles to, compiled again here and compared; one that does not is named (``bytecode``),
and byte code with no source in the manifest, or outside ``__pycache__`` (where Python
loads it without any source), is an added file.

The command also checks everything else the process runs on, and prints one digest of
it all (:mod:`controller.environment`, R18): every installed distribution's files against
what its installer recorded, the interpreter's start-up files, and the code Python runs
at every start that no distribution owns (``.pth`` files, ``sitecustomize``,
``usercustomize``), which is named.

The daemon journals the identity at each start-up (the ``startup`` record's ``software``,
declared in :mod:`controller.game.inputs`), and the environment's once READY (an
``environment`` record); ``threecard report shift`` prints the identities recorded in its
period.

This module uses the standard library only at import: the build step loads it by its
path, before the package is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.environment import Environment

DISTRIBUTION = "threecard-table"
"""The distribution whose version is reported."""
MANIFEST = "controller/MANIFEST.sha256"
"""The manifest, relative to the folder holding the packages."""
CACHE_DIR = "__pycache__"
"""Where Python keeps the byte code it compiled (not listed in the manifest: checked apart)."""


def package_files(root: Path, packages: list[str] | tuple[str, ...]) -> list[str]:
    """Every file of ``packages`` below ``root``, as sorted POSIX paths relative to it.

    Byte code caches (``__pycache__``) and the manifest itself are left out; byte code
    anywhere else is listed, as Python would load it.

    Args:
        root: the folder holding the packages (``site-packages``, a build folder).
        packages: top-level package names (``controller``, ``display``...).

    Raises:
        OSError: a folder of the packages cannot be listed (``filename`` names it).
    """
    out = []
    for name in packages:
        for path in _files_below(root / name):
            rel = path.relative_to(root)
            text = rel.as_posix()
            if CACHE_DIR not in rel.parts and text != MANIFEST:
                out.append(text)
    return sorted(out)


def _files_below(base: Path) -> list[Path]:
    """Every file below ``base`` (links to folders not followed); none if it is not there.

    Raises:
        OSError: a folder below it cannot be listed: what it holds would go unchecked.
    """
    def unlisted(exc: OSError) -> None:
        if not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
            raise exc

    return [Path(top, name) for top, _dirs, names in os.walk(base, onerror=unlisted)
            for name in names]


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as 64 lowercase hexadecimal digits."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_manifest(root: Path, packages: list[str] | tuple[str, ...]) -> bytes:
    """The manifest of ``packages`` below ``root``: ``<sha256>  <path>`` per line, sorted."""
    return "".join(f"{file_sha256(root / p)}  {p}\n"
                   for p in package_files(root, packages)).encode("utf-8")


def write_manifest(root: Path, packages: list[str] | tuple[str, ...]) -> Path:
    """Write :data:`MANIFEST` below ``root`` (the build step). Returns its path."""
    path = root / MANIFEST
    path.write_bytes(make_manifest(root, packages))
    return path


def _opt_level(cached: Path) -> int:
    """The optimisation level a cached file's name says (``NAME.TAG.opt-2.pyc`` -> 2)."""
    parts = cached.name.split(".")
    return int(parts[2][4:]) if len(parts) == 4 and parts[2][4:].isdigit() else 0


def made_from_source(cached: Path, source: Path) -> bool:
    """Whether a byte code file holds the code ``source`` compiles to.

    Python loads a cached file whose header matches its source (time-stamped: the source's
    modification time and size; hash-based: unchecked, or the source's hash), so a header
    proves nothing: the code itself is compared with a fresh compilation. Code objects
    compare equal when their byte code, constants, names and line tables do, the file name
    they were compiled under aside. A file Python would not load (another magic number, a
    header for other source bytes: it compiles the source instead) is harmless: True.
    """
    import importlib.util
    import marshal

    data = cached.read_bytes()
    text = source.read_bytes()
    if data[:4] != importlib.util.MAGIC_NUMBER or len(data) < 16:
        return True  # this Python ignores it (and compiles the source)
    flags = int.from_bytes(data[4:8], "little")
    if flags == 0:  # time-stamped: loaded while the source's time and size are the same
        st = source.stat()
        if data[8:16] != ((int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                          + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")):
            return True
    elif flags & 0b10 and data[8:16] != importlib.util.source_hash(text):
        return True  # hash-based, checked: loaded while the source's hash is the same
    try:
        code = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError):
        return False
    try:
        compiled = compile(text, str(source), "exec", dont_inherit=True,
                           optimize=_opt_level(cached))
    except (SyntaxError, ValueError):
        return False
    return code == compiled


def check_bytecode(root: Path, packages: list[str] | tuple[str, ...],
                   listed: dict[str, str]) -> tuple[list[str], list[str]]:
    """Check every cached byte code file of ``packages`` this Python would load.

    Args:
        root: the folder holding the packages.
        packages: top-level package names.
        listed: the manifest (path -> SHA-256).

    Returns:
        (files whose code is not their source's, files whose source the manifest does
        not list), as paths relative to ``root``. Files for another Python (another tag)
        are never loaded by this one, nor those of a missing source: left alone.

    Raises:
        OSError: a folder or a byte code file cannot be read (``filename`` names it).
    """
    import importlib.util

    tag = sys.implementation.cache_tag
    wrong, stray = [], []
    for name in packages:
        for cached in sorted(_files_below(root / name)):
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
            elif not made_from_source(cached, source):
                wrong.append(rel)
    return wrong, stray


def parse_manifest(data: bytes) -> dict[str, str]:
    """A manifest's lines as path -> SHA-256.

    Raises:
        ValueError: a line is not ``<64 hex digits>  <relative path>``.
    """
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

    Attributes:
        version: the distribution's version (``unknown`` when it has no metadata).
        sha256: the SHA-256 of the manifest; empty when there is none (an editable or
            source install: nothing was built, nothing can be checked).
        files: files the manifest lists.
        changed: files whose bytes differ from the manifest.
        missing: files the manifest lists that are not installed.
        added: files of the packages that the manifest does not list (byte code with no
            source in the manifest included).
        bytecode: cached byte code files whose code is not what their source compiles
            to (:func:`check_bytecode`).
        problem: why the check could not be made (no manifest, an unreadable one), or "".
        installed: the packages were installed from a built package (its metadata lies
            beside them); False for a source tree run in place (an editable install),
            which has no manifest to miss.
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
        """(what, path) for every file that does not match.

        ``changed``, ``missing``, ``added``, and ``bytecode`` (not made from its source).
        """
        return ([("changed", p) for p in self.changed] + [("missing", p) for p in self.missing]
                + [("added", p) for p in self.added]
                + [("bytecode", p) for p in self.bytecode])

    def journal_form(self, most: int = 50) -> dict[str, Any]:
        """The identity as the start-up record keeps it (``software``).

        Args:
            most: how many altered files to name (``altered`` counts them all).
        """
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
    """The distribution's metadata folders beside the packages (none for a source tree)."""
    return sorted(root.glob(f"{DISTRIBUTION.replace('-', '_')}-*.dist-info"))


def _version(root: Path) -> str:
    """The distribution's version, from its metadata beside the packages.

    Read directly: importing :mod:`importlib.metadata` alone costs a start-up about 0.1 s
    and several MB. Where there is none beside them (an editable install), the folders on
    ``sys.path`` are looked at the same way; only then is :mod:`importlib.metadata` asked.
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


def identify(root: Path | None = None) -> Identity:
    """Read the manifest and check every installed file against it.

    Args:
        root: the folder holding the packages (default: where this module is installed).

    Returns:
        The identity; never raises for a missing or damaged manifest (``problem`` says,
        and the manifest itself is named missing or changed: an installation altered),
        nor for a file or folder of the packages that cannot be read (``problem`` names
        it: what it holds cannot be checked).
    """
    root = installed_root() if root is None else root
    version = _version(root)
    try:
        data = (root / MANIFEST).read_bytes()
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
        wrong, stray = check_bytecode(root, packages, listed)
    except OSError as exc:
        return Identity(version, digest, len(listed), problem=f"{exc.filename or root} "
                        f"cannot be read ({exc.strerror or type(exc).__name__}): the "
                        "software there cannot be checked")
    return Identity(version, digest, len(listed), tuple(changed), tuple(missing),
                    tuple(sorted((present - listed.keys()) | set(stray))),
                    bytecode=tuple(wrong))


def startup_identity() -> dict[str, Any]:
    """The identity as the daemon journals it at start-up, logged.

    An altered file, or an installation whose manifest is missing or unreadable, is
    logged as an error (``threecard identify`` names them all); the table still starts,
    its start-up record keeps what was found with ``alarm`` set, and the table holds the
    deck, the alarm on the dealer screen, until a supervisor acknowledges (Unblock deck).

    Returns:
        :meth:`Identity.journal_form` (:class:`controller.game.inputs.Software`'s fields).
    """
    import logging

    from controller.game.inputs import MAX_NAMED_FILES

    log = logging.getLogger("threecard")
    ident = identify()
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
    """``1 installed file is missing or differs``, ``2 installed files are missing or differ``."""
    return ("1 installed file is missing or differs" if n == 1
            else f"{n} installed files are missing or differ")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``identify [--json]``."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """Print the identity, the whole environment's digest and the check's verdict.

    The package's files are checked against its manifest (:func:`identify`); every other
    file the process runs on against what its installer recorded, and the code Python
    runs at every start that no distribution owns is named
    (:func:`controller.environment.check_environment`). ``--json`` gives the same facts,
    the environment's under ``environment`` (its start-up code also under ``pth``,
    ``sitecustomize``, ``usercustomize``).

    Returns:
        0 when every file matches (the package's its manifest, its byte code its
        sources; every other its installer's record) and no start-up code is unknown;
        1 otherwise, or when there is no manifest to check against.
    """
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
    """The package's identity and the files that do not match its manifest."""
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
    """The environment's digest, what it covers, and what was found (one line each)."""
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
