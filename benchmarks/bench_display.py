"""Display cost: render time per frame at 1920x1080, and CPU of an idle display.

* Render time: ``DealerScreen.draw`` / ``PlayerScreen.draw`` of a busy scenario (settled:
  cards, results, payout list) on a 1920x1080 surface, caches warm (the steady state of a
  shift; the first frame after start-up or a language change builds the caches and is
  reported in a note). Target: under 8 ms.
* Idle CPU: a :class:`display.app.DisplayApp` with both windows (SDL dummy video driver
  unless a real one is set) at 30 frames per second whose snapshot does not change, run
  for 10 s (3 s with ``--quick``); CPU seconds of this process / wall seconds. Target:
  under 3 % of one core. The same with the shoe link lost (the alarm blinks at 2 Hz).

Run: ``python benchmarks/bench_display.py [--json] [--quick]``.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pygame  # noqa: E402
from common import emit, figure, parser, show, stats  # noqa: E402

from display.app import DisplayApp  # noqa: E402
from display.dealer import DealerScreen  # noqa: E402
from display.player import PlayerScreen  # noqa: E402
from display.scenarios import build  # noqa: E402
from display.theme import FontBook  # noqa: E402

SIZE = (1920, 1080)


def render_times(view: str, scenario: str, frames: int, runs: int) -> tuple[list[float], float]:
    """Median ms per frame of each run, and the cold first frame in ms."""
    fonts = FontBook()
    sc = build(scenario)
    surface = pygame.Surface(SIZE)
    if view == "dealer":
        screen = DealerScreen(fonts, "en")

        def draw() -> None:
            screen.draw(surface, sc.dealer, 0.0)
    else:
        pscreen = PlayerScreen(fonts, "en")

        def draw() -> None:
            pscreen.draw(surface, sc.player, 0.0)
    t0 = time.perf_counter()
    draw()
    cold = (time.perf_counter() - t0) * 1000
    for _ in range(5):
        draw()
    out = []
    for _ in range(runs):
        samples = []
        for _ in range(frames):
            t = time.perf_counter()
            draw()
            samples.append((time.perf_counter() - t) * 1000)
        samples.sort()
        out.append(samples[len(samples) // 2])
    return out, cold


def idle_cpu(scenario: str, seconds: float) -> tuple[float, int]:
    """Percent of one core used by an idle two-window display, and the redraw count."""
    sc = build(scenario)
    views = (sc.dealer, sc.player)
    app = DisplayApp(lambda: views, queue.Queue(), views=("dealer", "player"),
                     sizes={"dealer": (1280, 800), "player": SIZE}, fps=30)
    stop = threading.Event()
    app.step()  # first draw
    start_redraws = sum(app.redraws.values())
    timer = threading.Timer(seconds, stop.set)
    c0, w0 = time.process_time(), time.perf_counter()
    timer.start()
    app.run_until(stop)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    app.close()
    return 100.0 * cpu / wall, sum(app.redraws.values()) - start_redraws


def main() -> int:
    args = parser(__doc__.splitlines()[0]).parse_args()
    pygame.display.init()
    pygame.font.init()
    frames, runs = (30, 3) if args.quick else (100, 5)
    seconds = 3.0 if args.quick else 10.0
    figures = []
    for view in ("dealer", "player"):
        print(f"render {view} ...", file=sys.stderr)
        times, cold = render_times(view, "settled", frames, runs)
        figures.append(figure(
            f"render time per frame, 1920x1080, {view} view (settled round)", "ms", "lower",
            stats(times, f"median of {frames} frames per run; first frame {cold:.0f} ms "
                         "(cold caches)"),
            note="target: under 8 ms"))
    for scenario, label in (("settled", "idle"), ("link-lost", "link alarm blinking")):
        print(f"idle cpu {scenario} ({seconds:.0f} s) ...", file=sys.stderr)
        pct, redraws = idle_cpu(scenario, seconds)
        figures.append(figure(
            f"CPU of the display, {label}, dealer + player windows, 30 fps", "% of a core",
            "lower", stats([pct], f"{seconds:.0f} s, {redraws} redraws"),
            note="target: under 3 %"))
    notes = [f"SDL video driver: {os.environ.get('SDL_VIDEODRIVER')}; pygame-ce "
             f"{pygame.version.ver}"]
    (emit if args.json else show)("display", figures, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
