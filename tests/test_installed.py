"""In CI the tests run against the installed wheel, never against the source tree.

CI (``tests/run``) builds a wheel, installs it in a fresh virtual environment and runs
``python -P -m pytest <repo>/tests`` from a folder outside the repository. These tests make
sure that is what happened: if the package came from the source tree (an editable install,
the current folder on ``sys.path``), or if the wheel left out a subpackage or a data file,
CI fails here rather than passing on code the casino never installs.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "drivers", "display", "simulators", "floor")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


pytestmark = pytest.mark.skipif(not _in_ci(), reason="CI only: a developer may test the "
                                                     "source tree through an editable install")


def _installed(path: str | Path) -> bool:
    """True when ``path`` is inside a site-packages folder and not inside the repository."""
    p = Path(path).resolve()
    return "site-packages" in p.parts and not p.is_relative_to(REPO)


@pytest.mark.parametrize("name", PACKAGES)
def test_package_is_imported_from_site_packages(name):
    module = importlib.import_module(name)
    assert _installed(module.__file__), f"{name} imported from {module.__file__}"


def test_the_source_tree_is_not_on_sys_path():
    on_path = [p for p in sys.path if p and Path(p).resolve() in (REPO, REPO / "tests")]
    assert on_path == []
    assert not Path.cwd().resolve().is_relative_to(REPO), "tests must run from outside the repo"


def test_child_processes_import_the_installed_package():
    # The daemon and CLI tests start [sys.executable, "-m", "controller.cli", ...] from the
    # current folder: the same interpreter and folder must find the installed package.
    script = ("import importlib\n"
              f"for n in {PACKAGES!r}: print(importlib.import_module(n).__file__)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert len(out) == len(PACKAGES)
    assert [f for f in out if not _installed(f)] == []


@pytest.mark.parametrize("name", PACKAGES)
def test_wheel_holds_every_file_of_the_package(name):
    # Every module, subpackage (drivers.dialects, drivers.transports, ...) and data file
    # (controller/game/profiles, display/fonts) of the source is in the installed package.
    source = REPO / name
    installed = Path(importlib.import_module(name).__file__).parent
    files = [p.relative_to(source) for p in source.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    assert len(files) > 1
    missing = [str(f) for f in files if not (installed / f).is_file()]
    assert missing == []
