"""Random interleavings of shoe events and dealer commands; invariants after every step.

Invariants: at most three cards per hand and exactly three once the deal is complete;
each card at most once; no settlement before every decision; a rejected input changes
nothing; meters never decrease and equal the sum of the round records; the player view
(and the dealer view) never holds a dealer hole card before the reveal (R13); a replay
of the journal rebuilds the same state.
"""

import json
import re
from dataclasses import replace
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from step_clock import StepClock

from controller.autoplay import AutoPlayer
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.cards import DECK
from controller.game.engine import TableConfig
from controller.game.events import (
    Alarm,
    CardRead,
    Hello,
    LinkState,
    LinkStatus,
    Misread,
    Retract,
    SeqGap,
)
from controller.game.inputs import (
    ClearBets,
    Decide,
    ExposedCard,
    ManualCard,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    RemoveChip,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    UndoDecision,
    VoidRound,
)
from controller.game.replay import round_records
from controller.game.round import RoundState
from controller.game.table import Table

SUP = DEMO_PINS["supervisor"]
CARDS = [str(c) for c in DECK]
PINS = st.sampled_from([None, SUP, "9999"])
SEATS = st.integers(1, 3)

COMMANDS = st.one_of(
    st.builds(PlaceBet, seat=SEATS, bet=st.sampled_from(["ante", "pair_plus", "six_card_bonus"]),
              amount=st.sampled_from([100, 500, 100000])),
    st.builds(ClearBets, seat=SEATS), st.builds(Rebet, seat=st.integers(0, 3)),
    st.builds(RemoveChip, seat=SEATS, bet=st.sampled_from(["ante", "pair_plus"]),
              amount=st.sampled_from([100, 500])),
    st.builds(UndoDecision, seat=SEATS),
    st.just(NoMoreBets()), st.builds(Decide, seat=SEATS, decision=st.sampled_from(["play",
                                                                                  "fold"])),
    st.just(Reveal()), st.just(Settle()), st.builds(NextRound, pin=PINS),
    st.builds(VoidRound, reason=st.just("test"), pin=PINS),
    st.builds(ManualCard, card=st.sampled_from(CARDS), pin=PINS),
    st.builds(Resume, pin=PINS), st.builds(UnblockDeck, pin=PINS),
    st.builds(ExposedCard, dealer_hand=st.booleans()),
)
SHOE = st.one_of(
    st.builds(lambda c, b: CardRead(card=c, code=c, burn=b), st.sampled_from(CARDS),
              st.booleans().map(lambda b: b and False)),
    st.builds(lambda c: CardRead(card=c, code=c, burn=True), st.sampled_from(CARDS)),
    st.just(CardRead(card=None, code="ZZ")), st.just(Misread()), st.just(Misread(burn=True)),
    st.just(Retract()),
    st.builds(LinkStatus, state=st.sampled_from(list(LinkState))),
    st.just(SeqGap(expected=1, got=3)), st.just(Hello()), st.just(Alarm(code="JAM")),
)
# "auto": what a good dealer and shoe would do next (keeps rounds going to settlement)
STEP = st.tuples(st.sampled_from(["auto"] * 10 + ["command", "shoe"]), COMMANDS, SHOE).map(
    lambda t: "auto" if t[0] == "auto" else t[1] if t[0] == "command" else t[2])


class Driver:
    def __init__(self, rng_cards: list[str]) -> None:
        cfg = TableConfig(seats=3, pin_hashes=demo_pin_hashes(), lockout_after=3)
        # a minute per batch: a PIN lockout (5 minutes) ends within a few steps
        self.table = Table(":memory:", cfg, clock=StepClock(timedelta(minutes=1)))
        self.table.process([LinkStatus(state=LinkState.ONLINE)])
        self.player = AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=SUP)
        self.order = rng_cards
        self.prev_meters: dict[str, list[int]] = {}

    def auto_inputs(self):
        d = self.table.views()[0]
        g = self.table.game
        if d.cards_due and d.state != "paused":
            fresh = [c for c in self.order if c not in g.deal.seen]
            return [CardRead(card=fresh[0], code=fresh[0])] if fresh else []
        if d.pause_reason == "misread":
            fresh = [c for c in self.order if c not in g.deal.seen]
            return [CardRead(card=fresh[0], code=fresh[0])]
        if d.state == "paused" and d.link_state != "online":
            return [LinkStatus(state=LinkState.ONLINE)]
        cmds = self.player.next_commands(d)
        return cmds if cmds else [Resume(pin=SUP)]


def hole_cards_absent(table: Table) -> None:
    """R13. A void round is over (no reveal comes): its record may show every card to the
    dealer's recall, but the players still never see them."""
    g = table.game
    if g.state in (RoundState.REVEAL, RoundState.SETTLED) or not g.deal.dealer_cards:
        return
    dealer, player = table.views()
    assert all(c is None for c in player.dealer_cards)
    assert all(c is None for c in dealer.dealer_cards)
    here = repr(replace(player, history=()))
    cur = [r for r in dealer.recall if r.round_id == g.round_id]
    # a card read twice is named to the dealer, who must find it, even if it is a hole card
    alarms = tuple(b for b in dealer.banners if b.kind != "deck_blocked")
    there = repr(replace(dealer, recall=tuple(cur), meters=(), banners=alarms))
    for card in g.deal.dealer_cards:
        pat = re.compile(rf"\b{card}\b")
        assert not pat.search(here), f"hole card {card} in the player view"
        if g.state is not RoundState.VOID:
            assert not pat.search(there), f"hole card {card} in the dealer view"


def check_invariants(drv: Driver) -> None:
    g = drv.table.game
    S = RoundState
    hands = [sr.cards for sr in g.seats.values()] + [g.deal.dealer_cards]
    assert all(len(h) <= 3 for h in hands)
    dealt = [c for h in hands for c in h]
    assert len(dealt) == len(set(dealt)) and set(dealt) <= g.deal.seen
    if g.state in (S.DECIDING, S.REVEAL, S.SETTLED):
        assert all(len(h) == 3 for h in hands)
    for sr in g.seats.values():
        if sr.results is not None:
            assert g.state in (S.SETTLED, S.VOID)
            if g.state is S.SETTLED and sr.bets.get("ante"):
                assert sr.decision in ("play", "fold")
    rows = g.meters_dict()["rows"]
    for name, row in rows.items():
        before = drv.prev_meters.get(name, [0] * 6)
        assert all(a >= b for a, b in zip(row, before, strict=True)), name
    drv.prev_meters = rows
    assert rc.sum_rounds(round_records(drv.table.journal)) == rows
    hole_cards_absent(drv.table)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(CARDS), steps=st.lists(STEP, min_size=10, max_size=80))
def test_random_interleavings_keep_the_invariants(order, steps):
    drv = Driver(order)
    version = drv.table.version
    for step in steps:
        items = drv.auto_inputs() if step == "auto" else [step]
        for item in items:
            before = drv.table.game.to_dict()
            verdicts = drv.table.process([item])
            if verdicts and not verdicts[0].accepted:
                after = drv.table.game.to_dict()
                for k in ("notes", "meters", "last_seq", "lockout"):
                    before.pop(k), after.pop(k)
                assert before == after, verdicts[0]
            assert drv.table.version > version
            version = drv.table.version
            check_invariants(drv)
    rebuilt = rc.replay(drv.table.journal, full=True)
    assert json.loads(rebuilt.dumps()) == json.loads(drv.table.game.dumps())
    assert drv.table.journal.verify().ok


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(CARDS),
       steps=st.lists(st.tuples(st.booleans(), SHOE).map(lambda t: t[1] if t[0] else "auto"),
                      min_size=1, max_size=60))
def test_no_view_holds_a_dealer_hole_card_before_the_reveal(order, steps):
    drv = Driver(order)
    for step in steps:
        for item in (drv.auto_inputs() if step == "auto" else [step]):
            drv.table.process([item])
            hole_cards_absent(drv.table)
