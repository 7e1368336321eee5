"""Drawing primitives that record what they drew: texts in boxes, regions, buttons.

A :class:`Painter` returns a :class:`Frame` of every text (its rectangle and box), named
region and touchable :class:`Button`: tests assert on it, the dealer screen hit-tests it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pygame

from display import theme
from display.i18n import Translator
from display.theme import Color, FontBook


@dataclass(frozen=True, slots=True)
class TextRecord:
    """One text drawn: ``rect`` where its pixels went, ``box`` what it had to fit."""

    text: str
    rect: pygame.Rect
    box: pygame.Rect
    role: str
    size: int
    truncated: bool


@dataclass(frozen=True, slots=True)
class Button:
    """A touchable, keyable control; keys in ``pygame.key.name`` spelling (``shift+b``).

    A key binding with no place on screen has an empty ``rect`` (no touch reaches it).
    """

    id: str
    rect: pygame.Rect
    label: str
    action: Any
    keys: tuple[str, ...] = ()
    enabled: bool = True


@dataclass(slots=True)
class Frame:
    """Everything one drawn frame contains, for input and tests."""

    size: tuple[int, int]
    texts: list[TextRecord] = field(default_factory=list)
    regions: dict[str, pygame.Rect] = field(default_factory=dict)
    buttons: list[Button] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)

    def button_at(self, pos: tuple[int, int]) -> Button | None:
        """The topmost enabled button under ``pos``, or None."""
        for b in reversed(self.buttons):
            if b.enabled and b.rect.collidepoint(pos):
                return b
        return None

    def button_for_key(self, key: str) -> Button | None:
        """The enabled button bound to ``key`` (the last drawn wins), or None."""
        for b in reversed(self.buttons):
            if b.enabled and key in b.keys:
                return b
        return None

    def texts_in(self, region: str) -> list[TextRecord]:
        """Texts whose rectangles lie in the named region."""
        r = self.regions.get(region)
        if r is None:
            return []
        return [t for t in self.texts if t.text and r.contains(t.rect)]

    def button(self, id_: str) -> Button | None:
        """The button with this id, or None."""
        for b in self.buttons:
            if b.id == id_:
                return b
        return None


def rows(rect: pygame.Rect, weights: Sequence[float], gap: int = 0) -> list[pygame.Rect]:
    """Split ``rect`` top to bottom in proportion to ``weights`` with ``gap`` between."""
    return _split(rect, weights, gap, vertical=True)


def cols(rect: pygame.Rect, weights: Sequence[float], gap: int = 0) -> list[pygame.Rect]:
    """Split ``rect`` left to right in proportion to ``weights`` with ``gap`` between."""
    return _split(rect, weights, gap, vertical=False)


def _split(rect: pygame.Rect, weights: Sequence[float], gap: int,
           vertical: bool) -> list[pygame.Rect]:
    n = len(weights)
    if n == 0:
        return []
    total = float(sum(weights)) or 1.0
    span = (rect.height if vertical else rect.width) - gap * (n - 1)
    out: list[pygame.Rect] = []
    pos = rect.top if vertical else rect.left
    acc = 0.0
    for i, w in enumerate(weights):
        start = pos + round(acc * span / total) + gap * i
        acc += w
        end = pos + round(acc * span / total) + gap * i
        if vertical:
            out.append(pygame.Rect(rect.left, start, rect.width, max(0, end - start)))
        else:
            out.append(pygame.Rect(start, rect.top, max(0, end - start), rect.height))
    return out


def grid(rect: pygame.Rect, n: int, ncols: int, gap: int = 0) -> list[pygame.Rect]:
    """``n`` equal cells in ``ncols`` columns, row by row."""
    ncols = max(1, ncols)
    nrows = max(1, -(-n // ncols))
    out: list[pygame.Rect] = []
    for r in rows(rect, [1] * nrows, gap):
        out.extend(cols(r, [1] * ncols, gap))
    return out[:n]


def inset(rect: pygame.Rect, dx: int, dy: int | None = None) -> pygame.Rect:
    """``rect`` shrunk by ``dx`` left and right and ``dy`` (default ``dx``) top and bottom."""
    dy = dx if dy is None else dy
    return pygame.Rect(rect.left + dx, rect.top + dy, max(0, rect.width - 2 * dx),
                       max(0, rect.height - 2 * dy))


class Painter:
    """Draws onto a surface and records a :class:`Frame`.

    Text shrinks to ``min_text`` pixels before it is cut; none is drawn below ``floor``
    pixels, whatever it asks (0: no floor). ``tr`` names keys in the hints (English: None).
    """

    def __init__(self, surface: pygame.Surface, fonts: FontBook, min_text: int = 9,
                 tr: Translator | None = None, floor: int = 0) -> None:
        self.surface = surface
        self.fonts = fonts
        self.floor = floor
        self.min_text = max(min_text, floor)
        self.tr = tr or Translator("en")
        self.frame = Frame(surface.get_size())

    def fill(self, rect: pygame.Rect, color: Color, radius: int = 0) -> None:
        """Fill ``rect`` (rounded corners of ``radius``)."""
        pygame.draw.rect(self.surface, color, rect, 0, border_radius=radius)

    def outline(self, rect: pygame.Rect, color: Color, width: int = 1, radius: int = 0) -> None:
        """Draw the outline of ``rect``."""
        pygame.draw.rect(self.surface, color, rect, max(1, width), border_radius=radius)

    def common_size(self, texts: list[str], box: pygame.Rect, size: int,
                    bold: bool = False, min_size: int | None = None) -> int:
        """The largest size at which every one of ``texts`` fits ``box`` (a column shares it)."""
        size = max(int(size), self.floor)
        lo = max(self.floor, min(self.min_text if min_size is None else min_size, size))
        out = size
        for t in texts:
            if t:
                out = min(out, self.fonts.fit(t, bold, int(size), box.width, box.height, lo)[0])
        return out

    def region(self, name: str, rect: pygame.Rect) -> None:
        """Record a named region."""
        self.frame.regions[name] = pygame.Rect(rect)

    def text(self, text: str, box: pygame.Rect, size: int, *, bold: bool = False,
             color: Color = theme.TEXT, align: str = "center", role: str = "",
             min_size: int | None = None) -> pygame.Rect:
        """Draw one line fitted into ``box``, shrunk from ``size`` pixels, cut as a last resort.

        Returns:
            The rectangle the text occupies (empty at the box centre for empty text).
        """
        box = pygame.Rect(box)
        if not text or box.width <= 2 or box.height <= 2:
            r = pygame.Rect(box.centerx, box.centery, 0, 0)
            return r
        size = max(int(size), self.floor)
        lo = max(self.floor, min(self.min_text if min_size is None else min_size, size))
        s, shown, truncated = self.fonts.fit(text, bold, size, box.width, box.height, lo)
        if not shown:
            r = pygame.Rect(box.centerx, box.centery, 0, 0)
            self.frame.texts.append(TextRecord(text, r, box, role, s, True))
            return r
        surf = self.fonts.render(shown, s, bold, color)
        r = surf.get_rect()
        r.centery = box.centery
        if align == "left":
            r.left = box.left
        elif align == "right":
            r.right = box.right
        else:
            r.centerx = box.centerx
        # Keep inside the box despite rounding.
        r.clamp_ip(box)
        self.surface.blit(surf, r)
        self.frame.texts.append(TextRecord(text, r, box, role, s, truncated))
        return r

    def text2(self, text: str, box: pygame.Rect, size: int, *, bold: bool = False,
              color: Color = theme.TEXT, role: str = "") -> None:
        """Draw text on one line, or on two when one would be cut or below 60 % of ``size``."""
        box = pygame.Rect(box)
        size = max(int(size), self.floor)
        fitted, _, cut = self.fonts.fit(text, bold, int(size), box.width, box.height,
                                        min(self.min_text, int(size)))
        words = text.split(" ")
        if len(words) < 2 or not (cut or fitted < size * 0.6) or box.height < 2 * (
                self.min_text * theme.LINE_HEIGHT):  # two lines of the smallest text fit
            self.text(text, box, size, bold=bold, color=color, role=role)
            return
        best = min(range(1, len(words)), key=lambda i: abs(
            len(" ".join(words[:i])) - len(" ".join(words[i:]))))
        top, bottom = rows(box, [1, 1], 0)
        two = [" ".join(words[:best]), " ".join(words[best:])]
        s2 = min(self.common_size(two, top, int(size), bold=bold), int(size))
        self.text(two[0], top, s2, bold=bold, color=color, role=role)
        self.text(two[1], bottom, s2, bold=bold, color=color, role=role + "2")

    def button(self, id_: str, rect: pygame.Rect, label: str, action: tuple[Any, ...], *,
               keys: Sequence[str] = (), enabled: bool = True, style: str = "normal",
               size: int | None = None, hint: str | None = None,
               selected: bool = False, show_label: bool = True) -> Button:
        """Draw a button and record it; ``hint`` is the shortcut in its corner (the first key)."""
        rect = pygame.Rect(rect)
        radius = max(3, min(rect.height, rect.width) // 6)
        if not enabled:
            bg, fg, line = theme.BTN_OFF, theme.BTN_OFF_TEXT, theme.BTN_OFF
        elif style == "primary":
            bg, fg, line = theme.GOLD, theme.TEXT_DARK, theme.GOLD_DARK
        elif style == "danger":
            bg, fg, line = theme.RED_DARK, theme.TEXT, theme.RED
        elif style == "play":
            bg, fg, line = (24, 120, 70), theme.TEXT, theme.GREEN_OK
        elif style == "fold":
            bg, fg, line = (110, 40, 36), theme.TEXT, theme.LOSE
        elif style == "flat":
            bg, fg, line = theme.PANEL_HI, theme.TEXT, theme.PANEL_LINE
        else:
            bg, fg, line = theme.BTN, theme.TEXT, theme.BTN_LINE
        self.fill(rect, bg, radius)
        self.outline(rect, theme.GOLD if selected else line,
                     max(2, rect.height // 14) if selected else 1, radius)
        hint_text = (keys[0] if keys else "") if hint is None else hint
        hint_text = self.tr.key(hint_text)
        inner = inset(rect, max(2, rect.height // 10), max(1, rect.height // 12))
        if hint_text and rect.height >= 26 and rect.width >= 60:
            hb = pygame.Rect(0, 0, max(12, rect.width // 4), max(8, rect.height // 3))
            hb.topright = (rect.right - max(2, radius // 2), rect.top + 1)
            self.text(hint_text, hb, hb.height, color=_mix(fg, bg), align="right",
                      role=f"{id_}.hint", min_size=6)
            inner = pygame.Rect(inner.left, inner.top, inner.width, inner.height)
            if rect.height < 48:
                inner.width -= hb.width // 2
                inner.left += hb.width // 4
        if show_label:
            self.text2(label, inner, size or int(inner.height * 0.62), bold=True, color=fg,
                       role=f"{id_}.label")
        b = Button(id_, rect, label, action, tuple(keys), enabled)
        self.frame.buttons.append(b)
        return b


def _mix(a: Color, b: Color, t: float = 0.45) -> Color:
    return (int(a[0] * (1 - t) + b[0] * t), int(a[1] * (1 - t) + b[1] * t),
            int(a[2] * (1 - t) + b[2] * t))


