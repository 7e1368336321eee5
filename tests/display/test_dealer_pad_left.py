"""A PIN pad the table has left behind, and the supervisor's keys during a PIN lockout.

On the real screen with a real table, driven by keys and touches:

- a Reopen bets pad is open, a PIN half typed, when the burn card is read: reopening is
  no longer possible, so the pad closes and the refusal line says why in the table's
  own words (what the table answers a Reopen bets sent then); the PIN's Enter that
  follows by habit changes nothing;
- while PIN entry is locked, F12 (Reopen bets), F10 (Manual card), F9 (Void) and the
  large button's Enter on Manual card say so on the refusal line, with the time left,
  where they did nothing.
"""

from __future__ import annotations

import re

import pytest

from controller.game import inputs
from controller.game.auth import DEMO_PINS
from controller.game.events import CardRead, Misread
from display.i18n import Translator

SUP = DEMO_PINS["supervisor"]


def refusal_line(shift) -> str:
    """The refusal line's reason, its lines joined ('' when none is shown)."""
    lines = [t for t in shift.frame.texts if t.role.startswith("refusal.reason")]
    assert not [t.text for t in lines if t.truncated]
    return " ".join(t.text for t in lines)


def locked_words(lang: str, command: str, key: str) -> re.Pattern[str]:
    """The lockout's words for ``command`` pressed by ``key``, its time as ``m:ss``."""
    tr = Translator(lang)
    said = tr("refusal.key_pin_locked", action=tr(f"btn.{command}"), pressed=tr.key(key),
              time="TIME")
    return re.compile(re.escape(said).replace("TIME", r"\d+:\d\d"))


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_reopen_pad_closes_when_the_burn_card_is_read_and_says_why(dealer_shift, lang):
    shift = dealer_shift(size=(1024, 768), lang=lang, burn_cards=1)
    shift.chips_by_touch({1: {"ante": 500}, 2: {"ante": 500}})
    shift.tap("primary")                                      # No more bets
    assert inputs.ReopenBets.name in shift.view.allowed
    shift.key("f12")
    assert shift.frame.notes["pad"] == "pin"
    shift.type(SUP[:2])                                       # the supervisor starts the PIN
    shift.shoe(CardRead(card="9d", code="9d", burn=True))     # the burn: reopening is over
    assert inputs.ReopenBets.name not in shift.view.allowed
    assert shift.frame.notes["pad"] is None                   # the deal is in sight again
    shown = refusal_line(shift)
    shift.type(SUP[2:])
    shift.key("return", dt=0.1)                               # the rest of the PIN, by habit
    assert refusal_line(shift) == shown and not shift.refused()
    assert shift.view.state != "betting" and shift.frame.notes["pad"] is None
    (verdict,) = shift.table.process([inputs.ReopenBets(pin=SUP)])  # what the table says to it
    assert not verdict.accepted
    assert shown == Translator(lang).refusal(verdict.refusal)


def test_f12_during_a_lockout_says_it_waits_and_how_long(dealer_shift):
    shift = dealer_shift(lockout_after=2, lockout_seconds=600)
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")                                      # No more bets
    shift.key("f12")
    for _ in range(2):                                        # two wrong PINs: locked
        shift.type("1111")
        shift.key("return")
    assert shift.view.pin_locked_ms > 0
    shift.key("escape")
    assert shift.frame.notes["pad"] is None and refusal_line(shift) == ""
    shift.key("f12")
    assert shift.frame.notes["pad"] is None
    assert locked_words("en", inputs.ReopenBets.name, "f12").fullmatch(refusal_line(shift))
    assert "9:5" in refusal_line(shift)                       # ten minutes, a few seconds in


@pytest.mark.parametrize("lang", ["en", "uk"])
def test_f10_f9_and_enter_during_a_lockout_say_so(dealer_shift, lang):
    shift = dealer_shift(lang=lang, lockout_after=2, lockout_seconds=600)
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")                                      # No more bets
    shift.shoe(CardRead(card="2c", code="2c"), Misread())     # paused: a card by hand
    for _ in range(2):                                        # wrong PINs: PIN entry locks
        shift.table.process([inputs.ManualCard(card="3c", pin="1111")])
    shift.step()
    assert inputs.ManualCard.name in shift.view.allowed and shift.view.pin_locked_ms > 0
    for key, command in (("f10", inputs.ManualCard.name), ("f9", inputs.VoidRound.name),
                         ("return", inputs.ManualCard.name)):
        shift.key(key)
        assert shift.frame.notes["pad"] is None
        assert locked_words(lang, command, key).fullmatch(refusal_line(shift)), key
