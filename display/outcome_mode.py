"""What the screens show and do differently when a table takes bets as outcomes.

With ``[table] bet_entry = "outcomes"`` the chips stay on the layout: the dealer marks the
bets and every result is an outcome ("pays 30 to 1", "push", "loses", "returned"). Such a
round's amounts count units, never money, so nothing here formats money.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pygame

from controller.game import inputs
from controller.game.bet_types import ANTE, NAMES
from controller.game.meters import ROUNDS_SETTLED, ROUNDS_VOID, parse_outcome_key
from controller.game.numbers import ODDS_WORDS
from controller.game.views import DealerView, SeatView
from display import theme
from display.i18n import Translator
from display.painter import Painter, cols, inset, rows

OUTCOMES = "outcomes"
"""The ``bet_entry`` of a round whose bets are marks and whose results are outcomes."""
MARKED = "\u2713"
UNMARKED = "\u2013"
ALL_PLAY_KEY = "shift+y"
REBET_ALL_KEY = "shift+b"
METER_BETS = NAMES


def on(view: Any) -> bool:
    """True when the view's round takes bets as outcomes."""
    return getattr(view, "bet_entry", "") == OUTCOMES


def result_text(tr: Translator, outcome: str, multiple: int, form: str = ODDS_WORDS,
                verb: bool = True) -> str:
    """One bet's result in words: ``pays 30 to 1``, ``push``, ``loses``, ``returned``.

    ``form``: the screen's odds (``30 to 1`` or ``30:1``); ``verb``: a win says ``pays``.
    """
    if outcome == "win":
        return tr.odds(multiple, form, pays=verb and form == ODDS_WORDS)
    return tr({"push": "result.push", "lose": "result.loses",
               "refund": "result.returned"}.get(outcome, "result.push"))


def widest_value(tr: Translator, seats: Iterable[SeatView]) -> str:
    """The longest value the seats' bet lines show (a mark, else the longest result)."""
    texts = [result_text(tr, r.outcome, r.multiple) for s in seats for r in s.results]
    return max(texts, key=len) if texts else MARKED


def mark_text(amount: int) -> str:
    """A bet line's value while betting: marked or not."""
    return MARKED if amount else UNMARKED


def mark_style(amount: int) -> str:
    """A bet line's button style while betting: a marked bet stands out green."""
    return "play" if amount else "flat"


def seat_summary(tr: Translator, seat: SeatView, void: bool,
                 audience: str = "dealer") -> tuple[str, theme.Color]:
    """A settled seat's (one-word summary, colour) in place of a net amount.

    The dealer's is what to do (``PAY`` a win, ``RETURN`` pushes or a void, ``TAKE`` all lost),
    the players' what happened (``WIN``, ``PUSH``, ``LOSE``, ``RETURNED``).
    """
    words = {"dealer": ("pay.win", "pay.push", "pay.lose", "pay.push"),
             "player": ("seat.win", "seat.push", "seat.lose", "seat.returned")}[audience]
    if void:
        return tr(words[3]), theme.PUSH
    outcomes = {r.outcome for r in seat.results}
    if "win" in outcomes:
        return tr(words[0]), theme.WIN
    if "push" in outcomes:
        return tr(words[1]), theme.PUSH
    return tr(words[2]), theme.LOSE


def recall_results(tr: Translator, seat: SeatView, form: str = ODDS_WORDS) -> str:
    """A recalled seat's bets and outcomes, short, no verb: ``A 1 to 1  PP 30 to 1  P loses``."""
    return "  ".join(f"{tr('short.' + r.bet)} {result_text(tr, r.outcome, r.multiple, form, False)}"
                     for r in seat.results)


def refunds_text(tr: Translator, seats: Iterable[SeatView]) -> str:
    """What a void returns: ``Seats 1, 3, 6: every bet returned``."""
    numbers = [str(s.seat) for s in seats if s.bets or s.results]
    return tr("result.returned_seats", seats=", ".join(numbers)) if numbers else ""


# ----------------------------------------------------------------------- dealer: actions

def mark(view: DealerView, seat: int, bet: str) -> inputs.DealerCommand:
    """The command a touch on a seat's bet line sends: mark it, or take the mark off."""
    placed = next((s.bets.get(bet, 0) for s in view.seats if s.seat == seat), 0)
    return inputs.MarkBet(seat=seat, bet=bet, on=not placed)  # type: ignore[arg-type]


def undecided(view: DealerView) -> list[int]:
    """Seats with an Ante and no decision yet, in seat order."""
    return [s.seat for s in view.seats if s.bets.get(ANTE) and not s.decision]


def all_play(view: DealerView) -> list[inputs.DealerCommand]:
    """One touch: Play for every seat still to decide (folds are touched first)."""
    if view.state != "deciding" or inputs.Decide.name not in view.allowed:
        return []
    return [inputs.Decide(seat=s, decision="play") for s in undecided(view)]


def tray(p: Painter, rect: pygame.Rect, view: DealerView, tr: Translator) -> None:
    """The outcome tray in the chips' place: Rebet all, All play."""
    g = max(3, rect.height // 10)
    a, b = cols(rect, [1, 1], g * 2)
    p.button("rebet_all", a, tr("btn.rebet_all"), ("cmd", inputs.Rebet(seat=0)),
             keys=(REBET_ALL_KEY,), enabled=inputs.Rebet.name in view.allowed)
    p.button("all_play", b, tr("btn.all_play"), ("all_play",), keys=(ALL_PLAY_KEY,),
             enabled=bool(all_play(view)), style="play")


# ----------------------------------------------------------------------- dealer: meters

def meter_table(tr: Translator, outcome_meters: tuple[tuple[str, int], ...],
                paytables: Any = None) -> tuple[list[str], list[list[str]]]:
    """The outcome meters as (column heads, rows): per bet, wins by line, pushes, losses, voids."""
    counts = dict(outcome_meters)
    heads = [tr("meter.name"), tr("meter.wins"), tr("meter.pushes"), tr("meter.losses"),
             tr("meter.returned")]
    rows_: list[list[str]] = [[tr("meter.rounds"),
                               f"{counts.get(ROUNDS_SETTLED, 0)} {tr('meter.settled')}",
                               "", "", f"{counts.get(ROUNDS_VOID, 0)} {tr('meter.voided')}"]]
    per_bet: dict[str, dict[str, Any]] = {}
    for key, n in counts.items():
        if key in (ROUNDS_SETTLED, ROUNDS_VOID):
            continue
        bet, outcome, line = parse_outcome_key(key)
        d = per_bet.setdefault(bet, {"wins": [], "push": 0, "lose": 0, "refund": 0})
        if outcome == "win":
            d["wins"].append((line, n))
        else:
            d[outcome] = d.get(outcome, 0) + n
    for bet in sorted(per_bet, key=lambda b: METER_BETS.index(b) if b in METER_BETS else 9):
        d = per_bet[bet]
        # the paytable's lines high to low, as the player screen lists them
        order = [k for k, _ in getattr(paytables, bet, ())]
        wins = ", ".join(f"{tr.hand(line) if line else tr('result.even')}: {n}"
                         for line, n in sorted(d["wins"], key=lambda x: (
                             order.index(x[0]) if x[0] in order else len(order), x[0])))
        rows_.append([tr.bet(bet), wins or "0", str(d["push"]), str(d["lose"]),
                      str(d["refund"])])
    return heads, rows_


def meter_lines(view: DealerView) -> float:
    """How many lines the outcome meters take (title, heads, rows): to share a screen."""
    return len(meter_table(Translator(), view.outcome_meters)[1]) + 2.3


def draw_meters(p: Painter, rect: pygame.Rect, view: DealerView, tr: Translator) -> None:
    """The outcome meters' table (rounds dealt as outcomes count no money)."""
    heads, body = meter_table(tr, view.outcome_meters, view.paytables)
    title_r, table_r = rows(rect, [1.3, len(body) + 1], max(2, rect.height // 60))
    p.text(tr("screen.outcome_meters"), title_r, title_r.height, bold=True, color=theme.GOLD,
           align="left", role="meters.outcomes.title")
    lines = rows(table_r, [1] * (len(body) + 1), 1)
    widths = [1.3, 3.4, 0.8, 0.8, 0.9]
    for hd, cell in zip(heads, cols(lines[0], widths, 6), strict=True):
        p.text(hd, cell, int(cell.height * 0.8), bold=True, color=theme.TEXT_DIM,
               align="left", role="meters.outcomes.th")
    size = p.common_size([r[1] for r in body], cols(lines[-1], widths, 6)[1],
                         int(lines[-1].height * 0.72))
    for i, (texts, line) in enumerate(zip(body, lines[1:], strict=True)):
        if i % 2 == 0:
            p.fill(line, theme.PANEL_HI, 3)
        for j, (text, cell) in enumerate(zip(texts, cols(line, widths, 6), strict=True)):
            p.text(text, inset(cell, 3, 0), size if j == 1 else int(cell.height * 0.72),
                   bold=j == 0, color=theme.TEXT, align="left", role="meters.outcomes.cell")
