"""The display process: dealer and player windows driven from view snapshots.

The daemon builds one :class:`DisplayApp` on the main thread and calls
:meth:`DisplayApp.run_until` (or :meth:`DisplayApp.step` from its own loop). Each frame
the app:

1. drains pygame events (touches, clicks and keys go to the dealer screen, which turns
   them into :class:`~controller.game.inputs.DealerCommand` s posted with ``put_nowait``);
2. reads the newest ``(DealerView, PlayerView)`` from ``get_views()`` (a cheap
   non-blocking getter, e.g. a lock-free reference the controller thread replaces);
3. redraws a window only when its view's ``version`` changed, the dealer touched the
   screen, or an animation (press feedback, a blinking link alarm) runs;
4. sleeps to the fixed frame rate.

Nothing here blocks on I/O, calls the controller, or imports a driver.
"""

from __future__ import annotations

import collections
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import pygame

from controller.game.inputs import DealerCommand
from controller.game.views import Banner, DealerView, PlayerView
from display.dealer import DealerScreen
from display.input_script import Fence, InputScript, ScriptPlayer
from display.outputs import (
    DISPLAY_EVENT,
    OutputWatch,
    Placement,
    centered_on,
    place_screens,
    share_output,
)
from display.painter import Frame
from display.player import PlayerScreen
from display.theme import FontBook, check_fonts

log = logging.getLogger(__name__)

DEFAULT_SIZES = {"dealer": (1280, 800), "player": (1920, 1080)}
"""Window sizes when none are given (windowed mode)."""
SHOWN_NOWHERE = frozenset({"offscreen", "dummy"})
"""SDL video drivers that draw into memory only: a window opened through them is seen by
no one (SDL falls back to ``offscreen`` when it finds no display)."""
INPUT_EVENTS = (pygame.MOUSEBUTTONDOWN, pygame.FINGERDOWN, pygame.KEYDOWN)
OUTPUT_EVENTS = (DISPLAY_EVENT, pygame.WINDOWDISPLAYCHANGED)
"""Events after which the outputs are read again at once."""
RETRY_SECONDS = 5.0
"""How long a screen that failed to open waits before it is tried again."""


TOUCH_HINTS = {"SDL_TOUCH_MOUSE_EVENTS": "0", "SDL_MOUSE_TOUCH_EVENTS": "0"}
"""SDL hints (read from the environment when the video subsystem starts): a touch gives no
synthetic mouse click and a click no synthetic touch, so one tap is one event. A value
already in the environment wins. :class:`~display.dealer.DealerScreen` still drops a copy
that arrives anyway (some touchscreen drivers send their own mouse click)."""


def _start_sdl() -> None:
    """SDL's video and fonts, once per process (display.theme.FontError: a font unreadable)."""
    check_fonts()
    if not pygame.display.get_init():
        for hint, value in TOUCH_HINTS.items():
            os.environ.setdefault(hint, value)
        pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()


@dataclass(slots=True)
class _Output:
    name: str
    window: pygame.Window | None
    surface: pygame.Surface | None
    frame: Frame | None = None
    version: int = -1
    anim_key: object = None
    dirty: bool = True


class DisplayApp:
    """Dealer and/or player screens in one process, on the main thread.

    Args:
        get_views: returns the newest ``(DealerView, PlayerView)``; must not block.
        inbox: the controller's command queue; commands are posted with ``put_nowait``.
        views: which screens to open: ``("dealer", "player")``, ``("dealer",)`` or
            ``("player",)`` (a second machine can show the player view alone).
        lang: ``en``, ``fr`` or ``uk``.
        sizes: view name -> (width, height); defaults to :data:`DEFAULT_SIZES`, or the
            desktop size of the output in fullscreen.
        fullscreen: open each window fullscreen on its output.
        headless: draw into off-screen surfaces, no windows (tests, screenshots,
            benchmarks).
        outputs: view name -> display (monitor) index; dealer 0 and player 1 by default
            when two outputs exist. In a window, a screen whose output does not exist
            goes on the last display there is, with a warning (see :func:`place_screens`).
            Fullscreen, it is not opened on another screen's output: it waits for its
            own, and the outputs are followed (:class:`~display.outputs.OutputWatch`):
            a screen opens when its output comes and closes when it goes.
        fps: frame rate of the loop.
        title: window title prefix.
        input_script: touches and keys to play on the dealer screen
            (:mod:`display.input_script`), or None.
        fence: the table's fence the script waits on between steps (see
            :mod:`display.input_script`), or None.
        script_start: set when the script's first step may play, or None.

    Each window opened logs one line naming the screen, its output and its size
    (``dealer screen on output 0, 1920x1080``). A screen that is not open is in
    :attr:`missing` with why (``output 1 not found (1 output)``, or the error that kept
    it from opening: it is tried again every :data:`RETRY_SECONDS`); while the player
    screen is missing, the dealer screen says so in its alarm strip.

    Raises:
        ValueError: ``views`` names neither screen.
        pygame.error: SDL's video did not start (``kmsdrm not available``).
        display.theme.FontError: a bundled font cannot be read.
    """

    def __init__(self, get_views: Callable[[], tuple[DealerView, PlayerView]],
                 inbox: queue.Queue, views: Iterable[str] = ("dealer", "player"),
                 lang: str = "en", sizes: Mapping[str, tuple[int, int]] | None = None,
                 fullscreen: bool = False, headless: bool = False,
                 outputs: Mapping[str, int] | None = None, fps: int = 30,
                 title: str = "Three Card Poker", input_script: InputScript | None = None,
                 fence: Fence | None = None, script_start: threading.Event | None = None
                 ) -> None:
        self.get_views = get_views
        self.inbox = inbox
        self.names = tuple(v for v in views if v in ("dealer", "player"))
        if not self.names:
            raise ValueError("views must name 'dealer' and/or 'player'")
        self.fps = max(1, int(fps))
        self.headless = headless
        _start_sdl()
        self.fonts = FontBook()
        self.dealer = DealerScreen(self.fonts, lang)
        self.player = PlayerScreen(self.fonts, lang)
        self._clock = pygame.time.Clock()
        self._pending: collections.deque[DealerCommand] = collections.deque()
        self._views: tuple[DealerView, PlayerView] | None = None
        self.quit_requested = False
        self.redraws = {n: 0 for n in self.names}
        self.frames_run = 0
        self.outputs: dict[str, _Output] = {}
        self.missing: dict[str, str] = {}
        self.driver = ""
        self.watch: OutputWatch | None = None
        self.script = (ScriptPlayer(input_script, fence, script_start)
                       if input_script is not None else None)
        if self.script is not None and "dealer" not in self.names:
            log.error("input script %s not played: the dealer screen is not open",
                      input_script.path)
        self.placements: dict[str, Placement] = {}
        if headless:
            self._draw_off_screen(sizes or {})
            return
        self.fullscreen = fullscreen
        self._title, self._sizes = title, dict(sizes or {})
        self._wanted = dict(outputs or {})
        if fullscreen:  # each screen its own output: never the first one for want of it
            self._wanted = {n: self._wanted.get(n, i) for i, n in enumerate(self.names)}
        self._retry_at: dict[str, float] = {}
        self._restarted_for: tuple | None = None
        self.driver = pygame.display.get_driver()
        if self.driver in SHOWN_NOWHERE:
            log.warning("SDL video driver %r: the screens are drawn but shown nowhere (no "
                        "display found: set DISPLAY or WAYLAND_DISPLAY, or "
                        "SDL_VIDEODRIVER=kmsdrm on a console; --headless runs without "
                        "screens)", self.driver)
        if fullscreen:
            self.watch = OutputWatch(self.driver, pygame.display.get_desktop_sizes)
        self._open_all(time.monotonic())

    def _draw_off_screen(self, sizes: Mapping[str, tuple[int, int]]) -> None:
        for name in self.names:
            size = sizes.get(name) or DEFAULT_SIZES[name]
            self.outputs[name] = _Output(name, None, pygame.Surface(size))
            log.debug("%s screen off-screen, %dx%d", name, *size)

    # -- public -------------------------------------------------------------------------

    @property
    def shown_nowhere_note(self) -> str:
        """What the daemon's STATUS says when no one can see the windows, else ''.

        ``; screens shown nowhere (SDL video driver offscreen)`` for windows opened through
        a driver of :data:`SHOWN_NOWHERE`; '' for off-screen surfaces asked for
        (``headless``).
        """
        if self.outputs and self.driver in SHOWN_NOWHERE:
            return f"; screens shown nowhere (SDL video driver {self.driver})"
        return ""

    @property
    def surfaces(self) -> dict[str, pygame.Surface]:
        """The current surface of each screen (window surfaces or off-screen ones)."""
        return {n: self._surface(o) for n, o in self.outputs.items()}

    def frame(self, name: str) -> Frame | None:
        """The frame last drawn on screen ``name`` (buttons, texts, regions)."""
        o = self.outputs.get(name)
        return o.frame if o else None

    def step(self, now: float | None = None, wait: bool = True) -> bool:
        """Run one frame: input, newest views, redraw if needed, then wait for the tick.

        Args:
            now: monotonic seconds (tests pass it; the clock otherwise).
            wait: sleep to keep the frame rate (tests pass False).

        Returns:
            False once the user asked to quit (window closed), else True.
        """
        now = time.monotonic() if now is None else now
        views = self._read_views()
        if self.script is not None and "dealer" in self.outputs:
            self.script.tick(now, views[0].state if views is not None else None,
                             armed=self.dealer.armed(now))
        for event in pygame.event.get() if pygame.display.get_init() else ():
            self._event(event, views, now)
        self._flush()
        self._follow(now)
        if self.script is not None:
            self.script.flushed()
        if views is not None:
            dv, pv = views
            for name, out in self.outputs.items():
                view = dv if name == "dealer" else pv
                screen = self.dealer if name == "dealer" else self.player
                if name == "dealer":
                    anim = self.dealer.animation_key(dv, now)
                else:
                    anim = self.player.animation_key(pv, now)
                if out.dirty or view.version != out.version or anim != out.anim_key or (
                        name == "dealer" and now < self.dealer.ui.flash[1] + 0.05):
                    surface = self._surface(out)
                    out.frame = screen.draw(surface, view, now)  # type: ignore[arg-type]
                    out.version, out.anim_key, out.dirty = view.version, anim, False
                    self.redraws[name] += 1
                    if out.window is not None:
                        out.window.flip()
        if self.script is not None and "dealer" in self.outputs:
            self.script.drawn(self.surfaces, {n: o.frame for n, o in self.outputs.items()})
        self.frames_run += 1
        if wait:
            self._clock.tick(self.fps)
        return not self.quit_requested

    def run_until(self, stop_event: threading.Event) -> None:
        """Run frames at the fixed rate until ``stop_event`` is set or the user quits.

        Args:
            stop_event: set by the daemon (e.g. on SIGTERM) to end the loop.
        """
        while not stop_event.is_set():
            if not self.step():
                break

    def close(self) -> None:
        """Close the windows (the pygame modules stay initialised for others)."""
        if self.watch is not None:
            self.watch.close()
        for out in self.outputs.values():
            if out.window is not None:
                out.window.destroy()
                out.window = None

    @property
    def follows_outputs(self) -> bool:
        """True when screens open and close as their outputs come and go (fullscreen)."""
        return self.watch is not None

    # -- internals ----------------------------------------------------------------------

    def _open_all(self, now: float) -> None:
        """Open every screen not open whose output is there (and whose retry is due)."""
        desktops = pygame.display.get_desktop_sizes()
        found = self.watch.sizes(now) if self.watch is not None else None
        count = len(desktops) if found is None else min(len(desktops), len(found))
        self.placements = place_screens(self.names, self._wanted, count)
        opened = False
        for name, place in self.placements.items():
            if name in self.outputs or now < self._retry_at.get(name, 0.0):
                continue
            if self.fullscreen and not (place.found and place.wanted < count):  # never
                # over another screen, nor on an output that is not there
                why = f"output {place.wanted} not found ({count} found)"
                if self.missing.get(name) != why:
                    log.warning("%s screen waits for its output: %s", name, why)
                self.missing[name] = why
                continue
            self._open_window(place, self._title, self._sizes.get(name), self.fullscreen,
                              desktops)
            opened = opened or name in self.outputs
            if name in self.outputs:
                self.missing.pop(name, None)
            else:
                self._retry_at[name] = now + RETRY_SECONDS
        if opened and not self.fullscreen:
            self._share_outputs(desktops)
        self._note_missing()

    def _follow(self, now: float) -> None:
        """Close the screens whose output went, open those whose output came.

        Where SDL in this process does not know an output the separate check found
        (KMS/DRM reads the connectors when video starts), SDL's video is started again,
        once for each new set of outputs: the windows open again at once.
        """
        if self.headless:
            return
        if not pygame.display.get_init():
            self._restart_video(now)
            return
        found = self.watch.sizes(now) if self.watch is not None else None
        if found is not None:
            for name in [n for n in self.outputs if self._wanted[n] >= len(found)]:
                self._close(name, f"output {self._wanted[name]} not found ({len(found)} "
                            "found)")
            known = len(pygame.display.get_desktop_sizes())
            if (found != self._restarted_for and known < len(found)
                    and any(self._wanted[n] < len(found) for n in self.missing)):
                self._restarted_for = found
                log.warning("%d outputs found, SDL knows %d: its video starts again to "
                            "open the screens on them", len(found), known)
                self._restart_video(now)
                return
        if any(now >= self._retry_at.get(n, 0.0) for n in self.missing):
            self._open_all(now)
            for name in self.missing:  # waiting for an output: looked at again later
                self._retry_at[name] = max(self._retry_at.get(name, 0.0),
                                           now + (self.watch.every if self.watch else
                                                  RETRY_SECONDS))

    def _restart_video(self, now: float) -> None:
        """Close every window, stop and start SDL's video, open the screens again."""
        for name in list(self.outputs):
            out = self.outputs.pop(name)
            if out.window is not None:
                out.window.destroy()
        if now < self._retry_at.get("video", 0.0):
            return
        pygame.display.quit()
        try:
            pygame.display.init()
        except pygame.error as exc:
            self._retry_at["video"] = now + RETRY_SECONDS
            for name in self.names:
                if self.missing.get(name) != f"SDL video: {exc}":
                    log.error("%s screen closed: SDL's video did not start again (%s)",
                              name, exc)
                self.missing[name] = f"SDL video: {exc}"
            self._note_missing()
            return
        self._retry_at.clear()
        self._open_all(now)

    def _close(self, name: str, why: str) -> None:
        """Close one screen whose output went; it opens again when the output comes."""
        out = self.outputs.pop(name)
        if out.window is not None:
            out.window.destroy()
        self.missing[name] = why
        log.warning("%s screen closed: %s", name, why)
        self._note_missing()

    def _note_missing(self) -> None:
        """The dealer screen says, in its alarm strip, that the player screen is missing."""
        notices: tuple[Banner, ...] = ()
        if "player" in self.missing and "dealer" in self.names:
            notices = (Banner("player_screen", "warning"),)  # words: banner.player_screen
        if notices != self.dealer.ui.notices:
            self.dealer.ui.notices = notices
            if "dealer" in self.outputs:
                self.outputs["dealer"].dirty = True

    def _open_window(self, place: Placement, title: str, size: tuple[int, int] | None,
                     fullscreen: bool, desktops: list[tuple[int, int]]) -> None:
        """Open one screen's window on its output and log where it went (or why not)."""
        name, output = place.name, place.output
        if size is None:
            size = (desktops[output] if fullscreen and output < len(desktops)
                    else DEFAULT_SIZES[name])
        win = None
        try:
            win = pygame.Window(f"{title} \u2014 {name}", size, centered_on(output))
            if fullscreen:
                win.set_fullscreen(desktop=True)
        except (pygame.error, TypeError, ValueError) as exc:
            if win is not None:
                win.destroy()
            why = f"did not open on output {output}: {exc}"
            if self.missing.get(name) != why:
                log.error("%s screen %s (tried again every %g s)", name, why, RETRY_SECONDS)
            self.missing[name] = why
            return
        self.outputs[name] = _Output(name, win, None)
        w, h = win.size
        if place.found:
            log.info("%s screen on output %d, %dx%d (SDL video driver %s)", name, output, w, h,
                     self.driver)
        else:
            log.warning("%s screen on output %d (output %d not found), %dx%d (SDL video "
                        "driver %s)", name, output, place.wanted, w, h, self.driver)

    def _share_outputs(self, desktops: list[tuple[int, int]]) -> None:
        """Windows on one output side by side or cascaded, not one over the other."""
        by_output: dict[int, list[_Output]] = {}
        for name, out in self.outputs.items():
            by_output.setdefault(self.placements[name].output, []).append(out)
        for output, outs in by_output.items():
            if len(outs) < 2 or output >= len(desktops):
                continue
            wins = [o.window for o in outs if o.window is not None]
            # a centred window gives the output's top left corner in desktop coordinates
            (cx, cy), (w0, h0) = wins[0].position, wins[0].size
            x0 = cx + w0 // 2 - desktops[output][0] // 2
            y0 = cy + h0 // 2 - desktops[output][1] // 2
            rects = share_output([w.size for w in wins], desktops[output])
            for out, win, rect in zip(outs, wins, rects, strict=True):
                win.size = rect.size
                win.position = (x0 + rect.x, y0 + rect.y)
                out.dirty = True
                log.info("%s screen moved to %d,%d and %dx%d: it shares output %d",
                         out.name, rect.x, rect.y, rect.w, rect.h, output)

    def _surface(self, out: _Output) -> pygame.Surface:
        if out.window is not None:
            return out.window.get_surface()
        assert out.surface is not None
        return out.surface

    def _read_views(self) -> tuple[DealerView, PlayerView] | None:
        try:
            views = self.get_views()
        except Exception:  # noqa: BLE001 - a bad snapshot must not stop the screens
            log.exception("get_views failed; keeping the last snapshot")
            return self._views
        if views is not None:
            self._views = views
        return self._views

    def _event(self, event: pygame.event.Event, views: tuple[DealerView, PlayerView] | None,
               now: float) -> None:
        if event.type in (pygame.QUIT, pygame.WINDOWCLOSE):
            self.quit_requested = True
            return
        if event.type in OUTPUT_EVENTS and self.watch is not None:
            self.watch.poke()
            return
        if event.type in (pygame.WINDOWSIZECHANGED, pygame.WINDOWEXPOSED,
                          pygame.WINDOWRESTORED):
            for out in self.outputs.values():
                out.dirty = True
            return
        if event.type not in INPUT_EVENTS or views is None or "dealer" not in self.outputs:
            return
        dealer = self.outputs["dealer"]
        win = getattr(event, "window", None)
        if win is not None and dealer.window is not None and win != dealer.window:
            return  # input on the player window is ignored
        before = (self.dealer.ui.screen, self.dealer.ui.pad)
        cmds = self.dealer.handle(event, dealer.frame, views[0], now)
        dealer.dirty = True
        if (self.dealer.ui.screen, self.dealer.ui.pad) != before:
            log.debug("dealer screen %s pad %s", self.dealer.ui.screen, self.dealer.ui.pad)
        self._pending.extend(cmds)

    def _flush(self) -> None:
        while self._pending:
            cmd = self._pending[0]
            try:
                self.inbox.put_nowait(cmd)
            except queue.Full:
                log.warning("controller inbox full; %s waits for the next frame", cmd.name)
                return
            self._pending.popleft()
