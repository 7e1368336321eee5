"""Shoe URLs: one string names the shoe, its transport and its dialect.

Forms (query options: ``dialect`` native|beetek, default native; ``baud``; ``silence``
seconds; ``backoff_max`` seconds; ``exclusive`` 0|1):

* ``serial:///dev/card-shoe?dialect=beetek&baud=9600`` or a bare ``/dev/...`` path;
  globs are allowed (``serial:///dev/serial/by-id/usb-1a86_*``);
* ``serial://1a86:7523[:SERIAL]?dialect=beetek``: a USB-serial adapter by VID:PID; it
  must match one port (two matching adapters are refused, never guessed between);
* ``socket://127.0.0.1:7100?dialect=native``, ``rfc2217://host:port``, ``loop://``,
  ``spy://...``: handed to pyserial (its own options are kept);
* ``usb://1209:7a01[:SERIAL]?dialect=native``: a vendor-class USB shoe (pyusb);
* ``memory://NAME`` (glob allowed): an in-process pair (tests);
* ``sim://?seed=7&dialect=native&interval=500&packs=1``: an in-process simulated shoe.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from drivers.dialects import DIALECTS

_OURS = frozenset({"dialect", "baud", "silence", "backoff_max", "exclusive", "seed",
                   "interval", "heartbeat", "packs"})
_PYSERIAL_SCHEMES = frozenset({"socket", "rfc2217", "loop", "spy", "alt", "hwgrep", "cp2110"})


@dataclass(frozen=True, slots=True)
class ShoeUrl:
    """A parsed shoe URL.

    Attributes:
        scheme: ``serial``, ``usb``, ``memory``, ``sim`` or a pyserial scheme.
        target: the path, ``VID:PID[:SERIAL]``, name pattern, or pyserial URL.
        dialect: ``native`` or ``beetek``.
        options: our query options (``baud``, ``silence``, ``seed``...), as text.
    """

    scheme: str
    target: str
    dialect: str
    options: dict[str, str] = field(default_factory=dict)


def parse_shoe_url(url: str) -> ShoeUrl:
    """Parse a shoe URL (see the module docstring).

    Args:
        url: the URL or bare device path.

    Returns:
        The parsed URL.

    Raises:
        ValueError: unknown scheme or dialect, or a malformed URL.
    """
    text = url.strip()
    if not text:
        raise ValueError("empty shoe URL")
    if "://" in text:
        scheme, rest = text.split("://", 1)
        scheme = scheme.lower()
    else:
        scheme, rest = "serial", text
    target, _, query = rest.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    ours = {k: v for k, v in pairs if k in _OURS}
    theirs = [(k, v) for k, v in pairs if k not in _OURS]
    dialect = ours.pop("dialect", "native")
    if dialect not in DIALECTS:
        raise ValueError(f"unknown shoe dialect {dialect!r} in {url!r} "
                         f"(expected one of {', '.join(DIALECTS)})")
    if scheme in _PYSERIAL_SCHEMES:
        target = f"{scheme}://{target}" + (f"?{urlencode(theirs)}" if theirs else "")
    elif scheme in ("serial", "usb", "memory", "sim"):
        if theirs:
            raise ValueError(f"unknown option(s) {', '.join(k for k, _ in theirs)} in {url!r}")
        if scheme in ("serial", "usb", "memory") and not target:
            raise ValueError(f"no device in shoe URL {url!r}")
    else:
        raise ValueError(f"unknown shoe URL scheme {scheme!r} in {url!r}")
    return ShoeUrl(scheme=scheme, target=target, dialect=dialect, options=ours)


def _num(options: dict[str, str], key: str, kind: type, default: Any) -> Any:
    if key not in options:
        return default
    try:
        return kind(options[key])
    except ValueError:
        raise ValueError(f"bad value for {key}: {options[key]!r}") from None


def make_connector(parsed: ShoeUrl, **opts: Any) -> Any:
    """The connector for a parsed URL (hardware libraries are imported here, lazily).

    Args:
        parsed: the URL.
        **opts: ``baudrate``, ``exclusive``, ``usb_backend`` override the URL.

    Returns:
        A :class:`drivers.transports.Connector`.

    Raises:
        ValueError: the target is not valid for its scheme.
    """
    o = parsed.options
    if parsed.scheme == "usb":
        from drivers.transports.serial_port import parse_vid_pid
        from drivers.transports.usb import UsbConnector

        ids = parse_vid_pid(parsed.target)
        if ids is None:
            raise ValueError(f"usb:// needs VID:PID[:SERIAL], got {parsed.target!r}")
        return UsbConnector(*ids, backend=opts.get("usb_backend"))
    if parsed.scheme == "memory":
        from drivers.transports.memory import MemoryConnector

        return MemoryConnector(parsed.target)
    if parsed.scheme == "sim":
        from simulators.sim_link import SimConnector

        return SimConnector(dialect=parsed.dialect, seed=_num(o, "seed", int, None),
                            interval_ms=_num(o, "interval", int, None),
                            heartbeat_ms=_num(o, "heartbeat", int, 1000),
                            packs=_num(o, "packs", int, 1))
    from drivers.transports.serial_port import SerialConnector

    default_baud = 9600 if parsed.dialect == "beetek" else 115200
    baud = opts.get("baudrate") or _num(o, "baud", int, default_baud)
    exclusive = opts.get("exclusive", _num(o, "exclusive", int, 1) != 0)
    return SerialConnector(parsed.target, baudrate=baud, exclusive=exclusive)


def open_link(url: str, events: queue.Queue[Any], **opts: Any) -> Any:
    """Build (but do not start) the :class:`~drivers.link.ShoeLink` for a shoe URL.

    Args:
        url: the shoe URL (see the module docstring).
        events: the queue that receives shoe events and link status events.
        **opts: ``dialect``, ``silence_timeout``, ``backoff_initial``, ``backoff_max``,
            ``ping_on_connect``, ``name`` (ShoeLink options, overriding the URL);
            ``baudrate``, ``exclusive``, ``usb_backend`` (transport options).

    Returns:
        The link; call ``start()`` then, at the end, ``stop()``.

    Raises:
        ValueError: a malformed URL or option.
    """
    from drivers.link import ShoeLink

    parsed = parse_shoe_url(url)
    dialect = opts.pop("dialect", None) or parsed.dialect
    if dialect != parsed.dialect:
        parsed = ShoeUrl(parsed.scheme, parsed.target, dialect, parsed.options)
    transport_opts = {k: opts.pop(k) for k in ("baudrate", "exclusive", "usb_backend")
                      if k in opts}
    link_opts: dict[str, Any] = {
        "silence_timeout": _num(parsed.options, "silence", float, 3.0),
        "backoff_max": _num(parsed.options, "backoff_max", float, 5.0),
    }
    link_opts.update(opts)
    connector = make_connector(parsed, **transport_opts)
    link = ShoeLink(connector, dialect, events, **link_opts)
    link.simulator = getattr(connector, "shoe", None)
    return link
