"""A shift's figures from the journal: what ``threecard report shift`` shows, as keys and numbers.

Meter figures are the meters at the period's end minus those at its start (clock-corrected
times). One pass on the verifier's replay collects the rest, keeping no round records; money
figures count amount rounds only, outcome rounds fill the outcome meters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.game.clock_times import Corrections, JournaledStep
from controller.game.engine import Derived, Game
from controller.game.events import LINK_STOPPED
from controller.game.inputs import (
    COMMAND_NAMED,
    STARTUP,
    ExposedCard,
    ManualCard,
    NextRound,
    Resume,
    Role,
    UnblockDeck,
)
from controller.game.meters import ROUNDS_SETTLED, ROUNDS_VOID
from controller.game.numbers import DEFAULT_CURRENCY
from controller.game.par_sheet import ParSheet
from controller.game.records import AMOUNTS
from controller.game.replay import apply_each, rebuild
from controller.game.roles import WRONG_PIN
from controller.game.round import RoundState
from controller.game.rules import RuleProfile
from controller.game.shift_lines import (
    IdentityLine,
    Incident,
    Reading,
    RoleAction,
    RulesLine,
    VoidLine,
)
from controller.game.shift_returns import BET_GROUPS, ReturnLine, ReturnTally, Thinned
from controller.game.verifier import JournalVerdict, check
from controller.journal import Journal, JournalError, Record
from controller.journal import seal as sealing
from controller.journal.anchor import GENESIS

METER_FIELDS = ("wagered", "paid", "won", "rounds", "voids", "refunded")
# Shoe events listed as alarms (besides a link lost or silent, and a lid opened).
ALARM_KINDS = frozenset({"alarm", "misread", "seq_gap", "frame_error", "warning", "empty",
                         "no_frame", "retract"})
ROLES = frozenset({Role.SUPERVISOR.value, Role.TECHNICIAN.value})
IN_PLAY = frozenset({RoundState.NO_MORE_BETS, RoundState.DEALING, RoundState.DECIDING,
                     RoundState.REVEAL, RoundState.PAUSED})
BODY_KINDS = ALARM_KINDS | {STARTUP, "link", "lid", ManualCard.name, ExposedCard.name,
                            UnblockDeck.name}


def parse_utc(text: str) -> datetime:
    """An ISO 8601 time as an aware UTC time (no offset: UTC); ValueError if not one."""
    try:
        t = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not an ISO 8601 time: {text!r} (e.g. 2025-03-14T21:00Z)") from None
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


@dataclass
class Shift:
    """Everything ``threecard report shift`` shows; amounts in minor units.

    ``rows``: meter -> [wagered, paid, won, rounds, voids, refunded]; ``in_play``: the round
    open at the end, counted where it closes; ``last_seal``: (epoch, event, signature hex).
    """

    rules: list[RulesLine]
    start: Reading
    end: Reading
    period_from: str
    period_to: str
    rows: dict[str, list[int]]
    counters: dict[str, int]
    voids: list[VoidLine]
    irregularities: list[Incident]
    alarms: list[Incident]
    role_actions: list[RoleAction]
    identities: list[IdentityLine]
    house: list[tuple[str, int, int]]
    returns: list[ReturnLine]
    outcomes: dict[str, int] = field(default_factory=dict)
    verdict: JournalVerdict = field(default_factory=JournalVerdict)
    currency: str = DEFAULT_CURRENCY
    in_play: int | None = None
    last_seal: tuple[int, int, str] | None = None
    sealed: bool = False
    clock_steps: list[JournaledStep] = field(default_factory=list)

    @property
    def witness(self) -> str | None:
        """The last seal as ``verify-journal --witness`` takes it: ``EVENT:SIGNATURE``."""
        return f"{self.last_seal[1]}:{self.last_seal[2]}" if self.last_seal else None

    @property
    def table_id(self) -> str:
        """The table's id at the period's end."""
        return self.rules[-1].table_id

    @property
    def profile(self) -> RuleProfile:
        """The rule profile in force at the period's end."""
        return self.rules[-1].profile

    @property
    def sheet(self) -> ParSheet:
        """The exact analysis of the profile in force at the period's end."""
        return self.rules[-1].sheet

    def profiles(self) -> list[RulesLine]:
        """Each rule profile in force over the period, once (its first line), in order."""
        out: list[RulesLine] = []
        for line in self.rules:
            if all(line.label != seen.label for seen in out):
                out.append(line)
        return out

    def table_ids(self) -> list[str]:
        """Each table id in force over the period, once, in order."""
        return list(dict.fromkeys(line.table_id for line in self.rules))

    @property
    def altered(self) -> list[IdentityLine]:
        """The identities recorded in the period whose software was altered or went unchecked."""
        return [i for i in self.identities if i.software is not None
                and (i.software.get("alarm") or i.software.get("altered"))]

    @property
    def trusted(self) -> bool:
        """The journal passes the one verifier: its figures can be trusted."""
        return self.verdict.ok

    @property
    def settled(self) -> int:
        """Rounds settled in the period, dealt either way."""
        return self.rows.get("total", [0] * 6)[3] + self.settled_as_outcomes

    @property
    def voided(self) -> int:
        """Rounds voided in the period, dealt either way (the ``voids`` counter)."""
        return self.counters.get("voids", 0)

    @property
    def settled_as_outcomes(self) -> int:
        """Of the rounds settled, those dealt as outcomes."""
        return self.outcomes.get(ROUNDS_SETTLED, 0)

    @property
    def voided_as_outcomes(self) -> int:
        """Of the rounds voided, those dealt as outcomes."""
        return self.outcomes.get(ROUNDS_VOID, 0)

    @property
    def hours(self) -> float:
        """The period's length in hours."""
        if not self.period_from or not self.period_to:
            return 0.0
        span = parse_utc(self.period_to) - parse_utc(self.period_from)
        return max(span.total_seconds(), 0.0) / 3600


def _reading(g: Game, seq: int, utc: str, event_hash: str) -> Reading:
    m = g.meters_dict()
    return Reading(seq, utc, event_hash, {k: list(v) for k, v in m["rows"].items()},
                   dict(m["counters"]), dict(m.get("outcomes", {})))


def _counts_minus(end: dict[str, int], start: dict[str, int]) -> dict[str, int]:
    return {k: v - start.get(k, 0) for k, v in end.items() if v - start.get(k, 0)}


def difference(end: Reading, start: Reading
               ) -> tuple[dict[str, list[int]], dict[str, int], dict[str, int]]:
    """``end`` minus ``start`` (counters and outcome meters only where they changed)."""
    rows = {k: [a - b for a, b in zip(v, start.rows.get(k, [0] * 6), strict=True)]
            for k, v in end.rows.items()}
    return (rows, _counts_minus(end.counters, start.counters),
            _counts_minus(end.outcomes, start.outcomes))


def _utc_of(journal: Journal, seq: int, fix: Corrections) -> datetime:
    return fix.time(seq, next(journal.records(seq - 1, seq)).utc)


def last_at_or_before(journal: Journal, when: datetime, fix: Corrections | None = None) -> int:
    """The newest event whose corrected time is at or before ``when`` (0: none); a bisection."""
    fix = fix if fix is not None else Corrections.of(journal)
    lo, hi = journal.first_seq, journal.last_seq
    if hi < lo:
        return 0
    if _utc_of(journal, lo, fix) > when:
        return lo - 1  # before the first event here (or the cut's, its archive not found)
    while lo < hi:  # the time at lo is at or before when
        mid = (lo + hi + 1) // 2
        if _utc_of(journal, mid, fix) <= when:
            lo = mid
        else:
            hi = mid - 1
    return lo


def period_bounds(journal: Journal, start: datetime | None, end: datetime | None
                  ) -> tuple[int, int, str, str]:
    """(start seq, end seq, from, to) of a period: seq 0 for none, ISO 8601 corrected instants."""
    if journal.last_seq == 0:
        return 0, 0, start.isoformat() if start else "", end.isoformat() if end else ""
    fix = Corrections.of(journal)
    s_seq = 0 if start is None else last_at_or_before(journal, start, fix)
    e_seq = journal.last_seq if end is None else last_at_or_before(journal, end, fix)
    first = fix.text(0, journal.genesis()[1]) if start is None else start.isoformat()
    last = end.isoformat() if end is not None else \
        next(journal.records(e_seq - 1, e_seq)).utc
    return s_seq, e_seq, first, last


def journal_span(path: str | Path, archive: str | Path | None = None
                 ) -> tuple[datetime, datetime] | None:
    """The corrected times of a journal's first and newest events (None: none; JournalError)."""
    j = Journal(path, readonly=True, archive=archive)
    try:
        first = Corrections.of(j).text(0, j.genesis()[1]) if j.last_seq else ""
        newest = next(j.records(j.last_seq - 1), None) if j.last_seq else None
    finally:
        j.close()
    return (parse_utc(first), parse_utc(newest.utc)) if first and newest else None


def _text(body: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in body.items() if v not in (None, "", False)}


class _Pass:

    def __init__(self, g: Game, start: Reading, period_from: str) -> None:
        self.g = g
        self.start = start
        self.tally = ReturnTally()
        self.rules: list[RulesLine] = []
        self.voids: list[VoidLine] = []
        self.irregularities: list[Incident] = []
        self.alarms: list[Incident] = []
        self.actions: list[RoleAction] = []
        self.identities: list[IdentityLine] = []
        self.house = Thinned()  # (utc, round id, house result since the start)
        self._pending_void: int | None = None  # index in voids awaiting approval
        self._profiles: list[RuleProfile] = []  # each distinct profile, in order
        self._profile = 0
        self._config = g.config
        if start.seq:  # before the first event the table has no configuration of its own
            self._rules(start.seq, period_from)
        self._before()

    def _rules(self, seq: int, utc: str) -> None:
        g, last = self.g, self.rules[-1] if self.rules else None
        if last is not None and g.config is self._config:  # set anew only on a change
            return
        from controller.game.deck_counts import stored_counts
        from controller.game.par_sheet import compute_par_sheet

        self._config = g.config
        if last is not None and last.table_id == g.config.table_id and (
                g.profile is last.profile or g.profile == last.profile):
            return
        index = next((i for i, p in enumerate(self._profiles) if p == g.profile), None)
        if index is None:
            index = len(self._profiles)
            self._profiles.append(g.profile)
        same_name = sum(p.name == g.profile.name for p in self._profiles[:index + 1])
        label = g.profile.name + (f" ({same_name})" if same_name > 1 else "")
        sheet = next((x.sheet for x in self.rules if x.label == label), None)
        if sheet is None:
            sheet = compute_par_sheet(g.profile, stored_counts())
        self.rules.append(RulesLine(seq, utc, g.config.table_id, g.profile, label, sheet))
        self._profile = index

    def finish(self, utc: str) -> None:
        """Close the pass: a period with no event still has the table's rules."""
        if not self.rules:
            self._rules(self.start.seq, utc)

    def returns(self) -> list[ReturnLine]:
        sheets = {x.label: x.sheet for x in self.rules}
        labels = list(dict.fromkeys(x.label for x in self.rules))
        return self.tally.lines([(label, sheets[label]) for label in labels])

    def _before(self) -> None:
        g = self.g
        self.round_id = g.round_id
        self.asked = g.waits_for_supervisor()
        self.blocked = g.deal.blocked

    def take(self, r: Record, verdict: str | None, derived: Derived) -> None:
        g = self.g
        kind, actor, rid = r.kind, r.actor, self.round_id
        # the body is read again only where a line is made of it (most events: cards, bets)
        body = json.loads(r.body) if kind in BODY_KINDS or actor in ROLES or \
            actor == WRONG_PIN else {}
        for rec in derived.rounds.values():
            if rec["status"] in ("settled", "void"):
                self._closed(r, rec)
        if kind in COMMAND_NAMED and (actor in ROLES or actor == WRONG_PIN):
            self.actions.append(RoleAction(r.seq, r.utc, rid, actor, kind, _text(body),
                                           verdict or "", g.refusal if verdict else None))
        if verdict is None:
            self._irregularity(r, kind, actor, rid, body)
            self._alarm(r, kind, rid, body)
            if kind == STARTUP:
                self.identities.append(IdentityLine.of_startup(r.seq, r.utc, body))
        self._rules(r.seq, r.utc)
        self._before()

    def _closed(self, r: Record, rec: dict[str, Any]) -> None:
        self.tally.add(rec, self._profile)
        g = self.g
        entry = rec.get("bet_entry", AMOUNTS)
        if rec["status"] == "settled":
            if entry != AMOUNTS:  # no money: the house result stands
                return
            total = g.meters.rows.get("total")
            start = self.start.rows.get("total", [0] * 6)
            house = (total.won - total.paid) - (start[2] - start[1]) if total else 0
            self.house.add((r.utc, rec["round_id"], house))
            return
        note = g.notes.get(RoundState.VOID.value)
        by = note.params.get("by", "table") if note else "table"
        refunded = sum(x["stake"] for s in rec["seats"] for x in s["results"].values()
                       if x["outcome"] == "refund") if entry == AMOUNTS else 0
        approved = by if g.round.void_acknowledged and by in ROLES else ""
        self.voids.append(VoidLine(rec["round_id"], r.seq, r.utc, rec["void_reason"] or "",
                                   by, approved, refunded, entry))
        self._pending_void = None if approved else len(self.voids) - 1

    def _irregularity(self, r: Record, kind: str, actor: str, rid: int,
                      body: dict[str, Any]) -> None:
        g, add = self.g, self.irregularities.append
        if kind == NextRound.name and self._pending_void is not None:
            v = self.voids[self._pending_void]
            self.voids[self._pending_void] = VoidLine(v.round_id, v.seq, v.utc, v.reason,
                                                      v.declared_by, actor, v.refunded,
                                                      v.bet_entry)
            self._pending_void = None
        if kind in (ManualCard.name, ExposedCard.name, UnblockDeck.name):
            name = "deck_unblocked" if kind == UnblockDeck.name else kind
            add(Incident(r.seq, r.utc, rid, name, actor, _text(body)))
        elif kind == Resume.name and self.asked:
            add(Incident(r.seq, r.utc, rid, "resumed", actor))
        if g.deal.blocked and not self.blocked:
            add(Incident(r.seq, r.utc, rid, "deck_blocked", "", {"reason": g.deal.blocked}))
        if kind == STARTUP and g.round.pause and g.round.pause.reason == "interrupted":
            add(Incident(r.seq, r.utc, rid, "interrupted_round", ""))

    def _alarm(self, r: Record, kind: str, rid: int, body: dict[str, Any]) -> None:
        if kind == "link" and body.get("state") in ("disconnected", "silent"):
            if body.get("detail") == LINK_STOPPED:  # the table stopping: no alarm
                return
            name = f"link_{body['state']}"
        elif kind == "lid" and body.get("open"):
            name = "lid_open"
        elif kind in ALARM_KINDS:
            name = kind
        else:
            return
        detail = {k: v for k, v in _text(body).items()
                  if k not in ("seq", "state", "open", "burn_rule")}
        self.alarms.append(Incident(r.seq, r.utc, rid, name, "", detail))


def _identity_before(journal: Journal, seq: int) -> IdentityLine | None:
    rec = journal.newest(STARTUP, seq)
    if rec is None:
        return None
    return IdentityLine.of_startup(rec.seq, rec.utc, json.loads(rec.body), before=True)


def shift(path: str | Path, start: datetime | None = None, end: datetime | None = None,
          archive: str | Path | None = None, full_check: bool = False) -> Shift:
    """A shift's figures from the journal at ``path``, read-only (``archive``: beside it).

    Raises:
        JournalError: not a usable journal, no events, or not replayable (one failing the
            verifier gives its figures, with the verdict).
        ValueError: the period ends before it starts.
    """
    if start is not None and end is not None and end < start:
        raise ValueError("the period ends before it starts")
    j = Journal(path, readonly=True, archive=archive)
    try:
        if j.last_seq == 0:
            raise JournalError(f"{path}: the journal holds no events: nothing to report")
        s_seq, e_seq, period_from, period_to = period_bounds(j, start, end)
        fix = Corrections.of(j)
        period = _Period(j, s_seq, e_seq, period_from, fix)
        checked = check(j, full=full_check, since=s_seq, observe=period).verdict
        if period.walk is None or period.finish is None:  # the check stopped before the end
            period = _Period(j, s_seq, e_seq, period_from, fix)
            g = rebuild(j, s_seq)
            g.take_derived()  # the rows of events before the period
            period(s_seq, g, None, None, None)
            for r, verdict in apply_each(g, j.records(s_seq), e_seq):
                period(r.seq, g, r, verdict, g.take_derived())
        before = _identity_before(j, s_seq)
        newest = sealing.last_seal(j.db)
        sealed = bool(sealing.chains(j.db))
    finally:
        j.close()
    walk, begin, finish = period.walk, period.begin, period.finish
    assert walk is not None and begin is not None and finish is not None
    rows, counters, outcomes = difference(finish, begin)
    return Shift(walk.rules, begin, finish, period_from, period_to, rows, counters,
                 walk.voids, walk.irregularities, walk.alarms, walk.actions,
                 ([before] if before else []) + walk.identities, walk.house.points(),
                 walk.returns(), outcomes, checked, period.currency, period.in_play,
                 (newest.epoch, newest.seq, newest.signature.hex()) if newest else None,
                 sealed, fix.shown(s_seq))


class _Period:
    """The report's pass over a period, riding on a replay (a verifier's ``Observer``)."""

    def __init__(self, j: Journal, s_seq: int, e_seq: int, period_from: str,
                 fix: Corrections) -> None:
        self.j, self.s_seq, self.e_seq, self.period_from = j, s_seq, e_seq, period_from
        self.fix = fix  # every time the pass keeps is corrected by the clock steps since
        self.begin: Reading | None = None
        self.finish: Reading | None = None
        self.walk: _Pass | None = None
        self.currency = DEFAULT_CURRENCY
        self.in_play: int | None = None
        self._utc = ""

    def __call__(self, seq: int, g: Game, r: Record | None, verdict: str | None,
                 derived: Derived | None) -> None:
        if self.finish is not None or seq < self.s_seq:
            return
        if self.walk is None:
            if seq != self.s_seq:  # the replay began after the period's start
                return
            self.begin = _reading(g, seq, "", self.j.event_hash(seq) or GENESIS)
            self.walk = _Pass(g, self.begin, self.period_from)
        elif r is not None and derived is not None:
            r = self.fix.record(r)
            self.walk.take(r, verdict, derived)
            self._utc = r.utc
        if seq == self.e_seq:
            assert self.begin is not None
            self.finish = _reading(g, seq, self._utc or self.begin.utc,
                                   self.j.event_hash(seq) or GENESIS)
            self.walk.finish(self.period_from)
            self.currency = g.config.currency
            state = g.round.state
            if state in IN_PLAY or (state is RoundState.BETTING and g.wagers.seats):
                self.in_play = g.round_id


__all__ = ["BET_GROUPS", "METER_FIELDS", "IdentityLine", "Incident", "Reading", "ReturnLine",
           "RoleAction", "RulesLine", "Shift", "VoidLine", "difference", "journal_span",
           "last_at_or_before", "parse_utc", "period_bounds", "shift"]
