"""The dealer screen's sizes, measured on the real drawn screen.

Every scenario, at 800x480 (a 7-inch panel: 9 mm = 47 px), 1920x1080 and 1080x1920, in
English, French and Ukrainian, with each pad open too: every touch target at least 47x47
pixels with at least 8 pixels between targets; no text under 14 pixels at 800x480, nor
under 18 at 1920x1080 and 1080x1920 (the pixel size given to the font, card ranks
included); no text cut or out of its box; every key printed on its button. And the
places hold: no control moves when alarms or a refusal appear, and every alarm is drawn,
on every screen.
"""

from dataclasses import replace

import pygame
import pytest
from dealer_frames import alarm_lines

from controller.game.views import Banner
from display.dealer import DealerScreen
from display.scenarios import SCENARIOS, build
from display.theme import FontBook

SIZES = [(800, 480), (1920, 1080), (1080, 1920)]
LANGS = ["en", "fr", "uk"]
MIN_TEXT = {(800, 480): 14, (1920, 1080): 18, (1080, 1920): 18}
TOUCH = 47
GAP = 8
ALARMS = (
    Banner("link_lost", "error", "The shoe link is lost.",
           "Check the shoe cable; the round waits"),
    Banner("lid_open", "info", "The shoe lid is open.", "Close the lid"),
    Banner("alarm", "error", "Shoe alarm JAM: feed jam", "Clear the shoe before the next card",
           {"code": "JAM"}),  # no scenario is paused for it: nothing to resume
)


@pytest.fixture(scope="module")
def fonts():
    pygame.display.init()
    pygame.font.init()
    return FontBook()


def draw(fonts, view, size, lang, screen="main", pad=None, now=0.0):
    s = DealerScreen(fonts, lang)
    s.ui.screen = screen
    if pad:
        s.ui.pad = pad
        s.ui.pad_action = {"reason": "void", "card": "manual_card"}.get(pad, "void")
        s.ui.reason, s.ui.pin = "shoe_fault", "12"
        s.ui.error = "wrong PIN"
    return s.draw(pygame.Surface(size), view, now)


def targets(frame):
    """The touch targets: buttons with a place on screen (key bindings have none)."""
    return [b for b in frame.buttons if b.rect.width or b.rect.height]


def gap(a: pygame.Rect, b: pygame.Rect) -> int:
    """The space between two rectangles (negative when they overlap)."""
    return max(b.left - a.right, a.left - b.right, b.top - a.bottom, a.top - b.bottom)


def check_sizes(frame, size, where):
    # a card face is recorded with the size of its smaller glyph, rank or suit symbol
    small = [(t.text, t.role, t.size) for t in frame.texts if t.text and
             t.size < MIN_TEXT[size]]
    assert not small, f"{where}: text under {MIN_TEXT[size]} px: {small[:6]}"
    cut = [(t.text, t.role) for t in frame.texts if t.truncated or not t.box.contains(t.rect)]
    assert not cut, f"{where}: text cut or out of its box: {cut[:6]}"
    found = targets(frame)
    assert found, where
    tiny = [(b.id, b.rect.size) for b in found if b.rect.width < TOUCH or b.rect.height < TOUCH]
    assert not tiny, f"{where}: touch targets under {TOUCH}x{TOUCH}: {tiny[:6]}"
    close = [(a.id, b.id, gap(a.rect, b.rect)) for i, a in enumerate(found)
             for b in found[i + 1:] if gap(a.rect, b.rect) < GAP]
    assert not close, f"{where}: targets closer than {GAP} px: {close[:6]}"


def check_keys_printed(frame, where):
    """Every touch target with a key prints it (its hint); a key without a place on
    screen has no button to print it on."""
    hints = {t.role for t in frame.texts if t.text}
    unprinted = [b.id for b in targets(frame) if b.keys and f"{b.id}.hint" not in hints]
    assert not unprinted, f"{where}: keys not printed on their buttons: {unprinted}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", SCENARIOS)
def test_every_scenario_meets_the_minimum_sizes(fonts, name, size, lang):
    sc = build(name)
    frame = draw(fonts, sc.dealer, size, lang, sc.dealer_screen)
    check_sizes(frame, size, f"{name} {size} {lang}")
    check_keys_printed(frame, f"{name} {size} {lang}")
    check_seat_margins(frame, size, f"{name} {size} {lang}")


SEAT_MARGIN = {(800, 480): 5, (1920, 1080): 11, (1080, 1920): 9}
"""How far a seat's texts keep from its edge: the outline of the seat named (3 pixels at
800x480) and 2 pixels of felt, scaled."""
SEAT_TEXTS = ("bet", "amount", "hand", "hand2", "label", "mark", "open", "decision")


def check_seat_margins(frame, size, where):
    """A seat's own texts keep off its left and right edges: none runs into them."""
    close = []
    m = SEAT_MARGIN[size]
    for name, rect in frame.regions.items():
        if name.count(".") != 1 or not name.startswith("seat."):
            continue
        close += [(t.text, t.role) for t in frame.texts
                  if t.text and t.role.startswith(name + ".") and t.role.count(".") == 2
                  and t.role.split(".")[-1] in SEAT_TEXTS  # not its buttons' labels
                  and not (rect.left + m <= t.rect.left and t.rect.right <= rect.right - m
                           and rect.contains(t.rect))]
    assert not close, f"{where}: seat texts on the seat's edge: {close[:6]}"


@pytest.mark.parametrize("seats", range(1, 7))
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_scenario_meets_the_minimum_sizes_at_every_table_size(fonts, size, lang,
                                                                      seats):
    """The scenarios' table has 7 seats; a table of fewer seats has wider ones (at 5 at
    800x480, seat buttons side by side): the same views with the seats the table has."""
    for name in SCENARIOS:
        sc = build(name)
        view = replace(sc.dealer, seats=sc.dealer.seats[:seats])
        frame = draw(fonts, view, size, lang, sc.dealer_screen)
        where = f"{name} {size} {lang} {seats} seats"
        check_sizes(frame, size, where)
        check_keys_printed(frame, where)
        check_seat_margins(frame, size, where)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("pad", ["reason", "card", "pin"])
def test_the_pads_meet_the_minimum_sizes(fonts, pad, size, lang):
    frame = draw(fonts, build("misread-paused").dealer, size, lang, pad=pad)
    assert all(b.id.startswith("pad.") for b in targets(frame))  # modal
    check_sizes(frame, size, f"pad {pad} {size} {lang}")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", SCENARIOS)
def test_no_control_moves_when_alarms_appear_and_every_alarm_is_drawn(fonts, name, size,
                                                                       lang):
    sc = build(name)
    quiet = replace(sc.dealer, banners=())
    loud = replace(sc.dealer, banners=ALARMS)
    a = draw(fonts, quiet, size, lang, sc.dealer_screen)
    b = draw(fonts, loud, size, lang, sc.dealer_screen)
    assert {x.id: tuple(x.rect) for x in a.buttons} == {x.id: tuple(x.rect) for x in b.buttons}
    assert a.regions["alarms"] == b.regions["alarms"]  # a place of its own
    said = alarm_lines(b, len(ALARMS), f"{name} {size} {lang}")
    if lang == "en":  # each one in full, the table's own words where they fit
        assert {msg for msg, _ in said} == {a.message for a in ALARMS}, name
        assert {act.split(" \u2014 ")[0] for _, act in said} == {a.action for a in ALARMS}
    # the alarms are drawn over the recall and meters screens too: nothing hides them
    assert sc.dealer_screen in ("main", "recall", "meters", "outcomes")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_refusal_moves_no_control(fonts, size):
    view = build("betting").dealer
    refused = replace(view, banners=(Banner("rejected", "warning",
                                            "seat 2: pair_plus needs an ante", "",
                                            {"input": "no_more_bets"}),),
                      refusal_seq=99, version=view.version + 1)
    s = DealerScreen(fonts, "en")
    a = s.draw(pygame.Surface(size), view, 1.0)
    b = s.draw(pygame.Surface(size), refused, 1.0)
    assert b.regions["refusal"].colliderect(b.regions["next_action"])
    same = {x.id: tuple(x.rect) for x in b.buttons if x.id != "refusal"}
    assert same == {x.id: tuple(x.rect) for x in a.buttons}
    check_sizes(b, size, f"refusal {size}")


@pytest.fixture(scope="module")
def locked_views():
    """A table locked mid-betting by a broken journal, by a lock that stays, and in a
    journal fault (a write that failed, retried)."""
    from controller.game.auth import demo_pin_hashes
    from controller.game.engine import TableConfig
    from controller.game.inputs import PlaceBet
    from controller.game.table import Table
    from controller.game.verdict import integrity_lock
    from controller.journal import JournalError

    out = {}
    for kind, reason in (("journal_broken", integrity_lock(
            "the record of round 2 was changed (status)")),
            ("journal_locked", "journal.sqlite3: the disk is full")):
        t = Table(":memory:", TableConfig(seats=7, pin_hashes=demo_pin_hashes()))
        t.process([PlaceBet(seat=1, bet="ante", amount=500),
                   PlaceBet(seat=3, bet="ante", amount=1000)])
        t.lock(reason)
        out[kind] = t.views()[0]
        t.close()
    t = Table(":memory:", TableConfig(seats=7, pin_hashes=demo_pin_hashes()))
    t.process([PlaceBet(seat=1, bet="ante", amount=500)])
    t.faults.failed(JournalError(":memory:: journal write failed: database or disk is full"), [])
    out["journal_fault"] = t.views()[0]                 # a write failed: retried
    t.close()
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("kind", ["journal_broken", "journal_locked", "journal_fault"])
def test_a_locked_table_says_so_whole_and_offers_nothing(fonts, locked_views, kind, size,
                                                         lang):
    view = locked_views[kind]
    assert view.state == "locked" and not view.allowed and view.banners[0].kind == kind
    frame = draw(fonts, view, size, lang)
    check_sizes(frame, size, f"locked {kind} {size} {lang}")
    said = {t.role: t.text for t in frame.texts}
    assert said["banner.0.msg"], said                       # the lock's own alarm, first
    offered = [b.id for b in targets(frame) if b.enabled and b.action is not None]
    assert set(offered) <= {"recall", "meters"}, offered    # what reads, nothing that acts


LABEL_ROOM = 6
"""Pixels a button's label keeps from the button's left and right edges."""
KEY_ROOM = 3
"""Pixels a button's label keeps from its key beside it."""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["settled", "betting"])
def test_long_labels_keep_clear_of_their_button_and_key_at_800x480(fonts, name, lang):
    """"Виплатити" does not fill its button edge to edge, nor "Анулювати" touch F9."""
    sc = build(name)
    frame = DealerScreen(fonts, lang).draw(pygame.Surface((800, 480)), sc.dealer)
    crowded = []
    for b in frame.buttons:
        if not (b.id.endswith(".paid") or b.id == "tool.void"):
            continue
        labels = [t for t in frame.texts if t.role.startswith(f"{b.id}.label") and t.text]
        hints = [t.rect for t in frame.texts if t.role == f"{b.id}.hint" and t.text]
        room = b.rect.inflate(-2 * LABEL_ROOM, 0)
        for t in labels:
            near = t.rect.inflate(2 * KEY_ROOM, 2)  # beside it; rows under it stand apart
            if not room.contains(t.rect) or near.collidelist(hints) >= 0:
                crowded.append((b.id, t.text, t.rect, b.rect, hints))
    assert any(b.id == "tool.void" for b in frame.buttons)
    if name == "settled":
        assert any(b.id.endswith(".paid") for b in frame.buttons)
    assert not crowded, crowded
