"""Meters and event counters (docs/requirements.md R6): per bet type, per seat, ``total``.

Outcome mode rounds hold no money: they fill the outcome meters (:func:`outcome_key`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from msgspec import Struct
from msgspec.structs import replace

from controller.game.bet_types import ANTE_BONUS


class MeterRow(Struct, array_like=True, frozen=True):
    """One meter ``[wagered, paid, won, rounds, voids, refunded]`` (``voids``: bets refunded)."""

    wagered: int = 0
    paid: int = 0
    won: int = 0
    rounds: int = 0
    voids: int = 0
    refunded: int = 0


TOTAL = "total"
SEAT_PREFIX = "seat "
# The event counter of voided rounds (a meter row's voids counts refunded bets).
ROUNDS_VOIDED = "voids"


def row_order(names: Iterable[str]) -> list[str]:
    """Meter row names in pay order, then seats by number, then :data:`TOTAL`; none left out."""
    from controller.game.bet_types import PAY_ORDER

    given = set(names)
    bets = [b for b in PAY_ORDER if b in given]
    seats = sorted((n for n in given if _seat_number(n) is not None), key=_seat_number)
    other = sorted(given.difference(bets, seats, (TOTAL,)))
    return [*bets, *seats, *other, *([TOTAL] if TOTAL in given else [])]


def _seat_number(name: str) -> int | None:
    number = name[len(SEAT_PREFIX):] if name.startswith(SEAT_PREFIX) else ""
    return int(number) if number.isascii() and number.isdigit() else None


ROUNDS_SETTLED = "rounds settled"
ROUNDS_VOID = "rounds void"


def outcome_key(bet: str, outcome: str, line: str = "") -> str:
    """The outcome meter of one bet's outcome: ``pair_plus win flush``, ``ante push``."""
    return f"{bet} {outcome} {line}" if line else f"{bet} {outcome}"


def parse_outcome_key(key: str) -> tuple[str, str, str]:
    """Inverse of :func:`outcome_key`: ``(bet, outcome, line)``; ValueError for a rounds meter."""
    bet, outcome, *line = key.split(" ", 2)
    if bet == "rounds":
        raise ValueError(f"{key!r} counts rounds, not a bet's outcome")
    return bet, outcome, line[0] if line else ""


class Meters:
    """The meter rows, outcome meters and event counters of a table."""

    def __init__(self) -> None:
        self.rows: dict[str, MeterRow] = {}
        self.counters: dict[str, int] = {}
        self.outcomes: dict[str, int] = {}

    def count(self, name: str) -> None:
        """Add one to the event counter ``name``."""
        self.counters[name] = self.counters.get(name, 0) + 1

    def close_round(self, results: Iterable[tuple[int, Any]], settled: bool) -> None:
        """Add a finished round's ``(seat, result)`` pairs (``settled``: a round played)."""
        rows = self.rows
        played = {TOTAL}
        for seat, r in results:
            for name in (r.bet, f"{SEAT_PREFIX}{seat}", TOTAL):
                m = rows.get(name) or MeterRow()
                if r.outcome == "refund":
                    m = replace(m, voids=m.voids + 1, refunded=m.refunded + r.stake)
                else:
                    m = replace(m, wagered=m.wagered + (r.stake if r.bet != ANTE_BONUS else 0),
                                paid=m.paid + max(r.net, 0), won=m.won - min(r.net, 0))
                rows[name] = m
            played.update((r.bet, f"{SEAT_PREFIX}{seat}"))
        if settled:
            for name in played:
                if name in rows:
                    rows[name] = replace(rows[name], rounds=rows[name].rounds + 1)

    def close_outcome_round(self, results: Iterable[tuple[int, Any]], lines: dict[int, Any],
                            settled: bool) -> None:
        """Count a finished outcome-mode round (``lines``: seat -> bet -> its win's line)."""
        counts = self.outcomes
        for key in [ROUNDS_SETTLED if settled else ROUNDS_VOID,
                    *(outcome_key(r.bet, r.outcome, lines.get(seat, {}).get(r.bet, ""))
                      for seat, r in results)]:
            counts[key] = counts.get(key, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        """Meters as journaled: ``{"rows": {name: [6 ints]}, "counters": {...}, "outcomes"?}``."""
        d = {"rows": {k: list(msgspec.structs.astuple(v)) for k, v in self.rows.items()},
             "counters": dict(self.counters)}
        if self.outcomes:
            d["outcomes"] = dict(self.outcomes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Meters:
        """Inverse of :meth:`as_dict`."""
        m = cls()
        m.rows = {k: msgspec.convert(v, MeterRow) for k, v in d["rows"].items()}
        m.counters = dict(d["counters"])
        m.outcomes = dict(d.get("outcomes", {}))
        return m
