"""The paytable line a win was paid on, as both screens and game recall name it.

A win of the Ante Bonus, Pair Plus or 6 Card Bonus carries its line (:attr:`~controller.game
.views.BetLine.line`): the screens write it under the bet's amount, by the hand's name in the
screen's language and the pay as the paytables write it ("Mini royal  100:1"), and recall
beside the bet ("Pair Plus: Mini royal 100:1"). The seat's own hand keeps its name apart.
"""

from __future__ import annotations

from controller.game.numbers import ODDS_COLON
from controller.game.views import BetLine
from display.i18n import Translator


def line_parts(tr: Translator, r: BetLine, form: str = ODDS_COLON) -> tuple[str, str] | None:
    """(the line's name, its pay in the screen's odds ``form``) for a win paid on a
    paytable line, else None."""
    if r.outcome != "win" or not r.line:
        return None
    return tr.hand(r.line), tr.odds(r.multiple, form)


def named_line(tr: Translator, bet_name: str, r: BetLine, form: str = ODDS_COLON) -> str:
    """``Pair Plus: Mini royal 100:1`` (``bet_name`` as the screen writes the bet); "" if none."""
    parts = line_parts(tr, r, form)
    if parts is None:
        return ""
    return tr("result.paid_line", bet=bet_name, line=parts[0], odds=parts[1])
