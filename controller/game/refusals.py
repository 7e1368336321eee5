"""Why the table refused an input: a code and typed parameters, declared once.

The journal keeps the English reason (old journals replay the same); screens and the control
channel word the code in their language. An undeclared code is shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.game.config import PIN_MAX_DIGITS, PIN_MIN_DIGITS

# ------------------------------------------------------------------ parameter kinds
# Parameter kinds: money is an int in minor units; seat, number: an int; seats: a tuple.
MONEY = "money"
# A refusal about one seat's bets names the seat first.
SEAT = "seat"
NUMBER = "number"
SEATS = "seats"
BET = "bet"
COMMAND = "command"
STATE = "state"
DECISION = "decision"
CARD = "card"
SETTING = "setting"
# Text shown as it is (what was typed), or kept for the journal only (detail).
TEXT = "text"

KINDS = (MONEY, SEAT, NUMBER, SEATS, BET, COMMAND, STATE, DECISION, CARD, SETTING, TEXT)


@dataclass(frozen=True, slots=True)
class RefusalKind:
    """One kind of refusal: its English journal text (never changed) and parameter kinds."""

    journal: str
    params: Mapping[str, str] = field(default_factory=dict)


def _k(journal: str, **params: str) -> RefusalKind:
    return RefusalKind(journal, params)


_BET_ERRORS: dict[str, RefusalKind] = {
    # a seat's wagers against the rules (controller.game.settlement.validate_bets); at the
    # table each is about one seat, named first (`seat 2: no Play without an Ante`)
    "bets_not_an_object": _k('bets must be an object such as {{"ante": 100}}'),
    "unknown_bet": _k("unknown bet {bet!r} (known: {known})", bet=TEXT, known=TEXT),
    "bet_not_whole": _k("bet {bet!r} must be a whole, non-negative number of minor units, "
                        "got {value}", bet=TEXT, value=TEXT),
    "amount_not_whole": _k("{bet} must be a whole, non-negative number of minor units, "
                           "got {value}", bet=BET, value=TEXT),
    "play_without_ante": _k("no Play without an Ante"),
    "play_not_ante": _k("Play must equal the Ante ({ante}), got {play}", ante=MONEY,
                        play=MONEY),
    "pair_plus_needs_ante": _k("Pair Plus needs an Ante under these rules"),
    "six_card_bonus_not_offered": _k("the 6 Card Bonus is not offered under these rules"),
    "six_card_bonus_needs_ante": _k("the 6 Card Bonus needs an Ante under these rules"),
    "no_wager_placed": _k("no wager placed"),
    "outside_limits": _k("{bet} {amount} is outside the table limits {minimum}-{maximum}",
                         bet=BET, amount=MONEY, minimum=MONEY, maximum=MONEY),
    "decision_needed": _k("a decision (play or fold) is required with an Ante"),
    "folded_with_play": _k("a folded seat has no Play wager"),
}

REFUSALS: dict[str, RefusalKind] = {
    **_BET_ERRORS,
    # the round
    "not_allowed_now": _k("{command} is not allowed while {state}", command=COMMAND,
                          state=STATE),
    "no_such_seat": _k("no seat {seat} at this table (1-{seats})", seat=NUMBER,
                       seats=NUMBER),
    "deck_blocked_clear": _k("the deck is blocked ({why}): a supervisor must clear it first",
                             why=TEXT),
    "deck_blocked": _k("the deck is blocked: a supervisor must unblock it"),
    "deck_not_blocked": _k("the deck is not blocked"),
    "cards_dealt": _k("{cards} card(s) of this round are read, burns included: bets can no "
                      "longer be reopened (void the round instead)", cards=NUMBER),
    "bets_are_marked": _k("this table marks bets (bet_entry outcomes): mark the bet with "
                          "{command}, its amount stays on the layout", command=COMMAND),
    "bets_are_amounts": _k("this table takes amounts (bet_entry amounts): place the bet with "
                           "{command}", command=COMMAND),
    "bet_entry_with_bets": _k("bets are placed for the next round: clear them before "
                              "bet_entry changes"),
    "misread_waiting": _k("re-present the card, or a supervisor enters it by hand (or voids)"),
    "link_down": _k("the shoe link is still down"),
    "seats_undecided": _k("seats still to decide: {seats}", seats=SEATS),
    "outcome_fixed": _k("every card and decision is recorded: settle the round, it cannot be "
                        "voided (docs/rules.md)"),
    "input_unreadable": _k("{detail}", detail=TEXT),
    "fault": _k("{input} could not be applied: {detail}", input=TEXT, detail=TEXT),
    "unknown_setting": _k("{detail}", setting=TEXT, detail=TEXT),
    "bad_setting_value": _k("{detail}", setting=SETTING, value=TEXT, detail=TEXT),
    # wagers
    "nothing_to_rebet": _k("no wagers of a last round to place again"),
    "no_wager": _k("no wager on the table"),
    "chip_not_held": _k("seat {seat}: {bet} holds {held}, less than the {amount} to take off",
                        seat=SEAT, bet=BET, held=MONEY, amount=MONEY),
    "rebet_seat_held": _k("seat {seat} holds a wager: a rebet fills empty seats only (clear "
                          "it first)", seat=SEAT),
    "rebet_every_seat_held": _k("every seat of the last round holds a wager: nothing to "
                                "rebet"),
    "no_decision_to_undo": _k("seat {seat} has no decision to take back", seat=SEAT),
    "no_ante_to_decide": _k("seat {seat} has no Ante to decide on", seat=SEAT),
    "already_decided": _k("seat {seat} has already decided ({decision})", seat=SEAT,
                          decision=DECISION),
    "above_maximum": _k("seat {seat}: {bet} {amount} is above the table maximum {maximum}",
                        seat=SEAT, bet=BET, amount=MONEY, maximum=MONEY),
    # cards
    "card_while_paused": _k("a card was read while the round is paused: retract it and deal "
                            "it again after resuming"),
    "manual_card_not_misread": _k("a manual card is only for a misread"),
    "not_a_card": _k("{detail}", card=TEXT, detail=TEXT),
    "card_already_dealt": _k("{card} was already dealt from this deck", card=CARD),
    "nothing_to_undo": _k("no card to undo"),
    "undo_after_decisions": _k("decisions are recorded: the deal can no longer be undone"),
    "undo_not_last": _k("only the last card (seq {last}) can be undone, not seq {want}",
                        last=NUMBER, want=NUMBER),
    "undo_not_dealt": _k("the last card was not dealt to a position"),
    "nothing_to_expose": _k("no dealt card to mark as exposed"),
    "last_card_burn": _k("the last card was a burn"),
    # PINs
    "pin_digits": _k("{detail}", low=NUMBER, high=NUMBER, detail=TEXT),
    "input_invalid": _k("{detail}", input=COMMAND, detail=TEXT),
    "pin_locked": _k("PIN entry is locked after repeated wrong PINs; try later"),
    "wrong_pin": _k("wrong PIN"),
    "pin_shared": _k("this PIN is set for more than one role, and a PIN must name one role: "
                     "a technician sets new PINs"),
    "needs_supervisor": _k("{command} needs a supervisor or technician PIN", command=COMMAND),
    "needs_technician": _k("{command} needs a technician PIN", command=COMMAND),
}

# The codes of a seat's wagers against the rules: at the table, the seat is named first.
BET_ERRORS = frozenset(_BET_ERRORS)


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refusal: its code and typed parameters (money in minor units as ``int``)."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> RefusalKind | None:
        """The declaration of :attr:`code`, or None for a plain English refusal."""
        return REFUSALS.get(self.code)

    def journal_text(self) -> str:
        """The reason as the journal records it (English, as every version wrote it)."""
        kind = self.kind
        if kind is None:
            return self.code
        values = {k: _journal_value(kind.params.get(k, TEXT), v) for k, v in self.params.items()}
        text = kind.journal.format_map(_Missing(values))
        if self.code in BET_ERRORS and "seat" in self.params:
            text = f"seat {self.params['seat']}: {text}"
        return text

    def as_params(self) -> dict[str, str]:
        """The code and parameters as text (a banner's ``params``)."""
        out = {"code": self.code}
        for k, v in self.params.items():
            out[k] = " ".join(map(str, v)) if isinstance(v, (tuple, list)) else str(v)
        return out

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> Refusal | None:
        """Read :meth:`as_params` back, typed again; None without a ``code``."""
        code = params.get("code")
        if not code:
            return None
        kind = REFUSALS.get(code)
        kinds = dict(kind.params) if kind else {}
        if kind is not None and code in BET_ERRORS:
            kinds.setdefault("seat", SEAT)
        typed: dict[str, Any] = {}
        for k, text in params.items():
            if k == "code" or k not in kinds:
                continue
            typed[k] = _typed(kinds[k], text)
        return cls(code, typed)


_FIELD = re.compile(r"at `\$\.([A-Za-z_]+)")
_PIN_FIELDS = frozenset({"pin", "new_pin"})


_CHECKER_WORDS = re.compile(r"(?:^|: )(?:Expected |Object |Invalid enum value|"
                            r"JSON is malformed|Input data was truncated)")


def invalid_input(command: str, message: str) -> Refusal:
    """The refusal of an input failing its declaration (``pin_digits`` or ``input_invalid``)."""
    if not _CHECKER_WORDS.search(message):  # our own check's sentence: shown as it is
        return Refusal(message)
    found = _FIELD.search(message)
    if found is not None and found.group(1) in _PIN_FIELDS:
        return Refusal("pin_digits", {"low": PIN_MIN_DIGITS, "high": PIN_MAX_DIGITS,
                                      "detail": message})
    return Refusal("input_invalid", {"input": command, "detail": message})


class _Missing(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


_WHOLE = (MONEY, SEAT, NUMBER)


def _journal_value(kind: str, value: Any) -> Any:
    if kind == SEATS:
        return ", ".join(map(str, value))
    return value


def _typed(kind: str, text: str) -> Any:
    if kind in _WHOLE:
        try:
            return int(text)
        except ValueError:
            return text
    if kind == SEATS:
        return tuple(int(x) for x in text.split() if x.lstrip("-").isdigit())
    return text


__all__ = ["BET_ERRORS", "KINDS", "REFUSALS", "Refusal", "RefusalKind"]
