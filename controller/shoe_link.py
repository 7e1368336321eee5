"""The shoe as the daemon wires it: its configuration checked, then its link built.

The configuration belongs to the pure game core, which imports no driver; its
``shoe.dialect`` and ``shoe.url`` are checked here, against
:data:`drivers.dialects.DIALECTS` and :data:`drivers.url.SCHEMES`, before anything
starts. The drivers are imported only when these functions run.
"""

from __future__ import annotations

import queue
from typing import TYPE_CHECKING, Any

from controller.game.config import ConfigError, TableConfig

if TYPE_CHECKING:
    from drivers.link import ShoeLink


def check_shoe(config: TableConfig) -> None:
    """Check the configured dialect and shoe URL against the drivers' registries.

    Raises:
        ConfigError: naming the file and the key: a dialect not in the registry, a URL
            whose scheme is not registered or that names an unknown dialect.
    """
    from drivers.dialects import dialect_named
    from drivers.url import parse_shoe_url

    for key, check, value in (("shoe.dialect", dialect_named, config.dialect),
                              ("shoe.url", parse_shoe_url, config.shoe_url)):
        try:
            check(value)
        except ValueError as exc:
            raise ConfigError(f"{config.source}: {key}: {exc}") from None


def open_shoe(config: TableConfig, inbox: queue.Queue[Any]) -> ShoeLink:
    """Build (not start) the link of the configured shoe.

    Args:
        config: the table's configuration: ``shoe_url``, ``dialect`` (used when the URL
            names none) and ``silent_after_ms``.
        inbox: the table's inbox, which receives the shoe's events.

    Returns:
        The link.

    Raises:
        ConfigError: a URL or option the drivers refuse, or a port that cannot be set up.
    """
    from drivers import open_link

    try:
        return open_link(config.shoe_url, inbox, dialect=config.dialect,
                         silence_timeout=config.silent_after_ms / 1000)
    except (ValueError, OSError) as exc:
        raise ConfigError(f"shoe {config.shoe_url}: {exc}") from None
