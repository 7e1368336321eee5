"""Input scripts: each line read through its declaration, a bad one refused at load.

A script becomes real pygame events that the real dealer screen handles: a played step
reaches the table's inbox as the command its keys or touch name.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pygame
import pytest

from controller.game import inputs as C
from display.app import DisplayApp
from display.dealer import DealerScreen
from display.input_script import InputScriptError, ScriptPlayer, load, parse
from display.scenarios import build
from display.theme import FontBook


def test_every_step_kind_reads(tmp_path):
    script = parse("\n".join([
        "# a comment, then a blank line", "",
        '{"key": "F9"}', '{"keys": "1 F2 a Shift+B enter Esc PageUp"}',
        '{"tap": [0.5, 1]}', '{"text": "2468 Qh"}', '{"wait": 0.5}',
        '{"wait": 30, "until": "deciding"}', '{"screenshot": "shot.png"}',
        '{"screenshot": "p.png", "screen": "player"}']), tmp_path / "s.jsonl")
    kinds = [(a.line, a.kind) for a in script.actions]
    assert kinds == [(3, "keys"), (4, "keys"), (5, "tap"), (6, "keys"), (7, "wait"),
                     (8, "wait"), (9, "screenshot"), (10, "screenshot")]
    keys = script.actions[1].presses
    assert [(p.key, p.shift) for p in keys] == [
        ("K_1", False), ("K_F2", False), ("K_a", False), ("K_b", True), ("K_RETURN", False),
        ("K_ESCAPE", False), ("K_PAGEUP", False)]
    assert [(p.key, p.shift) for p in script.actions[3].presses][-3:] == [
        ("K_SPACE", False), ("K_q", True), ("K_h", False)]
    assert script.actions[5].until == "deciding" and script.actions[5].seconds == 30
    assert script.actions[6].path == tmp_path / "shot.png"
    assert script.actions[7].screen == "player"


@pytest.mark.parametrize("line, message", [
    ('{"key": "F13"}', r"unknown key 'F13' .* - at `\$.key`"),
    ('{"keys": "1 Ctrl+A"}', r"unknown key 'Ctrl\+A' .* - at `\$.keys`"),
    ('{"tap": [0.5, 1.5]}', r"Expected `float` <= 1.0 - at `\$.tap\[1\]`"),
    ('{"tap": [true, 0.5]}', r"Expected `float`, got `bool` - at `\$.tap\[0\]`"),
    ('{"tap": [0.5]}', r"Expected `array` of length 2 - at `\$.tap`"),
    ('{"text": "24-68"}', r"no key types '-' .* - at `\$.text`"),
    ('{"wait": -1}', r"Expected `float` >= 0.0 - at `\$.wait`"),
    ('{"wait": 1, "until": "dancing"}', r"Invalid enum value 'dancing' - at `\$.until`"),
    ('{"key": "F9", "until": "void"}', r"`until` goes with `wait` only - at `\$.until`"),
    ('{"key": "F9", "tap": [0, 0]}', r"one action a line: .* \(this line has key, tap\)"),
    ('{"kye": "F9"}', r"Object contains unknown field `kye`"),
    ('{}', r"one action a line"),
    ('{"screenshot": "shot.jpg"}', r"'shot.jpg' does not end in .png - at `\$.screenshot`"),
    ('{"screenshot": "no/such/folder/s.png"}',
     r"folder .*/no/such/folder does not exist - at `\$.screenshot`"),
    ('{"taps": []}', r"Expected `array` of length >= 1 - at `\$.taps`"),
    ('{"taps": [[0.5, 2]]}', r"Expected `float` <= 1.0 - at `\$.taps\[0\]\[1\]`"),
    ('{"taps": [[0.5, 0.5]], "gap_ms": 10001}', r"Expected `int` <= 10000 - at `\$.gap_ms`"),
    ('{"tap": [0.5, 0.5], "gap_ms": 70}', r"`gap_ms` goes with `taps` only - at `\$.gap_ms`"),
    ('{"key": "F9", "texts": true}', r"`texts` goes with `screenshot` only - at `\$.texts`"),
    ('["key", "F9"]', r"Expected `object`, got `array`"),
    ('{"key": "F9"', r"Input data was truncated"),
])
def test_a_bad_line_is_refused_naming_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "script.jsonl"
    path.write_text('{"key": "F7"}\n# fine so far\n' + line + '\n{"key": "Esc"}\n')
    with pytest.raises(InputScriptError, match=rf"^{path}:3: " + message):
        load(path)


def test_a_missing_script_is_named(tmp_path):
    with pytest.raises(InputScriptError, match="no such file"):
        load(tmp_path / "none.jsonl")


def test_threecard_run_refuses_a_bad_script_before_anything_runs(tmp_path):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"keys": "N"}\n{"tap": [0.2, 2]}\n')
    journal = tmp_path / "journal.sqlite3"
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless",
                        "--shoe", "sim://?dialect=native", "--journal", str(journal),
                        "--input-script", str(script)], capture_output=True, text=True,
                       timeout=60, env={"SDL_VIDEODRIVER": "dummy", "PATH": ""})
    assert p.returncode == 2
    assert f"argument --input-script: {script}:2: Expected `float` <= 1.0 - at `$.tap[1]`" \
        in p.stderr
    assert not journal.exists()


class Table:
    """The daemon's side for the display: views, an inbox, and a fence on it."""

    def __init__(self, scenario: str) -> None:
        sc = build(scenario)
        self.views = (sc.dealer, sc.player)
        self.inbox: queue.Queue = queue.Queue()
        self.fences: list[threading.Event] = []

    def fence(self) -> threading.Event:
        ev = threading.Event()
        self.fences.append(ev)
        return ev

    def applied(self) -> list:
        """What reached the inbox; every fence asked for is set (all of it applied), and
        the views move on when something was."""
        out = []
        while not self.inbox.empty():
            out.append(self.inbox.get_nowait())
        if out:
            self.views = tuple(replace(v, version=v.version + 1) for v in self.views)
        for f in self.fences:
            f.set()
        return out


def play(tmp_path: Path, scenario: str, lines: list[str], frames: int = 40):
    pygame.display.init()
    pygame.event.clear()
    table = Table(scenario)
    script = parse("\n".join(lines), tmp_path / "s.jsonl")
    app = DisplayApp(lambda: table.views, table.inbox, headless=True,
                     sizes={"dealer": (1280, 800), "player": (960, 540)},
                     input_script=script, fence=table.fence)
    got = []
    try:
        for i in range(frames):
            app.step(now=i * 0.1, wait=False)
            got += table.applied()
    finally:
        app.close()
        pygame.event.clear()
    return app, got


def test_a_script_is_played_as_real_events_in_order(tmp_path):
    app, got = play(tmp_path, "betting", [
        '{"keys": "2 F2 A"}', '{"key": "Shift+B"}', '{"wait": 0.3}',
        '{"tap": [0.5, 0.5]}', '{"screenshot": "dealer.png"}',
        '{"screenshot": "player.png", "screen": "player", "texts": true}'])
    assert app.script.done and app.script.failed is None
    # seat 2 selected, the second chip, an Ante; then Rebet every seat
    assert got[:2] == [C.PlaceBet(seat=2, bet="ante", amount=500), C.Rebet(seat=0)]
    for name, size in (("dealer.png", (1280, 800)), ("player.png", (960, 540))):
        assert pygame.image.load(str(tmp_path / name)).get_size() == size
    # the player screen's texts beside its picture (the dealer's were not asked for)
    assert not (tmp_path / "dealer.jsonl").exists()
    texts = [json.loads(x) for x in (tmp_path / "player.jsonl").read_text().splitlines()]
    assert all(set(t) == {"text", "role", "size", "cut"} for t in texts)
    assert {"text": "Seat 2", "role": "seat.2.label"} in [
        {k: t[k] for k in ("text", "role")} for t in texts]


def test_a_wait_until_a_state_never_reached_stops_the_script(tmp_path, caplog):
    app, got = play(tmp_path, "betting", ['{"wait": 0.5, "until": "deciding"}',
                                          '{"key": "N"}'])
    assert app.script.done and "did not reach 'deciding' in 0.5 s (it is 'betting')" in \
        app.script.failed
    assert got == []                                   # the step after it never played
    assert "the script stops" in caplog.text


def test_the_next_step_waits_for_the_table(tmp_path):
    pygame.display.init()
    pygame.event.clear()
    table = Table("betting")
    player = ScriptPlayer(parse('{"key": "N"}\n{"key": "G"}', tmp_path / "s.jsonl"),
                          table.fence)
    player.tick(0.0, "betting")
    assert not player._posted                          # nothing before the first frame
    player.drawn({})
    player.tick(0.0, "betting")
    player.flushed()
    assert len(table.fences) == 1
    for i in range(5):                                 # the fence is not set: G waits
        player.drawn({})
        player.tick(i, "betting")
    assert player._i == 1 and not player.done
    table.fences[0].set()
    for i in range(3):
        player.tick(i, "betting")
        player.drawn({})
    assert player.done
    pygame.event.clear()


def test_raw_taps_are_posted_without_waiting_for_the_table(tmp_path):
    """Two touches on Settle 70 ms apart: the second is played though the table has not
    applied the first (its fence is never set), as a finger that taps twice; the screen
    takes it as a bounce, so Settle is posted once."""
    pygame.display.init()
    pygame.event.clear()
    table = Table("reveal-qualify")
    size = (800, 480)
    screen = DealerScreen(FontBook(), "en")
    settle = screen.draw(pygame.Surface(size), table.views[0]).button("primary")
    assert settle.action == C.Settle()
    x, y = settle.rect.centerx / size[0], settle.rect.centery / size[1]
    script = parse(f'{{"taps": [[{x}, {y}], [{x}, {y}]], "gap_ms": 70}}\n{{"key": "A"}}',
                   tmp_path / "s.jsonl")
    assert script.actions[0].kind == "taps" and script.actions[0].seconds == 0.07
    app = DisplayApp(lambda: table.views, table.inbox, headless=True,
                     sizes={"dealer": size, "player": (960, 540)}, input_script=script,
                     fence=table.fence)
    posted = []
    try:
        for i in range(24):
            app.step(now=1.0 + i * 0.05, wait=False)
            while not table.inbox.empty():  # taken, never applied: no fence is set
                posted.append((round(i * 0.05, 2), table.inbox.get_nowait()))
    finally:
        app.close()
        pygame.event.clear()
    assert [cmd for _, cmd in posted] == [C.Settle()]
    assert app.script._i == 1 and not app.script.done  # both touches played; the next
    # step waits for the table
