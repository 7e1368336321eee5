"""What a PIN lockout and a supervisor's PIN change on the dealer screen.

A lockout (docs/requirements.md R12) shows its time left, m:ss, on the alarm strip, on each
PIN action and for each PIN key pressed; Next round asks a PIN after every void, as
docs/rules.md "Void" says; taps on a bet where a pad just was place nothing; a pad whose
action the table no longer takes closes, and the refusal line says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pygame

from controller.game import inputs
from controller.game.refusals import Refusal
from controller.game.views import Banner, DealerView
from display.dealer import actions
from display.dealer.undo import BET_COMMANDS
from display.i18n import Translator
from display.painter import Frame

if TYPE_CHECKING:  # the screen's state reads this module: only its type here
    from display.dealer.state import DealerUI

GUARD_SECONDS = 0.6
"""After a pad closes or a round opens, taps where the pad was place no bet for this long.

A PIN typed out of habit runs at 3-4 taps a second and is answered within a frame or two,
so its last taps land in this time; a dealer who means to bet looks at the seats first.
"""
LOCKED = "pin_locked"
"""The kind of the alarm a PIN lockout shows in the strip."""
BET_ACTIONS = (actions.AddChip, *BET_COMMANDS)
"""What a tap on a seat's bets does: the actions the guard holds."""
PAD_STEPS = frozenset({"reason", "card", "pin"})
"""The pads being filled in (not ``wait``: sent, the table's answer to come)."""
REFUSED = "rejected"
"""The banner kind of a refusal (:data:`display.dealer.state.REJECTED`)."""


def clock(seconds: int) -> str:
    """``4:05`` for 245 seconds (a lockout's time left)."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def pin_asked(view: DealerView, name: str) -> bool:
    """True when the screen asks a supervisor's PIN before the command ``name``.

    The table's asks, and Next round after every void (the screen asks it after a
    supervisor's void too: a PIN typed out of habit never lands on the bets).
    """
    return name in view.pin_needed or (
        name == inputs.NextRound.name and view.state == "void"
        and name in view.allowed)


def lock_banner(left: int) -> Banner | None:
    """The alarm of a PIN lockout with ``left`` seconds to run, or None when there is none."""
    if left <= 0:
        return None
    return Banner(LOCKED, "warning", params={"time": clock(left)})


def locked_note(tr: Translator, left: int) -> str:
    """``locked 0:58``: under an action that needs a PIN while PIN entry is locked."""
    return tr("word.pin_locked", time=clock(left))


def locked_key(tr: Translator, frame: Frame, key: str, view: DealerView,
               left: int) -> Banner | None:
    """What a PIN key pressed while PIN entry is locked says, or None when it is not held.

    The keyboard has no face to show the lock, so the refusal line names the action, the
    key and the ``left`` seconds.
    """
    if left <= 0:
        return None
    held = next((b.action.command for b in reversed(frame.buttons)
                 if key in b.keys and not b.enabled and isinstance(b.action, actions.OpenPad)
                 and b.action.command in view.allowed), None)
    if held is None:
        return None
    text = tr("refusal.key_pin_locked", action=tr(f"btn.{held}"), pressed=tr.key(key),
              time=clock(left))
    return Banner(REFUSED, message=text)


def pad_refusal(view: DealerView, command: str) -> Banner:
    """Why the table no longer takes ``command``, as a refusal banner.

    Reopen bets once a card is read (a burn too): ``cards_dealt``; others: the state.
    """
    now = view.recall[0] if view.recall else None
    if (command == inputs.ReopenBets.name and now is not None and now.status == "in_progress"
            and now.round_id == view.round_id and now.deal):
        refusal = Refusal("cards_dealt", {"cards": len(now.deal)})
    else:
        refusal = Refusal("not_allowed_now", {"command": command, "state": view.state})
    return Banner(REFUSED, message=refusal.journal_text(),
                  params={"input": command, "currency": view.currency, **refusal.as_params()})


def close_left_pad(ui: DealerUI, view: DealerView, now: float) -> None:
    """Close a pad whose action the table no longer takes, and say why on the refusal line.

    No PIN can do it any more, so the screen goes back to the deal without a Cancel; a pad
    waiting for its answer stays.
    """
    if ui.pad not in PAD_STEPS or not ui.pad_action:
        return
    if ui.pad_action in view.allowed:
        ui.pad_seen = True
    elif ui.pad_seen:
        ui.own_refusal = (pad_refusal(view, ui.pad_action), now)
        ui.reset_pad()


@dataclass(slots=True)
class PadShadow:
    """Where a pad was, and since when (monotonic seconds): taps there wait a moment."""

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
        """True for a bet tapped where the pad was within :data:`GUARD_SECONDS` (not keys)."""
        return (pos is not None and self.rect is not None and isinstance(action, BET_ACTIONS)
                and self.guarding(now) and self.rect.collidepoint(pos))
