"""``threecard identify``: the software in the field is the software that was built.

A wheel (the one CI built, ``THREECARD_WHEEL``, else one built here from a copy of the
source tree) is installed into a throwaway folder with ``pip install --prefix``; the
command is run from that install. Its identity is the SHA-256 of the manifest the build
wrote; one changed, removed or added file is named. The daemon run from the same install
journals that identity at start-up, and the shift report's figures carry it.

The whole environment (every distribution on the module search path, the interpreter's
start-up files) has one digest beside it (R18): the same for an unchanged install, another
when a file changes; a ``.pth`` file no distribution owns is named, and holds the deck of
the daemon run from that install until a supervisor acknowledges.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import marshal
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fresh_python import modules_after, packages_after

from controller.journal import Journal

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "controller", "drivers",
           "display", "simulators", "floor")


def _wheel(folder: Path) -> Path:
    given = os.environ.get("THREECARD_WHEEL")
    if given:
        return Path(given)
    tree = folder / "source"
    tree.mkdir()
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, tree / name)
    try:
        from setuptools import __version__ as setuptools_version
        isolation = [] if int(setuptools_version.split(".")[0]) < 77 else [
            "--no-build-isolation"]
    except ImportError:
        isolation = []
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", *isolation,
                    "-w", str(folder / "dist"), str(tree)], check=True, timeout=600)
    (wheel,) = (folder / "dist").glob("threecard_table-*.whl")
    return wheel


@pytest.fixture(scope="module")
def install(tmp_path_factory):
    """The folder holding the installed packages (``PREFIX/lib/pythonX.Y/site-packages``).

    ``--prefix`` installs the script where its record says, as in a virtual environment
    (``--target`` moves it after the record is written: the record names another place);
    ``--ignore-installed``: the test environment may hold the package already.
    """
    folder = tmp_path_factory.mktemp("install")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--ignore-installed", "--no-warn-script-location", "--prefix",
                    str(folder / "prefix"), str(_wheel(folder))], check=True, timeout=600)
    (init,) = (folder / "prefix").glob("**/controller/__init__.py")
    return init.parent.parent


def _copy(install: Path, folder: Path) -> Path:
    """A copy of the whole install (its script too, times kept); its packages' folder."""
    prefix = next(p for p in install.parents if p.name == "prefix")
    shutil.copytree(prefix, folder / "prefix", symlinks=True)
    return folder / "prefix" / install.relative_to(prefix)


def from_install(target: Path, *args: str, timeout: float = 120, prefix: tuple[str, ...] = ()
                 ) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([*prefix, sys.executable, "-P", "-m", "controller.cli", *args],
                          capture_output=True, text=True, env=env, cwd=target.parent,
                          timeout=timeout)


def modes_bind() -> tuple[str, ...]:
    """A command prefix under which a folder of mode 0 cannot be read, even by root.

    Root reads every folder: ``setpriv`` drops the two capabilities that let it (it stays
    root otherwise, and reads the files it owns as their owner). Skips where neither is
    possible.
    """
    if os.geteuid() != 0:
        return ()
    prefix = (shutil.which("setpriv") or "setpriv",
              "--bounding-set=-dac_override,-dac_read_search")
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
    except OSError:
        probe = None
    if probe is None or probe.returncode != 0:
        pytest.skip("run as root, and setpriv cannot drop root's right to read any folder")
    return prefix


def test_an_intact_install_matches_its_manifest(install):
    manifest = install / "controller" / "MANIFEST.sha256"
    run = from_install(install, "identify", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    got = json.loads(run.stdout)
    assert got["ok"] and got["sha256"] == hashlib.sha256(manifest.read_bytes()).hexdigest()
    # beside a stock virtual environment (setuptools' distutils-precedence.pth is in its
    # record), nothing is named
    assert got["pth"] == got["sitecustomize"] == got["usercustomize"] == []
    assert got["environment"]["ok"] and got["environment"]["added"] == []
    # the manifest names every file of the five packages, with its SHA-256
    listed = dict(reversed(line.split("  ", 1)) for line in manifest.read_text().splitlines())
    files = {p.relative_to(install).as_posix() for name in ("controller", "drivers", "display",
                                                             "simulators", "floor")
             for p in (install / name).rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert set(listed) == files - {"controller/MANIFEST.sha256"}
    assert "display/fonts/DejaVuSans.ttf" in listed and got["files"] == len(listed) > 50
    for path, digest in listed.items():
        assert hashlib.sha256((install / path).read_bytes()).hexdigest() == digest, path
    if shutil.which("sha256sum"):  # the format coreutils checks, from the install's folder
        subprocess.run(["sha256sum", "--check", "--quiet", "controller/MANIFEST.sha256"],
                       cwd=install, check=True)


def test_one_changed_file_is_named(install, tmp_path):
    target = _altered_copy(install, tmp_path)
    run = from_install(target, "identify")
    assert run.returncode == 1
    assert "ALTERED: 1 installed file is missing or differs from the manifest" in run.stdout
    assert "changed  display/theme.py" in run.stdout
    # removed and added files are named too; so is cached byte code with no source
    (target / "drivers" / "cli.py").unlink()
    (target / "controller" / "extra.py").write_text("print('not ours')\n")
    (target / "controller" / "__pycache__").mkdir(exist_ok=True)
    stray = f"controller/__pycache__/x.{sys.implementation.cache_tag}.pyc"
    (target / stray).write_bytes(b"\0")
    got = json.loads(from_install(target, "identify", "--json").stdout)
    assert (got["changed"], got["missing"], got["added"]) == (
        ["display/theme.py"], ["drivers/cli.py"], [stray, "controller/extra.py"])
    assert not got["ok"] and got["altered"] == 4
    # a manifest made garbage names no identity and counts no file: only its problem
    (target / "controller" / "MANIFEST.sha256").write_bytes(b"\x00not a manifest\n")
    garbage = from_install(target, "identify")
    assert garbage.returncode == 1 and "MANIFEST.sha256" in garbage.stderr
    assert "identity:" not in garbage.stdout and "files, written" not in garbage.stdout
    # an installation whose manifest was taken away cannot be checked, and says so
    (target / "controller" / "MANIFEST.sha256").unlink()
    gone = from_install(target, "identify")
    assert gone.returncode == 1 and "MANIFEST.sha256 is missing" in gone.stderr


def test_the_daemon_journals_the_identity_at_start_up(install, tmp_path):
    from controller.game.shift import shift

    want = json.loads(from_install(install, "identify", "--json").stdout)["sha256"]
    journal = tmp_path / "journal.sqlite3"
    run = from_install(install, "run", "--demo", "--headless", "--rounds", "1", "--journal",
                       str(journal), "--pace-ms", "0", timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert f"identity sha256 {want}" in run.stdout
    j = Journal(journal, readonly=True)
    try:
        software = json.loads(j.newest("startup").body)["software"]
    finally:
        j.close()
    assert software["sha256"] == want and software["altered"] == 0
    # the shift report's figures carry the identity recorded in the period
    (line,) = shift(journal).identities
    assert line.software["sha256"] == want and not line.before


def test_the_running_table_loads_no_report_pdf_or_plot_library():
    # what `threecard run` imports to start (the identity check included): none of the
    # libraries of the shift report or the dispute bundle (the seals' Ed25519, from
    # cryptography, is the journal's own: it seals every round)
    code = ("import controller.daemon, controller.identity, controller.game.table\n"
            "import display.app, drivers\n"
            "controller.identity.identify()\n")
    assert packages_after(code, among=("reportlab", "matplotlib", "PIL")) == []



def test_the_version_is_read_from_metadata_on_the_path_without_importlib_metadata(tmp_path):
    # an editable install keeps its metadata in site-packages, not beside the packages:
    # the version is still read directly (importlib.metadata costs a start-up MBs)
    elsewhere, on_path = tmp_path / "src", tmp_path / "site"
    elsewhere.mkdir()
    info = on_path / "threecard_table-7.3.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: threecard-table\n"
                                   "Version: 7.3.1\n\nabout\n", encoding="utf-8")
    code = (f"import sys; sys.path.insert(0, {str(on_path)!r})\n"
            "from pathlib import Path\nimport controller.identity as i\n"
            f"assert i._version(Path({str(elsewhere)!r})) == '7.3.1', i._version(Path('.'))\n")
    assert "importlib.metadata" not in modules_after(code)


def test_byte_code_not_made_from_its_source_is_named(install, tmp_path):
    """Tampered code under the genuine source's header (its modification time and size):
    Python loads it, the source's bytes still match the manifest. ``identify`` compiles
    the source again and names the byte code; byte code dropped beside the sources (which
    Python loads without any source) is an added file; a ``.pth`` file in the site folder
    is listed."""
    target = _copy(install, tmp_path)  # times kept: the install's byte code stays valid
    source = target / "controller" / "game" / "settlement.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    assert cached.is_file()  # pip compiled it at install
    rel = cached.relative_to(target).as_posix()
    tampered = compile(source.read_text() + "\nTAMPERED = True\n", str(source), "exec",
                       dont_inherit=True)
    st = source.stat()
    cached.write_bytes(importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
                       + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                       + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
                       + marshal.dumps(tampered))
    env = {**os.environ, "PYTHONPATH": str(target)}
    loaded = subprocess.run([sys.executable, "-P", "-c", "import controller.game.settlement "
                             "as m; print(getattr(m, 'TAMPERED', False))"], env=env,
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert loaded.stdout.strip() == "True", loaded.stderr  # the tampered code is what runs
    run = from_install(target, "identify")
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"bytecode {rel}" in " ".join(run.stdout.split())
    # byte code beside the sources, where Python imports it with no source; a .pth
    (target / "controller" / "game" / "extra.pyc").write_bytes(
        cached.read_bytes())
    (target / "zz-hook.pth").write_text("import os\n")
    got = json.loads(from_install(target, "identify", "--json").stdout)
    assert got["bytecode"] == [rel] and got["added"] == ["controller/game/extra.pyc"]
    assert str((target / "zz-hook.pth").resolve()) in got["pth"]
    listed = " ".join(from_install(target, "identify").stdout.split())
    assert f"pth {(target / 'zz-hook.pth').resolve()}" in listed


def test_byte_code_kept_as_sound_is_compiled_again_once_rewritten(install, tmp_path,
                                                                     monkeypatch):
    """The daemon's check keeps each byte code file it found made from its source by both
    files' SHA-256, and does not compile it again at the next start while they hold the
    same bytes; byte code rewritten under the genuine header since (its inode, size and
    times kept) is compiled again and named, at every start."""
    from controller import identity

    target = _copy(install, tmp_path)
    listed = identity.parse_manifest((target / identity.MANIFEST).read_bytes())
    packages = sorted({p.split("/")[0] for p in listed})
    known = tmp_path / "state" / "bytecode-checked.json"
    compiled: list[Path] = []
    real = identity._same_code

    def counted(data: bytes, text: bytes, source: Path, cached: Path) -> bool:
        compiled.append(cached)
        return real(data, text, source, cached)

    monkeypatch.setattr(identity, "_same_code", counted)
    assert identity.check_bytecode(target, packages, listed, known) == ([], [])
    first = len(compiled)
    assert first > 100 and len(json.loads(known.read_text())) == first
    assert identity.check_bytecode(target, packages, listed, known) == ([], [])
    assert len(compiled) == first  # nothing compiled again
    source = target / "controller" / "game" / "settlement.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    data, st = cached.read_bytes(), cached.stat()
    tampered = marshal.dumps(compile(source.read_text() + "\nTAMPERED = 1\n", str(source),
                                     "exec", dont_inherit=True, optimize=2))
    assert len(tampered) <= len(data) - 16  # docstrings left out: it fits, padded
    with open(cached, "r+b") as f:  # rewritten in place: the same inode, size and times
        f.seek(16)
        f.write(tampered + bytes(len(data) - 16 - len(tampered)))
    os.utime(cached, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (cached.stat().st_ino, cached.stat().st_size) == (st.st_ino, st.st_size)
    wrong, _ = identity.check_bytecode(target, packages, listed, known)
    assert wrong == [cached.relative_to(target).as_posix()]
    assert compiled[first:] == [cached]  # that file alone, compiled again
    wrong, _ = identity.check_bytecode(target, packages, listed, known)
    assert wrong == [cached.relative_to(target).as_posix()]  # and named at every start
    assert compiled[first + 1:] == [cached]
    # the genuine bytes put back: known again, not compiled
    cached.write_bytes(data)
    assert identity.check_bytecode(target, packages, listed, known) == ([], [])
    assert compiled[first + 2:] == [cached]  # compiled once, found sound, kept
    assert identity.check_bytecode(target, packages, listed, known) == ([], [])
    assert len(compiled) == first + 3


def test_byte_code_swapped_while_checked_is_not_kept_as_sound(install, tmp_path, monkeypatch):
    """A check that read genuine byte code while tampered byte code stands at its path (a
    folder swapped back and forth during the check) keeps the hashes of the bytes it
    compared: the next check reads the tampered bytes, compiles again and names them."""
    from controller import identity

    target = _copy(install, tmp_path)
    listed = identity.parse_manifest((target / identity.MANIFEST).read_bytes())
    packages = sorted({p.split("/")[0] for p in listed})
    known = tmp_path / "state" / "bytecode-checked.json"
    source = target / "controller" / "game" / "settlement.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    genuine = cached.read_bytes()
    tampered = compile(source.read_text() + "\nTAMPERED = 1\n", str(source), "exec",
                       dont_inherit=True)
    cached.write_bytes(genuine[:16] + marshal.dumps(tampered))
    real = identity.read_file
    with monkeypatch.context() as m:  # the genuine file is what the first check reads
        m.setattr(identity, "read_file", lambda p: genuine if p == cached else real(p))
        assert identity.check_bytecode(target, packages, listed, known)[0] == []
    wrong, _ = identity.check_bytecode(target, packages, listed, known)
    assert wrong == [cached.relative_to(target).as_posix()]


@pytest.mark.parametrize("where", ["controller/game/settlement.py", "byte code"])
def test_a_pipe_in_place_of_a_file_is_named_and_never_waited_on(install, tmp_path, where):
    """A named pipe where a source or its byte code stands: ``identify`` says it cannot be
    read, at once (a read would wait for a writer forever), and exits 1."""
    target = _copy(install, tmp_path)
    path = target / "controller" / "game" / "settlement.py"
    if where == "byte code":
        path = Path(importlib.util.cache_from_source(str(path)))
    path.unlink()
    os.mkfifo(path)
    run = from_install(target, "identify", "--json", timeout=60)
    assert run.returncode == 1, run.stderr
    got = json.loads(run.stdout)
    assert "not a regular file" in got["problem"] and str(path) in got["problem"], got


def _check(target: Path, known: Path | None = None) -> list[str]:
    from controller import identity

    listed = identity.parse_manifest((target / identity.MANIFEST).read_bytes())
    packages = sorted({p.split("/")[0] for p in listed})
    return identity.check_bytecode(target, packages, listed, known)[0]


@pytest.mark.parametrize("field", ["co_stacksize", "co_qualname", "co_cellvars"])
def test_byte_code_that_python_calls_equal_but_runs_otherwise_is_named(install, tmp_path,
                                                                        field):
    """Code objects that ``==`` calls equal (CPython 3.11 leaves out the stack's depth, the
    qualified name and which locals are cells) but that run otherwise: a function's code
    changed so, under the genuine header, is named, and not kept as sound."""
    from types import CodeType

    target = _copy(install, tmp_path)
    source = target / "controller" / "game" / "settlement.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    data = cached.read_bytes()
    module = marshal.loads(data[16:])
    i, func = next((i, c) for i, c in enumerate(module.co_consts) if isinstance(c, CodeType)
                   and c.co_varnames)
    changed = {"co_stacksize": 1, "co_qualname": "elsewhere",
               "co_cellvars": func.co_cellvars + (func.co_varnames[0],)}[field]
    try:
        bad = func.replace(**{field: changed})
    except ValueError:
        pytest.skip(f"this Python builds no code with that {field}")
    consts = module.co_consts[:i] + (bad,) + module.co_consts[i + 1:]
    tampered = module.replace(co_consts=consts)
    if tampered != module:
        pytest.skip(f"this Python's == already tells {field} apart")
    cached.write_bytes(data[:16] + marshal.dumps(tampered))
    known = tmp_path / "state" / "bytecode-checked.json"
    rel = cached.relative_to(target).as_posix()
    assert _check(target, known) == [rel]
    assert _check(target, known) == [rel]  # never kept


def test_byte_code_compared_with_a_source_the_manifest_does_not_hold_is_named(
        install, tmp_path, monkeypatch):
    """Byte code Python loads whatever the source holds (hash-based, unchecked), made from
    another source, which stood in the genuine one's place while the check read it (a swap
    between the manifest's check and this one): named, and nothing kept."""
    from controller import identity

    target = _copy(install, tmp_path)
    source = target / "controller" / "game" / "settlement.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    other = source.read_bytes() + b"\nTAMPERED = 1\n"
    code = compile(other, str(source), "exec", dont_inherit=True)
    cached.write_bytes(importlib.util.MAGIC_NUMBER + (0b01).to_bytes(4, "little")
                       + importlib.util.source_hash(other) + marshal.dumps(code))
    real = identity.read_file
    monkeypatch.setattr(identity, "read_file", lambda p: other if p == source else real(p))
    known = tmp_path / "state" / "bytecode-checked.json"
    rel = cached.relative_to(target).as_posix()
    assert _check(target, known) == [rel]
    assert str(cached) not in json.loads(known.read_text())


def test_a_cache_folder_that_is_a_link_is_named(install, tmp_path):
    """A ``__pycache__`` that is a link to a folder elsewhere (its byte code loaded by
    Python, never walked by a check that does not follow links) is named."""
    target = _copy(install, tmp_path)
    folder = target / "controller" / "game" / "__pycache__"
    shutil.move(folder, tmp_path / "elsewhere")
    folder.symlink_to(tmp_path / "elsewhere")
    assert "controller/game/__pycache__" in _check(target)


def test_the_daemon_names_byte_code_rewritten_after_its_last_start(install, tmp_path):
    """Two starts of the daemon from one install, with one state folder: the first keeps
    the byte code it found sound; a ``.pyc`` rewritten under its genuine header between
    them is compiled again and named by the second, which journals the alarm."""
    target = _copy(install, tmp_path)
    state = tmp_path / "state"

    def start(n: int) -> dict:
        journal = tmp_path / f"journal{n}.sqlite3"
        env = {**os.environ, "PYTHONPATH": str(target), "XDG_STATE_HOME": str(state),
               "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        run = subprocess.run([sys.executable, "-P", "-m", "controller.cli", "run", "--demo",
                              "--headless", "--rounds", "1", "--pace-ms", "0", "--journal",
                              str(journal)], capture_output=True, text=True, env=env,
                             cwd=tmp_path, timeout=300)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        j = Journal(journal, readonly=True)
        try:
            return json.loads(j.newest("startup").body)["software"]
        finally:
            j.close()

    assert start(1)["alarm"] is False
    kept = json.loads((state / "threecard-table" / "bytecode-checked.json").read_text())
    assert len(kept) > 100
    source = target / "drivers" / "url.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    rel = cached.relative_to(target).as_posix()
    tampered = compile(source.read_text() + "\nTAMPERED = True\n", str(source), "exec",
                       dont_inherit=True)
    cached.write_bytes(cached.read_bytes()[:16] + marshal.dumps(tampered))
    software = start(2)
    assert software["alarm"] is True and software["named"] == [f"bytecode {rel}"], software


def test_code_run_at_every_start_outside_the_package_is_named(install, tmp_path):
    """A ``sitecustomize`` in the install's folder, a ``usercustomize`` elsewhere on the
    module search path, a ``.pth`` with an ``import`` line and one that adds a folder to
    the search path are named, in the listing and in --json: no distribution owns them,
    and the command exits 1 though the package's own files are intact."""
    target = _copy(install, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (target / "sitecustomize.py").write_text("RAN = True\n")
    (elsewhere / "usercustomize.py").write_text("RAN = True\n")
    (target / "aa-run.pth").write_text("# a comment\nimport os\n")
    (target / "bb-paths.pth").write_text(f"{elsewhere}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(target), str(elsewhere)))}
    runs = [subprocess.run([sys.executable, "-P", "-m", "controller.cli", "identify", *args],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
            for args in ((), ("--json",))]
    got = json.loads(runs[1].stdout)
    site_hook = str((target / "sitecustomize.py").resolve())
    user_hook = str((elsewhere / "usercustomize.py").resolve())
    run_pth = str((target / "aa-run.pth").resolve())
    paths_pth = str((target / "bb-paths.pth").resolve())
    assert got["sitecustomize"] == [site_hook] and got["usercustomize"] == [user_hook]
    assert got["pth"] == [run_pth, paths_pth]
    assert got["environment"]["added"] == []  # named once, as start-up code
    listed = " ".join(runs[0].stdout.split())
    assert "START-UP CODE no distribution owns (4;" in listed, runs[0].stdout
    for what, path in (("sitecustomize", site_hook), ("usercustomize", user_hook),
                       ("pth", run_pth), ("pth", paths_pth)):
        assert f"{what} {path}" in listed, runs[0].stdout
    assert not got["ok"] and runs[0].returncode == runs[1].returncode == 1
    assert got["altered"] == 0 and not got["alarm"]  # the package's own files are intact


def test_an_intact_install_byte_code_matches_its_sources(install):
    """What pip compiled at install is what the sources compile to: nothing is named."""
    caches = list(install.rglob(f"*.{sys.implementation.cache_tag}.pyc"))
    assert len(caches) > 50
    got = json.loads(from_install(install, "identify", "--json").stdout)
    assert got["ok"] and got["bytecode"] == [] and got["added"] == []


def _altered_copy(install: Path, folder: Path) -> Path:
    """A copy of the install with one byte of ``display/theme.py`` changed (a letter of its
    docstring: the module still runs)."""
    target = _copy(install, folder)
    theme = target / "display" / "theme.py"
    data = bytearray(theme.read_bytes())
    letter = re.search(rb'"""[^a-z]*([a-z])', data).start(1)
    data[letter] ^= 0x01  # another letter
    before = theme.stat()
    theme.write_bytes(bytes(data))
    # a time of its own: written within the second of the install, its cached byte code's
    # header would still match it, and that byte code (not this one change) be named too
    os.utime(theme, ns=(before.st_atime_ns, before.st_mtime_ns + 10_000_000_000))
    return target


class _Daemon:
    """``threecard run --control-stdin`` from an install; its log lines as they come."""

    def __init__(self, target: Path, *args: str) -> None:
        import threading

        env = {**os.environ, "PYTHONPATH": str(target), "SDL_VIDEODRIVER": "dummy",
               "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-P", "-m", "controller.cli", "run",
                                      *args, "--control-stdin"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1, env=env, cwd=target.parent)
        self.lines: list[str] = []
        self.cursor = 0
        self.reader = threading.Thread(target=lambda: self.lines.extend(
            line.rstrip("\n") for line in self.proc.stdout), daemon=True)
        self.reader.start()

    def wait_for(self, text: str, timeout: float = 60) -> str:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i in range(self.cursor, len(self.lines)):
                if text in self.lines[i]:
                    self.cursor = i + 1
                    return self.lines[i]
            time.sleep(0.05)
        raise AssertionError(f"no line with {text!r}:\n" + "\n".join(self.lines[-40:]))

    def send(self, command: str, **fields: object) -> None:
        self.proc.stdin.write(json.dumps({"command": command, **fields}) + "\n")
        self.proc.stdin.flush()

    def stop(self) -> int:
        import signal

        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(30)
        self.reader.join(5)
        return code


def test_altered_software_holds_the_table_until_a_supervisor_acknowledges(install, tmp_path):
    """The daemon run from an altered install journals the identity, shows an alarm on
    the dealer screen and refuses to deal (No more bets refused) until a supervisor
    acknowledges it with Unblock deck, their PIN journaled as their role; then the round
    goes on."""
    target = _altered_copy(install, tmp_path)
    # the file is not as its installer recorded either: the environment's alarm follows
    rows = _held_until_unblocked(target, tmp_path, "SOFTWARE ALTERED", "ENVIRONMENT ALTERED")
    (startup,) = [r for r in rows if r[1] == "startup"]
    software = json.loads(startup[3])["software"]
    assert software["altered"] == 1 and software["alarm"] is True
    assert "changed display/theme.py" in software["named"]
    (environment,) = [json.loads(r[3]) for r in rows if r[1] == "environment"]
    assert environment["named"] == [f"changed {target / 'display' / 'theme.py'}"]
    # the dealer screen, as it stood after the start-up: an alarm, the next step a
    # supervisor's Unblock deck
    alarm = _dealer_alarm(tmp_path / "journal.sqlite3", startup[0])
    assert "Software altered: files that differ from the build: 1" in alarm, alarm
    assert "call a technician" in alarm, alarm


def _held_until_unblocked(target: Path, folder: Path, *alarms: str) -> list[tuple]:
    """Run the daemon from ``target`` until READY and each of ``alarms`` is logged; show
    that No more bets is refused until a supervisor's Unblock deck, then taken. Returns the
    journal's (seq, kind, actor, body) rows."""
    from controller.game.auth import DEMO_PINS, hash_pin

    journal = folder / "journal.sqlite3"
    config = folder / "table.toml"
    config.write_text('[table]\nid = "ID-1"\nseats = 2\n'
                      f'[journal]\npath = "{journal}"\n'
                      f'[roles]\nsupervisor = "{hash_pin(DEMO_PINS["supervisor"])}"\n')
    d = _Daemon(target, "--config", str(config), "--shoe", "sim://?dialect=native",
                "--headless")
    try:
        d.wait_for("READY")
        for alarm in alarms:  # before READY (start-up's) or after it (the environment's)
            d.cursor = 0
            d.wait_for(alarm)
        d.send("place_bet", seat=1, bet="ante", amount=100)
        d.send("no_more_bets")
        refused = d.wait_for("control: refused no_more_bets")
        assert "blocked" in refused
        d.send("unblock_deck", reason="technician called", pin=DEMO_PINS["supervisor"])
        d.wait_for("control: unblock_deck")
        d.send("no_more_bets")
        d.wait_for("control: no_more_bets")
    finally:
        assert d.stop() == 0
    assert not [line for line in d.lines if "control: refused no_more_bets" in line][1:]
    j = Journal(journal, readonly=True)
    try:
        rows = [(r.seq, r.kind, r.actor, r.body) for r in j.records()]
        refused = set(j.rejections())
    finally:
        j.close()
    steps = [(k, a, seq in refused) for seq, k, a, _ in rows
             if k in ("unblock_deck", "no_more_bets")]
    assert steps == [("no_more_bets", "dealer", True), ("unblock_deck", "supervisor", False),
                     ("no_more_bets", "dealer", False)]
    return rows


def _dealer_alarm(journal: Path, seq: int) -> str:
    """The alarm text of the dealer screen as it stood after record ``seq``, which waits for
    a supervisor's Unblock deck."""
    from controller.game.replay import views_at
    from display.screenshot import ViewPainter

    dealer, _player = views_at(journal, seq)
    assert dealer.awaiting_supervisor == "unblock_deck" and dealer.deck_blocked
    _image, drawn = ViewPainter((1280, 720), "en").draw("dealer", dealer)
    return " ".join(t.text for t in drawn.texts_in("alarms"))


def _identify(target: Path) -> dict:
    return json.loads(from_install(target, "identify", "--json").stdout)


def test_one_digest_for_the_environment_the_same_until_a_file_changes(install, tmp_path):
    """Every distribution on the module search path is checked, each file its installer
    listed; the digest is the same run after run and for a copy of the install, and
    another when a file changes, even where the record beside it was changed to match:
    a ``.pth`` file listed in the record is no longer unknown, the digest still tells."""
    import site

    first = _identify(install)
    env = first["environment"]
    again = _identify(install)["environment"]
    assert first["ok"] and env["ok"] and {**again, "seconds": 0} == {**env, "seconds": 0}
    # what the installers recorded: this install's and the environment's distributions
    records = [r for folder in (install, *map(Path, site.getsitepackages()))
               for r in folder.glob("*.dist-info/RECORD")]
    rows = [line.split(",") for r in records for line in r.read_text().splitlines() if line]
    assert env["distributions"] == len(records) and env["files"] == len(rows)
    assert env["hashed"] == len([row for row in rows if row[1]]) > 1000
    assert os.path.realpath(sys.executable) in env["interpreter"]
    assert any(p.endswith(os.sep + "site.py") for p in env["interpreter"])
    target = _copy(install, tmp_path)
    assert _identify(target)["environment"]["sha256"] == env["sha256"]
    # the installed script, one byte more: named, another digest
    (script,) = (p for p in target.parents[2].glob("bin/threecard"))
    original = script.read_bytes()
    script.write_bytes(original + b"\n")
    changed = _identify(target)
    assert changed["environment"]["changed"] == [str(script)]
    assert not changed["ok"] and changed["environment"]["sha256"] != env["sha256"]
    script.write_bytes(original)
    # a .pth file, and its line in the record: nothing named, another digest
    hook = target / "zz-hook.pth"
    hook.write_bytes(b"import os\n")
    record = next(target.glob("threecard_table-*.dist-info/RECORD"))
    digest = base64.urlsafe_b64encode(hashlib.sha256(hook.read_bytes()).digest()).rstrip(b"=")
    with record.open("a") as f:
        f.write(f"zz-hook.pth,sha256={digest.decode()},{hook.stat().st_size}\n")
    owned = _identify(target)
    assert owned["ok"] and owned["pth"] == []
    assert owned["environment"]["sha256"] not in (env["sha256"],
                                                  changed["environment"]["sha256"])


def test_a_pth_file_dropped_in_holds_the_deck_until_a_supervisor_acknowledges(install,
                                                                             tmp_path):
    """``identify`` names a ``.pth`` file no distribution owns and exits 1; the daemon run
    from that install checks the environment once READY, journals its digest (the one
    ``identify`` prints) and holds the deck (No more bets refused) until a supervisor
    acknowledges with Unblock deck; the dealer screen says why."""
    target = _copy(install, tmp_path)
    hook = target / "zz-hook.pth"
    hook.write_text("import os\n")
    run = from_install(target, "identify")
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"pth {hook.resolve()}" in " ".join(run.stdout.split())
    want = _identify(target)["environment"]["sha256"]
    rows = _held_until_unblocked(target, tmp_path, "ENVIRONMENT ALTERED")
    kinds = [k for _, k, _, _ in rows]
    assert kinds.index("startup") < kinds.index("environment") < kinds.index("no_more_bets")
    (seq, _, actor, body) = next(r for r in rows if r[1] == "environment")
    record = json.loads(body)
    assert actor == "system" and record["sha256"] == want and record["alarm"] is True
    assert record["startup"] == 1 and record["named"] == [f"pth {hook.resolve()}"]
    alarm = _dealer_alarm(tmp_path / "journal.sqlite3", seq)
    assert "Unknown start-up code or altered files beside the software: 1" in alarm, alarm
    assert "call a technician" in alarm, alarm


def test_a_folder_that_cannot_be_read_is_named_in_one_line(tmp_path, monkeypatch, capsys):
    """A folder on the module search path that cannot be listed (an unreadable user site
    folder), or not even looked at (one inside an unreadable ``~/.local``), is named, with
    why, in one line (and in --json): never a traceback, in ``identify`` or at start-up."""
    import argparse

    from controller import identity

    locked = tmp_path / "locked"
    hidden = tmp_path / "home" / ".local"  # as if mode 0: nothing below it can be seen
    user_site = hidden / "lib" / "site-packages"
    user_site.mkdir(parents=True)
    locked.mkdir()
    monkeypatch.syspath_prepend(str(locked))
    monkeypatch.syspath_prepend(str(user_site))
    listing, looking = os.scandir, os.stat

    def denied(path) -> bool:
        path = os.path.abspath(os.fspath(path))
        return path == str(locked) or path.startswith(f"{hidden}{os.sep}")

    def scandir(path="."):
        if denied(path):
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    def stat(path, *args, **kw):
        if isinstance(path, (str, os.PathLike)) and os.path.abspath(path).startswith(
                f"{hidden}{os.sep}"):
            raise PermissionError(13, "Permission denied", str(path))
        return looking(path, *args, **kw)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)
    assert identity.startup_identity()["version"]  # the daemon's start-up goes on
    identity.run(argparse.Namespace(json=False))
    out = capsys.readouterr()
    named = sorted(line.strip() for line in out.out.splitlines()
                   if str(tmp_path) in line)
    assert named == sorted(f"not read (Permission denied): {folder}"
                           for folder in (locked, user_site))
    assert "Traceback" not in out.out + out.err
    identity.run(argparse.Namespace(json=True))
    got = json.loads(capsys.readouterr().out)
    assert sorted(got["environment"]["unread"], key=lambda u: u["folder"]) == sorted(
        ({"folder": str(f), "why": "Permission denied"} for f in (locked, user_site)),
        key=lambda u: u["folder"])


def test_a_folder_of_the_software_that_cannot_be_read_is_one_line_and_exit_1(install,
                                                                          tmp_path):
    """The installed package's own folder unreadable: its files cannot be checked; said in
    one line, the exit status 1, never a traceback."""
    prefix = modes_bind()
    target = _copy(install, tmp_path)
    locked = target / "display" / "fonts"  # identify does not need it to run
    locked.chmod(0)
    try:
        run = from_install(target, "identify", prefix=prefix)
    finally:
        locked.chmod(0o755)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert run.stderr.splitlines() == [
        f"threecard identify: {locked} cannot be read (Permission denied): the software "
        "there cannot be checked"]
    assert "identity: sha256" not in run.stdout  # no identity claimed for what was not read


def test_the_daemons_check_reads_again_only_what_changed_and_still_finds_a_change(install,
                                                                                  tmp_path):
    """The daemon keeps its hashes in the state folder: the next check reads only the files
    whose inode, size or times moved, and gives the digest ``identify`` gives; a file
    written in place, its size and modification time put back, is still read again (its
    change time moved)."""
    target = _copy(install, tmp_path)
    known = tmp_path / "state" / "environment-hashes.json"
    code = ("import json, sys; from pathlib import Path; "
            "from controller.environment import check_environment; "
            "e = check_environment('', known=Path(sys.argv[1])); "
            "print(json.dumps([e.sha256, e.named(), e.read]))")

    def daemons_check() -> tuple[str, list[str], int]:
        p = subprocess.run([sys.executable, "-P", "-c", code, str(known)], capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(target)},
                           cwd=target.parent, timeout=120)
        assert p.returncode == 0, p.stderr
        return tuple(json.loads(p.stdout))

    first, again = daemons_check(), daemons_check()
    assert first[:2] == again[:2] and first[1] == [] and known.is_file()
    assert again[2] == 0 < first[2]                             # no file read again
    script = next(target.parents[2].glob("bin/threecard"))
    st, original = script.stat(), script.read_bytes()
    script.write_bytes(original.replace(b"main", b"mian", 1))  # same size
    os.utime(script, ns=(st.st_atime_ns, st.st_mtime_ns))      # same modification time
    changed = daemons_check()
    assert changed[0] != first[0] and any(str(script) in n for n in changed[1]), changed
    assert changed[2] == 1                                      # that one file only


@pytest.mark.parametrize("kind", ["pipe", "deep", "folder", "list", "bytes", "huge"])
def test_a_hashes_file_that_is_not_one_reads_as_nothing_known(tmp_path, kind, monkeypatch):
    """Whatever stands where the daemon keeps its hashes (a named pipe, JSON nested past the
    decoder's depth, a folder, another JSON value, bytes, a JSON object over the size read)
    reads at once as nothing known, never waits and never raises; the next save replaces
    it, and beside a folder it cannot replace leaves no copy."""
    from controller import environment_places
    from controller.environment_places import _load_known, _save_known

    path = tmp_path / "environment-hashes.json"
    if kind == "huge":  # a sound object, one byte over the limit (made small for the test)
        path.write_text(json.dumps({"a": "x" * 100}))
        monkeypatch.setattr(environment_places, "KNOWN_MOST_BYTES", path.stat().st_size - 1)
    elif kind == "pipe":
        os.mkfifo(path)
    elif kind == "deep":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "folder":
        path.mkdir()
    elif kind == "list":
        path.write_text("[1, 2]")
    else:
        path.write_bytes(b"\xff\x00 not json")
    assert _load_known(path) == {}
    _save_known(path, {"a": [1]})
    assert [p.name for p in tmp_path.iterdir()] == ["environment-hashes.json"]
    assert _load_known(path) == ({} if kind == "folder" else {"a": [1]})


def test_each_record_reads_as_importlib_metadata_reads_it_and_a_bad_row_is_named(tmp_path):
    """The check reads each distribution's ``RECORD`` itself (no path object per file):
    every installed distribution, and odd paths, give the files, hash names and values
    ``dist.files`` gives; what the library cannot read is named, never raised."""
    from importlib import metadata

    from controller.environment import _Check
    from controller.environment_places import _distributions, _record

    checked = 0
    for dist, _, _ in _distributions():
        files = dist.files
        want = None if files is None else [
            (str(f), f.hash.mode if f.hash else None, f.hash.value if f.hash else "")
            for f in files]
        assert _record(dist) == want, dist.metadata["Name"]
        checked += len(want or ())
    assert checked > 1000

    def odd(record: str) -> tuple:
        info = tmp_path / "odd-1.0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: odd\nVersion: 1.0\n")
        (info / "RECORD").write_text(record)
        dist = metadata.PathDistribution(info)
        check = _Check(None)
        check._distribution(dist, str(tmp_path), "odd==1.0")  # noqa: SLF001
        return dist, check.altered

    # paths the library tidies, a hash without its name, a quoted comma: read as it reads them
    dist, altered = odd('./odd.py,sha256=abc,3\npkg//a.py,abc,\n"b,c.py",=x,1\npkg/,,\n')
    assert _record(dist) == [(str(f), f.hash.mode if f.hash else None,
                              f.hash.value if f.hash else "") for f in dist.files]
    assert [w for w, _ in altered] == ["missing", "unreadable", "missing", "missing"]
    # what the library cannot read is named unreadable, an empty list unrecorded, never raised
    for record, why in (("odd.py,sha256=abc,3,extra\n", "a RECORD row of 4 fields: odd.py"),
                        ("odd.py,sha256=abc,3\n\n", "a RECORD row of 0 fields"),
                        ("odd.py,sha256=abc,three\n", "invalid literal for int()")):
        _, altered = odd(record)
        assert len(altered) == 1 and altered[0][0] == "unreadable" and why in altered[0][1]
    assert odd("")[1] == [("unrecorded", f"{tmp_path} (odd==1.0)")]
