"""What Undo takes back while betting: the last change the table accepted, whole.

Each bet command posted is remembered with the wagers seen then; the change is read from
the view once the table answers (a refused one leaves nothing to undo).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.game import inputs
from controller.game.bet_types import PLAY
from controller.game.views import DealerView

Wagers = dict[int, dict[str, int]]
"""Seat -> bet -> amount (the Play aside)."""
Change = tuple[tuple[int, str, int], ...]
"""(seat, bet, amount added; negative: taken off), in seat and bet order."""
BET_COMMANDS = (inputs.PlaceBet, inputs.MarkBet, inputs.ClearBets, inputs.Rebet)
"""The commands whose change Undo takes back."""


def wagers(view: DealerView) -> Wagers:
    """The seats' wagers in ``view`` (the Play aside)."""
    return {s.seat: {k: v for k, v in s.bets.items() if k != PLAY} for s in view.seats}


def change(before: Wagers, after: Wagers) -> Change:
    """What changed from ``before`` to ``after``."""
    out = []
    for seat in sorted(set(before) | set(after)):
        b, a = before.get(seat, {}), after.get(seat, {})
        for bet in sorted(set(b) | set(a)):
            delta = a.get(bet, 0) - b.get(bet, 0)
            if delta:
                out.append((seat, bet, delta))
    return tuple(out)


def reverse(done: Change, outcomes: bool) -> list[inputs.DealerCommand]:
    """The commands that take ``done`` back (``outcomes``: bets are marks)."""
    cmds: list[inputs.DealerCommand] = []
    for seat, bet, delta in done:
        if outcomes:
            cmds.append(inputs.MarkBet(seat=seat, bet=bet, on=delta < 0))  # type: ignore[arg-type]
        elif delta > 0:
            cmds.append(inputs.RemoveChip(seat=seat, bet=bet, amount=delta))  # type: ignore[arg-type]
        else:
            cmds.append(inputs.PlaceBet(seat=seat, bet=bet, amount=-delta))  # type: ignore[arg-type]
    return cmds


@dataclass(slots=True)
class UndoLog:
    """The changes of this round's betting the table accepted, newest last."""

    done: list[Change] = field(default_factory=list)
    asked: tuple[Wagers, int] | None = None

    def clear(self) -> None:
        """Forget everything (a new round)."""
        self.done.clear()
        self.asked = None

    def posted(self, cmd: inputs.DealerCommand, view: DealerView) -> None:
        """``cmd`` was posted while ``view`` was the newest: remember a bet command."""
        if isinstance(cmd, BET_COMMANDS):
            self.asked = (wagers(view), view.version)

    def seen(self, view: DealerView) -> None:
        """A newer view: the change of the command asked, if it was accepted, is done."""
        if self.asked is None or view.version <= self.asked[1]:
            return
        made = change(self.asked[0], wagers(view))
        self.asked = None
        if made:
            self.done.append(made)

    def target(self, view: DealerView) -> list[inputs.DealerCommand]:
        """The commands Undo posts now (none: nothing to take back)."""
        if view.state != "betting" or not self.done:
            return []
        cmds = reverse(self.done[-1], view.bet_entry == "outcomes")
        return cmds if all(c.name in view.allowed for c in cmds) else []

    def take(self, view: DealerView) -> list[inputs.DealerCommand]:
        """The commands of :meth:`target`; the change they take back is forgotten."""
        cmds = self.target(view)
        if cmds:
            self.done.pop()
        return cmds
