"""What the dealer screen says and how it fits: meters, the lockout's time, the large
button's status, refusals, plurals and the screen's smallest size.

Drawn headless from the scenarios' views and read from the frame's records.
"""

from dataclasses import replace

import pygame
import pytest

from display.dealer import DealerScreen
from display.scenarios import build
from display.theme import FontBook

LANGS = ["en", "fr", "uk"]


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def said(frame, prefix):
    """The texts drawn with a role starting with ``prefix``, joined."""
    return " ".join(t.text for t in frame.texts if t.role.startswith(prefix))


def test_a_lockout_counts_down_from_the_tables_milliseconds(fonts):
    """The view is published half a second into a 5-minute lockout; 61 s into it the
    pad says 3:59 left (4:00 when whole seconds are rounded up twice)."""
    view = replace(build("decisions").dealer, pin_locked_ms=5 * 60_000 - 500, version=77)
    screen = DealerScreen(fonts, "en")
    screen.ui.pad, screen.ui.pad_action = "pin", "void"
    screen.draw(pygame.Surface((800, 480)), view, 100.0)  # first seen 0.5 s in
    frame = screen.draw(pygame.Surface((800, 480)), view, 100.0 + 60.5)  # 61 s in
    assert said(frame, "pad.error") == screen.tr("pad.locked", time="3:59")


SIZES = [(800, 480), (1920, 1080), (1080, 1920)]


def seven_seat_meters():
    """The meters scenario's view with a meter row for each of 7 seats."""
    view = build("meters").dealer
    rows = {m.name: m for m in view.meters}
    seats = [rows.get(f"seat {n}") or replace(rows["seat 1"], name=f"seat {n}")
             for n in range(1, 8)]
    bets = [m for m in view.meters if not m.name.startswith("seat ") and m.name != "total"]
    return replace(view, meters=(*bets, *seats, rows["total"]), rounds_voided=3)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_meters_of_seven_seats_fit_with_the_voids(fonts, size, lang):
    """Thirteen meter rows (five bets, seven seats, the total) inside the meters panel,
    none cut, no text under the smallest size; the voids said in words."""
    view = seven_seat_meters()
    screen = DealerScreen(fonts, lang)
    screen.ui.screen = "meters"
    frame = screen.draw(pygame.Surface(size), view, 0.0)
    box = frame.regions["meters"]
    cells = [t for t in frame.texts if t.role in ("meters.cell", "meters.th", "meters.voids")]
    names = {t.text for t in frame.texts if t.role == "meters.cell"}
    assert {screen.tr("word.seat_n", seat=n) for n in range(1, 8)} <= names
    assert screen.tr("word.total") in names
    small = 14 if size == (800, 480) else 18
    bad = [(t.role, t.text) for t in cells
           if t.truncated or not box.contains(t.rect) or t.size < small]
    assert bad == []
    assert (view.meters[-1].voids, view.meters[-1].refunded) == (10, 22500)
    assert said(frame, "meters.voids") == VOIDS_SAID[lang]


VOIDS_SAID = {"en": "10 bets voided, 225.00 refunded \u00b7 3 rounds voided",
              "fr": "10 mises annulées, 225,00 rendus \u00b7 3 coups annulés",
              "uk": "анульовано 10 ставок, повернено 225,00 \u00b7 анульовано 3 гри"}
"""The voids line: the count of bets with its noun, never bare beside the amount
(``10, 225.00`` reads as one number)."""


@pytest.mark.parametrize(("lang", "n", "word"), [
    ("en", 1, "1 bet voided"), ("fr", 1, "1 mise annulée"), ("uk", 1, "анульовано 1 ставку"),
    ("uk", 3, "анульовано 3 ставки"), ("uk", 11, "анульовано 11 ставок")])
def test_bets_voided_take_the_languages_plural(lang, n, word):
    from display.i18n import Translator
    assert Translator(lang).plural("meter.bets_voided", n) == word


@pytest.mark.parametrize(("lang", "n", "word"), [
    ("en", 1, "1 round voided"), ("en", 2, "2 rounds voided"),
    ("fr", 1, "1 coup annulé"), ("fr", 2, "2 coups annulés"),
    ("uk", 1, "анульовано 1 гру"), ("uk", 3, "анульовано 3 гри"),
    ("uk", 5, "анульовано 5 ігор"), ("uk", 21, "анульовано 21 гру")])
def test_counts_take_the_languages_plural(lang, n, word):
    """Never "1 rounds": the form follows the language's plural rules."""
    from display.i18n import Translator
    assert Translator(lang).plural("meter.rounds_voided", n) == word


def primary_and_next(screen, view, size=(800, 480)):
    frame = screen.draw(pygame.Surface(size), view, 0.0)
    return frame, said(frame, "next_action"), frame.button("primary")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["settled", "outcomes-settled", "void", "outcomes-void"])
def test_paying_the_next_step_and_the_large_button_say_the_same_step(fonts, name, lang):
    """Seat by seat the next step names the seat the large button's status names, with
    the same verb; once every seat is ticked both say: open the next round (the next
    step no longer asks to pay or return)."""
    from display.dealer.state import payout_seats, seat_verb, seat_view
    view = build(name).dealer
    screen = DealerScreen(fonts, lang)
    tr = screen.tr
    for seat in payout_seats(view):
        frame, text, button = primary_and_next(screen, view)
        verb = seat_verb(view, seat_view(view, seat))
        assert button is None  # a status while a seat is to pay
        assert said(frame, "primary.status") == tr(f"status.{verb}", seat=seat)
        assert text == tr(f"next.{verb}_seat", seat=seat)
        screen.ui.paid.add(seat)
    frame, text, button = primary_and_next(screen, view)
    assert button is not None and button.label == tr("btn.next_round")
    asked = {tr(f"next.{verb}_seat", seat=s) for s in payout_seats(view)
             for verb in ("pay", "return", "take")}
    assert text not in asked
    if lang == "en":
        assert not text.startswith(("Pay", "Return")), text


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["settled", "outcomes-settled", "dealing", "link-lost", "void"])
def test_a_status_in_the_large_buttons_place_does_not_look_like_a_disabled_button(
        fonts, name, lang):
    """No button face in the disabled colours: a caption says it is what goes on now."""
    from display import theme
    view = build(name).dealer
    screen = DealerScreen(fonts, lang)
    surface = pygame.Surface((800, 480))
    frame = screen.draw(surface, view, 0.0)
    assert frame.button("primary") is None
    status = [t for t in frame.texts if t.role.startswith("primary.status")]
    if "settled" in name and len(status) == 1:  # a short status: a caption over it
        assert said(frame, "primary.caption") == screen.tr("status.caption")
    assert min(t.size for t in status) >= 18  # where there is no room for both: the status
    box = frame.regions["primary"]
    faces = {tuple(surface.get_at((x, box.bottom - 3)))[:3]
             for x in range(box.left + 8, box.right - 8, 4)}
    assert theme.BTN_OFF not in faces and theme.PANEL_LINE not in faces


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("reason", "key"), [
    ("duplicate_card", "voidreason.duplicate_card"),
    ("card_before_no_more_bets", "reason.card_before_no_more_bets"),
    ("Shoe fault", "reason.shoe_fault"),              # the void pad's English reason
    ("autoplay: link_lost", "voidreason.link_lost")])
def test_recall_gives_a_void_reason_the_table_wrote_in_words(fonts, reason, key, lang):
    view = build("recall").dealer
    voided = next(i for i, r in enumerate(view.recall) if r.status == "void")
    recall = list(view.recall)
    recall[voided] = replace(recall[voided], void_reason=reason)
    screen = DealerScreen(fonts, lang)
    screen.ui.screen, screen.ui.recall_index = "recall", voided
    frame = screen.draw(pygame.Surface((1920, 1080)), replace(view, recall=tuple(recall)), 0.0)
    caption = said(frame, "recall.caption")
    assert screen.tr(key) in caption
    assert "_" not in caption and "autoplay" not in caption
    if lang != "en":
        assert reason not in caption
