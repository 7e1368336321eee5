"""A shift's observed returns per bet and rule profile, beside each profile's exact return.

A round counts towards the profile it was settled under; outcome rounds (units, not money)
are left out. :class:`ReturnTally` keeps running sums and thinned plot points, never the
rounds, so a long journal's report holds no more than a short one's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from controller.game.bet_types import GROUPS, PER_SEAT_GROUPS
from controller.game.par_sheet import BetAnalysis, ParSheet
from controller.game.records import AMOUNTS

#: the bets whose return the par sheet gives -> the meters each one's result is made of
BET_GROUPS: dict[str, tuple[str, ...]] = GROUPS
#: the groups whose seat is one trial of :func:`standard_error`; in the others a round is
#: one (they share the dealer's cards: its seats wholly correlated, an upper bound)
PER_SEAT = PER_SEAT_GROUPS


@dataclass(frozen=True, slots=True)
class ReturnLine:
    """One bet's observed return over the rounds settled under one profile, and its exact.

    ``exact`` follows the par sheet's strategy (a side bet loses on a fold), ``paytable`` is
    the paytable's own return; ``stake`` and ``net`` are minor units (Ante/Play: the Antes).
    ``points`` are (rounds, observed return, exact standard error), thinned (:class:`Thinned`).
    """

    group: str
    exact: Fraction
    paytable: Fraction
    stake: int
    net: int
    points: tuple[tuple[int, float, float], ...]
    profile: str = ""

    @property
    def observed(self) -> float | None:
        """The return over the period (None when nothing was staked)."""
        return 1 + self.net / self.stake if self.stake else None


def exact_returns(sheet: ParSheet, group: str) -> tuple[Fraction, Fraction] | None:
    """A bet group's (par sheet strategy, paytable) returns under a profile; None if not offered."""
    analyses = bet_analyses(sheet, group)
    return None if analyses is None else (analyses[0].rtp, analyses[1].rtp)


def bet_analyses(sheet: ParSheet, group: str) -> tuple[BetAnalysis, BetAnalysis] | None:
    """A bet group's (par sheet strategy, paytable) analyses; None if the profile lacks the bet."""
    paytable = sheet.ante_play if group == "ante_play" else getattr(sheet, group)
    if paytable is None:
        return None
    return sheet.with_strategy.get(group, paytable), paytable


def standard_error(variance: Fraction, rounds: int, stake: int, stake_squares: int) -> float:
    """The standard error of an observed return (net over stake, plus one), from the exact variance.

    ``sqrt(variance * sum of each trial's stake squared) / stake``. A Pair Plus hand is its
    own trial; Ante/Play and 6 Card Bonus seats share the dealer's cards, so the round is the
    trial (an upper bound, at most ``sqrt(seats)`` wide; :data:`PER_SEAT`).
    """
    if not rounds or not stake:
        return 0.0
    return math.sqrt(float(variance) * stake_squares) / stake


PLOT_POINTS = 2000
"""Most points a plot's series keeps: more than a page shows, bounded in memory."""


class Thinned:
    """A series' points, evenly thinned to at most :data:`PLOT_POINTS` and one, newest kept.

    Past the limit every other point is dropped, then one in two (four, ...) is kept.
    """

    def __init__(self, limit: int = PLOT_POINTS) -> None:
        self._limit = limit + limit % 2  # even: the last kept point survives a halving
        self._step = 1
        self._n = 0
        self._kept: list[Any] = []
        self._last: Any = None

    def add(self, point: Any) -> None:
        """Add the series' next point."""
        if self._n % self._step == 0:
            self._kept.append(point)
            if len(self._kept) > self._limit:
                del self._kept[1::2]
                self._step *= 2
        self._n += 1
        self._last = point

    def points(self) -> list[Any]:
        """The points kept, oldest first, ending with the newest point added."""
        if self._kept and self._kept[-1] is not self._last:
            return [*self._kept, self._last]
        return list(self._kept)

    def __len__(self) -> int:
        """Points added in all (kept or not)."""
        return self._n


class ReturnTally:
    """Running sums of each bet's result per rule profile, one settled round at a time."""

    def __init__(self) -> None:
        # (profile index, group) -> [rounds, stake, sum of nets, sum of trials' squared
        # stakes (a trial: a seat's hand, or a round: PER_SEAT)]
        self._sums: dict[tuple[int, str], list[int]] = {}
        self._points: dict[tuple[int, str], Thinned] = {}

    def add(self, rec: dict[str, Any], profile: int) -> None:
        """Count one closed round (recall form) under ``profile``; unsettled or outcome: skipped."""
        if rec["status"] != "settled" or rec.get("bet_entry", AMOUNTS) != AMOUNTS:
            return
        for group, bets in BET_GROUPS.items():
            results = [s["results"] for s in rec["seats"] if bets[0] in s["results"]]
            if not results:
                continue
            stake = sum(x[bets[0]]["stake"] for x in results)
            net = sum(x[b]["net"] for x in results for b in bets if b in x)
            s = self._sums.setdefault((profile, group), [0, 0, 0, 0])
            s[0] += 1
            s[1] += stake
            s[2] += net
            s[3] += (sum(x[bets[0]]["stake"] ** 2 for x in results) if group in PER_SEAT
                     else stake * stake)
            n, staked = s[0], s[1]
            self._points.setdefault((profile, group), Thinned()).add(
                (n, 1 + s[2] / staked if staked else 1.0, staked, s[3]))

    def lines(self, profiles: list[tuple[str, ParSheet]]) -> list[ReturnLine]:
        """The lines, profile by profile, bet by bet; ``profiles``: (label, par sheet) by index."""
        out = []
        for i, (label, sheet) in enumerate(profiles):
            for group in BET_GROUPS:
                s = self._sums.get((i, group))
                analyses = bet_analyses(sheet, group)
                if s is None or analyses is None:
                    continue
                played, paytable = analyses
                points = tuple((n, r, standard_error(played.variance, n, staked, squares))
                               for n, r, staked, squares in self._points[i, group].points())
                out.append(ReturnLine(group, played.rtp, paytable.rtp, s[1], s[2], points,
                                      label))
        return out


__all__ = ["BET_GROUPS", "PER_SEAT", "PLOT_POINTS", "ReturnLine", "ReturnTally", "Thinned",
           "bet_analyses", "exact_returns", "standard_error"]
