"""Each screen opens on its output as SDL places windows, or says where it went instead.

Real windows under SDL's dummy video driver (one display, 1024x768). Two outputs are faked
by giving ``pygame.display.get_desktop_sizes`` a second desktop; SDL itself still has one.
"""

from __future__ import annotations

import logging
import queue

import pygame
import pytest
from hypothesis import given
from hypothesis import strategies as st

from display.app import DisplayApp
from display.outputs import MIN_WINDOW, centered_on, place_screens, share_output
from display.scenarios import build

LOGGER = "display.app"
DRIVER = " (SDL video driver dummy)"  # each screen's line names the driver


@pytest.fixture
def views():
    pygame.display.init()
    sc = build("betting")
    return sc.dealer, sc.player


@pytest.fixture
def apps():
    opened: list[DisplayApp] = []
    yield opened
    for app in opened:
        app.close()


def screen_lines(caplog) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == LOGGER and " screen " in r.getMessage()]


def test_sdl_centres_a_window_on_the_display_the_position_names(views, apps):
    """pygame-ce passes the pair to SDL, which centres the window in display 0's bounds
    (not at x = 0x2FFF0000), and takes an index it does not have as display 0."""
    desk_w, desk_h = pygame.display.get_desktop_sizes()[0]
    for output in (0, 1, 7):
        win = pygame.Window("t", (400, 300), centered_on(output))
        try:
            assert win.position == ((desk_w - 400) // 2, (desk_h - 300) // 2)
        finally:
            win.destroy()


def test_a_bare_centred_display_constant_is_what_pygame_ce_refuses(views):
    """Why the position is a pair: the single-integer form is limited to display 0."""
    with pytest.raises(TypeError, match="invalid position argument"):
        pygame.Window("t", (400, 300), centered_on(1)[0])


@pytest.mark.parametrize("output", [-1, 0x10000])
def test_a_display_index_outside_the_mask_is_refused(output):
    with pytest.raises(ValueError, match="display index"):
        centered_on(output)


def test_fullscreen_player_screen_waits_for_its_output_never_over_the_dealer(views, apps,
                                                                            caplog):
    """dealer_output 0 / player_output 1, fullscreen, one display: the dealer screen opens
    on it alone, the player screen waits for output 1 and the dealer screen says so."""
    caplog.set_level(logging.INFO, LOGGER)
    app = DisplayApp(lambda: views, queue.Queue(), fullscreen=True,
                     outputs={"dealer": 0, "player": 1}, title="Three Card Poker T")
    apps.append(app)
    w, h = pygame.display.get_desktop_sizes()[0]
    assert set(app.outputs) == {"dealer"}
    assert app.missing == {"player": "output 1 not found (1 found)"}
    assert screen_lines(caplog) == [
        (logging.INFO, f"dealer screen on output 0, {w}x{h}{DRIVER}"),
        (logging.WARNING, "player screen waits for its output: output 1 not found (1 found)"),
    ]
    app.step(now=0.0, wait=False)
    frame = app.frame("dealer")
    assert frame.button("primary") is not None and app.frame("player") is None
    said = [t.text for t in frame.texts if t.role.startswith("banner.")]
    assert "Player screen missing" in said
    assert "Turn on the players' screen: it opens by itself" in said
    surface = app.surfaces["dealer"]
    assert surface.get_size() == (w, h)
    assert len({surface.get_at((x, y))[:3] for x in range(0, w, 97)
                for y in range(0, h, 89)}) > 3        # drawn, not a blank window


def test_two_outputs_put_the_player_screen_on_output_1(views, apps, caplog, monkeypatch):
    caplog.set_level(logging.INFO, LOGGER)
    real = pygame.display.get_desktop_sizes()
    monkeypatch.setattr(pygame.display, "get_desktop_sizes", lambda: [*real, (1920, 1080)])
    monkeypatch.setattr("display.outputs.HOTPLUG_DRIVERS", frozenset({"dummy"}))  # followed here
    app = DisplayApp(lambda: views, queue.Queue(), fullscreen=True,
                     outputs={"dealer": 0, "player": 1})
    apps.append(app)
    assert {n: (p.wanted, p.output) for n, p in app.placements.items()} == {
        "dealer": (0, 0), "player": (1, 1)}
    lines = screen_lines(caplog)
    assert [lvl for lvl, _ in lines] == [logging.INFO, logging.INFO]
    assert lines[0][1].startswith("dealer screen on output 0, ")
    assert lines[1][1].startswith("player screen on output 1, ")


def test_outputs_by_default_follow_the_displays(views, apps, caplog, monkeypatch):
    """No outputs given: dealer on 0, player on 1 when there are two displays."""
    caplog.set_level(logging.INFO, LOGGER)
    real = pygame.display.get_desktop_sizes()
    monkeypatch.setattr(pygame.display, "get_desktop_sizes", lambda: [*real, (1280, 720)])
    app = DisplayApp(lambda: views, queue.Queue())
    apps.append(app)
    assert {n: p.output for n, p in app.placements.items()} == {"dealer": 0, "player": 1}
    assert [m for _, m in screen_lines(caplog)] == [
        "dealer screen on output 0, 1280x800" + DRIVER,
        "player screen on output 1, 1920x1080" + DRIVER]


def test_one_screen_that_cannot_open_leaves_the_other(views, apps, caplog):
    """A zero-size window is refused by pygame itself; the dealer screen still opens."""
    caplog.set_level(logging.INFO, LOGGER)
    app = DisplayApp(lambda: views, queue.Queue(), sizes={"player": (0, 0)},
                     outputs={"dealer": 0, "player": 0})
    apps.append(app)
    assert list(app.outputs) == ["dealer"]
    assert app.missing["player"].startswith("did not open on output 0: ")
    lines = screen_lines(caplog)
    assert lines[0] == (logging.INFO, "dealer screen on output 0, 1280x800" + DRIVER)
    assert lines[1][0] == logging.ERROR
    assert lines[1][1].startswith("player screen did not open on output 0: ")
    assert app.step(now=0.0, wait=False)
    assert app.frame("dealer") is not None and app.frame("player") is None


def test_no_screen_opening_names_each_and_why(views, apps):
    app = DisplayApp(lambda: views, queue.Queue(), sizes={"dealer": (0, 0), "player": (0, 0)})
    apps.append(app)
    assert app.outputs == {}
    assert set(app.missing) == {"dealer", "player"}
    assert all(why.startswith("did not open on output ") for why in app.missing.values())


@given(wanted=st.dictionaries(st.sampled_from(["dealer", "player"]),
                              st.integers(-3, 9)),
       displays=st.integers(1, 6))
def test_every_screen_is_placed_on_a_display_that_exists(wanted, displays):
    placed = place_screens(("dealer", "player"), wanted, displays)
    assert set(placed) == {"dealer", "player"}
    for name, p in placed.items():
        assert 0 <= p.output < displays
        if name in wanted:
            assert p.wanted == wanted[name]
            exists = 0 <= wanted[name] < displays
            assert p.found == exists
            if not exists:      # the nearest end: display 0, or the last display there is
                assert p.output == (0 if wanted[name] < 0 else displays - 1)
        else:
            assert p.found


HINTS_PROBE = """
import os, queue
from display.app import DisplayApp
from display.scenarios import build
sc = build("betting")
DisplayApp(lambda: (sc.dealer, sc.player), queue.Queue(), headless=True)
print(os.environ["SDL_TOUCH_MOUSE_EVENTS"], os.environ["SDL_MOUSE_TOUCH_EVENTS"])
"""


@pytest.mark.parametrize("preset, expected", [({}, "0 0"),
                                              ({"SDL_TOUCH_MOUSE_EVENTS": "1"}, "1 0")])
def test_sdl_is_asked_not_to_copy_touches_unless_the_operator_says(preset, expected):
    """The hints are in the environment before the video subsystem starts (SDL reads
    them there); a value the operator set is kept."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.endswith("_TOUCH_EVENTS")
           and k != "SDL_TOUCH_MOUSE_EVENTS"}
    env.update(SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1", **preset)
    out = subprocess.run([sys.executable, "-c", HINTS_PROBE], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert out.split("\n")[-2] == expected


SIZES2 = st.tuples(st.integers(320, 3840), st.integers(240, 2160))


@given(st.lists(SIZES2, min_size=2, max_size=2), st.tuples(st.integers(1024, 7680),
                                                          st.integers(768, 4320)))
def test_windows_sharing_an_output_each_stay_in_sight(sizes, area):
    """Laid out on one output: inside it, no smaller than the layouts allow, and neither
    window hides the other (side by side they do not overlap at all)."""
    rects = share_output(sizes, area, MIN_WINDOW)
    screen = pygame.Rect((0, 0), area)
    assert len(rects) == 2
    for r, (w, h) in zip(rects, sizes, strict=True):
        assert screen.contains(r), (r, area)
        assert r.w >= min(w, MIN_WINDOW[0]) and r.h >= min(h, MIN_WINDOW[1])
        assert r.w <= max(w, MIN_WINDOW[0]) and r.h <= max(h, MIN_WINDOW[1])
    a, b = rects
    assert not a.contains(b) and not b.contains(a)
    if sum(w for w, _ in sizes) <= area[0] and max(h for _, h in sizes) <= area[1]:
        assert [r.size for r in rects] == sizes and not a.colliderect(b)


def test_default_windows_on_a_full_hd_output_go_side_by_side():
    """1280x800 and 1920x1080 on one 1920x1080 output: the dealer window at the layouts'
    smallest width (800 wide, 500 high, its shape kept), the player in the other 1120."""
    dealer, player = share_output([(1280, 800), (1920, 1080)], (1920, 1080))
    assert (dealer.size, player.size) == ((800, 500), (1120, 630))
    assert dealer.right == player.left and dealer.left == 0 and player.right == 1920


def test_two_windows_on_one_output_in_a_window_are_both_in_sight(views, apps, caplog):
    """One display (the demo on a laptop): not both centred one over the other."""
    caplog.set_level(logging.INFO, LOGGER)
    app = DisplayApp(lambda: views, queue.Queue(), outputs={"dealer": 0, "player": 0})
    apps.append(app)
    desk = pygame.Rect((0, 0), pygame.display.get_desktop_sizes()[0])
    dealer, player = (pygame.Rect(app.outputs[n].window.position, app.outputs[n].window.size)
                      for n in ("dealer", "player"))
    assert desk.contains(dealer) and desk.contains(player)
    assert not dealer.contains(player) and not player.contains(dealer)
    assert dealer.topleft != player.topleft
    moved = [m for _, m in screen_lines(caplog) if "moved" in m]
    assert len(moved) == 2 and all(m.endswith("it shares output 0") for m in moved)
    app.step(now=0.0, wait=False)
    assert app.surfaces["dealer"].get_size() == dealer.size


def test_an_output_sdl_learns_of_only_as_it_starts_restarts_its_video(views, apps, caplog,
                                                                      monkeypatch):
    """KMS/DRM reads the connectors when SDL's video starts: the separate check finds the
    players' TV, SDL here still knows one output. The windows close, SDL's video starts
    again, both screens open (the dealer screen as it was); when the TV goes, the player
    screen closes and nothing else does."""
    from display.outputs import OutputWatch

    caplog.set_level(logging.INFO, LOGGER)
    real = pygame.display.get_desktop_sizes()[:1]
    checked, known = [1], [1]                     # outputs the check finds, SDL here knows
    init = pygame.display.init

    def started() -> None:
        init()
        known[0] = checked[0]

    monkeypatch.setattr(pygame.display, "init", started)
    monkeypatch.setattr(pygame.display, "get_desktop_sizes",
                        lambda: [*real, (1920, 1080)][:known[0]])
    monkeypatch.setattr(OutputWatch, "sizes",
                        lambda self, now: tuple([*real, (1920, 1080)][:checked[0]]))
    app = DisplayApp(lambda: views, queue.Queue(), fullscreen=True,
                     outputs={"dealer": 0, "player": 1})
    apps.append(app)
    assert list(app.outputs) == ["dealer"] and app.watch.separate
    screen = app.dealer
    screen.ui.screen = "meters"                    # the dealer looks at the meters
    checked[0] = 2
    app.step(now=10.0, wait=False)
    assert set(app.outputs) == {"dealer", "player"} and app.missing == {}
    assert app.dealer is screen and screen.ui.screen == "meters" and screen.ui.notices == ()
    assert not app.quit_requested
    lines = [m for _, m in screen_lines(caplog)]
    assert lines[-2].startswith("dealer screen on output 0, ")
    assert lines[-1].startswith("player screen on output 1, ")
    assert "2 outputs found, SDL knows 1: its video starts again to open the screens on " \
           "them" in caplog.text
    dealer = app.outputs["dealer"].window
    checked[0] = 1
    for now in (20.0, 30.0):
        app.step(now=now, wait=False)
        assert list(app.outputs) == ["dealer"] and app.outputs["dealer"].window is dealer
    assert app.missing == {"player": "output 1 not found (1 found)"}
    assert screen_lines(caplog)[-1] == (logging.WARNING, "player screen closed: output 1 "
                                        "not found (1 found)")
    assert [b.kind for b in app.dealer.ui.notices] == ["player_screen"]


@pytest.mark.parametrize("content, why", [(None, r"cannot be read \(No such file or "
                                                 r"directory\)"),
                                          (b"<html>not a font</html>",
                                           "is not a TrueType font"),
                                          ("cut", r"is damaged \(.+\)"),
                                          ("overwritten", r"is damaged \(.+\)")])
def test_a_bundled_font_that_cannot_be_used_stops_the_screens_at_once(views, tmp_path,
                                                                       monkeypatch, content,
                                                                       why):
    from display import theme

    font = tmp_path / "DejaVuSans.ttf"
    if content == "cut":  # the first kilobyte of the real font: its signature, no glyphs
        content = theme.font_path().read_bytes()[:1000]
    elif content == "overwritten":  # its size and tables' directory, its glyphs garbage
        data = bytearray(theme.font_path().read_bytes())
        data[20_000:400_000] = b"\xff" * 380_000
        content = bytes(data)
    if content is not None:
        font.write_bytes(content)
    monkeypatch.setattr(theme, "font_path", lambda bold=False: font)
    theme.font_bytes.cache_clear()
    try:
        with pytest.raises(theme.FontError,
                           match=rf"^the bundled font {font} {why}: reinstall the software$"):
            DisplayApp(lambda: views, queue.Queue(), fullscreen=True)
    finally:
        theme.font_bytes.cache_clear()
