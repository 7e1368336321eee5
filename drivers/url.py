"""Shoe URLs: one string names the shoe, its transport and its dialect.

Every scheme is listed once, in :data:`SCHEMES` (docs/shoe-frames.md, "Shoe URLs").
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

# opener(url, dialect, **transport_options) -> Connector: builds (never opens) it; raises
# ValueError for what its scheme does not take, ignores other schemes' options.
Opener = Callable[..., "Connector"]

# Every shoe URL scheme: the one list every part reads (others add theirs by register_scheme).
SCHEMES: dict[str, str | Opener] = {
    "serial": "drivers.transports.serial_port:open_serial",
    **dict.fromkeys(("socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110"),
                    "drivers.transports.serial_port:open_pyserial_url"),
    "usb": "drivers.transports.usb:open_usb",
    "memory": "drivers.transports.memory:open_memory",
}

# pyserial's schemes over TCP: target HOST:PORT; a link that never writes asks about its
# dialect when it hears nothing.
NETWORK_SCHEMES = ("socket", "rfc2217")

LINK_OPTIONS = ("dialect", "silence", "backoff_max")

_LINK_KEYWORDS = frozenset({"silence_timeout", "backoff_initial", "backoff_max",
                            "ping_on_connect", "unheard_after", "name"})


def register_scheme(scheme: str, opener: str | Opener) -> None:
    """Add ``scheme`` to :data:`SCHEMES` (``opener``: an :data:`Opener` or ``"module:function"``).

    Raises:
        ValueError: not a lower-case word, or a scheme another opener has.
    """
    if not (scheme.isascii() and scheme.isalnum() and scheme.islower()):
        raise ValueError(f"bad URL scheme {scheme!r}: lower-case letters and digits")
    if SCHEMES.get(scheme, opener) != opener:
        raise ValueError(f"the shoe URL scheme {scheme!r} is already registered")
    SCHEMES[scheme] = opener


@dataclass(frozen=True, slots=True)
class ShoeUrl:
    """A parsed shoe URL (``scheme`` is ``serial`` for a bare path)."""

    text: str
    scheme: str
    target: str
    dialect: str | None
    options: dict[str, str] = field(default_factory=dict)

    def check(self, *known: str, target: bool = True) -> None:
        """Refuse what this URL's scheme does not take (ValueError: an option, no target)."""
        unknown = self.others(*known)
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)} in {self.text!r}")
        if target and not self.target:
            raise ValueError(f"no device in shoe URL {self.text!r}")

    def others(self, *known: str) -> dict[str, str]:
        """The options that are neither the link's nor among ``known`` (the scheme's own)."""
        return {k: v for k, v in self.options.items() if k not in known and k not in LINK_OPTIONS}

    def number(self, key: str, kind: type, default: Any) -> Any:
        """The option ``key`` as ``kind`` (``int``, ``float``), or ``default``; else ValueError."""
        if key not in self.options:
            return default
        try:
            return kind(self.options[key])
        except ValueError:
            raise ValueError(f"bad value for {key}: {self.options[key]!r} in "
                             f"{self.text!r}") from None


def parse_shoe_url(url: str, expected: Iterable[str] | None = None) -> ShoeUrl:
    """Parse a shoe URL (``expected``: the schemes an unknown scheme's error lists).

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
    """The connector for a parsed URL (``opts`` override the URL's transport options).

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

    ``opts``: ShoeLink options (``silence_timeout``...) overriding the URL, others for the
    scheme's opener (``baudrate``...); ``dialect``: when the URL names none.

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
