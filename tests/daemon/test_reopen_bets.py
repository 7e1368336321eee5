"""Through the real daemon, its dealer screen and a simulated shoe: a wrong amount found
after No more bets is corrected by Reopen bets (supervisor PIN) with no void, and a press
the screen drops says so while a bounce stays silent.

The scripts' keys and taps become real pygame events for the real dealer screen; the shoe
is a simulated one on TCP, dealt by the test when the log says the round waits for cards.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pygame
from dealer_spots import primary_spot

from controller.game.auth import DEMO_PINS
from display import theme

SUP = DEMO_PINS["supervisor"]
CARDS = "Ah 7s Qh Kd 7d 5s 9c 2c 3d"  # seat 1, seat 2, dealer; three passes


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                          text=True, timeout=60)


def refused(journal) -> list[str]:
    """Why the table refused the inputs it journaled, in order."""
    db = sqlite3.connect(journal)
    try:
        return [r for (r,) in db.execute("SELECT reason FROM rejections ORDER BY seq")]
    finally:
        db.close()


def amber(path) -> int:
    """How many pixels of the refusal line's colour a screenshot holds."""
    image = pygame.image.load(str(path))
    w, h = image.get_size()
    return sum(image.get_at((x, y))[:3] == theme.AMBER for x in range(0, w, 2)
               for y in range(0, h, 2))


def test_a_wrong_amount_is_corrected_by_reopening_bets_with_no_void(
        daemons, table_config, tmp_path, scripted_shoe, journal_events):
    """Bets, No more bets, Reopen bets (F12, the supervisor's PIN), seat 1's Ante raised,
    No more bets, the deal: settled on the corrected amount. A reopen once the first card
    is dealt is refused with why (control channel); the journal holds no void."""
    script = tmp_path / "reopen.jsonl"
    script.write_text("\n".join([
        '{"keys": "1 F1 A"}', '{"keys": "2 A"}', '{"key": "N"}',
        '{"wait": 30, "until": "no_more_bets"}', '{"screenshot": "offered.png"}',
        '{"key": "F12"}', f'{{"text": "{SUP}"}}', '{"key": "Enter"}',
        '{"wait": 30, "until": "betting"}', '{"screenshot": "reopened.png"}',
        "# the pad's answer time (3 s) runs out: the refusal sent below answers no PIN pad",
        '{"wait": 3.5}', '{"keys": "1 A"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}', '{"keys": "1 Y Y"}', '{"key": "R"}',
        '{"key": "S"}']) + "\n")
    shoe = scripted_shoe(CARDS)
    journal = tmp_path / "journal.sqlite3"
    d = daemons(["--config", str(table_config), "--shoe", shoe.url, "--headless",
                 "--control-stdin", "--input-script", str(script)])
    d.wait_for(r"input script .*reopen.jsonl: 17 steps")
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    d.wait_for(r"round 1 betting", timeout=60)                 # reopened
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    shoe.deal(1)
    d.wait_for(r"round 1: 1 cards dealt")
    d.send("reopen_bets", pin=SUP)
    why = d.wait_for(r"control: refused reopen_bets: (.*)").group(1)
    assert "burns included" in why and "Void the round" in why, why
    shoe.deal(8)
    d.wait_for(r"input script .*reopen.jsonl: done, 17 steps played", timeout=120)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    commands = [(k, a, b) for k, a, b in journal_events(journal) if a not in ("shoe", "system")]
    assert commands == [
        ("place_bet", "dealer", {"seat": 1, "bet": "ante", "amount": 100}),
        ("place_bet", "dealer", {"seat": 2, "bet": "ante", "amount": 100}),
        ("no_more_bets", "dealer", {}),
        ("reopen_bets", "supervisor", {}),                     # its own record, no PIN in it
        ("place_bet", "dealer", {"seat": 1, "bet": "ante", "amount": 100}),
        ("no_more_bets", "dealer", {}),
        ("reopen_bets", "supervisor", {}),                     # after the first card: refused
        ("decide", "dealer", {"seat": 1, "decision": "play"}),
        ("decide", "dealer", {"seat": 2, "decision": "play"}),
        ("reveal", "dealer", {}), ("settle", "dealer", {})]
    (reason,) = refused(journal)
    assert "burns included" in reason
    recall = json.loads(cli("recall", "--journal", str(journal), "--json").stdout)
    (r1,) = recall
    assert r1["status"] == "settled" and r1["round_id"] == 1 and not r1["void_reason"]
    stakes = {s["seat"]: s["bets"]["ante"] for s in r1["seats"]}
    assert stakes == {1: 200, 2: 100}
    check = cli("verify-journal", "--journal", str(journal))
    assert check.returncode == 0, check.stdout + check.stderr
    meters = cli("meters", "--journal", str(journal), "--json")
    assert meters.returncode == 0 and json.loads(meters.stdout)["counters"].get("voids", 0) == 0


def test_a_dropped_second_tap_shows_why_and_a_bounce_stays_silent(
        daemons, table_config, tmp_path, scripted_shoe):
    """800x480: after every decision, two taps on the large button 300 ms apart: the
    first reveals, the second (on Settle, which has just appeared) is dropped and the
    refusal line says why. Then two taps on Settle 70 ms apart: settled once, the second
    a bounce, with no sign."""
    size = (800, 480)
    x, y = primary_spot(size)
    script = tmp_path / "taps.jsonl"
    script.write_text("\n".join([
        '{"keys": "1 F1 A"}', '{"keys": "2 A"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}', '{"keys": "1 Y Y"}',
        f'{{"taps": [[{x}, {y}], [{x}, {y}]], "gap_ms": 300}}',
        '{"screenshot": "dropped.png"}',
        f'{{"taps": [[{x}, {y}], [{x}, {y}]], "gap_ms": 70}}',
        '{"wait": 1}', '{"screenshot": "bounce.png"}']) + "\n")
    shoe = scripted_shoe(CARDS)
    d = daemons(["--config", str(table_config), "--shoe", shoe.url, "--headless",
                 "--dealer-size", "800x480", "--input-script", str(script)])
    d.wait_for(r"input script .*taps.jsonl: 10 steps")
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    shoe.deal(9)
    d.wait_for(r"input script .*taps.jsonl: done, 10 steps played", timeout=120)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    dropped = [x for x in d.lines if "dealer screen: a press on" in x]
    assert len(dropped) == 1 and "primary dropped" in dropped[0], dropped
    assert amber(tmp_path / "dropped.png") > 2000      # the refusal line, over the next step
    assert amber(tmp_path / "bounce.png") == 0
