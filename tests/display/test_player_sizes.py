"""The player screen's type is big enough to read from the seats, measured on the drawn screen.

Every scenario, and every view the table published in the replayed shift
(display/scenes/shift.jsonl), at 1920x1080, 1080x1920 and 800x480 in English, French and
Ukrainian: the font pixel size the painter gave each text (``TextRecord.size``), by role.

At 1920x1080 and 1080x1920 a seat's hand name and amounts are at least 28 px and the
paytables, limits and returns at least 20 px. At 800x480 (seven seats side by side on a
7-inch panel, 108 px each) what fits is less: amounts and hand names at least 12 px, the
paytables 9 px, the dealer's qualification 9 px.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pygame
import pytest

from controller.game.script import run_script
from display.player import PlayerScreen
from display.scenarios import SCENARIOS, build, script

LANGS = ["en", "fr", "uk"]
FLOORS = {
    (1920, 1080): {"hand": 28, "amount": 28, "tables": 20, "qualifies": 18},
    (1080, 1920): {"hand": 28, "amount": 28, "tables": 20, "qualifies": 18},
    (800, 480): {"hand": 12, "amount": 12, "tables": 9, "qualifies": 9},
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
    smallest: dict[str, tuple[int, str]] = {}
    for t in frame.texts:
        k = kind(t.role)
        if k and t.text and (k not in smallest or t.size < smallest[k][0]):
            smallest[k] = (t.size, t.text)
    return frame, smallest


def _check(frame, smallest, view, size, where):
    floors = FLOORS[size]
    low = {k: v for k, v in smallest.items() if v[0] < floors[k]}
    assert not low, f"{where}: under {floors}: {low}"
    assert not [t for t in frame.texts if t.truncated], where
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
        frame, smallest = _measure(screen, view, size)
        _check(frame, smallest, view, size, f"{name} {size} {lang}")
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
