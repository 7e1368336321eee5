"""Every text either screen draws, in every scenario, language and size, read as drawn.

The frames the painter records (:class:`display.painter.Frame`: each text with its role
and pixel size) of every scenario, on the player screen and on the dealer's (its three
supervisor pads open too), in English, French and Ukrainian at 800x480 and 1920x1080:

- no card is written by its code (``6c``): a card reads as the screens draw it (``6♣``);
- no French or Ukrainian text is the English one drawn in the same place, unless it has
  no word (numbers, amounts, cards, a key's letter) or its label is declared the same as
  the English by right (``SAME_AS_ENGLISH``: ``Ante``, ``OK``);
- no text on the dealer screen is smaller than its floor: 14 px at 800x480 (a 7-inch
  panel at arm's length) and 18 px at 1920x1080;
- no text on the player screen, on any page its paytables turn through, is smaller than
  3 % of the screen's shorter side (15 px at 800x480, 33 px at 1920x1080: read from the
  seats, 2 m away) or cut; the dealer's qualification ("Le croupier ne se qualifie pas")
  keeps that size in every language, on two lines if need be. (The player screen's sizes
  by kind of text are tests/display/test_player_sizes.py's.)
"""

from __future__ import annotations

import re
from collections import defaultdict

import pygame
import pytest
from player_pages import player_pages

from display.dealer import DealerScreen
from display.i18n import MESSAGES, SAME_AS_ENGLISH
from display.player import PlayerScreen
from display.scenarios import SCENARIOS, build

LANGS = ("en", "fr", "uk")
SIZES = ((800, 480), (1920, 1080))
PADS = {"reason": "void", "card": "manual_card", "pin": "unblock_deck"}
RAW_CARD = re.compile(r"(?<![^\W_])(?:[2-9TJQKA]|10)[cdhs](?![^\W_])")
"""A card's code as the shoe and the journal write it (``6c``, ``Th``, ``10h``)."""
DEALER_FLOOR = {(800, 480): 14, (1920, 1080): 18}
PLAYER_FLOOR = {(800, 480): 15, (1920, 1080): 33}
"""3 % of the shorter side, rounded up."""


def _draw_all(fonts):
    """(screen, scenario or pad, size, lang) -> the frame drawn."""
    out = {}
    for lang in LANGS:
        player, dealer = PlayerScreen(fonts, lang), DealerScreen(fonts, lang)
        for name in SCENARIOS:
            sc = build(name)
            dealer.ui.screen = sc.dealer_screen
            for size in SIZES:
                out["player", name, size, lang] = player.draw(pygame.Surface(size), sc.player)
                out["dealer", name, size, lang] = dealer.draw(pygame.Surface(size), sc.dealer)
        view = build("deck-blocked").dealer
        for pad, action in PADS.items():
            screen = DealerScreen(fonts, lang)
            screen.ui.pad, screen.ui.pad_action, screen.ui.pin = pad, action, "12"
            for size in SIZES:
                out["dealer", f"pad {pad}", size, lang] = screen.draw(pygame.Surface(size), view)
    return out


@pytest.fixture(scope="module")
def frames(fonts):
    return _draw_all(fonts)


@pytest.fixture(scope="module")
def turned_pages(fonts):
    """(scenario, size, lang) -> the player screen's frames at its paytables' later pages."""
    out = {}
    for lang in LANGS:
        screen = PlayerScreen(fonts, lang)
        for name in SCENARIOS:
            for size in SIZES:
                pages = player_pages(screen, build(name).player, size)
                out[name, size, lang] = [frame for _, frame in pages[1:]]
    return out


def _words(text: str) -> set[str]:
    """A text's words: its tokens of letters alone (``TCP-03``, ``25.00``, ``F1`` are none)."""
    tokens = (t.strip(".,:;!?()«»\"'") for t in text.split())
    return {t for t in tokens if len(t) > 1 and t.isalpha()}


def _same_by_right(lang: str) -> set[str]:
    """The words of the labels a language declares the same as the English."""
    return set().union(*(_words(MESSAGES[lang][k]) for k in SAME_AS_ENGLISH[lang]))


def raw_cards(frame) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in frame.texts if RAW_CARD.search(t.text)]


def english_left(frame, english, lang: str) -> list[tuple[str, str]]:
    """Texts drawn where the English screen draws the very same words."""
    same = _same_by_right(lang)
    en_by_role = defaultdict(set)
    for t in english.texts:
        en_by_role[t.role].add(t.text)
    return [(t.role, t.text) for t in frame.texts
            if t.text in en_by_role[t.role] and _words(t.text) - same]


def too_small(frame, floor: int) -> list[tuple[str, str, int]]:
    return [(t.role, t.text, t.size) for t in frame.texts if t.text and t.size < floor]


def unreadable(frame, floor: int) -> list[tuple[str, str, int]]:
    """Texts under ``floor`` or cut (too long for their box at the size they were given)."""
    return too_small(frame, floor) + [(t.role, t.text, t.size) for t in frame.texts
                                      if t.text and t.truncated]


def test_cards_are_drawn_with_their_suit_symbol(frames):
    found = {k: raw_cards(f) for k, f in frames.items()}
    found = {k: v for k, v in found.items() if v}
    assert not found, found
    # the walk reaches the alarm that names a card: a card read twice
    texts = [t.text for t in frames["dealer", "deck-blocked", (1920, 1080), "en"].texts]
    assert any("6\u2663" in t for t in texts), texts


@pytest.mark.parametrize("lang", ["fr", "uk"])
def test_nothing_is_left_in_english(frames, lang):
    found = {}
    for (screen, name, size, lg), frame in frames.items():
        if lg == lang:
            left = english_left(frame, frames[screen, name, size, "en"], lang)
            if left:
                found[screen, name, size] = left
    assert not found, found


def test_no_text_under_the_dealer_screen_s_floor(frames):
    found = {}
    for (screen, name, size, lang), frame in frames.items():
        small = screen == "dealer" and too_small(frame, DEALER_FLOOR[size])
        if small:
            found[screen, name, size, lang] = small
    assert not found, found


def test_no_text_under_the_player_screen_s_floor(frames, turned_pages):
    found = {}
    for (screen, name, size, lang), frame in frames.items():
        if screen == "player":
            for page, f in enumerate([frame, *turned_pages[name, size, lang]]):
                bad = unreadable(f, PLAYER_FLOOR[size])
                if bad:
                    found[name, size, lang, page] = bad
    assert not found, found


@pytest.mark.parametrize("name", ["reveal-qualify", "reveal-no-qualify", "settled"])
def test_the_qualifying_line_keeps_the_floor_in_every_language(frames, name):
    for lang in LANGS:
        for size in SIZES:
            frame = frames["player", name, size, lang]
            line = [t for t in frame.texts if t.role.startswith("dealer.qualifies")]
            key = "dealer.qualifies" if build(name).player.dealer_qualifies else \
                "dealer.not_qualify"
            assert " ".join(t.text for t in line) == MESSAGES[lang][key], (lang, size)
            assert all(t.size >= PLAYER_FLOOR[size] and not t.truncated for t in line), (
                name, lang, size, [(t.text, t.size, t.truncated) for t in line])


def test_the_recent_results_marks_are_explained(frames):
    """A legend under "Recent results" says what ✓ and ✗ mean, in the screen's language."""
    for lang in LANGS:
        for size in SIZES:
            frame = frames["player", "settled", size, lang]
            marks = {t.text[-1] for t in frame.texts if t.role == "history.result"}
            assert marks == {"\u2713", "\u2717"}, (lang, size, marks)  # the scene has both
            legend = [t.text for t in frame.texts if t.role == "history.legend"]
            assert legend == [MESSAGES[lang]["player.recent_marks"]], (lang, size)
            assert "\u2713" in legend[0] and "\u2717" in legend[0]


def test_the_checks_find_what_they_look_for():
    """Each check on a made-up frame: a card code, an English word, a small text."""
    def text(role, words, size=40):
        return type("T", (), {"role": role, "text": words, "size": size})

    def frame(*texts):
        return type("F", (), {"texts": list(texts)})

    assert raw_cards(frame(text("a", "Deck blocked: card 6c"), text("b", "Carte 10h"),
                           text("c", "6\u2663 Ace"), text("d", "TCP-03"))) == [
        ("a", "Deck blocked: card 6c"), ("b", "Carte 10h")]
    en = frame(text("key", "Enter"), text("n", "25.00"), text("bet", "Ante"),
               text("t", "Table TCP-03"))
    fr = frame(text("key", "Enter"), text("n", "25.00"), text("bet", "Ante"),
               text("t", "Table TCP-03"))
    assert english_left(fr, en, "fr") == [("key", "Enter")]
    assert too_small(frame(text("a", "x", 14), text("b", "y", 15)), 15) == [("a", "x", 14)]
    cut = text("c", "z", 20)
    cut.truncated = True
    whole = text("d", "w", 20)
    whole.truncated = False
    assert unreadable(frame(cut, whole), 15) == [("c", "z", 20)]


@pytest.mark.parametrize("lang", LANGS)
def test_a_misread_s_step_says_what_to_do_in_every_language(frames, lang):
    """Not only "handle the alarm below": the card again, or a supervisor enters it."""
    for size in SIZES:
        frame = frames["dealer", "misread-paused", size, lang]
        step = " ".join(t.text for t in frame.texts if t.role.startswith("next_action"))
        assert step and MESSAGES[lang]["next.resolve"] not in step, (size, step)
        assert len(step) > len(MESSAGES[lang]["next.resolve"]), (size, step)
