"""A PIN lockout on the main dealer screen, Next round's PIN after a supervisor's void, and
the taps that follow a pad. Drawn headless from the scenarios' views, read from the frame.
"""

from dataclasses import replace

import pygame
import pytest

from controller.game import inputs
from display.dealer import DealerScreen
from display.dealer.locks import GUARD_SECONDS
from display.i18n import Translator
from display.scenarios import build

LANGS = ["en", "fr", "uk"]
SIZE = (800, 480)


def said(frame, prefix):
    """The texts drawn with a role starting with ``prefix``, joined."""
    return " ".join(t.text for t in frame.texts if t.role.startswith(prefix))


@pytest.mark.parametrize("lang", LANGS)
def test_a_lockout_shows_in_the_strip_and_on_every_action_needing_a_pin(fonts, lang):
    """A misread pauses the round and PIN entry is locked for 58.5 s: the strip names the
    lockout with its time (at 800x480 the two alarms take turns, 4 s each), Manual card
    and Void show locked with it and take no press; the count goes down as time passes,
    and once over both act again."""
    tr = Translator(lang)
    view = replace(build("misread-paused").dealer, pin_locked_ms=58_500, version=90)
    assert inputs.VoidRound.name in view.allowed and inputs.ManualCard.name in view.allowed
    screen = DealerScreen(fonts, lang)
    frame = screen.draw(pygame.Surface(SIZE), view, 10.0)
    turn = screen.draw(pygame.Surface(SIZE), view, 14.0)
    strip = said(frame, "banner.") + said(turn, "banner.")
    assert tr("banner.pin_locked.msg", time="0:55") in strip
    assert said(frame, "primary.sub") == tr("word.pin_locked", time="0:59")
    assert said(frame, "tool.void.sub") == tr("word.pin_locked_short", time="0:59")
    assert not frame.button("primary").enabled and not frame.button("tool.void").enabled
    later = screen.draw(pygame.Surface(SIZE), view, 10.0 + 20.0)
    assert said(later, "tool.void.sub") == tr("word.pin_locked_short", time="0:39")
    over = screen.draw(pygame.Surface(SIZE), view, 10.0 + 59.0)
    turn = screen.draw(pygame.Surface(SIZE), view, 10.0 + 63.0)
    assert tr("banner.pin_locked.msg", time="")[:12] not in (said(over, "banner.")
                                                              + said(turn, "banner."))
    assert frame.button("primary").label == over.button("primary").label
    assert over.button("primary").enabled and over.button("tool.void").enabled
    assert said(over, "primary.sub") == tr("word.pin_needed")


def test_the_lockout_redraws_as_it_counts_down(fonts):
    view = replace(build("betting").dealer, pin_locked_ms=10_000, version=5)
    screen = DealerScreen(fonts, "en")
    screen.draw(pygame.Surface(SIZE), view, 0.0)
    assert screen.animation_key(view, 0.2) != screen.animation_key(view, 1.2)


def test_next_round_after_a_supervisors_void_asks_the_pin(fonts):
    """The table takes Next round without a PIN after a void a supervisor declared; the
    screen asks it all the same: the large button opens the PIN pad, All paid does not
    open the round."""
    view = build("void").dealer
    assert inputs.NextRound.name in view.allowed and inputs.NextRound.name not in view.pin_needed
    screen = DealerScreen(fonts, "en")
    screen.draw(pygame.Surface(SIZE), view, 0.0)
    screen.ui.paid.update(s.seat for s in view.seats)  # every wager returned
    frame = screen.draw(pygame.Surface(SIZE), view, 0.0)
    assert said(frame, "primary.sub") == screen.tr("word.pin_needed")
    event = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_g, mod=0)
    assert screen.handle(event, frame, view, 5.0) == []
    assert (screen.ui.pad, screen.ui.pad_action) == ("pin", inputs.NextRound.name)


def _tap(rect):
    return pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=rect.center)


def test_a_tap_on_a_bet_just_after_the_pad_closes_places_nothing_and_says_why(fonts):
    """The pad closes on a frame at t=50; a tap on seat 4's Ante within
    :data:`GUARD_SECONDS` places nothing and a line says why; a key places the bet; a
    tap once the moment is over places it."""
    view = build("betting").dealer
    screen = DealerScreen(fonts, "en")
    screen.ui.pad, screen.ui.pad_action = "pin", inputs.NextRound.name
    screen.draw(pygame.Surface(SIZE), view, 49.9)
    screen.ui.reset_pad()
    frame = screen.draw(pygame.Surface(SIZE), view, 50.0)
    ante = frame.button("seat.4.bet.ante").rect
    assert screen.handle(_tap(ante), frame, view, 50.0 + GUARD_SECONDS - 0.1) == []
    frame = screen.draw(pygame.Surface(SIZE), view, 50.6)
    assert said(frame, "refusal.reason") .startswith("Tap not taken")
    key = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0)
    assert [type(c) for c in screen.handle(key, frame, view, 50.61)] == [inputs.PlaceBet]
    view = replace(view, version=view.version + 1)
    frame = screen.draw(pygame.Surface(SIZE), view, 51.0)
    cmds = screen.handle(_tap(ante), frame, view, 50.0 + GUARD_SECONDS + 0.3)
    assert cmds == [inputs.PlaceBet(seat=4, bet="ante", amount=100)]
