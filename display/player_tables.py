"""The player screen's paytables, limits and returns: as many as fit, a page at a time.

Never below the screen's floor size: tables that do not fit are packed into pages that
turn every :data:`PAGE_SECONDS` (a tall table split under its title repeated).
"""

from __future__ import annotations

import math

import pygame

from display import theme
from display.painter import Painter, inset
from display.theme import LINE_HEIGHT

PAGE_SECONDS = 6.0
"""How long the paytables' panel shows one page."""

Block = tuple[str, str, list[tuple[str, str]]]
"""A titled table: (role, title, [(name, value), ...]); an empty title and value: a note."""


def _h(size: int) -> int:
    """A table line's height: the text's own (its ascent and descent)."""
    return math.ceil(size * LINE_HEIGHT)


def _title(size: int) -> int:
    return size


def _width(p: Painter, block: Block, size: int) -> int:
    _, title, items = block
    f, fb = p.fonts.font(size), p.fonts.font(size, True)
    return max([p.fonts.font(_title(size), True).size(title)[0] if title else 0,
                *(f.size(a)[0] + (fb.size(b)[0] + size if b else 0) for a, b in items)])


def _height(block: Block, size: int, n: int | None = None) -> int:
    _, title, items = block
    return (_h(_title(size)) + 2 if title else 0) + _h(size) * (len(items) if n is None else n)


def _chunks(block: Block, size: int, height: int) -> list[Block]:
    """``block`` cut into tables no taller than ``height``, each under the title, evenly."""
    role, title, items = block
    per = max(1, (height - _height(block, size, 0)) // _h(size))
    per = -(-len(items) // -(-len(items) // per)) if items else 1  # even parts: 3 + 3, not 5 + 1
    return [(role, title, items[i:i + per]) for i in range(0, len(items), per)]


def pack(p: Painter, blocks: list[Block], width: int, height: int, size: int,
         gap: int) -> list[list[list[Block]]]:
    """Pages of columns of tables, in order, at text of ``size`` in ``width`` x ``height``."""
    pages: list[list[list[Block]]] = [[]]
    used_w, col_w, col_h = 0, 0, 0
    for block in (c for b in blocks for c in _chunks(b, size, height)):
        bw, bh = _width(p, block, size), _height(block, size)
        page = pages[-1]
        if page and col_h + bh <= height and used_w - col_w + max(col_w, bw) <= width:
            page[-1].append(block)
            used_w += max(col_w, bw) - col_w
            col_w, col_h = max(col_w, bw), col_h + bh
        elif page and used_w + gap + bw <= width:
            page.append([block])
            used_w, col_w, col_h = used_w + gap + bw, bw, bh
        else:
            if page:
                pages.append([])
            pages[-1].append([block])
            used_w, col_w, col_h = bw, bw, bh
    return pages


def paytables(p: Painter, rect: pygame.Rect, blocks: list[Block], now: float = 0.0,
              top: int = 0) -> int:
    """Draw the page shown at ``now`` (monotonic seconds) in ``rect``; the number of pages."""
    radius = max(6, min(rect.width, rect.height) // 30)
    p.fill(rect, theme.PANEL, radius)
    p.outline(rect, theme.GOLD_DARK, max(1, rect.width // 300), radius)
    p.region("paytables", rect)
    inner = inset(rect, max(4, rect.width // 90), max(3, rect.height // 60))
    smallest = max(p.floor, p.min_text)
    gap = max(6, inner.width // 50)
    size, pages = smallest, [[[b] for b in blocks]]
    for size in range(max(top, smallest), smallest - 1, -1):
        pages = pack(p, blocks, inner.width, inner.height, size, gap)
        if len(pages) == 1:
            break
    page = pages[int(now // PAGE_SECONDS) % len(pages)]
    widths = [max(_width(p, b, size) for b in column) for column in page]
    spare = max(0, inner.width - sum(widths) - gap * (len(widths) - 1))
    extra = spare // (2 * len(widths)) if len(pages) == 1 else 0
    x = inner.left + (spare - 2 * extra * len(widths)) // 2
    for column, cw in zip(page, widths, strict=True):
        y = inner.top
        box = pygame.Rect(x, y, cw + 2 * extra, inner.height)
        for block in column:
            y = _block(p, pygame.Rect(box.left, y, box.width, inner.bottom - y), block, size)
        x += box.width + gap
    if len(pages) > 1:  # a dot a page, the one shown filled
        r = max(2, size // 6)
        shown = pages.index(page)
        for i in range(len(pages)):
            c = (rect.right - radius - (len(pages) - i) * 3 * r, rect.bottom - 2 * r - 1)
            pygame.draw.circle(p.surface, theme.GOLD, c, r, 0 if i == shown else 1)
    return len(pages)


def _block(p: Painter, rect: pygame.Rect, block: Block, size: int) -> int:
    """One table from the top of ``rect``; the y under it."""
    role, title, items = block
    y = rect.top
    if title:
        t = pygame.Rect(rect.left, y, rect.width, _h(_title(size)))
        p.text(title, t, _title(size), bold=True, color=theme.GOLD, align="left",
               role=f"{role}.title")
        pygame.draw.line(p.surface, theme.GOLD_DARK, (t.left, t.bottom), (t.right, t.bottom), 1)
        y = t.bottom + 2
    for name, value in items:
        ln = pygame.Rect(rect.left, y, rect.width, _h(size))
        y = ln.bottom
        if not value:
            p.text(name, ln, size, align="left", color=theme.TEXT_DIM, role=f"{role}.note")
            continue
        vw = min(ln.width, p.fonts.font(size, True).size(value)[0] + 1)
        b = pygame.Rect(ln.right - vw, ln.top, vw, ln.height)
        a = pygame.Rect(ln.left, ln.top, max(1, b.left - ln.left - size // 2), ln.height)
        p.text(name, a, size, align="left", role=f"{role}.name")
        p.text(value, b, size, bold=True, align="right", role=f"{role}.value")
    return y
