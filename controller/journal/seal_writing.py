"""The writer's half of the seals: a new chain, the seal of each epoch, ``seal init`` (R16)."""

from __future__ import annotations

import json
import secrets
import sqlite3
from pathlib import Path
from typing import Any

from controller.journal import seal as sealing
from controller.journal.anchor import GENESIS, JournalError

SEAL_INIT = ("; a technician checks what happened, then may start a new chain with "
             "`threecard seal init --journal J` (the table stopped)")


class SealWriting:
    """Sealing for a journal writer (attributes set by the journal as it opens)."""

    sealer: sealing.Sealer | None
    seal_error: str | None
    sealed_seq: int
    _key_folder: Path | None
    _new_chain: bool
    _unsealed_since: int | None
    db: sqlite3.Connection
    path: str
    readonly: bool
    last_seq: int
    last_hash: str
    meta: dict[str, Any]
    store: Any

    def _open_sealer(self) -> None:
        now = sealing.current(self.db)
        jid = self.meta.get("journal_id")
        last = sealing.last_seal(self.db)
        self.sealed_seq = last.seq if last is not None else 0
        if now is None:
            kept = sealing.key_files_of(self._key_folder, self.path)  # type: ignore[arg-type]
            if (isinstance(jid, str) and jid) or (kept and self.last_seq):
                self.seal_error = ("the journal's seals were deleted: "
                                   + (f"its file names journal {jid[:16]}, sealed, " if jid
                                      else f"its seal key is in {kept[0]}, ")
                                   + "but it holds no seals" + SEAL_INIT)
            elif self.last_seq == 0:
                self._new_chain = True  # made with the first event
            return
        if not sealing.is_journal_id(jid):
            self.seal_error = ("the journal's id was removed from its file: its seals cannot "
                               "be read" + SEAL_INIT)
            return
        try:
            self.sealer = sealing.Sealer.open(self._key_folder, self.path, jid, *now)  # type: ignore[arg-type]
        except sealing.SealError as exc:
            self.seal_error = str(exc) + SEAL_INIT

    @property
    def verification_key(self) -> str | None:
        """The journal's verification key (its first chain's key, as text); None: unsealed."""
        found = sealing.chains(self.db)
        return sealing.key_text(found[0].key) if found else None

    def seal_init(self) -> str:
        """Start a new chain at the head (unsealed, or key lost); its key text (JournalError)."""
        if self._key_folder is None or self.readonly:
            raise JournalError(f"{self.path}: only the table's writer can start a seal chain")
        if self.last_seq == 0:
            raise JournalError(f"{self.path}: the journal has no events: its chain starts "
                               "with its first event")
        jid = self.store.meta().get("journal_id") or secrets.token_hex(32)
        epoch = sealing.next_chain_epoch(self.db)
        try:
            sealing.set_aside(self._key_folder, self.path, jid)  # type: ignore[arg-type]
            self.sealer, key = sealing.Sealer.new(self._key_folder, self.path, jid, epoch)
        except sealing.SealError as exc:
            raise JournalError(str(exc)) from None
        try:
            self.db.execute("BEGIN IMMEDIATE")
            sealing.write_chain(self.db, sealing.ChainStart(epoch, self.last_seq,
                                                            self.last_hash, key))
            self.store.set_meta({"journal_id": jid})
            self._commit()
        except sqlite3.Error as exc:
            self._rollback()
            self.sealer = None
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None
        self.seal_error = None
        self._unsealed_since = None
        return sealing.key_text(key)

    def _seal_rows(self, seq: int, head: str) -> bool:
        if self.sealer is None or seq <= self.sealed_seq:
            return False
        self.sealer.stage()
        sealing.write_seal(self.db, self.sealer.seal(seq, head))
        return True

    def _sealed(self, seq: int) -> None:
        self.sealed_seq = seq
        self._unsealed_since = None
        try:
            self.sealer.advance()  # type: ignore[union-attr]
        except sealing.SealError as exc:  # the used key stays readable: no seal may follow
            self.seal_error = (f"the seal key cannot be written over ({exc}): the used key "
                               "is not erased; free the state folder, then restart")
            self.sealer = None

    def record_check(self, seq: int, seal: str) -> None:
        """Keep a full check's progress to snapshot ``seq``, signed, for a stopped start (R16)."""
        if self.sealer is None:
            return
        s = self.sealer
        sig = s.sign(sealing.progress_message(s.journal_id, s.epoch, seq, seal))
        note = json.dumps({"seq": seq, "seal": seal, "epoch": s.epoch, "signature": sig.hex()})
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.store.set_meta({"full_check": note})
            self._commit()  # type: ignore[attr-defined]
        except sqlite3.Error as exc:
            self._rollback()  # type: ignore[attr-defined]
            raise JournalError(f"{self.path}: journal write failed: {exc}") from None

    def checked_to(self) -> tuple[int, str] | None:
        """A full check's kept progress (snapshot event, seal); None unless this chain signed."""
        try:
            note = json.loads(self.store.meta().get("full_check") or "null")
            seq, seal, epoch = note["seq"], note["seal"], note["epoch"]
            sig = bytes.fromhex(note["signature"])
        except (ValueError, TypeError, KeyError):
            return None
        jid = self.store.meta().get("journal_id")
        key = sealing.epoch_key(self.db, epoch) if isinstance(epoch, int) else None
        if (key is None or not isinstance(jid, str) or not isinstance(seq, int)
                or not isinstance(seal, str) or not sealing.signature_ok(
                    key, sig, sealing.progress_message(jid, epoch, seq, seal))):
            return None
        return seq, seal

    def seal_due(self, mono_ns: int) -> bool:
        """Whether an event has waited :data:`~controller.journal.seal.SEAL_EVERY_NS`."""
        since = self._unsealed_since
        return (self.sealer is not None and since is not None
                and mono_ns - since >= sealing.SEAL_EVERY_NS)

    def seal(self) -> bool:
        """Seal the head in a commit of its own if events are unsealed; whether it did."""
        if self.sealer is None or self.last_seq <= self.sealed_seq:
            return False
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self._seal_rows(self.last_seq, self.last_hash)
            self._commit()
        except (sqlite3.Error, sealing.SealError) as exc:
            self._rollback()
            self.sealer.drop()
            raise JournalError(f"{self.path}: journal seal failed: {exc}") from None
        self._sealed(self.last_seq)
        return True

    def _chain_for(self, rows: list[tuple[Any, ...]]) -> sealing.ChainStart:
        """A new journal's chain: its first key made, under a new random journal id."""
        try:
            self.sealer, key = sealing.Sealer.new(self._key_folder, self.path,
                                                  secrets.token_hex(32), 0)  # type: ignore[arg-type]
        except sealing.SealError as exc:
            raise JournalError(str(exc)) from None
        return sealing.ChainStart(0, 0, GENESIS, key)


__all__ = ["SealWriting"]
