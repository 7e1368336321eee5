"""What the dealer screen shows: cards, result lines, alarms, meters and words, whole.

Drawn headless at 800x480, 1920x1080 and 1080x1920 in English, French and Ukrainian,
read from the frame's records (texts with their boxes, buttons, regions).
"""

from dataclasses import replace

import pygame
import pytest

from controller.game.events import Alarm, Warning  # noqa: A004 - the shoe's word
from controller.game.views import Banner, BetLine
from display.dealer import DealerScreen
from display.dealer.alarms import ALARM_PAGE_SECONDS
from display.scenarios import build
from display.theme import FontBook

SIZES = [(800, 480), (1920, 1080), (1080, 1920)]
LANGS = ["en", "fr", "uk"]
LONG_HANDS = ("straight_flush", "three_of_a_kind", "high_card", "mini_royal")
STAKE = 2500


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def draw(fonts, view, size, lang, screen="main", now=0.0):
    s = DealerScreen(fonts, lang)
    s.ui.screen = screen
    return s.draw(pygame.Surface(size), view, now)


def busy_seat(seat, i):
    """A seat that bet 25.00 on every bet and won every one (every third seat folded)."""
    fold = i % 3 == 2
    bets = {"ante": STAKE, "pair_plus": STAKE, "six_card_bonus": STAKE}
    bonus = (BetLine("pair_plus", "win", STAKE, 40 * STAKE, 40),
             BetLine("six_card_bonus", "win", STAKE, 1000 * STAKE, 1000))
    if fold:
        results = (BetLine("ante", "lose", STAKE, -STAKE), *bonus)
    else:
        bets["play"] = STAKE
        results = (BetLine("play", "win", STAKE, STAKE, 1),
                   BetLine("ante_bonus", "win", STAKE, 5 * STAKE, 5),
                   BetLine("ante", "win", STAKE, STAKE, 1), *bonus)
    return replace(seat, bets=bets, cards=("As", "Ks", "Qs"), decision="fold" if fold else "play",
                   hand=LONG_HANDS[i % len(LONG_HANDS)], results=results,
                   net=sum(r.net for r in results))


def busy_table(nseats):
    view = build("settled").dealer
    return replace(view, seats=tuple(busy_seat(s, i)
                                     for i, s in enumerate(view.seats[:nseats])))


def seat_problems(frame, view):
    """Per seat: cards not drawn, lines (results, else bets) missing, cut, or under its
    Pay button."""
    out = []
    pay = {b.id: b.rect for b in frame.buttons}
    for seat in view.seats:
        role = f"seat.{seat.seat}"
        shown = {t.role for t in frame.texts}
        missing = [i for i, card in enumerate(seat.cards)
                   if card and f"{role}.card.{i}" not in shown]
        if missing:
            out.append((seat.seat, "cards not drawn", missing))
        amounts = [t for t in frame.texts if t.role == f"{role}.amount" and t.text]
        want = len(seat.results) or len(seat.bets)  # results once settled, else bets
        if len(amounts) != want:
            out.append((seat.seat, "lines", len(amounts), want))
        button = pay.get(f"{role}.paid")
        for t in amounts:
            if t.truncated or not frame.regions[role].contains(t.rect):
                out.append((seat.seat, "cut", t.text))
            if button is not None and button.colliderect(t.rect):
                out.append((seat.seat, "under the Pay button", t.text))
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_seat_shows_its_cards_and_every_result_line(fonts, size, lang):
    """Five result lines and a long hand name on two lines, at every table size: the
    cards still show, and every line is whole and clear of the Pay button."""
    for nseats in range(1, 8):
        view = busy_table(nseats)
        frame = draw(fonts, view, size, lang)
        assert seat_problems(frame, view) == [], f"{nseats} seats {size} {lang}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", ["settled", "void", "reveal-qualify", "outcomes-settled"])
def test_the_scenarios_show_every_seat_whole(fonts, name, size, lang):
    sc = build(name)
    for nseats in range(1, 8):
        view = replace(sc.dealer, seats=sc.dealer.seats[:nseats])
        frame = draw(fonts, view, size, lang)
        assert seat_problems(frame, view) == [], f"{name} {nseats} seats {size} {lang}"


FIVE_ALARMS = (
    Banner("link_lost", "error", "The shoe link is lost.",
           "Check the shoe cable; the round waits"),
    Banner("alarm", "error", "Shoe alarm JAM: feed jam", "Clear the shoe, then resume",
           {"code": "JAM"}),
    Banner("lid_open", "info", "The shoe lid is open.", "Close the lid"),
    Banner("cut_card", "info", "Cut card reached: this pack ends after the round.",
           "Load a new deck after this round"),
    Banner("shoe_warning", "info", "Shoe warning 0x01",
           "Play on; tell the technician after the round", {"code": "0x01"}),
)


def said_over_turns(fonts, view, size, lang, screen, where):
    """What each alarm says over a full turn of the strip's pages, each drawn whole."""
    said = {}
    for turn in range(2 * len(view.banners)):
        frame = draw(fonts, view, size, lang, screen, now=turn * ALARM_PAGE_SECONDS)
        drawn = [i for i in range(len(view.banners)) if f"banner.{i}" in frame.regions]
        for i in drawn:
            texts = {part: [t for t in frame.texts if t.role == f"banner.{i}.{part}"]
                     for part in ("msg", "act")}
            assert all(texts.values()), f"{where}: alarm {i} does not say both lines"
            assert not any(t.truncated for ts in texts.values() for t in ts), where
            assert all(frame.regions["alarms"].contains(t.rect)
                       for ts in texts.values() for t in ts), where
            said[i] = " ".join(t.text for t in texts["act"])
        if len(drawn) < len(view.banners):  # taking turns: the page count says so
            assert [t.text for t in frame.texts if t.role == "alarms.page"], where
    return said


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", [4, 5])
def test_every_alarm_is_drawn_whole_and_none_is_hidden(fonts, n, size, lang):
    """Four and five alarms (a cut card fourth): each says what happened and what to
    do, whole, in the reserved strip (taking turns where the strip cannot hold them
    all); no control moves for them."""
    for name in ("dealing", "meters"):
        sc = build(name)
        view = replace(sc.dealer, banners=FIVE_ALARMS[:n])
        quiet = draw(fonts, replace(sc.dealer, banners=()), size, lang, sc.dealer_screen)
        for turn in range(2):
            frame = draw(fonts, view, size, lang, sc.dealer_screen, now=turn * 4.0)
            assert {b.id: tuple(b.rect) for b in frame.buttons} == \
                {b.id: tuple(b.rect) for b in quiet.buttons}
        said = said_over_turns(fonts, view, size, lang, sc.dealer_screen,
                               f"{name} {n} alarms {size} {lang}")
        assert sorted(said) == list(range(n)), f"{name} {n} alarms {size} {lang}"


@pytest.mark.parametrize("lang", LANGS)
def test_a_misread_while_the_link_is_down_waits_for_the_link_first(fonts, lang):
    """The card cannot be presented again until the shoe link is back: the alarm and
    the next step say so, not "re-present" alone."""
    view = build("misread-paused").dealer
    down = replace(view, link_state="disconnected")
    screen = DealerScreen(fonts, lang)
    frame = screen.draw(pygame.Surface((800, 480)), down, 0.0)
    tr = screen.tr
    acts = " ".join(t.text for t in frame.texts if t.role.endswith(".act"))
    assert tr("banner.misread.act_link") in acts
    assert tr("banner.misread.act") not in acts
    step = [t.text for t in frame.texts if t.role.startswith("next_action") and "." not in t.role]
    assert " ".join(step) == tr("next.shoe_misread")
    online = screen.draw(pygame.Surface((800, 480)), view, 0.0)
    assert tr("banner.misread.act_link") not in " ".join(t.text for t in online.texts)


@pytest.mark.parametrize("lang", LANGS)
def test_a_shoe_alarm_while_no_card_is_due_asks_for_no_resume(fonts, lang):
    """Players deciding: the round is not paused, so there is nothing to resume."""
    view = replace(build("decisions").dealer, banners=(FIVE_ALARMS[1],))
    assert view.pause_reason is None
    screen = DealerScreen(fonts, lang)
    frame = screen.draw(pygame.Surface((1920, 1080)), view, 0.0)
    acts = [t.text for t in frame.texts if t.role == "banner.0.act"]
    assert acts == [screen.tr("banner.alarm.act_no_pause")]


def test_a_shoe_warning_is_a_notice_of_its_own(dealer_shift):
    """A device warning (low battery...) stops nothing: an information notice that says
    its code, never the shoe alarm's "clear the shoe, then resume"; gone next round."""
    shift = dealer_shift()
    shift.shoe(Alarm(code="E3", text="Card Not Read"))
    shift.shoe(Warning(code="0x01"))
    kinds = {b.kind: b for b in shift.view.banners}
    assert kinds["shoe_warning"].severity == "info"
    assert kinds["shoe_warning"].params == {"code": "0x01"}
    assert kinds["alarm"].params == {"code": "E3"}  # the alarm is still shown beside it
    said = " ".join(shift.texts("banner.0.msg") + shift.texts("banner.1.msg"))
    assert "0x01" in said and "E3" in said
    assert not any(b.kind == "shoe_warning" for b in shift.table.views()[1].banners)
