"""What every dealer panel draws with: the frame's context, buttons, texts, cards.

What is drawn is recorded on the painter's frame, cards with their rank's size (tests
measure them there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pygame

from controller.game import numbers
from controller.game.views import DealerView
from display import outcome_mode as om
from display import theme
from display.cards import CardArt, card_label
from display.dealer.actions import Action
from display.dealer.faces import arrange, split_two
from display.dealer.layout import Layout, Scale
from display.dealer.state import DealerUI
from display.i18n import Translator
from display.painter import Button, Painter, TextRecord, inset, rows
from display.theme import Color

MIN_CARD = 36
"""The shortest card drawn at ``u`` = 1, pixels: its rank is printed at 14 pixels or more."""
STYLES: dict[str, tuple[Color, Color, Color]] = {
    "normal": (theme.BTN, theme.TEXT, theme.BTN_LINE),
    "primary": (theme.GOLD, theme.TEXT_DARK, theme.GOLD_DARK),
    "danger": (theme.RED_DARK, theme.TEXT, theme.RED),
    "play": ((24, 120, 70), theme.TEXT, theme.GREEN_OK),
    "fold": ((110, 40, 36), theme.TEXT, theme.LOSE),
    "flat": (theme.PANEL_HI, theme.TEXT, theme.PANEL_LINE),
    "off": (theme.BTN_OFF, theme.BTN_OFF_TEXT, theme.BTN_OFF),
}
"""Button style -> (background, text, outline)."""


@dataclass(slots=True)
class Ctx:
    """One frame being drawn (``now``: monotonic seconds; ``memo``: worked out once a frame)."""

    p: Painter
    view: DealerView
    ui: DealerUI
    tr: Translator
    art: CardArt
    lay: Layout
    now: float
    memo: dict[str, Any] = field(default_factory=dict)

    @property
    def sc(self) -> Scale:
        """The lengths of this screen."""
        return self.lay.scale

    def money(self, minor: int, sign: bool = False, whole: bool = False) -> str:
        """An amount in minor units in the screen's language and the table's currency."""
        return self.tr.money(minor, self.view.currency, sign=sign, whole=whole)

    @property
    def odds(self) -> str:
        """How this screen writes odds (``30 to 1``, or ``30:1`` when it is narrow)."""
        return numbers.odds_form(self.lay.size[0])

    @property
    def outcomes(self) -> bool:
        """The round takes bets as outcomes (marks; results in words, never amounts)."""
        return om.on(self.view)

    def flashing(self, id_: str) -> bool:
        """The button ``id_`` was pressed a moment ago (press feedback)."""
        return self.ui.flash[0] == id_ and self.now < self.ui.flash[1]


def label_margin(c: Ctx) -> int:
    """Twice the usual margin, for a label of one long word (Виплатити) not to touch its key."""
    return max(3, c.sc.px(8))


def button(c: Ctx, id_: str, rect: pygame.Rect, label: str, action: Action | None, *,
           keys: Sequence[str] = (), enabled: bool = True, style: str = "normal",
           hint: str | None = None, selected: bool = False, size: int | None = None,
           sub: str = "", sub_color: Color | None = None, pad: int | None = None) -> Button:
    """Draw a button and record it (disabled when ``action`` is None).

    Its key (the first of ``keys``, or ``hint``; ``""`` for none) is printed where it
    leaves the label largest (:func:`~display.dealer.faces.arrange`).
    """
    p, sc = c.p, c.sc
    enabled = enabled and action is not None
    bg, fg, line = STYLES[style if enabled else "off"]
    if selected or c.flashing(id_):
        line = theme.GOLD
    radius = max(4, min(rect.height, rect.width) // 6)
    p.fill(rect, bg, radius)
    p.outline(rect, line, max(2, sc.px(2)) if selected else 1, radius)
    inner = inset(rect, max(2, sc.px(4)) if pad is None else pad, max(2, sc.px(3)))
    hint_text = c.tr.key((keys[0] if keys else "") if hint is None else hint)
    face = arrange(p, label, sub, inner, hint_text, size or sc.medium, sc.line(sc.small),
                   sc.px(4))
    if face.hint is not None:
        p.text(hint_text, face.hint, sc.small, color=_mix(fg, bg), align=face.hint_align,
               role=f"{id_}.hint")
    if sub:
        p.text(label, face.label, face.size, bold=face.bold, color=fg, role=f"{id_}.label")
        p.text(sub, face.sub or face.label, sc.small, color=sub_color or fg,
               role=f"{id_}.sub")
    elif face.second is not None:  # on two lines, the key beside the second
        top, bottom = split_two(label)
        p.text(top, face.label, face.size, bold=face.bold, color=fg, role=f"{id_}.label")
        p.text(bottom, face.second, face.size, bold=face.bold, color=fg,
               role=f"{id_}.label2")
    else:
        p.text2(label, face.label, size or sc.medium, bold=face.bold, color=fg,
                role=f"{id_}.label")
    b = Button(id_, pygame.Rect(rect), label, action, tuple(keys), enabled)
    p.frame.buttons.append(b)
    return b


def _mix(a: Color, b: Color, t: float = 0.4) -> Color:
    return (int(a[0] * (1 - t) + b[0] * t), int(a[1] * (1 - t) + b[1] * t),
            int(a[2] * (1 - t) + b[2] * t))


def lines(c: Ctx, text: str, box: pygame.Rect, size: int, *, bold: bool = False,
          color: Color = theme.TEXT, align: str = "center", role: str = "") -> None:
    """Draw ``text`` on one line of ``box`` or two, bold where it fits, never below ``size``."""
    p = c.p
    top, bottom = split_two(text)
    two_ok = bool(bottom) and box.height >= 2 * p.fonts.font(size).get_linesize()
    for weight in ((True, False) if bold else (False,)):
        f = p.fonts.font(size, weight)
        if f.size(text)[0] <= box.width:
            p.text(text, box, size, bold=weight, color=color, align=align, role=role)
            return
    for weight in ((True, False) if bold else (False,)):
        f = p.fonts.font(size, weight)
        if two_ok and max(f.size(top)[0], f.size(bottom)[0]) <= box.width:
            a, b = rows(box, [1, 1])
            p.text(top, a, size, bold=weight, color=color, align=align, role=role)
            p.text(bottom, b, size, bold=weight, color=color, align=align, role=role + "2")
            return
    p.text(text, box, size, bold=False, color=color, align=align, role=role)


def line_height(p: Painter, size: int) -> int:
    """The height of a line of text of ``size`` pixels, as the painter fits it."""
    return max(p.fonts.font(size).get_linesize(), math.ceil(size * theme.LINE_HEIGHT))


def wrap_words(font: pygame.font.Font, text: str, width: int, lead: int = 0
               ) -> list[str] | None:
    """``text`` in lines ``width`` wide (the first ``lead`` less); None if a word is wider."""
    out: list[str] = []
    line, room = "", width - lead
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if font.size(trial)[0] <= room:
            line = trial
            continue
        if line:
            out.append(line)
            line, room = word, width
        if font.size(word)[0] > room:
            return None
    out.append(line)
    return out


def panel(c: Ctx, rect: pygame.Rect, color: Color = theme.PANEL,
          line: Color | None = theme.PANEL_LINE, width: int = 1) -> None:
    """A rounded panel."""
    radius = max(4, c.sc.px(6))
    c.p.fill(rect, color, radius)
    if line is not None:
        c.p.outline(rect, line, width, radius)


def cards(c: Ctx, box: pygame.Rect, shown: tuple[str | None, ...], role: str,
          slots: int = 3, align: str = "center") -> list[pygame.Rect]:
    """Draw a row of cards, each recorded with its smaller glyph's size (rank or suit)."""
    art: CardArt = c.art
    places = art.row(c.p.surface, box, shown, slots=slots, align=align)
    for i, (card, r) in enumerate(zip(shown, places, strict=False)):
        if card:
            size = min(art.rank_size(card, r.width, r.height),
                       art.suit_size(card, r.width, r.height))
            c.p.frame.texts.append(TextRecord(card_label(card), pygame.Rect(r), pygame.Rect(r),
                                              f"{role}.card.{i}", size, False))
    return places
