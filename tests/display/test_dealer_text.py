"""What the dealer screen shows: cards, result lines, alarms, meters and words, whole.

Drawn headless at 800x480, 1920x1080 and 1080x1920 in English, French and Ukrainian,
read from the frame's records (texts with their boxes, buttons, regions).
"""

from dataclasses import replace

import pygame
import pytest

from controller.game.views import BetLine
from display.dealer import DealerScreen
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
