"""The dealer's hand: three card places, the rule to qualify, then the hand and verdict."""

from __future__ import annotations

import pygame

from display import theme
from display.dealer.draw import Ctx, cards, panel
from display.painter import cols, inset, rows


def draw_dealer(c: Ctx, rect: pygame.Rect) -> None:
    """Draw the dealer's place in ``rect``."""
    p, sc, tr, view = c.p, c.sc, c.tr, c.view
    panel(c, rect)
    p.region("dealer", rect)
    inner = inset(rect, max(3, sc.px(6)), max(2, sc.px(3)))
    label_w = p.fonts.font(sc.medium, True).size(tr("word.dealer"))[0] + sc.px(8)
    card_w = int(inner.height * 0.7 * 3.3)
    label_r, cards_r, info = cols(inner, [label_w, card_w, inner.width - label_w - card_w
                                          - 2 * sc.px(8)], sc.px(8))
    p.text(tr("word.dealer"), label_r, sc.medium, bold=True, color=theme.GOLD, align="left",
           role="dealer.label")
    cards(c, cards_r, view.dealer_cards, "dealer")
    p.region("dealer.cards", cards_r)
    p.region("dealer.result", info)
    if view.dealer_qualifies is None:
        if view.state == "void":
            return  # no hand will be played
        # the rule, until the dealer's hand is revealed: never read as a result
        text = tr("dealer.qualifier", q=tr.qualifier(view.paytables.qualifier))
        p.text2(text, info, sc.medium, color=theme.TEXT_DIM, role="dealer.qualifier")
        return
    wide = info.width > 3 * info.height
    a, b = cols(info, [1, 1], sc.px(8)) if wide else rows(info, [1, 1])
    p.text(tr.hand(view.dealer_hand), a, sc.large, bold=True, align="left" if wide else "center",
           role="dealer.hand")
    q = view.dealer_qualifies
    label = tr("dealer.qualifies") if q else tr("dealer.not_qualify")
    pill = inset(b, 0, max(1, sc.px(4)))
    want = p.fonts.font(sc.medium, True).size(label)[0] + pill.height
    if wide and want < pill.width:  # as wide as its words
        pill.width = want
    p.fill(pill, theme.GOLD if q else theme.BLUE, pill.height // 2)
    p.text2(label, inset(pill, pill.height // 3, 1), sc.medium, bold=True,
            color=theme.TEXT_DARK if q else theme.TEXT, role="dealer.qualifies")
