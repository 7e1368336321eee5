"""What Undo takes back while betting: the last change the table accepted, whole.

Every bet command the screen posts (a chip, a mark, Clear, a seat's Rebet, Rebet all)
is remembered with the seats' wagers as the screen saw them when it was posted. Once the
table has answered (its view has moved on) the change it made is read from the view:
nothing when it was refused, so a refused chip leaves nothing to undo. Undo posts the
commands that take that change back: a chip or a rebet comes off
(:class:`~controller.game.inputs.RemoveChip`), a cleared seat's wagers go back
(:class:`~controller.game.inputs.PlaceBet`); in outcome mode the marks are set back
(:class:`~controller.game.inputs.MarkBet`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.game import inputs as C  # noqa: N812 - the input declarations
from controller.game.bet_types import PLAY
from controller.game.views import DealerView

Wagers = dict[int, dict[str, int]]
"""Seat -> bet -> amount (the Play aside)."""
Change = tuple[tuple[int, str, int], ...]
"""(seat, bet, amount added; negative: taken off), in seat and bet order."""
BET_COMMANDS = (C.PlaceBet, C.MarkBet, C.ClearBets, C.Rebet)
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


def reverse(done: Change, outcomes: bool) -> list[C.DealerCommand]:
    """The commands that take ``done`` back (``outcomes``: bets are marks)."""
    cmds: list[C.DealerCommand] = []
    for seat, bet, delta in done:
        if outcomes:
            cmds.append(C.MarkBet(seat=seat, bet=bet, on=delta < 0))  # type: ignore[arg-type]
        elif delta > 0:
            cmds.append(C.RemoveChip(seat=seat, bet=bet, amount=delta))  # type: ignore[arg-type]
        else:
            cmds.append(C.PlaceBet(seat=seat, bet=bet, amount=-delta))  # type: ignore[arg-type]
    return cmds


@dataclass(slots=True)
class UndoLog:
    """The changes of this round's betting the table accepted, newest last.

    Attributes:
        done: the accepted changes.
        asked: (the wagers seen, the view's version) of a bet command posted and not yet
            answered, or None.
    """

    done: list[Change] = field(default_factory=list)
    asked: tuple[Wagers, int] | None = None

    def clear(self) -> None:
        """Forget everything (a new round)."""
        self.done.clear()
        self.asked = None

    def posted(self, cmd: C.DealerCommand, view: DealerView) -> None:
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

    def target(self, view: DealerView) -> list[C.DealerCommand]:
        """The commands Undo posts now (none: nothing to take back)."""
        if view.state != "betting" or not self.done:
            return []
        cmds = reverse(self.done[-1], view.bet_entry == "outcomes")
        return cmds if all(c.name in view.allowed for c in cmds) else []

    def take(self, view: DealerView) -> list[C.DealerCommand]:
        """The commands of :meth:`target`; the change they take back is forgotten."""
        cmds = self.target(view)
        if cmds:
            self.done.pop()
        return cmds
