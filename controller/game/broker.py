"""The floor broker's URL: ``mqtt://HOST[:PORT]`` (1883) or ``mqtts://`` (TLS, 8883)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

BROKER_SCHEMES = {"mqtt": 1883, "mqtts": 8883}

# Levels of A-Z a-z 0-9 _ - joined by /: no MQTT wildcard and no empty level, since the
# recorder subscribes to <prefix>/+/<name>.
TOPIC_PREFIX_PATTERN = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*")


def topic_prefix_problem(prefix: str) -> str | None:
    """What is wrong with a topic prefix (None: nothing)."""
    if isinstance(prefix, str) and TOPIC_PREFIX_PATTERN.fullmatch(prefix):
        return None
    return f"must be topic levels of A-Z a-z 0-9 _ - joined by /, got {_quoted(prefix)}"


def parse_broker_url(url: str) -> tuple[str, str, int]:
    """The scheme, host and port of a floor broker URL (``mqtt://host:1883``).

    Raises:
        ValueError: not ``mqtt://`` or ``mqtts://``, no host, a bad port, or more in the URL.
    """
    if not isinstance(url, str):
        raise ValueError(f"must be an mqtt:// or mqtts:// URL, got {_quoted(url)}")
    parts = urlsplit(url.strip())
    if parts.scheme not in BROKER_SCHEMES:
        raise ValueError(f"must be an mqtt:// or mqtts:// URL, got {_quoted(url)}")
    try:
        port = parts.port or BROKER_SCHEMES[parts.scheme]
    except ValueError:
        raise ValueError(f"bad port in {_quoted(url)}") from None
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.username:
        raise ValueError(f"must be {parts.scheme}://HOST[:PORT] with nothing else (put the "
                         f"user and password in [floor]), got {_quoted(url)}")
    return parts.scheme, parts.hostname, port


def _quoted(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["BROKER_SCHEMES", "TOPIC_PREFIX_PATTERN", "parse_broker_url", "topic_prefix_problem"]
