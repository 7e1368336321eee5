"""The player screen's seats: each seat's cards, hand, wagers or results and net.

Every seat text is at least the screen's floor (3 % of its shorter side), one size for all
seats (:func:`plan_seats`); each seat says its bets in the fullest :data:`FORMS` its rows
hold, and a win's paytable line takes a row under its amount while rows are left.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import pygame

from display import theme
from display.cards import CardArt
from display.painter import Painter, TextRecord, inset
from display.theme import LINE_HEIGHT, FontBook

FORMS = ("inline", "stacked", "short", "bare")
"""A seat's bet lines, fullest first: name beside, above, short name beside, amount alone."""


@dataclass(frozen=True, slots=True)
class BetRow:
    """One wager or result of a seat, as its rows may say it.

    ``detail`` is the paytable line a win was paid on and its pay (``("Mini royal",
    "100:1")``); ``rank`` its pay multiple (the biggest named first).
    """

    name: str
    short: str
    amount: str
    color: theme.Color
    detail: tuple[str, str] | None = None
    rank: int = 0
    joined: str = "{bet}: {line} {odds}"


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """The size and heights (pixels) shared by every seat of a frame, in drawing order."""

    size: int
    hand_lines: int
    rows: int
    pad_x: int
    pad_y: int
    heights: tuple[int, int, int, int, int]
    gap: int

    @property
    def row(self) -> int:
        """One result row's height."""
        return _h(self.size)


def _h(size: int) -> int:
    """The box height one line of ``size`` needs."""
    return math.ceil(size * LINE_HEIGHT) + 1


def _pill_h(size: int) -> int:
    """The net pill's height for its text of ``size``."""
    return math.ceil(_h(size) * 1.15)


def _pill_pad(size: int) -> int:
    """The net pill's margin left and right of its text."""
    return max(1, _pill_h(size) // 16)


def split_two(text: str) -> tuple[str, str]:
    """``text`` in two lines, split at the space nearest its middle (``("", text)``: none)."""
    words = text.split(" ")
    if len(words) < 2:
        return "", text
    best = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i]))
                                                       - len(" ".join(words[i:]))))
    return " ".join(words[:best]), " ".join(words[best:])


def hand_lines(fonts: FontBook, text: str, size: int, width: int) -> list[str]:
    """``text`` on one line, two balanced ones, or as many as it takes (hyphens break)."""
    if _wide(fonts, text, size, True) <= width:
        return [text]
    two = [t for t in split_two(text) if t]
    if all(_wide(fonts, t, size, True) <= width for t in two):
        return two
    words: list[str] = []
    for word in text.split(" "):  # a word too wide breaks after its hyphens (Стріт-флеш)
        if "-" in word and _wide(fonts, word, size, True) > width:
            *heads, tail = word.split("-")
            words += [f"{h}-" for h in heads] + [tail]
        else:
            words.append(word)
    out: list[str] = []
    for word in words:
        joined = f"{out[-1]}{word}" if out and out[-1].endswith("-") else f"{out[-1]} {word}" \
            if out else word
        if out and _wide(fonts, joined, size, True) <= width:
            out[-1] = joined
        else:
            out.append(word)
    return out


def detail_rows(fonts: FontBook, size: int, width: int, detail: tuple[str, str]
                ) -> list[tuple[str, str]] | None:
    """A paid line's rows (left, right): its name wrapped, its pay beside or below the last.

    None when a word of the name or the pay is wider than ``width``.
    """
    name, pay = detail
    out: list[str] = []
    for word in name.split(" "):
        if _wide(fonts, word, size, False) > width:
            return None
        if out and _wide(fonts, f"{out[-1]} {word}", size, False) <= width:
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    rows = [(x, "") for x in out]
    if _wide(fonts, pay, size, True) > width:
        return None
    if _beside(fonts, size, width, out[-1], pay):
        rows[-1] = (out[-1], pay)
    else:
        rows.append(("", pay))
    return rows


def _details(fonts: FontBook, size: int, width: int, bets: tuple[BetRow, ...],
             spare: int) -> dict[int, list[tuple[str, str]]]:
    """The bets (by index) whose paid lines ``spare`` rows hold, the biggest pays first."""
    out: dict[int, list[tuple[str, str]]] = {}
    for i in sorted((i for i, b in enumerate(bets) if b.detail), key=lambda i: -bets[i].rank):
        line, pay = bets[i].detail  # type: ignore[misc]
        for detail in ((line, pay), (line, "")):  # with its pay, else the line's name alone
            rows = detail_rows(fonts, size, width, detail)
            if rows is not None and len(rows) <= spare:
                out[i], spare = rows, spare - len(rows)
                break
    return out


def _joined(fonts: FontBook, size: int, width: int, name: str, b: BetRow,
            alone: bool = False) -> str:
    """A bet's name joined by its paid line (and pay, if it fits), or the name alone."""
    line, pay = b.detail  # type: ignore[misc]
    for pay_shown in (pay, ""):
        text = b.joined.format(bet=name, line=line, odds=pay_shown).rstrip()
        if (_wide(fonts, text, size, False) <= width if alone
                else _beside(fonts, size, width, text, b.amount)):
            return text
    return name


def _unnamed(fonts: FontBook, size: int, width: int, bets: tuple[BetRow, ...],
             rows: int) -> int:
    """The biggest pay multiple of a seat whose paid line ``rows`` leave unnamed (0: none)."""
    form = next((f for f in FORMS if (n := form_rows(fonts, size, width, bets, f)) is not None
                 and n <= rows), "bare")
    used = form_rows(fonts, size, width, bets, form) or len(bets)
    details = _details(fonts, size, width, bets, rows - used)
    name = {"inline": "name", "short": "short", "stacked": "name"}.get(form)
    return max([0, *(b.rank for i, b in enumerate(bets) if b.detail and i not in details
                     and (name is None or _joined(fonts, size, width, getattr(b, name), b,
                                                  form == "stacked") == getattr(b, name)))])


def _detail_need(fonts: FontBook, size: int, width: int, bets: tuple[BetRow, ...]) -> int:
    """The rows every paid line of a seat would take."""
    return sum(len(detail_rows(fonts, size, width, b.detail) or ()) for b in bets if b.detail)


def _wide(fonts: FontBook, text: str, size: int, bold: bool) -> int:
    return fonts.font(size, bold).size(text)[0] if text else 0


def _beside(fonts: FontBook, size: int, width: int, name: str, amount: str) -> bool:
    """Whether ``name`` stands beside ``amount`` in ``width`` at ``size``."""
    return (_wide(fonts, name, size, False) + _wide(fonts, amount, size, True) + size // 2
            <= width)


def form_rows(fonts: FontBook, size: int, width: int, bets: tuple[BetRow, ...],
              form: str) -> int | None:
    """The rows ``bets`` take in ``form`` (details left out), or None when it cannot say them."""
    if form == "inline":
        ok = all(_beside(fonts, size, width, b.name, b.amount) for b in bets)
    elif form == "stacked":  # an amount alone on its row: in the plain face if bold is too wide
        ok = all(_wide(fonts, b.name, size, False) <= width
                 and _wide(fonts, b.amount, size, False) <= width for b in bets)
    elif form == "short":
        ok = all(_beside(fonts, size, width, b.short, b.amount) for b in bets)
    else:
        ok = all(_wide(fonts, b.amount, size, False) <= width for b in bets)
    if not ok:
        return None
    return len(bets) * (2 if form == "stacked" else 1)


def seat_form(fonts: FontBook, plan: SeatPlan, width: int, bets: tuple[BetRow, ...]) -> str:
    """The fullest form whose rows ``plan`` has for a seat (``bare`` as the last resort)."""
    for form in FORMS:
        need = form_rows(fonts, plan.size, width, bets, form)
        if need is not None and need <= plan.rows:
            return form
    return "bare"


def plan_seats(fonts: FontBook, cell: pygame.Rect, seats: tuple[tuple[BetRow, ...], ...],
               hands: tuple[str, ...], floor: int, nets: tuple[str, ...] = (),
               top: int = 0) -> SeatPlan:
    """The size, from ``top`` down to ``floor``, at which every seat fits ``cell`` best.

    A size fits when hand names take two lines at most, nets their pills, and bets some
    form beside cards two rows tall; the fullest forms win, then the largest size. None
    fits: ``floor``'s plan, and the painter cuts (and records) what cannot fit.
    """
    return _plan(fonts, cell.width, cell.height, seats, hands, floor, nets, max(top, floor))


@functools.lru_cache(maxsize=256)
def _plan(fonts: FontBook, width: int, height: int, seats: tuple[tuple[BetRow, ...], ...],
          hands: tuple[str, ...], floor: int, nets: tuple[str, ...], top: int) -> SeatPlan:
    pad_x, pad_y = max(2, width // 60), max(2, height // 60)
    w, h = width - 2 * pad_x, height - 2 * pad_y
    gap = max(1, h // 90)
    best = None
    for size in range(top, floor - 1, -1):
        wrapped = [hand_lines(fonts, x, size, w) for x in hands]
        lines = max([1, *map(len, wrapped)])
        fits = lines <= 3 and all(_wide(fonts, x, size, True) <= w for x in sum(wrapped, []))
        fits = fits and all(_wide(fonts, x, size, False) <= w - 2 * _pill_pad(size)
                            for x in nets)
        row = _h(size)
        fixed = row + lines * row + _pill_h(size) + 4 * gap
        # what each seat needs at this size, the same whether the cards take two rows or one
        needs = [([form_rows(fonts, size, w, bets, f) for f in FORMS],
                  _detail_need(fonts, size, w, bets), len(bets)) for bets in seats]
        unnamed_at: dict[int, int] = {}
        for cards in (2, 1):
            room = max(0, (h - fixed - cards * row) // row)  # the cards two rows tall, else one
            worst, missing, wants = 0, 0, [1]
            # every bet a row: the rows a seat cannot hold are missing
            for need, details, n_bets in needs:
                rank = next((i for i, n in enumerate(need) if n is not None and n <= room),
                            len(FORMS))
                missing += max(0, n_bets - room) if rank == len(FORMS) else 0
                worst = max(worst, rank)
                wants.append(min(room, need[rank] or 0 if rank < len(FORMS) else n_bets)
                             + details)
            rows = min(room, max(wants))
            if rows not in unnamed_at:
                unnamed_at[rows] = max([0, *(_unnamed(fonts, size, w, bets, rows)
                                             for bets in seats)])
            plan = SeatPlan(size, lines, rows, pad_x, pad_y,
                            (row, h - fixed - rows * row, lines * row, rows * row,
                             _pill_h(size)), gap)
            # every bet drawn first, then the texts that fit, the fullest forms, the biggest
            # pay left unnamed the smallest, the cards two rows tall, the largest size
            key = (missing, not fits, worst, unnamed_at[rows], cards)
            if best is None or key < best[0]:
                best = (key, plan)
    assert best is not None
    return best[1]


def draw_seat(p: Painter, art: CardArt, cell: pygame.Rect, plan: SeatPlan, role: str,
              label: str, cards: tuple[str | None, ...], hand: str,
              bets: tuple[BetRow, ...], net: tuple[str, theme.Color] | None) -> None:
    """One seat with wagers or results, drawn by ``plan``.

    ``cards`` None: face down; ``hand`` is empty before the third card.
    """
    inner = inset(cell, plan.pad_x, plan.pad_y)
    parts = []
    y = inner.top
    for height in plan.heights:
        parts.append(pygame.Rect(inner.left, y, inner.width, max(0, height)))
        y += height + plan.gap
    head, cards_r, hand_r, res_r, net_r = parts
    size = plan.size
    p.text(label, head, size, bold=True, color=theme.GOLD, role=f"{role}.label")
    art.row(p.surface, cards_r, cards)
    p.region(f"{role}.cards", cards_r)
    if hand:
        _hand(p, hand_r, plan, hand, role)
    p.region(f"{role}.results", res_r)
    _results(p, res_r, plan, bets, role)
    p.region(f"{role}.net", net_r)
    if net is not None:
        text, color = net
        pill = pygame.Rect(net_r)
        p.fill(pill, theme.FELT_DARK, pill.height // 3)
        box = inset(pill, _pill_pad(size), 0)  # bold while it fits, else the plain face
        p.text(text, box, size, bold=_wide(p.fonts, text, size, True) <= box.width,
               color=color, role=f"{role}.net")


def _hand(p: Painter, hand_r: pygame.Rect, plan: SeatPlan, hand: str, role: str) -> None:
    texts = hand_lines(p.fonts, hand, plan.size, hand_r.width)[:plan.hand_lines]
    row = hand_r.height // len(texts)
    for i, text in enumerate(texts):
        box = pygame.Rect(hand_r.left, hand_r.top + i * row, hand_r.width, row)
        p.text(text, box, plan.size, bold=True, role=f"{role}.hand")


def _results(p: Painter, res_r: pygame.Rect, plan: SeatPlan, bets: tuple[BetRow, ...],
             role: str) -> None:
    """The seat's wagers or results, each on its rows, and the paytable lines that paid."""
    size = plan.size
    form = seat_form(p.fonts, plan, res_r.width, bets)
    used = form_rows(p.fonts, size, res_r.width, bets, form) or len(bets)
    details = _details(p.fonts, size, res_r.width, bets, plan.rows - used)
    y, row = res_r.top, plan.row
    for i, b in enumerate(bets):
        if y + row * (2 if form == "stacked" else 1) > res_r.bottom:  # no row left: cut
            p.frame.texts.append(TextRecord(b.amount, pygame.Rect(res_r.left, y, 0, 0),
                                            res_r, f"{role}.amount", size, True))
            continue
        line = pygame.Rect(res_r.left, y, res_r.width, row)
        name = {"inline": b.name, "short": b.short, "stacked": b.name}.get(form, "")
        if name and b.detail and i not in details:  # no row of its own: with the bet's name
            name = _joined(p.fonts, size, res_r.width, name, b, form == "stacked")
        if form == "stacked":
            p.text(name, line, size, align="left", color=theme.TEXT_DIM, role=f"{role}.bet")
            line = line.move(0, row)
        elif name:
            aw = min(line.width, _wide(p.fonts, b.amount, size, True) + 1)
            p.text(name, pygame.Rect(line.left, line.top, line.width - aw - size // 2 + 1,
                                     row), size, align="left", color=theme.TEXT_DIM,
                   role=f"{role}.bet")
        p.text(b.amount, line, size, bold=_wide(p.fonts, b.amount, size, True) <= line.width,
               align="right", color=b.color, role=f"{role}.amount")
        y = line.bottom
        for left, right in details.get(i, ()):  # the paytable line that paid
            line = pygame.Rect(res_r.left, y, res_r.width, row)
            p.text(left, line, size, align="left", color=b.color, role=f"{role}.line")
            p.text(right, line, size, bold=True, align="right", color=b.color,
                   role=f"{role}.line")
            y += row
