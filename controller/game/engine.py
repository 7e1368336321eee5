"""The table's recorded state and the one function that changes it: :meth:`Game.apply`.

:class:`Game` is plain data plus deterministic handlers. It is fed journal records
(``kind``, ``body``, ``actor``, ``utc``), never live objects, so replaying the journal
rebuilds exactly the state the running table had (docs/requirements.md R1). It does no I/O:
what the journal's derived tables need (round records, absolute meters, snapshots,
rejections) is collected in :attr:`Game.derived` for the caller to write.

Irregularities follow docs/rules.md; each handler names the row it implements.

Burn cards. A card the shoe reads in burn mode (a ``card`` with ``burn``, or an
unreadable burn: a ``misread`` with ``burn``) is never a hand card and never an
irregularity. The rules, in order:

1. With ``burn_cards`` = n, the first n positions of every deal are burns
   (:func:`~controller.game.round.deal_positions`); they are due from "no more bets".
2. A burn the shoe flags itself fills the next position when that position is a burn:
   in "no more bets", between two burns, and while the round is paused there. A
   misread waiting at a burn position is resolved by it; any other pause stays, and the
   round deals on from the next position once resumed.
3. A game-mode card while a burn position is due is still the burn: the dealer did not
   switch the shoe to burn mode. So is a game-mode misread there: it pauses like any
   misread, and the card presented again, a flagged burn or a supervisor's entry fills
   the burn position.
4. A flagged burn when no burn position is next (``burn_cards`` = 0, every burn dealt,
   mid-deal, after the deal, during betting, paused at a hand position) is recorded in
   the round's deal as a burn outside the positions, and nothing else happens. One read
   between rounds (settled or void, before the next round opens) is added to the deal
   of the finished round's record, whose deck it came from (the deck's inventory
   restarts with the next round when ``deck_per_round``); nothing else in the record
   changes.
5. A readable burn is a card out of the deck: seen twice in one deck, or of an unknown
   code, it voids and blocks the deck like any card (docs/rules.md). An unreadable burn is
   counted (``unreadable_burns``) and shown as a card None in the deal.

Journal compatibility: the card body of a flagged burn carries ``"burn_rule": 2``
(:func:`controller.game.table.encode_input`). A body without it was journaled before flagged
burns filled burn positions and replays as it was applied then: set aside wherever it
came (between rounds, in the game's deal but not in the finished round's record). A
``misread`` body without ``burn`` is a plain misread, as it always was.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from controller.game.auth import PRIVILEGED
from controller.game.cards import parse_card
from controller.game.round import (
    ALLOWED_COMMANDS,
    CARDS_DUE,
    RoundState,
    check_transition,
    deal_positions,
    position_name,
)
from controller.game.rules import RuleProfile, load_profile
from controller.game.settlement import BetError, Bets, Decision, settle, validate_bets

S = RoundState
SIDE_BETS = ("ante", "pair_plus", "six_card_bonus")
METER_BETS = ("ante", "play", "ante_bonus", "pair_plus", "six_card_bonus")
CONFIG_KEYS = ("deal_pattern", "burn_cards", "exposed_card_policy", "max_pin_failures",
               "lockout_seconds", "rules")


MAX_SEATS = 7
"""The most seats a table has (seats are numbered 1 to 7)."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Settings of one table; recorded in the journal, changed only by ``ConfigChange``.

    Attributes:
        table_id: the table's name.
        rules: rule profile name (``live``, ``classic``) or path.
        seats: number of seats, 1 to :data:`MAX_SEATS`.
        deal_pattern: ``round_robin`` (default) or ``by_hand``.
        burn_cards: burn cards expected before the first hand card of each round.
        exposed_card_policy: ``burn`` (burn it and deal on) or ``void``.
        pin_hashes: role -> salted PIN hash (see :mod:`controller.game.auth`).
        max_pin_failures: wrong PINs in a row before PIN entry is locked.
        lockout_seconds: how long PIN entry stays locked.
        recall_depth: rounds kept for game recall in the views (at least 10).
        deck_per_round: the deck is reshuffled every round (the inventory restarts).
        snapshot_every: rounds between state snapshots in the journal.
        chip_values: chip denominations for the dealer's bet buttons, minor units.
    """

    table_id: str = "table-1"
    rules: str = "live"
    seats: int = 7
    deal_pattern: str = "round_robin"
    burn_cards: int = 0
    exposed_card_policy: str = "burn"
    pin_hashes: dict[str, str] = field(default_factory=dict)
    max_pin_failures: int = 5
    lockout_seconds: int = 300
    recall_depth: int = 10
    deck_per_round: bool = True
    snapshot_every: int = 200
    chip_values: tuple[int, ...] = (100, 500, 2500, 10000)

    def validate(self) -> None:
        """Raise ValueError naming the first bad setting."""
        if self.deal_pattern not in ("round_robin", "by_hand"):
            raise ValueError(f"deal_pattern must be round_robin or by_hand, "
                             f"got {self.deal_pattern!r}")
        if self.exposed_card_policy not in ("burn", "void"):
            raise ValueError(f"exposed_card_policy must be burn or void, "
                             f"got {self.exposed_card_policy!r}")
        for name in ("burn_cards", "seats", "max_pin_failures", "lockout_seconds",
                     "recall_depth", "snapshot_every"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"{name} must be a whole number >= 0, got {v!r}")
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be 1 to {MAX_SEATS}, got {self.seats}")
        if self.recall_depth < 10:
            raise ValueError("recall_depth must be at least 10 (docs/requirements.md R5)")
        load_profile(self.rules)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (as journaled)."""
        d = asdict(self)
        d["chip_values"] = list(self.chip_values)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableConfig:
        """Inverse of :meth:`to_dict`."""
        d = dict(d)
        d["chip_values"] = tuple(d.get("chip_values", cls.chip_values))
        return cls(**d)


_PROFILES: dict[str, RuleProfile] = {}


def profile_for(rules: str) -> RuleProfile:
    """Load (once) and return the rule profile named ``rules``."""
    p = _PROFILES.get(rules)
    if p is None:
        p = _PROFILES[rules] = load_profile(rules)
    return p


class SeatRound:
    """One seat's part of the current round (mutable; owned by the table thread)."""

    __slots__ = ("bets", "cards", "decision", "results", "net", "hand", "six")

    def __init__(self, bets: dict[str, int] | None = None) -> None:
        self.bets: dict[str, int] = bets or {}
        self.cards: list[str] = []
        self.decision: str | None = None
        self.results: list[list[Any]] | None = None  # [bet, outcome, stake, multiple, net]
        self.net: int | None = None
        self.hand: str | None = None
        self.six: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {k: getattr(self, k) for k in self.__slots__}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeatRound:
        """Inverse of :meth:`to_dict`."""
        s = cls()
        for k in cls.__slots__:
            setattr(s, k, d[k])
        return s


class Rejected(Exception):
    """An input not allowed now: rejected with this reason, recorded, nothing changed."""


def _new_meter() -> list[int]:
    # wagered, paid, won, rounds, voids, refunded
    return [0, 0, 0, 0, 0, 0]


@dataclass(slots=True)
class Derived:
    """What the journal's derived tables must receive (absolute values, idempotent).

    Attributes:
        rounds: round records (recall JSON) finished or changed, by round id.
        meters: the full meter table when it changed, else None.
        snapshot: the state after the record of seq ``snapshot[0]``, or None.
        rejections: (seq, reason) of rejected inputs.
    """

    rounds: dict[int, dict[str, Any]] = field(default_factory=dict)
    meters: dict[str, Any] | None = None
    snapshot: tuple[int, str] | None = None
    rejections: list[tuple[int, str]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.rounds or self.meters or self.snapshot or self.rejections)


class Game:
    """The recorded state of one table and its deterministic transition handlers.

    Attributes:
        config: the settings in force.
        state: the round state.
        round_id: the current round number (1-based).
        version: increases with every applied record (views carry it).
        records_version: increases when recall or meters change (view caches key on it).
    """

    def __init__(self, config: TableConfig | None = None) -> None:
        self.config: TableConfig = config or TableConfig()
        self.profile: RuleProfile = profile_for(self.config.rules)
        self.pending_config: TableConfig | None = None
        self.state: RoundState = S.BETTING
        self.round_id = 1
        self.started_utc = ""
        self.seats: dict[int, SeatRound] = {}
        self.last_bets: dict[int, dict[str, int]] = {}
        self.positions: list[tuple[int, int]] = []
        self.deal_index = 0
        self.deal: list[list[Any]] = []  # [card|None, position, manual, seq, positional]
        self.dealer_cards: list[str] = []
        self.dealer_hand: str | None = None
        self.dealer_qualifies: bool | None = None
        self.seen: set[str] = set()
        self.deck_blocked: str | None = None
        self.pause: dict[str, Any] | None = None
        self.void_reason: str | None = None
        self.void_acknowledged = False
        self.link_state = "connecting"
        self.link_detail = ""
        self.seq_broken = False
        self.cut_reached = False
        self.notes: dict[str, list[Any]] = {}  # kind -> [severity, message, action, params]
        self.meters: dict[str, list[int]] = {}
        self.counters: dict[str, int] = {}
        self._counters_taken: dict[str, int] = {}  # counters as last handed to the journal
        self.recall: deque[dict[str, Any]] = deque(maxlen=self.config.recall_depth)
        self.pin_failures = 0
        self.pin_locked_until = 0.0
        self.rounds_since_snapshot = 0
        self.last_seq = 0
        self.version = 0
        self.records_version = 0
        self.derived = Derived()
        self._utc = ""
        self._seq = 0
        self._seq_of: int | None = None
        self._handlers = {
            "startup": self._startup,
            "card": self._card, "misread": self._misread, "retract": self._retract,
            "link": self._link, "seq_gap": self._seq_gap, "hello": self._hello,
            "alarm": self._alarm, "lid": self._lid, "cut": self._cut, "empty": self._empty,
            "warning": self._warning, "frame_error": self._frame_error,
            "no_frame": self._no_frame,
            "place_bet": self._place_bet, "clear_bets": self._clear_bets, "rebet": self._rebet,
            "no_more_bets": self._no_more_bets, "decide": self._decide, "reveal": self._reveal,
            "settle": self._settle, "next_round": self._next_round, "void": self._void_cmd,
            "manual_card": self._manual_card, "unblock_deck": self._unblock_deck,
            "resume": self._resume, "new_deck": self._new_deck,
            "exposed_card": self._exposed_card, "config_change": self._config_change,
            "change_pin": self._change_pin,
        }

    # ------------------------------------------------------------------ driving
    def apply(self, seq: int, utc: str, kind: str, body: dict[str, Any], actor: str) -> str | None:
        """Apply one journal record.

        Args:
            seq: the record's journal sequence number.
            utc: its ISO 8601 UTC time.
            kind: the input's type name (``card``, ``place_bet``, ...).
            body: its fields (no PIN).
            actor: ``shoe``, ``dealer``, ``supervisor``, ``technician``, ``system``, or
                ``dealer!`` when a PIN was typed and matched no role.

        Returns:
            None when applied, else the reason it was rejected (nothing changed).
        """
        self.last_seq = seq
        self.version += 1
        self._utc = utc
        self._seq = seq
        handler = self._handlers.get(kind)
        try:
            if handler is None:
                raise Rejected(f"unknown input {kind!r}")
            if kind in _COMMAND_KINDS:
                self._admit(kind, body, actor)
                self.notes.pop("rejected", None)
            handler(body, actor)
        except Rejected as exc:
            reason = str(exc)
            self.counters["rejected"] = self.counters.get("rejected", 0) + 1
            self.notes["rejected"] = ["warning", reason, "", {"input": kind}]
            self.derived.rejections.append((seq, reason))
            return reason
        return None

    def take_derived(self) -> Derived:
        """Hand over (and reset) what the derived tables need.

        Event counters change outside a round's close (rejections, PIN failures, shoe
        events); when they did, the meter table goes along. The meter table handed over
        is the one of now, not of the round's close (a counter may have moved since in
        the same batch), so the stored meters and counters always equal the replayed
        ones at the event they were written after.
        """
        d, self.derived = self.derived, Derived()
        if d.meters is not None or self.counters != self._counters_taken:
            d.meters = self.meters_dict()
        if d.meters is not None:
            self._counters_taken = dict(self.counters)
        return d

    def _admit(self, kind: str, body: dict[str, Any], actor: str) -> None:
        if actor == "dealer!" or actor in PRIVILEGED:
            now = _epoch(self._utc)
            if now < self.pin_locked_until:
                raise Rejected("PIN entry is locked after repeated wrong PINs; try later")
            if actor == "dealer!":
                self.pin_failures += 1
                self.counters["pin_failures"] = self.counters.get("pin_failures", 0) + 1
                if self.pin_failures >= self.config.max_pin_failures:
                    self.pin_locked_until = now + self.config.lockout_seconds
                    self.pin_failures = 0
                    self.counters["pin_lockouts"] = self.counters.get("pin_lockouts", 0) + 1
                raise Rejected("wrong PIN")
        if kind not in ALLOWED_COMMANDS[self.state]:
            raise Rejected(f"{kind} is not allowed while {self.state.value}")
        needs_pin = kind in _PRIVILEGED_KINDS and not self._privileged_ok(kind, "dealer")
        if needs_pin and not self._privileged_ok(kind, actor):
            what = "a technician" if kind == "change_pin" else "a supervisor or technician"
            raise Rejected(f"{kind} needs {what} PIN")
        if actor in PRIVILEGED:
            self.pin_failures = 0
            if needs_pin:
                self.counters["overrides"] = self.counters.get("overrides", 0) + 1

    def _privileged_ok(self, kind: str, actor: str) -> bool:
        if kind == "change_pin":
            return actor == "technician"
        if kind == "next_round":
            return self.state is not S.VOID or self.void_acknowledged or actor in PRIVILEGED
        if kind == "resume":
            return not (self.pause and self.pause["supervisor"]) or actor in PRIVILEGED
        return actor in PRIVILEGED

    def _go(self, trigger: str, target: RoundState) -> None:
        self.state = check_transition(self.state, trigger, target)

    def _count(self, name: str) -> None:
        self.counters[name] = self.counters.get(name, 0) + 1

    def _note(self, kind: str, message: str, action: str = "", severity: str = "warning",
              **params: str) -> None:
        self.notes[kind] = [severity, message, action, params]

    # ------------------------------------------------------------------ start-up
    def _startup(self, body: dict[str, Any], actor: str) -> None:
        """Power-up: adopt the configuration; an interrupted deal waits for a supervisor."""
        self._count("power_ups")
        cfg = TableConfig.from_dict(body["config"])
        if cfg != self.config:
            if self.state in (S.BETTING, S.SETTLED, S.VOID) and not self.seats:
                self._set_config(cfg)
            else:
                # the game settings wait for the round to end; who may authorise takes
                # effect now, or a round waiting for a supervisor could never end
                self._set_config(replace(self.config, pin_hashes=cfg.pin_hashes,
                                         max_pin_failures=cfg.max_pin_failures,
                                         lockout_seconds=cfg.lockout_seconds))
                self.pending_config = cfg if cfg != self.config else None
        self.link_state = "connecting"
        self.notes.pop("link_lost", None)
        # docs/rules.md "power loss or crash mid-round": continue if the record is complete
        if self.state in CARDS_DUE or (self.pause and self.pause["reason"] != "misread"):
            resume_to = self.pause["resume_to"] if self.pause else self.state.value
            if self.state is not S.PAUSED:
                self._go("pause", S.PAUSED)
            self.pause = {"reason": "interrupted", "resume_to": resume_to, "supervisor": True}
            self._note("interrupted_round", "The round was interrupted mid-deal by a restart.",
                       "Supervisor: check the cards on the layout, then resume or void",
                       severity="error")
        elif self.state in (S.DECIDING, S.REVEAL):
            self._note("interrupted_round", "The round was restored after a restart.",
                       "Continue the round", severity="info")

    def _set_config(self, cfg: TableConfig) -> None:
        self.config = cfg
        self.profile = profile_for(cfg.rules)
        if self.recall.maxlen != cfg.recall_depth:
            self.recall = deque(self.recall, maxlen=cfg.recall_depth)
        self.records_version += 1

    # ------------------------------------------------------------------ bets
    def _seat_no(self, body: dict[str, Any]) -> int:
        seat = body.get("seat")
        if not isinstance(seat, int) or not 1 <= seat <= self.config.seats:
            raise Rejected(f"no seat {seat!r} at this table (1-{self.config.seats})")
        return seat

    def _check_max(self, seat: int, bets: dict[str, int]) -> None:
        for bet, v in bets.items():
            lim = self.profile.limits.get(bet)
            if lim is not None and v > lim.max:
                raise Rejected(f"seat {seat}: {bet} {v} is above the table maximum {lim.max}")

    def _place_bet(self, body: dict[str, Any], actor: str) -> None:
        seat = self._seat_no(body)
        bet, amount = body.get("bet"), body.get("amount")
        if bet not in SIDE_BETS:
            raise Rejected(f"unknown bet {bet!r} (ante, pair_plus, six_card_bonus)")
        if bet == "six_card_bonus" and not self.profile.offers_six_card_bonus:
            raise Rejected("the 6 Card Bonus is not offered under these rules")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise Rejected(f"a bet is a positive whole number of minor units, got {amount!r}")
        sr = self.seats.get(seat)
        new = dict(sr.bets) if sr else {}
        new[bet] = new.get(bet, 0) + amount
        self._check_max(seat, new)
        if sr is None:
            self.seats[seat] = SeatRound(new)
        else:
            sr.bets = new

    def _clear_bets(self, body: dict[str, Any], actor: str) -> None:
        self.seats.pop(self._seat_no(body), None)

    def _rebet(self, body: dict[str, Any], actor: str) -> None:
        seat = body.get("seat", 0)
        targets = sorted(self.last_bets) if seat == 0 else [self._seat_no(body)]
        if not targets or any(t not in self.last_bets for t in targets):
            raise Rejected("no wagers of a last round to place again")
        for t in targets:
            self._check_max(t, self.last_bets[t])
        for t in targets:
            self.seats[t] = SeatRound(dict(self.last_bets[t]))

    def _no_more_bets(self, body: dict[str, Any], actor: str) -> None:
        if self.deck_blocked:
            raise Rejected(f"the deck is blocked ({self.deck_blocked}): a supervisor must "
                           "clear it first")
        if not self.seats:
            raise Rejected("no wager on the table")
        for seat in sorted(self.seats):
            b = self.seats[seat].bets
            try:
                validate_bets(self.profile, Bets(b.get("ante", 0), b.get("pair_plus", 0),
                                                 b.get("six_card_bonus", 0)))
            except BetError as exc:
                raise Rejected(f"seat {seat}: {exc}") from None
        self.positions = deal_positions(sorted(self.seats), self.config.deal_pattern,
                                        self.config.burn_cards)
        self._go("no_more_bets", S.NO_MORE_BETS)
        if self.link_state in ("disconnected", "silent"):
            self._pause("link_lost", supervisor=False)

    # ------------------------------------------------------------------ cards
    def _fixed(self) -> bool:
        """Every card and every decision is recorded: the outcome is fixed (R11)."""
        if self.state in (S.REVEAL, S.SETTLED):
            return True
        if self.state is not S.DECIDING:
            return False
        return all(sr.decision is not None for sr in self.seats.values() if sr.bets.get("ante"))

    def _bad_card(self, card: str | None, code: str) -> str | None:
        if card is None:
            return "unknown_card"
        if card in self.seen:
            return "duplicate_card"
        return None

    def _block(self, why: str, card: str | None, code: str) -> None:
        """docs/rules.md: duplicate or unknown card -> void, deck blocked until a supervisor."""
        self.deck_blocked = why
        self._count(why)
        text = card or code
        what = (f"Card {text} seen twice in this deck" if why == "duplicate_card"
                else f"Unknown card code {code!r}")
        self._note("deck_blocked", f"{what}: the deck is blocked.",
                   "Supervisor: check the deck, then unblock it", severity="error",
                   card=text)
        self.deal.append([card, "rejected", False, self._seq_of, False])

    def _card(self, body: dict[str, Any], actor: str) -> None:
        card, code, burn = body.get("card"), body.get("code", ""), body.get("burn", False)
        self._seq_of = body.get("seq")
        st = self.state
        bad = self._bad_card(card, code)
        if bad:
            self._block(bad, card, code)
            if not self._fixed() and st not in (S.SETTLED, S.VOID):
                self._void(bad, acknowledged=False)
            return
        if burn:
            if body.get("burn_rule", 1) >= 2:
                self._flagged_burn(card)
            else:  # journaled before flagged burns filled positions: replay as then
                self.seen.add(card)
                self.deal.append([card, "burn", False, self._seq_of, False])
            return
        if st in CARDS_DUE:
            self._deal(card, False)
        elif st is S.PAUSED:
            if self.pause["reason"] != "misread":
                raise Rejected("a card was read while the round is paused: retract it and "
                               "deal it again after resuming")
            self._resolve_misread(card, False)
        elif st is S.BETTING:
            self.seen.add(card)
            self.deal.append([card, "exposed", False, self._seq_of, False])
            self._count("card_before_no_more_bets")
            self._void("card_before_no_more_bets", acknowledged=False, card=card)
        elif st is S.DECIDING and not self._fixed():
            self.seen.add(card)
            self.deal.append([card, "extra", False, self._seq_of, False])
            self._count("wrong_count")
            self._void("wrong_count", acknowledged=False, card=card)
        else:
            # after the outcome is fixed, or between rounds: never void (R11); note it
            self.seen.add(card)
            self.deal.append([card, "extra", False, self._seq_of, False])
            self._note("extra_card", f"An extra card {card} was read and set aside.",
                       "Set the card aside as a burn", card=card)

    def _burn_due(self) -> bool:
        """The round's next position is a burn (rule 2 of the module docstring)."""
        if self.state not in CARDS_DUE and self.state is not S.PAUSED:
            return False
        i = self.deal_index
        return i < len(self.positions) and self.positions[i][0] < 0

    def _flagged_burn(self, card: str | None) -> None:
        """A burn the shoe flagged (``card`` None: unreadable); rules 2 and 4 above.

        The card's identity was already checked against the deck by the caller.
        """
        if self._burn_due():
            if self.state is not S.PAUSED:
                self._deal(card, False)
            elif self.pause["reason"] == "misread":
                self._resolve_misread(card, False)
            else:
                self._deal(card, False)
                if self.pause["resume_to"] == S.NO_MORE_BETS.value:
                    self.pause["resume_to"] = S.DEALING.value
            return
        if card is not None:
            self.seen.add(card)
        entry = [card, "burn", False, self._seq_of, False]
        self.deal.append(entry)
        rec = self.recall[0] if self.recall else None
        if self.state in (S.SETTLED, S.VOID) and rec and rec["round_id"] == self.round_id:
            rec = {**rec, "deal": [*rec["deal"], entry[:3]]}  # a new dict: none is mutated
            self.recall[0] = self.derived.rounds[self.round_id] = rec
            self.records_version += 1

    def _deal(self, card: str | None, manual: bool) -> None:
        """The card (None: an unreadable burn) takes the round's next position."""
        seat, n = self.positions[self.deal_index]
        self.deal_index += 1
        if card is not None:
            self.seen.add(card)
        self.deal.append([card, position_name(seat), manual, self._seq_of, True])
        if seat > 0:
            self.seats[seat].cards.append(card)
        elif seat == 0:
            self.dealer_cards.append(card)
        st = self.state
        if self.deal_index == len(self.positions):
            self._go("card", S.DECIDING)
        elif st is S.NO_MORE_BETS:
            self._go("card", S.DEALING)

    def _pause(self, reason: str, supervisor: bool, **extra: Any) -> None:
        resume_to = self.state.value
        self._go("pause", S.PAUSED)
        self.pause = {"reason": reason, "resume_to": resume_to, "supervisor": supervisor, **extra}

    def _unpause(self) -> None:
        target = S(self.pause["resume_to"])
        self.pause = None
        if target is S.DEALING and self.deal_index == 0:
            target = S.NO_MORE_BETS
        if target in CARDS_DUE and self.deal_index == len(self.positions):
            target = S.DECIDING
        self._go("resume", target)
        for k in ("misread", "seq_gap", "shoe_restart", "alarm", "shoe_empty", "frame_error",
                  "interrupted_round"):
            self.notes.pop(k, None)

    def _resolve_misread(self, card: str | None, manual: bool) -> None:
        resume_to = self.pause["resume_to"]
        self.pause = None
        self._go("resume", S(resume_to))
        self.notes.pop("misread", None)
        self._deal(card, manual)

    def _misread(self, body: dict[str, Any], actor: str) -> None:
        """docs/rules.md: a misread pauses; re-present or enter by hand (supervisor); else void.

        An unreadable burn (``burn`` in the body) is no misread: it is a burn card
        (rules 2 and 4 of the module docstring).
        """
        if body.get("burn"):
            self._count("unreadable_burns")
            self._seq_of = body.get("seq")
            self._flagged_burn(None)
            return
        self._count("misreads")
        st = self.state
        if st in CARDS_DUE:
            self._pause("misread", supervisor=False, position=self.deal_index)
            self._note("misread", "The shoe could not read a card.",
                       "Re-present the card, or a supervisor enters it by hand")
        elif st is S.PAUSED and self.pause["reason"] == "misread":
            pass  # the re-presented card misread again: still waiting
        elif st is S.BETTING:
            self._void("card_before_no_more_bets", acknowledged=False)
        elif st is S.DECIDING and not self._fixed():
            self._void("wrong_count", acknowledged=False)
        else:
            self._note("extra_card", "An extra unreadable card left the shoe.",
                       "Set the card aside as a burn")

    def _manual_card(self, body: dict[str, Any], actor: str) -> None:
        if not self.pause or self.pause["reason"] != "misread":
            raise Rejected("a manual card is only for a misread")
        try:
            card = str(parse_card(body.get("card", "")))
        except ValueError as exc:
            raise Rejected(str(exc)) from None
        if card in self.seen:
            raise Rejected(f"{card} was already dealt from this deck")
        self._seq_of = None
        self._count("manual_cards")
        self._resolve_misread(card, True)

    def _retract(self, body: dict[str, Any], actor: str) -> None:
        """docs/rules.md: a card pulled back -> undo that card (the last one)."""
        st = self.state
        if st is S.PAUSED and self.pause["reason"] == "misread":
            self._resolve_retracted_misread()
            return
        if st not in (S.NO_MORE_BETS, S.DEALING, S.DECIDING) or not self.deal:
            raise Rejected("no card to undo")
        if any(sr.decision for sr in self.seats.values()):
            raise Rejected("decisions are recorded: the deal can no longer be undone")
        last = self.deal[-1]
        want = body.get("card_seq")
        if want is not None and last[3] is not None and want != last[3]:
            raise Rejected(f"only the last card (seq {last[3]}) can be undone, not seq {want}")
        if last[1] in ("rejected", "exposed", "extra"):
            raise Rejected("the last card was not dealt to a position")
        self.deal.pop()
        if last[0] is not None:
            self.seen.discard(last[0])
        self._count("retracts")
        if last[4]:
            self._undo_position("retract")

    def _undo_position(self, trigger: str) -> None:
        self.deal_index -= 1
        seat, _ = self.positions[self.deal_index]
        if seat > 0:
            self.seats[seat].cards.pop()
        elif seat == 0:
            self.dealer_cards.pop()
        target = S.DEALING if self.deal_index else S.NO_MORE_BETS
        if self.state is not target:
            self._go(trigger, target)

    def _resolve_retracted_misread(self) -> None:
        self._unpause()

    def _exposed_card(self, body: dict[str, Any], actor: str) -> None:
        """docs/rules.md: one card exposed (policy burn/void); dealer's cards exposed -> void."""
        if body.get("dealer_hand"):
            self._count("exposed_cards")
            if self._fixed():
                self._note("exposed_card", "The dealer's cards were exposed after every "
                           "decision: the round goes on.", "Continue", severity="info")
                return
            self._void("dealer_cards_exposed", acknowledged=False)
            return
        if self.deal_index == 0 or self._fixed() or not self.deal or not self.deal[-1][4]:
            raise Rejected("no dealt card to mark as exposed")
        last = self.deal[-1]
        seat, _ = self.positions[self.deal_index - 1]
        if seat < 0:
            raise Rejected("the last card was a burn")
        self._count("exposed_cards")
        if seat == 0:
            self._void("dealer_cards_exposed", acknowledged=False, card=last[0])
            return
        if self.config.exposed_card_policy == "void":
            self._void("exposed_card", acknowledged=False, card=last[0])
            return
        self._undo_position("exposed_card")
        last[1] = "burn"
        last[4] = False
        self._note("exposed_card", f"Exposed card {last[0]} burned; the next card takes "
                   "its place.", "Burn the exposed card and deal on", severity="info",
                   card=str(last[0]))

    # ------------------------------------------------------------------ shoe link
    def _link(self, body: dict[str, Any], actor: str) -> None:
        """docs/rules.md: shoe unplugged or silent mid-deal -> pause; reconnect if intact."""
        state = body.get("state", "connecting")
        self.link_state, self.link_detail = state, body.get("detail", "")
        if state in ("disconnected", "silent"):
            self._count("shoe_disconnects")
            self._note("link_lost" if state == "disconnected" else "link_silent",
                       "The shoe link is lost." if state == "disconnected"
                       else "The shoe went silent.", "Check the shoe cable; the round waits",
                       severity="error", detail=self.link_detail)
            if self.state in CARDS_DUE:
                self.seq_broken = False
                self._pause("link_lost", supervisor=False)
        elif state == "online":
            self.notes.pop("link_lost", None)
            self.notes.pop("link_silent", None)
            if self.state is S.PAUSED and self.pause["reason"] == "link_lost":
                if self.seq_broken:
                    self.pause["supervisor"] = True
                    self._note("seq_gap", "The shoe reconnected but lines were lost.",
                               "Supervisor: void the round, or check the cards and resume",
                               severity="error")
                else:
                    self._unpause()

    def _seq_gap(self, body: dict[str, Any], actor: str) -> None:
        self._count("seq_gaps")
        self._broken("seq_gap", f"Shoe lines {body.get('expected')}..{body.get('got')} "
                     "were lost.")

    def _hello(self, body: dict[str, Any], actor: str) -> None:
        self._count("shoe_power_ups")
        if body.get("seq") not in (0, None):
            return  # a reconnect: the line numbers go on, so nothing was lost
        if self.deal_index == 0:
            return  # a restart before the first card of the round loses nothing
        if self.state in CARDS_DUE or self.state is S.PAUSED:
            self._broken("shoe_restart", "The shoe restarted mid-deal.")

    def _broken(self, kind: str, message: str) -> None:
        """The card sequence is not intact mid-deal: pause for a supervisor."""
        if self.state is S.PAUSED:
            self.seq_broken = True
            if self.pause["reason"] != "link_lost":
                self.pause["supervisor"] = True
                self._note(kind, message, "Supervisor: void the round, or check the cards "
                           "and resume", severity="error")
            return
        if self.state in CARDS_DUE:
            self._pause(kind, supervisor=True)
            self._note(kind, message, "Supervisor: void the round, or check the cards and "
                       "resume", severity="error")
        else:
            self._note(kind, message, "", severity="info")

    def _alarm(self, body: dict[str, Any], actor: str) -> None:
        self._count("alarms")
        self._note("alarm", f"Shoe alarm {body.get('code', '')}: {body.get('text', '')}",
                   "Clear the shoe, then resume", severity="error", code=str(body.get("code")))
        if self.state in CARDS_DUE:
            self._pause("alarm", supervisor=False)

    def _frame_error(self, body: dict[str, Any], actor: str) -> None:
        self._count("frame_errors")
        if self.state in CARDS_DUE:
            self._pause("frame_error", supervisor=False)
            self._note("frame_error", "Garbled data from the shoe: a card may be missing.",
                       "Check the cards dealt match the screen, then resume")

    def _no_frame(self, body: dict[str, Any], actor: str) -> None:
        """Bytes arrive but no frame decodes (a wrong dialect?): a note until one does.

        No card was read, so the round is not touched.
        """
        if body.get("cleared"):
            self.notes.pop("no_frame", None)
            return
        nbytes = body.get("nbytes", 0)
        self._note("no_frame", f"no frame decoded from {nbytes} bytes: is the dialect right?",
                   "Technician: check the shoe's dialect (and baud rate) in the shoe URL",
                   bytes=str(nbytes), dialect=str(body.get("dialect", "")))

    def _empty(self, body: dict[str, Any], actor: str) -> None:
        self._count("shoe_empty")
        if self.state in CARDS_DUE:
            self._pause("shoe_empty", supervisor=True)
            self._note("shoe_empty", "The shoe ran out of cards mid-deal.",
                       "Supervisor: void the round", severity="error")
        else:
            self._note("shoe_empty", "The shoe is empty.", "Load a new deck", severity="info")

    def _lid(self, body: dict[str, Any], actor: str) -> None:
        if body.get("open"):
            self._count("lid_opens")
            self._note("lid_open", "The shoe lid is open.", "Close the lid", severity="info")
        else:
            self.notes.pop("lid_open", None)

    def _cut(self, body: dict[str, Any], actor: str) -> None:
        self.cut_reached = True
        self._note("cut_card", "Cut card reached: this pack ends after the round.",
                   "Load a new deck after this round", severity="info")

    def _warning(self, body: dict[str, Any], actor: str) -> None:
        self._count("shoe_warnings")
        self._note("alarm", f"Shoe warning {body.get('code', '')}", "", severity="info")

    # ------------------------------------------------------------------ supervisor
    def _resume(self, body: dict[str, Any], actor: str) -> None:
        reason = self.pause["reason"]
        if reason == "misread":
            raise Rejected("re-present the card, or a supervisor enters it by hand (or voids)")
        if self.link_state in ("disconnected", "silent"):
            raise Rejected("the shoe link is still down")
        self.seq_broken = False
        self._unpause()

    def _unblock_deck(self, body: dict[str, Any], actor: str) -> None:
        if not self.deck_blocked:
            raise Rejected("the deck is not blocked")
        self.deck_blocked = None
        self.notes.pop("deck_blocked", None)
        if self.config.deck_per_round and self.state in (S.VOID, S.SETTLED):
            pass  # the inventory restarts with the next round's deck

    def _new_deck(self, body: dict[str, Any], actor: str) -> None:
        if self.deck_blocked:
            raise Rejected("the deck is blocked: a supervisor must unblock it")
        self.seen = set()
        self.cut_reached = False
        self.notes.pop("cut_card", None)

    def _config_change(self, body: dict[str, Any], actor: str) -> None:
        key, value = body.get("key"), body.get("value")
        if key not in CONFIG_KEYS:
            raise Rejected(f"unknown setting {key!r} (known: {', '.join(CONFIG_KEYS)})")
        try:
            cfg = replace(self.config, **{key: value})
            cfg.validate()
        except (ValueError, TypeError) as exc:
            raise Rejected(f"bad value for {key}: {exc}") from None
        old = getattr(self.config, key)
        self._set_config(cfg)
        self._count("config_changes")
        self._note("config", f"{key} changed from {old!r} to {value!r} by {actor}", "",
                   severity="info")

    def _change_pin(self, body: dict[str, Any], actor: str) -> None:
        role, h = body.get("role"), body.get("pin_hash")
        if role not in PRIVILEGED or not isinstance(h, str) or not h.startswith("scrypt$"):
            raise Rejected("a PIN change names supervisor or technician and a valid PIN")
        pins = dict(self.config.pin_hashes)
        pins[role] = h
        self._set_config(replace(self.config, pin_hashes=pins))
        self._count("config_changes")

    # ------------------------------------------------------------------ decisions
    def _decide(self, body: dict[str, Any], actor: str) -> None:
        seat = self._seat_no(body)
        sr = self.seats.get(seat)
        if sr is None or not sr.bets.get("ante"):
            raise Rejected(f"seat {seat} has no Ante to decide on")
        if sr.decision is not None:
            raise Rejected(f"seat {seat} has already decided ({sr.decision})")
        decision = body.get("decision")
        if decision not in ("play", "fold"):
            raise Rejected(f"a decision is play or fold, got {decision!r}")
        sr.decision = decision
        if decision == "play":
            sr.bets["play"] = sr.bets["ante"]

    def _reveal(self, body: dict[str, Any], actor: str) -> None:
        waiting = [s for s, sr in sorted(self.seats.items())
                   if sr.bets.get("ante") and sr.decision is None]
        if waiting:
            raise Rejected("seats still to decide: " + ", ".join(map(str, waiting)))
        from controller.game.hands import evaluate3

        d = evaluate3([parse_card(c) for c in self.dealer_cards])
        self.dealer_hand = d.hand_class.key
        self.dealer_qualifies = self.profile.qualifier.qualifies(d)
        self._go("reveal", S.REVEAL)

    def _settle(self, body: dict[str, Any], actor: str) -> None:
        dealer = [parse_card(c) for c in self.dealer_cards]
        for sr in self.seats.values():
            b = sr.bets
            dec = Decision(sr.decision) if sr.decision else None
            res = settle(self.profile, [parse_card(c) for c in sr.cards], dealer,
                         Bets(b.get("ante", 0), b.get("pair_plus", 0),
                              b.get("six_card_bonus", 0), b.get("play", 0)), dec)
            sr.results = [[r.bet, r.outcome.value, r.stake, r.multiple, r.net]
                          for r in res.results]
            sr.net = res.net
            sr.hand = res.player_hand.hand_class.key
            sr.six = res.six_card_hand.key if b.get("six_card_bonus") else None
        self._go("settle", S.SETTLED)
        self._close_round("settled")

    # ------------------------------------------------------------------ void / next
    def _void_cmd(self, body: dict[str, Any], actor: str) -> None:
        if self._fixed():
            raise Rejected("every card and decision is recorded: settle the round, "
                           "it cannot be voided (docs/rules.md)")
        reason = str(body.get("reason") or "supervisor")
        self._void(reason, acknowledged=True, by=actor)

    def _void(self, reason: str, acknowledged: bool, by: str = "table",
              card: str | None = None) -> None:
        """Void: every wager is returned, the reason recorded (docs/rules.md "Void")."""
        if self.state is S.PAUSED:
            self.pause = None
        self._go("void", S.VOID)
        self.void_reason = reason
        self.void_acknowledged = acknowledged
        self._count("voids")
        for sr in self.seats.values():
            sr.results = [[bet, "refund", v, 0, 0] for bet, v in sr.bets.items() if v]
            sr.net = 0
        refunds = {s: sum(sr.bets.values()) for s, sr in self.seats.items()}
        params = {"reason": reason, "by": by}
        if card:
            params["card"] = card
        self._note("void", f"Round {self.round_id} is void ({reason.replace('_', ' ')}): "
                   "every wager is returned.",
                   "Return every wager" + ("" if acknowledged else
                                          "; a supervisor acknowledges the void"),
                   severity="error", **params,
                   refunds=", ".join(f"seat {s}: {v}" for s, v in sorted(refunds.items())))
        for k in ("misread", "seq_gap", "shoe_restart", "alarm", "shoe_empty", "frame_error",
                  "interrupted_round"):
            self.notes.pop(k, None)
        self._close_round("void")

    def _close_round(self, status: str) -> None:
        rec = self.round_record(status)
        self.recall.appendleft(rec)
        self.derived.rounds[self.round_id] = rec
        for seat, sr in self.seats.items():
            for bet, outcome, stake, _mult, net in sr.results or ():
                for name in (bet, f"seat {seat}", "total"):
                    m = self.meters.get(name)
                    if m is None:
                        m = self.meters[name] = _new_meter()
                    if outcome == "refund":
                        m[4] += 1
                        m[5] += stake
                        continue
                    if bet != "ante_bonus":
                        m[0] += stake
                    if net > 0:
                        m[1] += net
                    else:
                        m[2] -= net
        played = {b for sr in self.seats.values() for b, *_ in (sr.results or ())}
        kinds = ["total", *played, *(f"seat {s}" for s in self.seats)]
        if status == "settled":
            for name in kinds:
                self.meters[name][3] += 1
        self.derived.meters = self.meters_dict()
        self.last_bets = {s: {k: v for k, v in sr.bets.items() if k != "play"}
                          for s, sr in self.seats.items()}
        self.records_version += 1

    def _next_round(self, body: dict[str, Any], actor: str) -> None:
        self._go("next_round", S.BETTING)
        self.round_id += 1
        self.started_utc = self._utc
        self.seats = {}
        self.positions = []
        self.deal_index = 0
        self.deal = []
        self.dealer_cards = []
        self.dealer_hand = self.dealer_qualifies = None
        self.void_reason = None
        self.void_acknowledged = False
        self.seq_broken = False
        if self.config.deck_per_round:
            self.seen = set()
        for k in ("void", "exposed_card", "extra_card", "interrupted_round", "config"):
            self.notes.pop(k, None)
        if self.pending_config is not None:
            self._set_config(self.pending_config)
            self.pending_config = None
        self.rounds_since_snapshot += 1
        if self.rounds_since_snapshot >= self.config.snapshot_every:
            self.rounds_since_snapshot = 0
            self.derived.snapshot = (self._seq, self.dumps())

    # ------------------------------------------------------------------ records
    def round_record(self, status: str | None = None) -> dict[str, Any]:
        """The current round as game recall shows it (complete, dealer cards included)."""
        if status is None:
            status = {S.SETTLED: "settled", S.VOID: "void"}.get(self.state, "in_progress")
        seats = []
        for seat in sorted(self.seats):
            sr = self.seats[seat]
            seats.append({
                "seat": seat, "cards": list(sr.cards), "bets": dict(sr.bets),
                "decision": sr.decision, "hand": sr.hand, "six_card_hand": sr.six,
                "results": {r[0]: {"outcome": r[1], "net": r[4], "stake": r[2],
                                   "multiple": r[3]} for r in sr.results or ()},
                "net": sr.net,
            })
        return {
            "round_id": self.round_id, "status": status, "void_reason": self.void_reason,
            "started_utc": self.started_utc, "ended_utc": self._utc if status != "in_progress"
            else None, "state": self.state.value,
            "deal": [d[:3] for d in self.deal],
            "dealer_cards": list(self.dealer_cards), "dealer_hand": self.dealer_hand,
            "dealer_qualifies": self.dealer_qualifies, "seats": seats,
        }

    def meters_dict(self) -> dict[str, Any]:
        """Meters as journaled: rows by name and event counters."""
        return {"rows": {k: list(v) for k, v in self.meters.items()},
                "counters": dict(self.counters)}

    def to_dict(self) -> dict[str, Any]:
        """The complete recorded state, JSON-ready (snapshots, crash-test comparison)."""
        return {
            "config": self.config.to_dict(),
            "pending_config": self.pending_config.to_dict() if self.pending_config else None,
            "state": self.state.value, "round_id": self.round_id,
            "started_utc": self.started_utc,
            "seats": {str(k): v.to_dict() for k, v in sorted(self.seats.items())},
            "last_bets": {str(k): v for k, v in sorted(self.last_bets.items())},
            "positions": [list(p) for p in self.positions], "deal_index": self.deal_index,
            "deal": [list(d) for d in self.deal], "dealer_cards": list(self.dealer_cards),
            "dealer_hand": self.dealer_hand, "dealer_qualifies": self.dealer_qualifies,
            "seen": sorted(self.seen), "deck_blocked": self.deck_blocked, "pause": self.pause,
            "void_reason": self.void_reason, "void_acknowledged": self.void_acknowledged,
            "link_state": self.link_state, "link_detail": self.link_detail,
            "seq_broken": self.seq_broken, "cut_reached": self.cut_reached,
            "notes": {k: v for k, v in sorted(self.notes.items())},
            "meters": self.meters_dict(), "recall": list(self.recall),
            "pin_failures": self.pin_failures, "pin_locked_until": self.pin_locked_until,
            "rounds_since_snapshot": self.rounds_since_snapshot, "last_seq": self.last_seq,
        }

    def dumps(self) -> str:
        """:meth:`to_dict` as canonical JSON."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` output (a journal snapshot)."""
        g = cls(TableConfig.from_dict(d["config"]))
        g.pending_config = (TableConfig.from_dict(d["pending_config"])
                            if d["pending_config"] else None)
        g.state = S(d["state"])
        g.round_id = d["round_id"]
        g.started_utc = d["started_utc"]
        g.seats = {int(k): SeatRound.from_dict(v) for k, v in d["seats"].items()}
        g.last_bets = {int(k): v for k, v in d["last_bets"].items()}
        g.positions = [tuple(p) for p in d["positions"]]
        for k in ("deal_index", "deal", "dealer_cards", "dealer_hand", "dealer_qualifies",
                  "deck_blocked", "pause", "void_reason", "void_acknowledged", "link_state",
                  "link_detail", "seq_broken", "cut_reached", "notes", "pin_failures",
                  "pin_locked_until", "rounds_since_snapshot", "last_seq"):
            setattr(g, k, d[k])
        g.seen = set(d["seen"])
        g.meters = {k: list(v) for k, v in d["meters"]["rows"].items()}
        g.counters = dict(d["meters"]["counters"])
        g.recall = deque(d["recall"], maxlen=g.config.recall_depth)
        return g


_COMMAND_KINDS = frozenset({
    "place_bet", "clear_bets", "rebet", "no_more_bets", "decide", "reveal", "settle",
    "next_round", "void", "manual_card", "unblock_deck", "resume", "new_deck",
    "exposed_card", "config_change", "change_pin"})
_PRIVILEGED_KINDS = frozenset({"void", "manual_card", "unblock_deck", "config_change",
                               "change_pin", "next_round", "resume"})


def _epoch(utc: str) -> float:
    try:
        return datetime.fromisoformat(utc).timestamp()
    except ValueError:
        return 0.0
