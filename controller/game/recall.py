"""A journal read without the table, rebuilt as at start-up: recall, meters, integrity (R5-R7)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.game.bet_types import ANTE_BONUS
from controller.game.clock_times import corrected_rounds, step_notes
from controller.game.engine import Game
from controller.game.inputs import STARTUP
from controller.game.meters import ROUNDS_SETTLED, ROUNDS_VOID, outcome_key
from controller.game.numbers import DEFAULT_CURRENCY, currency_problem
from controller.game.records import AMOUNTS
from controller.game.replay import apply_each, rebuild, round_records, start_state
from controller.game.round import IN_PLAY, RoundState
from controller.game.verifier import JournalVerdict, Progress, check
from controller.journal import Journal, JournalError

HIDDEN = "??"


def replay(journal: Journal, full: bool = False) -> Game:
    """Rebuild the recorded state, from the newest snapshot unless ``full`` (ReplayError)."""
    return rebuild(journal, use_snapshots=not full)


def recorded_config(journal: Journal) -> dict[str, Any]:
    """The configuration the newest start-up recorded ({}: none readable; JournalError)."""
    rec = journal.newest(STARTUP)
    try:
        config = json.loads(rec.body)["config"] if rec else {}
    except (ValueError, TypeError, KeyError):
        return {}
    return config if isinstance(config, dict) else {}


def currency(path: str | Path, archive: str | Path | None = None) -> str:
    """The currency of the journal's amounts: the newest start-up's, else the default."""
    j = Journal(path, readonly=True, archive=archive)
    try:
        code = recorded_config(j).get("currency")
    finally:
        j.close()
    return code if isinstance(code, str) and currency_problem(code) is None \
        else DEFAULT_CURRENCY


def _masked(rec: dict[str, Any]) -> dict[str, Any]:
    if rec["status"] != "in_progress" or rec["state"] in ("reveal", "settled"):
        return rec
    rec = dict(rec)
    rec["deal"] = [[HIDDEN if pos == "dealer" else c, pos, m] for c, pos, m in rec["deal"]]
    rec["dealer_cards"] = [HIDDEN] * len(rec["dealer_cards"])
    return rec


def recall(path: str | Path, last: int = 10, archive: str | Path | None = None
           ) -> list[dict[str, Any]]:
    """Game recall: the newest ``last`` rounds, newest first, in play included, times corrected."""
    j = Journal(path, readonly=True, archive=archive)
    try:
        g = replay(j)
        by_id = {r.round_id: r.to_dict() for r in g.recall}
        if last > len(by_id):  # older than the state keeps: made again by a replay
            older = round_records(j, last, upto=g.last_seq)
            by_id = {r["round_id"]: r for r in older} | by_id
        first_utc = j.genesis()[1]
        if g.state in IN_PLAY or (g.state is RoundState.BETTING and g.seats):
            by_id[g.round_id] = _masked(g.round_record("in_progress").to_dict())
        return corrected_rounds(j, [as_recalled(by_id[k], first_utc)
                                    for k in sorted(by_id, reverse=True)[:last]])
    finally:
        j.close()


def as_recalled(rec: dict[str, Any], first_utc: str) -> dict[str, Any]:
    """A round record as recall shows it (round 1 opens at the journal's first event)."""
    rec = {**rec, "bet_entry": rec.get("bet_entry", AMOUNTS)}
    if rec["round_id"] == 1 and not rec["started_utc"] and first_utc:
        rec["started_utc"] = first_utc
    return rec


@dataclass
class MeterReport:
    """Meters from the recorded state (``rows`` minor units, counts aside) and their reconciling.

    ``reconciled``: the stored meters equal the state's and the round records' sum.
    """

    rows: dict[str, list[int]]
    counters: dict[str, int]
    outcomes: dict[str, int] = field(default_factory=dict)
    reconciled: bool = True
    problems: list[str] = field(default_factory=list)


def _outcome_round(rec: dict[str, Any]) -> bool:
    return rec.get("bet_entry", "amounts") == "outcomes"


def sum_outcomes(rounds: list[dict[str, Any]]) -> dict[str, int]:
    """Outcome meters recomputed from the records of rounds dealt in outcome mode."""
    counts: dict[str, int] = {}
    for rec in filter(_outcome_round, rounds):
        keys = [ROUNDS_SETTLED if rec["status"] == "settled" else ROUNDS_VOID]
        keys += [outcome_key(bet, r["outcome"], r.get("line", ""))
                 for s in rec["seats"] for bet, r in s["results"].items()]
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    return counts


def sum_rounds(rounds: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Meter rows recomputed from round records dealt in amounts (the reconciliation R6 asks)."""
    rows: dict[str, list[int]] = {}
    for rec in rounds:
        if _outcome_round(rec):
            continue
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
                    if bet != ANTE_BONUS:
                        m[0] += r["stake"]
                    if r["net"] > 0:
                        m[1] += r["net"]
                    else:
                        m[2] -= r["net"]
        if rec["status"] == "settled":
            for name in names_seen:
                rows[name][3] += 1
    return rows


def meters(path: str | Path, archive: str | Path | None = None) -> MeterReport:
    """Meters from the journal, checked against the stored meters and the round records."""
    j = Journal(path, readonly=True, archive=archive)
    try:
        g = replay(j)
        stored = j.stored_meters()
        upto = j.derived_seq()
        kept = dict(j.stored_records())  # whole records: a journal of format 1 keeps them
        start, rows, outcomes, differ = _summed_rounds(j, kept)
    finally:
        j.close()
    live = g.meters_dict()
    rep = MeterReport(live["rows"], live["counters"], live.get("outcomes", {}))
    if differ:
        rep.problems.append(f"the stored records of {len(differ)} round(s) differ from the "
                            f"replay: round {', '.join(map(str, differ[:10]))}")
    if _added(start.get("rows", {}), rows) != rep.rows:
        rep.problems.append("meters differ from the sum of the round records")
    if _added(start.get("outcomes", {}), outcomes) != rep.outcomes:
        rep.problems.append("outcome meters differ from the sum of the round records")
    if upto is None or upto >= g.last_seq:  # else they wait for a crash's rows (start-up)
        if stored["rows"] and stored["rows"] != rep.rows:
            rep.problems.append("stored meters differ from the recorded state")
        if stored.get("outcomes", {}) != rep.outcomes:
            rep.problems.append("stored outcome meters differ from the recorded state")
    rep.reconciled = not rep.problems
    return rep


def _added(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = {k: list(v) if isinstance(v, list) else v for k, v in a.items()}
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif isinstance(v, list):
            out[k] = [x + y for x, y in zip(out[k], v, strict=True)]
        else:
            out[k] += v
    return out


def _summed_rounds(j: Journal, kept: dict[int, str]
                   ) -> tuple[dict[str, Any], dict[str, list[int]], dict[str, int], list[int]]:
    """The meters where the journal starts, later rounds' sums, and the records that differ."""
    differ: list[int] = []
    g, at = start_state(j, j.first_seq - 1)
    start = g.meters_dict()
    rows: dict[str, list[int]] = {}
    outcomes: dict[str, int] = {}
    open_recs: dict[int, dict[str, Any]] = {}
    done: list[dict[str, Any]] = []

    def fold() -> None:
        nonlocal rows, outcomes
        for rec in done:
            text = kept.get(rec["round_id"])
            try:
                if text is not None and json.loads(text) != rec:
                    differ.append(rec["round_id"])
            except ValueError:
                differ.append(rec["round_id"])
        rows = _added(rows, sum_rounds(done))
        outcomes = _added(outcomes, sum_outcomes(done))
        done.clear()

    for _r, _ in apply_each(g, j.records(at)):
        open_recs.update(g.take_derived().rounds)
        for rid in [r for r in open_recs if r < g.round_id]:  # no longer changes
            done.append(open_recs.pop(rid))
        if len(done) >= 1000:
            fold()
    done += open_recs.values()
    fold()
    return start, rows, outcomes, differ


def verify(path: str | Path, logged: Iterable[tuple[int, str]] = (),
           progress: Progress | None = None, archive: str | Path | None = None,
           keys: Sequence[bytes] = (),
           witness: tuple[int, str] | Sequence[tuple[int, str]] | None = None,
           resume: tuple[int, str] | None = None,
           checked: Callable[[int, str], None] | None = None) -> JournalVerdict:
    """Verify a journal from its first event: start-up's check and more (JournalError: no journal).

    ``logged`` heads are (seq, hash or prefix); ``resume``: (event, seal) already verified;
    ``witness``: a seal kept outside. The notes list every clock step.
    """
    j = Journal(path, readonly=True, archive=archive)
    try:
        if resume is not None:
            row = j.snapshot(resume[0])
            if row is None or row[1] != resume[1] or not j.snapshot_ok(*row):
                resume = None
        v = check(j, full=resume is None, logged=logged, progress=progress, keys=keys,
                  witness=witness, since=resume[0] if resume else None,
                  checked=checked).verdict
        with contextlib.suppress(JournalError, sqlite3.DatabaseError):  # the verdict says why
            v = replace(v, notes=(*v.notes, *step_notes(j)))
        return v
    finally:
        j.close()
