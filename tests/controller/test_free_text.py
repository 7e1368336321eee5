"""Free text (a void or unblock reason): no control character is journaled; old ones replay.

A NUL in a void reason typed on the control channel was journaled, and the dealer screen
then failed drawing it (SDL_ttf refuses NUL) and the table stopped. A reason is now
refused with a control character (Unicode categories Cc and Cf) or a lone surrogate in it,
and a reason an earlier version journaled with one still replays as it was.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest
from journal_edit import journal_as_before

from controller.game import inputs
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.control_line import parse_control_line
from controller.game.engine import TableConfig
from controller.game.events import LinkState, LinkStatus
from controller.game.inputs import encode_body
from controller.game.table import Table
from controller.game.text import CONTROL_RANGES, control_character, drawable, for_terminal

SUP = DEMO_PINS["supervisor"]
CLASSIC = Path(inputs.__file__).parent / "profiles" / "classic.toml"
BAD = ["jam\x00", "\x1b[2J", "two\nlines", "tab\there", "\x7f", "\x85", "rtl\u202e",
       "\u200e", "\ufeffbom", "tag\U000e0041", "soft\u00adhyphen"]
"""Reasons holding a control character (Cc) or a format character (Cf)."""
GOOD = ["shoe jam", "Carte vue \u2014 coup annul\u00e9", "Застрягла карта",
        "5\u202f%", "no\u00a0break", "\U0001F0A1 ace"]


def _refused_on_the_line(body: dict, field: str) -> None:
    """The control line of ``body`` is refused, naming ``field``."""
    with pytest.raises(inputs.InputError) as caught:
        parse_control_line(encode_body(body))
    assert str(caught.value) == f"Expected `str` without control characters - at `$.{field}`"


def _refused_by_the_table(tmp_path, commands, field: str) -> None:
    """Each command is refused by a new table, naming ``field``; nothing is journaled."""
    t = Table(tmp_path / "j.sqlite3", TableConfig(pin_hashes=demo_pin_hashes()))
    head = t.journal.last_seq
    for command in commands:
        (v,) = t.process([command])
        assert not v.accepted and f"without control characters - at `$.{field}`" in v.reason
    assert t.journal.last_seq == head
    t.close()


def test_the_control_ranges_hold_every_control_format_and_surrogate_code_point():
    ranges = [range(a, b + 1) for a, b in CONTROL_RANGES]
    missing = [hex(c) for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs")
               and not any(c in r for r in ranges)]
    assert missing == []
    # and nothing a person writes with: letters, marks, spaces, symbols
    assert all(unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs", "Cn")
               for r in ranges for c in r)


@pytest.mark.parametrize("reason", BAD)
def test_a_control_character_in_a_reason_is_refused_on_the_control_line(reason):
    _refused_on_the_line({"command": "void", "reason": reason, "pin": SUP}, "reason")


@pytest.mark.parametrize("reason", [*BAD, "lone \ud800 surrogate"])
def test_a_control_character_in_a_reason_is_refused_in_code_and_nothing_is_journaled(
        tmp_path, reason):
    t = Table(tmp_path / "j.sqlite3", TableConfig(pin_hashes=demo_pin_hashes()))
    t.process([LinkStatus(state=LinkState.ONLINE), inputs.PlaceBet(seat=1, bet="ante", amount=100),
               inputs.NoMoreBets()])
    head = t.journal.last_seq
    for command in (inputs.VoidRound(reason=reason, pin=SUP),
                    inputs.UnblockDeck(reason=reason, pin=SUP)):
        (v,) = t.process([command])
        assert not v.accepted and "without control characters - at `$.reason`" in v.reason
    assert t.journal.last_seq == head
    assert t.game.state.value == "no_more_bets"


@pytest.mark.parametrize("reason", GOOD)
def test_a_reason_in_any_language_is_taken(tmp_path, reason):
    assert parse_control_line(encode_body({"command": "void", "reason": reason})).reason == reason
    t = Table(tmp_path / "j.sqlite3", TableConfig(pin_hashes=demo_pin_hashes()))
    t.process([LinkStatus(state=LinkState.ONLINE), inputs.PlaceBet(seat=1, bet="ante", amount=100),
               inputs.NoMoreBets()])
    (v,) = t.process([inputs.VoidRound(reason=reason, pin=SUP)])
    assert v.accepted and t.game.round.void_reason == reason


def test_a_reason_an_earlier_version_journaled_with_control_characters_replays(tmp_path):
    path = tmp_path / "j.sqlite3"
    reason = "jam\x00\x1b[31m"
    config = TableConfig(pin_hashes=demo_pin_hashes())
    t = Table(path, config)
    t.process([LinkStatus(state=LinkState.ONLINE), inputs.PlaceBet(seat=1, bet="ante", amount=100),
               inputs.NoMoreBets()])
    journal_as_before(t, inputs.VoidRound.name, {"reason": reason}, "supervisor")
    assert t.game.round.void_reason == reason
    t.close()
    again = Table(path, config)  # start-up verifies and replays it
    assert not again.locked
    assert again.game.round.void_reason == reason
    assert again.views()[0].void_reason == reason
    again.close()


def test_text_is_made_drawable_and_printable():
    assert drawable("jam\x00\ud800!") == "jam\ufffd\ufffd!"
    assert drawable("caf\u00e9 5\u202f%") == "caf\u00e9 5\u202f%"
    assert for_terminal("a\x1b[2Jb\nc\u200ed\ud800") == "a\\x1b[2Jb\\nc\\u200ed\\ud800"
    assert for_terminal("Coup annul\u00e9 \u2014 5\u00a0%") == "Coup annul\u00e9 \u2014 5\u00a0%"
    assert for_terminal("a\u2028b") == "a\\u2028b"
    assert for_terminal(42) == "42"
    assert control_character("ok\x85") == "\x85" and control_character("ok") is None


@pytest.mark.parametrize("value", [*BAD, "lone \ud800 surrogate"])
def test_a_control_character_in_a_setting_is_refused_and_nothing_is_journaled(tmp_path,
                                                                             value):
    if "\ud800" not in value:
        _refused_on_the_line({"command": "config_change", "key": "rules", "value": value,
                              "pin": SUP}, "value")
    profile = tmp_path / f"{value}.toml"           # a profile that loads, under that name
    try:
        profile.write_text(CLASSIC.read_text(encoding="utf-8"), encoding="utf-8")
    except (OSError, ValueError):                  # a NUL or a lone surrogate: no such name
        profile = None
    _refused_by_the_table(tmp_path, [inputs.ConfigChange(key="rules", value=text, pin=SUP)
                                     for text in (value, str(profile) if profile else value)],
                          "value")


def test_a_setting_an_earlier_version_journaled_with_control_characters_replays(tmp_path):
    path = tmp_path / "j.sqlite3"
    config = TableConfig(pin_hashes=demo_pin_hashes())
    t = Table(path, config)
    value = "classic\x1b[2J\u202e"
    journal_as_before(t, inputs.ConfigChange.name, {"key": "rules", "value": value,
                                               "old": "live"}, "supervisor")
    assert t.journal.last_seq == 2                  # journaled
    t.close()
    again = Table(path, config)                     # start-up verifies and replays it
    assert not again.locked
    assert again.journal.last_seq >= 2 and again.config.rules == config.rules
    again.close()


@pytest.mark.parametrize("card", ["\x00s", "\x1b[2J\x1b[H", "A\x00\x07\x08", "Q\u202e"])
def test_a_control_character_in_a_manual_card_is_refused_and_nothing_is_journaled(tmp_path,
                                                                                 card):
    _refused_on_the_line({"command": "manual_card", "card": card, "pin": SUP}, "card")
    _refused_by_the_table(tmp_path, [inputs.ManualCard(card=card, pin=SUP)], "card")


def test_a_manual_card_an_earlier_version_journaled_with_control_characters_replays(tmp_path):
    path = tmp_path / "j.sqlite3"
    config = TableConfig(pin_hashes=demo_pin_hashes())
    t = Table(path, config)
    t.process([LinkStatus(state=LinkState.ONLINE)])
    journal_as_before(t, inputs.ManualCard.name, {"card": "\x1b[2J\x00s"}, "supervisor")
    state = t.game.state.value
    t.close()
    again = Table(path, config)  # start-up verifies and replays it
    assert not again.locked
    assert again.game.state.value == state
    again.close()
