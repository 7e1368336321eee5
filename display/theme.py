"""Colours, fonts and cached text for both screens: high contrast on green felt.

Fonts are the bundled DejaVu Sans (Latin, Cyrillic); rendered texts and fitted sizes are
cached, so redrawing an unchanged screen blits instead of rasterising glyphs.
"""

from __future__ import annotations

import functools
import io
from collections import OrderedDict
from importlib import resources
from pathlib import Path
from typing import Any

import pygame

from controller.game.text import drawable

Color = tuple[int, int, int]

FELT = (11, 92, 52)
FELT_DARK = (6, 58, 33)
FELT_EDGE = (4, 40, 23)
PANEL = (8, 50, 30)
PANEL_HI = (14, 74, 44)
PANEL_LINE = (46, 120, 80)
GOLD = (232, 190, 80)
GOLD_DARK = (150, 112, 30)
TEXT = (247, 243, 232)
TEXT_DIM = (178, 200, 186)
TEXT_DARK = (20, 24, 22)
RED = (200, 40, 40)
RED_DARK = (120, 16, 20)
AMBER = (238, 160, 24)
BLUE = (40, 110, 190)
GREEN_OK = (60, 200, 110)
WIN = (120, 230, 140)
LOSE = (255, 120, 110)
PUSH = (200, 210, 220)
BTN = (28, 84, 60)
BTN_LINE = (90, 160, 120)
BTN_OFF = (34, 54, 44)
BTN_OFF_TEXT = (100, 124, 110)
RECALL = (214, 94, 16)
CARD_FACE = (252, 251, 247)
CARD_EDGE = (150, 150, 140)
CARD_RED = (200, 16, 40)
CARD_BLACK = (18, 18, 20)
CARD_BACK = (122, 18, 34)
CARD_BACK_LINE = (180, 60, 70)

SEVERITY_COLORS: dict[str, tuple[Color, Color]] = {
    "error": (RED, TEXT),
    "warning": (AMBER, TEXT_DARK),
    "info": (BLUE, TEXT),
}
"""Banner severity -> (background, text)."""

LINK_COLORS: dict[str, Color] = {
    "online": GREEN_OK,
    "connecting": AMBER,
    "silent": AMBER,
    "disconnected": RED,
}
"""Shoe link state -> indicator colour."""

OUTCOME_COLORS: dict[str, Color] = {"win": WIN, "lose": LOSE, "push": PUSH, "refund": PUSH}
"""Bet outcome -> text colour."""

LINE_HEIGHT = 1.18
"""DejaVu Sans line height as a multiple of the pixel size (SDL_ttf ascent + descent)."""


def font_path(bold: bool = False) -> Path:
    """The bundled font file: ``DejaVuSans.ttf`` or ``DejaVuSans-Bold.ttf``."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return Path(str(resources.files("display") / "fonts" / name))


class FontError(OSError):
    """A bundled font cannot be read or is not a font; one line naming the file."""


@functools.lru_cache(maxsize=2)
def font_bytes(bold: bool = False) -> bytes:
    """The bundled font file's bytes, read once.

    Sizes are made from these bytes: a font opened by path holds a descriptor per size,
    and hundreds would push the shoe's port past what ``select()`` watches (1024).

    Raises:
        FontError: the file is missing or cannot be read.
    """
    path = font_path(bold)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise FontError(f"the bundled font {path} cannot be read "
                          f"({exc.strerror or exc}): reinstall the software") from None


TRUETYPE_SIGNATURES = frozenset({b"\x00\x01\x00\x00", b"true", b"OTTO"})
"""The first four bytes of a TrueType or OpenType font file."""
FONT_PROBE = "Ag 5,00 € Ж ♠♥"
"""Text each face draws once at start: Latin, digits, money, Cyrillic, the suits."""


def check_fonts() -> None:
    """Read both bundled faces once and check that each is a TrueType font.

    The signature is checked before SDL_ttf sees the bytes (2.24 crashes on a non-font).

    Raises:
        FontError: a face is missing, unreadable or not a TrueType font (the screens stop).
    """
    if not pygame.font.get_init():
        pygame.font.init()
    for bold in (False, True):
        data = font_bytes(bold)
        why = "is not a TrueType font" if data[:4] not in TRUETYPE_SIGNATURES else None
        if why is None:  # a font cut short measures nothing: SDL_ttf says "NULL pointer"
            try:  # from its path: SDL reads the file, no Python callback prints its errors
                pygame.font.Font(str(font_path(bold)), 20).render(FONT_PROBE, True, (0, 0, 0))
            except Exception:  # noqa: BLE001 - SDL_ttf's errors come as SystemError too
                why = "is damaged (its glyphs cannot be drawn)"
        if why is not None:
            font_bytes.cache_clear()
            raise FontError(f"the bundled font {font_path(bold)} {why}: reinstall the software")


class SafeFont(pygame.font.Font):
    """A font that draws any text: what SDL_ttf refuses (a NUL, a lone surrogate) as U+FFFD.

    Sizes are remembered (at most ``MAX_SIZES`` texts): a layout measures the same texts at
    every size it tries, thousands of times a frame.
    """

    MAX_SIZES = 8192

    def __init__(self, file: Any, size: int) -> None:
        super().__init__(file, size)
        self._sizes: dict[str, tuple[int, int]] = {}

    def size(self, text: str | bytes, /) -> tuple[int, int]:  # type: ignore[override]
        """The size ``text`` takes, made drawable first."""
        if not isinstance(text, str):  # bytes: measured as given (b"a" == "a" warns)
            return super().size(text)
        hit = self._sizes.get(text)
        if hit is None:
            hit = super().size(drawable(text))
            if len(self._sizes) >= self.MAX_SIZES:
                self._sizes.clear()
            self._sizes[text] = hit
        return hit

    def render(self, text: str | bytes | None, antialias: bool, color: Any,  # type: ignore[override]
               bgcolor: Any = None, wraplength: int = 0) -> pygame.Surface:
        """``text`` rendered, made drawable first."""
        shown = drawable(text) if isinstance(text, str) else text
        return super().render(shown, antialias, color, bgcolor, wraplength)


class FontBook:
    """Fonts by (bold, pixel size), fitted sizes and rendered texts (LRU), all cached."""

    def __init__(self, max_surfaces: int = 3000) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[tuple[bool, int], SafeFont] = {}
        self._fits: dict[tuple[str, bool, int, int, int, int], tuple[int, str, bool]] = {}
        self._surfaces: OrderedDict[tuple[str, bool, int, Color], pygame.Surface] = OrderedDict()
        self._max = max_surfaces

    def font(self, size: int, bold: bool = False) -> pygame.font.Font:
        """The font of ``size`` pixels."""
        key = (bold, max(4, int(size)))
        f = self._fonts.get(key)
        if f is None:
            f = SafeFont(io.BytesIO(font_bytes(bold)), key[1])
            self._fonts[key] = f
        return f

    def fit(self, text: str, bold: bool, size: int, width: int, height: int,
            min_size: int = 8) -> tuple[int, str, bool]:
        """(size, text, truncated): the largest size <= ``size`` fitting the box, in pixels.

        Below ``min_size`` the text is cut with an ellipsis instead.
        """
        key = (text, bold, size, width, height, min_size)
        hit = self._fits.get(key)
        if hit is not None:
            return hit
        s = int(min(size, height / LINE_HEIGHT))
        s = max(min_size, s)
        while True:
            f = self.font(s, bold)
            w, h = f.size(text)
            if (w <= width and h <= height) or s <= min_size:
                break
            s = max(min_size, min(s - 1, int(s * width / max(w, 1))))
        out, truncated = text, False
        f = self.font(s, bold)
        if f.size(out)[0] > width or f.get_linesize() > height:
            truncated = True
            while out and f.size(out + "\u2026")[0] > width:
                out = out[:-1]
            out = out + "\u2026" if out else ""
            if f.get_height() > height:
                out = ""
        result = (s, out, truncated)
        if len(self._fits) > 20000:
            self._fits.clear()
        self._fits[key] = result
        return result

    def render(self, text: str, size: int, bold: bool, color: Color) -> pygame.Surface:
        """Rendered anti-aliased text (cached)."""
        key = (text, bold, size, color)
        surf = self._surfaces.get(key)
        if surf is not None:
            self._surfaces.move_to_end(key)
            return surf
        surf = self.font(size, bold).render(text, True, color)
        self._surfaces[key] = surf
        if len(self._surfaces) > self._max:
            self._surfaces.popitem(last=False)
        return surf
