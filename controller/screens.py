"""The daemon's screens: opened before READY, the dealer's waited for, the player's followed.

* The **dealer screen** is essential: READY waits for it, at most ``[display]
  dealer_wait`` seconds (60 by default, below the unit's ``TimeoutStartSec``, whose
  time is extended to cover the wait); then :class:`ScreenError` names the screen and
  why, the daemon exits with status 1, and systemd's ``Restart=`` and start limits take
  over. While it waits, SDL's video is tried again every :data:`RETRY_SECONDS` when it
  did not start.
* The **player screen** is not essential: READY is sent without it; the STATUS line
  and the dealer screen say it is missing, and it opens when its output comes
  (:mod:`display.outputs`).
* Once READY, a screen that goes (its output gone, SDL's video lost) and comes back is
  journaled, a ``device`` record each time (R20, :class:`ScreenWatch`): only changes,
  never a record per look. A screen missing at READY is journaled lost then.
* Headless, no screen opens (none would be seen) unless an input script plays on them.
* A bundled font that cannot be read is not something waiting fixes: it stops the
  start at once (:class:`ScreenError` naming the file).

SDL's Wayland driver writes a warning of its own on standard error when
``XDG_RUNTIME_DIR`` is not an absolute path (SDL tries Wayland whenever no driver is
named); :func:`quiet_runtime_dir` gives the process a private one first.

The display package is loaded by name: this module imports no screen library.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import shutil
import sys
import tempfile
import time
from typing import Any

from controller import cli
from controller.game.fault_record import DeviceRecord, device_record

log = logging.getLogger("threecard")

RETRY_SECONDS = 2.0
"""How often SDL's video is tried again while the dealer screen is waited for."""
EXTEND_MARGIN_S = 15.0
"""What the start timeout is extended by beyond the dealer screen's wait."""


class ScreenError(RuntimeError):
    """The dealer screen cannot open (the message names it and why): the start fails."""


def quiet_runtime_dir(environ: Any = None) -> str | None:
    """Give the process a private ``XDG_RUNTIME_DIR`` when it has no usable one.

    libwayland refuses (and says so on standard error, beside our log) a runtime folder
    that is unset or not an absolute path, each time SDL probes for Wayland. A new folder
    of mode 0700, removed at exit, keeps SDL quiet: no compositor is there, as none was
    reachable before. A folder that is set and absolute is left alone.

    Returns:
        The folder made, or None when the one set was kept.
    """
    env = os.environ if environ is None else environ
    current = env.get("XDG_RUNTIME_DIR", "")
    if current.startswith("/") or env.get("WAYLAND_DISPLAY", "").startswith("/"):
        return None
    base = tempfile.gettempdir()  # a socket's path there must fit in 108 bytes
    folder = tempfile.mkdtemp(prefix="threecard-runtime-",
                              dir=base if len(base) <= 60 else "/tmp")
    atexit.register(shutil.rmtree, folder, True)
    env["XDG_RUNTIME_DIR"] = folder
    log.debug("XDG_RUNTIME_DIR %s: %s used instead", repr(current) if current else "unset",
              folder)
    return folder


def has_display() -> bool:
    """Whether a window opened here can be seen (the demo runs headless where not)."""
    if os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen"):
        return False
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                    or os.environ.get("SDL_VIDEODRIVER") == "kmsdrm")
    return True


def screen_names(config: Any, script: Any = None) -> tuple[str, ...]:
    """The screens to open, dealer first (headless: only for an input ``script``)."""
    if config.headless and script is None:  # seen by no one: not drawn, pygame not loaded
        return ()
    return tuple(n for n, on in (("dealer", config.dealer_screen),
                                 ("player", config.player_screen)) if on)


def try_open(daemon: Any) -> Any:
    """One attempt at the display app of ``daemon``'s configured screens.

    Returns:
        The app (some screens may be missing: :attr:`~display.app.DisplayApp.missing`),
        or None when SDL's video did not start (logged when the reason is new).

    Raises:
        ScreenError: a bundled font cannot be read.
    """
    c = daemon.config
    if c.headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    else:
        quiet_runtime_dir()
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    size = cli.dealer_window(c)
    theme = importlib.import_module("display.theme")
    try:
        return importlib.import_module("display.app").DisplayApp(
            daemon.table.views, daemon.table.inbox, views=daemon.screen_names, lang=c.language,
            fullscreen=c.fullscreen and not c.headless, headless=c.headless,
            sizes={"dealer": size} if size else None,
            outputs={"dealer": c.dealer_output, "player": c.player_output},
            fps=10 if c.headless else 30, title=f"Three Card Poker {c.table_id}",
            input_script=daemon.input_script, fence=daemon.table.fence,
            script_start=daemon.checked)
    except theme.FontError as exc:
        raise ScreenError(f"screens: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - SDL's video did not start: tried again
        why = f"SDL video: {exc}"
        if why != getattr(daemon, "video_problem", ""):
            log.error("screens not open (%s): tried again every %g s", why, RETRY_SECONDS)
        daemon.video_problem = why
        return None


def open_screens(daemon: Any) -> Any:
    """Open the configured screens for ``daemon``; return the display app (or None).

    With a dealer screen configured, waits until it is open (every frame drawn and
    input taken meanwhile), at most ``config.dealer_wait`` seconds, or until a stop is
    asked (then returns what there is).

    Raises:
        ScreenError: the dealer screen did not open in time, or a bundled font is
            missing (at once).
    """
    c = daemon.config
    names = daemon.screen_names
    if not names:
        return None
    wait = float(c.dealer_wait) if "dealer" in names and not c.headless else 0.0
    deadline = time.monotonic() + wait
    if wait:
        daemon.notifier.extend_timeout(wait + EXTEND_MARGIN_S,
                                       f"table {c.table_id}: opening the dealer screen")
    app, said = None, ""
    while True:
        app = app or try_open(daemon)
        why = getattr(daemon, "video_problem", "")
        if app is not None:
            app.step(wait=False)  # the first frame is up before READY
            if "dealer" not in names or "dealer" in app.outputs:
                return app
            why = app.missing.get("dealer", "not open")
            if why != said:
                log.error("dealer screen not open (%s): waited for at most %g s", why, wait)
                said = why
        if "dealer" not in names or daemon.stop_event.is_set():
            return app
        if time.monotonic() >= deadline:
            if app is not None:
                app.close()
            raise ScreenError(f"dealer screen did not open in {wait:g} s: {why}")
        daemon.stop_event.wait(RETRY_SECONDS if app is None else 0.1)


def screens_note(app: Any, names: tuple[str, ...]) -> str:
    """What the STATUS line says of the screens (empty when every one is seen).

    ``; player screen missing (output 1 not found (1 found))`` per screen not open, then
    why no one sees them (:attr:`display.app.DisplayApp.shown_nowhere_note`).
    """
    if app is None:
        return "".join(f"; {n} screen missing" for n in names)
    missing = "".join(f"; {n} screen missing ({app.missing.get(n, 'not open')})"
                      for n in names if n not in app.outputs)
    return missing + app.shown_nowhere_note


class ScreenWatch:
    """The configured screens' comings and goings once READY, as ``device`` records (R20).

    The first look, at READY, gives a ``lost`` record for each screen missing then.

    Args:
        names: the screens configured (:func:`screen_names`).
    """

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.since: dict[str, float] = {}  # screen -> when it was lost (monotonic)

    def changes(self, app: Any, now: float | None = None) -> list[DeviceRecord]:
        """The records of the screens lost or back since the last look (usually none).

        Args:
            app: the display app now (None: no screen open).
            now: monotonic seconds (default the clock's).
        """
        now = time.monotonic() if now is None else now
        out = []
        for name in self.names:
            opened = app is not None and name in app.outputs
            if not opened and name not in self.since:
                self.since[name] = now
                why = app.missing.get(name, "not open") if app is not None else "not open"
                out.append(device_record(f"{name} screen", "lost", why))
            elif opened and name in self.since:
                away = (now - self.since.pop(name)) * 1000
                out.append(device_record(f"{name} screen", "back", "open again", away))
        return out
