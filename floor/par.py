"""A profile's exact returns on the floor, and the hold they give beside the meters' own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from controller.game.rules import RuleProfile
from controller.game.shift_returns import BET_GROUPS, exact_returns


def profile_returns(profile: RuleProfile) -> dict[str, str]:
    """Each bet group's exact return under ``profile`` (empty when the counts are damaged)."""
    from controller.game.par_sheet import profile_sheet

    sheet = profile_sheet(profile)
    if sheet is None:
        return {}
    return {g: f"{r[0].numerator}/{r[0].denominator}" for g in BET_GROUPS
            if (r := exact_returns(sheet, g)) is not None}


def expected_hold_ppm(rows: Mapping[str, Sequence[int]], returns: Mapping[str, str]
                      ) -> int | None:
    """The hold the exact returns give for what was staked, parts per million (rounded).

    A group's return is per unit of its first stake (Ante/Play: per Ante); the house keeps
    ``(1 - return) * stake``, over everything wagered (``total``, Play included). None when
    nothing was wagered, or a bet was staked whose return is not known.
    """
    total = rows.get("total")
    if not total or total[0] <= 0 or not returns:
        return None
    keep = Fraction(0)
    for group, bets in BET_GROUPS.items():
        staked = rows.get(bets[0], (0,))[0]
        if not staked:
            continue
        if group not in returns:
            return None
        keep += (1 - Fraction(returns[group])) * staked
    ppm = keep * 1_000_000 / total[0]
    return int(ppm + Fraction(1, 2)) if ppm >= 0 else -int(-ppm + Fraction(1, 2))
