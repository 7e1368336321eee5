"""Every input is declared once (controller/game/inputs.py) and checked before it is journaled.

The examples of the attack that found commands journaled before they were typed: each is
refused with the field named, nothing of it reaches the journal, and the table goes on.
Applying what passed the declaration is total: the game answers applied or a reason.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.game import inputs
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.cards import DECK
from controller.game.control_line import parse_control_line
from controller.game.engine import Game, TableConfig
from controller.game.events import (
    CardRead,
    Hello,
    LinkState,
    LinkStatus,
    Misread,
    Retract,
    SeqGap,
)
from controller.game.table import Table
from controller.journal import Journal

DATA = Path(__file__).resolve().parent / "data"
SECOND = 1_000_000_000
"""One second on the monotonic clock, nanoseconds."""
SUP, TECH = DEMO_PINS["supervisor"], DEMO_PINS["technician"]

#: (control line, what the refusal must say): the attack's examples, and their kin
REFUSED = [
    ('{"command": "place_bet", "seat": true, "bet": "ante", "amount": 100}',
     "Expected `int`, got `bool` - at `$.seat`"),
    ('{"command": "void", "reason": "jam", "pin": 2468}', "got `int` - at `$.pin`"),
    ('{"command": "manual_card", "card": ["Qh"], "pin": "2468"}',
     "Expected `str`, got `array` - at `$.card`"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": NaN}', "malformed"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": Infinity}', "malformed"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 1e400}',
     "Number out of range - at `$.amount`"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 100000000000000000000000000000}',
     "at `$.amount`"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 2.5}',
     "Expected `int`, got `float` - at `$.amount`"),
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 0}',
     "Expected `int` >= 1 - at `$.amount`"),
    ('{"command": "place_bet", "seat": 8, "bet": "ante", "amount": 100}',
     "Expected `int` <= 7 - at `$.seat`"),
    ('{"command": "config_change", "key": "lockout_seconds", "value": ' + "9" * 400
     + ', "pin": "2468"}', "at `$.value`"),
    ('{"command": "config_change", "key": "burn_cards", "value": 1e400, "pin": "2468"}',
     "at `$.value`"),
    ('{"command": "config_change", "key": "colour", "value": 1, "pin": "2468"}', "at `$.key`"),
    ('{"command": "decide", "seat": 1, "decision": "maybe"}', "at `$.decision`"),
    ('{"command": "void", "reason": "jam", "pin": "12"}', "at `$.pin`"),
    ('{"command": "void", "reason": "jam", "pin": "2468\\n"}', "at `$.pin`"),  # digits only
    ('{"command": "settle", "tip": 5}', "unknown field `tip`"),
    ('{"command": "deal"}', "Invalid value 'deal' - at `$.command`"),
    ('{"seat": 1}', "missing required field `command`"),
    ("123", "Expected `object`, got `int`"),
    ('"void"', "Expected `object`, got `str`"),
    ("null", "Expected `object`, got `null`"),
    ("[]", "Expected `object`, got `array`"),
    ("not json", "malformed"),
    # JSON lets the last of two keys win: the line that names seat 1 would bet on seat 2
    ('{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 100, "seat": 2}',
     "'seat' is named twice"),
    ('{"command": "void", "reason": "jam", "reason": "shoe jam", "pin": "2468"}',
     "'reason' is named twice"),
]


@pytest.mark.parametrize(("line", "why"), REFUSED)
def test_a_control_line_that_fails_its_declaration_is_refused_naming_the_field(line, why):
    with pytest.raises(inputs.InputError) as err:
        parse_control_line(line)
    assert why in str(err.value)


#: the same mistakes in commands built in code (construction checks nothing)
BUILT = [
    (inputs.PlaceBet(seat=True, bet="ante", amount=100), "at `$.seat`"),
    (inputs.VoidRound(reason="jam", pin=2468), "at `$.pin`"),
    (inputs.ManualCard(card=["Qh"], pin=SUP), "at `$.card`"),
    (inputs.PlaceBet(seat=1, bet="ante", amount=float("nan")), "at `$.amount`"),
    (inputs.PlaceBet(seat=1, bet="ante", amount=10**29), "at `$.amount`"),
    (inputs.ConfigChange(key="lockout_seconds", value=10**400, pin=SUP), "at `$.value`"),
    (inputs.ChangePin(role="supervisor", new_pin="12", pin=TECH), "at `$.new_pin`"),
    (CardRead(card=["Qh"], code="QH"), "at `$.card`"),
]


@pytest.mark.parametrize(("item", "why"), BUILT)
def test_a_refused_input_never_reaches_the_journal(tmp_path, item, why):
    t = Table(tmp_path / "j.sqlite3", TableConfig(pin_hashes=demo_pin_hashes()))
    seq = t.journal.last_seq
    (v,) = t.process([item])
    assert v.seq is None and not v.accepted and why in v.reason
    assert t.journal.last_seq == seq
    (v,) = t.process([inputs.PlaceBet(seat=1, bet="ante", amount=100)])  # the table goes on
    assert v.accepted
    t.close()
    assert rc.verify(tmp_path / "j.sqlite3").ok


def _journal_body(item):
    """The journal kind and body of an input, as the table journals them."""
    kind, record = inputs.journal_record(item)
    return kind, inputs.record_body(record)


def test_non_finite_numbers_never_reach_a_journal_body(tmp_path):
    for bad in (float("nan"), float("inf"), -math.inf):
        with pytest.raises(inputs.InputError):
            inputs.encode_body({"amount": bad})
        with pytest.raises(inputs.InputError, match=r"\$\.amount"):
            _journal_body(inputs.PlaceBet(seat=1, bet="ante", amount=bad))
    t = Table(tmp_path / "j.sqlite3", TableConfig(pin_hashes=demo_pin_hashes()))
    (v,) = t.process([inputs.PlaceBet(seat=1, bet="ante", amount=float("nan"))])
    assert v.seq is None and "at `$.amount`" in v.reason
    t.process([inputs.PlaceBet(seat=1, bet="ante", amount=100), CardRead(card="Qh", code="QH")])
    t.close()

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in a journal body")

    db = Journal(tmp_path / "j.sqlite3", readonly=True)
    for r in db.records():
        json.loads(r.body, parse_constant=refuse)
    db.close()


def test_a_command_declares_its_name_fields_and_role():
    assert inputs.VoidRound.name == "void" and inputs.COMMAND_NAMED["void"] is inputs.VoidRound
    assert inputs.VoidRound.needs is inputs.Role.SUPERVISOR
    assert inputs.ChangePin.needs is inputs.Role.TECHNICIAN
    assert inputs.PlaceBet.needs is inputs.Role.DEALER
    assert inputs.NextRound.needs_when_asked is inputs.Role.SUPERVISOR
    assert inputs.ChangePin.body_type is inputs.PinChanged
    assert {c.name for c in inputs.COMMANDS} <= set(inputs.BODY_TYPES)
    assert len({c.name for c in inputs.COMMANDS}) == len(inputs.COMMANDS)


def test_the_role_check_reads_the_declaration(tmp_path):
    t = Table(tmp_path / "j.sqlite3", TableConfig(pin_hashes=demo_pin_hashes()))
    t.process([LinkStatus(state=LinkState.ONLINE), inputs.PlaceBet(seat=1, bet="ante", amount=100),
               inputs.NoMoreBets()])
    (v,) = t.process([inputs.VoidRound(reason="test")])
    assert "void needs a supervisor or technician PIN" in v.reason
    (v,) = t.process([inputs.VoidRound(reason="test", pin=SUP)])
    assert v.accepted
    (v,) = t.process([inputs.ChangePin(role="supervisor", new_pin="97531", pin=SUP)])
    assert "change_pin needs a technician PIN" in v.reason
    (v,) = t.process([inputs.ChangePin(role="supervisor", new_pin="97531", pin=TECH)])
    assert v.accepted
    (v,) = t.process([inputs.NextRound(pin="97531")])  # the new PIN is a supervisor's
    assert v.accepted and t.game.counters["overrides"] == 2
    t.close()


def test_bodies_journaled_before_decode_through_the_same_declarations(tmp_path):
    path = tmp_path / "before.sqlite3"
    shutil.copyfile(DATA / "burns_before.journal", path)
    j = Journal(path, readonly=True)
    kinds = set()
    try:
        for r in j.records():
            kinds.add(r.kind)
            body = json.loads(r.body)
            decoded = inputs.decode_body(r.kind, body)
            assert type(decoded) is inputs.BODY_TYPES[r.kind]
    finally:
        j.close()
    assert {"startup", "card", "misread", "place_bet", "no_more_bets", "settle"} <= kinds
    t = Table(path, TableConfig(seats=3, burn_cards=1, snapshot_every=1,
                                pin_hashes=demo_pin_hashes()))
    assert t.locked is None
    t.close()
    assert rc.verify(path).ok


# -- apply is total ----------------------------------------------------------------------

SEATS = st.integers(1, inputs.MAX_SEATS)
PIN = st.sampled_from([None, SUP, TECH, "0000", "123456789012"])
REASON = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs")), max_size=20)
"""A reason a person may give (no control character: :mod:`controller.game.text`)."""


def setting_values(allowed):
    """Values a setting's declaration allows (a profile that does not load included)."""
    if isinstance(allowed, range):
        return st.integers(allowed.start, allowed.stop - 1)
    if isinstance(allowed, tuple):
        return st.sampled_from(allowed)
    return st.sampled_from(["classic", "live", "no-such-profile"])


CARD_TEXT = st.sampled_from([str(c) for c in DECK] + ["10h", "Zz", "  "])
COMMAND = st.one_of(
    st.builds(inputs.PlaceBet, seat=SEATS, bet=st.sampled_from(["ante", "pair_plus",
                                                           "six_card_bonus"]),
              amount=st.integers(inputs.MIN_AMOUNT, inputs.MAX_AMOUNT), pin=PIN),
    st.builds(inputs.ClearBets, seat=SEATS, pin=PIN),
    st.builds(inputs.Rebet, seat=st.integers(0, inputs.MAX_SEATS), pin=PIN),
    st.builds(inputs.RemoveChip, seat=SEATS, bet=st.sampled_from(["ante", "pair_plus"]),
              amount=st.integers(inputs.MIN_AMOUNT, inputs.MAX_AMOUNT), pin=PIN),
    st.builds(inputs.UndoDecision, seat=SEATS, pin=PIN),
    st.builds(inputs.NoMoreBets, pin=PIN),
    st.builds(inputs.Decide, seat=SEATS, decision=st.sampled_from(["play", "fold"]), pin=PIN),
    st.builds(inputs.Reveal, pin=PIN), st.builds(inputs.Settle, pin=PIN),
    st.builds(inputs.NextRound, pin=PIN), st.builds(inputs.Resume, pin=PIN),
    st.builds(inputs.NewDeck, pin=PIN),
    st.builds(inputs.VoidRound, reason=REASON, pin=PIN),
    st.builds(inputs.ManualCard, card=CARD_TEXT, pin=PIN),
    st.builds(inputs.UnblockDeck, reason=REASON, pin=PIN),
    st.builds(inputs.ExposedCard, dealer_hand=st.booleans(), pin=PIN),
    st.builds(lambda kv, pin: inputs.ConfigChange(key=kv[0], value=kv[1], pin=pin),
              st.sampled_from(sorted(inputs.SETTINGS)).flatmap(lambda k: st.tuples(
                  st.just(k), setting_values(inputs.SETTINGS[k]))), PIN),
)
CARD = st.sampled_from([str(c) for c in DECK])
EVENT = st.one_of(
    st.builds(lambda c, b: CardRead(card=c, code=c, burn=b), CARD, st.booleans()),
    st.builds(lambda b: CardRead(card=None, code="ZZ", burn=b), st.booleans()),
    st.builds(Misread, burn=st.booleans()),
    st.builds(Retract, card_seq=st.none() | st.integers(0, 65535)),
    st.builds(LinkStatus, state=st.sampled_from(list(LinkState))),
    st.builds(SeqGap, expected=st.integers(0, 65535), got=st.integers(0, 65535)),
    st.builds(Hello, seq=st.sampled_from([None, 0, 5])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(COMMAND, EVENT, EVENT), min_size=1, max_size=60))
def test_apply_is_total_for_whatever_passed_the_declaration(tmp_path_factory, items):
    path = tmp_path_factory.mktemp("total") / "j.sqlite3"
    t = Table(path, TableConfig(seats=4, burn_cards=1, pin_hashes=demo_pin_hashes()))
    for item in items:
        (v,) = t.process([item])
        if isinstance(item, inputs.ConfigChange) and item.value == "no-such-profile":
            # a profile is journaled by its text: one that does not load is refused,
            # before the journal when the change is otherwise allowed
            assert not v.accepted and v.reason, v
            continue
        assert v.seq is not None, v  # every item passed its declaration: journaled
        assert v.accepted or v.reason
        assert "could not be applied" not in (v.reason or ""), v.reason
    assert "faults" not in t.game.counters
    live = json.loads(t.game.dumps())
    t.close()
    j = Journal(path, readonly=True)
    try:
        assert json.loads(rc.replay(j, full=True).dumps()) == live
    finally:
        j.close()
    assert rc.verify(path).ok


BODY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=3),
    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from(sorted(inputs.BODY_TYPES) + ["deal", "tick"]),
       body=st.dictionaries(st.sampled_from(["seat", "bet", "amount", "card", "code", "burn",
                                             "seq", "reason", "key", "value", "role",
                                             "pin_hash", "state", "config", "decision",
                                             "x"]), BODY_VALUE, max_size=5),
       actor=st.sampled_from(["dealer", "dealer!", "supervisor", "technician", "shoe",
                              "system"]))
def test_apply_answers_any_record_it_reads_without_raising(kind, body, actor):
    g = Game(TableConfig(pin_hashes=demo_pin_hashes()))
    out = g.apply(1, "2026-01-01T00:00:00+00:00", kind, body, actor, mono_ns=SECOND)
    assert out is None or isinstance(out, str)
    if out is not None:
        assert g.take_derived().rejections == [(1, out)]


def test_a_body_that_fails_its_declaration_replays_as_a_rejection():
    g = Game(TableConfig(pin_hashes=demo_pin_hashes()))
    reason = g.apply(1, "2026-01-01T00:00:00+00:00", "place_bet",
                     {"seat": True, "bet": "ante", "amount": 5}, "dealer", mono_ns=SECOND)
    assert reason == "place_bet: Expected `int`, got `bool` - at `$.seat`"
    assert g.counters["rejected"] == 1 and not g.seats


def test_decoded_bodies_round_trip_through_the_declaration():
    for item in (inputs.PlaceBet(seat=3, bet="pair_plus", amount=2500, pin=SUP),
                 inputs.ConfigChange(key="deal_pattern", value="by_hand"),
                 inputs.Rebet(seat=2), inputs.RemoveChip(seat=1, bet="ante", amount=100),
                 CardRead(card="Td", code="10D", burn=True, seq=7),
                 LinkStatus(state=LinkState.SILENT, detail="x")):
        kind, body = _journal_body(item)
        assert "pin" not in body
        decoded = inputs.decode_body(kind, json.loads(inputs.encode_body(body)))
        again = msgspec.to_builtins(decoded)
        again.pop("pin", None), again.pop("command", None)
        defaults = {"card": {"burn_rule": 1},
                    "config_change": {"old": None, "rules_text": None}}.get(kind, {})
        assert json.loads(inputs.encode_body(again)) == defaults | json.loads(
            inputs.encode_body(body))


def test_the_settings_a_config_change_declares_are_the_configurations_changeable_ones():
    # one list of settings: the declaration's keys are the configuration's, old names read
    from controller.game.config import CHANGEABLE, RENAMED

    assert tuple(inputs.SETTINGS) == CHANGEABLE
    for old, new in RENAMED.items():
        assert parse_control_line(
            f'{{"command": "config_change", "key": "{old}", "value": 3, "pin": "{SUP}"}}'
            if new == "lockout_after" else
            f'{{"command": "config_change", "key": "{old}", "value": "void", "pin": "{SUP}"}}'
        ).key == old
    with pytest.raises(inputs.InputError, match="bad value for lockout_after"):
        parse_control_line('{"command": "config_change", "key": "max_pin_failures", '
                             f'"value": {10**6}, "pin": "{SUP}"}}')


def test_the_bet_names_are_the_declarations_and_read_from_it_everywhere():
    """``--bets`` (run and cli), settle lines and a rule profile's limits take exactly the
    bets :data:`~controller.game.inputs.BetName` declares; none spells the list again."""
    import argparse
    import re
    import typing

    from controller.cli import wagers
    from controller.game.rules import RuleProfileError, profile_from_text
    from controller.game.settlement import BetError, bets_from_mapping

    assert inputs.BET_NAMES == typing.get_args(inputs.BetName)
    for bet in inputs.BET_NAMES:
        assert wagers(json.dumps({bet: 100})) == {bet: 100}
        assert getattr(bets_from_mapping({bet: 5}, inputs.BET_NAMES), bet) == 5
    with pytest.raises(argparse.ArgumentTypeError, match=", ".join(inputs.BET_NAMES)):
        wagers('{"blackjack": 100}')
    with pytest.raises(BetError):
        bets_from_mapping({"play": 5}, inputs.BET_NAMES)  # play follows the ante: never given
    root = Path(__file__).resolve().parents[2]
    text = (root / "controller" / "game" / "profiles" / "live.toml").read_text()
    with pytest.raises(RuleProfileError, match="known: " + ", ".join(inputs.BET_NAMES)):
        profile_from_text(text + "\n[limits.blackjack]\nmin = 1\nmax = 2\n", "test")
    spelled = re.compile(r"""\(\s*["']ante["'],\s*["']pair_plus["'],\s*["']six_card_bonus["']""")
    found = [str(p.relative_to(root)) for part in ("controller", "drivers", "display", "floor",
                                                   "simulators")
             for p in (root / part).rglob("*.py") if spelled.search(p.read_text())]
    assert found == [], found
