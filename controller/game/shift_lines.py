"""The lines of a shift's figures (:mod:`controller.game.shift`).

Readings, voids, incidents, role actions, software identities, and the table ids and rule
profiles in force. Keys and numbers only: the report's renderer translates.
"""

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
    """The meters as they stood after one event.

    Attributes:
        seq: the event (0: before the first).
        utc: its time (empty for 0).
        hash: its chain hash (the genesis hash for 0): the journal's anchor there.
        rows: meter name -> [wagered, paid, won, rounds, voids, refunded].
        counters: event counter -> count.
        outcomes: outcome meter (:func:`controller.game.meters.outcome_key`) -> count: the
            rounds dealt as outcomes.
    """

    seq: int
    utc: str
    hash: str
    rows: dict[str, list[int]]
    counters: dict[str, int]
    outcomes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VoidLine:
    """One voided round.

    Attributes:
        round_id: the round.
        seq: the event that voided it; utc its time.
        reason: the void reason as recorded (a key such as ``card_before_no_more_bets``,
            or the text a supervisor gave).
        declared_by: ``table`` (an irregularity the table saw) or the role that voided it.
        approved_by: the role that approved or acknowledged the void; empty while none has.
        refunded: stakes returned, minor units (0 for a round dealt as outcomes: its bets
            returned are counted in the outcome meters).
        bet_entry: how the round's bets were taken: ``amounts`` or ``outcomes``.
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
    """An irregularity or a shoe alarm.

    Attributes:
        seq: the event; utc its time; round_id the round in play.
        kind: ``manual_card``, ``exposed_card``, ``deck_blocked``, ``deck_unblocked``,
            ``interrupted_round``, ``resumed`` (irregularities); ``link_disconnected``,
            ``link_silent``, ``lid_open`` or a shoe event kind of :data:`ALARM_KINDS`
            (alarms).
        by: the role that acted or approved (empty for what the shoe or table reported).
        detail: values, as text (``card``, ``code``, ``text``, ``reason``...).
    """

    seq: int
    utc: str
    round_id: int
    kind: str
    by: str = ""
    detail: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RoleAction:
    """A command given with a supervisor's or technician's PIN, or a PIN that matched none.

    Attributes:
        seq: the event; utc its time; round_id the round in play.
        actor: ``supervisor``, ``technician`` or :data:`controller.game.shift.WRONG_PIN`.
        command: the command's name.
        detail: its fields, as text.
        rejected: why the table refused it (the journal's English text), or empty when
            it was applied.
        refusal: the refusal's code and typed values (written in any language by
            :meth:`display.i18n.Translator.refusal`), or None.
    """

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
    """A software identity the table journaled at a start-up.

    Attributes:
        seq: the start-up record; utc its time.
        software: its ``software`` fields (version, sha256, files, altered, named,
            problem); None when that start-up recorded none.
        before: True for the last start-up before the period (the identity in force when
            it began).
    """

    seq: int
    utc: str
    software: dict[str, Any] | None
    before: bool = False

    @classmethod
    def of_startup(cls, seq: int, utc: str, body: dict[str, Any], before: bool = False
                   ) -> IdentityLine:
        """The identity a start-up record's body keeps.

        Each field its declaration lets the record leave out
        (:class:`controller.game.inputs.Software`) is given its default.
        """
        raw = body.get("software")
        if raw is None:
            return cls(seq, utc, None, before)
        defaults = {f.name: f.default for f in fields(Software) if f.default is not NODEFAULT}
        return cls(seq, utc, {**defaults, **raw}, before)


@dataclass(frozen=True, slots=True)
class RulesLine:
    """A table id and rule profile in force from one event of the period on.

    Attributes:
        seq: the event from which on (the period's start reading's for the first).
        utc: its time (the period's start for the first).
        table_id: the table's id.
        profile: the rule profile.
        label: the profile's name (``name (2)`` for a second profile of the same name).
        sheet: the profile's exact analysis (par sheet).
    """

    seq: int
    utc: str
    table_id: str
    profile: RuleProfile
    label: str
    sheet: ParSheet


__all__ = ["IdentityLine", "Incident", "Reading", "RoleAction", "RulesLine", "VoidLine"]
