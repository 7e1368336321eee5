"""Game recall (R5): the current round and the ones before it, card by card.

Marked as recall on screen (an orange frame and band). The alarm strip and the shoe link
stay in sight above it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pygame

from controller.game.views import RecallRound, SeatView
from display import outcome_mode as om
from display import theme
from display.cards import card_label
from display.dealer.actions import ShowRecall
from display.dealer.draw import MIN_CARD, Ctx, button, cards, panel
from display.painter import cols, grid, inset, rows
from display.pay_lines import named_line


def draw_recall(c: Ctx) -> None:
    """Draw the recall screen in the layout's body."""
    p, sc, tr, ui = c.p, c.sc, c.tr, c.ui
    pygame.draw.rect(p.surface, theme.RECALL, p.surface.get_rect(), max(3, sc.px(4)))
    body = c.lay.body
    rounds = c.view.recall
    idx = max(0, min(ui.recall_index, len(rounds) - 1))
    cur = rounds[idx] if rounds else None
    g = sc.gap
    n = max(1, len(rounds))
    side = sc.px(92)
    per_row = max(1, (body.width - 2 * side - g) // (sc.touch + g))
    nrows = -(-n // per_row)
    band = pygame.Rect(body.left, body.top, body.width, nrows * sc.touch + (nrows - 1) * g)
    detail = pygame.Rect(body.left, band.bottom + g, body.width, body.bottom - band.bottom - g)
    p.region("recall.band", band)
    newer_r, strip, older_r = cols(band, [side, band.width - 2 * side - 2 * g, side], g)
    button(c, "recall.newer", newer_r, tr("btn.newer"), ShowRecall(idx - 1),
           keys=("left", "page up"), enabled=idx > 0, style="flat")
    for i, (rr, cell) in enumerate(zip(rounds, grid(strip, n, -(-n // nrows), g),
                                        strict=False)):
        button(c, f"recall.round.{i}", cell, f"#{rr.round_id}", ShowRecall(i),
               style="danger" if rr.status == "void" else "flat", selected=i == idx, hint="")
    button(c, "recall.older", older_r, tr("btn.older"), ShowRecall(idx + 1),
           keys=("right", "page down"), enabled=idx < len(rounds) - 1, style="flat")
    title = (tr("screen.recall_round", round=cur.round_id, index=idx + 1, count=len(rounds))
             if cur else tr("screen.recall"))
    panel(c, detail, theme.PANEL, theme.RECALL, max(1, sc.px(2)))
    p.region("recall.detail", detail)
    inner = inset(detail, sc.px(8), sc.px(5))
    head = pygame.Rect(inner.left, inner.top, inner.width, max(sc.px(MIN_CARD), sc.line(sc.large)))
    title_w = min(head.width // 2, p.fonts.font(sc.large, True).size(title)[0] + sc.px(4))
    if c.lay.portrait:  # the title on a line of its own, the round's facts under it
        title_w = head.width
    p.text(title, pygame.Rect(head.left, head.top, title_w, head.height), sc.large, bold=True,
           color=theme.RECALL, align="left", role="recall.title")
    if c.lay.portrait:
        facts = pygame.Rect(head.left, head.bottom, head.width, max(sc.px(40), 2 * sc.line(
            sc.small)))
    else:
        facts = pygame.Rect(head.left + title_w + g, head.top, head.width - title_w - g,
                            head.height)
    if cur is not None:
        _detail(c, facts, pygame.Rect(inner.left, facts.bottom + sc.px(4), inner.width,
                                      inner.bottom - facts.bottom - sc.px(4)), cur)
    p.frame.notes["recall_round"] = cur.round_id if cur else None


def _detail(c: Ctx, head: pygame.Rect, rect: pygame.Rect, rr: RecallRound) -> None:
    """The round's status and dealer beside the title; its deal, then its seats below."""
    p, sc, tr = c.p, c.sc, c.tr
    lh = sc.line(sc.small)
    status = tr.state(rr.status) if rr.status != "void" else tr("word.void")
    when = rr.started_utc.replace("T", " ").replace("Z", "")[:16]
    label_w = p.fonts.font(sc.small, True).size(tr("word.dealer"))[0] + sc.px(6)
    card_w = int(head.height * 0.7 * 3.3)
    info, lab, cr = cols(head, [head.width - label_w - card_w - 2 * sc.px(4), label_w, card_w],
                         sc.px(4))
    a, b = rows(info, [1, 1])
    p.text(status, a, sc.small, bold=True, align="left",
           color=theme.LOSE if rr.status == "void" else theme.GOLD, role="recall.head")
    p.text(tr("recall.started", time=when) if when else "", b, sc.small, color=theme.TEXT_DIM,
           align="left", role="recall.time")
    p.text(tr("word.dealer"), lab, sc.small, bold=True, color=theme.GOLD, align="left",
           role="recall.dealer")
    cards(c, cr, tuple(rr.dealer_cards), "recall.dealer", align="left")
    y = rect.top
    caption = tr("recall.deal")
    if rr.void_reason:
        caption += "  \u2014  " + tr("recall.void_reason", reason=tr.void_reason(rr.void_reason))
    mode = tr("recall.mode." + rr.bet_entry)  # how its bets were taken, at the right
    mode_w = p.fonts.font(sc.small).size(mode)[0] + sc.px(2)
    p.text(mode, pygame.Rect(rect.right - mode_w, y, mode_w, lh), sc.small,
           color=theme.GOLD if om.on(rr) else theme.TEXT_DIM, align="right",
           role="recall.mode")
    p.text(caption, pygame.Rect(rect.left, y, rect.width - mode_w - sc.px(8), lh), sc.small,
           color=theme.LOSE if rr.void_reason else theme.TEXT_DIM, align="left",
           role="recall.caption")
    y += lh
    entries = [f"{card_label(card) if card else '?'} {_where(tr, pos)}" + (" \u270d" if manual
                                                                            else "")
               for card, pos, manual in rr.deal]
    if entries:
        f = p.fonts.font(sc.small, True)
        cell_w = max(f.size(e)[0] for e in entries) + sc.px(8)
        per_row = max(1, rect.width // cell_w)
        nrows = -(-len(entries) // per_row)
        cells = grid(pygame.Rect(rect.left, y, rect.width, nrows * lh), len(entries),
                     per_row, 0)
        for i, (text, cell, (_, _, manual)) in enumerate(zip(entries, cells, rr.deal,
                                                              strict=False)):
            p.text(text, cell, sc.small, bold=True, align="left",
                   color=theme.AMBER if manual else theme.TEXT, role=f"recall.deal.{i}")
        y += nrows * lh + sc.px(4)
    _seats(c, pygame.Rect(rect.left, y, rect.width, rect.bottom - y), rr)


def _where(tr, pos: str) -> str:
    return (pos.replace("seat ", tr("abbr.seat")).replace("dealer", tr("abbr.dealer"))
            .replace("burn", tr("abbr.burn")))


def _seats(c: Ctx, rect: pygame.Rect, rr: RecallRound) -> None:
    """The seats of the round as a table: seat, cards, bets, decision, net.

    Paid lines ("PP: Mini royal 100:1") follow the bets, or take lines while there is room.
    """
    p, sc = c.p, c.sc
    lh = sc.line(sc.small)
    texts, paid = _seat_texts(c, rr)
    widths = [0.7, 1.6, 4.0, 1.1, 1.3]
    shape = cols(rect, widths, sc.px(4))
    f, fb = p.fonts.font(sc.small), p.fonts.font(sc.small, True)
    split = any(f.size(t[2])[0] > shape[2].width or fb.size(t[4])[0] > shape[4].width
                for t in texts)  # the bets, or a net in words, want more room
    if split:
        widths = [0.7, 1.9, 0.0, 1.4, 1.5]
    grid_ = _Grid(rect, widths, split, cols(rect, widths, sc.px(4))[1].left, lh)
    bets_w = rect.right - grid_.indent if split else shape[2].width
    beside = [bool(x) and f.size(SEP.join([t[2], *(n for _, n in x)]))[0] <= bets_w
              for t, x in zip(texts, paid, strict=True)]
    spare = rect.height // lh - 1 - sum(1 + (split and bool(t[2])) for t in texts)
    below = _names_below(f, paid, beside, spare, rect.right - grid_.indent)
    _heads(c, grid_)
    y = rect.top + lh
    for i, (s, row) in enumerate(zip(rr.seats, texts, strict=True)):
        if y + lh > rect.bottom:
            break
        y = _seat_row(c, grid_, y, row, _net_color(c, rr, s),
                      [n for _, n in paid[i]] if beside[i] else [], below[i])


SEP = "  "
"""Between the bets and the paytable lines named after them."""


@dataclass(frozen=True)
class _Grid:
    rect: pygame.Rect
    widths: list[float]
    split: bool  # the bets on a line of their own
    indent: int  # where a seat's lines of its own start
    lh: int


def _seat_texts(c: Ctx, rr: RecallRound) -> tuple[list[list[str]], list[list[tuple]]]:
    """Each seat's cells (seat, cards, bets, decision, net), and its paid lines' names."""
    tr = c.tr
    texts, paid = [], []
    outcomes = om.on(rr)
    money = functools.partial(tr.money, currency=c.view.currency)
    for s in rr.seats:
        if outcomes:  # the marks; once settled each bet's outcome: "A 1 to 1  PP 30 to 1"
            bets = (om.recall_results(tr, s, c.odds) if s.results
                    else "  ".join(tr("short." + k) for k in s.bets))
            net = (om.seat_summary(tr, s, rr.status == "void")[0] if s.net is not None
                   else "")
        else:
            bets = " ".join(f"{tr('short.' + k)} {money(v)}" for k, v in s.bets.items())
            net = money(s.net, sign=True) if s.net is not None else ""
        paid.append([(r.multiple, x) for r in s.results
                     if (x := named_line(tr, tr("short." + r.bet), r, c.odds))])
        dec = {"play": tr("btn.play"), "fold": tr("btn.fold")}.get(s.decision or "", "")
        texts.append([str(s.seat), " ".join(card_label(x) for x in s.cards if x), bets, dec,
                      net])
    return texts, paid


def _names_below(f: pygame.font.Font, paid: list[list[tuple]], beside: list[bool],
                 spare: int, width: int) -> list[list[str]]:
    """Each seat's lines of paid names under it, the biggest pays first, in ``spare`` lines."""
    below: list[list[str]] = [[] for _ in paid]
    for i in sorted(range(len(paid)), key=lambda i: -max((m for m, _ in paid[i]), default=0)):
        named = [] if beside[i] else sorted(paid[i], reverse=True)
        while named:  # no room for them all: the smallest pays' names give way first
            below[i] = _wrap(f, [n for m, n in paid[i] if (m, n) in named], width, SEP)
            if len(below[i]) <= spare:
                break
            named.pop()
        else:
            below[i] = []
        spare -= len(below[i])
    return below


def _heads(c: Ctx, g: _Grid) -> None:
    tr = c.tr
    heads = [tr("word.seat"), "", "" if g.split else tr("recall.bets"), tr("recall.decision"),
             tr("word.net")]
    for hd, cell in zip(heads, cols(pygame.Rect(g.rect.left, g.rect.top, g.rect.width, g.lh),
                                    g.widths, c.sc.px(4)), strict=True):
        if hd:
            c.p.text(hd, cell, c.sc.small, bold=True, color=theme.TEXT_DIM, align="left",
                     role="recall.th")


def _net_color(c: Ctx, rr: RecallRound, s: SeatView) -> tuple:
    if s.net is not None and om.on(rr):
        return om.seat_summary(c.tr, s, rr.status == "void")[1]
    if s.net is not None:
        return theme.WIN if s.net > 0 else theme.LOSE if s.net < 0 else theme.PUSH
    return theme.TEXT


ROLES = ("recall.seat", "recall.cards", "recall.bets", "recall.decision", "recall.net")


def _seat_row(c: Ctx, g: _Grid, y: int, row: list[str], color: tuple, beside: list[str],
              below: list[str]) -> int:
    """Draw a seat's row at ``y`` and the lines of its own; the ``y`` after them."""
    p, sc, lh, right = c.p, c.sc, g.lh, g.rect.right
    cells = cols(pygame.Rect(g.rect.left, y, g.rect.width, lh), g.widths, sc.px(4))
    for j, (text, cell) in enumerate(zip(row, cells, strict=True)):
        if g.split and j == 2:
            continue
        p.text(text, cell, sc.small, bold=j in (0, 4), align="left",
               color=color if j == 4 else theme.TEXT, role=ROLES[j])
    y += lh
    bets_r = cells[2]
    if g.split and row[2]:
        bets_r = pygame.Rect(g.indent, y, right - g.indent, lh)
        p.text(row[2], bets_r, sc.small, color=theme.TEXT_DIM, align="left", role=ROLES[2])
        y += lh
    if beside:  # after the bets, in their cell
        x = p.fonts.font(sc.small).size(row[2] + SEP)[0]
        p.text(SEP.join(beside), pygame.Rect(bets_r.left + x, bets_r.top, bets_r.width - x, lh),
               sc.small, color=theme.TEXT_DIM, align="left", role="recall.lines")
    for text in below:
        p.text(text, pygame.Rect(g.indent, y, right - g.indent, lh), sc.small,
               color=theme.TEXT_DIM, align="left", role="recall.lines")
        y += lh
    return y


def _wrap(font: pygame.font.Font, parts: list[str], width: int, sep: str) -> list[str]:
    """``parts`` joined by ``sep`` on as few lines of ``width`` pixels as they take."""
    out: list[str] = []
    for part in parts:
        if out and font.size(out[-1] + sep + part)[0] <= width:
            out[-1] += sep + part
        else:
            out.append(part)
    return out
