"""The recorder's topics on a floor of pits: every pit's tables, each answered in its pit.

A table is answered under the prefix it was last heard on, so its pit's bridge takes it
back (README.md, "Beyond one broker").
"""

from __future__ import annotations

import re

from controller.game.config import TABLE_ID_PATTERN
from floor.mqtt import NAMES, FloorSettings

LEVEL = re.compile(r"[A-Za-z0-9_-]+")


class Routes:
    """Where each table's topics are, as the recorder heard them."""

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
