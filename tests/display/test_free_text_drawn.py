"""A void reason an earlier version journaled with a NUL in it is drawn, never fatal.

SDL_ttf refuses a NUL (and a lone surrogate): the dealer screen failed drawing the void's
alarm and the table stopped. The screens now draw such characters as U+FFFD; and the
reason the dealer's pad sends is one the table takes.
"""

from __future__ import annotations

import pygame
from journal_edit import journal_as_before

from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import LinkState, LinkStatus
from controller.game.inputs import NoMoreBets, PlaceBet, VoidRound
from controller.game.table import Table
from display.player import PlayerScreen

SUP = DEMO_PINS["supervisor"]
REASON = "jam\x00\x1b[31m\u202e"


def test_an_old_void_reason_with_a_nul_is_drawn_on_every_screen(dealer_shift, tmp_path, fonts):
    t = Table(tmp_path / "journal0.sqlite3",  # the journal the shift below starts on
              TableConfig(table_id="T-5", pin_hashes=demo_pin_hashes(), seats=5))
    t.process([LinkStatus(state=LinkState.ONLINE), PlaceBet(seat=1, bet="ante", amount=500),
               NoMoreBets()])
    journal_as_before(t, VoidRound.name, {"reason": REASON}, "supervisor")
    t.close()

    shift = dealer_shift()  # replays the journal; the dealer screen draws the void's alarm
    assert shift.view.state == "void" and shift.view.void_reason == REASON
    assert any("jam" in m for m in shift.texts("banner.0.msg"))
    shift.key("f7")  # recall: the void and its reason
    assert shift.frame.notes["mode"] == "recall"
    assert any(REASON in t.text for t in shift.frame.texts)
    shift.key("escape")
    player = PlayerScreen(fonts, "en").draw(pygame.Surface((1280, 800)), shift.table.views()[1])
    assert player.texts

    # the dealer goes on: wagers returned, next round, a bet, a void with the pad's reason
    shift.tap("all_paid")
    shift.tap("primary")  # after every void, the supervisor's PIN opens the next round
    shift.pin_by_touch(SUP)
    assert shift.view.state == "betting", shift.refused()
    shift.chips_by_touch({2: {"ante": 500}})
    shift.tap("primary")
    shift.tap("tool.void")
    shift.tap("pad.reason.shoe_fault")
    shift.pin_by_touch(SUP)
    assert shift.refused() == []
    assert shift.view.state == "void" and shift.view.void_reason == "Shoe fault"
