"""Named table situations for screenshots and tests: what the real table showed.

Every scenario is a mark in a scripted shift, :data:`SCRIPT` (shoe events and dealer
commands as data, see :mod:`controller.game.script`). The script runs once per process
through a real :class:`~controller.game.table.Table` into a temporary journal file; a
scenario's views are the ones the table published at its mark, so hands, results,
payouts and the paytables' returns are the engine's own. Which dealer screen a
scenario opens (main, recall, meters) is display state, named by the mark.
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
"""Scenario names, in the order of a round and its irregularities; then the same table
taking bets as outcomes (``bet_entry = "outcomes"``)."""

SCRIPT = Path(__file__).resolve().with_name("scenes") / "shift.jsonl"
"""The scripted shift whose marks are the scenarios."""

DEALER_SCREENS = ("main", "recall", "meters", "outcomes")
"""Dealer screens a scenario may open (``dealer_screen`` on its mark)."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One named situation.

    Attributes:
        name: scenario name.
        dealer: the dealer view the table published at the mark.
        player: the player view the table published at the mark.
        dealer_screen: which dealer screen to open (``main``, ``recall``, ``meters``,
            ``outcomes``: the outcome meters).
        seq: the journal event after which the views were published.
    """

    name: str
    dealer: DealerView
    player: PlayerView
    dealer_screen: str = "main"
    seq: int = 0


def script() -> Script:
    """The scripted shift, parsed.

    Raises:
        controller.game.script.ScriptError: the script does not read.
    """
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
    """The views of one scenario (the script runs once per process, on first use).

    Args:
        name: one of :data:`SCENARIOS`.

    Returns:
        The dealer and player views the table published at that mark.

    Raises:
        KeyError: an unknown scenario name.
        controller.game.script.ScriptError: the script does not read, lacks a scenario's
            mark, names an unknown dealer screen, or the table rejected one of its inputs.
    """
    if name not in SCENARIOS:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    mark = _marks()[name]
    screen = mark.options.get("dealer_screen", "main")
    if screen not in DEALER_SCREENS:
        raise ScriptError(f"mark {name!r}: dealer_screen must be one of "
                          f"{', '.join(DEALER_SCREENS)}, got {screen!r}")
    return Scenario(name, mark.dealer, mark.player, screen, mark.seq)
