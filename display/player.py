"""The player-facing screen: cards, results, paytables, recent rounds.

Drawn only from a :class:`~controller.game.views.PlayerView`. The view never holds the
dealer's hole cards before the reveal (docs/requirements.md R13); this screen draws a back for
every ``None`` card and needs nothing else to stay safe. Drawing only reads the view.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pygame

from controller.game.numbers import DEFAULT_CURRENCY, ODDS_COLON, ODDS_WORDS, odds_form
from controller.game.views import PlayerView, SeatView
from display import outcome_mode as om
from display import theme
from display.cards import CardArt, card_label
from display.common import banner_strip, dealer_hand, felt, link_pill
from display.i18n import Translator
from display.painter import Frame, Painter, cols, grid, inset, rows
from display.pay_lines import seat_line
from display.player_seats import SeatPlan, draw_seat, plan_seats
from display.theme import LINE_HEIGHT, FontBook

Blocks = list[tuple[str, tuple[str, list[tuple[str, str]]]]]
"""Titled tables of a column: (role, (title, [(name, value), ...]))."""

_STATUS = {
    "betting": "player.place_bets",
    "no_more_bets": "player.no_more_bets",
    "dealing": "player.good_luck",
    "deciding": "player.decide",
    "reveal": "player.wait_reveal",
    "paused": "player.paused",
}


class PlayerScreen:
    """Renders player views.

    Args:
        fonts: shared font book.
        lang: ``en``, ``fr`` or ``uk``.
    """

    def __init__(self, fonts: FontBook, lang: str = "en") -> None:
        self.fonts = fonts
        self.art = CardArt(fonts)
        self.tr = Translator(lang)
        self.currency = DEFAULT_CURRENCY

    def money(self, minor: int, sign: bool = False, whole: bool = False) -> str:
        """An amount of the view being drawn, in the screen's language and currency."""
        return self.tr.money(minor, self.currency, sign=sign, whole=whole)

    def needs_animation(self, view: PlayerView) -> bool:
        """Whether the screen animates (blinks) in this view, so it must be redrawn."""
        return view.link_state in ("disconnected", "silent")

    def draw(self, surface: pygame.Surface, view: PlayerView, now: float = 0.0) -> Frame:
        """Draw one frame of the player screen.

        Args:
            surface: target surface (any size from 800x480 to 3840x2160, any orientation).
            view: the newest player view.
            now: monotonic seconds, for the link indicator blink.

        Returns:
            What was drawn (texts, regions).
        """
        tr = self.tr
        self.currency = view.currency
        w, h = surface.get_size()
        p = Painter(surface, self.fonts, min_text=max(7, min(w, h) // 90), tr=tr)
        surface.blit(felt((w, h), surface), (0, 0))
        portrait = h > w
        u = min(w / 100, h / 170) if portrait else min(w / 160, h / 100)
        gap = max(4, int(u * 1.2))
        outer = inset(surface.get_rect(), gap)
        banner = next((b for b in view.banners if b.kind in ("void", "link_lost", "link_silent")),
                      view.banners[0] if view.banners else None)
        span = outer.height - gap * (4 if banner is not None else 3)
        target = max(p.min_text, round(min(w, h) / 54))  # the paytables' text: 20 px at 1080
        head_h = int(h * (0.06 if portrait else 0.075))
        banner_h = int(h * (0.08 if portrait else 0.10)) if banner is not None else 0
        strip_h = int(h * (0.06 if portrait else 0.085))
        if portrait:
            dealer_h = int(h * 0.11)
            tables_h = min(int(h * 0.3), self._pt_height(view, w, target, 3))
            seats_h = span - head_h - banner_h - strip_h - dealer_h - tables_h - gap
            heights = [head_h, dealer_h, seats_h, tables_h, strip_h]
        else:
            top_h = min(int(h * 0.36), max(int(h * 0.2), self._pt_height(
                view, int(w * 0.7), target, 4)))
            heights = [head_h, top_h, span - head_h - banner_h - strip_h - top_h, strip_h]
        if banner is not None:
            heights.insert(1, banner_h)
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
            self._paytables(p, tables_r, view, ncols=3)
        else:
            top, seats_r, strip_r = parts
            groups = self._pt_groups(view, odds_form(w), 4)
            want = sum(self._pt_widths(groups, target)) + 5 * max(6, w // 60)
            tables_w = min(int(top.width * 0.74), max(int(top.width * 0.6), want))
            dealer_r, tables_r = cols(top, [top.width - tables_w - gap, tables_w], gap)
            dealer_hand(p, self.art, dealer_r, view.dealer_cards, view.dealer_hand,
                        view.dealer_qualifies, tr, side_by_side=True,
                        qualifier=view.paytables.qualifier)
            self._seats(p, seats_r, view, ncols=len(view.seats) or 1)
            self._paytables(p, tables_r, view, ncols=4)
        self._history(p, strip_r, view)
        p.frame.notes["portrait"] = portrait
        return p.frame

    # -- parts ------------------------------------------------------------------------------

    def _header(self, p: Painter, rect: pygame.Rect, view: PlayerView, now: float) -> None:
        tr = self.tr
        left, mid, right = cols(rect, [26, 48, 26], max(4, rect.height // 6))
        lt, lb = rows(left, [1.1, 1])
        p.text(f"{tr('word.table')} {view.table_id}", lt, lt.height, bold=True,
               color=theme.GOLD, align="left", role="header.table")
        p.text(f"{tr('word.round')} {view.round_id}", lb, lb.height, color=theme.TEXT_DIM,
               align="left", role="header.round")
        key = _STATUS.get(view.state)
        status = tr(key) if key else tr.state(view.state)
        p.text(status, mid, int(mid.height * 0.72), bold=True, role="header.status")
        p.region("header.status", mid)
        pill = pygame.Rect(0, 0, right.width, int(rect.height * 0.62))
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
        gap = max(3, rect.width // 160)
        cells = grid(rect, len(view.seats), ncols, gap)
        if not cells:
            return
        # a win in words ("pays 30 to 1") while that keeps the amounts readable, else as
        # the paytables say it ("30 to 1"); a narrow screen as its paytables: "30:1"
        w, h = p.surface.get_size()
        readable = max(p.min_text, round(min(w, h) / 38))  # 28 px at 1080
        forms = (("compact",) if odds_form(w) == ODDS_COLON
                 else ("words", "short") if om.on(view) else ("words",))
        hands = tuple(self._hand_text(s) for s in view.seats)
        nets = {s.seat: self._net(s, view) for s in view.seats if s.bets or s.cards}
        net_texts = tuple(x[0] for x in nets.values() if x is not None)
        # the grid's cells differ by a pixel: plan for the narrowest and the shortest
        smallest = pygame.Rect(0, 0, min(c.width for c in cells), min(c.height for c in cells))
        # the paytable lines named while the amounts stay readable; else the seat with the
        # most lines leaves its smallest pay's name to recall, then again (the big pays
        # stay named longest, and a seat with room keeps all its names)
        unnamed: dict[int, set[str]] = {s.seat: set() for s in view.seats}
        best = None
        while True:
            for form in forms:
                lines = {s.seat: self._seat_lines(s, om.on(view), form, unnamed[s.seat])
                         for s in view.seats}
                n = max([4, *(len(v) for v in lines.values())])
                seats = tuple(tuple((x[0], x[1]) for x in v) for v in lines.values())
                plan = plan_seats(self.fonts, smallest, seats, hands, n, p.min_text,
                                  net_texts, readable)
                if best is None or plan.amount > best[1].amount:
                    best = (lines, plan)
                if plan.amount >= readable:
                    break
            else:
                drop = _next_unnamed(view.seats, unnamed, lines)
                if drop is not None:
                    unnamed[drop[0]].add(drop[1])
                    continue
            break
        lines, plan = best
        p.frame.notes["seat_plan"] = plan
        for seat, cell in zip(view.seats, cells, strict=False):
            self._seat(p, cell, seat, lines[seat.seat], plan, nets.get(seat.seat))

    def _hand_text(self, seat: SeatView) -> str:
        hand = self.tr.hand(seat.hand)
        if seat.decision == "fold":
            hand = f"{hand} \u2022 {self.tr('word.folded')}" if hand else self.tr("word.folded")
        return hand

    def _seat_lines(self, seat: SeatView, outcomes: bool = False, form: str = "words",
                    unnamed: Collection[str] = ()) -> list[tuple[str, str, theme.Color]]:
        """A seat's (bet name, amount or outcome, colour) lines.

        A win on a paytable line is followed by the line's name and pay (in outcome mode as
        :func:`~display.pay_lines.seat_line` says), but for the bets in ``unnamed``.

        ``form`` words a win in outcome mode: ``words`` ("pays 30 to 1"), ``short``
        ("30 to 1") or ``compact`` ("30:1").
        """
        tr = self.tr
        if seat.results:  # in pay order; a win on a paytable line, then the line named
            out = []
            odds = ODDS_COLON if form == "compact" else ODDS_WORDS
            for r in seat.results:
                color = theme.OUTCOME_COLORS.get(r.outcome, theme.TEXT)
                out.append((tr.bet(r.bet), om.result_text(
                    tr, r.outcome, r.multiple, odds, form == "words")
                    if outcomes else self._outcome_amount(r.outcome, r.net, r.stake), color))
                paid = (seat_line(tr, r, odds, seat.hand, outcomes) if r.bet not in unnamed
                        else None)
                if paid is not None:
                    out.append((*paid, color))
            return out
        if outcomes:  # marks: never an amount
            return [(tr.bet(b), om.MARKED, theme.TEXT)
                    for b in ("ante", "play", "pair_plus", "six_card_bonus") if seat.bets.get(b)]
        return [(tr.bet(b), self.money(v), theme.TEXT)
                for b in ("ante", "play", "pair_plus", "six_card_bonus")
                if (v := seat.bets.get(b))]

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
              lines: list[tuple[str, str, theme.Color]], plan: SeatPlan,
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
            p.text(label, head, plan.label, bold=True, color=theme.TEXT_DIM,
                   role=f"{role}.label")
            p.text(tr("word.empty_seat"), inner, plan.amount, color=theme.TEXT_DIM,
                   role=f"{role}.open")
            return
        draw_seat(p, self.art, rect, plan, role, label, seat.cards, self._hand_text(seat),
                  lines, net)

    def _pt_groups(self, view: PlayerView, form: str, ncols: int) -> list[Blocks]:
        """The paytables, limits and returns as titled blocks, in ``ncols`` columns.

        The pays as odds in the screen's ``form``; the limits with the currency's digits,
        as every amount.
        """
        tr = self.tr
        pt = view.paytables

        def pays(x: int) -> str:
            return tr.odds(x, form)

        amount = self.money

        def table(role: str, bet: str, rows_: tuple[tuple[str, int], ...]) -> Blocks:
            return [(role, (tr(f"bet.{bet}"), [(tr.hand(k), pays(v)) for k, v in rows_]))
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
        pp = table("pt", "pair_plus", pt.pair_plus)
        ab = table("pt", "ante_bonus", pt.ante_bonus)
        six = table("pt6", "six_card_bonus", pt.six_card_bonus)
        lim: Blocks = [("limits", (tr("player.limits"), limits))]
        ret: Blocks = [("rtp", (tr("player.rtp"), rtp))]
        if ncols == 4 and form == ODDS_COLON:  # narrow: the limits' decimals under the returns
            return [pp, six, ab, lim + ret]
        if ncols == 4:
            return [pp, six, ab + lim, ret]
        if ncols == 3:
            return [pp + ab, six, lim + ret]
        return [pp + ab + six + lim + ret]

    @staticmethod
    def _pt_rows(groups: list[Blocks]) -> float:
        """Lines the tallest column needs (a title counts 1.25)."""
        return max(sum(1.25 + len(items) for _, (_, items) in g) for g in groups)

    def _pt_widths(self, groups: list[Blocks], size: int) -> list[int]:
        """Each column's widest line (name, a space, value) at text of ``size``."""
        f, fb = self.fonts.font(size), self.fonts.font(size, True)
        return [max([f.size(a)[0] + fb.size(b)[0] + size // 2
                     for _, (_, items) in g for a, b in items] or [1]) for g in groups]

    def _pt_height(self, view: PlayerView, width: int, size: int, ncols: int) -> int:
        """The paytables' height at text of ``size``: every line and the footer."""
        groups = self._pt_groups(view, odds_form(width), ncols)
        return int((self._pt_rows(groups) + 1.3) * (size + 1) * LINE_HEIGHT * 1.08
                   + 2 * max(4, size // 3))

    def _paytables(self, p: Painter, rect: pygame.Rect, view: PlayerView, ncols: int) -> None:
        tr = self.tr
        pt = view.paytables
        radius = max(6, min(rect.width, rect.height) // 30)
        p.fill(rect, theme.PANEL, radius)
        p.outline(rect, theme.GOLD_DARK, max(1, rect.width // 300), radius)
        p.region("paytables", rect)
        inner = inset(rect, max(4, rect.width // 90), max(4, rect.height // 60))
        # odds as the whole screen writes them: "30 to 1", or "30:1" on a narrow one
        groups = self._pt_groups(view, odds_form(p.surface.get_width()), ncols)
        widths = self._pt_widths(groups, max(p.min_text, 20))
        n_rows = self._pt_rows(groups)
        row_h = inner.height / (n_rows + 1.3)
        size = max(p.min_text, int(row_h / (LINE_HEIGHT * 1.08)))
        body = pygame.Rect(inner.left, inner.top, inner.width, int(row_h * n_rows))
        columns = cols(body, widths, max(6, inner.width // 50))
        size = self._pt_size(groups, columns, size, p.min_text)
        size = p.min_text if size is None else size
        foot = pygame.Rect(inner.left, body.bottom, inner.width, inner.bottom - body.bottom)
        for blocks, col in zip(groups, columns, strict=True):
            self._table_block(p, col, blocks, row_h, size)
        p.text(tr("player.rules", q=_q(tr, pt.qualifier)), foot, size, color=theme.TEXT_DIM,
               role="pt.footer")

    def _pt_size(self, groups: list[Blocks], columns: list[pygame.Rect], size: int,
                 smallest: int) -> int | None:
        """The largest size up to ``size`` at which every line fits its column.

        One size for all; None when some line does not fit even at ``smallest``.
        """
        def fits(s: int) -> bool:
            f, fb = self.fonts.font(s), self.fonts.font(s, True)
            return all(f.size(a)[0] + fb.size(b)[0] + 1 + s // 2 <= col.width  # as drawn
                       for blocks, col in zip(groups, columns, strict=True)
                       for _, (_, items) in blocks for a, b in items)
        while size > smallest and not fits(size):
            size -= 1
        return size if fits(size) else None

    def _table_block(self, p: Painter, rect: pygame.Rect,
                     blocks: Blocks, row_h: float, size: int) -> None:
        """Titled tables one under the other, ``row_h`` pixels a line, text of ``size``."""
        y = float(rect.top)
        for role, (title, items) in blocks:
            t = pygame.Rect(rect.left, int(y), rect.width, int(row_h * 1.25))
            y += row_h * 1.25
            p.text(title, t, int(size * 1.15), bold=True, color=theme.GOLD, align="left",
                   role=f"{role}.title")
            pygame.draw.line(p.surface, theme.GOLD_DARK, (t.left, t.bottom - 1),
                             (t.right, t.bottom - 1), 1)
            for name, value in items:
                ln = pygame.Rect(rect.left, int(y), rect.width, int(row_h))
                y += row_h
                vw = min(ln.width, self.fonts.font(size, True).size(value)[0] + 1)
                b = pygame.Rect(ln.right - vw, ln.top, vw, ln.height)
                a = pygame.Rect(ln.left, ln.top, max(1, b.left - ln.left - size // 2), ln.height)
                p.text(name, a, size, align="left", role=f"{role}.name")
                p.text(value, b, size, bold=True, align="right", role=f"{role}.value")

    def _history(self, p: Painter, rect: pygame.Rect, view: PlayerView) -> None:
        tr = self.tr
        p.region("history", rect)
        title_w = rect.width // 7 if rect.width > rect.height * 8 else rect.width // 5
        title = pygame.Rect(rect.left, rect.top, title_w, rect.height)
        p.text2(tr("player.recent"), title, int(rect.height * 0.3), bold=True, color=theme.GOLD,
                role="history.title")  # on two lines rather than small
        items = view.history[:8]
        if not items:
            return
        area = pygame.Rect(title.right + 4, rect.top, rect.width - title_w - 4, rect.height)
        n = min(len(items), max(3, area.width // max(1, int(area.height * 2.4))))
        cells = cols(area, [1] * n, max(3, area.height // 10))
        parts = [rows(inset(c, max(3, c.height // 10), max(2, c.height // 14)), [1, 1])
                 for c in cells]
        top, bot = parts[0]
        head_r = cols(top, [1, 1.6], 2)[1]
        # the cells side by side share their sizes: the dealer's cards, the hands
        cards = [" ".join(card_label(c) for c in h.dealer_cards) for h in items[:n]]
        labels = [tr.hand(h.dealer_hand) + (" \u2713" if h.dealer_qualifies else " \u2717")
                  for h in items[:n]]
        live = [i for i, h in enumerate(items[:n]) if h.status != "void"]
        cards_size = p.common_size([cards[i] for i in live], head_r, top.height, bold=True)
        label_size = p.common_size([labels[i] for i in live], bot, bot.height)
        for i, (h, cell, (top, bot)) in enumerate(zip(items[:n], cells, parts, strict=False)):
            void = h.status == "void"
            p.fill(cell, theme.RED_DARK if void else theme.PANEL, max(4, cell.height // 6))
            head_l, head_r = cols(top, [1, 1.6], 2)
            p.text(f"#{h.round_id}", head_l, top.height, color=theme.TEXT_DIM, align="left",
                   role="history.round")
            if void:
                p.text(tr("word.void"), bot, bot.height, bold=True, role="history.status")
                continue
            p.text(cards[i], head_r, cards_size, bold=True, align="right", role="history.cards")
            p.text(labels[i], bot, label_size,
                   color=theme.GOLD if h.dealer_qualifies else theme.TEXT_DIM,
                   role="history.result")


def _next_unnamed(seats: Sequence[SeatView], unnamed: Mapping[int, Collection[str]],
                  lines: Mapping[int, Sequence[object]]) -> tuple[int, str] | None:
    """The (seat, bet) whose paytable line's name gives way next, or None: none is left.

    The seat with the most lines (the tallest sets every seat's sizes), its smallest pay.
    """
    named = [(-len(lines[s.seat]), r.multiple, s.seat, r.bet) for s in seats
             for r in s.results if r.outcome == "win" and r.line and r.bet not in unnamed[s.seat]]
    if not named:
        return None
    _, _, seat, bet = min(named)
    return seat, bet


def _q(tr: Translator, qualifier: str) -> str:
    if tr.lang == "en":
        return qualifier
    return {"fr": "hauteur dame", "uk": "дамою"}.get(tr.lang, qualifier)
