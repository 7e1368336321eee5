"""A scripted shift written to a journal in parts, with the meters read between the parts.

The evening at table TCP-03 (``display/scenes/shift.jsonl``, the screenshots' script:
eleven rounds with bets in amounts, two voids, a lost shoe link, a jam, a misread entered by
hand; then two rounds with bets as outcomes, the second voided after a jam) runs through a
real :class:`~controller.game.table.Table`. The table is stopped after chosen rounds; the
journal is copied and read with ``threecard meters --json``, as a pit boss reads the meters
at that moment; then the table starts again, journaling a start-up record with the software
identity given for it. After other chosen rounds the meters are read while the table runs
(a restart forgets last round's bets, which the script's last round bets again).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from in_process import threecard
from journal_edit import (
    first_of,
    rewrite_chain_from,
    set_snapshot_state,
    snapshot_state,
)

from controller.game.inputs import NextRound
from controller.game.script import ScriptClock
from controller.game.table import Table
from controller.journal import Journal
from display.scenarios import script

RESTART_SECONDS = 120
"""How long the table is off between two parts of the shift."""


@dataclass(frozen=True)
class Refused:
    """An input that must be refused (given in ``between`` or ``at_end``)."""

    item: Any


def _give(table: Table, item: Any) -> None:
    """Give one input: accepted, or refused when wrapped in :class:`Refused`."""
    refused = isinstance(item, Refused)
    for verdict in table.process([item.item if refused else item]):
        assert verdict.accepted != refused, (item, verdict)


@dataclass(frozen=True)
class Stop:
    """Where a part of the shift ended.

    Attributes:
        seq: the journal's newest event then.
        utc: its time.
        meters: ``threecard meters --json`` run on a copy of the journal taken then.
    """

    seq: int
    utc: str
    meters: dict[str, Any]


def meters_json(journal: Path) -> dict[str, Any]:
    """``threecard meters --json`` of a journal, as parsed JSON."""
    out = threecard("meters", "--journal", journal, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def run_shift(folder: Path, stop_after: tuple[int, ...] = (),
              software: tuple[dict[str, Any] | None, ...] = (),
              read_after: tuple[int, ...] = (),
              between: dict[int, list[Any]] | None = None,
              at_end: tuple[Any, ...] = (),
              restart_settings: dict[str, Any] | None = None,
              **settings: Any) -> tuple[Path, list[Stop]]:
    """Run the scripted shift into ``folder/journal.sqlite3``.

    Args:
        folder: an empty folder.
        stop_after: stop the table once betting opens on the round after these (1-based:
            ``3`` stops once round 4 opens), read the meters, start it again.
        software: the identity the table journals at each start (the first, then one per
            restart); None records none.
        read_after: read the meters once betting opens on the round after these, the
            table running (``threecard meters --json`` on the live journal).
        between: round -> inputs given after it closed, before the next one opens
            (``{11: [ChangePin(...)]}``); each must be accepted, or refused when
            wrapped in :class:`Refused`.
        at_end: inputs given after the script's last one, before the last stop.
        restart_settings: settings the table restarts with (``table_id``...).
        **settings: table settings other than the script's (``snapshot_every=2``).

    Returns:
        The journal, and a :class:`Stop` for each stop, each reading and the end, in
        order.
    """
    sc = script()
    config = replace(sc.config, **settings)
    journal = folder / "journal.sqlite3"
    clock = ScriptClock(sc.start_utc)
    idents = list(software) + [None] * (len(stop_after) + 1 - len(software))
    stops: list[Stop] = []
    starts = 0

    def start() -> Table:
        nonlocal starts, config
        starts += 1
        if starts > 1 and restart_settings:
            config = replace(config, **restart_settings)
        return Table(journal, config, clock=clock, software=idents[starts - 1])

    def newest(table: Table) -> tuple[int, str]:
        seq = table.journal.last_seq
        return seq, next(table.journal.records(seq - 1)).utc

    def stop(table: Table) -> None:
        seq, utc = newest(table)
        table.close()
        copy = folder / f"copy-{len(stops)}.sqlite3"
        shutil.copyfile(journal, copy)
        stops.append(Stop(seq, utc, meters_json(copy)))

    table = start()
    opened = 0
    for step in _the_evening(sc.steps):
        clock.advance(step.wait)
        for item in step.inputs:
            clock.advance(sc.step_seconds)
            if isinstance(item, NextRound):
                for extra in (between or {}).get(opened + 1, ()):
                    _give(table, extra)
            for verdict in table.process([item]):
                assert verdict.accepted, (step.line, verdict)
            if isinstance(item, NextRound):
                opened += 1
                if opened in stop_after:
                    stop(table)
                    clock.advance(RESTART_SECONDS)
                    table = start()
                elif opened in read_after:
                    stops.append(Stop(*newest(table), meters_json(journal)))
    for item in at_end:
        clock.advance(sc.step_seconds)
        _give(table, item)
    stop(table)
    return journal, stops


def _the_evening(steps: Any) -> list[Any]:
    """The script's steps up to its outcome meters: the 13 rounds of the evening (the
    script's last round, a burn card read again, is the screenshots' alone)."""
    out = []
    for step in steps:
        out.append(step)
        if step.mark == "outcomes-meters":
            return out
    raise AssertionError("the scripted shift has no outcomes-meters mark")


def forged_copy(journal: Path, folder: Path, edit_kind: str, edit: Any) -> Path:
    """A forger's copy of ``journal`` (its anchor copied beside it): the first event of
    ``edit_kind`` has its body changed by ``edit`` (JSON object in, JSON object out) and
    every chain hash from there on is recomputed, as ``chain_hash`` makes them; every
    snapshot after it is sealed again to the new chain (``snapshot_hash``).

    Returns:
        The forged journal, in ``folder``.
    """
    out = folder / journal.name
    shutil.copyfile(journal, out)
    anchor = journal.with_name(journal.name + ".anchor")
    if anchor.exists():
        shutil.copyfile(anchor, out.with_name(out.name + ".anchor"))
    seq = first_of(out, edit_kind)
    rewrite_chain_from(out, seq, lambda body: json.dumps(
        edit(json.loads(body)), separators=(",", ":"), sort_keys=True))
    j = Journal(out, readonly=True)
    try:
        after = [s for s in j.snapshot_seqs() if s >= seq]
    finally:
        j.close()
    for s in after:
        set_snapshot_state(out, s, snapshot_state(out, s), reseal=True)
    return out
