"""The recorder's topics on a floor of pits: every pit's tables, each answered in its pit.

A large floor gives each pit a broker of its own, bridged to the central one (README.md,
"Beyond one broker"), and each pit a topic level of its own: the tables of pit 2 publish
under ``threecard/pit-2/<table id>/...`` (``[floor] topic_prefix``), and the central
broker's ACL lets pit 2's bridge write only there (Mosquitto's ACL patterns substitute
only the user and the client id, never a part of a table's id). The recorder, with the
floor's prefix (``threecard``), reads the tables under it directly and one pit level
below; it asks a table to resend, and publishes its witness, under the prefix it last
heard the table on, so the table's own bridge takes them back to it.
"""

from __future__ import annotations

import re

from controller.game.config import TABLE_ID_PATTERN
from floor.mqtt import NAMES, FloorSettings

LEVEL = re.compile(r"[A-Za-z0-9_-]+")
"""A pit's topic level (as a level of a topic prefix may be)."""


class Routes:
    """Where each table's topics are, as the recorder heard them.

    Args:
        settings: the recorder's settings: its ``topic_prefix`` is the floor's.
    """

    def __init__(self, settings: FloorSettings) -> None:
        self.settings = settings
        self.base = settings.topic_prefix.split("/")
        self.prefix: dict[str, str] = {}  # table id -> the prefix it was last heard under

    def subscriptions(self, names: tuple[str, ...], qos: int = 1) -> list[tuple[str, int]]:
        """``<prefix>/+/<name>`` and ``<prefix>/+/+/<name>`` (every pit) of each name."""
        p = self.settings.topic_prefix
        return [(f"{p}/+/{n}", qos) for n in names] + [(f"{p}/+/+/{n}", qos) for n in names]

    def heard(self, topic: str) -> tuple[str, str] | None:
        """(table id, name) of one of our topics, its table's prefix kept; None for others."""
        levels = topic.split("/")
        if levels[:len(self.base)] != self.base:
            return None
        rest = levels[len(self.base):]
        if len(rest) == 3 and LEVEL.fullmatch(rest[0]):
            pit = [rest.pop(0)]
        elif len(rest) == 2:
            pit = []
        else:
            return None
        table, name = rest
        if name not in NAMES or not TABLE_ID_PATTERN.fullmatch(table):
            return None
        self.prefix[table] = "/".join(self.base + pit)
        return table, name

    def topic(self, table: str, name: str) -> str:
        """``<the table's prefix>/<table id>/<name>`` (the floor's prefix for a table unheard)."""
        return f"{self.prefix.get(table, self.settings.topic_prefix)}/{table}/{name}"
