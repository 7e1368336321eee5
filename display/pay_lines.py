"""The paytable line a win was paid on, as both screens and game recall name it.

The screens write it under the amount ("Mini royal  100:1"), recall beside the bet
("Pair Plus: Mini royal 100:1"); outcome mode names the line alone, none where it is the
seat's own hand, so that no line reads as another bet's result.
"""

from __future__ import annotations

from controller.game.numbers import ODDS_COLON
from controller.game.views import BetLine
from display.i18n import Translator


def line_parts(tr: Translator, r: BetLine, form: str = ODDS_COLON) -> tuple[str, str] | None:
    """(the line's name, its pay in the screen's odds ``form``) of a paytable win, else None."""
    if r.outcome != "win" or not r.line:
        return None
    return tr.hand(r.line), tr.odds(r.multiple, form)


def seat_line(tr: Translator, r: BetLine, form: str = ODDS_COLON, hand: str | None = None,
              outcomes: bool = False) -> tuple[str, str] | None:
    """The line a seat writes under a win paid on a paytable line: (name, pay), else None.

    Outcome mode: (name, "") where the line is not the seat's ``hand``, else None.
    """
    parts = line_parts(tr, r, form)
    if parts is None or not outcomes:
        return parts
    return None if r.line == hand else (parts[0], "")


def named_line(tr: Translator, bet_name: str, r: BetLine, form: str = ODDS_COLON) -> str:
    """``Pair Plus: Mini royal 100:1`` (``bet_name`` as the screen writes the bet); "" if none."""
    parts = line_parts(tr, r, form)
    if parts is None:
        return ""
    return tr("result.paid_line", bet=bet_name, line=parts[0], odds=parts[1])
