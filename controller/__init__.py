"""The game: cards, hands, rule profiles, settlement, par sheet and the round engine.

Nothing in this package imports pygame, pyserial or pyusb.
"""
