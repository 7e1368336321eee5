"""The screens of a table taking bets as outcomes: marks by touch, outcomes in words.

The views are the real table's (the outcome rounds of the scripted shift); touches and
keys are real pygame events handled by the real dealer screen.
"""

from __future__ import annotations

import pygame
import pytest

from controller.game import inputs as C
from display.dealer import DealerScreen
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


def test_one_touch_marks_a_bet_and_another_takes_the_mark_off(fonts):
    dealer, frame, view = draw(fonts, "outcomes-betting")
    assert view.bet_entry == "outcomes" and view.seats[0].bets.get("ante")
    assert touch(dealer, frame, view, "seat.4.bet.ante") == [C.MarkBet(seat=4, bet="ante")]
    assert touch(dealer, frame, view, "seat.1.bet.ante") == [
        C.MarkBet(seat=1, bet="ante", on=False)]
    # no chips in outcome mode: Rebet all and All play in their place
    assert frame.button("rebet_all") is not None and frame.button("all_play") is not None
    assert not [b for b in frame.buttons if b.id.startswith("chip.")]
    assert key(dealer, frame, view, "b", shift=True) == [C.Rebet(seat=0)]


def test_keys_mark_the_selected_seats_bets(fonts):
    dealer, frame, view = draw(fonts, "outcomes-betting")
    assert key(dealer, frame, view, "2") == []
    frame = dealer.draw(pygame.Surface(SIZE), view)            # the screen shows seat 2
    assert key(dealer, frame, view, "p") == [C.MarkBet(seat=2, bet="pair_plus")]
    assert key(dealer, frame, view, "x") == [C.MarkBet(seat=2, bet="six_card_bonus", on=False)]


def test_all_play_decides_every_seat_still_to_decide(fonts):
    dealer, frame, view = draw(fonts, "outcomes-decisions")
    want = [C.Decide(seat=s, decision="play") for s in (1, 2, 3, 6)]   # seat 5 folded
    assert touch(dealer, frame, view, "all_play") == want
    assert key(dealer, frame, view, "y", shift=True) == want
    betting = draw(fonts, "outcomes-betting")[1]
    assert not betting.button("all_play").enabled                   # nothing to decide


@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)])
def test_the_payout_list_gives_outcomes_never_amounts(fonts, size):
    _, frame, view = draw(fonts, "outcomes-settled", size)
    pay = [t.text for t in frame.texts if t.role == "payouts.amount"]
    assert len(pay) == len(view.payouts)
    # round 12 of the shift (live rules): seat 1's trips pay 30 to 1 on the Pair Plus and
    # 4 to 1 on the Ante Bonus, seat 2's 6 Card Bonus (three kings) 7 to 1; seat 3 loses
    assert {"pays 30 to 1", "pays 4 to 1", "pays 7 to 1", "pays 1 to 1", "loses"} <= set(pay)
    money = [t.text for t in frame.texts if ".00" in t.text]
    assert money == []
    assert [t.text for t in frame.texts if t.role == "payouts.title"] == [
        "Outcomes in pay order"]
    nets = {t.role: t.text for t in frame.texts if t.role.endswith(".net")}
    assert nets["seat.1.net"] == "PAY" and nets["seat.3.net"] == "TAKE"


def test_the_player_screen_gives_outcomes_never_amounts(fonts):
    sc = build("outcomes-settled")
    frame = PlayerScreen(fonts, "en").draw(pygame.Surface((1920, 1080)), sc.player)
    seat1 = [t.text for t in frame.texts_in("seat.1.results")]
    assert seat1 == ["Play", "pays 1 to 1", "Ante Bonus", "pays 4 to 1", "Ante",
                     "pays 1 to 1", "Pair Plus", "pays 30 to 1"]
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
    assert [t.text for t in frame.texts_in("seat.6.results")] == [
        "Ante", "returned", "Pair Plus", "returned", "6 Card Bonus", "returned"]


def test_recall_and_meters_name_the_outcome_rounds(fonts):
    _, frame, view = draw(fonts, "outcomes-recall")
    head = [t.text for t in frame.texts if t.role == "recall.head"]
    assert head == ["Round 12 \u2022 Settled \u2022 bets as outcomes"]
    bets = [t.text for t in frame.texts if t.role == "recall.bets"]
    assert bets[0] == "P 1:1  AB 4:1  A 1:1  PP 30:1"
    _, frame, view = draw(fonts, "outcomes-meters")
    cells = [t.text for t in frame.texts if t.role == "meters.outcomes.cell"]
    assert cells[:3] == ["Rounds", "1 settled", "1 voided"]          # blanks draw nothing
    assert "Three of a kind: 1, Pair: 1" in cells             # Pair Plus wins by line
    # the money meters beside them are the rounds dealt in amounts, unchanged
    assert len([t for t in frame.texts if t.role == "meters.cell"]) == 6 * len(view.meters)


def test_a_win_too_long_for_its_seat_reads_as_its_paytable_line(fonts):
    """Seven Ukrainian seats at 1920x1080 have no room for "виплата 30 до 1" at 28 px.

    The win then reads as the paytables beside it write it ("30 до 1", trips on the
    Pair Plus) rather than shrink under the minimum; English keeps its verb (above).
    """
    sc = build("outcomes-settled")
    frame = PlayerScreen(fonts, "uk").draw(pygame.Surface((1920, 1080)), sc.player)
    seat1 = frame.texts_in("seat.1.results")
    assert [t.text for t in seat1] == ["Гра", "1 до 1", "Анте бонус", "4 до 1", "Анте",
                                       "1 до 1", "Пара Плюс", "30 до 1"]
    assert min(t.size for t in seat1 if t.role == "seat.1.amount") >= 28
    assert "30 до 1" in [t.text for t in frame.texts if t.role == "pt.value"]
