"""Building the :mod:`controller.game.views` snapshots from a :class:`~controller.game.engine.Game`.

Pure functions of the game's state. Neither view carries the dealer's cards before the reveal
(docs/requirements.md R13), but for an alarm that names one; the round's recall entry is
masked too. What changes only when a round ends is cached on :attr:`Game.records_version`.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Sequence
from typing import Any

from controller.game.bet_types import NAMES, PAIR_PLUS, SIX_CARD_BONUS
from controller.game.bets import SeatRound
from controller.game.dealing import fixed
from controller.game.engine import Game, TableConfig
from controller.game.inputs import (
    COMMANDS,
    ClearBets,
    Decide,
    InputError,
    ManualCard,
    MarkBet,
    NewDeck,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    RemoveChip,
    ReopenBets,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    UndoDecision,
    VoidRound,
)
from controller.game.journal_fault import fault_reason
from controller.game.pay_lines import in_pay_order, result_line
from controller.game.records import RoundRecord
from controller.game.round import ALLOWED_COMMANDS, RoundState, position_name
from controller.game.rules import RuleProfile
from controller.game.shoe_link import LINK_DOWN
from controller.game.verdict import INTEGRITY_FAILED
from controller.game.views import (
    HIDDEN_CARD,
    Banner,
    BetLine,
    DealerView,
    HistoryEntry,
    MeterRow,
    PayoutLine,
    Paytables,
    PlayerView,
    RecallRound,
    SeatView,
)

S = RoundState
_SHOWN = frozenset({S.REVEAL, S.SETTLED})
#: banner kinds the players see (without card parameters).
_PLAYER_BANNERS = frozenset({S.VOID.value, "link_lost", "link_silent", "misread", "seq_gap",
                             "shoe_restart", "interrupted_round", "deck_blocked",
                             "journal_locked", "journal_broken", "journal_fault", "alarm"})
FAULT_ACTION = ("Play goes on by itself once the journal can be written again; if it "
                "lasts, call a technician")
"""What the dealer is told during a journal fault (it clears itself)."""
FAULT_NEXT = "Wait: play goes on by itself"
"""The next action during a journal fault."""
_RTP_LOCK = threading.Lock()
_RTP: dict[str, tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...], str]] = {}


def _returns(profile: RuleProfile) -> tuple[tuple[tuple[str, int], ...],
                                            tuple[tuple[str, int], ...], str]:
    """(Paytable returns, side bets' strategy returns that differ, weakest played hand ``Q-6-4``).

    Cached by the profile's content, never its path: another text there is another profile.
    """
    key = repr(dataclasses.replace(profile, source=""))
    with _RTP_LOCK:
        got = _RTP.get(key)
        if got is None:
            from controller.game.par_sheet import profile_sheet, rtp_ppm

            sheet = profile_sheet(profile)
            if sheet is None:  # damaged counts: the self-check refused to start on them
                got = ((), (), "")
            else:
                plain, played = rtp_ppm(sheet), rtp_ppm(sheet, with_strategy=True)
                got = (tuple(plain.items()),
                       tuple((k, v) for k, v in played.items() if plain[k] != v),
                       "-".join(sheet.strategy.min_play_hand))
            _RTP[key] = got
        return got


def rtp_for(profile: RuleProfile) -> tuple[tuple[str, int], ...]:
    """Return to player per bet in ppm from the par sheet (computed once per profile)."""
    return _returns(profile)[0]


def check_returns(profile: RuleProfile) -> tuple[tuple[str, int], ...]:
    """The self-check of a rule profile (R3): the return to player per bet in ppm, checked.

    Start-up runs it, and the table on a ``rules`` change before journaling it.

    Raises:
        ConfigError: a bet returns 100 % or more, its exact return does not round to the
            published one, or the stored counts are damaged.
    """
    from controller.game.config import ConfigError
    from controller.game.deck_counts import DeckCountsError, stored_counts
    from controller.game.numbers import format_ppm

    try:
        stored_counts()  # read and checked once: the returns below come from it
    except DeckCountsError as exc:
        raise ConfigError(f"self-check: {exc}") from None
    rtp = rtp_for(profile)
    for bet, ppm in rtp:
        if ppm >= 1_000_000:
            raise ConfigError(f"{profile.source}: {bet} returns {format_ppm(ppm, digits=4)} "
                              "to the player (100 % or more)")
        published = profile.published_rtp.get(bet)
        if published is not None and (ppm + 50) // 100 != published:
            raise ConfigError(f"{profile.source}: published_rtp.{bet}: the paytable returns "
                              f"{format_ppm(ppm, digits=4)}, not the published "
                              f"{format_ppm(published * 100)}")
    return rtp


def rules_change_text(config: TableConfig, rules: Any) -> str:
    """The text journaled with a ``rules`` change, once its profile passes :func:`check_returns`.

    Raises:
        InputError: unreadable, does not load, or fails the self-check; nothing journaled.
    """
    from controller.game.config import ConfigError
    from controller.game.rules import RuleProfileError, profile_text

    try:
        text = profile_text(rules)
        new = config.changed("rules", rules, text)  # ConfigError: "bad value for rules: ..."
    except RuleProfileError as exc:
        raise InputError(f"bad value for rules: {exc} - at `$.value`") from None
    except ConfigError as exc:
        raise InputError(f"{exc} - at `$.value`") from None
    try:
        check_returns(new.profile)
    except ConfigError as exc:
        raise InputError(f"bad value for rules: {exc} - at `$.value`") from None
    return text


def paytables_for(profile: RuleProfile) -> Paytables:
    """The rules in force as the player screen shows them (R14); rows carry hand keys, not names.

    A side bet's return is also given for a strategy player where a fold loses it.
    """
    def table(t: Any) -> tuple[tuple[str, int], ...]:
        return tuple(sorted(t.items(), key=lambda kv: -kv[1]))
    rtp, rtp_strategy, strategy = _returns(profile)
    return Paytables(
        profile=profile.name, ante_bonus=table(profile.ante_bonus),
        pair_plus=table(profile.pair_plus), six_card_bonus=table(profile.six_card_bonus),
        limits=tuple((k, v.min, v.max) for k, v in profile.limits.items()),
        rtp=rtp, rtp_strategy=rtp_strategy, strategy=strategy,
        qualifier=profile.qualifier.text, player_cards_face_up=profile.player_cards_face_up,
        need_ante=tuple(bet for bet, need in (
            (PAIR_PLUS, profile.pair_plus_requires_ante),
            (SIX_CARD_BONUS, profile.six_card_bonus_requires_ante)) if need))


def _bet_lines(profile: RuleProfile, sr: SeatRound) -> tuple[BetLine, ...]:
    """A seat's results (or refunds) in pay order, each win named by its paytable line."""
    return in_pay_order(BetLine(r.bet, r.outcome, r.stake, r.net, r.multiple,
                                result_line(profile, r.bet, r.outcome, r.multiple, sr.hand,
                                            sr.six, sr.cards))
                        for r in sr.results or ())


def _recall_round(rec: RoundRecord, mask_dealer: bool, profile: RuleProfile) -> RecallRound:
    deal = tuple((None if mask_dealer and d.where == "dealer" else d.card, d.where, d.manual)
                 for d in rec.deal)
    seats = tuple(SeatView(seat=s.seat, bets=dict(s.bets), cards=tuple(s.cards),
                           hand=s.hand, decision=s.decision,
                           results=in_pay_order(
                               BetLine(b, r.outcome, r.stake, r.net, r.multiple,
                                       result_line(profile, b, r.outcome, r.multiple, s.hand,
                                                   s.six_card_hand, s.cards, r.line))
                               for b, r in s.results.items()),
                           net=s.net, six_card_hand=s.six_card_hand)
                  for s in rec.seats)
    return RecallRound(rec.round_id, rec.status, rec.void_reason, rec.started_utc,
                       deal, () if mask_dealer else tuple(rec.dealer_cards), seats,
                       rec.bet_entry)


class ViewBuilder:
    """Builds both views; caches what only changes between rounds."""

    def __init__(self) -> None:
        self._key: tuple[int, str] | None = None
        self._static: dict[str, Any] = {}
        self._recalled: dict[tuple[int, str, str | None, int], RecallRound] = {}
        self._paytables: dict[str, Paytables] = {}

    def _recall_of(self, rec: RoundRecord, profile: RuleProfile) -> RecallRound:
        key = (rec.round_id, rec.status, rec.ended_utc, len(rec.deal))
        got = self._recalled.get(key)
        if got is None:
            if len(self._recalled) > 64:
                self._recalled.clear()
            got = self._recalled[key] = _recall_round(rec, False, profile)
        return got

    def _statics(self, g: Game) -> dict[str, Any]:
        key = (g.records_version, g.config.rules)
        if key != self._key:
            self._key = key
            meters = []
            order = [*NAMES, *sorted((k for k in g.meters.rows if k.startswith("seat ")),
                                     key=lambda k: int(k[5:])), "total"]
            for name in order:
                m = g.meters.rows.get(name)
                if m:
                    meters.append(MeterRow(name, m.wagered, m.paid, m.won, m.won - m.paid,
                                           m.rounds, voids=m.voids, refunded=m.refunded))
            settled = S.SETTLED.value
            history = tuple(HistoryEntry(
                r.round_id, r.status, tuple(r.dealer_cards) if r.status == settled else (),
                r.dealer_hand, r.dealer_qualifies if r.status == settled else None,
                tuple((s.seat, s.net or 0) for s in r.seats)) for r in g.recall)
            rules = (g.config.rules, g.config.rules_text)
            pt = self._paytables.get(rules)
            if pt is None:
                pt = self._paytables[rules] = paytables_for(g.profile)
            self._static = {
                "recall": tuple(self._recall_of(r, g.profile) for r in g.recall),
                "meters": tuple(meters), "history": history, "paytables": pt,
                "outcome_meters": tuple(sorted(g.meters.outcomes.items())),
            }
        return self._static

    def build(self, g: Game, version: int, locked: str | None = None, fault: bool = False
              ) -> tuple[DealerView, PlayerView]:
        """Both views of ``g`` at ``version``.

        ``locked`` is the journal-lock reason or None; ``fault`` says it is a journal fault
        that clears itself (banner ``journal_fault``), not ``journal_broken`` or ``journal_locked``.
        """
        st = self._statics(g)
        state = S.LOCKED if locked else g.state
        shown = g.state in _SHOWN
        dealer_seats, player_seats = _seat_views(g)
        r = g.round
        dealer_cards, dhand, dq = _dealer_hand(g, shown)
        banners, pbanners = _banners(g, locked, fault, shown)
        payouts = tuple(PayoutLine(v.seat, b.bet, b.outcome,
                                   b.stake if b.outcome in ("refund", "push", "lose") else b.net,
                                   b.multiple, b.line)
                        for v in dealer_seats for b in v.results)
        bet_entry = _bet_entry(g)
        if g.state in (S.SETTLED, S.VOID) and g.recall:
            recall = st["recall"]
        else:
            recall = (_current_round(g, dealer_seats, not shown), *st["recall"])
        key, action = ("journal_fault", FAULT_NEXT) if fault else _next_action(g, state)
        cards_due, next_card, waiting_card = _cards_due(g)
        allowed = frozenset() if locked else accepted(g)
        dealer = DealerView(
            table_id=g.config.table_id, round_id=g.round_id, state=state.value,
            next_action=action, next_action_key=key, next_card=next_card,
            seats=tuple(dealer_seats), dealer_cards=dealer_cards, dealer_hand=dhand,
            dealer_qualifies=dq, link_state=g.link_state, link_detail=g.link_detail,
            banners=tuple(banners), payouts=payouts,
            allowed=allowed, pin_needed=_pin_needed(g, allowed),
            awaiting_supervisor=_awaiting(g), deck_blocked=bool(g.deal.blocked),
            recall=recall, meters=st["meters"], paytables=st["paytables"],
            chip_values=g.config.chip_values, version=version, cards_due=cards_due,
            pause_reason=r.pause.reason if r.pause else None, void_reason=r.void_reason,
            currency=g.config.currency,
            bet_entry=bet_entry, outcome_meters=st["outcome_meters"],
            waiting_card=waiting_card,
            refusal_seq=g.refused_seq if "rejected" in g.notes else None,
            pin_attempts_left=max(0, g.config.lockout_after - g.lockout.failures),
            pin_locked_ms=g.pin_lockout_ms(),
            rounds_voided=g.meters.counters.get("voids", 0))
        player = PlayerView(
            table_id=g.config.table_id, round_id=g.round_id, state=state.value,
            seats=tuple(player_seats), dealer_cards=dealer_cards, dealer_hand=dhand,
            dealer_qualifies=dq, banners=pbanners, history=st["history"],
            paytables=st["paytables"], link_state=g.link_state, version=version,
            currency=g.config.currency,
            bet_entry=bet_entry)
        return dealer, player


def _seat_views(g: Game) -> tuple[list[SeatView], list[SeatView]]:
    """Each seat as the dealer sees it and as the players do (hole cards while face down)."""
    face_up = g.profile.player_cards_face_up
    dealer_seats, player_seats = [], []
    for seat in range(1, g.config.seats + 1):
        sr = g.seats.get(seat)
        if sr is None:
            v = SeatView(seat)
            dealer_seats.append(v)
            player_seats.append(v)
            continue
        cards = tuple(sr.cards)
        # the hand's name from its third card on: dealing, decisions, reveal, settled
        results = _bet_lines(g.profile, sr)
        dv = SeatView(seat, dict(sr.bets), cards, sr.hand or _hand_name(cards),
                      sr.decision, results, sr.net, sr.six)
        dealer_seats.append(dv)
        if face_up or g.state is S.SETTLED:
            player_seats.append(dv)
        else:
            player_seats.append(SeatView(seat, dict(sr.bets), (None,) * len(cards), None,
                                         sr.decision, results, sr.net, sr.six))
    return dealer_seats, player_seats


def _dealer_hand(g: Game, shown: bool) -> tuple[tuple[str | None, ...], str | None, bool | None]:
    """The dealer's cards, hand and qualification, or hidden until they are shown."""
    if shown:
        return tuple(g.deal.dealer_cards), g.round.dealer_hand, g.round.dealer_qualifies
    return (None,) * len(g.deal.dealer_cards), None, None


def _banners(g: Game, locked: str | None, fault: bool, shown: bool
             ) -> tuple[list[Banner], tuple[Banner, ...]]:
    """The dealer's banners (a lock's first) and the players' redacted copies."""
    # the dealer screen (and the log) name every card an alarm is about, e.g. a card
    # read twice that is also a hole card: only the players' copy is redacted (R13)
    banners = [Banner(k, n.severity, n.message, n.action,
                      {p: str(x) for p, x in n.params.items()})
               for k, n in g.notes.items()]
    if locked:
        broken = locked.startswith(INTEGRITY_FAILED + ":")
        why = {"reason": fault_reason(locked)}
        banners.insert(0, Banner("journal_fault", "error", locked, FAULT_ACTION, why) if fault
                       else Banner("journal_broken" if broken else "journal_locked",
                                   "error", locked,
                                   "Call a technician: the table stays locked"))
    pbanners = tuple(_redact(Banner(b.kind, b.severity,
                                    _player_message(b, g) if b.kind != S.VOID.value
                                    else b.message,
                                    "", {k: v for k, v in b.params.items()
                                         if k in ("refunds", "reason")}),
                             () if shown else g.deal.dealer_cards)
                     for b in banners if b.kind in _PLAYER_BANNERS)
    return banners, pbanners


def _current_round(g: Game, dealer_seats: list[SeatView], masked: bool) -> RecallRound:
    """The round on the layout as recall lists it (the dealer's cards masked until shown)."""
    deal = g.deal
    return RecallRound(
        g.round_id, "in_progress", None, g.round.started_utc,
        tuple((None if masked and d.where == "dealer" else d.card, d.where, d.manual)
              for d in deal.entries),
        () if masked else tuple(deal.dealer_cards),
        tuple(v for v in dealer_seats if v.seat in g.seats), g.config.bet_entry)


def _cards_due(g: Game) -> tuple[int, tuple[int, int] | None, tuple[int, int] | None]:
    """Cards still to deal, the position the next one goes to, or the one a pause holds."""
    r, deal = g.round, g.deal
    cards_due = (len(deal.positions) - deal.index
                 if g.state in (S.NO_MORE_BETS, S.DEALING) or r.paused_for("misread")
                 else 0)
    next_card = waiting_card = None
    if cards_due:
        pos = deal.positions[deal.index]
        next_card = (pos.seat, pos.number)
    elif (r.pause is not None and r.pause.resume_to in _MID_DEAL
          and deal.index < len(deal.positions)):
        pos = deal.positions[deal.index]
        waiting_card = (pos.seat, pos.number)
    return cards_due, next_card, waiting_card


def _bet_entry(g: Game) -> str:
    """How the round on the layout takes bets: a finished round keeps its own mode."""
    rec = g.recall.newest()
    if g.state in (S.SETTLED, S.VOID) and rec is not None and rec.round_id == g.round_id:
        return rec.bet_entry
    return g.config.bet_entry


def _redact(b: Banner, hidden: Sequence[str]) -> Banner:
    """A player's copy of a banner, each hole card ``??`` (:data:`HIDDEN_CARD`, R13)."""
    text = b.message + b.action + "".join(b.params.values())
    if not any(c in text for c in hidden):
        return b
    msg, act, params = b.message, b.action, dict(b.params)
    for c in hidden:
        msg, act = msg.replace(c, HIDDEN_CARD), act.replace(c, HIDDEN_CARD)
        params = {k: v.replace(c, HIDDEN_CARD) for k, v in params.items()}
    return Banner(b.kind, b.severity, msg, act, params)


@functools.lru_cache(maxsize=8192)
def _hand_name(cards: tuple[str, ...]) -> str | None:
    if len(cards) != 3:
        return None
    from controller.game.cards import parse_card
    from controller.game.hands import evaluate3

    return evaluate3([parse_card(c) for c in cards]).hand_class.key


def _player_message(b: Banner, g: Game) -> str:
    return {"link_lost": "Shoe link lost: the round waits.",
            "link_silent": "Shoe link silent: the round waits.",
            "misread": "A card is being checked: the round waits.",
            "deck_blocked": "The deck is being checked by a supervisor.",
            "journal_locked": "The table is closed.",
            "journal_broken": "The table is closed.",
            "journal_fault": "Play is paused: the table goes on shortly.",
            }.get(b.kind, "The round waits for the dealer.")


_MID_DEAL = frozenset({S.NO_MORE_BETS.value, S.DEALING.value})


def accepted(g: Game) -> frozenset[str]:
    """The dealer commands the table accepts now, by name: its state's less its situation's.

    One may still be refused for its fields or its PIN.
    """
    names = set(ALLOWED_COMMANDS[g.state])
    r, deal, wagers = g.round, g.deal, g.wagers
    if g.outcomes:  # bets are marked: no amounts to place, no chip to take off
        names -= {PlaceBet.name, RemoveChip.name}
    else:
        names.discard(MarkBet.name)
    if r.paused_for("misread") or g.link_state in LINK_DOWN:
        names.discard(Resume.name)
    if not r.paused_for("misread"):
        names.discard(ManualCard.name)
    if deal.blocked:
        names -= {NoMoreBets.name, NewDeck.name}
    else:
        names.discard(UnblockDeck.name)
    if not wagers.seats:
        names -= {NoMoreBets.name, ClearBets.name, RemoveChip.name}
    if not set(wagers.last) - {s for s, sr in wagers.seats.items() if sr.bets}:
        names.discard(Rebet.name)
    if wagers.undecided():
        names.discard(Reveal.name)
    if not any(sr.decision for sr in wagers.seats.values()):
        names.discard(UndoDecision.name)
    if g.state is not S.NO_MORE_BETS or deal.entries:  # offered until a card is read
        names.discard(ReopenBets.name)
    if VoidRound.name in names and fixed(g):
        names.discard(VoidRound.name)
    return frozenset(names)


def _pin_needed(g: Game, allowed: frozenset[str]) -> frozenset[str]:
    """Of ``allowed``, the commands that need a supervisor's or technician's PIN now."""
    asked = g.waits_for_supervisor()
    return frozenset(c.name for c in COMMANDS if c.name in allowed and (
        c.needs.rank > 0 or (asked and c.needs_when_asked is not None
                             and c.needs_when_asked.rank > 0)))


def _awaiting(g: Game) -> str | None:
    """The supervisor command the table waits for, by name, or None."""
    pause = g.round.pause
    if pause:
        if pause.reason == "misread":
            return ManualCard.name
        if pause.supervisor:
            return Resume.name
    if g.state is S.VOID and not g.round.void_acknowledged:
        return VoidRound.name
    if g.deal.blocked:
        return UnblockDeck.name
    return None


def _next_action(g: Game, state: RoundState) -> tuple[str, str]:
    if state is S.LOCKED:
        return "locked", "The table is locked: call a technician"
    if state is S.BETTING:
        if g.outcomes:
            return "mark_bets", "Mark the bets each seat plays, then press No more bets"
        return "place_bets", "Place bets, then press No more bets"
    if state in (S.NO_MORE_BETS, S.DEALING):
        pos = g.deal.positions[g.deal.index]
        return "deal", f"Deal card {pos.number} to {position_name(pos.seat)}"
    if state is S.DECIDING:
        waiting = g.wagers.undecided()
        if waiting:
            return Decide.name, f"Seat {waiting[0]}: play or fold"
        return Reveal.name, "Reveal the dealer's cards"
    if state is S.REVEAL:
        return Settle.name, "Settle the seats"
    if state is S.SETTLED:
        return NextRound.name, "Pay the seats, then start the next round"
    if state is S.VOID:
        if not g.round.void_acknowledged:
            return "supervisor", "Return every wager; a supervisor acknowledges the void"
        return NextRound.name, "Return every wager, then start the next round"
    pause = g.round.pause
    if pause and pause.reason == "misread":
        return "resolve", "Re-present the card, or a supervisor enters it by hand"
    if pause and pause.supervisor:
        return "supervisor", "Supervisor: check the cards, then resume or void the round"
    return "resolve", "Fix the shoe, then resume"


__all__ = ["ViewBuilder", "accepted", "paytables_for", "rtp_for", "position_name",
           "rules_change_text"]
