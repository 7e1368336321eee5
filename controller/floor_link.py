"""The floor feed as ``threecard run`` and ``simulate`` wire it (``--floor``, ``--table-id``).

A journal behind or disagreeing with the floor's witness locks the table; a starting table
waits for that check (at most :data:`WITNESS_WAIT_S`); an unreachable floor is an alarm, and a
broker lost past the grace, and back, is journaled (R20).
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
from typing import Any

from controller.game.config import ConfigError, TableConfig

log = logging.getLogger("threecard.floor")

# At a stop, how long the feed may go on sending what is left while connected.
DRAIN_S = 2.0
WITNESS_WAIT_S = 10.0


def add_floor_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--floor URL`` and ``--table-id ID``."""
    parser.add_argument("--floor", metavar="URL",
                        help="the floor's MQTT broker, mqtt://HOST[:1883] or "
                        "mqtts://HOST[:8883]: rounds, meters and alarms are published there "
                        "from the journal")
    parser.add_argument("--table-id", metavar="ID",
                        help="the table's id, 1 to 32 of A-Z a-z 0-9 _ -: on the screens, in "
                        "the journal and in the floor's topics")


class _NoFeed:

    left = 0

    def stop(self, drain_s: float = 0.0) -> None:
        """Nothing to do."""


NO_FEED = _NoFeed()


ALWAYS_NAMED = ("journal_path", "table_id", "floor_broker", "rules", "seats")


def resume_command(command: str, config: TableConfig, journal: str, *extra: str) -> str:
    """The command line, quoted for a POSIX shell, that starts this table again on its journal."""
    words = ["threecard", command, *extra]
    if config.source:
        words += ["--config", config.source]
    for name, flag in config.flags.items():
        value = getattr(config, name)
        if name in ALWAYS_NAMED or value is False:
            continue
        words += [flag] if value is True else [flag, str(value)]
    words += ["--journal", journal, "--table-id", config.table_id]
    if config.floor_broker:
        words += ["--floor", config.floor_broker]
    words += ["--rules", config.rules, "--seats", str(config.seats)]
    return shlex.join(words)


def _other_table(config: TableConfig, journal: str) -> str | None:
    if journal == ":memory:" or not os.path.isfile(journal):
        return None
    from controller.game.recall import recorded_config
    from controller.journal import Journal, JournalError

    try:
        j = Journal(journal, readonly=True)
    except (JournalError, OSError):
        return None  # not a journal: the table says why when it opens it
    try:
        written_by = recorded_config(j).get("table_id")
    except JournalError:
        return None
    finally:
        j.close()
    if isinstance(written_by, str) and written_by and written_by != config.table_id:
        return written_by
    return None


def check_floor(config: TableConfig, journal: str | None = None) -> None:
    """Check ``[floor]`` before the journal opens: its files can be read and used.

    Raises:
        ConfigError: naming the setting; also a journal of another table id.
    """
    path = journal or config.journal_path
    other = _other_table(config, path)
    if other is not None:
        why = (f"the journal {path} was written by table {other}, this is table "
               f"{config.table_id}")
        if config.floor_broker:
            raise ConfigError(f"{why}: its rounds would reach the floor under the wrong id; "
                              f"run it as --table-id {other}, or give this table a journal "
                              "of its own")
        log.warning("%s: the journal keeps both ids (a floor would refuse it)", why)
    if not config.floor_broker:
        return
    from floor.mqtt import FloorError, settings_from

    if path == ":memory:":
        raise ConfigError("the floor feed reads the journal: it needs a "
                          "journal file, not :memory:")

    try:
        settings_from(config).check()
    except FloorError as exc:
        raise ConfigError(f"{config.source}: {exc}" if config.source else str(exc)) from None


def open_floor(config: TableConfig, table: Any, drain_s: float = DRAIN_S,
               resume: str = "", witness_s: float = WITNESS_WAIT_S) -> Any:
    """Start the floor feed of an open table; an object whose ``stop()`` ends it.

    ``resume`` logs the command that sends what the broker did not acknowledge; ``witness_s``
    waits for the floor's witness. ConfigError: an unusable ``[floor]`` setting.
    """
    if not config.floor_broker:
        return NO_FEED
    from floor.mqtt import FloorError, settings_from
    from floor.publisher import FloorPublisher

    try:
        feed = FloorPublisher(settings_from(config), table.journal.path, config.table_id,
                              drain_s=drain_s, resume=resume and resume_command(
                                  resume, config, table.journal.path))
    except FloorError as exc:
        raise ConfigError(f"{config.source}: {exc}" if config.source else str(exc)) from None
    from controller.game.fault_record import FLOOR_BROKER, device_record
    from controller.game.verdict import integrity_lock

    feed.on_witness_problem = lambda why: table.lock(integrity_lock(why))
    feed.on_device = lambda state, detail, away_ms: table.submit(
        device_record(FLOOR_BROKER, state, detail, away_ms))  # journaled (R20)
    table.subscribe(feed.wake)
    feed.start()
    await_witness(feed, witness_s)
    return feed


def await_witness(feed: Any, wait_s: float = WITNESS_WAIT_S) -> bool:
    """Wait up to ``wait_s`` for the floor's witness check; True if done (or no floor).

    A journal put back to an older copy is locked before any bet; a late witness is an alarm.
    """
    state = getattr(feed, "witness", None)
    if state is None:
        return True
    state.settled.wait(wait_s)
    if not state.checked:
        log.error("ALARM: floor witness not checked: %s; the journal is compared with the "
                  "floor's witness once the floor is back",
                  state.why_not or f"no answer from the floor within {wait_s:.0f} s")
        return False
    return True
