"""The floor feed as ``threecard run`` and ``simulate`` wire it (``--floor``, ``--table-id``).

The feed (:mod:`floor.publisher`) is loaded only when a broker is configured; it reads the
journal in a thread of its own and the table only wakes it after each commit.
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.game.config import ConfigError, TableConfig

DRAIN_S = 2.0
"""At a stop, how long the feed may go on sending what is left while connected."""


def add_floor_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--floor URL`` and ``--table-id ID``."""
    parser.add_argument("--floor", metavar="URL",
                        help="the floor's MQTT broker, mqtt://HOST[:1883] or "
                        "mqtts://HOST[:8883]: rounds, meters and alarms are published there "
                        "from the journal (overrides [floor] broker)")
    parser.add_argument("--table-id", metavar="ID",
                        help="the table's id, 1 to 32 of A-Z a-z 0-9 _ -: on the screens, in "
                        "the journal and in the floor's topics (overrides [table] id)")


def floor_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration fields ``--floor`` and ``--table-id`` set (None: not given)."""
    return {"floor_broker": args.floor, "table_id": args.table_id}


class _NoFeed:
    """No floor configured: nothing to stop, nothing left to send."""

    left = 0

    def stop(self, drain_s: float = 0.0) -> None:
        """Nothing to do."""


NO_FEED = _NoFeed()


def check_floor(config: TableConfig, journal: str | None = None) -> None:
    """Check ``[floor]`` before the journal opens: its files can be read and used.

    Args:
        config: the configuration.
        journal: the journal's path (default the configuration's): the feed reads it, so
            it must be a file, not ``:memory:``.

    Raises:
        ConfigError: naming the setting (``[floor] ca_file ...: not a PEM file ...``).
    """
    if not config.floor_broker:
        return
    from floor.mqtt import FloorError, settings_from

    if (journal or config.journal_path) == ":memory:":
        raise ConfigError("the floor feed reads the journal: it needs a "
                          "journal file, not :memory:")

    try:
        settings_from(config).check()
    except FloorError as exc:
        raise ConfigError(f"{config.source}: {exc}" if config.source else str(exc)) from None


def open_floor(config: TableConfig, table: Any, drain_s: float = DRAIN_S) -> Any:
    """Start the floor feed of an open table (:data:`NO_FEED` when no broker is set).

    Args:
        config: the configuration (``[floor]`` and the table id).
        table: the open :class:`~controller.game.table.Table`; its journal is followed.
        drain_s: what ``stop()`` allows by default for sending what is left.

    Returns:
        An object whose ``stop()`` ends the feed.

    Raises:
        ConfigError: a ``[floor]`` setting that cannot be used (a file that cannot be read).
    """
    if not config.floor_broker:
        return NO_FEED
    from floor.mqtt import FloorError, settings_from
    from floor.publisher import FloorPublisher

    try:
        feed = FloorPublisher(settings_from(config), table.journal.path, config.table_id,
                              drain_s=drain_s)
    except FloorError as exc:
        raise ConfigError(f"{config.source}: {exc}" if config.source else str(exc)) from None
    table.subscribe(feed.wake)
    return feed.start()
