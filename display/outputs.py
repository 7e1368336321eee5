"""Which video outputs there are, followed while the table runs, and where screens go.

A screen waits for its output (a TV off at boot) and closes when it goes. Hot-plug
drivers (:data:`HOTPLUG_DRIVERS`) are read here at each display event and every
:data:`CHECK_SECONDS`. KMS/DRM reads its connectors only when video starts, and starting it
again here would close the dealer's window, so ``python -m display.outputs`` restarts
SDL's video in a process of its own (no window: never the DRM master) and writes the sizes
as JSON lines until its stdin closes. Nothing here blocks the screen loop.
"""

from __future__ import annotations

import json
import logging
import os
import select
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pygame

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
MIN_WINDOW = (800, 480)
"""The smallest size the layouts are made for: windows sharing an output stop there."""
SDL_WINDOWPOS_CENTERED_MASK = 0x2FFF0000
"""SDL2's ``SDL_WINDOWPOS_CENTERED_MASK``: a coordinate that reads "centred on display N"."""


class OutputWatch:
    """The outputs there are now: desktop sizes in SDL's display order, checked ``every`` s.

    ``separate``: a process of its own checks (a driver without display events).
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
        """The outputs as last found (``now``: monotonic seconds), None before the first."""
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


def centered_on(output: int) -> tuple[int, int]:
    """The window position ``(SDL_WINDOWPOS_CENTERED_DISPLAY(output),) * 2``.

    A pair, as pygame-ce's Window refuses a single centred-on-display integer; SDL2 reads
    the display from the low 16 bits (display 0 for one it lacks).

    Raises:
        ValueError: ``output`` outside 0..65535 (it would corrupt the mask).
    """
    if not 0 <= output <= 0xFFFF:
        raise ValueError(f"display index out of range: {output}")
    pos = SDL_WINDOWPOS_CENTERED_MASK | output
    return pos, pos


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one screen goes: ``wanted`` when that display exists, else the last one."""

    name: str
    wanted: int
    output: int

    @property
    def found(self) -> bool:
        """True when the screen is on the output it was given."""
        return self.output == self.wanted


def place_screens(names: Iterable[str], outputs: Mapping[str, int],
                  displays: int) -> dict[str, Placement]:
    """Choose the output of each screen; a screen never vanishes for want of a display.

    A screen not in ``outputs`` gets its place in ``names`` if that display exists, else 0;
    a configured one that does not exist is replaced by the last display there is.
    """
    last = max(0, displays - 1)
    placed = {}
    for i, name in enumerate(names):
        wanted = outputs.get(name, i if displays > i else 0)
        output = wanted if 0 <= wanted < displays else (0 if wanted < 0 else last)
        placed[name] = Placement(name, wanted, output)
    return placed


def share_output(sizes: list[tuple[int, int]], area: tuple[int, int],
                 minimum: tuple[int, int] = MIN_WINDOW) -> list[pygame.Rect]:
    """Lay out windows sharing one output (windowed mode) so that each can be seen.

    Side by side, shrunk alike down to ``minimum`` pixels, when they fit; else cascaded
    from the top left, each at most three quarters of the output (its title bar shows).
    """
    w_area, h_area = area
    n = len(sizes)
    widths = [float(w) for w, _ in sizes]
    for _ in range(n):  # windows at the minimum keep it; the others share what is left
        floor = [i for i, (w, _) in enumerate(sizes) if widths[i] <= minimum[0] < w]
        free = [i for i in range(n) if i not in floor]
        room = w_area - sum(widths[i] for i in floor)
        f = min([1.0, room / max(1.0, sum(widths[i] for i in free))]
                + [h_area * sizes[i][0] / (sizes[i][1] * widths[i]) for i in free])
        widths = [widths[i] if i in floor else max(min(minimum[0], sizes[i][0]),
                                                   widths[i] * f) for i in range(n)]
    fitted = [(round(w), round(w * h / ow)) for w, (ow, h) in zip(widths, sizes, strict=True)]
    if (sum(w for w, _ in fitted) <= w_area and all(h <= h_area for _, h in fitted)
            and all(w >= min(minimum[0], ow) and h >= min(minimum[1], oh)
                    for (w, h), (ow, oh) in zip(fitted, sizes, strict=True))):
        x = (w_area - sum(w for w, _ in fitted)) // 2
        rects = []
        for w, h in fitted:
            rects.append(pygame.Rect(x, (h_area - h) // 2, w, h))
            x += w
        return rects
    rects = []
    for i, (w, h) in enumerate(sizes):
        g = min(1.0, 0.75 * w_area / w, 0.75 * h_area / h)
        cw, ch = max(min(minimum[0], w), round(w * g)), max(min(minimum[1], h), round(h * g))
        step = i / (n - 1) if n > 1 else 0.0
        rects.append(pygame.Rect(round(step * max(0, w_area - cw)),
                                 round(step * max(0, h_area - ch)), cw, ch))
    return rects


def _desktops() -> Sizes | None:
    """SDL's desktop sizes, video started and stopped again (None: it did not start)."""
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
