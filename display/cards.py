"""Playing cards drawn by our own code: faces, backs and empty places, cached by size."""

from __future__ import annotations

import pygame

from display import theme
from display.i18n import RED_SUITS, SUIT_SYMBOLS, card_label, rank_label
from display.theme import FontBook

__all__ = ["CARD_ASPECT", "RED_SUITS", "SUIT_SYMBOLS", "CardArt", "card_label", "fit_card",
           "rank_label"]

CARD_ASPECT = 0.7
"""Card width / height."""


def fit_card(box: pygame.Rect, count: int, gap_ratio: float = 0.08) -> tuple[int, int, int]:
    """(width, height, gap) of ``count`` cards side by side in ``box`` (gap: of a width)."""
    count = max(1, count)
    h = box.height
    w = int(h * CARD_ASPECT)
    total = w * count + int(w * gap_ratio) * (count - 1)
    if total > box.width:
        w = int(box.width / (count + gap_ratio * (count - 1)))
        h = int(w / CARD_ASPECT)
    return max(1, w), max(1, h), max(1, int(w * gap_ratio))


class CardArt:
    """Draws and caches card images; below ``compact_below`` pixels, rank over suit."""

    def __init__(self, fonts: FontBook, compact_below: int = 56) -> None:
        self.fonts = fonts
        self.compact_below = compact_below
        self._cache: dict[tuple[str, int, int], pygame.Surface] = {}

    def rank_size(self, card: str, w: int, h: int) -> int:
        """The pixel size of the rank printed on a ``w`` x ``h`` face of ``card``."""
        rank = rank_label(card)
        if h < self.compact_below:
            box, size = (w, h // 2), int(h * 0.46)
        else:
            box, size = (int(w * 0.36), int(h * 0.24)), int(h * 0.22)
        return self.fonts.fit(rank, True, max(4, size), box[0], box[1], 4)[0]

    def suit_size(self, card: str, w: int, h: int) -> int:
        """The pixel size of the suit symbol printed on a ``w`` x ``h`` face of ``card``."""
        sym = SUIT_SYMBOLS.get(card[1:2].lower(), "?")
        box, size = self._suit_box(w, h)
        return self.fonts.fit(sym, False, max(4, size), box[0], box[1], 4)[0]

    def _suit_box(self, w: int, h: int) -> tuple[tuple[int, int], int]:
        """The suit symbol's box (width, height) and wanted size on a ``w`` x ``h`` face."""
        if h < self.compact_below:  # the face's lower half, as large as the rank above it
            return (w, h - h // 2), int(h * 0.46)
        return (int(w * 0.36), int(h * 0.17)), int(h * 0.16)

    def image(self, card: str | None, w: int, h: int, kind: str = "face") -> pygame.Surface:
        """The image of a card (``Qh``; None: a back), or of an empty place (``slot``)."""
        key = (card if card is not None else f"<{kind}>", w, h)
        img = self._cache.get(key)
        if img is None:
            if len(self._cache) > 600:
                self._cache.clear()
            img = pygame.Surface((w, h), pygame.SRCALPHA)
            if kind == "slot":
                self._slot(img)
            elif card is None:
                self._back(img)
            else:
                self._face(img, card)
            self._cache[key] = img
        return img

    def row(self, surface: pygame.Surface, box: pygame.Rect, cards: tuple[str | None, ...],
            slots: int = 3, align: str = "center") -> list[pygame.Rect]:
        """Draw ``slots`` places in ``box``, the cards first (None: face down); their rects."""
        n = max(slots, len(cards))
        w, h, gap = fit_card(box, n)
        total = w * n + gap * (n - 1)
        x = box.left if align == "left" else box.centerx - total // 2
        y = box.centery - h // 2
        rects = []
        for i in range(n):
            r = pygame.Rect(x + i * (w + gap), y, w, h)
            if i < len(cards):
                surface.blit(self.image(cards[i], w, h), r)
            else:
                surface.blit(self.image(None, w, h, "slot"), r)
            rects.append(r)
        return rects

    def _face(self, img: pygame.Surface, card: str) -> None:
        w, h = img.get_size()
        rad = max(2, w // 9)
        rect = img.get_rect()
        pygame.draw.rect(img, theme.CARD_FACE, rect, 0, border_radius=rad)
        pygame.draw.rect(img, theme.CARD_EDGE, rect, max(1, w // 60), border_radius=rad)
        suit = card[1:2].lower()
        color = theme.CARD_RED if suit in RED_SUITS else theme.CARD_BLACK
        sym = SUIT_SYMBOLS.get(suit, "?")
        rank = rank_label(card)
        if h < self.compact_below:
            # Small: rank over suit, centred, each in half the face, as large as possible
            # (the glyphs' own margins keep them apart and off the edge).
            (_, top_h), size = (w, h // 2), int(h * 0.46)
            (_, bot_h), suit_size = self._suit_box(w, h)
            self._blit_text(img, rank, pygame.Rect(0, 0, w, top_h), size, True, color)
            self._blit_text(img, sym, pygame.Rect(0, top_h, w, bot_h), suit_size, False, color)
            return
        corner_w = int(w * 0.36)
        rank_box = pygame.Rect(int(w * 0.05), int(h * 0.03), corner_w, int(h * 0.24))
        (_, suit_h), suit_size = self._suit_box(w, h)
        suit_box = pygame.Rect(int(w * 0.05), int(h * 0.25), corner_w, suit_h)
        self._blit_text(img, rank, rank_box, int(h * 0.22), True, color)
        self._blit_text(img, sym, suit_box, suit_size, False, color)
        pip = pygame.Rect(int(w * 0.22), int(h * 0.36), int(w * 0.74), int(h * 0.58))
        self._blit_text(img, sym, pip, int(h * 0.52), False, color)

    def _back(self, img: pygame.Surface) -> None:
        w, h = img.get_size()
        rad = max(2, w // 9)
        rect = img.get_rect()
        pygame.draw.rect(img, theme.CARD_FACE, rect, 0, border_radius=rad)
        m = max(2, w // 14)
        inner = rect.inflate(-2 * m, -2 * m)
        pygame.draw.rect(img, theme.CARD_BACK, inner, 0, border_radius=max(1, rad - m // 2))
        step = max(5, w // 7)
        clip = img.get_clip()
        img.set_clip(inner)
        line = max(1, w // 70)
        for x in range(inner.left - inner.height, inner.right + inner.height, step):
            pygame.draw.line(img, theme.CARD_BACK_LINE, (x, inner.top),
                             (x + inner.height, inner.bottom), line)
            pygame.draw.line(img, theme.CARD_BACK_LINE, (x, inner.bottom),
                             (x + inner.height, inner.top), line)
        img.set_clip(clip)
        pygame.draw.rect(img, theme.GOLD, inner, max(1, w // 40),
                         border_radius=max(1, rad - m // 2))
        pygame.draw.rect(img, theme.CARD_EDGE, rect, 1, border_radius=rad)

    def _slot(self, img: pygame.Surface) -> None:
        w, _ = img.get_size()
        rad = max(2, w // 9)
        pygame.draw.rect(img, theme.PANEL_LINE, img.get_rect(), max(1, w // 40),
                         border_radius=rad)

    def _blit_text(self, img: pygame.Surface, text: str, box: pygame.Rect, size: int,
                   bold: bool, color: theme.Color) -> None:
        s, shown, _ = self.fonts.fit(text, bold, max(4, size), box.width, box.height, 4)
        if not shown:
            return
        surf = self.fonts.render(shown, s, bold, color)
        r = surf.get_rect(center=box.center)
        img.blit(surf, r)
