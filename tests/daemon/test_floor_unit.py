"""The floor recorder's and the pit page's systemd units: beside the table's, as hardened, their
commands valid."""

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import build_parser

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
UNIT = SYSTEMD / "threecard-floor.service"
WEB = SYSTEMD / "threecard-floor-web.service"
TABLE = SYSTEMD / "threecard-table.service"
ENV = SYSTEMD / "threecard-floor.env.example"
EXE = "/opt/threecard-table/bin/threecard"
analyze = shutil.which("systemd-analyze")
DEVICES = ("DeviceAllow", "PrivateDevices", "ReadWritePaths")
"""Hardening settings of the table's that name what it alone needs (the shoe, screens)."""


def _settings(path: Path) -> list[tuple[str, str]]:
    return _settings_of(path.read_text())


def _hardening(path: Path) -> list[tuple[str, str]]:
    text = path.read_text()
    block = text[text.index("# Hardening"):text.index("[Install]")]
    return [s for s in _settings_of(block) if s[0] not in DEVICES]


def _settings_of(text: str) -> list[tuple[str, str]]:
    return [tuple(line.split("=", 1)) for line in text.splitlines()
            if "=" in line and not line.startswith(("#", " "))]


@pytest.mark.parametrize("unit", [UNIT, WEB], ids=["recorder", "pit page"])
def test_the_recorder_and_the_pit_page_are_hardened_as_the_table(unit):
    assert _hardening(unit) == _hardening(TABLE)
    got = dict(_settings(unit))
    assert got["DevicePolicy"] == "closed" and got["PrivateDevices"] == "yes"
    assert got["User"] == "threecard-floor" and got["ReadWritePaths"] == "/var/lib/threecard-floor"


@pytest.mark.parametrize("unit", [UNIT, WEB], ids=["recorder", "pit page"])
def test_the_recorder_and_the_pit_page_restart_for_as_long_as_it_takes(unit):
    """A store or broker away longer than a start limit allows must not stop them for good:
    the recorder exits when it loses the store, the pit page when it cannot open it."""
    got = dict(_settings(unit))
    assert got["Restart"] == "always" and got["StartLimitIntervalSec"] == "0"
    assert int(got["RestartSec"]) >= 5  # a database restarting is not hammered


def test_its_command_from_the_shipped_environment_file_is_one_the_recorder_takes():
    env = dict(_settings(ENV))
    exec_start = dict(_settings(UNIT))["ExecStart"]
    assert exec_start.startswith(f"{EXE} floor serve ")
    line = (exec_start.replace("${BROKER}", env["BROKER"]).replace("${STORE}", env["STORE"])
            .replace("$FLOOR_OPTIONS", env["FLOOR_OPTIONS"]))
    argv = shlex.split(line)[1:]
    args = build_parser(argv).parse_args(argv)
    assert (args.broker, args.store, args.share, args.username) == (
        env["BROKER"], env["STORE"], "floor", "floor.recorder")


def test_its_user_and_folders_are_made():
    assert "u threecard-floor -:threecard-floor " in (
        SYSTEMD / "threecard-floor.sysusers.conf").read_text()
    made = (SYSTEMD / "threecard-floor.tmpfiles.conf").read_text().splitlines()
    assert "d /var/lib/threecard-floor 0750 threecard-floor threecard-floor -" in made
    assert any(line.startswith("d /etc/threecard-floor ") for line in made)


def test_the_pit_pages_command_from_the_shipped_environment_file_is_one_floor_web_takes():
    env = dict(_settings(ENV))
    exec_start = dict(_settings(WEB))["ExecStart"]
    assert exec_start.startswith(f"{EXE} floor web ")
    argv = shlex.split(exec_start.replace("${STORE}", env["STORE"])
                       .replace("$WEB_OPTIONS", env["WEB_OPTIONS"]))[1:]
    args = build_parser(argv).parse_args(argv)
    assert (args.store, args.config, args.listen) == (
        env["STORE"], "/etc/threecard-floor/floor.toml", "0.0.0.0:8443")
    assert args.cert and args.key and args.metrics_token_file


@pytest.mark.skipif(analyze is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("shipped", [UNIT, WEB], ids=["recorder", "pit page"])
def test_systemd_analyze_verify_passes(tmp_path, shipped):
    env = tmp_path / "floor.env"
    env.write_text(ENV.read_text())
    unit = tmp_path / shipped.name
    unit.write_text(shipped.read_text().replace(EXE, f"{sys.executable} -m controller.cli")
                    .replace("/etc/threecard-floor/floor.env", str(env)))
    p = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
