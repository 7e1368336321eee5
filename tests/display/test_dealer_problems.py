"""The dealer's problems at the table, each met on the real screen with real events.

Each test drives a real table through the real dealer screen (FINGERDOWN and KEYDOWN
events, 5 seats, 800x480) into one of the situations a dealer reported, and checks what
the screen offers and what the table records.
"""

import re

from controller.game import inputs
from controller.game.events import Alarm, CardRead, Cut, Lid, LinkState, LinkStatus, Misread
from display.i18n import Translator

SUP = "2468"
ONE = {1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 500}, 4: {"ante": 500},
       5: {"ante": 500}}


def decisions(shift) -> dict[int, str | None]:
    return {s.seat: s.decision for s in shift.view.seats if s.bets.get("ante")}


def rects(shift) -> dict[str, tuple]:
    return {b.id: tuple(b.rect) for b in shift.frame.buttons if b.rect.width}


# 1 --------------------------------------------------------------------------------------------
def test_a_void_the_table_made_is_acknowledged_from_the_large_button(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}, 2: {"ante": 500}})
    shift.shoe(CardRead(card="7d", code="7d"))  # a card read before No more bets
    assert shift.view.state == "void" and inputs.NextRound.name in shift.view.pin_needed
    shift.tap("all_paid")                       # the wagers are returned
    assert shift.button("primary").enabled
    shift.tap("primary")                        # Next round: it asks for the PIN
    assert shift.frame.notes["pad"] == "pin"
    shift.pin_by_touch(SUP)
    assert shift.view.state == "betting" and shift.refused() == []


def test_a_void_the_table_made_is_acknowledged_from_the_keyboard(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_key({3: {"ante": 500}})
    shift.shoe(CardRead(card="7d", code="7d"))
    shift.key("a")                               # all paid
    shift.key("return")                          # the large button: the PIN pad
    shift.type(SUP)
    shift.key("return")
    assert shift.view.state == "betting" and shift.refused() == []


# 2 --------------------------------------------------------------------------------------------
def test_the_keys_act_on_the_seat_the_screen_names_and_outlines(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_key(ONE)                      # the keys end on seat 5
    shift.key("n")
    shift.deal()
    for k, seat in zip("yyfyy", (1, 2, 3, 4, 5), strict=True):
        assert named(shift) == seat                   # the step names the seat ...
        assert shift.frame.notes["selected_seat"] == seat  # ... the outline is on it
        shift.key(k)
    assert decisions(shift) == {1: "play", 2: "play", 3: "fold", 4: "play", 5: "play"}


def named(shift) -> int:
    """The seat the next step names (``Seat 3: ...``)."""
    (text,) = shift.texts("next_action")
    return int(re.match(r"Seat (\d)", text).group(1))


def test_a_seat_chosen_by_its_digit_takes_the_keys_and_the_name(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ONE)
    shift.tap("primary")
    shift.deal()
    shift.key("4")
    assert named(shift) == 4 and shift.frame.notes["selected_seat"] == 4
    shift.key("f")
    # the outline moves on to the right, to the next seat still to decide, never back
    assert decisions(shift)[4] == "fold" and shift.frame.notes["selected_seat"] == 5


# 3 --------------------------------------------------------------------------------------------
def test_a_chip_placed_by_mistake_comes_off_with_undo(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({3: {"ante": 500}})
    shift.tap("chip.2500")
    shift.tap("seat.2.bet.ante")                 # meant for seat 3
    shift.tap("undo")
    shift.tap("seat.3.bet.ante")
    assert {s.seat: s.bets for s in shift.view.seats if s.bets} == {3: {"ante": 3000}}
    kinds = [r.kind for r in shift.table.journal.records()]
    assert inputs.RemoveChip.name in kinds


def test_a_fold_is_taken_back_until_the_reveal(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}, 2: {"ante": 500}})
    shift.tap("primary")
    shift.deal()
    shift.tap("seat.2.fold")                     # a stray touch on a straight
    shift.tap("seat.2.undo")
    assert decisions(shift) == {1: None, 2: None}
    shift.tap("seat.2.play")
    shift.tap("primary")                         # play the rest
    shift.tap("primary")                         # reveal
    assert decisions(shift) == {1: "play", 2: "play"} and shift.view.state == "reveal"
    assert shift.button("seat.2.undo") is None   # decisions are locked at the reveal


def test_rebet_all_fills_the_empty_seats_and_keeps_a_new_bet(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ONE)
    shift.tap("primary")
    shift.deal()  # the round is played out at the table; the next one opens
    shift.shoe(*[inputs.Decide(seat=n, decision="play") for n in ONE], inputs.Reveal(),
               inputs.Settle(), inputs.NextRound())
    assert shift.view.state == "betting"
    shift.tap("chip.2500")
    shift.tap("seat.2.bet.ante")                 # seat 2 bets more this round
    shift.tap("rebet_all")
    assert {s.seat: s.bets["ante"] for s in shift.view.seats if s.bets} == {
        1: 500, 2: 2500, 3: 500, 4: 500, 5: 500}


# 4 --------------------------------------------------------------------------------------------
def test_no_control_moves_when_alarms_come_and_every_alarm_is_drawn(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch(ONE)
    before = rects(shift)
    shift.shoe(Lid(open=True), Cut(), Alarm(code="E3", text="card not read"))
    kinds = {b.kind for b in shift.view.banners}
    assert {"lid_open", "cut_card", "alarm"} <= kinds
    assert rects(shift) == before                 # a tap lands where it was aimed
    for i in range(len(kinds)):
        assert f"banner.{i}" in shift.frame.regions
        assert [t for t in shift.frame.texts if t.role == f"banner.{i}.msg"]


def test_a_refusal_shows_beside_the_large_button_and_leaves_once_read(dealer_shift):
    shift = dealer_shift()
    # a Pair Plus without an Ante, from the control channel (the screen refuses it itself)
    shift.shoe(inputs.PlaceBet(seat=2, bet="pair_plus", amount=100))
    before = rects(shift)
    shift.tap("primary")                          # No more bets: refused
    assert shift.refused() and shift.view.state == "betting"
    refusal = shift.frame.regions["refusal"]
    assert refusal.colliderect(shift.frame.regions["next_action"])
    assert abs(refusal.right - shift.button("primary").rect.left) < 300  # beside it
    # in words, in the screen's language (the journal keeps its English reason)
    assert shift.texts("refusal.reason") == [Translator("en").refusal(
        shift.refused()[-1].refusal)] == ["Seat 2: Pair Plus needs an Ante at this table"]
    assert {k: r for k, r in rects(shift).items() if k != "refusal"} == before
    shift.step(12.0)                              # read: it leaves by itself
    assert "refusal" not in shift.frame.regions
    shift.tap("primary")                          # refused again: shown again
    assert "refusal" in shift.frame.regions
    shift.tap("seat.2.bet.ante")                  # the next press reads it
    assert "refusal" not in shift.frame.regions


# 5 --------------------------------------------------------------------------------------------
def offered(shift) -> set[str]:
    """The commands (or supervisor pads) an enabled control of the screen offers."""
    out = set()
    for b in shift.frame.buttons:
        if b.enabled:
            if isinstance(b.action, inputs.DealerCommand):
                out.add(b.action.name)
            elif getattr(b.action, "command", None):  # a pad opened for that command
                out.add(b.action.command)
    return out


def test_during_a_misread_the_large_button_offers_the_card_by_hand(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    shift.shoe(CardRead(card="2c", code="2c"), Misread())
    assert shift.view.pause_reason == "misread"
    assert inputs.Resume.name not in offered(shift)
    assert shift.button("primary").action.command == inputs.ManualCard.name  # its pad
    shift.key("return")
    assert shift.frame.notes["pad"] == "card"


def test_while_the_link_is_down_nothing_refused_is_offered(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    shift.shoe(CardRead(card="2c", code="2c"),
               LinkStatus(state=LinkState.DISCONNECTED, detail="unplugged"))
    assert shift.view.state == "paused"
    assert shift.button("primary") is None       # a status: wait for the shoe
    assert offered(shift) <= {inputs.VoidRound.name}  # no Resume, no card by hand
    assert shift.texts("next_card") == ["Dealer, card 1"]  # not "No card due"
    shift.shoe(LinkStatus(state=LinkState.ONLINE, detail="back"))
    assert shift.view.state == "dealing"


def test_manual_card_and_unblock_are_offered_only_when_they_are_the_step(dealer_shift):
    shift = dealer_shift()
    pointless = {inputs.ManualCard.name, inputs.UnblockDeck.name, inputs.Resume.name}
    assert not offered(shift) & pointless
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    assert not offered(shift) & pointless
    shift.shoe(CardRead(card="2c", code="2c"), Misread())   # a misread: the card by hand
    assert offered(shift) & pointless == {inputs.ManualCard.name}
    shift.shoe(CardRead(card="Kh", code="Kh"))               # re-presented
    shift.shoe(LinkStatus(state=LinkState.SILENT, detail="quiet"))  # the link goes silent
    assert shift.view.state == "paused" and not offered(shift) & pointless
    shift.shoe(LinkStatus(state=LinkState.ONLINE, detail="back"))
    shift.deal()
    assert not offered(shift) & pointless


# 6 --------------------------------------------------------------------------------------------
def test_a_wrong_pin_keeps_the_reason_and_says_how_many_tries_are_left(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    shift.tap("tool.void")
    shift.tap("pad.reason.shoe_fault")
    shift.pin_by_touch("9999")                    # a wrong PIN
    assert shift.frame.notes["pad"] == "pin"      # the pad is back, the reason kept
    assert shift.texts("pad.detail") == ["Shoe fault"]
    assert shift.texts("pad.error") == ["Wrong PIN"]     # the refusal in words
    assert "4 attempts left before lockout" in shift.texts("pad.note")
    shift.pin_by_touch(SUP)
    assert shift.view.state == "void" and shift.view.void_reason == "Shoe fault"


def test_a_wrong_pin_keeps_the_card_and_a_lockout_shows_its_time(dealer_shift):
    shift = dealer_shift(lockout_after=2, lockout_seconds=120)
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    shift.shoe(CardRead(card="2c", code="2c"), Misread())
    shift.tap("primary")
    shift.tap("pad.rank.Q")
    shift.tap("pad.suit.s")
    shift.tap("pad.ok")
    shift.pin_by_touch("1111")
    assert shift.texts("pad.detail") == ["Card Q\u2660"]
    shift.pin_by_touch("1111")                    # the second: PIN entry locks
    assert lockout_left(shift) == 120
    assert not shift.button("pad.key.0").enabled  # no digit, no OK while locked
    shift.step(60.0)
    assert 59 <= lockout_left(shift) <= 61        # it counts down
    assert shift.texts("pad.detail") == ["Card Q\u2660"]
    shift.step(61.0)
    assert shift.button("pad.key.0").enabled      # over: the entry is still there
    shift.pin_by_touch(SUP)
    assert shift.view.state == "dealing" and shift.view.seats[0].cards == ("2c",)


def lockout_left(shift) -> int:
    """The seconds the pad says PIN entry stays locked."""
    (text,) = [t for t in shift.texts("pad.error") if t.startswith("PIN entry locked: ")]
    minutes, seconds = text.removeprefix("PIN entry locked: ").split()[0].split(":")
    return int(minutes) * 60 + int(seconds)


# 7 --------------------------------------------------------------------------------------------
def test_a_double_tap_never_reaches_the_next_round_and_the_list_stays(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 500}})
    shift.tap("primary")
    shift.deal()
    for seat in (1, 2, 3):
        shift.tap(f"seat.{seat}.play")
    shift.tap("primary")                          # reveal ...
    shift.tap_at(spot_of_primary(shift), dt=0.07)  # ... and again, 70 ms on
    assert shift.view.state == "reveal"
    shift.tap("primary")                          # settle ...
    spot = spot_of_primary(shift)
    shift.tap_at(spot, dt=0.07)                   # ... and again, 70 ms on
    shift.tap_at(spot, dt=0.07)
    assert shift.view.state == "settled"          # still: the payout list stays
    for seat in (1, 2, 3):
        assert [t for t in shift.frame.texts if t.role == f"seat.{seat}.amount"]
    assert shift.frame.notes["selected_seat"] == 1  # next to pay: seat 1
    assert shift.texts("next_action") == ["Pay seat 1, then tick it paid"]
    shift.tap("seat.1.paid")
    assert shift.frame.notes["selected_seat"] == 2
    shift.tap("seat.2.paid")
    shift.tap("seat.3.paid")
    assert shift.button("primary").action == inputs.NextRound()
    shift.tap("primary")
    assert shift.view.state == "betting"


def spot_of_primary(shift) -> tuple[int, int]:
    """Where the large button is (its place, whatever it shows now)."""
    return (shift.frame.regions.get("primary") or shift.button("primary").rect).center


# 8 --------------------------------------------------------------------------------------------
def test_alarms_stay_in_sight_over_recall_and_meters(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500}})
    shift.tap("primary")
    shift.shoe(LinkStatus(state=LinkState.DISCONNECTED, detail="unplugged"))
    for open_key, mode in (("f7", "recall"), ("f8", "meters")):
        shift.key(open_key)
        assert shift.frame.notes["mode"] == mode
        msgs = [t.text for t in shift.frame.texts if t.role == "banner.0.msg"]
        assert msgs == ["The shoe link is lost."], mode
        shift.key("escape")


def test_meters_show_the_voids_and_what_they_refunded(dealer_shift):
    shift = dealer_shift()
    shift.chips_by_touch({1: {"ante": 500, "pair_plus": 500}})
    shift.tap("primary")
    shift.tap("tool.void")
    shift.tap("pad.reason.other")
    shift.pin_by_touch(SUP)
    shift.key("f8")
    heads = [t.text for t in shift.frame.texts if t.role.startswith("meters.th")]
    assert "Voids" in heads and "Refunded" in heads
    total = next(m for m in shift.view.meters if m.name == "total")
    assert (total.voids, total.refunded) == (2, 1000)
    cells = [t.text for t in shift.frame.texts if t.role == "meters.cell"]
    row = cells[cells.index("Total"):cells.index("Total") + 8]
    assert row[6:] == ["2", "10.00"]
