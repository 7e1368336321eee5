"""The screens' language and size are journaled at start-up; a dispute bundle draws them so.

A real daemon deals two demo rounds with French screens and a 800x480 dealer window; its
start-up record says so, and ``threecard dispute`` (no ``--lang``, no ``--size``) draws
both screens of a round in French at 800x480, its signed manifest saying where the
language and the size came from, and which software played the round. Given on the
command line, they are the command's, and the manifest says that instead. The table's
normal stop (its shoe link told to stop) is no alarm in the shift report.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pygame
from journal_edit import events

from controller.game.events import LINK_STOPPED
from controller.game.shift import shift
from controller.journal import Journal


def cli(*args: object, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run([sys.executable, "-m", "controller.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


def bundle(journal: Path, config: Path, out: Path, *args: str) -> tuple[dict, dict, Path]:
    """Bundle round 1; its manifest, its steps.json, and a dealer picture saved apart."""
    made = cli("dispute", "--journal", journal, "--round", 1, "--config", config,
               "--out", out, *args)
    assert made.returncode == 0, made.stderr
    with zipfile.ZipFile(out) as z:
        manifest = json.loads(z.read("manifest.json"))
        steps = json.loads(z.read("steps.json"))
        png = out.with_suffix(".png")
        png.write_bytes(z.read(steps["steps"][0]["dealer"]))
    checked = cli("dispute", "verify", out, "--public-key", config.with_name("table.pub"))
    assert checked.returncode == 0, checked.stdout
    assert f"screens drawn in {manifest['screens']['language']}" in checked.stdout
    return manifest, steps, png


def test_the_screens_are_journaled_and_a_bundle_draws_them_as_the_players_saw_them(
        tmp_path):
    journal = tmp_path / "journal.sqlite3"
    run = cli("run", "--demo", "--headless", "--rounds", 2, "--journal", journal,
              "--pace-ms", 0, "--lang", "fr", "--dealer-size", "800x480")
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    j = Journal(journal, readonly=True)
    try:
        started = json.loads(j.newest("startup").body)
    finally:
        j.close()
    recorded = {"language": "fr", "dealer_size": "800x480", "fullscreen": False}
    assert started["screens"] == recorded
    config = tmp_path / "table.toml"
    config.write_text("")
    assert cli("keygen", "--config", config).returncode == 0
    manifest, steps, png = bundle(journal, config, tmp_path / "as-recorded.zip")
    assert manifest["screens"] == {
        "language": "fr", "language_from": "recorded by the table at start-up",
        "size": "800x480", "size_from": "recorded by the table at start-up",
        "table": recorded}
    assert (steps["lang"], steps["size"]) == ("fr", [800, 480])
    # the software that played the round, as its start-up record names it
    assert manifest["round_software"] == started["software"] and started["software"]
    assert pygame.image.load(str(png)).get_size() == (800, 480)
    # given on the command line: the command's, and the manifest says so
    manifest, steps, png = bundle(journal, config, tmp_path / "given.zip", "--lang", "uk",
                                  "--size", "640x360")
    assert {k: manifest["screens"][k] for k in ("language", "size", "language_from")} == {
        "language": "uk", "size": "640x360", "language_from": "given on the command line"}
    assert manifest["screens"]["table"] == recorded
    assert pygame.image.load(str(png)).get_size() == (640, 360)
    # the link stopped with the table is journaled, and is no "shoe link lost" alarm
    stopped = [e for e in events(journal) if e[3] == "link" and
               json.loads(e[5]).get("detail") == LINK_STOPPED]
    assert stopped
    alarms = shift(journal).alarms
    assert not [a for a in alarms if a.seq in {e[0] for e in stopped}], alarms


def test_a_table_restarted_in_the_round_with_other_screens_is_drawn_as_it_ran(tmp_path):
    """Round 1 of the scripted evening: French screens at 640x360 until the cards are
    out, then the table restarts with Ukrainian screens at 800x450; each step is drawn
    with the start-up record in force then, and the manifest names the first."""
    from controller.dispute import bundle_files
    from controller.game.inputs import STARTUP, Decide, NextRound
    from controller.game.script import ScriptClock
    from controller.game.table import Table
    from display.scenarios import script

    sc = script()
    journal, clock = tmp_path / "journal.sqlite3", ScriptClock(sc.start_utc)
    before = {"language": "fr", "dealer_size": "640x360", "fullscreen": False}
    after = {"language": "uk", "dealer_size": "800x450", "fullscreen": False}
    table, restarted = Table(journal, sc.config, clock=clock, screens=before), False
    for item in (i for step in sc.steps for i in step.inputs):
        clock.advance(sc.step_seconds)
        if isinstance(item, Decide) and not restarted:
            table.close()
            restarted = True
            table = Table(journal, sc.config, clock=clock, screens=after)
        assert all(v.accepted for v in table.process([item])), item
        if isinstance(item, NextRound):
            break
    table.close()
    files, facts = bundle_files(journal, 1)
    assert facts["screens"]["table"] == before and facts["screens"]["language"] == "fr"
    restart = max(e[0] for e in events(journal) if e[3] == STARTUP)
    steps = json.loads(files["steps.json"])["steps"]
    drawn = [(s["seq"] >= restart, s["lang"], pygame.image.load(
        io.BytesIO(files[s["dealer"]])).get_size(), pygame.image.load(
        io.BytesIO(files[s["player"]])).get_size()) for s in steps]
    assert {d for d in drawn if not d[0]} == {(False, "fr", (640, 360), (640, 360))}, drawn
    assert {d for d in drawn if d[0]} == {(True, "uk", (800, 450), (800, 450))}, drawn
