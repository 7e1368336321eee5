"""Pieces both screens draw: the felt, the shoe link pill, banners, the dealer's hand."""

from __future__ import annotations

import array
import math
import random

import pygame

from controller.game.views import Banner
from display import theme
from display.cards import CardArt
from display.i18n import Translator
from display.painter import Painter, cols, inset, rows
from display.player_seats import split_two

_FELT_CACHE: dict[tuple[int, int], pygame.Surface] = {}
_VIGNETTE = (48, 27)  # the gradient's own size, smoothly scaled to the screen's
_GRAIN = 64  # side of the square tile of grain laid over the felt
_GRAIN_FLOOR = 8  # the tile holds grain + 8 (never below 0), taken off again after
_grain_tile: pygame.Surface | None = None
_vignette_image: pygame.Surface | None = None


def _vignette(size: tuple[int, int]) -> pygame.Surface:
    """The felt's colour from the middle (``theme.FELT``) to the edges (``FELT_EDGE``)."""
    global _vignette_image
    if _vignette_image is None:
        gw, gh = _VIGNETTE
        rgb = bytearray()
        for j in range(gh):
            y = -1.0 + 2.0 * j / (gh - 1)
            for i in range(gw):
                x = -1.0 + 2.0 * i / (gw - 1)
                d = min(math.sqrt(x * x * 0.8 + y * y * 1.1) / 1.25, 1.0) ** 2
                rgb += bytes([*(round(a * (1 - d) + b * d)
                                for a, b in zip(theme.FELT, theme.FELT_EDGE, strict=True)), 255])
        _vignette_image = pygame.image.frombuffer(bytes(rgb), _VIGNETTE, "RGBX")
    return pygame.transform.smoothscale(_vignette_image, size)


def _grain() -> pygame.Surface:
    """A tile of fixed grain: ten seeded coin flips a pixel, less five, over a floor."""
    global _grain_tile
    if _grain_tile is None:
        flips = array.array("H", random.Random(7).randbytes(2 * _GRAIN * _GRAIN))
        grey = bytes([(f & 0x3FF).bit_count() - 5 + _GRAIN_FLOOR for f in flips])
        rgb = bytearray(3 * len(grey))
        rgb[0::3] = rgb[1::3] = rgb[2::3] = grey
        _grain_tile = pygame.image.frombuffer(bytes(rgb), (_GRAIN, _GRAIN), "RGB")
    return _grain_tile


def felt(size: tuple[int, int], like: pygame.Surface | None = None) -> pygame.Surface:
    """A green felt background, cached per size, in ``like``'s pixel format (fast blits)."""
    surf = _FELT_CACHE.get(size)
    if surf is None:
        w, h = size
        surf = _vignette(size)
        tile = pygame.Surface((_GRAIN, _GRAIN), 0, surf)  # the felt's own pixel format
        tile.blit(_grain(), (0, 0))
        surf.blits([(tile, (x, y), None, pygame.BLEND_RGB_ADD)
                    for x in range(0, w, _GRAIN) for y in range(0, h, _GRAIN)],
                   doreturn=False)
        surf.fill((_GRAIN_FLOOR,) * 3, special_flags=pygame.BLEND_RGB_SUB)
        if like is not None:
            surf = surf.convert(like)
        if len(_FELT_CACHE) > 6:
            _FELT_CACHE.clear()
        _FELT_CACHE[size] = surf
    return surf


def link_pill(p: Painter, rect: pygame.Rect, link_state: str, tr: Translator,
              role: str = "link", blink: bool = False) -> None:
    """The shoe link state: a coloured dot and its name, always on screen (R15)."""
    color = theme.LINK_COLORS.get(link_state, theme.AMBER)
    bad = link_state != "online"
    radius = rect.height // 2
    p.fill(rect, theme.RED_DARK if link_state == "disconnected" else theme.PANEL, radius)
    p.outline(rect, color, max(1, rect.height // 12), radius)
    dot_r = max(3, rect.height // 4)
    cx = rect.left + radius
    dot = theme.PANEL_LINE if (blink and bad) else color
    pygame.draw.circle(p.surface, dot, (cx, rect.centery), dot_r)
    label = tr(f"link.{link_state}") if tr.has(f"link.{link_state}") else link_state
    box = pygame.Rect(cx + dot_r + max(3, rect.height // 5), rect.top,
                      rect.right - (cx + dot_r) - radius, rect.height)
    p.text(label, inset(box, 0, max(1, rect.height // 8)), int(rect.height * 0.5), bold=True,
           role=role, align="left")
    p.region(role, rect)


def banner_strip(p: Painter, rect: pygame.Rect, banner: Banner, tr: Translator, role: str,
                 audience: str = "dealer", extra: str = "") -> None:
    """One full-width banner: what happened, and what to do (the player's: ``extra``)."""
    bg, fg = theme.SEVERITY_COLORS.get(banner.severity, theme.SEVERITY_COLORS["warning"])
    radius = max(4, rect.height // 8)
    p.fill(rect, bg, radius)
    p.outline(rect, theme.TEXT if banner.severity == "error" else theme.GOLD_DARK,
              max(1, rect.height // 30), radius)
    body = inset(rect, max(6, rect.height // 5), max(2, rect.height // 12))
    if audience == "player":
        msg = tr.banner(banner.kind, "player", "", banner.params) or tr.banner(
            banner.kind, "msg", banner.message, banner.params)
        second = extra
    elif banner.kind == "rejected":  # why, in words, with the table's money
        msg = tr.rejection(banner)
        second = tr("banner.rejected.act")
    else:
        msg = tr.banner(banner.kind, "msg", banner.message, banner.params)
        second = tr.banner(banner.kind, "act", banner.action, banner.params)
    icon_w = body.height if body.width > body.height * 6 else 0
    if icon_w:
        icon = pygame.Rect(body.left, body.top, icon_w, body.height)
        p.text("!" if banner.severity != "info" else "i", icon, int(body.height * 0.8),
               bold=True, color=fg, role=f"{role}.icon")
        body = pygame.Rect(body.left + icon_w + body.height // 4, body.top,
                           body.width - icon_w - body.height // 4, body.height)
    if second and p.floor:  # the message on a line, the rest (on two lines if need be)
        one = math.ceil(p.floor * theme.LINE_HEIGHT) + 1
        line = max(one, body.height - 2 * one)
        top, bot = rows(body, [line, max(1, body.height - line)], 0)
        p.text(msg, top, top.height, bold=True, color=fg, align="left", role=f"{role}.msg")
        p.text2(second, bot, bot.height, color=fg, role=f"{role}.act")
    elif second:
        top, bot = rows(body, [1.15, 1], 0)
        p.text(msg, top, top.height, bold=True, color=fg, align="left", role=f"{role}.msg")
        p.text(second, bot, bot.height, color=fg, align="left", role=f"{role}.act")
    else:
        p.text(msg, body, int(body.height * 0.8), bold=True, color=fg, align="left",
               role=f"{role}.msg")
    p.region(role, rect)


def dealer_hand(p: Painter, art: CardArt, rect: pygame.Rect, cards: tuple[str | None, ...],
                hand: str | None, qualifies: bool | None, tr: Translator,
                role: str = "dealer", side_by_side: bool = False,
                qualifier: str = "Q-high") -> None:
    """The dealer's place: label, three card places, hand name and qualification.

    Before the reveal the ``qualifier`` (``Q-high``) is said as the rule.
    """
    radius = max(6, rect.height // 10)
    p.fill(rect, theme.PANEL, radius)
    p.outline(rect, theme.PANEL_LINE, 1, radius)
    p.region(role, rect)
    if p.floor:
        _dealer_at_floor(p, art, rect, cards, hand, qualifies, tr, role, qualifier)
        return
    inner = inset(rect, max(4, rect.height // 14))
    wide = inner.width > inner.height * 2.6
    if wide:
        left, mid, right = cols(inner, [0.8, 1.3, 1.6], max(4, inner.height // 10))
        p.text(tr("word.dealer"), left, int(left.height * 0.22), bold=True, color=theme.GOLD,
               role=f"{role}.label")
        art.row(p.surface, inset(mid, 0, max(2, mid.height // 20)), cards)
        p.region(f"{role}.cards", mid)
        info = right
    elif side_by_side and inner.width > inner.height * 1.3:
        top, rest = rows(inner, [0.8, 3.2], max(2, inner.height // 30))
        p.text(tr("word.dealer"), top, top.height, bold=True, color=theme.GOLD,
               role=f"{role}.label")
        mid, info = cols(rest, [1.05, 1], max(4, inner.height // 12))
        art.row(p.surface, mid, cards)
        p.region(f"{role}.cards", mid)
    else:
        top, mid, info = rows(inner, [0.7, 2.4, 1.2], max(2, inner.height // 30))
        p.text(tr("word.dealer"), top, top.height, bold=True, color=theme.GOLD,
               role=f"{role}.label")
        art.row(p.surface, mid, cards)
        p.region(f"{role}.cards", mid)
    p.region(f"{role}.result", info)
    _dealer_result(p, info, hand, qualifies, tr, role, qualifier)


def _dealer_result(p: Painter, info: pygame.Rect, hand: str | None, qualifies: bool | None,
                   tr: Translator, role: str, qualifier: str) -> None:
    """The rule before the reveal; after it, the hand's name and whether it qualifies."""
    if qualifies is None:
        q = tr("dealer.qualifier", q=tr.qualifier(qualifier))
        p.text2(q, inset(info, 0, info.height // 5), int(info.height * 0.3),
                color=theme.TEXT_DIM, role=f"{role}.qualifier")
        return
    a, b = rows(info, [1, 1], max(2, info.height // 20))
    p.text(tr.hand(hand), a, int(a.height * 0.8), bold=True, role=f"{role}.hand")
    label = tr("dealer.qualifies") if qualifies else tr("dealer.not_qualify")
    pill = inset(b, max(2, b.width // 40), max(1, b.height // 10))
    p.fill(pill, theme.GOLD if qualifies else theme.BLUE, pill.height // 2)
    p.text2(label, inset(pill, pill.height // 3, 1), int(pill.height * 0.5), bold=True,
            color=theme.TEXT_DARK if qualifies else theme.TEXT, role=f"{role}.qualifies")



def _dealer_at_floor(p: Painter, art: CardArt, rect: pygame.Rect,
                     cards: tuple[str | None, ...], hand: str | None, qualifies: bool | None,
                     tr: Translator, role: str, qualifier: str) -> None:
    """:func:`dealer_hand` with every text at the painter's floor or larger."""
    size = p.floor
    line = math.ceil(size * theme.LINE_HEIGHT) + 1
    inner = inset(rect, max(4, rect.height // 24))
    gap = max(2, line // 6)
    label, mid, info = rows(inner, [line, max(1, inner.height - 3 * line - 2 * gap - 6),
                                    2 * line + 6], gap)
    p.text(tr("word.dealer"), label, size, bold=True, color=theme.GOLD, role=f"{role}.label")
    art.row(p.surface, mid, cards)
    p.region(f"{role}.cards", mid)
    p.region(f"{role}.result", info)
    if qualifies is None:
        p.text2(tr("dealer.qualifier", q=tr.qualifier(qualifier)), info, size,
                color=theme.TEXT_DIM, role=f"{role}.qualifier")
        return
    text = tr("dealer.qualifies") if qualifies else tr("dealer.not_qualify")
    pill_w = p.fonts.font(size, True).size(text)[0] + 2 * line // 2
    if pill_w > info.width * 0.62:  # on two lines
        pill_w = max(p.fonts.font(size, True).size(x)[0] for x in split_two(text)) + line
    hand_r, pill = cols(info, [info.width - min(pill_w, info.width) - gap,
                               min(pill_w, info.width)], gap)
    p.text2(tr.hand(hand), hand_r, size, bold=True, role=f"{role}.hand")
    p.fill(pill, theme.GOLD if qualifies else theme.BLUE, line // 2)
    p.text2(text, inset(pill, line // 3, 1), size, bold=True,
            color=theme.TEXT_DARK if qualifies else theme.TEXT, role=f"{role}.qualifies")

