"""docs/rules.md "Reopen bets": after no more bets and before the first card, a supervisor
reopens betting to correct a wrong amount, journaled as its own record and with no void;
once any card of the round is read, a burn card included, it is refused with why.

Seats 1 and 2 bet; the deal is round robin: seat 1, seat 2, dealer, three passes.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from journal_edit import events

from controller.game.inputs import NoMoreBets, PlaceBet, RemoveChip, ReopenBets, VoidRound

# seat 1: Ah Qd 9c (ace high) | seat 2: Kh Qs 3s (king high) | dealer: 2c 5d 8h (no qualify)
DECK = "Ah Kh 2c | Qd Qs 5d | 9c 3s 8h"


def test_a_wrong_amount_is_corrected_after_no_more_bets_without_a_void(shift):
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100), PlaceBet(seat=2, bet="ante", amount=100),
             NoMoreBets())
    v = shift.view
    assert "reopen_bets" in v.allowed and "reopen_bets" in v.pin_needed
    assert "PIN" in shift.rejected(ReopenBets())              # the dealer alone may not
    shift.ok(ReopenBets(pin=shift.SUP))
    assert shift.view.state == "betting" and shift.view.round_id == 1
    shift.ok(RemoveChip(seat=1, bet="ante", amount=100), PlaceBet(seat=1, bet="ante", amount=500),
             NoMoreBets(), shift.cards(DECK))
    shift.play_out("play", "play")
    (r1,) = shift.recall()
    assert r1["status"] == "settled" and r1["round_id"] == 1
    # dealer does not qualify: the Ante wins even money on the corrected amount
    assert shift.outcomes(r1, 1)["ante"] == ("win", 500)
    assert shift.game.meters.counters.get("voids", 0) == 0
    kinds = [(e[3], e[4]) for e in events(shift.path)]
    assert ("reopen_bets", "supervisor") in kinds and not any(k == "void" for k, _ in kinds)
    assert shift.table.journal.verify().ok                    # the chain holds
    state = shift.game.to_dict()
    shift.restart()                            # start-up verifies, replays: the same state
    assert shift.table.locked is None
    assert shift.table.recovered == state


def test_reopen_is_refused_once_a_burn_card_is_read(make_shift):
    s = make_shift(burn_cards=1)
    s.bets()
    s.ok(s.cards("9d", burn=True))  # the burn fills its position
    why = s.rejected(ReopenBets(pin=s.SUP))
    assert "burns included" in why and "void" in why
    assert "reopen_bets" not in s.view.allowed                 # the screen no longer offers it
    s.ok(VoidRound(reason="wrong amount", pin=s.SUP))  # the way left: a void


def test_reopen_is_refused_once_a_burn_is_set_aside_or_a_card_dealt(shift):
    shift.bets()
    shift.ok(shift.cards("9d", burn=True))     # no burn position: set aside, the state stays
    assert shift.view.state == "no_more_bets"
    assert "burns included" in shift.rejected(ReopenBets(pin=shift.SUP))
    shift.ok(shift.cards("Ah"))
    assert "burns included" in shift.rejected(ReopenBets(pin=shift.SUP))
    shift.ok(shift.cards("Kh 2c Qd Qs 5d 9c 3s 8h"))
    assert shift.view.state == "deciding"
    assert "burns included" in shift.rejected(ReopenBets(pin=shift.SUP))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(burns=st.integers(0, 2), read=st.integers(0, 9), flagged=st.booleans(),
       twice=st.booleans())
def test_reopen_is_accepted_exactly_while_no_card_of_the_round_is_read(make_shift, burns,
                                                                       read, flagged, twice):
    s = make_shift(burn_cards=burns)
    s.ok(PlaceBet(seat=1, bet="ante", amount=100), PlaceBet(seat=2, bet="pair_plus",
                                                             amount=200))
    s.ok(PlaceBet(seat=2, bet="ante", amount=100), NoMoreBets())
    if twice:  # reopened once already, then closed again: the same rule holds
        s.ok(ReopenBets(pin=s.SUP), NoMoreBets())
    shoe = ["Tc", "Td", "Th"][:burns] + DECK.replace("|", " ").split()
    s.ok([*s.cards(" ".join(shoe[:min(read, burns)]), burn=flagged),
          *s.cards(" ".join(shoe[min(read, burns):read]))])
    before = s.game.to_dict()
    (v,) = s.do(ReopenBets(pin=s.SUP))
    assert v.accepted == (read == 0)
    after = s.game.to_dict()
    assert after["round_id"] == before["round_id"]
    assert after["seats"] == before["seats"]                # the wagers stay as they were
    assert after["meters"]["counters"].get("voids", 0) == 0
    assert after["state"] == ("betting" if read == 0 else before["state"])
