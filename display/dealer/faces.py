"""The face of a dealer button: where its label, its second line and its key go.

:func:`arrange` tries each place for the printed key (beside the label, under it, beside
its second line; with a ``sub`` line beside both, or one) and keeps the one that leaves
the label largest, bold before regular. The key is left out (it still works) only when
no place leaves room for the label at the smallest text size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pygame

from display import theme
from display.painter import Painter, rows


@dataclass(frozen=True, slots=True)
class Face:
    """Where one button's texts go (``second``: the label's own second line, if split here)."""

    label: pygame.Rect
    second: pygame.Rect | None
    size: int
    bold: bool
    sub: pygame.Rect | None
    hint: pygame.Rect | None
    hint_align: str = "right"


def split_two(text: str) -> tuple[str, str]:
    """``text`` cut at the space nearest its middle."""
    words = text.split(" ")
    if len(words) < 2:
        return text, ""
    best = min(range(1, len(words)), key=lambda i: abs(
        len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return " ".join(words[:best]), " ".join(words[best:])


def arrange(p: Painter, label: str, sub: str, inner: pygame.Rect, hint: str, want: int,
            line: int, gap: int) -> Face:
    """The face that prints ``hint`` and leaves ``label`` largest (``want``: pixels)."""
    small = p.min_text
    hw, hh = p.fonts.font(small).size(hint) if hint else (0, 0)
    hw += gap if hint else 0
    line = max(line, hh)  # an accented capital (Échap) stands taller than the line
    for places in (_with_key(inner, hw, line, label, sub) if hint else iter(()),
                   _without_key(inner, sub)):
        best: tuple[tuple[int, bool, int], Face] | None = None
        for order, face in enumerate(places):
            for bold in (True, False):
                size = _size(p, label, sub, face, want, bold)
                if size and (best is None or (size, bold, -order) > best[0]):
                    best = (size, bold, -order), _replace(face, size, bold)
        if best is not None:
            return best[1]
    return Face(pygame.Rect(inner), None, want, False, rows(inner, [1.4, 1])[1] if sub
                else None, None)


def _replace(face: Face, size: int, bold: bool) -> Face:
    return Face(face.label, face.second, size, bold, face.sub, face.hint, face.hint_align)


def _with_key(inner: pygame.Rect, hw: int, line: int, label: str, sub: str
              ) -> Iterator[Face]:
    """The places of the label and the key, in order of preference."""
    narrow = pygame.Rect(inner.left, inner.top, inner.width - hw, inner.height)
    beside = pygame.Rect(inner.right - hw, inner.top, hw, inner.height)
    if sub:
        top, bottom = rows(narrow, [1.4, 1])
        yield Face(top, None, 0, False, bottom, beside)
        top, bottom = rows(inner, [1.4, 1])
        yield Face(top, None, 0, False, pygame.Rect(bottom.left, bottom.top, bottom.width - hw,
                                                    bottom.height),
                   pygame.Rect(bottom.right - hw, bottom.top, hw, bottom.height))
        yield Face(pygame.Rect(top.left, top.top, top.width - hw, top.height), None, 0, False,
                   bottom, pygame.Rect(top.right - hw, top.top, hw, top.height))
        return
    yield Face(narrow, None, 0, False, None, beside)
    if inner.height - line >= line:
        yield Face(pygame.Rect(inner.left, inner.top, inner.width, inner.height - line), None,
                   0, False, None, pygame.Rect(inner.left, inner.bottom - line, inner.width,
                                               line), "center")
    if " " in label.strip() and inner.height >= 2 * line:
        top, bottom = rows(inner, [1, 1])
        yield Face(top, pygame.Rect(bottom.left, bottom.top, bottom.width - hw, bottom.height),
                   0, False, None, pygame.Rect(bottom.right - hw, bottom.top, hw, bottom.height))


def _without_key(inner: pygame.Rect, sub: str) -> Iterator[Face]:
    if sub:
        top, bottom = rows(inner, [1.4, 1])
        yield Face(top, None, 0, False, bottom, None)
    else:
        yield Face(pygame.Rect(inner), None, 0, False, None, None)


def _size(p: Painter, label: str, sub: str, face: Face, want: int, bold: bool) -> int:
    """The label's size on ``face`` (as the painter will draw it), or 0: it would be cut."""
    small = min(p.min_text, want)
    if face.label.width <= 0 or face.hint is not None and face.hint.width <= 0:
        return 0
    if sub and (face.sub is None or _fit(p, sub, face.sub, p.min_text, False, p.min_text) == 0):
        return 0
    if not label:
        return want
    if face.second is not None:  # the face splits the label: both lines at one size
        top, bottom = split_two(label)
        return min(_fit(p, top, face.label, want, bold, small),
                   _fit(p, bottom, face.second, want, bold, small))
    if sub:
        return _fit(p, label, face.label, want, bold, small)
    return _text2_size(p, label, face.label, want, bold)


def _fit(p: Painter, text: str, box: pygame.Rect, size: int, bold: bool, small: int) -> int:
    """The size ``text`` is drawn at in ``box`` on one line, or 0 when it is cut."""
    s, _, cut = p.fonts.fit(text, bold, size, box.width, box.height, small)
    return 0 if cut else s


def _text2_size(p: Painter, text: str, box: pygame.Rect, size: int, bold: bool) -> int:
    """The size :meth:`~display.painter.Painter.text2` draws ``text`` at, or 0 (cut)."""
    small = min(p.min_text, size)
    fitted, _, cut = p.fonts.fit(text, bold, size, box.width, box.height, small)
    two_lines = (" " in text and (cut or fitted < size * 0.6)
                 and box.height >= 2.3 * p.min_text * theme.LINE_HEIGHT)
    if not two_lines:
        return 0 if cut else fitted
    top, bottom = rows(box, [1, 1], 0)
    first, second = split_two(text)
    s2 = min(p.common_size([first, second], top, size, bold=bold), size)
    small = min(p.min_text, s2)
    return min(_fit(p, first, top, s2, bold, small), _fit(p, second, bottom, s2, bold, small))
