"""``threecard screenshot``: render a named scenario of a screen to a PNG, headless."""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import Any

from controller.game.inputs import ManualCard, VoidRound
from controller.game.numbers import LANGUAGES
from display.scenarios import SCENARIOS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``screenshot`` sub-command's arguments."""
    parser.add_argument("--view", choices=("dealer", "player"), required=True,
                        help="the screen drawn")
    parser.add_argument("--scenario", choices=SCENARIOS, required=True, metavar="NAME",
                        help=f"the scene it shows: {', '.join(SCENARIOS)}")
    parser.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT (default 1920x1080)")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="the screen's language")
    parser.add_argument("--pad", choices=("reason", "card", "pin"), default=None,
                        help="dealer only: show a supervisor pad open")
    parser.add_argument("--out", required=True,
                        help="PNG file to write, its name ending in .png (in a folder that "
                        "exists)")


def parse_size(text: str) -> tuple[int, int]:
    """Parse ``1920x1080``.

    Raises:
        ValueError: not WIDTHxHEIGHT with both between 200 and 8000.
    """
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size must be WIDTHxHEIGHT, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise ValueError(f"size out of range: {text!r}")
    return w, h


def render(view: str, scenario: str, size: tuple[int, int], lang: str = "en",
           pad: str | None = None) -> tuple[Any, Any]:
    """Render a scenario of :data:`display.scenarios.SCENARIOS` off-screen: (surface, frame).

    ``pad`` (dealer only) opens the ``reason``, ``card`` or ``pin`` pad.
    """
    from display.scenarios import build

    painter = ViewPainter(size, lang)
    sc = build(scenario)
    if view != "dealer":
        return painter.draw("player", sc.player)
    import pygame

    from display.dealer import DealerScreen

    surface = pygame.Surface(size)
    screen = DealerScreen(painter.fonts, lang)
    screen.ui.screen = sc.dealer_screen
    if pad:
        screen.ui.pad = pad
        screen.ui.pad_action = {"card": ManualCard.name}.get(pad, VoidRound.name)
        if pad == "pin":
            screen.ui.reason = "shoe_fault"
            screen.ui.pin = "1234"
    return surface, screen.draw(surface, sc.dealer)


class ViewPainter:
    """Draws given views off-screen as the table's screens do (say, a replayed journal's).

    Headless (``SDL_VIDEODRIVER=dummy`` unless set), one size in pixels and language.

    Raises:
        FontError: a bundled font cannot be read (before anything is drawn).
    """

    def __init__(self, size: tuple[int, int], lang: str = "en") -> None:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        from display.theme import FontBook, check_fonts

        check_fonts()  # both faces there and whole, or stop before any work
        if not pygame.display.get_init():
            pygame.display.init()
        pygame.font.init()
        self.size, self.lang = size, lang
        self.fonts = FontBook()

    def draw(self, screen: str, view: Any) -> tuple[Any, Any]:
        """Draw one view on a new surface (``dealer``: its main screen): (surface, frame)."""
        import pygame

        from display.dealer import DealerScreen
        from display.player import PlayerScreen

        surface = pygame.Surface(self.size)
        painter = DealerScreen if screen == "dealer" else PlayerScreen
        return surface, painter(self.fonts, self.lang).draw(surface, view)

    def png(self, screen: str, view: Any) -> bytes:
        """:meth:`draw`, encoded as a PNG file's bytes."""
        return png_bytes(self.draw(screen, view)[0])


def png_bytes(surface: Any) -> bytes:
    """A surface as a PNG file's bytes (encoded in memory)."""
    import pygame

    png = io.BytesIO()
    pygame.image.save(surface, png, "screen.png")
    return png.getvalue()


def check_out(text: str) -> Path:
    """Check where ``--out`` writes: a ``.png`` in a writable folder that exists.

    The folder is never created: a mistyped path is an error, not a new folder.

    Raises:
        ValueError: naming ``--out``, when it is not such a file.
    """
    out = Path(text)
    folder = out.parent
    if not folder.exists():
        raise ValueError(f"--out: folder {folder} does not exist (create it first)")
    if not folder.is_dir():
        raise ValueError(f"--out: {folder} is not a folder")
    if out.is_dir():
        raise ValueError(f"--out: {out} is a folder; give the PNG file's path")
    if out.suffix.lower() != ".png":
        raise ValueError(f"--out: {text} does not end in .png (a screenshot is a PNG file)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--out: folder {folder} is not writable")
    return out


def run(args: argparse.Namespace) -> int:
    """Render and write the PNG: 0; 2 on bad arguments; 1 when a bundled font is unreadable."""
    import pygame

    from display.theme import FontError

    pad = getattr(args, "pad", None)
    try:
        size = parse_size(args.size)
        if pad and args.view != "dealer":
            raise ValueError(f"--pad: the {pad} pad is on the dealer screen only "
                             "(--view dealer)")
        out = check_out(args.out)
    except ValueError as exc:
        print(f"threecard screenshot: {exc}", file=sys.stderr)
        return 2
    try:
        surface, _ = render(args.view, args.scenario, size, args.lang, pad)
    except FontError as exc:
        print(f"threecard screenshot: {exc}", file=sys.stderr)
        return 1
    # encoded in memory, written in one call: a failing write is one error, where
    # pygame writing to a file object prints the exception of every chunk it writes
    png = io.BytesIO()
    try:
        pygame.image.save(surface, png, out.name)
        out.write_bytes(png.getvalue())
    except (pygame.error, OSError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        print(f"threecard screenshot: --out: cannot write {out}: {reason}", file=sys.stderr)
        return 2
    print(out)
    return 0
