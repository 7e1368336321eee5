"""The player-facing screen: cards, results, paytables, recent rounds.

Drawn only from a :class:`~controller.game.views.PlayerView`, which never holds the dealer's
hole cards before the reveal (docs/requirements.md R13): a ``None`` card is drawn as a back.
"""

from __future__ import annotations

import math

import pygame

from controller.game.bet_types import ANTE_BONUS, HELD, PAIR_PLUS, SIX_CARD_BONUS
from controller.game.numbers import DEFAULT_CURRENCY, ODDS_COLON, ODDS_WORDS, odds_form
from controller.game.views import BetLine, PlayerView, SeatView
from display import outcome_mode as om
from display import theme
from display.cards import CardArt, card_label
from display.common import banner_strip, dealer_hand, felt, link_pill
from display.i18n import Translator
from display.painter import Frame, Painter, cols, grid, inset, rows
from display.pay_lines import seat_line
from display.player_seats import BetRow, SeatPlan, draw_seat, plan_seats, seat_form
from display.player_tables import PAGE_SECONDS, Block, paytables
from display.theme import LINE_HEIGHT, FontBook

FLOOR_SHARE = 0.03
"""The smallest text on the player screen, as a share of the screen's shorter side."""


def floor_size(size: tuple[int, int]) -> int:
    """The smallest font size in px: 3 % of the shorter side, rounded up (15 px at 800x480)."""
    return math.ceil(FLOOR_SHARE * min(size) - 1e-9)


def _line(size: int) -> int:
    """The height one line of text of ``size`` takes."""
    return math.ceil(size * LINE_HEIGHT) + 1

_STATUS = {
    "betting": "player.place_bets",
    "no_more_bets": "player.no_more_bets",
    "dealing": "player.good_luck",
    "deciding": "player.decide",
    "reveal": "player.wait_reveal",
    "paused": "player.paused",
}


class PlayerScreen:
    """Renders player views in ``lang`` with the shared ``fonts``."""

    def __init__(self, fonts: FontBook, lang: str = "en") -> None:
        self.fonts = fonts
        self.art = CardArt(fonts)
        self.tr = Translator(lang)
        self.currency = DEFAULT_CURRENCY
        self._pages = 1

    def money(self, minor: int, sign: bool = False, whole: bool = False) -> str:
        """An amount of the view being drawn, in the screen's language and currency."""
        return self.tr.money(minor, self.currency, sign=sign, whole=whole)

    def animation_key(self, view: PlayerView, now: float) -> tuple[int, int]:
        """What changes with time alone (2 Hz link blink, paytable pages): redraw on change."""
        blink = int(now * 2) if view.link_state in ("disconnected", "silent") else 0
        return blink, int(now // PAGE_SECONDS) if self._pages > 1 else 0

    def draw(self, surface: pygame.Surface, view: PlayerView, now: float = 0.0) -> Frame:
        """Draw one frame on ``surface`` (800x480 to 3840x2160); what was drawn.

        No text is below :func:`floor_size`: what does not fit shows less at once (a paytable
        page at a time, fewer names or rounds), never smaller. ``now``: monotonic seconds.
        """
        tr = self.tr
        self.currency = view.currency
        w, h = surface.get_size()
        f = floor_size((w, h))
        p = Painter(surface, self.fonts, min_text=f, tr=tr, floor=f)
        surface.blit(felt((w, h), surface), (0, 0))
        portrait = h > w
        u = min(w / 100, h / 170) if portrait else min(w / 160, h / 100)
        gap = max(4, int(u * 1.2))
        outer = inset(surface.get_rect(), gap)
        banner = next((b for b in view.banners if b.kind in ("void", "link_lost", "link_silent")),
                      view.banners[0] if view.banners else None)
        heights = _heights(h, _line(f), portrait, outer.height, gap, banner is not None,
                           len(view.seats))
        parts = rows(outer, heights, gap)
        header = parts.pop(0)
        self._header(p, header, view, now)
        if banner is not None:
            brect = parts.pop(0)
            extra = self._refunds(view) if banner.kind == "void" else ""
            banner_strip(p, brect, banner, tr, "banner", audience="player", extra=extra)
        if portrait:
            dealer_r, seats_r, tables_r, strip_r = parts
            dealer_hand(p, self.art, dealer_r, view.dealer_cards, view.dealer_hand,
                        view.dealer_qualifies, tr, qualifier=view.paytables.qualifier)
            self._seats(p, seats_r, view, ncols=4)
        else:
            top, seats_r, strip_r = parts
            dealer_w = max(int(top.width * 0.3), min(int(top.width * 0.4), top.height * 2))
            dealer_r, tables_r = cols(top, [dealer_w, top.width - dealer_w - gap], gap)
            dealer_hand(p, self.art, dealer_r, view.dealer_cards, view.dealer_hand,
                        view.dealer_qualifies, tr, side_by_side=True,
                        qualifier=view.paytables.qualifier)
            self._seats(p, seats_r, view, ncols=len(view.seats) or 1)
        self._pages = paytables(p, tables_r, self._pt_blocks(view, odds_form(w)), now)
        self._history(p, strip_r, view)
        p.frame.notes["portrait"] = portrait
        p.frame.notes["pt_pages"] = self._pages
        return p.frame

    # -- parts ------------------------------------------------------------------------------

    def _header(self, p: Painter, rect: pygame.Rect, view: PlayerView, now: float) -> None:
        tr = self.tr
        pill_h = int(rect.height * 0.62)
        link = tr(f"link.{view.link_state}") if tr.has(f"link.{view.link_state}") else ""
        pill_w = self.fonts.font(max(p.floor, int(pill_h * 0.5)), True).size(link)[0] + int(
            pill_h * 1.5) + 4  # the text, the dot and the rounded ends
        right_w = max(rect.width * 26 // 100, pill_w)
        left, mid, right = cols(rect, [26, 74 - right_w * 100 / rect.width, right_w * 100 /
                                       rect.width], max(4, rect.height // 6))
        lt, lb = rows(left, [1.1, 1])
        p.text(f"{tr('word.table')} {view.table_id}", lt, lt.height, bold=True,
               color=theme.GOLD, align="left", role="header.table")
        p.text(f"{tr('word.round')} {view.round_id}", lb, lb.height, color=theme.TEXT_DIM,
               align="left", role="header.round")
        key = _STATUS.get(view.state)
        status = tr(key) if key else tr.state(view.state)
        p.text2(status, mid, int(mid.height * 0.72), bold=True, role="header.status")
        p.region("header.status", mid)
        pill = pygame.Rect(0, 0, right.width, pill_h)
        pill.midright = right.midright
        link_pill(p, pill, view.link_state, tr, blink=int(now * 2) % 2 == 1)

    def _refunds(self, view: PlayerView) -> str:
        if om.on(view):  # the bets returned, not amounts
            return om.refunds_text(self.tr, view.seats)
        parts = []
        for s in view.seats:
            total = sum(r.stake for r in s.results if r.outcome == "refund")
            if not total and s.bets and not s.results:
                total = sum(s.bets.values())
            if total:
                parts.append(f"{self.tr('word.seat_n', seat=s.seat)}: {self.money(total)}")
        return "  \u2022  ".join(parts)

    def _seats(self, p: Painter, rect: pygame.Rect, view: PlayerView, ncols: int) -> None:
        gap = max(2, rect.width // 400)
        cells = grid(rect, len(view.seats), ncols, gap)
        if not cells:
            return
        # a win in words ("pays 30 to 1") while every seat keeps its bets' names, else as
        # the paytables say it ("30 to 1"); a narrow screen as its paytables: "30:1"
        w = p.surface.get_width()
        forms = (("compact",) if odds_form(w) == ODDS_COLON
                 else ("words", "short") if om.on(view) else ("words",))
        hands = tuple(self._hand_text(s) for s in view.seats)
        nets = {s.seat: self._net(s, view) for s in view.seats if s.bets or s.cards}
        net_texts = tuple(x[0] for x in nets.values() if x is not None)
        # the grid's cells differ by a pixel: plan for the narrowest and the shortest
        smallest = pygame.Rect(0, 0, min(c.width for c in cells), min(c.height for c in cells))
        width = smallest.width - 2 * max(2, smallest.width // 60)
        for form in forms:
            lines = {s.seat: tuple(self._seat_lines(s, om.on(view), form)) for s in view.seats}
            plan = plan_seats(self.fonts, smallest, tuple(lines.values()), hands, p.floor,
                              net_texts, top=round(p.floor * 1.25))
            if all(seat_form(self.fonts, plan, width, x) in ("inline", "stacked")
                   for x in lines.values()):
                break
        p.frame.notes["seat_plan"] = plan
        for seat, cell in zip(view.seats, cells, strict=False):
            self._seat(p, cell, seat, lines[seat.seat], plan, nets.get(seat.seat))

    def _hand_text(self, seat: SeatView) -> str:
        hand = self.tr.hand(seat.hand)
        if seat.decision == "fold":
            hand = f"{hand} \u2022 {self.tr('word.folded')}" if hand else self.tr("word.folded")
        return hand

    def _seat_lines(self, seat: SeatView, outcomes: bool = False, form: str = "words"
                    ) -> list[BetRow]:
        """A seat's wagers or results: name, short name, amount and colour each.

        A paytable win carries its line's name and pay, biggest first; ``form`` words an
        outcome mode win: ``words`` ("pays 30 to 1"), ``short`` ("30 to 1"), ``compact`` ("30:1").
        """
        tr = self.tr

        def row(bet: str, text: str, color: theme.Color = theme.TEXT,
                paid: BetLine | None = None) -> BetRow:
            line = (seat_line(tr, paid, odds, seat.hand, outcomes) if paid is not None
                    else None)
            return BetRow(tr.bet(bet), tr(f"short.{bet}"), text, color, line,
                          paid.multiple if line else 0, joined)

        joined = tr("result.paid_line", bet="{bet}", line="{line}", odds="{odds}")

        odds = ODDS_COLON if form == "compact" else ODDS_WORDS
        if seat.results:  # in pay order; a win on a paytable line names the line
            return [row(r.bet, om.result_text(tr, r.outcome, r.multiple, odds, form == "words")
                        if outcomes else self._outcome_amount(r.outcome, r.net, r.stake),
                        theme.OUTCOME_COLORS.get(r.outcome, theme.TEXT), r)
                    for r in seat.results]
        if outcomes:  # marks: never an amount
            return [row(b, om.MARKED) for b in HELD if seat.bets.get(b)]
        return [row(b, self.money(v)) for b in HELD if (v := seat.bets.get(b))]

    def _outcome_amount(self, outcome: str, net: int, stake: int) -> str:
        if outcome == "win":
            return self.money(net, sign=True)
        if outcome == "lose":
            return self.money(net)
        return self.money(stake)

    def _net(self, seat: SeatView, view: PlayerView) -> tuple[str, theme.Color] | None:
        """A settled or voided seat's pill: its net amount (or outcome) and colour."""
        if seat.net is None:
            return None
        if om.on(view):
            return om.seat_summary(self.tr, seat, view.state == "void", "player")
        if view.state == "void":
            refund = sum(r.stake for r in seat.results if r.outcome == "refund")
            return "\u21a9 " + self.money(refund), theme.PUSH
        return (self.money(seat.net, sign=True),
                theme.WIN if seat.net > 0 else theme.LOSE if seat.net < 0 else theme.PUSH)

    def _seat(self, p: Painter, rect: pygame.Rect, seat: SeatView,
              lines: tuple[BetRow, ...], plan: SeatPlan,
              net: tuple[str, theme.Color] | None) -> None:
        tr = self.tr
        role = f"seat.{seat.seat}"
        active = bool(seat.bets or seat.cards)
        radius = max(5, rect.width // 14)
        p.fill(rect, theme.PANEL if active else theme.FELT_DARK, radius)
        p.outline(rect, theme.PANEL_LINE if active else theme.FELT, 1, radius)
        p.region(role, rect)
        label = tr("word.seat_n", seat=seat.seat)
        if not active:
            inner = inset(rect, plan.pad_x, plan.pad_y)
            head = pygame.Rect(inner.left, inner.top, inner.width, plan.heights[0])
            p.text(label, head, plan.size, bold=True, color=theme.TEXT_DIM,
                   role=f"{role}.label")
            p.text(tr("word.empty_seat"), inner, plan.size, color=theme.TEXT_DIM,
                   role=f"{role}.open")
            return
        draw_seat(p, self.art, rect, plan, role, label, seat.cards, self._hand_text(seat),
                  lines, net)

    def _pt_blocks(self, view: PlayerView, form: str) -> list[Block]:
        """The paytables, limits, returns and the dealer's rule as titled tables, in order."""
        tr = self.tr
        pt = view.paytables
        amount = self.money

        def table(role: str, bet: str, rows_: tuple[tuple[str, int], ...]) -> list[Block]:
            return [(role, tr(f"bet.{bet}"), [(tr.hand(k), tr.odds(v, form)) for k, v in rows_])
                    ] if rows_ else []

        limits = [(tr.bet(b), f"{amount(lo)} \u2013 {amount(hi)}") for b, lo, hi in pt.limits]
        rtp = []
        strategy = dict(pt.rtp_strategy)
        for b, v in pt.rtp:
            if b in strategy:  # a fold loses it: the paytable's return, and a Q-6-4 player's
                rtp += [(tr("player.rtp_played", bet=tr.bet(b)), tr.percent(v)),
                        (tr("player.rtp_strategy", bet=tr.bet(b), hand=pt.strategy),
                         tr.percent(strategy[b]))]
            else:
                rtp.append((tr.bet(b), tr.percent(v)))
        return [*table("pt", PAIR_PLUS, pt.pair_plus),
                *table("pt6", SIX_CARD_BONUS, pt.six_card_bonus),
                *table("pt", ANTE_BONUS, pt.ante_bonus),
                ("pt", "", [(tr("player.rules", q=_q(tr, pt.qualifier)), "")]),
                ("limits", tr("player.limits"), limits), ("rtp", tr("player.rtp"), rtp)]

    def _history(self, p: Painter, rect: pygame.Rect, view: PlayerView) -> None:
        """The recent rounds that fit, newest first, under a legend: ✓ qualified, ✗ not."""
        tr = self.tr
        p.region("history", rect)
        size = p.floor
        title, legend = tr("player.recent"), tr("player.recent_marks")
        title_w = max(self.fonts.font(size, True).size(title)[0],
                      self.fonts.font(size).size(legend)[0]) + size // 2
        head = pygame.Rect(rect.left, rect.top, title_w, rect.height)
        t, g = rows(head, [1, 1])
        p.text(title, t, size, bold=True, color=theme.GOLD, align="left", role="history.title")
        p.text(legend, g, size, color=theme.TEXT_DIM, align="left", role="history.legend")
        items = view.history[:8]
        if not items:
            return
        area = pygame.Rect(head.right + size, rect.top, rect.right - head.right - size,
                           rect.height)
        pad = max(3, size // 4)
        cards = [" ".join(card_label(c) for c in h.dealer_cards) for h in items]
        labels = [tr.hand(h.dealer_hand) + (" \u2713" if h.dealer_qualifies else " \u2717")
                  if h.status != "void" else tr("word.void") for h in items]
        f, fb = self.fonts.font(size), self.fonts.font(size, True)
        need = [max(f.size(f"#{h.round_id}")[0] + size // 2 + fb.size(c)[0], fb.size(lb)[0])
                + 2 * pad for h, c, lb in zip(items, cards, labels, strict=True)]
        gap = max(3, size // 3)
        n = 0
        while n < len(items) and sum(need[:n + 1]) + gap * n <= area.width:
            n += 1
        if not n:
            return
        cells = cols(area, need[:n], gap)
        for h, cell, card, label in zip(items, cells, cards, labels, strict=False):
            void = h.status == "void"
            p.fill(cell, theme.RED_DARK if void else theme.PANEL, max(4, cell.height // 6))
            top, bot = rows(inset(cell, pad, max(1, (cell.height - 2 * _line(size)) // 2)),
                            [1, 1])
            p.text(f"#{h.round_id}", top, size, color=theme.TEXT_DIM, align="left",
                   role="history.round")
            if void:
                p.text(label, bot, size, bold=True, role="history.status")
                continue
            p.text(card, top, size, bold=True, align="right", role="history.cards")
            p.text(label, bot, size, color=theme.GOLD if h.dealer_qualifies else theme.TEXT_DIM,
                   role="history.result")


def _q(tr: Translator, qualifier: str) -> str:
    if tr.lang == "en":
        return qualifier
    return {"fr": "hauteur dame", "uk": "дамою"}.get(tr.lang, qualifier)


def _heights(h: int, line: int, portrait: bool, outer_h: int, gap: int, banner: bool,
             seats: int) -> list[int]:
    """The rows' heights in pixels: header, banner (if any), then the rest by orientation."""
    span = outer_h - gap * (4 if banner else 3)
    head_h = max(int(h * (0.06 if portrait else 0.075)), 2 * line + 4)
    banner_h = max(int(h * (0.08 if portrait else 0.10)),
                   math.ceil(2.15 * line * 1.2) + 4) if banner else 0
    strip_h = max(int(h * (0.06 if portrait else 0.085)), 2 * line + 8)
    seats_min = 13 * line  # label, cards, a hand on two lines, five bets, the net pill
    if portrait:
        dealer_h = max(int(h * 0.11), 6 * line)
        rest = span - head_h - banner_h - strip_h - dealer_h - gap
        seats_min *= -(-seats // 4)
        tables_h = max(8 * line, min(int(h * 0.3), rest - seats_min))
        seats_h = rest - tables_h
        heights = [head_h, dealer_h, seats_h, tables_h, strip_h]
    else:
        rest = span - head_h - banner_h - strip_h
        top_h = max(6 * line, min(int(h * 0.36), rest - seats_min))
        heights = [head_h, top_h, rest - top_h, strip_h]
    if banner:
        heights.insert(1, banner_h)
    return heights
