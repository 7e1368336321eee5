"""The pure game core of the table.

Cards, hands, rules, settlement, the par sheet, the round engine, the journal, game recall,
the views, and the shared vocabulary (cards, shoe events).

Nothing here imports ``drivers``, ``display``, ``simulators``, pygame, pyserial, pyusb or
argparse: the daemon and the ``threecard`` subcommands in :mod:`controller` wire those parts
to this core. ``events`` and ``codes`` are leaves every package may import.
"""
