"""One seat of the dealer screen: its bets, cards, decision and payout.

A column (landscape) or a row (portrait): bet spots, Rebet and Clear while betting; Play
and Fold, then the decision (a press takes it back until the reveal); then its results in
pay order and the paid button. The seat the keys act on is outlined in gold.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame

from controller.game import inputs
from controller.game.bet_types import ANTE, HELD, KEYS, SIX_CARD_BONUS
from controller.game.views import SeatView
from display import outcome_mode as om
from display import theme
from display.dealer.actions import Action, AddChip
from display.dealer.draw import MIN_CARD, Ctx, button, cards, lines, panel
from display.dealer.layout import layout
from display.dealer.payouts import Line, pay_button, result_lines
from display.dealer.seat_lines import (
    FULL_NAMES_FROM,
    LINE_BETS,
    Names,
    bet_name,
    column_fit,
    flow,
    full_sizes,
    line_fit,
    row_lines,
)
from display.dealer.state import PAYING
from display.painter import Button, cols, inset, rows

BET_KEYS = KEYS
"""The key of each bet spot (acting on the seat the screen names)."""
BUSY_HANDS = ("straight_flush", "three_of_a_kind", "mini_royal", "high_card", "straight",
              "flush", "pair")
"""The hands a seat can hold (a folded one named with its fold)."""
TEXT_MARGIN = 6
"""Texts' side margin at ``u`` = 1: 3 pixels of felt clear of the named seat's outline."""


def bet_names(c: Ctx, seat: SeatView) -> list[str]:
    """The bet spots of a seat: Ante, Pair Plus, and the 6 Card Bonus where offered."""
    offered = c.view.paytables.six_card_bonus or seat.bets.get(SIX_CARD_BONUS)
    return [name for name in KEYS if offered or name != SIX_CARD_BONUS]


def bet_lines(c: Ctx, seat: SeatView, whole: bool = False) -> list[Line]:
    """A seat's wagers as lines (Play once it plays; marks in outcome mode)."""
    return [(name, om.mark_text(seat.bets[name]) if c.outcomes
             else c.money(seat.bets[name], whole=whole), theme.TEXT)
            for name in HELD if seat.bets.get(name)]


Make = Callable[[bool, Names], list[Line]]
"""A seat's lines, ``make(whole, names)``; ``whole``: amounts without needless decimals."""


def seat_names(c: Ctx) -> Names:
    """How every seat of this screen writes bet names: one style for all, worked out a frame.

    Full where the columns fit the longest name at the screen's smallest text or larger,
    else short (as in portrait rows).
    """
    got = c.memo.get("names")
    if got is None:
        got = c.memo["names"] = _choose_names(c)
    return got


def _choose_names(c: Ctx) -> Names:
    sc, lay = c.sc, c.lay
    short = Names(False, sc.small)
    if lay.seat_rows or not lay.seats:
        return short
    width = lay.seats[0].width - 2 * sc.px(TEXT_MARGIN)
    key_w = max(c.p.fonts.font(sc.small).size(k.upper())[0] for k in BET_KEYS.values())
    spot_w = lay.seats[0].width - 2 * max(3, sc.px(6)) - key_w - sc.px(6)  # _spot's face
    plans = [(make, _hand_text(c, seat), room, card)
             for seat, cell in zip(c.view.seats, lay.seats, strict=False)
             for make, room, card in [_column_plan(c, cell, seat)] if make is not None]
    plans.append(_busiest(c))
    sizes = full_sizes(c, min(width, spot_w))  # the narrowest place a name goes
    for named in (1, 0):  # the paytable lines named (joined or not), else given way
        for size in sizes:
            names = Names(True, size)
            fits = [column_fit(c, lambda whole, m=make, n=names: m(whole, n), hand, width,
                               room, card, names) for make, hand, room, card in plans]
            if all(f.fits and f.named >= named for f in fits):
                return names
    return short


def _busiest(c: Ctx) -> tuple[Make, str, int, int]:
    """A busy settled seat as a :func:`column_fit` plan: if it fits, names are full always."""
    lay, sc = c.lay, c.sc
    settled = layout(lay.size, len(lay.seats), len(lay.chips), with_dealer=True)
    cell = settled.seats[0]
    body_top = cell.top + 2 * max(2, sc.px(4)) + sc.line(sc.medium)
    amount = c.money(100_000, sign=True)
    hand = max((f"{c.tr.hand(h)} \u2022 {c.tr('word.folded')}" for h in BUSY_HANDS),
               key=lambda t: c.p.fonts.font(sc.small, True).size(t)[0])
    return (lambda whole, names: [(b, amount, theme.TEXT) for b in LINE_BETS], hand,
            cell.bottom - sc.touch - body_top, sc.px(MIN_CARD))


def _maker(c: Ctx, seat: SeatView, width: int, row: bool) -> Make | None:
    """What a seat in a dealt round lists: its results once settled, else its bets."""
    if c.view.state in PAYING and seat.results:
        return lambda whole, names: _results(c, seat, width, row, names, whole)
    if seat.bets or seat.cards:
        return lambda whole, names: bet_lines(c, seat, whole)
    return None


def _column_plan(c: Ctx, rect: pygame.Rect, seat: SeatView) -> tuple[Make | None, int, int]:
    """A seat column's lines, room for cards, hand and lines, and the cards' least height."""
    sc = c.sc
    if c.view.state == "betting":
        return None, 0, 0
    g = max(2, sc.px(4))
    body_top = rect.top + g + sc.line(sc.medium) + g
    with_cards = bool(seat.cards) or c.view.state != "void"
    return (_maker(c, seat, rect.width, False), rect.bottom - sc.touch - body_top,
            sc.px(MIN_CARD) if with_cards else 0)


def draw_seat(c: Ctx, rect: pygame.Rect, seat: SeatView, focus: bool, row: bool) -> None:
    """Draw one seat in ``rect`` (a column, or a row when ``row``)."""
    p, sc, view = c.p, c.sc, c.view
    role = f"seat.{seat.seat}"
    p.region(role, rect)
    active = bool(seat.bets or seat.cards)
    panel(c, rect, theme.PANEL if active else theme.FELT_DARK,
          theme.GOLD if focus else theme.PANEL_LINE, max(2, sc.px(3)) if focus else 1)
    g = max(2, sc.px(4))
    if row and not active and view.state != "betting":  # a low row: out of this round
        p.text(f"{c.tr('word.seat_n', seat=seat.seat)} \u00b7 {c.tr('word.empty_seat')}",
               inset(rect, sc.px(8), 0), sc.small, color=theme.TEXT_DIM, align="left",
               role=f"{role}.open")
        return
    if row:
        head_w = sc.px(64)
        head = inset(pygame.Rect(rect.left, rect.top, head_w, rect.height),
                     sc.px(TEXT_MARGIN), g)
        body = pygame.Rect(rect.left + head_w, rect.top, rect.width - head_w, rect.height)
    else:
        head = pygame.Rect(rect.left + sc.px(TEXT_MARGIN), rect.top + g,
                           rect.width - 2 * sc.px(TEXT_MARGIN), sc.line(sc.medium))
        body = pygame.Rect(rect.left, head.bottom + g, rect.width, rect.bottom - head.bottom - g)
    _head(c, head, seat, focus, row)
    state = view.state
    make = _maker(c, seat, body.width, row)
    if state == "betting":
        _betting(c, body, seat, focus, row)
    elif state in PAYING and seat.results and make:
        _played(c, body, seat, make, row, lambda r: pay_button(c, r, seat))
    elif state == "deciding" and seat.bets.get(ANTE) and make:
        _played(c, body, seat, make, row, lambda r: _decision(c, r, seat, focus))
    elif active and make:
        _played(c, body, seat, make, row, lambda r: _status(c, r, seat))
    else:
        p.text(c.tr("word.empty_seat"), body, sc.medium, color=theme.TEXT_DIM,
               role=f"{role}.open")


def _head(c: Ctx, rect: pygame.Rect, seat: SeatView, focus: bool, row: bool) -> None:
    p, sc = c.p, c.sc
    label = c.tr("word.seat_n", seat=seat.seat)
    mark = ""
    if focus and c.view.state in PAYING:
        mark = "\u25b6"  # the next seat to pay
    elif seat.seat <= 9 and c.view.state in ("betting", "deciding"):
        mark = str(seat.seat)
    if row:
        label = c.tr("word.seat")
        mark = str(seat.seat) + (" \u25b6" if mark == "\u25b6" else "")
        a, b = rows(rect, [1, 1.3])
    else:
        mw = p.fonts.font(sc.small, True).size(mark)[0] + sc.px(2) if mark else 0
        a = pygame.Rect(rect.left, rect.top, rect.width - mw, rect.height)
        b = pygame.Rect(a.right, rect.top, mw, rect.height)
    p.text(label, a, sc.small if row else sc.medium, bold=not row,
           color=theme.GOLD if focus else theme.TEXT_DIM if row else theme.TEXT, align="left",
           role=f"seat.{seat.seat}.label")
    if row:
        p.text(mark, b, sc.large, bold=True, color=theme.GOLD if focus else theme.TEXT,
               align="left", role=f"seat.{seat.seat}.mark")
    elif mark:
        p.text(mark, b, sc.small, bold=focus, color=theme.GOLD if focus else theme.TEXT_DIM,
               align="right", role=f"seat.{seat.seat}.mark")


def _betting(c: Ctx, body: pygame.Rect, seat: SeatView, focus: bool, row: bool) -> None:
    sc, view, g = c.sc, c.view, c.sc.gap
    names = bet_names(c, seat)
    if row:
        cells = cols(inset(body, 0, max(2, sc.px(3))), [1.0] * (len(names) + 2), g)
        spots, tail = cells[:len(names)], cells[len(names):]
    else:
        n = len(names)
        tail_r = pygame.Rect(body.left, body.bottom - sc.touch, body.width, sc.touch)
        room = tail_r.top - g - body.top - (n - 1) * g
        spot_h = max(sc.touch, min(room // n, sc.px(56)))
        spots = [pygame.Rect(body.left, body.top + i * (spot_h + g), body.width, spot_h)
                 for i in range(n)]
        tail = cols(tail_r, [1, 1], g) if body.width >= sc.px(FULL_NAMES_FROM) else [tail_r]
    enabled = (inputs.MarkBet if c.outcomes else inputs.PlaceBet).name in view.allowed
    for name, r in zip(names, spots, strict=True):
        _spot(c, r, seat, name, focus, enabled)
    has = bool(seat.bets)
    if len(tail) == 2:
        button(c, f"seat.{seat.seat}.rebet", tail[0], c.tr("btn.rebet"),
               inputs.Rebet(seat=seat.seat), keys=("b",) if focus else (),
               enabled=inputs.Rebet.name in view.allowed and not has)
    button(c, f"seat.{seat.seat}.clear", tail[-1], c.tr("btn.clear"),
           inputs.ClearBets(seat=seat.seat), keys=("c",) if focus else (),
           enabled=inputs.ClearBets.name in view.allowed and has)
    if len(tail) == 1 and focus and inputs.Rebet.name in view.allowed:
        # no room for the seat's Rebet button: its key still works on the seat named
        c.p.frame.buttons.append(Button(f"seat.{seat.seat}.rebet", pygame.Rect(
            tail[0].topleft, (0, 0)), c.tr("btn.rebet"), inputs.Rebet(seat=seat.seat), ("b",)))


def _spot(c: Ctx, r: pygame.Rect, seat: SeatView, name: str, focus: bool,
          enabled: bool) -> None:
    p, sc = c.p, c.sc
    amount = seat.bets.get(name, 0)
    key = BET_KEYS[name]
    if c.outcomes:  # a touch marks the bet, another takes the mark off (marked: green)
        action: Action = om.mark(c.view, seat.seat, name)
        style, value = om.mark_style(amount) if enabled else "flat", om.mark_text(amount)
    else:
        action, style = AddChip(seat.seat, name), "flat"
        value = c.money(amount) if amount else "\u2013"
    button(c, f"seat.{seat.seat}.bet.{name}", r, "", action,
           keys=(key,) if focus else (), enabled=enabled, style=style)
    face = inset(r, max(3, sc.px(6)), max(2, sc.px(3)))
    if focus:
        face.width -= p.fonts.font(sc.small).size(key.upper())[0] + sc.px(6)
    names = seat_names(c)
    label = bet_name(c, name, names)
    vf = p.fonts.font(sc.small, True)
    one_line = p.fonts.font(names.size).size(label + "  ")[0] + vf.size(value)[0] <= face.width
    if one_line or face.height < 2 * sc.line(sc.small):
        vw = min(face.width, vf.size(value)[0] + 1)
        a = pygame.Rect(face.left, face.top, face.width - vw, face.height)
        b = pygame.Rect(face.right - vw, face.top, vw, face.height)
    else:
        a, b = rows(face, [1, 1])
    p.text(label, a, names.size, color=theme.TEXT_DIM, align="left", role=f"seat.{seat.seat}.bet",
           min_size=sc.least)
    p.text(value, b, sc.small, bold=True, color=theme.TEXT if amount else theme.TEXT_DIM,
           align="right", role=f"seat.{seat.seat}.amount")


def _played(c: Ctx, body: pygame.Rect, seat: SeatView, make_lines: Make, row: bool,
            action: Callable[[pygame.Rect], None]) -> None:
    """Cards, hand, lines and the action of a seat in a dealt round."""
    sc, g = c.sc, max(2, c.sc.px(4))
    pad = sc.px(TEXT_MARGIN)
    hand = _hand_text(c, seat)
    names = seat_names(c)

    def make(whole: bool) -> list[Line]:
        return make_lines(whole, names)
    if row:
        lines = make(False)
        lh = sc.line(sc.small)
        act_w = sc.touch * 2 + sc.gap
        card_h = min(body.height - 2 * sc.px(3), sc.px(72))
        with_cards = bool(seat.cards) or c.view.state != "void"
        room = max(1, (body.height - lh - sc.px(2)) // lh)
        while True:  # the cards always show: smaller (never under MIN_CARD) for the lines
            card_w = int(card_h * 0.7 * 3.3) if with_cards else 0
            text_w = body.width - card_w - act_w - 2 * g
            if card_h <= sc.px(MIN_CARD) or row_lines(c, lines, text_w) <= room:
                break
            card_h = max(sc.px(MIN_CARD), card_h - max(1, sc.px(4)))
        if row_lines(c, lines, text_w) > room:
            lines = make(True)  # amounts without decimals where they have none
        cards_r, text_r, act_r = cols(body, [card_w, text_w, act_w], g if card_w else 0)
        if card_w:
            card_box = pygame.Rect(cards_r.left, cards_r.centery - card_h // 2, cards_r.width,
                                   card_h)
            cards(c, card_box, seat.cards, f"seat.{seat.seat}")
        hand_r = pygame.Rect(text_r.left, text_r.top + sc.px(2), text_r.width, lh)
        _hand(c, hand_r, seat, hand)
        flow(c, pygame.Rect(text_r.left, hand_r.bottom, text_r.width,
                            text_r.bottom - hand_r.bottom), lines, seat.seat, names)
        action(inset(act_r, 0, max(2, sc.px(3))))
        return
    text = inset(body, pad, 0)
    act = pygame.Rect(body.left, body.bottom - sc.touch, body.width, sc.touch)
    with_cards = bool(seat.cards) or c.view.state != "void"
    fit = column_fit(c, make, hand, text.width, act.top - body.top,
                     sc.px(MIN_CARD) if with_cards else 0, names)
    lines, g = fit.lines, fit.gap
    cards_r = pygame.Rect(text.left, body.top, text.width, fit.card_h)
    if fit.card_h:  # the cards always show: the lines and gaps give way first
        cards(c, cards_r, seat.cards, f"seat.{seat.seat}")
        c.p.region(f"seat.{seat.seat}.cards", cards_r)
    hand_r = pygame.Rect(text.left, cards_r.bottom + (g if fit.card_h else 0), text.width,
                         fit.hand_h)
    _hand(c, hand_r, seat, hand)
    flow(c, pygame.Rect(text.left, hand_r.bottom, text.width, act.top - g - hand_r.bottom),
         lines, seat.seat, names)
    action(act)


def _results(c: Ctx, seat: SeatView, width: int, row: bool, names: Names,
             whole: bool = False) -> list[Line]:
    """A seat's results; in outcome mode worded one way on every seat (:func:`_odds_verb`)."""
    if not c.outcomes or row:
        return result_lines(c, seat, whole=whole)
    return result_lines(c, seat, _odds_verb(c, width, names), whole)


def _odds_verb(c: Ctx, width: int, names: Names) -> bool:
    """Whether every settled seat column says ``pays 30 to 1`` on one line, once a frame."""
    width = min([width, *(r.width for r in c.lay.seats)])
    key = ("odds_verb", width, names)
    got = c.memo.get(key)
    if got is None:
        text_w = width - 2 * c.sc.px(TEXT_MARGIN)
        got = c.memo[key] = all(line_fit(c, line, text_w, names) == (1, True)
                                for s in c.view.seats if s.results
                                for line in result_lines(c, s))
    return got


def _hand(c: Ctx, rect: pygame.Rect, seat: SeatView, hand: str) -> None:
    color = theme.LOSE if seat.decision == "fold" else theme.TEXT
    lines(c, hand, rect, c.sc.small, bold=True, color=color, role=f"seat.{seat.seat}.hand")


def _hand_text(c: Ctx, seat: SeatView) -> str:
    hand = c.tr.hand(seat.hand)
    if seat.decision == "fold":
        word = c.tr("word.folded")
        hand = f"{hand} \u2022 {word}" if hand else word
    return hand


def _decision(c: Ctx, r: pygame.Rect, seat: SeatView, focus: bool) -> None:
    """Play and Fold; once decided, the decision, which a press takes back."""
    view, tr, sc = c.view, c.tr, c.sc
    decided = seat.decision or c.ui.pending.get(seat.seat)
    if decided:
        word = tr("word.played") if decided == "play" else tr("word.folded")
        button(c, f"seat.{seat.seat}.undo", r, word,
               inputs.UndoDecision(seat=seat.seat) if seat.decision else None,
               keys=("u",) if focus else (), hint="",
               enabled=inputs.UndoDecision.name in view.allowed, style="flat",
               sub="\u21b6 " + tr("btn.undo"),
               sub_color=theme.WIN if decided == "play" else theme.LOSE)
        return
    a, b = cols(r, [1, 1], sc.gap)
    ok = inputs.Decide.name in view.allowed
    button(c, f"seat.{seat.seat}.play", a, tr("btn.play"),
           inputs.Decide(seat=seat.seat, decision="play"), keys=("y",) if focus else (),
           enabled=ok, style="play", pad=1)
    button(c, f"seat.{seat.seat}.fold", b, tr("btn.fold"),
           inputs.Decide(seat=seat.seat, decision="fold"), keys=("f",) if focus else (),
           enabled=ok, style="fold", pad=1)


def _status(c: Ctx, r: pygame.Rect, seat: SeatView) -> None:
    if seat.decision:
        word = c.tr("word.played") if seat.decision == "play" else c.tr("word.folded")
        c.p.text(word, r, c.sc.medium, bold=True,
                 color=theme.WIN if seat.decision == "play" else theme.LOSE,
                 role=f"seat.{seat.seat}.decision")
    c.p.region(f"seat.{seat.seat}.results", r)
