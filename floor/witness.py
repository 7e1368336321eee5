"""The table's side of the floor's witness: its journal against the newest seal the floor holds.

A journal put back (consistent in itself) or replaced no longer matches: the table locks.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from controller.journal import Journal
from controller.journal import seal as sealing
from floor.messages import WitnessMessage, decode

log = logging.getLogger("threecard.floor")


@dataclass(frozen=True, slots=True)
class WitnessVerdict:
    """A journal compared with the floor's witness (``problem``: why it must not deal)."""

    problem: str | None
    note: str


def _last_round(j: Journal) -> int:
    ends = j.round_ends()
    return ends[-1][0] if ends else 0


def check(j: Journal, w: WitnessMessage) -> WitnessVerdict:
    """Compare a journal (read-only) with the floor's witness: it must hold that seal, the same."""
    jid = j.store.meta().get("journal_id")
    mine = next((e for e in w.journals if e.journal_id == jid), None)
    if not jid or mine is None:
        others = ", ".join(e.journal[:16] for e in w.journals)
        return WitnessVerdict(None, "the floor holds no seal of this journal yet" + (
            f" (it holds seals of journal {others} of this table: a new journal's "
            "verification key is enrolled on the floor with `threecard floor enrol`)"
            if others else ""))
    found = sealing.seals(j.db, mine.epoch)
    held = found[0] if found and found[0].epoch == mine.epoch else None
    if held is None:
        last = sealing.last_seal(j.db)
        return WitnessVerdict(
            f"journal rolled back: the floor holds round {mine.round_id}, the journal ends "
            f"at round {_last_round(j)} (put back to an older copy)",
            f"the floor verified epoch {mine.epoch} to event {mine.seq}; the journal's "
            f"newest seal is of epoch {last.epoch if last else 'none'}, event "
            f"{last.seq if last else 0}")
    if held.signature.hex() != mine.signature or held.seq != mine.seq:
        return WitnessVerdict(
            f"the journal disagrees with the floor: the floor holds round {mine.round_id} "
            f"sealed in epoch {mine.epoch} at event {mine.seq}, the journal another seal of "
            f"that epoch, at event {held.seq}: it was put back to an older copy and played "
            "on, or replaced", f"signature {mine.signature[:16]}... on the floor, "
            f"{held.signature.hex()[:16]}... in the journal")
    return WitnessVerdict(None, f"the journal holds the floor's newest seal (epoch "
                          f"{mine.epoch}, round {mine.round_id})")


class WitnessState:
    """What the feed made of the floor's witness (``settled``: compared, none, or unreachable)."""

    def __init__(self) -> None:
        self.settled = threading.Event()
        self.checked = False
        self.problem: str | None = None
        self.why_not = ""


class WitnessReading:
    """The feed's reading of the witness: a mixin of :class:`floor.publisher.FloorPublisher`."""

    table_id: str
    follower: Any
    witness: WitnessState
    on_witness_problem: Any
    _witness_read: bool

    def _warn(self, kind: str, msg: str, *args: Any) -> None:
        raise NotImplementedError

    def _on_witness(self, payload: bytes) -> None:
        try:
            w = decode(WitnessMessage.name, payload)
        except ValueError as exc:
            self._warn("witness", "floor: the floor's witness does not read: %s", exc)
            return
        if w.table != self.table_id:
            return
        self._witness_read = True
        self._compare(w)

    def _compare(self, w: WitnessMessage | None) -> None:
        f, state = self.follower, self.witness
        if f is None:
            return
        v = f.check_witness(w) if w is not None else None
        was = state.checked
        state.checked, state.why_not = True, ""
        if v is None or v.problem is None:
            if not was:
                log.info("floor: witness checked: %s", v.note if v is not None else
                         "the floor holds no seal of this table yet")
            state.settled.set()
            return
        if state.problem is None:
            state.problem = v.problem
            log.error("floor: %s (%s)", v.problem, v.note)
            if self.on_witness_problem is not None:
                self.on_witness_problem(v.problem)
        state.settled.set()

    def _witness_unread(self, why: str) -> None:
        """The witness cannot be read now: start-up waits no longer (it is read later)."""
        state = self.witness
        if not state.checked:
            state.why_not = why
            state.settled.set()


__all__ = ["WitnessReading", "WitnessState", "WitnessVerdict", "check"]
