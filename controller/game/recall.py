"""Reading a journal without running the table: game recall, meters, integrity (R5-R7).

Everything here opens the journal read-only and rebuilds the state the same way the
table does at start-up (newest snapshot, then the events after it), so what it shows
is the recorded state even when the derived tables lag behind a crash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.game.engine import Game, TableConfig
from controller.game.journal import ChainReport, Journal
from controller.game.replay import rebuild
from controller.game.round import IN_PLAY, RoundState

HIDDEN = "??"
"""Shown in place of a dealer card of a round not yet revealed."""


def replay(journal: Journal, full: bool = False) -> Game:
    """Rebuild the recorded state (from the newest snapshot unless ``full``).

    Raises:
        controller.game.replay.ReplayError: a snapshot or a record cannot be replayed (a
            :class:`~controller.game.journal.JournalError`).
    """
    return rebuild(journal, use_snapshots=not full)


def _masked(rec: dict[str, Any]) -> dict[str, Any]:
    if rec["status"] != "in_progress" or rec["state"] in ("reveal", "settled"):
        return rec
    rec = dict(rec)
    rec["deal"] = [[HIDDEN if pos == "dealer" else c, pos, m] for c, pos, m in rec["deal"]]
    rec["dealer_cards"] = [HIDDEN] * len(rec["dealer_cards"])
    return rec


def recall(path: str | Path, last: int = 10) -> list[dict[str, Any]]:
    """Game recall: the newest ``last`` rounds, newest first, the one in play included.

    Args:
        path: the journal file.
        last: how many rounds.

    Returns:
        Round records (see :meth:`Game.round_record`); the dealer's cards of a round in
        play before its reveal are :data:`HIDDEN`. Round 1, which no ``next_round``
        opens, opened with the journal: its ``started_utc`` is the first event's time.
    """
    j = Journal(path, readonly=True)
    try:
        g = replay(j)
        by_id = {r["round_id"]: r for r in j.stored_rounds(last)}
        first = j.db.execute("SELECT utc FROM events ORDER BY seq LIMIT 1").fetchone()
    finally:
        j.close()
    for r in g.recall:
        by_id[r.round_id] = r.to_dict()
    if g.state in IN_PLAY or (g.state is RoundState.BETTING and g.seats):
        by_id[g.round_id] = _masked(g.round_record("in_progress").to_dict())
    if 1 in by_id and not by_id[1]["started_utc"] and first is not None:
        by_id[1] = {**by_id[1], "started_utc": first[0]}
    return [by_id[k] for k in sorted(by_id, reverse=True)[:last]]


@dataclass
class MeterReport:
    """Meters from the recorded state, and whether the derived tables agree.

    Attributes:
        rows: name -> [wagered, paid, won, rounds, voids, refunded].
        counters: event counters (power-ups, shoe disconnects, lid opens, overrides...).
        reconciled: the stored meters equal the recorded state's and the sum of the
            stored round records.
        problems: what does not reconcile.
    """

    rows: dict[str, list[int]]
    counters: dict[str, int]
    reconciled: bool = True
    problems: list[str] = field(default_factory=list)


def sum_rounds(rounds: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Meter rows recomputed from round records (the reconciliation R6 asks for)."""
    rows: dict[str, list[int]] = {}
    for rec in rounds:
        names_seen: set[str] = set()
        for s in rec["seats"]:
            for bet, r in s["results"].items():
                for name in (bet, f"seat {s['seat']}", "total"):
                    m = rows.setdefault(name, [0, 0, 0, 0, 0, 0])
                    if r["outcome"] == "refund":
                        m[4] += 1
                        m[5] += r["stake"]
                        continue
                    names_seen.add(name)
                    if bet != "ante_bonus":
                        m[0] += r["stake"]
                    if r["net"] > 0:
                        m[1] += r["net"]
                    else:
                        m[2] -= r["net"]
        if rec["status"] == "settled":
            for name in names_seen:
                rows[name][3] += 1
    return rows


def meters(path: str | Path) -> MeterReport:
    """Meters from the journal, checked against the stored meters and round records."""
    j = Journal(path, readonly=True)
    try:
        g = replay(j)
        stored = j.stored_meters()
        rounds = j.stored_rounds()
    finally:
        j.close()
    live = g.meters_dict()
    rep = MeterReport(live["rows"], live["counters"])
    by_id = {r["round_id"]: r for r in rounds}
    for r in g.recall:
        by_id[r.round_id] = r.to_dict()
    if sum_rounds(list(by_id.values())) != rep.rows:
        rep.problems.append("meters differ from the sum of the round records")
    if stored["rows"] and stored["rows"] != rep.rows and len(by_id) == len(rounds):
        rep.problems.append("stored meters differ from the recorded state")
    rep.reconciled = not rep.problems
    return rep


@dataclass
class VerifyReport:
    """The result of :func:`verify`.

    Attributes:
        chain: the hash-chain check.
        snapshots_checked: snapshots compared with a full replay.
        problems: every discrepancy found, in English.
    """

    chain: ChainReport
    snapshots_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the chain holds and nothing disagrees."""
        return self.chain.ok and not self.problems


def verify(path: str | Path) -> VerifyReport:
    """Check the hash chain, then replay every event and compare the derived tables."""
    j = Journal(path, readonly=True)
    try:
        rep = VerifyReport(j.verify())
        if not rep.chain.ok:
            rep.problems.append(rep.chain.message)
            return rep
        snap_seqs = {seq for seq, in j.db.execute("SELECT seq FROM snapshots")}
        g = Game(TableConfig())
        open_rounds: dict[int, dict[str, Any]] = {}
        seen: set[int] = set()

        def compare(rid: int, rec: dict[str, Any]) -> None:
            row = j.db.execute("SELECT record FROM rounds WHERE round_id = ?",
                               (rid,)).fetchone()
            if row is None or json.loads(row[0]) != rec:
                rep.problems.append(f"round {rid}: stored record differs from the replay")

        # the derived tables reflect the state after event ``upto`` (they are written one
        # commit behind the events): compare with the replay at that point
        upto = j.derived_seq()
        upto = j.last_seq if upto is None else upto
        meters_checked = False

        def compare_meters() -> None:
            sm = j.stored_meters()
            if sm["rows"] and sm["rows"] != g.meters_dict()["rows"]:
                rep.problems.append("stored meters differ from the replay")

        # streaming: a finished round is compared once the table has moved past it (a burn
        # read between rounds still adds to its record) and forgotten, so memory stays
        # flat however long the journal is
        for r in j.records():
            g.apply(r.seq, r.utc, r.kind, json.loads(r.body), r.actor, mono_ns=r.mono_ns)
            derived = g.take_derived()
            if r.seq > upto:
                continue
            if r.seq == upto:
                compare_meters()
                meters_checked = True
            for rid, rec in derived.rounds.items():
                seen.add(rid)
                open_rounds[rid] = rec
            for rid in [k for k, v in open_rounds.items()
                        if k < g.round_id and v["status"] in ("settled", "void")]:
                compare(rid, open_rounds.pop(rid))
            if r.seq in snap_seqs:
                rep.snapshots_checked += 1
                h, state = j.db.execute("SELECT hash, state FROM snapshots WHERE seq = ?",
                                        (r.seq,)).fetchone()
                if not j.snapshot_ok(r.seq, h, state):
                    rep.problems.append(f"snapshot at event {r.seq} is not sealed to the chain")
                if not _same_state(state, g):
                    rep.problems.append(f"snapshot at event {r.seq} differs from the replay")
        for rid, rec in open_rounds.items():
            compare(rid, rec)
        n_stored, _lo, _hi = j.round_ids()
        if n_stored != len(seen):
            rep.problems.append(f"{n_stored} round records stored, {len(seen)} replayed")
        if not meters_checked:
            compare_meters()
    finally:
        j.close()
    return rep


def _same_state(saved: str, g: Game) -> bool:
    """A snapshot's state equals the replayed one, read as this version reads it.

    A snapshot saved by an earlier version is read by :meth:`Game.from_dict` (its older
    keys mapped) before the comparison; one that cannot be read differs.
    """
    try:
        read = Game.from_dict(json.loads(saved)).dumps()
    except Exception:  # noqa: BLE001 - an unreadable snapshot is simply not the same
        return False
    return json.loads(read) == json.loads(g.dumps())
