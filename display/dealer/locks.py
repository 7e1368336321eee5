"""What a PIN lockout and a supervisor's PIN change on the dealer screen.

* A lockout in sight: while PIN entry is locked (wrong PINs in a row, docs/requirements.md
  R12) the alarm strip says so with the time left (:func:`lock_banner`), and every action
  that needs a supervisor's PIN shows as locked with that time (:func:`locked_label`);
  the count is the pad's, m:ss (:func:`clock`).
* The PIN after every void: Next round asks a supervisor's PIN after every kind of void,
  the one a supervisor declared too, as the table does (:func:`pin_asked`, docs/rules.md
  "Void").
* The taps after a pad: for :data:`GUARD_SECONDS` after a pad closes or a round opens, a
  tap on a bet where the pad was places nothing (:class:`PadShadow`); a line says why.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from controller.game.views import Banner, DealerView
from display.dealer import actions as A  # noqa: N812 - the screen actions
from display.dealer.undo import BET_COMMANDS
from display.i18n import Translator

GUARD_SECONDS = 0.6
"""After a pad closes or a round opens, taps where the pad was place no bet for this long.

A PIN typed out of habit comes at three to four taps a second, and the table answers a
PIN within a frame or two: the one or two taps that follow the pad's closing land in
this time. A dealer who means to bet looks at the seats first, which takes longer. It is
a little longer than the large button's own :data:`~display.dealer.state.ARM_SECONDS`.
"""
LOCKED = "pin_locked"
"""The kind of the alarm a PIN lockout shows in the strip."""
BET_ACTIONS = (A.AddChip, *BET_COMMANDS)
"""What a tap on a seat's bets does: the actions the guard holds."""


def clock(seconds: int) -> str:
    """``4:05`` for 245 seconds (a lockout's time left)."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def pin_asked(view: DealerView, name: str) -> bool:
    """True when the screen asks a supervisor's PIN before the command ``name``.

    The table's own asks (:attr:`~controller.game.views.DealerView.pin_needed`): Next
    round after every void among them, so a PIN typed out of habit never lands on the bets.
    """
    return name in view.pin_needed


def lock_banner(left: int) -> Banner | None:
    """The alarm of a PIN lockout with ``left`` seconds to run, or None when there is none."""
    if left <= 0:
        return None
    return Banner(LOCKED, "warning", params={"time": clock(left)})


def locked_note(tr: Translator, left: int) -> str:
    """``locked 0:58``: under an action that needs a PIN while PIN entry is locked."""
    return tr("word.pin_locked", time=clock(left))


@dataclass(slots=True)
class PadShadow:
    """Where a pad was, and when it closed or the round opened: taps there wait a moment.

    Attributes:
        rect: the pad's place on the last frame it was drawn (or would be).
        since: when the pad closed or the round opened, monotonic seconds.
        open: a pad was open on the last frame.
        round_id: the round last seen.
    """

    rect: pygame.Rect | None = None
    since: float = -1e9
    open: bool = False
    round_id: int | None = None

    def watch(self, view: DealerView, pad_open: bool, rect: pygame.Rect, now: float) -> None:
        """See a frame: a pad closed since the last, or a new round opened for bets."""
        self.rect = pygame.Rect(rect)
        if self.open and not pad_open:
            self.since = now
        opened = self.round_id is not None and view.round_id != self.round_id
        if opened and view.state == "betting":
            self.since = now
        self.open, self.round_id = pad_open, view.round_id

    def guarding(self, now: float) -> bool:
        """Within :data:`GUARD_SECONDS` of a pad closing or a round opening."""
        return 0 <= now - self.since < GUARD_SECONDS

    def holds(self, action: object, pos: tuple[int, int] | None, now: float) -> bool:
        """True when a tap at ``pos`` doing ``action`` is dropped.

        A bet, where the pad was, within :data:`GUARD_SECONDS`; keys (``pos`` None) are
        never held.
        """
        return (pos is not None and self.rect is not None and isinstance(action, BET_ACTIONS)
                and self.guarding(now) and self.rect.collidepoint(pos))
