"""The player screen's type is big enough to read from the seats, measured on the drawn screen.

Every scenario, and every view the table published in the replayed shift
(display/scenes/shift.jsonl), at 1920x1080, 1080x1920 and 800x480 in English, French and
Ukrainian: the font pixel size the painter gave each text (``TextRecord.size``), by role.

A seat's hand name and amounts, the paytables, limits and returns and the dealer's
qualification are at least 3 % of the screen's shorter side: 33 px at 1920x1080 and
1080x1920, 15 px at 800x480 (seven seats side by side on a 7-inch panel, 108 px each:
the screen shows less at once rather than smaller). The paytables are read on every page
they turn through.

Nothing is cut and no two texts overlap. Beyond the scripted rounds, any settled table
(seven seats, every bet, any paytable line won, in amounts or as outcomes) must read the
same way.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from player_pages import player_pages

from controller.game.hands import HandClass
from controller.game.script import run_script
from controller.game.views import BetLine, SeatView
from display.player import PlayerScreen
from display.scenarios import SCENARIOS, build, script

LANGS = ["en", "fr", "uk"]
FLOORS = {
    (1920, 1080): {"hand": 33, "amount": 33, "tables": 33, "qualifies": 33},
    (1080, 1920): {"hand": 33, "amount": 33, "tables": 33, "qualifies": 33},
    (800, 480): {"hand": 15, "amount": 15, "tables": 15, "qualifies": 15},
}


def kind(role: str) -> str | None:
    """What a text is, from the role the painter recorded."""
    parts = role.split(".")
    if parts[0] == "seat" and len(parts) == 3:
        return {"hand": "hand", "amount": "amount", "net": "amount"}.get(parts[2])
    if parts[0] in ("pt", "pt6", "limits", "rtp"):
        return "tables"
    if role.startswith("dealer.qualifies"):
        return "qualifies"
    return None


@pytest.fixture(scope="module")
def shift_views():
    """Every distinct player view of the replayed shift, in order."""
    seen: dict[str, object] = {}

    def keep(_dealer, player):
        key = repr(player.__class__(**{**{f: getattr(player, f) for f in
                                          player.__dataclass_fields__}, "version": 0}))
        seen.setdefault(key, player)

    with tempfile.TemporaryDirectory() as d:
        run_script(script(), Path(d) / "journal.sqlite", on_publish=keep)
    return list(seen.values())


def _measure(screen, view, size):
    frame = screen.draw(pygame.Surface(size), view)
    return frame, _smallest(frame)


def _smallest(frame):
    smallest: dict[str, tuple[int, str]] = {}
    for t in frame.texts:
        k = kind(t.role)
        if k and t.text and (k not in smallest or t.size < smallest[k][0]):
            smallest[k] = (t.size, t.text)
    return smallest


def _check(frame, smallest, view, size, where):
    floors = FLOORS[size]
    low = {k: v for k, v in smallest.items() if v[0] < floors[k]}
    assert not low, f"{where}: under {floors}: {low}"
    assert not [t for t in frame.texts if t.truncated], where
    drawn = [t for t in frame.texts if t.text and t.rect.width]
    for i, t in enumerate(drawn):
        over = [(t.text, drawn[i + 1 + j].text) for j in t.rect.collidelistall(
            [u.rect for u in drawn[i + 1:]])]
        assert not over, f"{where}: texts overlap: {over}"
    # every seat with three cards names its hand: dealing done, decisions, reveal, settled
    for s in view.seats:
        if len(s.cards) == 3 and all(s.cards):
            assert [t for t in frame.texts if t.role == f"seat.{s.seat}.hand"], \
                f"{where}: seat {s.seat}'s hand name missing"
    if view.dealer_qualifies is not None:
        assert "qualifies" in smallest, where


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", list(FLOORS), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_scenario_is_readable(fonts, size, lang):
    screen = PlayerScreen(fonts, lang)
    for name in SCENARIOS:
        view = build(name).player
        for page, (_, frame) in enumerate(player_pages(screen, view, size)):
            smallest = _smallest(frame)
            _check(frame, smallest, view, size, f"{name} {size} {lang} page {page}")
            assert {"amount", "tables"} <= set(smallest)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", list(FLOORS), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_view_of_the_replayed_shift_is_readable(fonts, shift_views, size, lang):
    screen = PlayerScreen(fonts, lang)
    assert len(shift_views) > 50
    for i, view in enumerate(shift_views):
        frame, smallest = _measure(screen, view, size)
        _check(frame, smallest, view, size, f"view {i} ({view.state}) {size} {lang}")


def test_hand_names_stay_at_the_reveal():
    """The hand names of the decisions are still there once the dealer's cards turn."""
    for name in ("reveal-qualify", "reveal-no-qualify"):
        view = build(name).player
        assert view.state == "reveal"
        assert all(s.hand for s in view.seats if len(s.cards) == 3), name


BASE = build("outcomes-settled").player
PT = BASE.paytables
LIMITS = {bet: (lo, hi) for bet, lo, hi in PT.limits}


@st.composite
def settled_seat(draw, seat: int, outcomes: bool) -> SeatView:
    """A settled seat with an Ante and any side bets; each bet won on any paytable line."""

    def stake(bet: str) -> int:
        return 1 if outcomes else draw(st.integers(*LIMITS[bet]))

    def side(bet: str, table: tuple[tuple[str, int], ...]) -> BetLine:
        s = stake(bet)
        x = draw(st.sampled_from([0, *(m for _, m in table)]))
        return BetLine(bet, "win", s, s * x, x) if x else BetLine(bet, "lose", s, -s)

    def even(bet: str, s: int) -> BetLine:
        return draw(st.sampled_from([BetLine(bet, "win", s, s, 1), BetLine(bet, "push", s, 0),
                                     BetLine(bet, "lose", s, -s)]))

    ante = stake("ante")
    play = draw(st.booleans())
    results: list[BetLine] = []
    if play:
        results.append(even("play", ante))
        x = draw(st.sampled_from([0, *(m for _, m in PT.ante_bonus)]))
        if x:
            results.append(BetLine("ante_bonus", "win", ante, ante * x, x))
        results.append(even("ante", ante))
    else:
        results.append(BetLine("ante", "lose", ante, -ante))
    bets = {"ante": ante, **({"play": ante} if play else {})}
    for bet, table in (("pair_plus", PT.pair_plus), ("six_card_bonus", PT.six_card_bonus)):
        if draw(st.booleans()):
            results.append(side(bet, table))
            bets[bet] = results[-1].stake
    hand = draw(st.sampled_from([h.key for h in HandClass]))
    return SeatView(seat, bets, ("As", "Kd", "7c"), hand, "play" if play else "fold",
                    tuple(results), sum(r.net for r in results))


@st.composite
def settled_tables(draw):
    """The outcome scenario's settled round with seven seats of any settled bets."""
    outcomes = draw(st.booleans())
    seats = tuple(draw(settled_seat(n, outcomes)) for n in range(1, 8))
    return dataclasses.replace(BASE, seats=seats,
                               bet_entry="outcomes" if outcomes else "amounts")


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(view=settled_tables())
def test_any_settled_table_is_readable(fonts, view):
    for lang in LANGS:
        screen = PlayerScreen(fonts, lang)
        for size in FLOORS:
            frame, smallest = _measure(screen, view, size)
            _check(frame, smallest, view, size, f"{view.bet_entry} {size} {lang}")
