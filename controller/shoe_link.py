"""The shoe as the daemon wires it: its configuration checked, then its link built.

The configuration belongs to the pure game core, which imports no driver; its
``shoe.dialect`` and ``shoe.url`` are checked here, against
:data:`drivers.dialects.DIALECTS` and :data:`drivers.url.SCHEMES`, before anything
starts. The drivers are imported only when these functions run, and the simulated shoe
only for a ``sim://`` URL (importing it registers ``sim`` in the drivers' schemes).
"""

from __future__ import annotations

import logging
import queue
from typing import TYPE_CHECKING, Any

from controller.game.config import DEMO_SHOE, ConfigError, TableConfig

if TYPE_CHECKING:
    from drivers.link import ShoeLink

log = logging.getLogger(__name__)


def _register_simulator(url: str) -> None:
    """Import the simulated shoe, which registers ``sim://``, when ``url`` is one.

    The drivers never import a simulator: the wiring loads it, and only for its URL.
    """
    scheme, sep, _ = url.strip().partition("://")
    if sep and scheme.lower() == "sim":
        import simulators.sim_link  # noqa: F401  (registers sim:// on import)


def shoe_schemes() -> tuple[str, ...]:
    """The shoe URL schemes: those ``--shoe``'s help lists and a bad scheme's error names.

    They are the drivers' registry (:data:`drivers.url.SCHEMES`) and the simulated shoe's,
    which registers itself when a ``sim://`` URL is used.
    """
    from drivers.url import SCHEMES

    return tuple(dict.fromkeys([*SCHEMES, DEMO_SHOE.partition(":")[0]]))


def check_shoe(config: TableConfig, warn_dialect: bool = True) -> None:
    """Check the configured dialect and shoe URL before anything starts.

    The dialect and the URL's scheme are looked up in the drivers' registries, and the
    URL's connector is built (never opened), so that its scheme refuses a target or an
    option it does not take now, not once the journal is open.

    Args:
        config: the table's configuration.
        warn_dialect: log a warning naming both when the URL names a dialect other than
            the one ``shoe.dialect`` (or ``--dialect``) sets: the URL's wins.

    Raises:
        ConfigError: naming the flag, or the file and the key: a dialect not in the
            registry, a URL whose scheme is not registered, that names an unknown dialect,
            or whose target or options its scheme refuses.
    """
    from drivers.dialects import dialect_named
    from drivers.url import make_connector, parse_shoe_url

    _register_simulator(config.shoe_url)
    try:
        dialect = dialect_named(config.dialect)
    except ValueError as exc:
        raise ConfigError(f"{config.place('dialect')}: {exc}") from None
    try:
        parsed = parse_shoe_url(config.shoe_url, shoe_schemes())
        if parsed.dialect is not None:
            dialect = dialect_named(parsed.dialect)
        # built, never opened, and closed again: a simulated shoe's runs from the start
        make_connector(parsed, dialect).close()
    except ValueError as exc:
        raise ConfigError(f"{config.place('shoe_url')}: {exc}") from None
    if warn_dialect and "dialect" in config.given and parsed.dialect not in (None,
                                                                            config.dialect):
        log.warning("the shoe URL %s names dialect %s: it wins over shoe.dialect (or "
                    "--dialect) %s", config.shoe_url, parsed.dialect, config.dialect)


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

    _register_simulator(config.shoe_url)
    try:
        return open_link(config.shoe_url, inbox, dialect=config.dialect,
                         silence_timeout=config.silent_after_ms / 1000)
    except (ValueError, OSError) as exc:
        raise ConfigError(f"shoe {config.shoe_url}: {exc}") from None
