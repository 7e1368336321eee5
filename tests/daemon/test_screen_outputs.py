"""The screens follow their outputs: the dealer's is never covered, and READY waits for it.

The real daemon (``threecard run``) on the shipped configuration (fullscreen, dealer on
output 0, player on output 1), under SDL's dummy video driver. The outputs SDL reports
are this test's own: a ``sitecustomize`` module on ``PYTHONPATH`` wraps
``pygame.display.get_desktop_sizes`` and ``get_num_displays`` in every Python process
the daemon starts (its own, and the separate check of the outputs), and reads how many
outputs there are from a file the test rewrites. The module is installed as a
distribution of the test's own (a RECORD with its hash), so the environment check (R18)
finds it owned and raises no alarm.
"""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import time
from pathlib import Path

import pytest
from dealer_spots import primary_spot

EXAMPLE = Path(__file__).resolve().parents[2] / "systemd" / "table.toml.example"

SEAM = '''"""Outputs for the tests: as many as the file FAKE_OUTPUTS_FILE says."""
import os

_FILE = os.environ.get("FAKE_OUTPUTS_FILE")
if _FILE:
    import pygame.display as _display

    _real = _display.get_desktop_sizes

    def get_desktop_sizes():
        with open(_FILE) as f:
            n = int(f.read())
        return (list(_real())[:1] + [(1920, 1080)] * n)[:n]

    def get_num_displays():
        return len(get_desktop_sizes())

    _display.get_desktop_sizes = get_desktop_sizes
    _display.get_num_displays = get_num_displays
'''


@pytest.fixture(scope="module")
def seam(tmp_path_factory) -> Path:
    """The folder holding the test's ``sitecustomize``."""
    folder = tmp_path_factory.mktemp("seam")
    (folder / "sitecustomize.py").write_text(SEAM)
    # installed as a distribution of its own (its RECORD lists the module with its hash):
    # start-up code a distribution owns raises no environment alarm to hold the deck
    digest = base64.urlsafe_b64encode(hashlib.sha256(SEAM.encode()).digest()).rstrip(b"=")
    info = folder / "threecard_test_outputs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: threecard-test-outputs\n"
                                   "Version: 1.0\n")
    (info / "RECORD").write_text(
        f"sitecustomize.py,sha256={digest.decode()},{len(SEAM.encode())}\n"
        f"{info.name}/METADATA,,\n{info.name}/RECORD,,\n")
    return folder


class Outputs:
    """The outputs the daemon sees: ``set(n)`` rewrites the file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def set(self, n: int) -> None:
        tmp = self.path.with_suffix(".new")
        tmp.write_text(str(n))
        tmp.replace(self.path)  # read whole, never half written


def shipped(tmp_path: Path, shoe_url: str, **display: object) -> Path:
    """The example configuration: journal in tmp_path, the shoe given, debug log."""
    text = EXAMPLE.read_text()
    text = re.sub(r'(?m)^url = ".*?"', f'url = "{shoe_url}"', text)
    text = re.sub(r'(?m)^path = ".*?"', f'path = "{tmp_path / "journal.sqlite3"}"', text)
    text = re.sub(r'(?m)^level = ".*?"', 'level = "debug"', text)
    for key, value in display.items():
        text, n = re.subn(rf"(?m)^{key} = \S+", f"{key} = {value}", text)
        assert n == 1, key
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def start(daemons, seam: Path, tmp_path: Path, args: list[str], outputs: int,
          **env: str):
    """The daemon with the seam and ``outputs`` outputs; its notify socket."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.settimeout(60)
    fake = Outputs(tmp_path / "outputs")
    fake.set(outputs)
    d = daemons(args, env={"PYTHONPATH": str(seam), "FAKE_OUTPUTS_FILE": str(fake.path),
                           "NOTIFY_SOCKET": str(tmp_path / "notify.sock"),
                           "PYGAME_HIDE_SUPPORT_PROMPT": "1", **env})
    return d, sock, fake


def status_until(sock: socket.socket, test) -> str:
    """The STATUS of the first datagram whose STATUS passes ``test``."""
    while True:
        fields = sock.recv(4096).decode().split("\n")
        status = next((f[7:] for f in fields if f.startswith("STATUS=")), None)
        if status is not None and test(status):
            return status


def test_the_player_screen_follows_its_output_and_the_dealer_screen_stays_usable(
        daemons, seam, tmp_path, scripted_shoe, journal_events):
    """The players' TV off at boot, turned on, turned off again: the dealer screen takes
    a key and a tap in each phase (the table journals what they did); the player screen
    opens when its output comes and closes when it goes; STATUS says so each time, and the
    journal too: lost at READY, back, lost again (R20)."""
    shoe = scripted_shoe("Ah Kd Qh 9c 7d 2c")                # seat 1 and dealer, x3
    x, y = primary_spot((1024, 768))                         # the dummy driver's output
    script = tmp_path / "shift.jsonl"
    script.write_text("\n".join([
        "# player output absent: a bet by keys, No more bets by a tap",
        '{"keys": "1 F1 A"}', '{"screenshot": "no-player.png"}', f'{{"tap": [{x}, {y}]}}',
        '{"wait": 120, "until": "deciding"}',
        "# player screen open: Play by key, Reveal by a tap",
        '{"key": "Y"}', f'{{"tap": [{x}, {y}]}}',
        '{"wait": 120, "until": "settled"}',
        "# player output gone again: all paid by key, Next round by a tap, a bet by keys",
        '{"key": "A"}', f'{{"tap": [{x}, {y}]}}', '{"keys": "1 A"}']) + "\n")
    config = shipped(tmp_path, shoe.url)
    d, sock, outputs = start(daemons, seam, tmp_path,
                             ["--config", str(config), "--control-stdin",
                              "--input-script", str(script)], outputs=1)
    d.wait_for(r"INFO +dealer screen on output 0, 1024x768 ")
    d.wait_for(r"WARNING +player screen waits for its output: output 1 not found \(1 found\)")
    assert "; player screen missing (output 1 not found (1 found))" in status_until(
        sock, lambda s: "ready" in s)
    d.wait_for(r"round 1 no_more_bets", timeout=120)          # the first key and tap

    outputs.set(2)
    d.wait_for(r"INFO +player screen on output 1, ")
    status_until(sock, lambda s: "running" in s and "player screen" not in s)
    shoe.deal(6)
    d.wait_for(r"round 1 reveal", timeout=60)                 # the second key and tap

    outputs.set(1)
    d.wait_for(r"WARNING +player screen closed: output 1 not found \(1 found\)")
    status_until(sock, lambda s: "; player screen missing (output 1 not found" in s)
    d.send("settle")
    d.wait_for(r"input script .*shift.jsonl: done, 10 steps played", timeout=60)
    assert d.stop() == 0

    log = "\n".join(d.lines)
    assert len(re.findall(r"dealer screen on output 0", log)) == 1   # never closed
    assert "dealer screen closed" not in log and "Traceback" not in log
    assert "script stops" not in log
    order = [log.index(s) for s in (
        "input script line 2:",                 # a bet (keys)
        "input script line 4:",                 # No more bets (a tap)
        "player screen on output 1",
        "input script line 7:",                 # Play (a key)
        "input script line 8:",                 # Reveal (a tap)
        "player screen closed",
        "input script line 11:",                # All paid (a key)
        "input script line 12:",                # Next round (a tap)
        "input script line 13:")]               # a bet (keys)
    assert order == sorted(order)
    journal = journal_events(tmp_path / "journal.sqlite3")
    screens = [body for kind, actor, body in journal if kind == "device" and actor == "system"]
    assert [(b["device"], b["state"], b["detail"]) for b in screens] == [
        ("player screen", "lost", "output 1 not found (1 found)"),
        ("player screen", "back", "open again"),
        ("player screen", "lost", "output 1 not found (1 found)")]
    assert screens[1]["away_ms"] > 0
    dealer = [(kind, body) for kind, actor, body in journal if actor == "dealer"]
    assert dealer == [
        ("place_bet", {"seat": 1, "bet": "ante", "amount": 100}),
        ("no_more_bets", {}),
        ("decide", {"seat": 1, "decision": "play"}),
        ("reveal", {}),
        ("settle", {}),                                       # the control channel's
        ("next_round", {}),
        ("place_bet", {"seat": 1, "bet": "ante", "amount": 100})]


@pytest.mark.parametrize("why, env, outputs", [
    ("SDL video: nodriver not available", {"SDL_VIDEODRIVER": "nodriver"}, 1),
    (r"output 0 not found \(0 found\)", {}, 0)])
def test_no_dealer_screen_no_ready_and_one_line_naming_it(daemons, seam, tmp_path, why, env,
                                                         outputs):
    """SDL's video does not start (as kmsdrm without a DRM device), or no output is there:
    no READY, and the daemon exits with status 1 once ``dealer_wait`` is over, with one
    line that names the dealer screen and why."""
    config = shipped(tmp_path, "sim://", dealer_wait=2)
    began = time.monotonic()
    d, sock, _ = start(daemons, seam, tmp_path, ["--config", str(config)], outputs, **env)
    assert d.proc.wait(60) == 1
    took = time.monotonic() - began
    d.stop()
    fatal = [line for line in d.lines if line.startswith("threecard run: ")]
    assert len(fatal) == 1
    assert re.fullmatch(rf"threecard run: dealer screen did not open in 2 s: {why}", fatal[0])
    assert 2 <= took < 30
    sock.settimeout(0)
    said = []
    while True:
        try:
            said += sock.recv(4096).decode().split("\n")
        except BlockingIOError:
            break
    assert "READY=1" not in said and "STOPPING=1" in said
    assert not [line for line in d.lines if "READY" in line or "Traceback" in line]


SDL_START = """
import sys
if sys.argv[1] == "quiet":
    from controller.screens import quiet_runtime_dir
    quiet_runtime_dir()
import os
import pygame
pygame.display.init()
print(os.environ.get("XDG_RUNTIME_DIR", ""))
"""


def test_sdl_says_nothing_of_a_runtime_folder_that_is_not_set():
    """With no driver named SDL tries Wayland, whose library complains on standard error
    (beside the table's log) when ``XDG_RUNTIME_DIR`` is unset; the table's private
    folder keeps it quiet, and is gone at exit."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_RUNTIME_DIR", "SDL_VIDEODRIVER", "WAYLAND_DISPLAY")}
    env.update(DISPLAY="", PYGAME_HIDE_SUPPORT_PROMPT="1")

    def start(how: str) -> tuple[str, str]:
        p = subprocess.run([sys.executable, "-c", SDL_START, how], env=env, text=True,
                           capture_output=True, timeout=60, check=True)
        return p.stdout.strip(), p.stderr

    if "XDG_RUNTIME_DIR" not in start("as is")[1]:
        pytest.skip("this SDL does not try Wayland")
    folder, said = start("quiet")
    assert said == "" and folder.startswith("/")
    assert not Path(folder).exists()


def test_a_runtime_folder_is_made_only_when_none_usable_is_set():
    import shutil

    from controller.screens import quiet_runtime_dir

    for kept in ({"XDG_RUNTIME_DIR": "/run/threecard-table"},
                 {"WAYLAND_DISPLAY": "/run/user/1000/wayland-0"}):
        env = dict(kept)
        assert quiet_runtime_dir(env) is None and env == kept
    for given in ({}, {"XDG_RUNTIME_DIR": ""}, {"XDG_RUNTIME_DIR": "run/user"}):
        made = quiet_runtime_dir(given)
        try:
            assert given["XDG_RUNTIME_DIR"] == made and made.startswith("/")
            assert Path(made).stat().st_mode & 0o777 == 0o700
            assert len(made) + len("/wayland-0") < 108     # a socket path there fits
        finally:
            shutil.rmtree(made)
