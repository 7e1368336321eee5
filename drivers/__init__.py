"""Shoe drivers: transports that move bytes and dialects that turn bytes into events.

No hardware library is imported but for the URL given (docs/shoe-frames.md).
"""

from __future__ import annotations

import queue
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drivers.link import ShoeLink

__all__ = ["open_link"]


def open_link(url: str, queue: queue.Queue[Any], **opts: Any) -> ShoeLink:
    """Build (not start) the reader link of the shoe ``url`` names; ValueError if malformed."""
    from drivers.url import open_link as _open_link

    return _open_link(url, queue, **opts)
