"""The pure game core of the table.

Cards, hands, rules, settlement, the par sheet, the round engine (``engine``, orchestrating
its typed parts: ``round``, ``bets``, ``deal``, ``dealing``, ``shoe_link``, ``meters``,
``records``, ``roles``), the journal, game recall, the views, the one declaration of every
input (``inputs``), and the shared vocabulary (cards, shoe events).

Nothing here imports ``drivers``, ``display``, ``simulators``, pygame, pyserial, pyusb or
argparse: the daemon and the ``threecard`` subcommands in :mod:`controller` wire those parts
to this core. ``events`` and ``codes`` are leaves every package may import; ``inputs`` imports only
``events``, the configuration's bounds (``config``), the power-up record (``power_up``) and
the rule for free text (``text``: what may be kept, drawn and printed).
"""
