"""``threecard run --control-stdin``: a line that fails its declaration is refused and logged.

The attack's examples, sent to a real daemon process: each is logged at warning with the
field named, nothing of it is journaled, the control channel takes the next line, and the
journal verifies afterwards.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from journal_edit import events

from controller.game.auth import DEMO_PINS, hash_pin
from controller.game.inputs import PlaceBet, Reveal

SUP = DEMO_PINS["supervisor"]

LINES = [
    ('{"command": "place_bet", "seat": true, "bet": "ante", "amount": 100}',
     r"Expected `int`, got `bool` - at `\$\.seat`"),
    ('{"command": "void", "reason": "jam", "pin": 2468}', r"at `\$\.pin`"),
    ('{"command": "manual_card", "card": ["Qh"], "pin": "2468"}', r"at `\$\.card`"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": NaN}', r"malformed"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 1e400}',
     r"out of range - at `\$\.amount`"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": '
     '100000000000000000000000000000}', r"at `\$\.amount`"),
    ('{"command": "config_change", "key": "lockout_seconds", "value": ' + "9" * 400
     + ', "pin": "2468"}', r"at `\$\.value`"),
    ('{"command": "settle", "tip": 5}', r"unknown field `tip`"),
    ("123", r"Expected `object`, got `int`"),
    ('"void"', r"Expected `object`, got `str`"),
    ("null", r"Expected `object`, got `null`"),
]


def test_control_stdin_refuses_what_fails_the_declaration_and_goes_on(daemons, table_config,
                                                                      tmp_path):
    journal = tmp_path / "journal.sqlite3"
    d = daemons(["--config", str(table_config), "--shoe", "sim://?dialect=native",
                 "--headless", "--control-stdin"])
    d.wait_for(r"READY")
    for line, why in LINES:
        d.proc.stdin.write(line + "\n")
        d.proc.stdin.flush()
        d.wait_for(r" WARNING +control: refused .*" + why)
    d.send("place_bet", seat=1, bet="ante", amount=100)   # the channel still listens
    d.wait_for(r"control: place_bet")
    d.send("place_bet", seat=2, bet="ante", amount=100, pin=SUP)
    d.wait_for(r"control: place_bet")
    assert d.proc.poll() is None
    assert not [x for x in d.lines if "Traceback" in x or "crashed" in x]
    assert d.stop() == 0
    bodies = [(e[3], e[5]) for e in events(journal)]
    bets = [json.loads(b) for k, b in bodies if k == "place_bet"]
    assert bets == [{"seat": 1, "bet": "ante", "amount": 100},
                    {"seat": 2, "bet": "ante", "amount": 100}]
    for _, b in bodies:
        json.loads(b, parse_constant=lambda c: (_ for _ in ()).throw(AssertionError(c)))
    p = subprocess.run([sys.executable, "-m", "controller.cli", "verify-journal", "--journal",
                        str(journal)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_command_the_table_refuses_on_the_control_channel_is_answered_in_words(
        daemons, tmp_path):
    """``--control-stdin``: the refusal is logged in the screens' language and money."""
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "FR-1"\nseats = 2\nrules = "live"\n'
                      f'[journal]\npath = "{tmp_path / "journal.sqlite3"}"\n'
                      f'[roles]\nsupervisor = "{hash_pin(SUP)}"\n'
                      '[display]\nlanguage = "fr"\n', encoding="utf-8")
    d = daemons(["--config", str(config), "--shoe", "sim://?dialect=native", "--headless",
                 "--control-stdin"])
    d.wait_for(r"READY")
    d.send(PlaceBet.name, seat=1, bet="six_card_bonus", amount=5000)
    m = d.wait_for(r"WARNING +control: refused place_bet: (.*)$")
    assert m.group(1) == ("Place 1 : Bonus 6 cartes 50,00 dépasse le maximum de la table "
                          "25,00")
    d.send(Reveal.name)  # while bets are open
    m = d.wait_for(r"WARNING +control: refused reveal: (.*)$")
    assert m.group(1) == "Révéler est impossible maintenant (Faites vos jeux)"
    assert "_" not in m.group(1)
    assert d.stop() == 0


def test_free_text_cannot_forge_a_log_line(daemons, table_config):
    """A void reason with a line break and ANSI escapes is refused; the refusal is one line."""
    forged = "2026-12-01T00:00:00 ERROR   TABLE LOCKED: forged"
    d = daemons(["--config", str(table_config), "--shoe", "sim://?dialect=native",
                 "--headless", "--control-stdin"])
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.send("no_more_bets")
    d.wait_for(r"control: no_more_bets")
    d.send("void", reason=f"jam\n{forged}\x1b[2J\x1b[31m", pin=SUP)
    d.wait_for(r" WARNING +control: refused .*without control characters - at `\$\.reason`")
    d.send("void", reason="jam", pin=SUP)
    d.wait_for(r"VOID")
    assert d.stop() == 0
    assert not [x for x in d.lines if x.startswith(forged) or "\x1b" in x]


def test_a_nul_in_a_void_reason_is_refused_and_the_screens_go_on(daemons, table_config):
    """A NUL in a void reason was journaled, and the dealer screen died drawing it."""
    journal = table_config.parent / "journal.sqlite3"
    d = daemons(["--config", str(table_config), "--shoe", "sim://?dialect=native",
                 "--control-stdin"])  # with both screens
    d.wait_for(r"READY")
    d.send("place_bet", seat=1, bet="ante", amount=100)
    d.send("no_more_bets")
    d.wait_for(r"control: no_more_bets")
    for reason in ("jam\x00", "\u202eevil", "\ufeff"):
        d.send("void", reason=reason, pin=SUP)
        d.wait_for(r" WARNING +control: refused .*: Expected `str` without control "
                   r"characters - at `\$\.reason`$")
    d.send("void", reason="shoe jam", pin=SUP)
    d.wait_for(r"VOID")
    d.send("next_round", pin=SUP)
    d.wait_for(r"control: next_round")
    time.sleep(1.5)  # the screens draw the void and the next round
    assert d.proc.poll() is None
    assert not [x for x in d.lines if "Traceback" in x or "crashed" in x or " ERROR " in x]
    assert d.stop() == 0
    reasons = [json.loads(e[5]).get("reason") for e in events(journal) if e[3] == "void"]
    assert reasons == ["shoe jam"]


def test_a_control_line_nested_too_deep_is_refused_in_words(daemons, table_config):
    """3,000 ``[`` made the decoder recurse until a RecursionError was logged at ERROR."""
    d = daemons(["--config", str(table_config), "--shoe", "sim://?dialect=native",
                 "--headless", "--control-stdin"])
    d.wait_for(r"READY")
    for line in ("[" * 3000, '{"command": "void", "reason": ' + "[" * 2000 + "}"):
        d.proc.stdin.write(line + "\n")
        d.proc.stdin.flush()
        d.wait_for(r" WARNING +control: refused .*: a control line nests arrays and objects at "
                   r"most 8 deep, got \d+$")
    d.send("place_bet", seat=1, bet="ante", amount=100)   # the channel still listens
    d.wait_for(r"control: place_bet")
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or " ERROR " in x or "Recursion" in x]
