"""What a table's floor feed makes of a journal, and what the floor should end holding."""

from __future__ import annotations

from pathlib import Path

from controller.game import recall as rc
from floor.follower import Follower


def feed_messages(journal: Path | str, table: str, **kw) -> list:
    """Every message a :class:`~floor.follower.Follower` makes of the journal (``kw``: its
    ``after``, ``rounds_from``, ``until``), in order."""
    f = Follower(journal, table, **kw)
    out = []
    try:
        while (batch := f.poll()) is not None:
            out += batch
    finally:
        f.close()
    return out


def dealt(path: Path, table: str, rounds: int, seed: int) -> Path:
    """A journal at ``path`` of ``rounds`` rounds at 2 seats (autoplay, an ante of 100)."""
    from controller.autoplay import AutoPlayer
    from controller.game.auth import DEMO_PINS, demo_pin_hashes
    from controller.game.engine import TableConfig
    from controller.game.table import Table
    from controller.simulate_cli import simulate
    from simulators.event_shoe import EventShoe

    t = Table(path, TableConfig(seats=2, pin_hashes=demo_pin_hashes(), table_id=table))
    simulate(t, AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(seed), rounds)
    t.close()
    return path


class Clock:
    """A monotonic clock a test moves by hand (``now``, seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def deliver(recorder, msgs: list) -> None:
    """Hand payloads to a :class:`~floor.recorder.Recorder` as the broker would."""
    from floor.messages import encode

    for m in msgs:
        recorder.on_message(m.table, m.name, encode(m))


def finished(journal: Path | str) -> list[dict]:
    """The journal's settled and voided rounds as ``recall --json`` shows them, newest
    first (with its archive)."""
    return [r for r in rc.recall(journal, 1_000_000) if r["status"] in ("settled", "void")]


def verification_key(journal: Path | str) -> str:
    """A journal's verification key (its chain's first key), as text."""
    from controller.journal import Journal

    j = Journal(journal, readonly=True)
    try:
        return j.verification_key
    finally:
        j.close()


def forge(m, after_head: str, edit=None, key=None):
    """Round message ``m`` as a client with the table's MQTT credentials could make it.

    Its rows edited (``edit(row) -> row``), every link right (each seal names the chain
    hash its rows make from ``after_head``, the hash at ``m.after``), its seals signed
    with a key of the forger's own (``key``: an Ed25519 private key; else a new one) and
    naming keys of the forger's own after it: a chain start in ``m`` gets the forger's
    key. Everything but a valid seal.
    """
    import msgspec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from controller.journal.codec import chain_hash
    from controller.journal.seal import message, raw_public
    from floor.messages import ChainRow, SealRow

    key = key or Ed25519PrivateKey.generate()
    first = raw_public(key).hex()
    rows = [edit(r) if edit else r for r in m.rows]
    heads, prev = {}, after_head
    for r in rows:
        prev = heads[r.seq] = chain_hash(prev, r.seq, r.utc, r.mono_ns, r.kind, r.actor, r.body)
    seals = []
    for s in m.seals:
        nxt = Ed25519PrivateKey.generate()
        nk = raw_public(nxt)
        sig = key.sign(message(m.journal_id, s.epoch, s.seq, heads[s.seq], nk))
        seals.append(SealRow(s.epoch, s.seq, heads[s.seq], nk.hex(), sig.hex()))
        key = nxt
    chains = [ChainRow(c.epoch, c.seq, c.head, first) for c in m.chains]
    return msgspec.structs.replace(m, rows=rows, seals=seals, chains=chains)


def head_at(rounds: list, seq: int) -> str:
    """The chain hash at event ``seq`` as the seals of round messages name it (0: the
    genesis): what anyone who reads the feed knows."""
    from controller.journal.anchor import GENESIS

    return GENESIS if seq == 0 else next(s.head for m in rounds for s in m.seals
                                         if s.seq == seq)
