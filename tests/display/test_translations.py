"""Nothing left in English on a French or Ukrainian screen.

The check is built from the language tables: the English words are those of the English
labels; a word may stand on a French screen when a French label uses it (``Ante``,
``Bonus``), that is when the label is translated or declared the same as the English by
right (``SAME_AS_ENGLISH`` beside the language's labels).
"""

from __future__ import annotations

import dataclasses
import re

import pygame
import pytest

from display.dealer import DealerScreen
from display.i18n import MESSAGES, SAME_AS_ENGLISH, Translator
from display.player import PlayerScreen
from display.scenarios import SCENARIOS, build

WORD = re.compile(r"[^\W\d_]{2,}")
EN = MESSAGES["en"]
SIZES = [(1920, 1080), (800, 480)]


def _words(text: str) -> set[str]:
    """The words of a text; template fields and device paths (``/dev/card-shoe``) aside."""
    text = re.sub(r"\{\w*\}|\S*/\S*", " ", text)
    return {w.lower() for w in WORD.findall(text)}


ENGLISH = set().union(*(_words(v) for v in EN.values()))


def _allowed(lang: str) -> set[str]:
    table = MESSAGES[lang]
    return set().union(*(_words(v) for k, v in table.items()
                         if v != EN.get(k) or k in SAME_AS_ENGLISH[lang]))


@pytest.mark.parametrize("lang", ["fr", "uk"])
def test_a_label_is_the_english_only_where_the_language_says_so(lang):
    table = MESSAGES[lang]
    same = {k for k, v in table.items() if v == EN.get(k) and WORD.search(v)}
    assert same <= SAME_AS_ENGLISH[lang], sorted(same - SAME_AS_ENGLISH[lang])
    assert not set(EN) - set(table), sorted(set(EN) - set(table))


def _english_left(frame, lang: str) -> list[tuple[str, str]]:
    """Texts with an English word no label of ``lang`` uses (key caps aside: ``Enter`` is
    printed as the keyboard's key reads, the name input scripts use too)."""
    allowed = _allowed(lang)
    return [(t.role, t.text) for t in frame.texts
            if not t.role.endswith(".hint") and (_words(t.text) & ENGLISH) - allowed]


@pytest.mark.parametrize("lang", ["fr", "uk"])
@pytest.mark.parametrize("name", SCENARIOS)
def test_no_english_left_on_either_screen(fonts, name, lang):
    sc = build(name)
    player, dealer = PlayerScreen(fonts, lang), DealerScreen(fonts, lang)
    dealer.ui.screen = sc.dealer_screen
    for size in SIZES:
        for frame in (player.draw(pygame.Surface(size), sc.player),
                      dealer.draw(pygame.Surface(size), sc.dealer)):
            assert not _english_left(frame, lang), (name, size, _english_left(frame, lang))


@pytest.mark.parametrize("lang", ["fr", "uk"])
@pytest.mark.parametrize("pad", ["reason", "card", "pin"])
def test_no_english_left_on_the_pads(fonts, pad, lang):
    screen = DealerScreen(fonts, lang)
    screen.ui.pad = pad
    screen.ui.pad_action = {"reason": "void", "card": "manual_card"}.get(pad, "unblock_deck")
    frame = screen.draw(pygame.Surface((1920, 1080)), build("misread-paused").dealer)
    assert not _english_left(frame, lang), _english_left(frame, lang)


def test_the_check_finds_english_left_in_place():
    """The check itself: an English label on a French screen is caught, French is not."""
    class Frame:
        texts = [type("T", (), {"role": "x", "text": t}) for t in
                 ("connected to /dev/card-shoe", "Ante / Play", "Ante", "Bonus 6 cartes")]
    assert [t for _, t in _english_left(Frame, "fr")] == ["connected to /dev/card-shoe",
                                                            "Ante / Play"]


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_after_a_void_the_next_action_is_not_the_settled_round_s(lang):
    tr = Translator(lang)
    void = tr(tr.next_key("next_round", "void"))
    settled = tr(tr.next_key("next_round", "settled"))
    assert void != settled and "{" not in void + settled


@pytest.mark.parametrize("lang", ["fr", "uk"])
def test_the_shoe_link_s_detail_is_written_in_the_language(lang):
    tr = Translator(lang)
    for text in ("connected to /dev/card-shoe", "connecting to serial:///dev/card-shoe",
                 "lost the shoe on /dev/ttyUSB0: read failed: [Errno 5] Input/output error",
                 "no heartbeat from the shoe on /dev/ttyUSB0 for 3 s (port open): shoe hung "
                 "or unpowered?", "shoe link stopped"):
        out = tr.link_detail(text)
        assert out != text and not (_words(out) & ENGLISH) - _allowed(lang), out
    assert tr.link_detail("something new") == "something new"  # shown as it is


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_every_banner_the_players_see_is_worded_for_them(fonts, lang):
    """The player screen's banners are the players' words in the screen's language.

    Never the dealer's message (a blocked deck's card, the journal), an untranslated
    English line, or a template field left unfilled: the table sends players a banner's
    kind without the dealer's parameters.
    """
    from controller.game.table_views import _PLAYER_BANNERS
    from controller.game.views import Banner

    tr = Translator(lang)
    base = build("misread-paused").player
    screen = PlayerScreen(fonts, lang)
    for kind in sorted(_PLAYER_BANNERS - {"void"}):
        view = dataclasses.replace(base, banners=(Banner(kind, "warning",
                                                         "The round waits for the dealer."),))
        frame = screen.draw(pygame.Surface((1920, 1080)), view)
        shown = [t.text for t in frame.texts if t.role.startswith("banner.")
                 and t.role != "banner.icon"]
        assert shown == [tr(f"banner.{kind}.player")], (kind, shown)
        assert "{" not in shown[0] and shown[0] != tr(f"banner.{kind}.msg"), (kind, shown)
        if lang != "en":
            assert not _english_left(frame, lang), (kind, _english_left(frame, lang))
