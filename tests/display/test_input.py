"""Dealer input through real pygame events: touches, clicks and keys reach the inbox."""

import queue
from dataclasses import replace

import pygame
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from controller.game import inputs as C
from display.app import DisplayApp
from display.dealer.actions import DismissRefusal, ShowRecall
from display.scenarios import SCENARIOS, build

SIZE = (1280, 800)


class Holder:
    """What the daemon gives the display: the newest pair of views."""

    def __init__(self, name):
        sc = build(name)
        self.views = (sc.dealer, sc.player)

    def __call__(self):
        return self.views

    def bump(self, **changes):
        dv, pv = self.views
        self.views = (replace(dv, version=dv.version + 1, **changes),
                      replace(pv, version=pv.version + 1))


class Inbox(queue.Queue):
    """The controller's inbox: the table answers each command (its views move on)."""

    def __init__(self, holder: Holder) -> None:
        super().__init__()
        self.holder = holder

    def put_nowait(self, item):
        super().put_nowait(item)
        self.holder.bump()


@pytest.fixture
def make_app():
    apps = []

    def _make(name, views=("dealer", "player"), size=SIZE):
        pygame.display.init()
        pygame.event.clear()
        holder = Holder(name)
        inbox = Inbox(holder)
        app = DisplayApp(holder, inbox, views=views, headless=True,
                         sizes={"dealer": size, "player": (960, 540)})
        app.step(now=0.0, wait=False)
        apps.append(app)
        return app, holder, inbox

    yield _make
    for a in apps:
        a.close()
    pygame.event.clear()


def drain(inbox):
    out = []
    while True:
        try:
            out.append(inbox.get_nowait())
        except queue.Empty:
            return out


def key(app, name, mod=0, now=1.0):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name),
                                         mod=mod, unicode=""))
    app.step(now=now, wait=False)


def touch(app, button_id, now=1.0):
    app.step(now=now - 0.001, wait=False)  # the frame the dealer sees: the newest view's
    frame = app.frame("dealer")
    b = frame.button(button_id)
    assert b is not None, button_id
    w, h = frame.size
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=b.rect.centerx / w,
                                         y=b.rect.centery / h, touch_id=1, finger_id=1,
                                         dx=0.0, dy=0.0, pressure=1.0))
    app.step(now=now, wait=False)


def click(app, button_id, now=1.0, **extra):
    app.step(now=now - 0.001, wait=False)  # the frame the dealer sees: the newest view's
    b = app.frame("dealer").button(button_id)
    assert b is not None, button_id
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=b.rect.center, button=1,
                                         **extra))
    app.step(now=now, wait=False)


def test_betting_by_touch_and_keys(make_app):
    app, _, inbox = make_app("betting")
    touch(app, "chip.2500")
    touch(app, "seat.2.bet.ante")
    key(app, "3")
    key(app, "f2")
    key(app, "p")
    key(app, "x")
    key(app, "c")
    key(app, "b")
    key(app, "b", mod=pygame.KMOD_LSHIFT)
    click(app, "seat.2.bet.pair_plus")
    key(app, "n")
    click(app, "primary")
    assert drain(inbox) == [
        C.PlaceBet(seat=2, bet="ante", amount=2500),
        C.PlaceBet(seat=3, bet="pair_plus", amount=500),
        C.PlaceBet(seat=3, bet="six_card_bonus", amount=500),
        C.ClearBets(seat=3),
        C.Rebet(seat=3),
        C.Rebet(seat=0),
        C.PlaceBet(seat=2, bet="pair_plus", amount=500),
        C.NoMoreBets(),
        C.NoMoreBets(),
    ]


def test_touch_is_not_counted_twice(make_app):
    """SDL copies a touch into a mouse click marked ``touch``; only one command results."""
    app, _, inbox = make_app("betting")
    touch(app, "primary")
    click(app, "primary", touch=True)
    assert drain(inbox) == [C.NoMoreBets()]


def centre(app, button_id):
    b = app.frame("dealer").button(button_id)
    assert b is not None, button_id
    return b.rect.center


def post_finger(app, pos, **extra):
    """A FINGERDOWN at a pixel of the dealer screen (SDL gives it normalised)."""
    w, h = app.frame("dealer").size
    fields = dict(touch_id=1, finger_id=1, dx=0.0, dy=0.0, pressure=1.0)
    fields.update(extra)
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=pos[0] / w, y=pos[1] / h,
                                         **fields))


def post_click(app, pos, **extra):
    """A left-button MOUSEBUTTONDOWN, not marked as a touch unless ``touch=True``."""
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1,
                                         **{"touch": False, **extra}))


ANTE2 = C.PlaceBet(seat=2, bet="ante", amount=500)


@pytest.mark.parametrize("finger_first", [True, False])
@pytest.mark.parametrize("next_frame", [False, True])
def test_a_touch_and_the_drivers_own_click_are_one_tap(make_app, finger_first, next_frame):
    """Some touchscreen drivers send a click of their own (``touch`` False) with each touch:
    one tap, one bet, whichever comes first and whether or not they share a frame."""
    app, _, inbox = make_app("betting")
    key(app, "f2")                                   # the 5.00 chip
    pos = centre(app, "seat.2.bet.ante")
    first, second = (post_finger, post_click) if finger_first else (post_click, post_finger)
    first(app, pos)
    if next_frame:
        app.step(now=1.0, wait=False)
    second(app, (pos[0] + 2, pos[1] - 1))             # a copy lands within a pixel or two
    app.step(now=1.034, wait=False)
    assert drain(inbox) == [ANTE2]


def test_sdls_touch_copy_of_a_click_is_ignored(make_app):
    """With SDL_MOUSE_TOUCH_EVENTS on, a click also arrives as a touch from
    SDL_MOUSE_TOUCHID (-1): the click counts, its copy does not."""
    app, _, inbox = make_app("betting")
    key(app, "f2")
    pos = centre(app, "seat.2.bet.ante")
    post_click(app, pos)
    post_finger(app, pos, touch_id=-1)
    app.step(now=1.0, wait=False)
    assert drain(inbox) == [ANTE2]


def test_two_genuine_taps_are_two_bets(make_app):
    """Taps a quarter second apart are two bets; two in one frame are a tap and its
    bounce (one bet)."""
    app, _, inbox = make_app("betting")
    key(app, "f2")
    pos = centre(app, "seat.2.bet.ante")
    post_finger(app, pos)                        # two quick taps, one frame: a bounce
    post_finger(app, pos)
    app.step(now=1.0, wait=False)
    assert drain(inbox) == [ANTE2]
    for t in (2.0, 2.3):                         # two taps on a copying driver
        app.step(now=t - 0.05, wait=False)       # the frame drawn before each
        post_finger(app, pos)
        post_click(app, pos)
        app.step(now=t, wait=False)
    assert drain(inbox) == [ANTE2, ANTE2]
    app.step(now=3.9, wait=False)
    post_finger(app, pos)                        # a tap, then a real click a second later
    app.step(now=4.0, wait=False)
    app.step(now=4.5, wait=False)
    post_click(app, pos)
    app.step(now=5.0, wait=False)
    assert drain(inbox) == [ANTE2, ANTE2]
    app.step(now=5.5, wait=False)
    post_finger(app, pos)                        # a tap and a click elsewhere, one frame:
    post_click(app, centre(app, "seat.3.bet.ante"))  # the table has not answered the tap
    app.step(now=6.0, wait=False)
    assert drain(inbox) == [ANTE2]


def test_a_bounce_on_a_copying_driver_is_one_bet_whichever_copy_comes_first(make_app):
    """On a driver that clicks with each touch, a touch 0.1 s after the last is a bounce,
    its click before it or after it; and a click 0.19 s after the last click (a bounce by
    its own kind) whose touch comes a quarter second after the last touch is a tap."""
    app, _, inbox = make_app("betting")
    key(app, "f2")
    pos = centre(app, "seat.2.bet.ante")

    def at(t, press):
        app.step(now=t - 0.01, wait=False)       # the frame drawn before it
        press(app, pos)
        app.step(now=t, wait=False)

    at(1.0, post_finger)
    at(1.0, post_click)
    at(1.1, post_finger)                          # a bounce of the touch,
    at(1.13, post_click)                          # its click after it
    assert drain(inbox) == [ANTE2]
    at(2.0, post_finger)
    at(2.0, post_click)
    at(2.05, post_click)                          # the bounce's click first, then its touch
    at(2.1, post_finger)
    assert drain(inbox) == [ANTE2]
    at(2.97, post_click)                          # a tap, its click first
    at(3.0, post_finger)
    at(3.16, post_click)                          # the next tap's click, 0.19 s on,
    at(3.25, post_finger)                         # its touch a quarter second on
    assert drain(inbox) == [ANTE2, ANTE2]


BET_SPOTS = [f"seat.{s}.bet.{b}" for s in (1, 2, 3) for b in ("ante", "pair_plus")]


@settings(max_examples=25, deadline=None)
@given(taps=st.lists(st.tuples(st.sampled_from(BET_SPOTS),           # where
                               st.floats(0.25, 1.5),                 # gap before it (s)
                               st.booleans(),                        # copy before/after
                               st.floats(0.0, 0.1),                  # copy delay (s)
                               st.integers(-3, 3), st.integers(-3, 3)),  # copy offset
                     min_size=1, max_size=6),
       copies=st.booleans(), kind=st.sampled_from(["finger", "mouse"]))
# a second tap a quarter second after the first, its driver's copy come before it: no
# bounce of the first (the copy is of another kind)
@example(taps=[("seat.1.bet.ante", 1.0, False, 0.0, 0, 0),
               ("seat.1.bet.ante", 0.25, True, 0.0625, 0, 0)], copies=True, kind="finger")
# the same with the first tap's copy before it too: the two copies come 0.1875 s apart, a
# bounce by their own kind, but the touches are a quarter second apart (a second tap was lost)
@example(taps=[("seat.1.bet.ante", 1.0, True, 0.03125, 0, 0),
               ("seat.1.bet.ante", 0.25, True, 0.09375, 0, 0)], copies=True, kind="finger")
def test_every_tap_places_exactly_one_bet(taps, copies, kind):
    """Taps at any pace down to a quarter second, each with or without the driver's copy
    (arriving before or after it, a few pixels off), read at 30 frames a second."""
    pygame.display.init()
    pygame.event.clear()
    holder = Holder("betting")
    inbox = Inbox(holder)
    app = DisplayApp(holder, inbox, views=("dealer",), headless=True, sizes={"dealer": SIZE})
    try:
        app.step(now=0.0, wait=False)
        key(app, "f2", now=0.0)
        events, t, expected = [], 1.0, []
        for spot, gap, before, delay, dx, dy in taps:
            t += gap
            pos = centre(app, spot)
            seat, bet = spot.split(".")[1], spot.split(".")[3]
            expected.append(C.PlaceBet(seat=int(seat), bet=bet, amount=500))
            events.append((t, kind, pos))
            if copies:
                other = "mouse" if kind == "finger" else "finger"
                events.append((t - delay if before else t + delay, other,
                               (pos[0] + dx, pos[1] + dy)))
        events.sort(key=lambda e: e[0])
        frame = 1 / 30
        i = 0
        while i < len(events):
            now = (int(events[i][0] / frame) + 1) * frame   # the frame that reads it
            app.step(now=now - frame, wait=False)           # the frame before it, drawn
            while i < len(events) and events[i][0] <= now:
                _, k, pos = events[i]
                (post_finger if k == "finger" else post_click)(app, pos)
                i += 1
            app.step(now=now, wait=False)
        assert drain(inbox) == expected
    finally:
        app.close()
        pygame.event.clear()


def test_disabled_actions_post_nothing(make_app):
    app, _, inbox = make_app("dealing")
    for k in ("n", "r", "s", "g", "a", "y", "return", "f5", "f6", "f11"):
        key(app, k)
    click(app, "primary") if app.frame("dealer").button("primary") else None
    assert drain(inbox) == []


def test_decisions(make_app):
    app, holder, inbox = make_app("decisions")
    assert app.frame("dealer").notes["selected_seat"] == 3  # first undecided seat
    key(app, "y")
    assert drain(inbox) == [C.Decide(seat=3, decision="play")]
    # the controller records it; the next undecided seat takes the keys
    dv = holder.views[0]
    seats = tuple(replace(s, decision="play") if s.seat == 3 else s for s in dv.seats)
    holder.bump(seats=seats)
    app.step(now=2.0, wait=False)
    assert app.frame("dealer").notes["selected_seat"] == 5
    key(app, "f", now=2.1)
    touch(app, "seat.6.play", now=2.2)
    assert drain(inbox) == [C.Decide(seat=5, decision="fold"), C.Decide(seat=6, decision="play")]


def answered(app, holder, now=3.0):
    """The table answered (a new view without a refusal): the pad waiting for it closes."""
    assert app.frame("dealer").notes["pad"] == "wait"  # the pad waits for the table
    holder.bump()
    app.step(now=now, wait=False)


def test_void_needs_reason_and_pin(make_app):
    app, holder, inbox = make_app("dealing")
    key(app, "f9")
    assert app.frame("dealer").notes["pad"] == "reason"
    key(app, "5")  # shoe fault
    assert app.frame("dealer").notes["pad"] == "pin"
    key(app, "return")  # OK without a PIN does nothing
    for d in "2580":
        touch(app, f"pad.key.{'123456789'.index(d)}" if d != "0" else "pad.key.10")
    key(app, "backspace")
    key(app, "0")
    key(app, "return")
    assert drain(inbox) == [C.Checked(C.VoidRound(reason="Shoe fault", pin="2580"))]
    answered(app, holder)
    assert app.frame("dealer").notes["pad"] is None


def enter_pin(app, inbox, digits: str) -> list:
    """Type ``digits`` on the open PIN pad's keys and press Enter; returns what was posted."""
    for d in digits:
        key(app, d)
    key(app, "return")
    return drain(inbox)


def test_a_pin_too_short_for_its_declaration_is_shown_on_the_pad_not_posted(make_app):
    app, holder, inbox = make_app("dealing")
    key(app, "f9")
    key(app, "5")  # shoe fault
    assert enter_pin(app, inbox, "12") == []                   # nothing reaches the table
    frame = app.frame("dealer")
    assert frame.notes["pad"] == "pin"                         # the pad stays open
    # OK waits for a whole PIN: nothing of the type checker's words on the pad
    assert not any("$.pin" in t.text or "Expected" in t.text for t in frame.texts_in("pad"))
    # the digits typed stay: two more make a whole PIN
    assert enter_pin(app, inbox, "58") == [C.Checked(C.VoidRound(reason="Shoe fault", pin="1258"))]
    answered(app, holder)
    assert app.frame("dealer").notes["pad"] is None


def test_the_pin_pad_takes_the_longest_pin(make_app):
    app, _, inbox = make_app("dealing")
    key(app, "f9")
    key(app, "5")
    # one digit more than a PIN may have: the pad stops at 12
    assert enter_pin(app, inbox, "1234567890123") == [
        C.Checked(C.VoidRound(reason="Shoe fault", pin="123456789012"))]


def test_pad_cancel(make_app):
    app, _, inbox = make_app("dealing")
    key(app, "f9")
    key(app, "escape")
    assert app.frame("dealer").notes["pad"] is None
    key(app, "f9")
    touch(app, "pad.cancel")
    assert app.frame("dealer").notes["pad"] is None
    assert drain(inbox) == []


def test_manual_card_entry(make_app):
    app, _, inbox = make_app("misread-paused")
    touch(app, "primary")  # the step the table accepts: a card entered by hand
    assert app.frame("dealer").notes["pad"] == "card"
    key(app, "q")
    touch(app, "pad.suit.h")
    key(app, "return")
    assert app.frame("dealer").notes["pad"] == "pin"
    for d in "4711":
        key(app, d)
    touch(app, "pad.key.11")  # OK
    assert drain(inbox) == [C.Checked(C.ManualCard(card="Qh", pin="4711"))]


def test_primary_actions(make_app):
    app, _, inbox = make_app("reveal-qualify")
    key(app, "return")
    assert drain(inbox) == [C.Settle()]
    for name in ("settled", "void"):
        app, _, inbox = make_app(name)
        key(app, "return")  # the payout list first: the large button waits for it
        assert drain(inbox) == [], name
        key(app, "a", now=1.0)  # all paid
        key(app, "return", now=2.0)
        if name == "void":  # after every void the supervisor's PIN opens the next round
            assert drain(inbox) == [], name
            for d in "4711":
                key(app, d, now=3.0)
            key(app, "return", now=4.0)
            assert drain(inbox) == [C.Checked(C.NextRound(pin="4711"))], name
        else:
            assert drain(inbox) == [C.NextRound()], name


def test_recall_and_meters_screens(make_app):
    app, holder, inbox = make_app("settled")
    key(app, "f7")
    f = app.frame("dealer")
    assert f.notes["mode"] == "recall"
    assert f.notes["recall_round"] == holder.views[0].recall[0].round_id
    key(app, "right")
    assert app.frame("dealer").notes["recall_round"] == holder.views[0].recall[1].round_id
    touch(app, "recall.round.3")
    assert app.frame("dealer").notes["recall_round"] == holder.views[0].recall[3].round_id
    key(app, "escape")
    assert app.frame("dealer").notes["mode"] == "main"
    key(app, "f8")
    assert app.frame("dealer").notes["mode"] == "meters"
    touch(app, "recall")
    assert app.frame("dealer").notes["mode"] == "recall"
    touch(app, "meters")
    assert app.frame("dealer").notes["mode"] == "meters"
    touch(app, "back")
    assert app.frame("dealer").notes["mode"] == "main"
    assert drain(inbox) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_action_has_a_key(make_app, name):
    """Each enabled control is reachable from the keyboard (seat controls after its digit)."""
    app, _, _ = make_app(name)
    sc = build(name)
    app.dealer.ui.screen = sc.dealer_screen
    app.outputs["dealer"].dirty = True
    app.step(now=1.0, wait=False)
    frame = app.frame("dealer")
    for b in frame.buttons:
        # a recall round is reached by Older / Newer; the refusal is read by any press
        if not b.enabled or b.keys or isinstance(b.action, (ShowRecall, DismissRefusal)):
            continue
        seat = b.id.split(".")[1] if b.id.startswith("seat.") else None
        assert seat is not None, f"{name}: {b.id} has no key"
        if sc.dealer.state == "deciding":
            app.dealer.ui.decide_seat = int(seat)
        else:
            app.dealer.ui.selected_seat = int(seat)
        app.outputs["dealer"].dirty = True
        app.step(now=1.0, wait=False)
        again = app.frame("dealer").button(b.id)
        assert again is None or again.keys or not again.enabled, (
            f"{name}: {b.id} has no key when its seat is chosen")
        app.dealer.ui.selected_seat = app.dealer.ui.decide_seat = None


def test_player_window_input_ignored_and_views_error_tolerated(make_app):
    app, holder, inbox = make_app("betting", views=("player",))
    key(app, "n")
    assert drain(inbox) == []

    def broken():
        raise RuntimeError("controller hiccup")

    app.get_views = broken
    assert app.step(now=3.0, wait=False)  # keeps the last snapshot, no crash


def test_redraw_only_on_change(make_app):
    app, holder, _ = make_app("betting")
    base = dict(app.redraws)
    for i in range(10):
        app.step(now=1.0 + i * 0.1, wait=False)
    assert app.redraws == base  # idle: nothing redrawn
    holder.bump()
    app.step(now=3.0, wait=False)
    assert app.redraws == {k: v + 1 for k, v in base.items()}


def test_link_alarm_blinks_at_two_hertz(make_app):
    app, _, _ = make_app("link-lost")
    base = app.redraws["player"]
    for i in range(30):  # one second at 30 frames per second
        app.step(now=10.0 + i / 30, wait=False)
    assert 1 <= app.redraws["player"] - base <= 3


def test_inbox_full_keeps_command(make_app):
    app, _, _ = make_app("betting")
    app.inbox = queue.Queue(maxsize=1)
    app.inbox.put_nowait("busy")
    key(app, "n")
    assert app.inbox.qsize() == 1 and len(app._pending) == 1
    app.inbox.get_nowait()
    app.step(now=2.0, wait=False)
    assert app.inbox.get_nowait() == C.NoMoreBets()
