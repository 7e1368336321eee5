"""The lines of a shift's figures (:mod:`controller.game.shift`): keys and numbers only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from msgspec import NODEFAULT
from msgspec.structs import fields

from controller.game.inputs import Software
from controller.game.par_sheet import ParSheet
from controller.game.records import AMOUNTS
from controller.game.refusals import Refusal
from controller.game.rules import RuleProfile


@dataclass(frozen=True, slots=True)
class Reading:
    """The meters as they stood after event ``seq`` (0: before the first, with the genesis hash)."""

    seq: int
    utc: str
    hash: str
    rows: dict[str, list[int]]
    counters: dict[str, int]
    outcomes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VoidLine:
    """One voided round: ``reason`` as recorded, by ``table`` or a role, stakes ``refunded``.

    ``approved_by`` is empty until a role approves or acknowledges it; refunds are minor units.
    """

    round_id: int
    seq: int
    utc: str
    reason: str
    declared_by: str
    approved_by: str
    refunded: int
    bet_entry: str = AMOUNTS


@dataclass(frozen=True, slots=True)
class Incident:
    """An irregularity or a shoe alarm; ``by`` the role that acted (empty: shoe or table)."""

    seq: int
    utc: str
    round_id: int
    kind: str
    by: str = ""
    detail: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RoleAction:
    """A command given with a supervisor's or technician's PIN, or a PIN that matched none."""

    seq: int
    utc: str
    round_id: int
    actor: str
    command: str
    detail: dict[str, str]
    rejected: str = ""
    refusal: Refusal | None = None


@dataclass(frozen=True, slots=True)
class IdentityLine:
    """A software identity journaled at a start-up (``before``: in force as the period began)."""

    seq: int
    utc: str
    software: dict[str, Any] | None
    before: bool = False

    @classmethod
    def of_startup(cls, seq: int, utc: str, body: dict[str, Any], before: bool = False
                   ) -> IdentityLine:
        """The identity a start-up record's body keeps, defaults filled in."""
        raw = body.get("software")
        if raw is None:
            return cls(seq, utc, None, before)
        defaults = {f.name: f.default for f in fields(Software) if f.default is not NODEFAULT}
        return cls(seq, utc, {**defaults, **raw}, before)


@dataclass(frozen=True, slots=True)
class RulesLine:
    """A table id and rule profile in force from one event on (``label``: ``name (2)``...)."""

    seq: int
    utc: str
    table_id: str
    profile: RuleProfile
    label: str
    sheet: ParSheet


__all__ = ["IdentityLine", "Incident", "Reading", "RoleAction", "RulesLine", "VoidLine"]
