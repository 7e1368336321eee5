"""Meters and event counters (docs/requirements.md R6).

A meter row per bet type, per seat (``seat 3``) and ``total``: what was wagered, paid and
won by the house, the rounds settled, and the voids with what they refunded. Event
counters count what happened (power-ups, shoe disconnects, misreads, overrides...).

Rounds dealt in outcome mode (``bet_entry = "outcomes"``) hold no money: they leave the
meter rows alone and are counted in the outcome meters instead (:func:`outcome_key`):
rounds settled and voided, and per bet its wins by paytable line, pushes, losses and
refunds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from msgspec import Struct
from msgspec.structs import replace

from controller.game.bet_types import ANTE_BONUS


class MeterRow(Struct, array_like=True, frozen=True):
    """One meter (journal and snapshot form: ``[wagered, paid, won, rounds, voids, refunded]``).

    Attributes:
        wagered: stakes taken, minor units (an Ante Bonus stakes nothing).
        paid: paid to players beyond their stakes, minor units.
        won: lost by players, minor units.
        rounds: settled rounds with this meter in play.
        voids: refunded bets.
        refunded: refunded stakes, minor units.
    """

    wagered: int = 0
    paid: int = 0
    won: int = 0
    rounds: int = 0
    voids: int = 0
    refunded: int = 0


TOTAL = "total"
"""The meter row of the whole table."""
SEAT_PREFIX = "seat "
"""A seat's meter row is named ``seat N``."""
ROUNDS_VOIDED = "voids"
"""The event counter of voided rounds (a meter row's ``voids`` counts refunded bets)."""


def row_order(names: Iterable[str]) -> list[str]:
    """Meter row names in the order they are shown.

    The bets in the order the dealer pays them (:data:`controller.game.bet_types.PAY_ORDER`),
    then the seats by number, then :data:`TOTAL`; a name of none of these comes after the
    seats, so that none is ever left out.
    """
    from controller.game.bet_types import PAY_ORDER

    given = set(names)
    bets = [b for b in PAY_ORDER if b in given]
    seats = sorted((n for n in given if _seat_number(n) is not None), key=_seat_number)
    other = sorted(given.difference(bets, seats, (TOTAL,)))
    return [*bets, *seats, *other, *([TOTAL] if TOTAL in given else [])]


def _seat_number(name: str) -> int | None:
    """N of a ``seat N`` row, else None."""
    number = name[len(SEAT_PREFIX):] if name.startswith(SEAT_PREFIX) else ""
    return int(number) if number.isascii() and number.isdigit() else None


ROUNDS_SETTLED = "rounds settled"
ROUNDS_VOID = "rounds void"
"""Outcome meters of the rounds dealt in outcome mode: settled, voided."""


def outcome_key(bet: str, outcome: str, line: str = "") -> str:
    """The outcome meter of one bet's outcome: ``pair_plus win flush``, ``ante push``.

    Args:
        bet: ``ante``, ``play``, ``ante_bonus``, ``pair_plus``, ``six_card_bonus``.
        outcome: ``win``, ``push``, ``lose`` or ``refund``.
        line: a win's paytable line (the hand's key), empty for an even-money win.
    """
    return f"{bet} {outcome} {line}" if line else f"{bet} {outcome}"


def parse_outcome_key(key: str) -> tuple[str, str, str]:
    """Inverse of :func:`outcome_key`: ``(bet, outcome, line)``.

    Raises:
        ValueError: a rounds meter (:data:`ROUNDS_SETTLED`, :data:`ROUNDS_VOID`).
    """
    bet, outcome, *line = key.split(" ", 2)
    if bet == "rounds":
        raise ValueError(f"{key!r} counts rounds, not a bet's outcome")
    return bet, outcome, line[0] if line else ""


class Meters:
    """The meter rows, outcome meters and event counters of a table.

    Attributes:
        rows: meter name -> row.
        counters: event name -> how many times.
        outcomes: outcome meter (:func:`outcome_key`, :data:`ROUNDS_SETTLED`,
            :data:`ROUNDS_VOID`) -> how many times.
    """

    def __init__(self) -> None:
        self.rows: dict[str, MeterRow] = {}
        self.counters: dict[str, int] = {}
        self.outcomes: dict[str, int] = {}

    def count(self, name: str) -> None:
        """Add one to the event counter ``name``."""
        self.counters[name] = self.counters.get(name, 0) + 1

    def close_round(self, results: Iterable[tuple[int, Any]], settled: bool) -> None:
        """Add a finished round's results to the meters.

        Args:
            results: ``(seat, result)`` pairs; a result has ``bet``, ``outcome``,
                ``stake`` and ``net`` (:class:`~controller.game.bets.BetResult`).
            settled: the round was settled (not voided): it counts as a round played.
        """
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
        """Count a finished outcome-mode round in the outcome meters.

        Args:
            results: ``(seat, result)`` pairs, as :meth:`close_round` takes them.
            lines: seat -> bet -> the paytable line of its win (empty when none).
            settled: the round was settled (else voided).
        """
        counts = self.outcomes
        for key in [ROUNDS_SETTLED if settled else ROUNDS_VOID,
                    *(outcome_key(r.bet, r.outcome, lines.get(seat, {}).get(r.bet, ""))
                      for seat, r in results)]:
            counts[key] = counts.get(key, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        """Meters as journaled: ``{"rows": {name: [6 ints]}, "counters": {name: n}}``.

        ``"outcomes": {name: n}`` joins them once a round was dealt in outcome mode.
        """
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
