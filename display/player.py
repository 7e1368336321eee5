"""The player-facing screen: cards, results, paytables, recent rounds.

Drawn only from a :class:`~controller.game.views.PlayerView`. The view never holds the
dealer's hole cards before the reveal (docs/requirements.md R13); this screen draws a back for
every ``None`` card and needs nothing else to stay safe. Drawing only reads the view.
"""

from __future__ import annotations

import pygame

from controller.game.views import PlayerView, SeatView
from display import outcome_mode as om
from display import theme
from display.cards import CardArt, card_label
from display.common import banner_strip, dealer_hand, felt, link_pill
from display.i18n import Translator, format_money, format_rtp
from display.painter import Frame, Painter, cols, grid, inset, rows
from display.theme import FontBook

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
        self._line_cache: dict[tuple[object, ...], int] = {}

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
        w, h = surface.get_size()
        p = Painter(surface, self.fonts, min_text=max(7, min(w, h) // 90))
        surface.blit(felt((w, h), surface), (0, 0))
        portrait = h > w
        u = min(w / 100, h / 170) if portrait else min(w / 160, h / 100)
        gap = max(4, int(u * 1.2))
        outer = inset(surface.get_rect(), gap)
        banner = next((b for b in view.banners if b.kind in ("void", "link_lost", "link_silent")),
                      view.banners[0] if view.banners else None)
        weights = [9.0]
        if banner is not None:
            weights.append(13.0)
        if portrait:
            weights += [19.0, 54.0, 36.0, 11.0]
        else:
            weights += [30.0, 48.0, 11.0]
        parts = rows(outer, weights, gap)
        header = parts.pop(0)
        self._header(p, header, view, now)
        if banner is not None:
            brect = parts.pop(0)
            extra = self._refunds(view) if banner.kind == "void" else ""
            banner_strip(p, brect, banner, tr, "banner", audience="player", extra=extra)
        if portrait:
            dealer_r, seats_r, tables_r, strip_r = parts
            dealer_hand(p, self.art, dealer_r, view.dealer_cards, view.dealer_hand,
                        view.dealer_qualifies, tr)
            self._seats(p, seats_r, view, ncols=4)
            self._paytables(p, tables_r, view, columns=True)
        else:
            top, seats_r, strip_r = parts
            dealer_r, tables_r = cols(top, [40, 60] if w >= 1280 else [33, 67], gap)
            dealer_hand(p, self.art, dealer_r, view.dealer_cards, view.dealer_hand,
                        view.dealer_qualifies, tr)
            self._seats(p, seats_r, view, ncols=len(view.seats) or 1)
            self._paytables(p, tables_r, view, columns=True)
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
                parts.append(f"{self.tr('word.seat_n', seat=s.seat)}: {format_money(total)}")
        return "  \u2022  ".join(parts)

    def _seats(self, p: Painter, rect: pygame.Rect, view: PlayerView, ncols: int) -> None:
        gap = max(3, rect.width // 160)
        cells = grid(rect, len(view.seats), ncols, gap)
        if not cells:
            return
        g = self._seat_geom(cells[0])
        compact = p.surface.get_width() < 1000  # as the paytables: "30:1"
        lines = {s.seat: self._seat_lines(s, om.on(view), compact) for s in view.seats}
        n = max([4, *(len(v) for v in lines.values())])
        line = rows(g["results"], [1] * n, 0)[0]
        pairs = [(x[0], x[1]) for v in lines.values() for x in v]
        sizes = {
            "line": self._line_size(pairs, line.width - max(2, line.width // 30),
                                    int(line.height * 0.8)),
            "hand": p.common_size([self._hand_text(s) for s in view.seats], g["hand"],
                                  g["hand"].height, bold=True),
        }
        for seat, cell in zip(view.seats, cells, strict=False):
            self._seat(p, cell, seat, view, lines[seat.seat], n, sizes)

    def _line_size(self, pairs: list[tuple[str, str]], width: int, size: int) -> int:
        """Largest size at which every (name, amount) pair fits side by side in ``width``."""
        key = (tuple(pairs), width, size)
        hit = self._line_cache.get(key)
        if hit is not None:
            return hit
        lo, hi = 4, max(4, size)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            f, fb = self.fonts.font(mid), self.fonts.font(mid, True)
            if all(f.size(a)[0] + fb.size(b)[0] + mid // 2 <= width for a, b in pairs):
                lo = mid
            else:
                hi = mid - 1
        if len(self._line_cache) > 256:
            self._line_cache.clear()
        self._line_cache[key] = lo
        return lo

    @staticmethod
    def _seat_geom(rect: pygame.Rect) -> dict[str, pygame.Rect]:
        inner = inset(rect, max(3, rect.width // 22), max(3, rect.height // 40))
        head, cards_r, hand_r, res_r, net_r = rows(inner, [1.0, 3.2, 0.85, 3.6, 1.25],
                                                   max(2, inner.height // 60))
        return {"head": head, "cards": cards_r, "hand": hand_r, "results": res_r, "net": net_r}

    def _hand_text(self, seat: SeatView) -> str:
        hand = self.tr.hand(seat.hand)
        if seat.decision == "fold":
            hand = f"{hand} \u2022 {self.tr('word.folded')}" if hand else self.tr("word.folded")
        return hand

    def _seat_lines(self, seat: SeatView, outcomes: bool = False, compact: bool = False
                    ) -> list[tuple[str, str, theme.Color]]:
        tr = self.tr
        if outcomes:  # marks, then outcomes in words: never an amount
            if seat.results:
                return [(tr.bet(r.bet), om.result_text(tr, r.outcome, r.multiple, compact),
                         theme.OUTCOME_COLORS.get(r.outcome, theme.TEXT)) for r in seat.results]
            return [(tr.bet(b), om.MARKED, theme.TEXT)
                    for b in ("ante", "play", "pair_plus", "six_card_bonus") if seat.bets.get(b)]
        if seat.results:
            return [(tr.bet(r.bet), _outcome_amount(r.outcome, r.net, r.stake),
                     theme.OUTCOME_COLORS.get(r.outcome, theme.TEXT)) for r in seat.results]
        return [(tr.bet(b), format_money(v), theme.TEXT)
                for b in ("ante", "play", "pair_plus", "six_card_bonus")
                if (v := seat.bets.get(b))]

    def _seat(self, p: Painter, rect: pygame.Rect, seat: SeatView, view: PlayerView,
              lines: list[tuple[str, str, theme.Color]], n: int, sizes: dict[str, int]) -> None:
        tr = self.tr
        role = f"seat.{seat.seat}"
        active = bool(seat.bets or seat.cards)
        radius = max(5, rect.width // 14)
        p.fill(rect, theme.PANEL if active else theme.FELT_DARK, radius)
        p.outline(rect, theme.PANEL_LINE if active else theme.FELT, 1, radius)
        p.region(role, rect)
        g = self._seat_geom(rect)
        p.text(tr("word.seat_n", seat=seat.seat), g["head"], g["head"].height, bold=True,
               color=theme.GOLD if active else theme.TEXT_DIM, role=f"{role}.label")
        if not active:
            p.text(tr("word.empty_seat"), g["results"], int(g["results"].height * 0.2),
                   color=theme.TEXT_DIM, role=f"{role}.open")
            return
        self.art.row(p.surface, g["cards"], seat.cards)
        p.region(f"{role}.cards", g["cards"])
        p.text(self._hand_text(seat), g["hand"], sizes["hand"], bold=True, role=f"{role}.hand")
        res_r = g["results"]
        p.region(f"{role}.results", res_r)
        size = sizes["line"]
        for (name, amount, color), line in zip(lines, rows(res_r, [1] * n, 0), strict=False):
            amount_w = min(line.width, self.fonts.font(size, True).size(amount)[0] + 1)
            b = pygame.Rect(line.right - amount_w, line.top, amount_w, line.height)
            a = pygame.Rect(line.left, line.top, max(1, b.left - line.left - 2), line.height)
            p.text(name, a, size, align="left", color=theme.TEXT_DIM, role=f"{role}.bet")
            p.text(amount, b, size, bold=True, align="right", color=color,
                   role=f"{role}.amount")
        net_r = g["net"]
        p.region(f"{role}.net", net_r)
        if seat.net is not None:
            if om.on(view):
                text, color = om.seat_summary(tr, seat, view.state == "void", "player")
            elif view.state == "void":
                refund = sum(r.stake for r in seat.results if r.outcome == "refund")
                text, color = "\u21a9 " + format_money(refund), theme.PUSH
            else:
                text = format_money(seat.net, sign=True)
                color = theme.WIN if seat.net > 0 else theme.LOSE if seat.net < 0 else theme.PUSH
            pill = inset(net_r, 0, max(1, net_r.height // 12))
            p.fill(pill, theme.FELT_DARK, pill.height // 3)
            p.text(text, inset(pill, pill.height // 4, 1), pill.height, bold=True, color=color,
                   role=f"{role}.net")

    def _paytables(self, p: Painter, rect: pygame.Rect, view: PlayerView, columns: bool) -> None:
        tr = self.tr
        pt = view.paytables
        radius = max(6, min(rect.width, rect.height) // 30)
        p.fill(rect, theme.PANEL, radius)
        p.outline(rect, theme.GOLD_DARK, max(1, rect.width // 300), radius)
        p.region("paytables", rect)
        inner = inset(rect, max(4, rect.width // 40 if not columns else rect.width // 90),
                      max(4, rect.height // 60))
        compact = p.surface.get_width() < 1280 and not columns or p.surface.get_width() < 1000

        def pays(x: int) -> str:
            return f"{x}:1" if compact else tr("word.to_one", x=x)

        def amount(v: int) -> str:
            return format_money(v)[:-3] if compact and v % 100 == 0 else format_money(v)

        sections: list[tuple[str, list[tuple[str, str]]]] = []
        if pt.ante_bonus:
            sections.append((tr("bet.ante_bonus"), [(tr.hand(k), pays(v))
                                                    for k, v in pt.ante_bonus]))
        if pt.pair_plus:
            sections.append((tr("bet.pair_plus"), [(tr.hand(k), pays(v))
                                                   for k, v in pt.pair_plus]))
        if pt.six_card_bonus:
            sections.append((tr("bet.six_card_bonus"), [(tr.hand(k), pays(v))
                                                        for k, v in pt.six_card_bonus]))
        limits = [(tr.bet(b), f"{amount(lo)} \u2013 {amount(hi)}")
                  for b, lo, hi in pt.limits]
        rtp = []
        strategy = dict(pt.rtp_strategy)
        for b, v in pt.rtp:
            if b in strategy:  # a fold loses it: the paytable's return, and a Q-6-4 player's
                rtp += [(tr("player.rtp_played", bet=tr.bet(b)), format_rtp(v)),
                        (tr("player.rtp_strategy", bet=tr.bet(b), hand=pt.strategy),
                         format_rtp(strategy[b]))]
            else:
                rtp.append((tr.bet(b), format_rtp(v)))
        if columns:
            body, foot = rows(inner, [11, 1.1] if inner.height > 200 else [8, 1.4], 0)
            pp = [x for x in sections if x[0] == tr("bet.pair_plus")]
            ab = [x for x in sections if x[0] == tr("bet.ante_bonus")]
            rest = [x for x in sections if x not in pp and x not in ab]
            lim = [(tr("player.limits"), limits)]
            ret = [(tr("player.rtp"), rtp)]
            four = body.height / 11 < p.min_text * 1.6 and body.width > body.height * 2
            if four:
                groups = [(pp, "pt"), (rest, "pt6"), (ab + ret, "rtp"), (lim, "limits")]
            else:
                groups = [(pp + ab, "pt"), (rest, "pt6"), (lim + ret, "limits")]
            widths = [0.95, 1.25, 1.15, 1.05] if four else [1, 1.1, 1.1]
            for (blocks, name), col in zip(groups, cols(body, widths, max(6, inner.width // 40)),
                                           strict=True):
                self._table_block(p, col, blocks, name, min_rows=8 if four else 11)
            p.text(tr("player.rules", q=_q(tr, pt.qualifier)), foot, foot.height,
                   color=theme.TEXT_DIM, role="pt.footer")
        else:
            blocks = [*sections, (tr("player.limits"), limits), (tr("player.rtp"), rtp)]
            self._table_block(p, inner, blocks, "pt",
                              footer=tr("player.rules", q=_q(tr, pt.qualifier)))

    def _table_block(self, p: Painter, rect: pygame.Rect,
                     blocks: list[tuple[str, list[tuple[str, str]]]], role: str,
                     footer: str = "", min_rows: int = 11) -> None:
        n_lines = sum(1 + len(items) for _, items in blocks) + (1 if footer else 0)
        weights: list[float] = []
        for _, items in blocks:
            weights += [1.25] + [1.0] * len(items)
        if footer:
            weights.append(1.1)
        n_rows = max(min_rows, len(weights))
        lines = rows(pygame.Rect(rect.left, rect.top, rect.width,
                                 int(rect.height * len(weights) / n_rows)), weights or [1], 0)
        if n_lines == 0:
            return
        i = 0
        size = max(8, int(min(ln.height for ln in lines) * 0.74))
        for title, items in blocks:
            t = lines[i]
            p.text(title, t, int(t.height * 0.8), bold=True, color=theme.GOLD, align="left",
                   role=f"{role}.title")
            pygame.draw.line(p.surface, theme.GOLD_DARK, (t.left, t.bottom - 1),
                             (t.right, t.bottom - 1), 1)
            i += 1
            for name, value in items:
                ln = lines[i]
                vw = min(ln.width, self.fonts.font(size, True).size(value)[0] + 1)
                b = pygame.Rect(ln.right - vw, ln.top, vw, ln.height)
                a = pygame.Rect(ln.left, ln.top, max(1, b.left - ln.left - size // 2), ln.height)
                p.text(name, a, size, align="left", role=f"{role}.name")
                p.text(value, b, size, bold=True, align="right", role=f"{role}.value")
                i += 1
        if footer:
            p.text(footer, lines[i], size, color=theme.TEXT_DIM, role=f"{role}.footer")

    def _history(self, p: Painter, rect: pygame.Rect, view: PlayerView) -> None:
        tr = self.tr
        p.region("history", rect)
        title_w = rect.width // 7 if rect.width > rect.height * 8 else rect.width // 5
        title = pygame.Rect(rect.left, rect.top, title_w, rect.height)
        p.text(tr("player.recent"), title, int(rect.height * 0.3), bold=True, color=theme.GOLD,
               align="left", role="history.title")
        items = view.history[:8]
        if not items:
            return
        area = pygame.Rect(title.right + 4, rect.top, rect.width - title_w - 4, rect.height)
        n = min(len(items), max(3, area.width // max(1, int(area.height * 2.4))))
        for h, cell in zip(items[:n], cols(area, [1] * n, max(3, area.height // 10)),
                           strict=False):
            void = h.status == "void"
            p.fill(cell, theme.RED_DARK if void else theme.PANEL, max(4, cell.height // 6))
            top, bot = rows(inset(cell, max(3, cell.height // 10), max(2, cell.height // 14)),
                            [1, 1])
            head_l, head_r = cols(top, [1, 1.6], 2)
            p.text(f"#{h.round_id}", head_l, top.height, color=theme.TEXT_DIM, align="left",
                   role="history.round")
            if void:
                p.text(tr("word.void"), bot, bot.height, bold=True, role="history.status")
                continue
            p.text(" ".join(card_label(c) for c in h.dealer_cards), head_r, top.height,
                   bold=True, align="right", role="history.cards")
            q = h.dealer_qualifies
            label = tr.hand(h.dealer_hand) + (" \u2713" if q else " \u2717")
            p.text(label, bot, bot.height, color=theme.GOLD if q else theme.TEXT_DIM,
                   role="history.result")


def _outcome_amount(outcome: str, net: int, stake: int) -> str:
    if outcome == "win":
        return format_money(net, sign=True)
    if outcome == "lose":
        return format_money(net)
    return format_money(stake)


def _q(tr: Translator, qualifier: str) -> str:
    if tr.lang == "en":
        return qualifier
    return {"fr": "hauteur dame", "uk": "дамою"}.get(tr.lang, qualifier)
