"""The screens of a table taking bets as outcomes: marks by touch, outcomes in words.

The views are the real table's (the outcome rounds of the scripted shift); touches and
keys are real pygame events handled by the real dealer screen.
"""

from __future__ import annotations

from dataclasses import replace

import pygame
import pytest

from controller.game import inputs as C
from display.dealer import DealerScreen
from display.dealer.actions import PlayRest
from display.player import PlayerScreen
from display.scenarios import build
from display.theme import FontBook

SIZE = (1280, 800)


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def draw(fonts, scenario: str, size=SIZE, lang="en", screen=None):
    sc = build(scenario)
    dealer = screen or DealerScreen(fonts, lang)
    dealer.ui.screen = sc.dealer_screen
    frame = dealer.draw(pygame.Surface(size), sc.dealer)
    return dealer, frame, sc.dealer


def touch(dealer, frame, view, button_id: str) -> list:
    rect = frame.button(button_id).rect
    w, h = frame.size
    event = pygame.event.Event(pygame.FINGERDOWN, x=rect.centerx / w, y=rect.centery / h,
                               touch_id=1, finger_id=0, dx=0.0, dy=0.0, pressure=1.0)
    return dealer.handle(event, frame, view)


def key(dealer, frame, view, name: str, shift: bool = False) -> list:
    event = pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name),
                               mod=pygame.KMOD_LSHIFT if shift else 0)
    return dealer.handle(event, frame, view)


def answered(dealer, view):
    """The table answered the command posted: its view moves on, the screen draws it."""
    view = replace(view, version=view.version + 1)
    return dealer.draw(pygame.Surface(SIZE), view), view


def test_one_touch_marks_a_bet_and_another_takes_the_mark_off(fonts):
    dealer, frame, view = draw(fonts, "outcomes-betting")
    assert view.bet_entry == "outcomes" and view.seats[0].bets.get("ante")
    assert touch(dealer, frame, view, "seat.4.bet.ante") == [C.MarkBet(seat=4, bet="ante")]
    frame, view = answered(dealer, view)
    assert touch(dealer, frame, view, "seat.1.bet.ante") == [
        C.MarkBet(seat=1, bet="ante", on=False)]
    # no chips in outcome mode: Rebet all and All play in their place
    assert frame.button("rebet_all") is not None and frame.button("all_play") is not None
    assert not [b for b in frame.buttons if b.id.startswith("chip.")]
    # the round before was dealt in amounts: amounts are no marks, so nothing to rebet
    assert not frame.button("rebet_all").enabled
    assert key(dealer, frame, view, "b", shift=True) == []


def test_keys_mark_the_selected_seats_bets(fonts):
    dealer, frame, view = draw(fonts, "outcomes-betting")
    assert key(dealer, frame, view, "2") == []
    frame = dealer.draw(pygame.Surface(SIZE), view)            # the screen shows seat 2
    assert key(dealer, frame, view, "p") == [C.MarkBet(seat=2, bet="pair_plus")]
    frame, view = answered(dealer, view)
    assert key(dealer, frame, view, "x") == [C.MarkBet(seat=2, bet="six_card_bonus", on=False)]


def test_all_play_decides_every_seat_still_to_decide(fonts):
    dealer, frame, view = draw(fonts, "outcomes-decisions")
    want = [C.Decide(seat=s, decision="play") for s in (1, 2, 3, 6)]   # seat 5 folded
    assert touch(dealer, frame, view, "all_play") == want
    # posted, not yet in the view: a second press does not post them again
    assert touch(dealer, frame, view, "all_play") == []
    dealer, frame, view = draw(fonts, "outcomes-decisions")
    assert key(dealer, frame, view, "y", shift=True) == want
    # the step: the rest play and the dealer's cards turn, one touch
    assert frame.button("primary").action == PlayRest(reveal=True)
    betting = draw(fonts, "outcomes-betting")[1]
    assert not betting.button("all_play").enabled                   # nothing to decide


@pytest.mark.parametrize(("size", "wins"), [
    ((800, 480), {"30:1", "4:1", "7:1", "1:1"}),       # a narrow screen: as its paytables
    ((1920, 1080), {"30 to 1", "4 to 1", "7 to 1", "1 to 1"}),  # 7 seats: no room for "pays"
    ((1080, 1920), {"pays 30 to 1", "pays 4 to 1", "pays 7 to 1", "pays 1 to 1"})])
def test_the_payout_list_gives_outcomes_never_amounts(fonts, size, wins):
    _, frame, view = draw(fonts, "outcomes-settled", size)
    # each seat's results in pay order, in the seat, with the button that ticks it paid
    pay = [t.text for s in view.seats for t in frame.texts if t.role == f"seat.{s.seat}.amount"]
    assert len(pay) == len(view.payouts)
    # round 12 of the shift (live rules): seat 1's trips pay 30 to 1 on the Pair Plus and
    # 4 to 1 on the Ante Bonus, seat 2's 6 Card Bonus (three kings) 7 to 1; seat 3 loses
    assert wins | {"loses"} <= set(pay)
    money = [t.text for t in frame.texts if ".00" in t.text]
    assert money == []
    verbs = {b.id: b.label for b in frame.buttons if b.id.endswith(".paid")}
    assert verbs["seat.1.paid"] == "Pay" and verbs["seat.3.paid"] == "Take"
    assert not [t for t in frame.texts if t.role.endswith(".paid.sub")]   # no amount


def test_the_player_screen_gives_outcomes_never_amounts(fonts):
    sc = build("outcomes-settled")
    frame = PlayerScreen(fonts, "en").draw(pygame.Surface((1920, 1080)), sc.player)
    # seven seats at 33 px: each bet by its short name, its win as the paytables write it
    seat1 = [t.text for t in frame.texts_in("seat.1.results")]
    assert seat1 == ["P", "1 to 1", "AB", "4 to 1", "A", "1 to 1", "PP", "30 to 1"]
    assert [t.text for t in frame.texts_in("seat.3.net")] == ["LOSE"]
    seats = [t.text for s in sc.player.seats for t in frame.texts_in(f"seat.{s.seat}")]
    assert not [t for t in seats if ".00" in t]
    small = PlayerScreen(fonts, "fr").draw(pygame.Surface((800, 480)), sc.player)
    assert "30:1" in [t.text for t in small.texts_in("seat.1.results")]   # as its paytables


def test_a_void_returns_the_marked_bets(fonts):
    sc = build("outcomes-void")
    frame = PlayerScreen(fonts, "en").draw(pygame.Surface((1920, 1080)), sc.player)
    assert [t.text for t in frame.texts if t.role == "banner.act"] == [
        "Seats 1, 2, 3, 5, 6: every bet returned"]
    assert [t.text for t in frame.texts_in("seat.6.results")] == [  # names above, in full
        "Ante", "returned", "Pair Plus", "returned", "6 Card Bonus", "returned"]


def test_recall_and_meters_name_the_outcome_rounds(fonts):
    _, frame, view = draw(fonts, "outcomes-recall")
    head = [t.text for t in frame.texts if t.role == "recall.head"]
    assert head == ["Settled"]
    assert [t.text for t in frame.texts if t.role == "recall.mode"] == ["bets as outcomes"]
    assert "Round 12 " in [t.text for t in frame.texts if t.role == "recall.title"][0]
    bets = [t.text for t in frame.texts if t.role == "recall.bets"]
    assert bets[0] == "P 1 to 1  AB 4 to 1  A 1 to 1  PP 30 to 1"  # as the screen's seats
    dealer, frame, view = draw(fonts, "outcomes-meters")        # the Outcomes tab
    assert frame.notes["mode"] == "outcomes" and frame.button("outcomes").enabled
    cells = [t.text for t in frame.texts if t.role == "meters.outcomes.cell"]
    assert cells[:3] == ["Rounds", "1 settled", "1 voided"]          # blanks draw nothing
    assert "Three of a kind: 1, Pair: 1" in cells             # Pair Plus wins by line
    assert not [t for t in frame.texts if t.role == "meters.cell"]
    # the money meters, a tab away, are the rounds dealt in amounts, unchanged (8 columns)
    touch(dealer, frame, view, "meters")
    frame = dealer.draw(pygame.Surface(SIZE), view)
    assert len([t for t in frame.texts if t.role == "meters.cell"]) == 8 * len(view.meters)
    assert not [t for t in frame.texts if t.role == "meters.outcomes.cell"]


def test_a_win_too_long_for_its_seat_reads_as_its_paytable_line(fonts):
    """Seven Ukrainian seats at 1920x1080 have no room for "виплата 30 до 1" at 33 px.

    The win then reads as the paytables beside it write it ("30 до 1", trips on the
    Pair Plus), each bet by its short name, rather than shrink under the minimum.
    """
    sc = build("outcomes-settled")
    frame = PlayerScreen(fonts, "uk").draw(pygame.Surface((1920, 1080)), sc.player)
    seat1 = frame.texts_in("seat.1.results")
    assert [t.text for t in seat1] == ["Г", "1 до 1", "БА", "4 до 1", "А", "1 до 1", "ПП",
                                       "30 до 1"]
    assert min(t.size for t in seat1) >= 33
    assert "30 до 1" in [t.text for t in frame.texts if t.role == "pt.value"]
