"""Shoe URLs: one string names the shoe, its transport and its dialect.

Every scheme is listed once, in :data:`SCHEMES` (scheme -> the opener that builds its
connector, named by ``"module:function"`` and imported only when a URL of that scheme is
opened). Forms:

* ``serial:///dev/card-shoe?dialect=beetek&baud=9600`` or a bare ``/dev/...`` path;
  globs are allowed (``serial:///dev/serial/by-id/usb-1a86_*``);
* ``serial://1a86:7523[:SERIAL]?dialect=beetek``: a USB-serial adapter by VID:PID; it
  must match one port (two matching adapters are refused, never guessed between);
* ``socket://127.0.0.1:7100?dialect=native``, ``rfc2217://host:port``, ``loop://``,
  ``spy://...``: handed to pyserial (its own options are kept); a ``socket://`` or
  ``rfc2217://`` URL without a host or a port is refused when it is parsed;
* ``usb://1209:7a01[:SERIAL]?dialect=native``: a vendor-class USB shoe (pyusb);
* ``memory://NAME`` (glob allowed): an in-process pair (tests);
* ``sim://?seed=7&dialect=native&interval=500&packs=1``: an in-process simulated shoe,
  registered by the simulators themselves (importing :mod:`simulators.sim_link` calls
  :func:`register_scheme`); the drivers never import a simulator.

Query options of every scheme: ``dialect`` (a name of :data:`drivers.dialects.DIALECTS`;
default :data:`controller.game.events.DEFAULT_DIALECT`), ``silence`` and ``backoff_max``
(seconds). A scheme's own options: ``baud`` and ``exclusive`` (0|1) for serial ports;
``seed``, ``interval``, ``heartbeat`` and ``packs`` for ``sim://``. Any other option is
refused, except by pyserial's schemes, which receive it.
"""

from __future__ import annotations

import pkgutil
import queue
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from controller.game.events import DEFAULT_DIALECT
from drivers.dialects import Dialect, dialect_named

if TYPE_CHECKING:
    from drivers.link import ShoeLink
    from drivers.transports import Connector

Opener = Callable[..., "Connector"]
"""``opener(url: ShoeUrl, dialect: Dialect, **transport_options) -> Connector``: builds
(never opens) the connector of one URL; raises ValueError for a target or an option its
scheme does not take, and ignores transport options meant for other schemes."""

SCHEMES: dict[str, str | Opener] = {
    "serial": "drivers.transports.serial_port:open_serial",
    **dict.fromkeys(("socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110"),
                    "drivers.transports.serial_port:open_pyserial_url"),
    "usb": "drivers.transports.usb:open_usb",
    "memory": "drivers.transports.memory:open_memory",
}
"""Every shoe URL scheme, by name: the one list every part reads (other packages add
theirs by :func:`register_scheme`)."""

NETWORK_SCHEMES = ("socket", "rfc2217")
"""pyserial's schemes that reach the shoe over TCP: their target is ``HOST:PORT``, and a
link that never writes asks about its dialect when it hears nothing after connecting."""

LINK_OPTIONS = ("dialect", "silence", "backoff_max")
"""Query options every scheme takes: they are the link's, not the transport's."""

_LINK_KEYWORDS = frozenset({"silence_timeout", "backoff_initial", "backoff_max",
                            "ping_on_connect", "unheard_after", "name"})


def register_scheme(scheme: str, opener: str | Opener) -> None:
    """Add a URL scheme to :data:`SCHEMES`.

    Args:
        scheme: the scheme, lower case (``fake`` for ``fake://...``).
        opener: the :data:`Opener`, or ``"module:function"`` naming it (imported when a
            URL of this scheme is first opened).

    Raises:
        ValueError: a scheme that is not a lower-case word, or one already taken by
            another opener.
    """
    if not (scheme.isascii() and scheme.isalnum() and scheme.islower()):
        raise ValueError(f"bad URL scheme {scheme!r}: lower-case letters and digits")
    if SCHEMES.get(scheme, opener) != opener:
        raise ValueError(f"the shoe URL scheme {scheme!r} is already registered")
    SCHEMES[scheme] = opener


@dataclass(frozen=True, slots=True)
class ShoeUrl:
    """A parsed shoe URL.

    Attributes:
        text: the URL as given (for messages).
        scheme: a scheme of :data:`SCHEMES` (``serial`` for a bare path).
        target: what follows ``scheme://`` up to ``?``: a path, ``VID:PID[:SERIAL]``,
            ``host:port``, a name pattern, or nothing.
        dialect: the dialect the URL names, or None when it names none.
        options: the other query options, as text.
    """

    text: str
    scheme: str
    target: str
    dialect: str | None
    options: dict[str, str] = field(default_factory=dict)

    def check(self, *known: str, target: bool = True) -> None:
        """Refuse what this URL's scheme does not take.

        Args:
            *known: the scheme's own options (:data:`LINK_OPTIONS` are always taken).
            target: the scheme needs a target (a device path, a name...).

        Raises:
            ValueError: an unknown option, or no target where one is needed.
        """
        unknown = self.others(*known)
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)} in {self.text!r}")
        if target and not self.target:
            raise ValueError(f"no device in shoe URL {self.text!r}")

    def others(self, *known: str) -> dict[str, str]:
        """The options that are neither the link's nor among ``known`` (the scheme's own)."""
        return {k: v for k, v in self.options.items() if k not in known and k not in LINK_OPTIONS}

    def number(self, key: str, kind: type, default: Any) -> Any:
        """The option ``key`` read as ``kind`` (``int`` or ``float``), or ``default``.

        Raises:
            ValueError: the option is there but not a number of that kind.
        """
        if key not in self.options:
            return default
        try:
            return kind(self.options[key])
        except ValueError:
            raise ValueError(f"bad value for {key}: {self.options[key]!r} in "
                             f"{self.text!r}") from None


def parse_shoe_url(url: str, expected: Iterable[str] | None = None) -> ShoeUrl:
    """Parse a shoe URL (see the module docstring).

    Args:
        url: the URL or bare device path.
        expected: the schemes an unknown scheme's error lists (default: those of
            :data:`SCHEMES`); a caller that registers a scheme only when its URL is used
            (``sim``) lists it too.

    Returns:
        The parsed URL; the scheme's opener checks its target and options.

    Raises:
        ValueError: an empty URL, an unknown scheme or an unknown dialect.
    """
    text = url.strip()
    if not text:
        raise ValueError("empty shoe URL")
    if "://" in text:
        scheme, rest = text.split("://", 1)
        scheme = scheme.lower()
    else:
        scheme, rest = "serial", text
    if scheme not in SCHEMES:
        raise ValueError(f"unknown shoe URL scheme {scheme!r} in {url!r} "
                         f"(expected one of {', '.join(expected or SCHEMES)})")
    target, _, query = rest.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True))
    dialect = options.pop("dialect", None)
    if dialect is not None:
        try:
            dialect_named(dialect)
        except ValueError as exc:
            raise ValueError(f"{exc} in {url!r}") from None
    return ShoeUrl(text=text, scheme=scheme, target=target, dialect=dialect, options=options)


def make_connector(parsed: ShoeUrl, dialect: Dialect, **opts: Any) -> Connector:
    """The connector for a parsed URL, built by its scheme's opener (imported now).

    Args:
        parsed: the URL.
        dialect: the dialect the shoe speaks (its baud rate is the serial default).
        **opts: transport options overriding the URL (``baudrate``, ``exclusive``,
            ``usb_backend``); an opener ignores those of other schemes.

    Returns:
        A :class:`drivers.transports.Connector`.

    Raises:
        ValueError: a target or an option the scheme does not take.
    """
    opener = SCHEMES[parsed.scheme]
    if isinstance(opener, str):
        opener = pkgutil.resolve_name(opener)
    return opener(parsed, dialect, **opts)  # type: ignore[operator, no-any-return]


def open_link(url: str, events: queue.Queue[Any], *, dialect: str = DEFAULT_DIALECT,
              **opts: Any) -> ShoeLink:
    """Build (but do not start) the :class:`~drivers.link.ShoeLink` for a shoe URL.

    Args:
        url: the shoe URL (see the module docstring).
        events: the queue that receives shoe events and link status events.
        dialect: the dialect when the URL names none (``?dialect=`` wins).
        **opts: ``silence_timeout``, ``backoff_initial``, ``backoff_max``,
            ``ping_on_connect``, ``unheard_after``, ``name`` (ShoeLink options, overriding
            the URL); any other is a transport option for the scheme's opener (``baudrate``,
            ``exclusive``, ``usb_backend``).

    Returns:
        The link; call ``start()`` then, at the end, ``stop()``.

    Raises:
        ValueError: a malformed URL or option, or an unknown dialect.
    """
    from drivers.link import UNHEARD_AFTER_S, ShoeLink

    parsed = parse_shoe_url(url)
    spec = dialect_named(parsed.dialect or dialect)
    link_opts: dict[str, Any] = {
        "silence_timeout": parsed.number("silence", float, 3.0),
        "backoff_max": parsed.number("backoff_max", float, 5.0),
        # a native shoe on TCP waits for the host's PING: a link that never writes hears
        # nothing at all (over a serial line the shoe speaks first, and a hint comes)
        "unheard_after": UNHEARD_AFTER_S if parsed.scheme in NETWORK_SCHEMES else 0.0,
    }
    link_opts.update({k: v for k, v in opts.items() if k in _LINK_KEYWORDS})
    connector = make_connector(parsed, spec, **{k: v for k, v in opts.items()
                                                if k not in _LINK_KEYWORDS})
    link = ShoeLink(connector, spec.name, events, **link_opts)
    link.simulator = getattr(connector, "shoe", None)
    return link
