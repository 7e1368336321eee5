"""The dealer-facing screen: panels, a module each, that draw from the view in fixed places.

Every button carries a dealer command or a screen action (:mod:`~display.dealer.actions`).
"""

from display.dealer.input import key_name
from display.dealer.screen import DealerScreen
from display.dealer.state import DealerUI

__all__ = ["DealerScreen", "DealerUI", "key_name"]
