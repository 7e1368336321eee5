"""Every bet of every seat is drawn on the player screen, its paid line named.

Nothing of a seat's label, hand and bet rows is cut.

A seat with all five bets (Ante, Play, Ante Bonus, Pair Plus, 6 Card Bonus) settled shows
five results: the seats' plan shrinks the text (never under the screen's floor), then the
cards, then drops the bets' names; an amount that still has no row is recorded as cut.
The views are the real table's: a scripted round on 5 and 7 seats, every seat playing a
straight or better with every side bet, through :func:`controller.game.script.run_script`.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pygame
import pytest
from player_pages import player_pages

from controller.game.script import parse_script, run_script
from display.player import PlayerScreen
from display.scenarios import SCENARIOS, build

LANGS = ["en", "fr", "uk"]
SIZES = [(800, 480), (1024, 768), (1920, 1080)]
HANDS = ["5c 5d 5s", "9s 8s 7s", "Ah Kh Qh", "Jd Td 9d", "4c 3c 2c", "7h 6d 5h", "Qc Jc Tc"]
"""Seat 3: the Mini royal (Pair Plus 100 to 1); every seat a straight or better."""
DEALER = "Qd 8c 3d"


def _script(seats: int) -> str:
    """One round: every seat bets Ante, Pair Plus and 6 Card Bonus, plays, and is paid."""
    lines = [{"table": {"table_id": "T-1", "seats": seats, "rules": "live"},
              "demo_pins": True, "start_utc": "2025-03-14T20:00:00+00:00", "step_seconds": 3},
             {"event": "LinkStatus", "state": "online", "detail": "shoe"}]
    for s in range(1, seats + 1):
        amounts = {"ante": 1000, "pair_plus": 500 if s == 3 else 1000, "six_card_bonus": 500}
        lines += [{"command": "PlaceBet", "seat": s, "bet": b, "amount": a}
                  for b, a in amounts.items()]
    hands = [h.split() for h in HANDS[:seats]] + [DEALER.split()]
    cards = " ".join(h[i] for i in range(3) for h in hands)
    lines += [{"command": "NoMoreBets"}, {"cards": "2d", "burn": True}, {"cards": cards}]
    lines += [{"command": "Decide", "seat": s, "decision": "play"}
              for s in range(1, seats + 1)]
    lines += [{"command": "Reveal"}, {"command": "Settle"}, {"mark": "settled"}]
    return "\n".join(json.dumps(x) for x in lines)


@pytest.fixture(scope="module")
def settled():
    """The settled player view of the scripted round on 5 and 7 seats."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for n in (5, 7):
            marks = run_script(parse_script(_script(n), f"{n}-seats"), Path(d) / f"{n}.sqlite")
            out[n] = marks["settled"].player
    return out


def _amounts_drawn(frame, view, where):
    """Every result's amount is drawn in its seat, and nothing is cut."""
    cut = [(t.role, t.text) for t in frame.texts if t.truncated
           and t.role.rsplit(".", 1)[-1] in ("amount", "bet", "line", "hand", "label")]
    assert not cut, f"{where}: cut {cut}"
    for s in view.seats:
        drawn = [t for t in frame.texts if t.role == f"seat.{s.seat}.amount" and t.rect.width]
        assert len(drawn) == len(s.results), \
            f"{where}: seat {s.seat} draws {[t.text for t in drawn]} of {len(s.results)} results"


def test_the_round_has_five_results_a_seat(settled):
    for n, view in settled.items():
        assert len(view.seats) == n
        assert all(len(s.results) == 5 for s in view.seats), n


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_bet_is_drawn(fonts, settled, size, lang):
    screen = PlayerScreen(fonts, lang)
    for n, view in settled.items():
        frame = screen.draw(pygame.Surface(size), view)
        _amounts_drawn(frame, view, f"{n} seats {size} {lang}")
    for name in SCENARIOS:
        view = build(name).player
        if view.state in ("settled", "void"):
            for page, (_, frame) in enumerate(player_pages(screen, view, size)):
                _amounts_drawn(frame, view, f"{name} {size} {lang} page {page}")


@pytest.mark.parametrize("lang", LANGS)
def test_the_mini_royal_is_named_on_five_seats(fonts, settled, lang):
    """Seat 3's Pair Plus on A-K-Q of hearts names the paytable line that paid."""
    screen = PlayerScreen(fonts, lang)
    frame = screen.draw(pygame.Surface((1920, 1080)), settled[5])
    mini = screen.tr.hand("mini_royal")
    texts = [t.text for t in frame.texts if t.role.startswith("seat.3.") and t.rect.width]
    assert any(mini in t for t in texts), texts
