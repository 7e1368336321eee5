"""The dealer-facing screen, as panels that draw from the view and return typed actions.

:class:`~display.dealer.screen.DealerScreen` draws the panels in their fixed places
(:mod:`display.dealer.layout`): the next step and the large button
(:mod:`~display.dealer.next_action`), the shoe link (:mod:`~display.dealer.header`), the
alarm strip (:mod:`~display.dealer.alarms`), the dealer's hand (:mod:`~display.dealer.hand`),
the seats (:mod:`~display.dealer.seat`) with their payout list
(:mod:`~display.dealer.payouts`), the chip tray (:mod:`~display.dealer.chips`), the tools
(:mod:`~display.dealer.tools`), the supervisor's pads (:mod:`~display.dealer.pads`), game
recall (:mod:`~display.dealer.recall`) and the meters (:mod:`~display.dealer.meters`).
Every button carries a dealer command (:mod:`controller.game.inputs`) or a screen action
(:mod:`~display.dealer.actions`).
"""

from display.dealer.input import key_name
from display.dealer.screen import DealerScreen
from display.dealer.state import DealerUI

__all__ = ["DealerScreen", "DealerUI", "key_name"]
