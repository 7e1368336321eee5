"""How the dealer screen's seats name the bets: whole where there is room, one style.

Drawn headless from the scripted scenarios (a table of seven seats), read from the
frame's records: every bet name a seat writes (its bet spots while betting, its bet and
result lines after) is the language's full name at 1920x1080, and at every size one
style, full or short, for every seat in every state of the round.
"""

from dataclasses import replace

import pygame
import pytest

from display.dealer import DealerScreen
from display.i18n import Translator
from display.scenarios import build
from display.theme import FontBook

LANGS = ["en", "fr", "uk"]
BETS = ("ante", "play", "ante_bonus", "pair_plus", "six_card_bonus")
SHOWN = ("betting", "decisions", "reveal-qualify", "settled", "void", "outcomes-betting",
         "outcomes-settled")
"""Scenarios whose seats write bet names."""


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def bet_words(fonts, name, size, lang, nseats=7):
    """The bet names the seats write in one scenario (``seat.N.bet`` texts)."""
    sc = build(name)
    view = replace(sc.dealer, seats=sc.dealer.seats[:nseats])
    frame = DealerScreen(fonts, lang).draw(pygame.Surface(size), view, 0.0)
    words = [t.text for t in frame.texts if t.role.startswith("seat.")
             and t.role.endswith(".bet")]
    assert words, f"{name} {size} {lang}: no bet named"
    return words


@pytest.mark.parametrize("lang", LANGS)
def test_seven_seats_at_1080p_write_every_bet_name_whole(fonts, lang):
    """Ante, Play, Ante Bonus, Pair Plus, 6 Card Bonus (or the language's words), never
    A / PP / 6CB: a seven-seat column at 1920x1080 has room once the lines shrink."""
    tr = Translator(lang)
    full = {tr.bet(b) for b in BETS}
    for name in SHOWN:
        words = bet_words(fonts, name, (1920, 1080), lang)
        assert set(words) <= full, f"{name} {lang}: {sorted(set(words) - full)}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_one_naming_style_in_every_seat_and_state(fonts, size, lang):
    """Full names or short ones, the same in every scenario for a table's seats: the
    dealer never reads "Pair Plus" on the betting screen and "PP" after the deal."""
    tr = Translator(lang)
    full = {tr.bet(b) for b in BETS}
    short = {tr(f"short.{b}") for b in BETS}
    for nseats in range(1, 8):
        said = {w for name in SHOWN for w in bet_words(fonts, name, size, lang, nseats)}
        assert said <= full or said <= short, f"{nseats} seats {size} {lang}: {sorted(said)}"


def dealer_row(fonts, view, lang, size=(800, 480)):
    frame = DealerScreen(fonts, lang).draw(pygame.Surface(size), view, 0.0)
    return " ".join(t.text for t in frame.texts if t.role in ("dealer.qualifier",
                                                               "dealer.qualifier2"))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["dealing", "decisions"])
def test_before_the_reveal_the_dealer_row_says_the_rule_not_a_result(fonts, name, lang):
    """The dealer has no cards yet: the row words the rule ("Dealer needs Q-high or
    better to qualify"), never the verdict's words, and names the table's own rule."""
    tr = Translator(lang)
    view = build(name).dealer
    assert view.dealer_qualifies is None
    said = dealer_row(fonts, view, lang)
    assert said and tr("dealer.qualifies") not in said, said
    if lang == "en":
        assert said == "Dealer needs Q-high or better to qualify"
    jack = replace(view, paytables=replace(view.paytables, qualifier="J-high"))
    other = dealer_row(fonts, jack, lang)
    assert "J-high" in other and other != said


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", [(800, 480), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_large_chip_says_its_value_short_and_exact(fonts, size, lang):
    """Chips of 1000 and 25000 in a chip's small face: the language's compact notation
    (CLDR, by Babel: 1K, 1 k, 1 тис.), at the chip's text size, never cut; a value the
    notation would round (1,234) is written exact."""
    from babel.numbers import format_compact_decimal
    view = replace(build("betting").dealer, chip_values=(100, 10000, 100000, 2500000, 123400))
    frame = DealerScreen(fonts, lang).draw(pygame.Surface(size), view, 0.0)
    def chip(value):  # its words, on one line or two (a number over its unit)
        texts = [t for t in frame.texts if t.role in (f"chip.{value}", f"chip.{value}2")]
        assert texts and not any(t.truncated for t in texts), (value, size, lang)
        assert min(t.size for t in texts) >= (14 if size == (800, 480) else 18)
        return "".join("".join(t.text.split()) for t in texts)

    for minor, major in ((100000, 1000), (2500000, 25000)):
        assert chip(minor) == "".join(format_compact_decimal(major, locale=lang).split())
    assert chip(100) == "1"
    if size == (1920, 1080):  # 1,234 would round in compact notation: written exact
        assert chip(123400) == "".join(Translator(lang).money(123400, whole=True).split())
