"""A disputed round, out of the journal and back: its events, its starting state, its replay.

:func:`evidence` takes a round out of a journal that verifies from its first event (a
recomputed chain is refused, never signed); :func:`replay_round` checks the chain of those
events from the snapshot alone and replays them into the round's record again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from controller.game.engine import Game
from controller.game.inputs import STARTUP, ChangePin, ClearBets, PlaceBet, Rebet
from controller.game.recall import as_recalled
from controller.game.replay import ReplayError, apply_each, state_before_round
from controller.game.round import RoundState
from controller.game.verifier import check
from controller.journal import Journal, Record, chain_hash
from controller.journal.anchor import GENESIS

if TYPE_CHECKING:
    from controller.game.dispute_seals import SealedRange

# Inputs no picture is made after: the bets (the first picture, "no more bets", shows them).
NOT_STEPS = frozenset({PlaceBet.name, ClearBets.name, Rebet.name})
CLOSED = (RoundState.SETTLED.value, RoundState.VOID.value)
# The records that hold PIN hashes: a start-up's configuration, a new PIN.
SECRET_KINDS = frozenset({STARTUP, ChangePin.name})
TAKEN_OUT = "scrypt$taken-out"


class DisputeError(ValueError):
    """A round that cannot be taken out, or evidence that does not hold (``member``: the file)."""

    def __init__(self, message: str, member: str = "") -> None:
        super().__init__(f"{member}: {message}" if member else message)
        self.member = member


@dataclass(frozen=True, slots=True)
class EventRow(Record):
    """One journal event with its chain hashes (``redacted``: its PIN hashes taken out)."""

    prev: str
    hash: str
    redacted: bool = False

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON object, ``body`` the journaled text byte for byte unless redacted."""
        return {"seq": self.seq, "utc": self.utc, "mono_ns": self.mono_ns, "kind": self.kind,
                "actor": self.actor, "body": self.body, "prev": self.prev, "hash": self.hash,
                **({"redacted": True} if self.redacted else {})}

    @classmethod
    def from_json(cls, d: Any) -> EventRow:
        """Inverse of :meth:`to_json` (ValueError: not such an object)."""
        types = {"seq": int, "utc": str, "mono_ns": int, "kind": str, "actor": str,
                 "body": str, "prev": str, "hash": str}
        fields = set(d) - {"redacted"} if isinstance(d, dict) else set()
        if not isinstance(d, dict) or fields != set(types) or any(
                type(d[k]) is not t for k, t in types.items()) or d.get("redacted", True
                                                                        ) is not True:
            raise ValueError("an event is an object with " + ", ".join(types)
                             + " (and redacted: true, or not at all)")
        return cls(**d)


def _config_without_pins(config: Any) -> bool:
    if isinstance(config, dict) and "pin_hashes" in config:
        held = bool(config["pin_hashes"])
        config["pin_hashes"] = {}
        return held
    return False


def without_secrets(row: EventRow) -> EventRow:
    """The row as a bundle shows it: no PIN hash nor salt, ``redacted`` (replays need none)."""
    if row.kind not in SECRET_KINDS:
        return row
    body = json.loads(row.body)
    if row.kind == ChangePin.name:
        body["pin_hash"] = TAKEN_OUT
    elif not _config_without_pins(body.get("config")):
        return row
    return replace(row, body=json.dumps(body, sort_keys=True, separators=(",", ":")),
                   redacted=True)


def state_without_secrets(state: str) -> str:
    """A saved state (:meth:`Game.dumps`) with no PIN hash in its configurations."""
    d = json.loads(state)
    _config_without_pins(d.get("config"))
    _config_without_pins(d.get("pending_config"))
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Evidence:
    """One round as taken out of the journal.

    ``snapshot`` is the state after ``before[0]`` (canonical JSON, PIN hashes out); ``before``,
    ``after``, ``head`` are (seq, chain hash); ``steps`` the events pictured; ``screens`` those
    of the start-up in force, ``screens_later`` (seq, screens) of each restart.
    """

    round_id: int
    table_id: str
    snapshot: str
    before: tuple[int, str]
    after: tuple[int, str]
    head: tuple[int, str]
    events: tuple[EventRow, ...]
    record: dict[str, Any]
    close_seq: int
    steps: tuple[int, ...]
    verified: str = ""
    screens: dict[str, Any] | None = None
    software: dict[str, Any] | None = None
    screens_later: tuple[tuple[int, dict[str, Any] | None], ...] = ()
    sealed: SealedRange | None = None

    def screens_at(self, seq: int) -> dict[str, Any] | None:
        """The screens recorded by the start-up in force after event ``seq`` of the round."""
        later = [screens for at, screens in self.screens_later if at <= seq]
        return later[-1] if later else self.screens


def evidence(journal: Journal, round_id: int, full_check: bool = False) -> Evidence:
    """Take round ``round_id`` out of a journal (``full_check``: verify from the first event).

    Raises:
        ReplayError: the journal fails the verifier, or it cannot be replayed.
        DisputeError: no such round, still in play, unsealed, or the seals do not verify.
    """
    from controller.game.dispute_seals import check_sealed, sealed_range

    if journal.last_seq == 0:
        raise DisputeError(f"no round {round_id} in this journal: it holds no events")
    g, at = state_before_round(journal, round_id)
    checked = check(journal, full=full_check, since=at).verdict
    if not checked.ok:
        raise ReplayError(f"the journal fails verification: {checked.message} (threecard "
                          "verify-journal names every problem); nothing is signed")
    opened, snapshot, record, close_seq, end_seq, steps = _replay_round(journal, g, at,
                                                                        round_id)
    if opened is None:
        raise DisputeError(f"no round {round_id} in this journal (the last is {g.round_id})")
    if record is None:
        raise DisputeError(f"round {round_id} is still in play: a bundle is made once it is "
                           "settled or void")
    rows = tuple(without_secrets(EventRow(*row))
                 for row in journal.rows(opened + 1, end_seq))
    before = (opened, journal.event_hash(opened) or GENESIS)
    sealed = sealed_range(journal, round_id, before, end_seq)
    if sealed is not None:
        found = check_sealed(sealed, rows, round_id)
        if found.problems:
            raise DisputeError(f"the journal's seals do not verify: {found.problems[0][1]} "
                               "(threecard verify-journal names every problem); nothing is "
                               "signed")
    table_id = json.loads(snapshot)["config"]["table_id"]
    first = steps[0] if steps else close_seq
    shown, started = (journal.newest(STARTUP, at) for at in (first, close_seq))
    later = tuple((r.seq, json.loads(r.body).get("screens")) for r in rows
                  if r.kind == STARTUP and first < r.seq <= close_seq)
    return Evidence(round_id, table_id, state_without_secrets(snapshot),
                    before, (end_seq, rows[-1].hash),
                    (journal.last_seq, journal.last_hash), rows, record, close_seq,
                    tuple(steps), checked.summary(),
                    json.loads(shown.body).get("screens") if shown is not None else None,
                    json.loads(started.body).get("software") if started is not None else None,
                    later, sealed)


def _replay_round(journal: Journal, g: Game, at: int, round_id: int
                  ) -> tuple[int | None, str, dict[str, Any] | None, int, int, list[int]]:
    """Replay from event ``at``: (opened at and state, record, closing event, last read, steps)."""
    opened = at if g.round_id == round_id else None
    snapshot = g.dumps() if opened is not None else ""
    record: dict[str, Any] | None = None
    close_seq = end_seq = 0
    steps: list[int] = []
    for r, verdict in apply_each(g, journal.records(at)):
        derived = g.take_derived()
        if opened is None:
            if g.round_id == round_id:
                opened, snapshot = r.seq, g.dumps()
            continue
        end_seq = r.seq
        if g.round_id > round_id:  # the next round opened: the round's story is told
            break
        if record is None:
            if verdict is None and r.kind not in NOT_STEPS:
                steps.append(r.seq)
            rec = derived.rounds.get(round_id)
            if rec is not None and rec["status"] in CLOSED:
                record, close_seq = as_recalled(rec, ""), r.seq
    return opened, snapshot, record, close_seq, end_seq, steps


def replay_round(snapshot: str, events: list[EventRow], before: tuple[int, str],
                 after: tuple[int, str], round_id: int) -> dict[str, Any]:
    """Check that ``events`` chain from ``before`` to ``after``; replay them into the record.

    A redacted event must follow its ``prev`` and the next event its hash. DisputeError: a
    break, a bad snapshot, or a replay that fails or does not close the round.
    """
    prev, expect = before[1], before[0] + 1
    for e in events:
        if e.seq != expect:
            raise DisputeError(f"event {expect} is missing (found {e.seq})", "events.jsonl")
        if e.redacted and e.kind not in SECRET_KINDS:
            raise DisputeError(f"event {e.seq} is marked redacted, but a {e.kind} record "
                               "holds no PIN hash", "events.jsonl")
        if e.prev != prev or (not e.redacted and chain_hash(
                prev, e.seq, e.utc, e.mono_ns, e.kind, e.actor, e.body) != e.hash):
            raise DisputeError(f"event {e.seq} does not chain: its hash does not match",
                               "events.jsonl")
        prev, expect = e.hash, expect + 1
    if (expect - 1, prev) != tuple(after):
        raise DisputeError(f"the events end at {expect - 1} {prev[:16]}, not at the anchor "
                           f"after the round ({after[0]} {after[1][:16]})", "events.jsonl")
    try:
        g = Game.from_dict(json.loads(snapshot))
    except Exception as exc:  # noqa: BLE001 - any unreadable snapshot is the same fault
        raise DisputeError(f"the state cannot be loaded: {exc}", "snapshot.json") from None
    if g.last_seq != before[0]:
        raise DisputeError(f"the state is after event {g.last_seq}, not {before[0]}",
                           "snapshot.json")
    record = None
    try:
        for _r, _verdict in apply_each(g, events):
            rec = g.take_derived().rounds.get(round_id)
            if rec is not None and rec["status"] in CLOSED:
                record = as_recalled(rec, "")
    except ReplayError as exc:
        raise DisputeError(str(exc), "events.jsonl") from None
    if record is None:
        raise DisputeError(f"the replay does not close round {round_id}", "events.jsonl")
    return record


__all__ = ["DisputeError", "EventRow", "Evidence", "SECRET_KINDS", "TAKEN_OUT", "evidence",
           "replay_round", "state_without_secrets", "without_secrets"]
