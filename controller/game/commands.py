"""Dealer commands, as :mod:`controller.game.inputs` declares them (this module only re-exports).

Each command is declared once, in :mod:`controller.game.inputs`: its name, fields, types,
ranges and the role it needs.
"""

from controller.game.inputs import (
    ChangePin,
    ClearBets,
    ConfigChange,
    DealerCommand,
    Decide,
    ExposedCard,
    ManualCard,
    NewDeck,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    VoidRound,
)

__all__ = ["ChangePin", "ClearBets", "ConfigChange", "DealerCommand", "Decide", "ExposedCard",
           "ManualCard", "NewDeck", "NextRound", "NoMoreBets", "PlaceBet", "Rebet", "Resume",
           "Reveal", "Settle", "UnblockDeck", "VoidRound"]
