"""``threecard run --input-script``: a real daemon plays a round from a script of keys.

The daemon runs headless (SDL's dummy driver); the script's keys become real KEYDOWN
events for the real dealer screen, whose commands go to the real table. The shoe is a
simulated one on TCP (``scripted_shoe``), dealt by the test when the round's log says no
more bets.
"""

from __future__ import annotations

import pygame
from dealer_spots import primary_spot


def test_a_round_played_by_a_script_of_keys(daemons, table_config, tmp_path, scripted_shoe,
                                            journal_events):
    script = tmp_path / "round.jsonl"
    script.write_text("\n".join([
        "# two antes of 100 (the first chip), no more bets, then the shoe deals",
        '{"keys": "1 F1 A"}', '{"keys": "2 A"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}',
        '{"keys": "1 Y F"}', '{"key": "R"}', '{"key": "S"}',
        '{"screenshot": "settled.png"}', '{"screenshot": "player.png", "screen": "player"}',
        "# the payout list ticked off (all paid), then the next round",
        '{"key": "A"}', '{"key": "Enter"}']) + "\n")
    shoe = scripted_shoe("Ah 7s Qh Kd 7d 5s 9c 2c 3d")       # seat 1, seat 2, dealer x3
    journal = tmp_path / "journal.sqlite3"
    d = daemons(["--config", str(table_config), "--shoe", shoe.url, "--headless",
                 "--control-stdin", "--input-script", str(script)])
    d.wait_for(r"input script .*round.jsonl: 11 steps")
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    shoe.deal(9)
    d.wait_for(r"input script .*round.jsonl: done, 11 steps played", timeout=120)
    d.send("no_more_bets")  # the control channel works beside it: round 2 has no bet
    d.wait_for(r"control: no_more_bets")
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    commands = [(k, a, b) for k, a, b in journal_events(journal) if a not in ("shoe", "system")]
    assert commands[:8] == [
        ("place_bet", "dealer", {"seat": 1, "bet": "ante", "amount": 100}),
        ("place_bet", "dealer", {"seat": 2, "bet": "ante", "amount": 100}),
        ("no_more_bets", "dealer", {}),
        ("decide", "dealer", {"seat": 1, "decision": "play"}),
        ("decide", "dealer", {"seat": 2, "decision": "fold"}),
        ("reveal", "dealer", {}), ("settle", "dealer", {}), ("next_round", "dealer", {})]
    assert commands[8][0] == "no_more_bets"                   # from the control channel
    for name, size in (("settled.png", (1280, 800)), ("player.png", (1920, 1080))):
        assert pygame.image.load(str(tmp_path / name)).get_size() == size


def test_an_input_script_plays_beside_the_demo(daemons, tmp_path):
    script = tmp_path / "demo.jsonl"
    script.write_text('{"key": "F8"}\n{"screenshot": "meters.png"}\n{"key": "Esc"}\n'
                      '{"wait": 60, "until": "settled"}\n{"screenshot": "settled.png"}\n')
    d = daemons(["--demo", "--headless", "--journal", str(tmp_path / "demo.sqlite3"),
                 "--input-script", str(script)])
    d.wait_for(r"input script .*demo.jsonl: done, 5 steps played", timeout=120)
    assert d.stop() == 0
    for name in ("meters.png", "settled.png"):
        assert pygame.image.load(str(tmp_path / name)).get_size() == (1280, 800)


def test_two_taps_on_settle_70_ms_apart_never_open_the_next_round(daemons, table_config,
                                                                  tmp_path, scripted_shoe,
                                                                  journal_events):
    """An 800x480 dealer window (``--dealer-size``); after Reveal a finger taps Settle twice,
    70 ms apart, without waiting: the round is settled once, its payout list stays, and
    the next round is not opened."""
    size = (800, 480)
    x, y = primary_spot(size)
    script = tmp_path / "double.jsonl"
    script.write_text("\n".join([
        '{"keys": "1 F1 A"}', '{"keys": "2 A"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}', '{"keys": "1 Y Y"}', '{"key": "R"}',
        f'{{"taps": [[{x}, {y}], [{x}, {y}]], "gap_ms": 70}}',
        '{"wait": 1.5}', '{"screenshot": "after.png"}']) + "\n")
    shoe = scripted_shoe("Ah 7s Qh Kd 7d 5s 9c 2c 3d")
    d = daemons(["--config", str(table_config), "--shoe", shoe.url, "--headless",
                 "--dealer-size", "800x480", "--input-script", str(script)])
    d.wait_for(r"input script .*double.jsonl: 9 steps")
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    shoe.deal(9)
    d.wait_for(r"input script .*double.jsonl: done, 9 steps played", timeout=120)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    kinds = [k for k, a, _ in journal_events(tmp_path / "journal.sqlite3") if a == "dealer"]
    # settled once; the second tap, on a Settle the table has left, is dropped by the
    # screen: nothing refused, and no next round
    assert kinds[-2:] == ["reveal", "settle"], kinds
    assert refused(tmp_path / "journal.sqlite3") == []
    assert pygame.image.load(str(tmp_path / "after.png")).get_size() == size


def refused(journal) -> list[str]:
    """The inputs the table refused (journaled, with why)."""
    import sqlite3

    db = sqlite3.connect(journal)
    try:
        return [r for (r,) in db.execute("SELECT reason FROM rejections")]
    finally:
        db.close()
