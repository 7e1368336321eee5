"""The verifier's check of the seals, after the hash chain.

The seals' heads are those the chain check computed, so an event changed before a seal fails
it even with every later hash recomputed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.game.verdict import ProblemKind
from controller.journal import seal as sealing
from controller.journal.seal_check import SealReport, verify

if TYPE_CHECKING:
    from controller.journal import Journal


def seal_end(db: object) -> int:
    """The event the newest seal covers (0: none)."""
    last = sealing.last_seal(db)  # type: ignore[arg-type]
    return last.seq if last is not None else 0


class SealChecks:
    """A mixin of the verifier's check (``self.j``, ``self.full``, ``self.start``)."""

    j: Journal
    full: bool
    start: int
    notes: list[str]
    keys: Sequence[bytes] = ()
    witness: tuple[int, str] | None = None
    seal_report: SealReport | None = None

    def seal_heads(self) -> dict[int, str | None]:
        """The events whose chain hashes the seals need (filled by the chain's check)."""
        db = self.j.db
        self._chains = sealing.chains(db)
        self._first_epoch = 0 if self.full else sealing.first_epoch_from(db, self.start)
        self._seals = sealing.seals(db, self._first_epoch - 1)
        heads: dict[int, str | None] = {s.seq: None for s in self._seals
                                        if s.epoch >= self._first_epoch}
        heads.update({c.seq: None for c in self._chains
                      if c.seq and c.epoch >= self._first_epoch})
        for seq, _ in self._witnesses():
            heads.setdefault(seq, None)
        return heads

    def check_seals(self, heads: dict[int, str | None]) -> None:
        """Check the seals; a problem ends the check (naming the first bad epoch)."""
        j = self.j
        if not self._chains and not self._seals:
            if j.meta.get("journal_id"):
                self.stop(ProblemKind.SEAL, "the journal's seals were deleted: its file "
                          "names a sealed journal but holds no seals")
            if self.keys or self.witness:
                self.stop(ProblemKind.SEAL, "the journal is not sealed: no verification key "
                          "or witness can be checked")
            return
        if any(seq > j.last_seq for seq, _ in self._witnesses()):
            self.check_witness(heads)  # a journal rolled back: the witness says it first
        for seq, h in list(heads.items()):  # a head before the chain's start: read it
            if seq > j.last_seq:
                self.stop(ProblemKind.SEAL, f"the journal ends at event {j.last_seq}, but a "
                          f"seal covers event {seq}: events after {j.last_seq} were deleted",
                          j.last_seq + 1)
            if h is None and seq and seq < max(self.start, 1):
                heads[seq] = self.hash_at(seq)

        def round_of(seq: int) -> int | None:  # the round an epoch closed: the last ended
            ends = [(end, rid) for rid, _, end in j.round_ends()
                    if isinstance(end, int) and end <= seq]
            return max(ends)[1] if ends else None

        rep = verify(j.meta.get("journal_id"), self._chains, self._seals, heads,
                     keys=self.keys, first_epoch=self._first_epoch, round_of=round_of)
        self.seal_report = rep
        self.notes += rep.notes
        if rep.problems:
            message, seq, _ = rep.problems[0]
            self.stop(ProblemKind.SEAL, message, seq)
        if self.witness:
            self.check_witness(heads)

    def seal_facts(self) -> tuple[tuple[int, int, str] | None, str | None, bool]:
        """The verdict's seal fields: the last seal checked, the key, whether one was given."""
        rep, starts = self.seal_report, getattr(self, "_chains", [])
        last = rep.last if rep is not None else None
        return ((last.epoch, last.seq, last.signature.hex()) if last else None,
                sealing.key_text(starts[0].key) if starts else None,
                bool(rep is not None and rep.anchored))

    def _witnesses(self) -> list[tuple[int, str]]:
        w = self.witness
        if not w:
            return []
        return [w] if isinstance(w[0], int) else list(w)  # type: ignore[list-item]

    def check_witness(self, heads: dict[int, str | None]) -> None:
        """The journal still holds each seal a witness kept (``--witness SEQ:SIG``)."""
        for seq, sig in sorted(self._witnesses(), reverse=True):
            found = [s for s in self._seals if s.seq == seq]
            if seq > self.j.last_seq:
                self.stop(ProblemKind.SEAL, f"journal rolled back: the witness holds a seal at "
                          f"event {seq}, the journal ends at event {self.j.last_seq}", seq)
            if not found or not found[-1].signature.hex().startswith(sig.lower()):
                self.stop(ProblemKind.SEAL, f"the journal does not hold the seal the witness "
                          f"kept at event {seq}: it was replaced or put back to another copy",
                          seq)


__all__ = ["SealChecks", "seal_end"]
