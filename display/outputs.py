"""Which video outputs there are, followed while the table runs.

A screen waits for its output (a players' TV switched off at boot) and opens when it
comes; it closes when its output goes. How the outputs are learnt depends on SDL's video
driver:

* drivers that follow displays as they come and go (:data:`HOTPLUG_DRIVERS`: X11,
  Wayland, Windows, macOS) keep their list current as events are pumped, and send
  ``SDL_DISPLAYEVENT`` (pygame-ce 2.5 names no constant for it: :data:`DISPLAY_EVENT`).
  The list is read in this process, at such an event and every :data:`CHECK_SECONDS`.
* the others (KMS/DRM on a console, where SDL reads the connectors once, when video
  starts) are asked in a process of their own: starting SDL's video again in the
  screens' process would close the dealer's window. That process
  (``python -m display.outputs``) starts and stops SDL's video every
  :data:`CHECK_SECONDS`, without opening a window (it never becomes the DRM master), and
  writes the desktop sizes it found, one JSON line each time they change. It ends when
  its standard input closes (the table stopped, or died).

Nothing here blocks the screen loop.
"""

from __future__ import annotations

import json
import logging
import os
import select
import subprocess
import sys
import threading

log = logging.getLogger(__name__)

HOTPLUG_DRIVERS = frozenset({"x11", "wayland", "windows", "cocoa"})
"""SDL video drivers that keep their list of displays current while events are pumped."""
DISPLAY_EVENT = 0x150
"""SDL2's ``SDL_DISPLAYEVENT`` (a display connected, disconnected, turned or moved)."""
CHECK_SECONDS = 2.0
"""How often the outputs are checked."""
PROBE_MODULE = "display.outputs"
"""The module the separate check runs (``python -m display.outputs SECONDS``)."""

Sizes = tuple[tuple[int, int], ...]


class OutputWatch:
    """The outputs there are now: desktop sizes in SDL's display order.

    Args:
        driver: SDL's video driver in use (``pygame.display.get_driver()``).
        every: seconds between two checks.
        read: reads the sizes in this process (``pygame.display.get_desktop_sizes``).

    Attributes:
        separate: True when a process of its own checks (a driver without display
            events).
    """

    def __init__(self, driver: str, read, every: float = CHECK_SECONDS) -> None:
        self.every = every
        self.separate = driver not in HOTPLUG_DRIVERS
        self._read = read
        self._due = 0.0
        self._latest: Sizes | None = None
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._started_at = 0.0
        self._said_ended = False

    def poke(self) -> None:
        """A display event came: read the outputs at the next :meth:`sizes`."""
        self._due = 0.0

    def sizes(self, now: float) -> Sizes | None:
        """The outputs as last found, or None before the first answer.

        Args:
            now: monotonic seconds.
        """
        if not self.separate:
            if now >= self._due:
                self._due = now + self.every
                try:
                    self._latest = tuple(tuple(s) for s in self._read())  # type: ignore[misc]
                except Exception as exc:  # noqa: BLE001 - the outputs stay as last found
                    log.warning("outputs could not be read: %s", exc)
            return self._latest
        if (self._proc is None or self._proc.poll() is not None) and now >= self._due:
            self._start(now)
        with self._lock:
            return self._latest

    def close(self) -> None:
        """End the separate check (its standard input closes; killed if it lingers)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(2.0)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(2.0)

    def _start(self, now: float) -> None:
        """Start the separate check (again, once it ended: never more than once a period)."""
        if self._proc is not None and not self._said_ended:
            log.warning("the check of the outputs ended (status %s): started again",
                        self._proc.returncode)
            self._said_ended = True
        self._due = now + max(self.every, 5.0)
        env = {**os.environ, "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", PROBE_MODULE, f"{self.every:g}"], env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, close_fds=True)
        except OSError as exc:
            log.error("the outputs cannot be checked: %s", exc)
            return
        threading.Thread(target=self._listen, args=(self._proc,), name="outputs",
                         daemon=True).start()

    def _listen(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            try:
                found = tuple((int(w), int(h)) for w, h in json.loads(line))
            except (ValueError, TypeError):
                continue
            with self._lock:
                self._latest = found


def _desktops() -> Sizes | None:
    """SDL's desktop sizes, video started and stopped again (None: it did not start)."""
    import pygame

    try:
        pygame.display.init()
    except pygame.error:
        return None
    try:
        return tuple(tuple(s) for s in pygame.display.get_desktop_sizes())  # type: ignore[misc]
    finally:
        pygame.display.quit()


def main(argv: list[str] | None = None) -> int:
    """The separate check: desktop sizes every SECONDS, a JSON line when they change."""
    args = sys.argv[1:] if argv is None else argv
    every = float(args[0]) if args else CHECK_SECONDS
    last: Sizes | None = None
    while True:
        found = _desktops()
        if found is not None and found != last:
            try:
                print(json.dumps(found), flush=True)
            except BrokenPipeError:
                return 0
            last = found
        ready, _, _ = select.select([sys.stdin], [], [], every)
        if ready and not sys.stdin.readline():
            return 0  # the table closed our input: it stopped


if __name__ == "__main__":
    sys.exit(main())
