"""Shoe drivers: transports that move bytes and dialects that turn bytes into events.

The daemon needs one call::

    inbox = queue.Queue()
    link = drivers.open_link("serial:///dev/card-shoe?dialect=beetek", inbox)
    link.start()          # events and LinkStatus changes arrive on inbox
    ...
    link.stop()

This package imports no hardware library; ``open_link`` loads pyserial or pyusb only
for the URL it is given.
"""

from __future__ import annotations

import queue
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drivers.link import ShoeLink

__all__ = ["open_link"]


def open_link(url: str, queue: queue.Queue[Any], **opts: Any) -> ShoeLink:
    """Build (not start) the reader link of the shoe named by ``url``.

    Args:
        url: a shoe URL such as ``serial:///dev/card-shoe?dialect=beetek&baud=9600``,
            ``usb://1209:7a01?dialect=native``, ``socket://127.0.0.1:7100?dialect=native``,
            ``serial://1a86:7523?dialect=beetek`` (VID:PID discovery), a bare ``/dev/...``
            path, ``loop://``, ``rfc2217://...`` or ``sim://?seed=7&interval=500``.
        queue: receives :mod:`controller.game.events` events, including ``LinkStatus`` changes.
        **opts: see :func:`drivers.url.open_link` (``silence_timeout``, ``backoff_max``,
            ``usb_backend``...).

    Returns:
        The :class:`~drivers.link.ShoeLink`.

    Raises:
        ValueError: a malformed URL.
    """
    from drivers.url import open_link as _open_link

    return _open_link(url, queue, **opts)
