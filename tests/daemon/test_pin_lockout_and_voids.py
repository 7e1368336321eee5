"""The supervisor's PIN on the dealer screen, through a real daemon and a simulated shoe.

* A PIN lockout stays in sight once the pad is closed: the alarm strip names it and Void
  shows as locked; the right PIN is refused meanwhile; once it is over Void works.
* Next round asks the supervisor's PIN after every kind of void (a supervisor's, a card
  before No more bets, a duplicate card), and a tap on a bet where the pad was, right
  after it closed, places nothing.

The daemon runs headless at 800x480; the screen's buttons are found on the real screen
drawn at that size (``dealer_spots``).
"""

from __future__ import annotations

from collections import Counter

import pygame
from dealer_spots import betting_frame, spot

from controller.game.auth import DEMO_PINS, hash_pin
from display import theme

SIZE = (800, 480)
LOCK_SECONDS = 5
SUP = DEMO_PINS["supervisor"]


def _config(tmp_path, roles: str = "") -> str:
    """A 7-seat table (the size of the screen the spots are read from), journal beside."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "E2E-1"\nrules = "live"\n'
                    f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                    f'[roles]\nsupervisor = "{hash_pin(SUP)}"\n{roles}'
                    '[log]\nlevel = "debug"\n')
    return str(path)


def _colour(png, rect: pygame.Rect) -> tuple[int, int, int]:
    """The colour most of ``rect`` has in the screenshot ``png`` (its fill, not its words)."""
    img = pygame.image.load(str(png))
    inner = rect.inflate(-rect.width // 5, -rect.height // 5)
    seen = Counter(tuple(img.get_at((x, y)))[:3] for x in range(inner.left, inner.right, 2)
                   for y in range(inner.top, inner.bottom, 2))
    return seen.most_common(1)[0][0]


def _run(daemons, tmp_path, lines: list[str], config: str, shoe, name: str):
    script = tmp_path / name
    script.write_text("\n".join(lines) + "\n")
    return daemons(["--config", config, "--shoe", shoe.url, "--headless", "--control-stdin",
                    "--dealer-size", f"{SIZE[0]}x{SIZE[1]}", "--input-script", str(script)])


def _refused(journal) -> list[str]:
    import sqlite3

    db = sqlite3.connect(journal)
    try:
        return [r for (r,) in db.execute("SELECT reason FROM rejections ORDER BY seq")]
    finally:
        db.close()


def test_a_lockout_shows_on_the_main_screen_until_it_is_over(daemons, tmp_path, scripted_shoe,
                                                             journal_events):
    wrong = ['{"text": "1111"}', '{"key": "Enter"}']
    lines = ['{"keys": "1 F1 A"}', '{"key": "N"}', '{"key": "F9"}', '{"key": "1"}', *wrong * 3,
             '{"key": "Esc"}', '{"screenshot": "locked.png"}',
             # the control channel tries the right PIN now (the test), then the lockout ends
             f'{{"wait": {LOCK_SECONDS + 1}}}', '{"screenshot": "unlocked.png"}',
             '{"key": "F9"}', '{"key": "1"}', f'{{"text": "{SUP}"}}', '{"key": "Enter"}',
             '{"wait": 30, "until": "void"}']
    config = _config(tmp_path, f"lockout_after = 3\nlockout_seconds = {LOCK_SECONDS}\n")
    d = _run(daemons, tmp_path, lines, config, scripted_shoe("Ah"), "lock.jsonl")
    d.wait_for(r"input script .*screenshot .*locked\.png", timeout=120)
    d.send("void", reason="supervisor", pin=SUP)  # the right PIN, while PIN entry is locked
    d.wait_for(r"input script .*lock.jsonl: done", timeout=120)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    journal = tmp_path / "journal.sqlite3"
    voids = [(a, b) for k, a, b in journal_events(journal) if k == "void"]
    # three wrong PINs, then the right one refused while locked, then the right one taken
    assert [a for a, _ in voids] == ["dealer!"] * 3 + ["supervisor"] * 2
    refused = _refused(journal)
    assert refused[:3] == ["wrong PIN"] * 3 and len(refused) == 4
    assert refused[3].startswith("PIN entry is locked")
    frame = betting_frame(SIZE)
    strip, void = frame.regions["alarms"], frame.button("tool.void").rect
    warning = theme.SEVERITY_COLORS["warning"][0]
    locked = tmp_path / "locked.png"
    assert _colour(locked, strip) == warning  # the lockout is named in the alarm strip
    # and Void is drawn locked, not as the red button it is once the lockout is over
    assert _colour(locked, void) != theme.RED_DARK
    unlocked = tmp_path / "unlocked.png"
    assert _colour(unlocked, strip) != warning
    assert _colour(unlocked, void) == theme.RED_DARK


def test_next_round_asks_the_pin_after_every_void_and_a_tap_by_habit_bets_nothing(
        daemons, tmp_path, scripted_shoe, journal_events):
    x, y = spot(SIZE, "seat.4.bet.ante")  # where the PIN pad's keys were
    ok = list(spot(SIZE, "pad.key.11", pad=True))
    # all returned, Next round, the PIN; its OK tapped, then twice (250 ms apart: no
    # bounce) where the pad was, without waiting, as a PIN typed out of habit
    pin_then_tap = ['{"key": "A"}', '{"key": "G"}', f'{{"text": "{SUP}"}}',
                    f'{{"taps": [{ok}, [{x}, {y}], [{x}, {y}]], "gap_ms": 250}}',
                    '{"wait": 30, "until": "betting"}']
    lines = ['{"keys": "1 F1 A"}', '{"key": "N"}', '{"key": "F9"}', '{"key": "1"}',
             f'{{"text": "{SUP}"}}', '{"key": "Enter"}',
             '{"wait": 30, "until": "void"}',                         # a supervisor's void
             *pin_then_tap, '{"screenshot": "guard.png"}',
             '{"wait": 60, "until": "void"}',                         # a card before NMB
             *pin_then_tap,
             '{"keys": "1 A"}', '{"key": "N"}', '{"wait": 60, "until": "void"}',  # duplicate
             *pin_then_tap, '{"screenshot": "after.png"}']
    shoe = scripted_shoe("2c Ah Ah")
    d = _run(daemons, tmp_path, lines, _config(tmp_path), shoe, "voids.jsonl")
    d.wait_for(r"input script .*screenshot .*guard\.png", timeout=120)
    shoe.deal(1)                                                    # before No more bets
    d.wait_for(r"round 3 no_more_bets", timeout=120)
    shoe.deal(2)                                                    # the same card twice
    d.wait_for(r"input script .*voids.jsonl: done", timeout=120)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    events = [(k, a, b) for k, a, b in journal_events(tmp_path / "journal.sqlite3")
              if a not in ("shoe", "system")]
    nexts = [i for i, e in enumerate(events) if e[0] == "next_round"]
    assert [events[i][1] for i in nexts] == ["supervisor"] * 3  # the PIN, after every void
    bets = [e[2] for e in events if e[0] == "place_bet"]
    # the taps where the pad was placed nothing; the keys of rounds 1 and 3 did
    assert bets == [{"seat": 1, "bet": "ante", "amount": 100}] * 2, bets
    # the screen said why the taps were dropped (the amber line over the next step)
    next_action = betting_frame(SIZE).regions["next_action"]
    for shot in ("guard.png", "after.png"):
        assert _colour(tmp_path / shot, next_action) == theme.AMBER
