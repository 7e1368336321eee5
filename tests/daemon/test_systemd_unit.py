"""The systemd unit verifies and is hardened (where systemd-analyze exists)."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "threecard-table.service"
analyze = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(analyze is None, reason="systemd-analyze is not installed")


@pytest.fixture
def unit_copy(tmp_path):
    """The unit with ExecStart pointing at this environment's installed command."""
    exe = Path(sys.executable).with_name("threecard")
    assert exe.exists(), "the package's console script is installed"
    text = UNIT.read_text().replace("/opt/threecard-table/bin/threecard", str(exe))
    path = tmp_path / UNIT.name
    path.write_text(text)
    return path


def test_unit_has_the_promised_settings():
    text = UNIT.read_text()
    for line in ("Type=notify", "WatchdogSec=", "User=threecard", "NoNewPrivileges=yes",
                 "ProtectSystem=strict", "StateDirectory=threecard-table",
                 "ExecStart=/opt/threecard-table/bin/threecard run --config "):
        assert line in text


PREFIX = "/opt/threecard-table"
"""The virtual environment README.md installs the package to (the unit's ExecStart)."""


def _documentation() -> str:
    """The unit's ``Documentation=`` file, relative to :data:`PREFIX`."""
    (url,) = [line.removeprefix("Documentation=") for line in UNIT.read_text().splitlines()
              if line.startswith("Documentation=")]
    assert url.startswith(f"file://{PREFIX}/"), url
    assert f"ExecStart={PREFIX}/bin/threecard " in UNIT.read_text()
    return url.removeprefix(f"file://{PREFIX}/")


def test_the_units_documentation_is_a_file_the_package_installs():
    folder, name = _documentation().rsplit("/", 1)
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert name in [Path(f).name for f in shipped["data-files"][folder]]


@pytest.mark.skipif(not os.environ.get("THREECARD_WHEEL"), reason="CI builds the wheel")
def test_the_wheel_installs_the_units_documentation():
    path = _documentation()
    readme = (ROOT / "README.md").read_bytes()
    with zipfile.ZipFile(os.environ["THREECARD_WHEEL"]) as wheel:
        (name,) = [n for n in wheel.namelist() if n.endswith(f".data/data/{path}")]
        assert wheel.read(name) == readme
    if Path(sys.prefix, "bin", "threecard").exists():  # this environment has it installed
        assert Path(sys.prefix, path).read_bytes() == readme


@needs_analyze
def test_systemd_analyze_verify_passes(unit_copy):
    p = subprocess.run([analyze, "verify", str(unit_copy)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr


@needs_analyze
def test_security_exposure_is_2_or_lower(unit_copy):
    p = subprocess.run([analyze, "security", "--offline=yes", str(unit_copy)],
                       capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d)", p.stdout + p.stderr)
    assert m, p.stdout + p.stderr
    assert float(m.group(1)) <= 2.0


def test_udev_rule_names_the_shoe():
    rules = (ROOT / "systemd" / "99-card-shoe.rules").read_text()
    assert 'SYMLINK+="card-shoe"' in rules and "idVendor" in rules


def test_example_config_validates():
    from controller.game.config import load_config

    cfg = load_config(ROOT / "systemd" / "table.toml.example")
    assert cfg.table_id == "TCP-01" and cfg.profile.name == "live"


def test_the_unit_and_the_readme_say_how_to_allow_a_shoe_on_the_lan():
    """socket:// and rfc2217:// shoes are blocked by IPAddressAllow=localhost: both the
    unit and the README's deploy section say so and give the drop-in that allows one."""
    text = UNIT.read_text()
    assert "IPAddressDeny=any" in text and "IPAddressAllow=localhost" in text
    comment = text[:text.index("IPAddressDeny=any")].rsplit("\n\n", 1)[-1]
    assert "socket://" in comment and "systemctl edit threecard-table" in comment
    assert re.search(r"^#\s+\[Service\]\n#\s+IPAddressAllow=\d+\.\d+\.\d+\.\d+$", comment,
                     re.M), comment
    readme = (ROOT / "README.md").read_text()
    deploy = readme[readme.index("## Deploy on a table"):]
    assert "IPAddressAllow=localhost" in deploy and "socket://" in deploy
    assert re.search(r"\[Service\]\n\s*IPAddressAllow=\d+\.\d+\.\d+\.\d+", deploy)


def test_readme_runs_threecard_from_the_virtual_environment():
    """After `.venv/bin/pip install`, a bare `threecard` is not on PATH: the README says
    once to activate the environment or prefix `.venv/bin/`."""
    readme = (ROOT / "README.md").read_text()
    assert "`. .venv/bin/activate`" in readme and "prefix each with\n`.venv/bin/`" in readme
    first_bare = readme.index("\nthreecard ")                    # the first bare command
    assert readme.index(". .venv/bin/activate") < first_bare
