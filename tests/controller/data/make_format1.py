"""Writes ``format1.journal`` (with its anchor, ``format1.journal.anchor``): a journal as
the table wrote every journal before the compact format (format 1: every column text,
whole round records), with what game recall, the meters and ``verify-journal`` said of it
then (``format1.json``). Three seats, misreads and duplicate cards (so voids and manual
cards), a rejected input, a setting changed, snapshots every 3 rounds. Kept with the
journal to show how it was made; run it with that table's code on the path:
``python make_format1.py format1.journal format1.json``.
"""

from __future__ import annotations  # noqa: I001 - the imports of the code it was run with

import json
import sys
from datetime import UTC, datetime, timedelta

from controller.autoplay import AutoPlayer
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.inputs import ConfigChange, Reveal
from controller.game.table import Table
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults


class Clock:
    """1.25 seconds per batch from 2026-03-01T00:00:00Z."""

    def __init__(self) -> None:
        self.n = 0

    def utc(self) -> str:
        self.n += 1
        return (datetime(2026, 3, 1, tzinfo=UTC)
                + timedelta(milliseconds=1250 * self.n)).isoformat()

    def monotonic_ns(self) -> int:
        return 5_000_000_000 + self.n * 1_250_000_000


def main(path: str, facts: str) -> None:
    config = TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=3)
    t = Table(path, config, clock=Clock())
    player = AutoPlayer(bets={"ante": 100, "pair_plus": 100, "six_card_bonus": 100},
                        pin=DEMO_PINS["supervisor"])
    t.process([Reveal()])                                     # rejected: nothing to reveal
    simulate(t, player, EventShoe(11, parse_faults("misread=0.3,duplicate=0.3")), 5)
    t.process([ConfigChange(key="burn_cards", value=1, pin=DEMO_PINS["supervisor"])])
    simulate(t, player, EventShoe(12, parse_faults("misread=0.2")), 8)
    t.close()
    verdict = rc.verify(path)
    assert verdict.ok, verdict.summary()
    meters = rc.meters(path)
    assert meters.reconciled, meters.problems
    with open(facts, "w", encoding="utf-8") as f:
        json.dump({"recall": rc.recall(path, 50), "rows": meters.rows,
                   "counters": meters.counters, "verdict": verdict.summary()}, f, indent=1,
                  sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
