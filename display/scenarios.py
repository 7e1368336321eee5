"""Named table situations for screenshots and tests: what the real table showed.

Each is a mark in a scripted shift (:data:`SCRIPT`) run once per process through a real
table into a temporary journal: its views are the engine's own.
"""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass
from pathlib import Path

from controller.game.script import Mark, Script, ScriptError, load_script, run_script
from controller.game.views import DealerView, PlayerView

SCENARIOS = ("betting", "dealing", "decisions", "reveal-qualify", "reveal-no-qualify",
             "settled", "void", "auto-void", "link-lost", "misread-paused", "recall", "meters",
             "outcomes-betting", "outcomes-decisions", "outcomes-settled", "outcomes-recall",
             "outcomes-void", "outcomes-meters", "deck-blocked")
"""Scenario names, a round and its irregularities in order, then bets taken as outcomes."""

SCRIPT = Path(__file__).resolve().with_name("scenes") / "shift.jsonl"
"""The scripted shift whose marks are the scenarios."""

DEALER_SCREENS = ("main", "recall", "meters", "outcomes")
"""Dealer screens a scenario may open (``dealer_screen`` on its mark)."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One named situation: the views published at its mark, and the dealer screen to open."""

    name: str
    dealer: DealerView
    player: PlayerView
    dealer_screen: str = "main"
    seq: int = 0


def script() -> Script:
    """The scripted shift, parsed (ScriptError if it does not read)."""
    return load_script(SCRIPT)


@functools.lru_cache(maxsize=1)
def _marks() -> dict[str, Mark]:
    sc = script()
    missing = sorted(set(SCENARIOS) - set(sc.marks))
    if missing:
        raise ScriptError(f"{sc.name}: no mark for the scenarios {', '.join(missing)}")
    with tempfile.TemporaryDirectory(prefix="threecard-scenes-") as d:
        return run_script(sc, Path(d) / "journal.sqlite")


def build(name: str) -> Scenario:
    """The views of one of :data:`SCENARIOS` (the script runs once per process).

    Raises:
        KeyError: an unknown scenario name.
        controller.game.script.ScriptError: the script is wrong or the table rejected it.
    """
    if name not in SCENARIOS:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    mark = _marks()[name]
    screen = mark.options.get("dealer_screen", "main")
    if screen not in DEALER_SCREENS:
        raise ScriptError(f"mark {name!r}: dealer_screen must be one of "
                          f"{', '.join(DEALER_SCREENS)}, got {screen!r}")
    return Scenario(name, mark.dealer, mark.player, screen, mark.seq)
