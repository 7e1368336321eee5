"""The dealer screen's input on a real table: the input guard, Undo, rebet, decisions.

Each test drives a real table through the real dealer screen (FINGERDOWN and KEYDOWN
events, 5 seats, 800x480) and checks what the table records.
"""

import pygame

from controller.game import inputs
from controller.game.auth import DEMO_PINS
from controller.game.events import CardRead

ROUND1 = {1: {"ante": 500}, 2: {"ante": 500}}
SUP = DEMO_PINS["supervisor"]


def bets(shift) -> dict[int, dict[str, int]]:
    return {s.seat: {k: v for k, v in s.bets.items() if k != "play"}
            for s in shift.view.seats if s.bets}


def decisions(shift) -> dict[int, str | None]:
    return {s.seat: s.decision for s in shift.view.seats if s.bets.get("ante")}


def played_out(shift, marks=None) -> None:
    """Round 1 (ROUND1, or ``marks`` in outcome mode) played out by touches."""
    if marks:
        for seat, bet in marks:
            shift.tap(f"seat.{seat}.bet.{bet}")
    else:
        shift.chips_by_touch(ROUND1)
    shift.tap("primary")
    shift.deal()
    for seat in sorted({s for s, *_ in marks} if marks else ROUND1):
        shift.tap(f"seat.{seat}.play")
    shift.tap("primary")
    shift.tap("primary")
    shift.tap("all_paid")
    if not marks:                                # outcome mode: All paid opened it
        shift.tap("primary")
    assert shift.view.state == "betting" and shift.refused() == []


def finger(shift, pos) -> None:
    """A finger on ``pos`` posted to SDL's queue (read at the next frame)."""
    w, h = shift.frame.size
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=pos[0] / w, y=pos[1] / h,
                                         touch_id=1, finger_id=1, dx=0.0, dy=0.0,
                                         pressure=1.0))
    shift.touches += 1


# Undo ------------------------------------------------------------------------------------------
def test_a_refused_chip_leaves_nothing_to_undo(dealer_shift):
    shift = dealer_shift()
    shift.tap("chip.10000")
    shift.tap("seat.1.bet.ante")
    shift.tap("seat.1.bet.pair_plus")            # the Pair Plus maximum
    shift.tap("chip.500")
    shift.tap("seat.3.bet.ante")
    shift.tap("chip.10000")
    shift.tap("seat.1.bet.pair_plus")            # above the maximum: refused
    assert len(shift.refused()) == 1
    shift.tap("undo")                            # takes back seat 3's chip, the last taken
    assert bets(shift) == {1: {"ante": 10000, "pair_plus": 10000}}
    shift.tap("undo")
    assert bets(shift) == {1: {"ante": 10000}}


def test_undo_after_clear_puts_the_seats_bets_back(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({2: {"ante": 1000, "pair_plus": 500}})
    shift.tap("seat.2.clear")
    assert bets(shift) == {}
    shift.tap("undo")
    assert bets(shift) == {2: {"ante": 1000, "pair_plus": 500}}


def test_undo_after_rebet_all_takes_off_what_the_rebet_put_down(dealer_shift):
    shift = dealer_shift()
    played_out(shift)
    shift.tap("chip.2500")
    shift.tap("seat.3.bet.ante")                 # a new seat this round
    shift.tap("rebet_all")                       # seats 1 and 2 as last round
    assert bets(shift) == {1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 2500}}
    shift.tap("undo")
    assert bets(shift) == {3: {"ante": 2500}}    # seat 3's own bet stays
    assert shift.refused() == []


def test_undo_after_rebet_all_by_keys_in_outcome_mode(dealer_shift):
    shift = dealer_shift(bet_entry="outcomes")
    played_out(shift, marks=[(1, "ante"), (2, "ante"), (2, "pair_plus")])
    shift.key("4")
    shift.key("a")                               # seat 4 marks its Ante
    shift.key("b", shift=True)                   # Rebet all: seats 1 and 2
    assert set(bets(shift)) == {1, 2, 4}
    shift.key("u")
    assert bets(shift) == {4: {"ante": 1}}
    assert shift.refused() == []


def test_a_digit_on_a_decided_seat_takes_its_decision_back(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 500}})
    shift.tap("primary")
    shift.deal()
    shift.key("y")
    shift.key("f")                               # meant for seat 3, folds seat 2
    assert decisions(shift) == {1: "play", 2: "fold", 3: None}
    shift.key("2")                               # seat 2 again: its decision is taken back
    assert decisions(shift) == {1: "play", 2: None, 3: None}
    assert shift.frame.notes["selected_seat"] == 2
    shift.key("y")
    shift.key("f")
    assert decisions(shift) == {1: "play", 2: "play", 3: "fold"}
    shift.key("r")
    shift.key("1")                               # after the reveal: nothing to take back
    assert decisions(shift) == {1: "play", 2: "play", 3: "fold"}


def test_after_a_decision_the_outline_moves_right_never_back(dealer_shift):
    """``2 F F``: seat 2 folds, then the seat to its right still to decide (3), never seat 1
    again; past the last seat the outline wraps to the first still undecided."""
    shift = dealer_shift()
    shift.chips_by_touch({s: {"ante": 500} for s in (1, 2, 3, 4, 5)})
    shift.tap("primary")
    shift.deal()
    shift.key("2")
    shift.key("f")
    assert shift.frame.notes["selected_seat"] == 3
    shift.key("f")
    assert decisions(shift) == {1: None, 2: "fold", 3: "fold", 4: None, 5: None}
    shift.key("5")
    shift.key("y")                               # the last seat: the outline wraps to seat 1
    assert shift.frame.notes["selected_seat"] == 1
    shift.key("y")
    assert shift.frame.notes["selected_seat"] == 4
    assert decisions(shift) == {1: "play", 2: "fold", 3: "fold", 4: None, 5: "play"}


def test_recall_opens_on_the_last_round_that_ended(dealer_shift):
    """During round 2's betting Recall (F7) opens on round 1, settled, not on round 2."""
    shift = dealer_shift()
    played_out(shift)
    assert shift.view.state == "betting" and shift.view.round_id == 2
    shift.key("f7")
    assert shift.app.dealer.ui.screen == "recall"
    shown = shift.view.recall[shift.app.dealer.ui.recall_index]
    assert (shown.round_id, shown.status) == (1, "settled")


# Rebet -----------------------------------------------------------------------------------------
def test_rebet_never_overwrites_a_seats_new_bet(dealer_shift):
    shift = dealer_shift()
    played_out(shift)
    shift.tap("chip.2500")
    shift.tap("seat.1.bet.ante")                 # seat 1 bets more this round
    shift.key("1")
    shift.key("b")                               # rebet of seat 1 itself: it keeps its bet
    shift.key("b", shift=True)                   # Rebet all fills seat 2 only
    assert bets(shift) == {1: {"ante": 2500}, 2: {"ante": 500}}


# The input guard -------------------------------------------------------------------------------
def test_a_bounce_is_not_a_second_chip(dealer_shift):
    shift = dealer_shift()
    shift.tap("chip.500")
    spot = shift.button("seat.1.bet.ante").rect.center
    shift.tap_at(spot)
    shift.tap_at(spot, dt=0.1)                   # 100 ms on, the same spot: a bounce
    assert bets(shift) == {1: {"ante": 500}}
    shift.tap_at(spot, dt=0.3)                   # a genuine second tap
    assert bets(shift) == {1: {"ante": 1000}}


def test_a_command_unanswered_blocks_the_next(dealer_shift):
    shift = dealer_shift()
    shift.tap("chip.500")
    finger(shift, shift.button("seat.1.bet.ante").rect.center)
    finger(shift, shift.button("seat.2.bet.ante").rect.center)   # read in the same frame
    shift.step(0.7)
    assert bets(shift) == {1: {"ante": 500}}


def test_a_tap_on_a_frame_older_than_the_view_is_ignored(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ROUND1)
    spot = shift.button("primary").rect.center
    shift.table.process([inputs.PlaceBet(seat=3, bet="ante", amount=500)])  # not yet drawn
    shift.tap_at(spot)
    assert shift.view.state == "betting"         # the tap was on what the dealer saw before
    shift.tap("primary")
    assert shift.view.state != "betting"


def test_reveal_settle_and_next_round_never_chain_from_a_double_tap(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ROUND1)
    shift.tap("primary")
    shift.deal()
    shift.tap("primary")                         # play the rest
    spot = shift.button("primary").rect.center
    for state in ("reveal", "settled"):
        shift.tap_at(spot)
        shift.tap_at(spot, dt=0.07)              # the second of a double tap
        assert shift.view.state == state
    shift.tap("all_paid")
    shift.tap_at(spot)
    shift.tap_at(spot, dt=0.07)
    assert shift.view.state == "betting" and shift.view.round_id == 2
    assert not bets(shift)                       # nothing placed by the second tap


# Outcome mode ----------------------------------------------------------------------------------
def test_the_outline_follows_the_seat_last_marked(dealer_shift):
    shift = dealer_shift(bet_entry="outcomes")
    shift.tap("seat.3.bet.ante")
    assert shift.frame.notes["selected_seat"] == 3
    shift.key("p")                               # the keys act on the seat outlined
    assert bets(shift) == {3: {"ante": 1, "pair_plus": 1}}


# A side bet with no Ante -----------------------------------------------------------------------
def test_a_pair_plus_on_a_seat_without_an_ante_is_refused_when_put_down(dealer_shift):
    shift = dealer_shift()
    shift.tap("seat.2.bet.pair_plus")
    assert bets(shift) == {}                     # nothing placed, nothing journaled
    assert shift.texts("refusal.reason") == ["Seat 2: Pair Plus needs an Ante at this table"]
    shift.tap("seat.2.bet.ante")                 # with its Ante it is taken
    shift.tap("seat.2.bet.pair_plus")
    assert bets(shift) == {2: {"ante": 100, "pair_plus": 100}}


def test_a_six_card_bonus_mark_without_an_ante_is_refused_in_outcome_mode(dealer_shift):
    shift = dealer_shift(bet_entry="outcomes")
    shift.key("3")
    shift.key("x")
    assert bets(shift) == {}
    (text,) = shift.texts("refusal.reason")
    assert "6 Card Bonus needs an Ante" in text


# After an automatic void -----------------------------------------------------------------------
def test_after_a_duplicate_card_the_next_step_and_the_large_button_agree(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ROUND1)
    shift.tap("primary")
    shift.table.process([CardRead(card="As", code="As")])
    shift.shoe(CardRead(card="As", code="As"))   # the same card again: void, deck blocked
    assert shift.view.state == "void" and shift.view.deck_blocked
    shift.tap("all_paid")
    shift.tap("primary")                         # Next round, with a supervisor's PIN
    shift.pin_by_touch(SUP)
    assert shift.view.state == "betting" and shift.view.deck_blocked
    assert shift.button("primary").label == "Unblock deck"
    assert "Unblock deck" in " ".join(shift.texts("next_action"))
    shift.key("n")                               # No more bets: not now, and why
    assert shift.texts("refusal.reason") == ["N does nothing now. Next: Unblock deck (F11)"]


def test_a_step_key_pressed_after_a_void_says_why_it_does_nothing(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ROUND1)
    shift.shoe(CardRead(card="7d", code="7d"))   # a card read before No more bets: void
    assert shift.view.state == "void"
    shift.key("n")
    assert shift.texts("refusal.reason") == ["N does nothing now. Next: Return seat 1"]
    shift.key("g")                               # the next press reads it; G says why too
    assert shift.texts("refusal.reason") == ["G does nothing now. Next: Return seat 1"]
    shift.tap("all_paid")
    assert "refusal" not in shift.frame.regions
    shift.key("n")
    assert shift.texts("refusal.reason") == ["N does nothing now. Next: Next round (G)"]
    shift.key("g")                               # G: the PIN pad for the next round
    assert shift.frame.notes["pad"] == "pin"
