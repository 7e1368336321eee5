"""The pure game core of the table: cards, hands, rules, the round engine, journal, recall, views.

It imports no ``drivers``, ``display``, ``simulators``, pygame, pyserial, pyusb or argparse;
``events`` and ``codes`` are leaves every package may import (docs/architecture.md).
"""
