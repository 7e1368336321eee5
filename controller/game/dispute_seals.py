"""A disputed round against the journal's seals: what a bundle carries of them, and its check.

The seals' keys were erased once used, so they cannot be forged: an event changed, even
with later hashes recomputed, breaks a signed head.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import msgspec

from controller.game.dispute import SECRET_KINDS, DisputeError, EventRow, without_secrets
from controller.journal import GENESIS, Journal, chain_hash
from controller.journal import seal as sealing
from controller.journal.seal_check import verify

MEMBER = "seals.json"

_HEX64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
_HEX128 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{128}$")]
_COUNT = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]


class _ChainJSON(msgspec.Struct, forbid_unknown_fields=True):
    epoch: _COUNT
    seq: _COUNT
    head: _HEX64
    key: _HEX64


class _SealJSON(msgspec.Struct, forbid_unknown_fields=True):
    epoch: _COUNT
    seq: _COUNT
    head: _HEX64
    next_key: _HEX64
    signature: _HEX128


class _StartJSON(msgspec.Struct, forbid_unknown_fields=True):
    seq: _COUNT
    hash: _HEX64


class _SealsJSON(msgspec.Struct, forbid_unknown_fields=True):
    journal_id: str
    chains: list[_ChainJSON]
    start: _StartJSON
    before: list[Any]
    after: list[Any]
    seals: list[_SealJSON]


@dataclass(frozen=True, slots=True)
class SealedRange:
    """What a bundle carries to check a round's events against the seals.

    ``start``: (seq, chain hash) the rows chain from; ``before``/``after``: rows from it to the
    round (PIN hashes out), and from the round to the closing seal.
    """

    journal_id: str
    chains: tuple[sealing.ChainStart, ...]
    seals: tuple[sealing.Seal, ...]
    start: tuple[int, str]
    before: tuple[EventRow, ...] = ()
    after: tuple[EventRow, ...] = ()

    @property
    def closing(self) -> sealing.Seal:
        """The seal closing the round (the last one carried)."""
        return self.seals[-1]

    def to_json(self) -> bytes:
        """The bundle file: JSON, one seal or row a line."""
        def lines(items: Sequence[Any]) -> str:
            inner = ",\n".join(json.dumps(i, ensure_ascii=False, sort_keys=True)
                               for i in items)
            return f"[\n{inner}\n]" if items else "[]"

        chains = [{"epoch": c.epoch, "seq": c.seq, "head": c.head,
                   "key": sealing.key_text(c.key)} for c in self.chains]
        seals = [{"epoch": s.epoch, "seq": s.seq, "head": s.head,
                  "next_key": sealing.key_text(s.next_key), "signature": s.signature.hex()}
                 for s in self.seals]
        start = {"seq": self.start[0], "hash": self.start[1]}
        return (f'{{"journal_id": {json.dumps(self.journal_id)},\n'
                f'"chains": {lines(chains)},\n"start": {json.dumps(start)},\n'
                f'"before": {lines([r.to_json() for r in self.before])},\n'
                f'"after": {lines([r.to_json() for r in self.after])},\n'
                f'"seals": {lines(seals)}}}\n').encode()

    @classmethod
    def from_json(cls, data: bytes) -> SealedRange:
        """Inverse of :meth:`to_json` (ValueError says what is wrong)."""
        try:
            d = msgspec.json.decode(data, type=_SealsJSON)
        except msgspec.DecodeError as exc:
            raise ValueError(str(exc)) from None
        return cls(d.journal_id,
                   tuple(sealing.ChainStart(c.epoch, c.seq, c.head, bytes.fromhex(c.key))
                         for c in d.chains),
                   tuple(sealing.Seal(s.epoch, s.seq, s.head, bytes.fromhex(s.next_key),
                                      bytes.fromhex(s.signature)) for s in d.seals),
                   (d.start.seq, d.start.hash),
                   tuple(EventRow.from_json(r) for r in d.before),
                   tuple(EventRow.from_json(r) for r in d.after))


def sealed_range(journal: Journal, round_id: int, before: tuple[int, str], last: int
                 ) -> SealedRange | None:
    """What checks a round's events against the seals; None without seals.

    Raises:
        DisputeError: the round's events are not sealed yet.
        JournalError: a row cannot be read.
    """
    db = journal.db
    chains = sealing.chains(db)
    if not chains:
        return None
    every = sealing.seals(db)
    closing = next((s for s in every if s.seq >= last), None)
    if closing is None:
        newest = f"the last seal is at event {every[-1].seq}" if every else "it holds no seal"
        raise DisputeError(f"round {round_id}'s events (to event {last}) are not sealed yet "
                           f"({newest}): the table seals them when the next round closes, "
                           "within 15 minutes, or when it stops; make the bundle then")
    seals = tuple(s for s in every if s.epoch <= closing.epoch)
    earlier = [s for s in seals if s.seq <= before[0]]
    start = (earlier[-1].seq, earlier[-1].head) if earlier else (0, GENESIS)

    def rows(first: int, upto: int) -> tuple[EventRow, ...]:
        if upto < first:
            return ()
        return tuple(without_secrets(EventRow(*r)) for r in journal.rows(first, upto))

    jid = journal.meta.get("journal_id")
    return SealedRange(jid if isinstance(jid, str) else "",
                       tuple(c for c in chains if c.epoch <= closing.epoch), seals, start,
                       rows(start[0] + 1, before[0]), rows(last + 1, closing.seq))


@dataclass(slots=True)
class SealFindings:
    """What :func:`check_sealed` found: ``problems`` as (file at fault, words), ``notes``."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    closing: sealing.Seal | None = None
    checked: int = 0
    anchored: bool = False
    verification_key: str = ""
    redacted: int = 0
    last_event: int = 0

    def lines(self) -> list[str]:
        """Each problem as one line, the file at fault first."""
        return [f"{member}: {text}" for member, text in self.problems]


def check_sealed(rng: SealedRange, events: Sequence[EventRow], round_id: int,
                 keys: Sequence[bytes] = ()) -> SealFindings:
    """Check a round's events against the bundle's seals (from ``keys`` if given)."""
    f = SealFindings(last_event=events[-1].seq if events else 0)
    if rng.chains:
        f.verification_key = sealing.key_text(rng.chains[0].key)
    if not rng.seals:
        f.problems.append((MEMBER, f"it carries no seal: round {round_id}'s events are not "
                          "sealed by it"))
        return f
    f.closing = rng.closing
    known = {(s.seq, s.head) for s in rng.seals} | {(0, GENESIS)}
    if tuple(rng.start) not in known:
        f.problems.append((MEMBER, f"its rows start from event {rng.start[0]}, where no seal "
                          "it carries ends"))
        return f
    heads: dict[int, str | None] = {s.seq: None for s in rng.seals}
    heads[rng.start[0]] = rng.start[1]
    expect, prev = rng.start[0] + 1, rng.start[1]
    for e in (*rng.before, *events, *rng.after):
        where = "events.jsonl" if events and events[0].seq <= e.seq <= events[-1].seq \
            else MEMBER
        why = _unchained(e, expect, prev, round_id)
        if why:
            f.problems.append((where, why))
            return f
        f.redacted += e.redacted
        heads[e.seq] = prev = e.hash
        expect += 1
    if expect - 1 != rng.closing.seq:
        f.problems.append((MEMBER, f"its rows end at event {expect - 1}, not at the seal "
                          f"closing round {round_id} (epoch {rng.closing.epoch}, event "
                          f"{rng.closing.seq})"))
        return f
    rep = verify(rng.journal_id, rng.chains, rng.seals, heads, keys=keys)
    if rep.problems:
        f.problems.append((MEMBER, f"round {round_id}'s events fail the seals: "
                          f"{rep.problems[0][0]}"))
        return f
    f.notes, f.checked, f.anchored = rep.notes, rep.checked, rep.anchored
    return f


def _unchained(e: EventRow, expect: int, prev: str, round_id: int) -> str | None:
    """Why event ``e`` does not follow the event before it (``prev`` its hash)."""
    if e.seq != expect:
        return (f"event {expect} is missing between the seal before round {round_id} and "
                f"the one closing it (found {e.seq})")
    if e.redacted and e.kind not in SECRET_KINDS:
        return f"event {e.seq} is marked redacted, but a {e.kind} record holds no PIN hash"
    if e.prev != prev or (not e.redacted and chain_hash(
            prev, e.seq, e.utc, e.mono_ns, e.kind, e.actor, e.body) != e.hash):
        return f"event {e.seq} does not chain: its hash does not match"
    return None


__all__ = ["MEMBER", "SealFindings", "SealedRange", "check_sealed", "sealed_range"]
