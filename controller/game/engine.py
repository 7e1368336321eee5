"""The table's recorded state and the one function that changes it: :meth:`Game.apply`.

:class:`Game` is fed journal records (``kind``, record or body, ``actor``, ``utc``), so
replaying the journal rebuilds exactly the state the running table had (R1). Applying is
total: a record is applied or rejected with a reason, never an exception. It does no
I/O: what the derived tables need is collected in :attr:`Game.derived`. Its parts (round,
wagers, deal, meters, recall, roles) live in their own modules; cards and the deal's
irregularities in :mod:`controller.game.dealing`, the shoe link's state in
:mod:`controller.game.shoe_link`; outcome mode (``bet_entry``): README.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from controller.game import dealing, inputs
from controller.game import events as ev
from controller.game import shoe_link as link
from controller.game.auth import PinLockout
from controller.game.bets import SeatRound, Wagers
from controller.game.cards import parse_card
from controller.game.clock_steps import on_clock_step
from controller.game.config import (
    BET_ENTRIES,
    MAX_SEATS,
    ConfigError,
    TableConfig,
    changeable_setting,
    config_version,
)
from controller.game.deal import Deal
from controller.game.hands import evaluate3
from controller.game.inputs import InputError, decode_body
from controller.game.meters import Meters
from controller.game.records import BetRecord, DealLine, Recall, RoundRecord, SeatRecord
from controller.game.refusals import Refusal
from controller.game.roles import Roles
from controller.game.round import (
    ALLOWED_COMMANDS,
    CARDS_DUE,
    Note,
    Notes,
    Pause,
    Rejected,
    Round,
    RoundState,
)
from controller.game.rules import RuleProfile, profile_for

S = RoundState
SOFTWARE_ALTERED = "software_altered"
"""Why the deck is held after a start-up whose software is altered (``Software.alarm``),
and the kind of its alarm."""
__all__ = ["Derived", "Game", "MAX_SEATS", "Rejected", "SeatRound", "TableConfig", "profile_for"]


@dataclass(slots=True)
class Derived:
    """What the journal's derived tables must receive (absolute values, idempotent).

    Attributes:
        rounds: round records (recall JSON) finished or changed, by round id.
        ends: the event that last changed each of those records, by round id.
        meters: the full meter table when it changed, else None.
        snapshot: the state after the record of seq ``snapshot[0]``, or None.
        rejections: (seq, reason) of rejected inputs.
    """

    rounds: dict[int, dict[str, Any]] = field(default_factory=dict)
    ends: dict[int, int] = field(default_factory=dict)
    meters: dict[str, Any] | None = None
    snapshot: tuple[int, str] | None = None
    rejections: list[tuple[int, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.rounds or self.meters or self.snapshot or self.rejections)


class Game:
    """The recorded state of one table, and the handlers that change it.

    The state is kept in typed parts: :attr:`round` (:class:`~controller.game.round.Round`),
    :attr:`wagers` (:class:`~controller.game.bets.Wagers`), :attr:`deal`
    (:class:`~controller.game.deal.Deal`), :attr:`meters`
    (:class:`~controller.game.meters.Meters`), :attr:`recall`
    (:class:`~controller.game.records.Recall`) and :attr:`roles`
    (:class:`~controller.game.roles.Roles`); the game orchestrates them.

    Attributes:
        config: the settings in force; ``pending_config`` waits for the round's end.
        notes: banners by kind.
        version: increases with every applied record (views carry it).
        records_version: increases when recall or meters change (view caches key on it).
        refusal: why the last record applied was rejected (code and parameters), or None.
        refused_seq: the journal seq of the last input rejected (what the ``rejected``
            notice is about while it is up); not part of a snapshot, which is only taken
            after an accepted command has taken that notice down.
    """

    def __init__(self, config: TableConfig | None = None) -> None:
        self.config: TableConfig = config or TableConfig()
        self.profile: RuleProfile = self.config.profile
        self.pending_config: TableConfig | None = None
        self.round = Round()
        self.wagers = Wagers()
        self.deal = Deal()
        self.meters = Meters()
        self.recall = Recall(self.config.recall_depth)
        self.roles = Roles()
        self.notes = Notes()
        self.refusal: Refusal | None = None
        self.link_state = "connecting"
        self.link_detail = ""
        self.cut_reached = False
        self._counters_taken: dict[str, int] = {}  # counters as last handed to the journal
        self.rounds_since_snapshot = 0
        self.last_seq = 0
        self.version = 0
        self.records_version = 0
        self.rounds_closed = 0  # rounds closed since this object was made (a seal is due)
        self.derived = Derived()
        self._utc = ""
        self._mono = 0
        self._seq = 0
        self.shoe_seq: int | None = None  # the shoe's seq of the card being applied
        self.refused_seq: int | None = None  # the input the "rejected" notice is about
        #: decoded body type -> handler(game, body, actor)
        self._handlers: dict[type, Any] = {
            inputs.Startup: Game._startup, ev.CardRead: dealing.on_card,
            ev.Misread: dealing.on_misread, ev.Retract: dealing.on_retract,
            ev.LinkStatus: link.on_link, ev.SeqGap: link.on_seq_gap,
            ev.Hello: link.on_hello, ev.Alarm: link.on_alarm,
            ev.Lid: link.on_lid, ev.Cut: link.on_cut,
            ev.Empty: link.on_empty, ev.Warning: link.on_warning,
            ev.FrameError: link.on_frame_error,
            ev.NoFrameDecoded: link.on_no_frame,
            inputs.PlaceBet: Game._place_bet, inputs.MarkBet: Game._mark_bet,
            inputs.RemoveChip: Game._remove_chip, inputs.ClearBets: Game._clear_bets,
            inputs.RebetRecord: Game._rebet, inputs.NoMoreBets: Game._no_more_bets,
            inputs.Decide: Game._decide, inputs.ReopenBets: dealing.on_reopen_bets,
            inputs.UndoDecision: Game._undo_decision, inputs.Reveal: Game._reveal,
            inputs.Settle: Game._settle, inputs.NextRound: Game._next_round,
            inputs.VoidRecord: Game._void_cmd, inputs.ManualCardRecord: dealing.on_manual_card,
            inputs.UnblockRecord: Game._unblock_deck, inputs.Resume: Game._resume,
            inputs.NewDeck: Game._new_deck, inputs.ExposedCard: dealing.on_exposed_card,
            inputs.ConfigChanged: Game._config_change, inputs.PinChanged: Game._change_pin,
            inputs.EnvironmentRecord: dealing.on_environment, inputs.ClockStep: on_clock_step,
            inputs.JournalFault: dealing.on_journal_fault, inputs.DeviceRecord: dealing.on_device,
        }

    # ------------------------------------------------------------------ views of the parts
    @property
    def state(self) -> RoundState:
        """The round's state."""
        return self.round.state

    @property
    def round_id(self) -> int:
        """The round in play (1-based)."""
        return self.round.round_id

    @property
    def seats(self) -> dict[int, SeatRound]:
        """Seat number -> its part of the round (seats with a wager)."""
        return self.wagers.seats

    @property
    def counters(self) -> dict[str, int]:
        """Event counters by name."""
        return self.meters.counters

    @property
    def outcomes(self) -> bool:
        """Bets are marked, not placed (``bet_entry = "outcomes"``): results are outcomes."""
        return self.config.bet_entry == OUTCOMES

    @property
    def lockout(self) -> PinLockout:
        """Wrong PINs in a row and the PIN lockout (the role check's)."""
        return self.roles.lockout

    # ------------------------------------------------------------------ driving
    def apply(self, seq: int, utc: str, kind: str, body: dict[str, Any] | msgspec.Struct,
              actor: str, *, mono_ns: int) -> str | None:
        """Apply one journal record. Total: it returns, whatever the record holds.

        A command is first checked against the PIN lockout, the round's state and the
        role it needs.

        Args:
            seq: the record's journal sequence number.
            utc: its ISO 8601 UTC time.
            kind: the input's type name (``card``, ``place_bet``, ...).
            body: the record the table checked (:func:`controller.game.inputs.journal_record`),
                or a body read from the journal, decoded here through its declaration.
            actor: ``shoe``, ``dealer``, ``supervisor``, ``technician``, ``system``, or
                ``dealer!`` when a PIN was typed and matched no role.
            mono_ns: its monotonic time (durations such as PIN lockouts are measured on it).

        Returns:
            None when applied, else the reason it was rejected (recorded; a rejection
            changes nothing but the rejection counter and notice).
        """
        self.last_seq = seq
        self.version += 1
        self.refusal = None
        self._utc = utc
        self._mono = mono_ns
        self._seq = seq
        self.roles.lockout.observe(mono_ns)
        try:
            command = inputs.COMMAND_NAMED.get(kind)
            if command is not None:
                self._admit(command, actor)
                self.notes.pop("rejected", None)
            item = body if isinstance(body, msgspec.Struct) else _decoded(kind, body)
            self._handlers[type(item)](self, item, actor)
        except Rejected as exc:
            return self._reject(seq, kind, exc.refusal)
        except Exception as exc:  # noqa: BLE001 - apply is total: a fault is recorded, not raised
            self.meters.count("faults")
            return self._reject(seq, kind, Refusal("fault", {"input": kind,
                                                             "detail": repr(exc)}))
        return None

    def _reject(self, seq: int, kind: str, refusal: Refusal) -> str:
        reason = refusal.journal_text()
        self.refused_seq = seq
        self.meters.count("rejected")
        self.refusal = refusal
        self.notes["rejected"] = Note("warning", reason, "", {
            "input": kind, "currency": self.config.currency, **refusal.as_params()})
        self.derived.rejections.append((seq, reason))
        return reason

    def take_derived(self) -> Derived:
        """Hand over (and reset) what the derived tables need.

        Event counters change outside a round's close (rejections, PIN failures, shoe
        events); when they did, the meter table goes along. The meter table handed over
        is the one of now, not of the round's close (a counter may have moved since in
        the same batch), so the stored meters and counters always equal the replayed
        ones at the event they were written after.
        """
        d, self.derived = self.derived, Derived()
        if d.meters is not None or self.meters.counters != self._counters_taken:
            d.meters = self.meters_dict()
        if d.meters is not None:
            self._counters_taken = dict(self.meters.counters)
        return d

    def pin_lockout_ms(self) -> int:
        """Milliseconds PIN entry stays locked as of the last record applied (0: none)."""
        return self.roles.lockout.ms_left(self._mono, self._utc)

    def waits_for_supervisor(self) -> bool:
        """The table asks for a supervisor: an unacknowledged void, or such a pause."""
        r = self.round
        return ((r.state is S.VOID and not r.void_acknowledged)
                or bool(r.pause and r.pause.supervisor))

    def _admit(self, command: type[inputs.DealerCommand], actor: str) -> None:
        """The PIN lockout, the round's state, then the role the command needs."""
        cfg = self.config
        self.roles.check_pin(actor, self._mono, self._utc, cfg.lockout_after,
                             cfg.lockout_seconds, self.meters)
        if command.name not in ALLOWED_COMMANDS[self.round.state]:
            raise Rejected("not_allowed_now", command=command.name, state=self.round.state.value)
        self.roles.check_role(command, actor, self.waits_for_supervisor(), self.meters)

    # ------------------------------------------------------------------ start-up
    def _startup(self, body: inputs.Startup, actor: str) -> None:
        """Power-up: adopt the configuration; an interrupted deal waits for a supervisor."""
        self.meters.count("power_ups")
        cfg = TableConfig.from_dict(body.config)
        r = self.round
        if cfg != self.config:
            if r.state in (S.BETTING, S.SETTLED, S.VOID) and not self.seats:
                self._set_config(cfg)
            else:
                # the game settings wait for the round to end; who may authorise takes
                # effect now, or a round waiting for a supervisor could never end
                self._set_config(replace(self.config, pin_hashes=cfg.pin_hashes,
                                         lockout_after=cfg.lockout_after,
                                         lockout_seconds=cfg.lockout_seconds))
                self.pending_config = cfg if cfg != self.config else None
        self.roles.lockout.power_up(self._mono, self._utc, config_version(body.config) >= 2,
                                    self.config.lockout_seconds)
        sw = body.software
        if sw is not None and sw.alarm:  # GLI-11: dealt on only once a supervisor knows
            dealing.hold_deck(self, SOFTWARE_ALTERED, "Software altered: files that differ "
                              "from the build", sw.altered)
        self.link_state = "connecting"
        self.notes.drop("link_lost")
        # docs/rules.md "power loss or crash mid-round": continue if the record is complete
        if r.state in CARDS_DUE or (r.pause and r.pause.reason != "misread"):
            resume_to = r.pause.resume_to if r.pause else r.state.value
            if r.state is not S.PAUSED:
                r.go("pause", S.PAUSED)
            r.pause = Pause("interrupted", resume_to, True)
            self.notes.put("interrupted_round", "The round was interrupted mid-deal by a restart.",
                       "Supervisor: check the cards on the layout, then resume or void",
                       severity="error")
        elif r.state in (S.DECIDING, S.REVEAL):
            self.notes.put("interrupted_round", "The round was restored after a restart.",
                       "Continue the round", severity="info")

    def _set_config(self, cfg: TableConfig) -> None:
        if cfg.bet_entry != self.config.bet_entry:
            self.wagers.last = {}  # amounts are no marks, marks no amounts: no rebet across
        self.config = cfg
        self.profile = cfg.profile
        self.recall.resize(cfg.recall_depth)
        self.records_version += 1

    # ------------------------------------------------------------------ bets
    def _seat_no(self, seat: int) -> int:
        if not 1 <= seat <= self.config.seats:
            raise Rejected("no_such_seat", seat=seat, seats=self.config.seats)
        return seat

    def _place_bet(self, body: inputs.PlaceBet, actor: str) -> None:
        if self.outcomes:
            raise Rejected("bets_are_marked", command=inputs.MarkBet.name)
        self.wagers.place(self.profile, self._seat_no(body.seat), body.bet, body.amount)

    def _mark_bet(self, body: inputs.MarkBet, actor: str) -> None:
        if not self.outcomes:
            raise Rejected("bets_are_amounts", command=inputs.PlaceBet.name)
        self.wagers.mark(self.profile, self._seat_no(body.seat), body.bet, body.on)

    def _remove_chip(self, body: inputs.RemoveChip, actor: str) -> None:
        if self.outcomes:
            raise Rejected("bets_are_marked", command=inputs.MarkBet.name)
        self.wagers.remove(self._seat_no(body.seat), body.bet, body.amount)

    def _clear_bets(self, body: inputs.ClearBets, actor: str) -> None:
        self.seats.pop(self._seat_no(body.seat), None)

    def _rebet(self, body: inputs.RebetRecord, actor: str) -> None:
        every = body.seat == 0
        targets = sorted(self.wagers.last) if every else [self._seat_no(body.seat)]
        self.wagers.rebet(self.profile, targets, fill_only=body.rule >= inputs.REBET_RULE,
                          every=every)

    def _no_more_bets(self, body: inputs.NoMoreBets, actor: str) -> None:
        if self.deal.blocked:
            raise Rejected("deck_blocked_clear", why=self.deal.blocked)
        self.wagers.validate(self.profile, limits=not self.outcomes)
        self.deal.open(sorted(self.seats), self.config.deal_pattern, self.config.burn_cards)
        self.round.go(inputs.NoMoreBets.name, S.NO_MORE_BETS)
        if self.link_state in link.LINK_DOWN:
            self.round.start_pause("link_lost", supervisor=False)

    # ------------------------------------------------------------------ supervisor
    def _resume(self, body: inputs.Resume, actor: str) -> None:
        if self.round.paused_for("misread"):
            raise Rejected("misread_waiting")
        if self.link_state in link.LINK_DOWN:
            raise Rejected("link_down")
        self.round.seq_broken = False
        dealing.unpause(self)

    def _unblock_deck(self, body: inputs.UnblockRecord, actor: str) -> None:
        if not self.deal.blocked:
            raise Rejected("deck_not_blocked")
        self.deal.blocked = None
        self.notes.drop("deck_blocked", SOFTWARE_ALTERED, dealing.ENVIRONMENT_ALTERED)

    def _new_deck(self, body: inputs.NewDeck, actor: str) -> None:
        if self.deal.blocked:
            raise Rejected("deck_blocked")
        self.deal.seen = set()
        self.cut_reached = False
        self.notes.drop("cut_card")

    def _config_change(self, body: inputs.ConfigChanged, actor: str) -> None:
        value = body.value
        if (body.key == "bet_entry" and self.seats and self.state is S.BETTING
                and value != self.config.bet_entry):
            raise Rejected("bet_entry_with_bets")
        try:
            key = changeable_setting(body.key)  # a name journaled before is read too
        except ConfigError as exc:
            raise Rejected("unknown_setting", setting=str(body.key), detail=str(exc)) from None
        try:
            cfg = self.config.changed(key, value, body.rules_text)
        except ConfigError as exc:
            raise Rejected("bad_setting_value", setting=key, value=str(value),
                           detail=str(exc)) from None
        old = getattr(self.config, key)
        self._set_config(cfg)
        self.meters.count("config_changes")
        self.notes.put("config", f"{key} changed from {old!r} to {value!r} by {actor}", "",
                   severity="info")

    def _change_pin(self, body: inputs.PinChanged, actor: str) -> None:
        self._set_config(replace(self.config, pin_hashes={**self.config.pin_hashes,
                                                          body.role: body.pin_hash}))
        self.meters.count("config_changes")

    # ------------------------------------------------------------------ decisions
    def _decide(self, body: inputs.Decide, actor: str) -> None:
        self.wagers.decide(self._seat_no(body.seat), body.decision)

    def _undo_decision(self, body: inputs.UndoDecision, actor: str) -> None:
        self.wagers.undecide(self._seat_no(body.seat))

    def _reveal(self, body: inputs.Reveal, actor: str) -> None:
        waiting = self.wagers.undecided()
        if waiting:
            raise Rejected("seats_undecided", seats=tuple(waiting))
        d = evaluate3([parse_card(c) for c in self.deal.dealer_cards])
        self.round.dealer_hand = d.hand_class.key
        self.round.dealer_qualifies = self.profile.qualifier.qualifies(d)
        self.round.go(inputs.Reveal.name, S.REVEAL)

    def _settle(self, body: inputs.Settle, actor: str) -> None:
        done = self.wagers.settle(self.profile, self.deal.dealer_cards, self.outcomes)
        self.round.go(inputs.Settle.name, S.SETTLED)
        # the paytable lines are recorded for outcomes only: records of amounts keep their
        # shape, so journals written before replay to the very same records
        self._close_round(settled=True, lines={
            seat: {r.bet: r.line for r in res.results if r.line} for seat, res in done.items()
        } if self.outcomes else None)

    # ------------------------------------------------------------------ void / next
    def _void_cmd(self, body: inputs.VoidRecord, actor: str) -> None:
        if dealing.fixed(self):
            raise Rejected("outcome_fixed")
        self.void(body.reason or "supervisor", acknowledged=True, by=actor)

    def void(self, reason: str, acknowledged: bool, by: str = "table",
              card: str | None = None) -> None:
        """Void: every wager is returned, the reason recorded (docs/rules.md "Void")."""
        r = self.round
        r.pause = None
        r.go(inputs.VoidRound.name, S.VOID)
        r.void_reason, r.void_acknowledged = reason, acknowledged
        self.meters.count("voids")
        refunds = self.wagers.refund()
        params = {"reason": reason, "by": by}
        if card:
            params["card"] = card
        self.notes.put(S.VOID.value, f"Round {r.round_id} is void ({reason.replace('_', ' ')}): "
                   "every wager is returned.",
                   "Return every wager" + ("" if acknowledged else
                                          "; a supervisor acknowledges the void"),
                   severity="error", **params, refunds=self._refunds_text(refunds))
        self.notes.drop(*dealing.PAUSE_NOTES)
        self._close_round(settled=False)

    def _refunds_text(self, refunds: dict[int, int]) -> str:
        """``seat 1: 600, seat 3: 100``; in outcome mode the bets (``seat 1: ante pair_plus``)."""
        if self.outcomes:
            return ", ".join(f"seat {s}: {' '.join(self.seats[s].bets)}" for s in sorted(refunds))
        return ", ".join(f"seat {s}: {v}" for s, v in sorted(refunds.items()))

    def _close_round(self, settled: bool, lines: dict[int, dict[str, str]] | None = None
                     ) -> None:
        """Record the finished round, count it in the meters, keep its wagers for a rebet.

        Args:
            settled: settled (else voided).
            lines: outcome mode: seat -> bet -> the paytable line of its win.
        """
        rec = self.round_record(_SETTLED if settled else S.VOID.value, lines)
        self.recall.add(rec)
        self.derived.rounds[rec.round_id] = rec.to_dict()
        self.derived.ends[rec.round_id] = self._seq
        if self.outcomes:
            self.meters.close_outcome_round(self.wagers.results(), lines or {}, settled)
        else:
            self.meters.close_round(self.wagers.results(), settled)
        self.derived.meters = self.meters_dict()
        self.wagers.close()
        self.records_version += 1
        self.rounds_closed += 1

    def _next_round(self, body: inputs.NextRound, actor: str) -> None:
        self.round.next_round(self._utc)
        self.wagers.seats = {}
        self.deal.reset(new_deck=self.config.deck_per_round)
        self.notes.drop(S.VOID.value, dealing.EXPOSED, "extra_card", "interrupted_round",
                        "config", "shoe_warning", "journal_fault_cleared", "card_not_recorded",
                        dealing.DEVICE_BACK)
        if self.pending_config is not None:
            self._set_config(self.pending_config)
            self.pending_config = None
        self.rounds_since_snapshot += 1
        if self.rounds_since_snapshot >= self.config.snapshot_every:
            self.rounds_since_snapshot = 0
            self.derived.snapshot = (self._seq, self.dumps())

    # ------------------------------------------------------------------ records
    def round_record(self, status: str | None = None,
                     lines: dict[int, dict[str, str]] | None = None) -> RoundRecord:
        """The current round as game recall shows it (complete, dealer cards included).

        Args:
            status: ``settled``, ``void`` or ``in_progress`` (default: from the state).
            lines: outcome mode: seat -> bet -> the paytable line of its win.
        """
        r = self.round
        lines = lines or {}
        if status is None:
            status = {S.SETTLED: _SETTLED, S.VOID: S.VOID.value}.get(r.state, _IN_PROGRESS)
        seats = [SeatRecord(seat, list(sr.cards), dict(sr.bets), sr.decision, sr.hand, sr.six,
                            {b.bet: BetRecord(b.outcome, b.net, b.stake, b.multiple,
                                              lines.get(seat, {}).get(b.bet, ""))
                             for b in sr.results or ()}, sr.net)
                 for seat, sr in sorted(self.seats.items())]
        return RoundRecord(r.round_id, status, r.void_reason, r.started_utc,
                           self._utc if status != _IN_PROGRESS else None, r.state.value,
                           [DealLine(*e.line()) for e in self.deal.entries],
                           list(self.deal.dealer_cards), r.dealer_hand, r.dealer_qualifies,
                           seats, self.config.bet_entry)

    def meters_dict(self) -> dict[str, Any]:
        """Meters as journaled: rows by name and event counters."""
        return self.meters.as_dict()

    def to_dict(self) -> dict[str, Any]:
        """The complete recorded state, JSON-ready (snapshots, crash-test comparison).

        The shape is the one snapshots have always had (positional lists for deal
        entries, meter rows, results and notes), so every snapshot written before reads.
        """
        return {
            "config": self.config.to_dict(),
            "pending_config": self.pending_config.to_dict() if self.pending_config else None,
            **self.round.snapshot(), **self.wagers.snapshot(), **self.deal.snapshot(),
            "link_state": self.link_state, "link_detail": self.link_detail,
            "cut_reached": self.cut_reached,
            "notes": {k: msgspec.to_builtins(v) for k, v in sorted(self.notes.items())},
            "meters": self.meters_dict(), "recall": self.recall.snapshot(),
            "lockout": self.roles.lockout.to_dict(),
            "rounds_since_snapshot": self.rounds_since_snapshot, "last_seq": self.last_seq,
        }

    def dumps(self) -> str:
        """:meth:`to_dict` as canonical JSON."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` output (a journal snapshot, any version)."""
        g = cls(TableConfig.from_dict(d["config"]))
        g.pending_config = (TableConfig.from_dict(d["pending_config"])
                            if d["pending_config"] else None)
        g.round = Round.from_snapshot(d)
        g.wagers = Wagers.from_snapshot(d)
        g.deal = Deal.from_snapshot(d)
        g.link_state, g.link_detail = d["link_state"], d["link_detail"]
        g.cut_reached = d["cut_reached"]
        g.notes = Notes({k: msgspec.convert(v, Note) for k, v in d["notes"].items()})
        g.meters = Meters.from_dict(d["meters"])
        g.recall = Recall(g.config.recall_depth,
                          [RoundRecord.from_dict(r) for r in d["recall"]])
        g.roles = Roles(PinLockout.from_dict(d["lockout"]) if "lockout" in d  # saved before:
                        else PinLockout.before(d["pin_failures"], d["pin_locked_until"]))
        g.rounds_since_snapshot = d["rounds_since_snapshot"]
        g.last_seq = d["last_seq"]
        return g


_SETTLED = S.SETTLED.value
OUTCOMES = BET_ENTRIES[1]
"""The ``bet_entry`` of a table that marks bets."""
_IN_PROGRESS = "in_progress"


def _decoded(kind: str, body: dict[str, Any]) -> msgspec.Struct:
    """A journaled body through its declaration (one that fails it is rejected)."""
    try:
        return decode_body(kind, body)
    except InputError as exc:
        raise Rejected("input_unreadable", detail=str(exc)) from None
