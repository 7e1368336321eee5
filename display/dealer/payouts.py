"""The payout list: what each seat is paid, takes or gets back, ticked off seat by seat.

It stays until every seat is ticked; only then does the large button offer the next
round. Ticks are the screen's own: they guard the payout, the table records the results.
"""

from __future__ import annotations

import pygame

from controller.game.pay_lines import in_pay_order
from controller.game.views import SeatView
from display import outcome_mode as om
from display import theme
from display.dealer.actions import AllPaid, MarkPaid
from display.dealer.draw import Ctx, button, label_margin
from display.dealer.state import next_round_open, next_to_pay, payout_seats, seat_verb
from display.pay_lines import seat_line
from display.theme import Color

Line = tuple[str, str, Color]
"""One line of a seat: (bet, amount text, colour); a paytable line's: (its name, pay, colour)."""


def result_lines(c: Ctx, seat: SeatView, verb: bool = True, whole: bool = False
                 ) -> list[Line]:
    """A seat's results in pay order: won amounts signed, pushes and refunds as returned.

    Outcome mode says each in words (``pays 30 to 1``; ``verb`` False: ``30 to 1``).
    A win paid on a paytable line is followed by the line (:func:`~display.pay_lines.seat_line`).
    """
    out = []
    for r in in_pay_order(seat.results):
        if c.outcomes:
            text = om.result_text(c.tr, r.outcome, r.multiple, c.odds, verb)
        elif r.outcome == "win":
            text = c.money(r.net, sign=True, whole=whole)
        elif r.outcome == "lose":
            text = c.money(r.net, whole=whole)
        else:
            text = "\u21a9 " + c.money(r.stake, whole=whole)
        color = theme.OUTCOME_COLORS.get(r.outcome, theme.TEXT)
        out.append((r.bet, text, color))
        paid = seat_line(c.tr, r, c.odds, seat.hand, c.outcomes)
        if paid is not None:
            out.append((*paid, color))
    return out


def seat_total(c: Ctx, seat: SeatView) -> tuple[str, str, Color]:
    """What the dealer does at a seat: (verb key, amount, colour); outcome mode: no amount."""
    verb = seat_verb(c.view, seat)
    color = {"pay": theme.WIN, "take": theme.LOSE}.get(verb, theme.PUSH)
    if c.outcomes:
        amount = ""
    elif c.view.state == "void":
        amount = c.money(sum(r.stake for r in seat.results if r.outcome == "refund"))
    else:
        amount = c.money(seat.net or 0, sign=verb == "pay")
    return f"btn.{verb}", amount, color


def pay_button(c: Ctx, rect: pygame.Rect, seat: SeatView) -> None:
    """The button that ticks ``seat`` as paid, or unticks it (the next to pay: ``Enter`` too)."""
    ui, view = c.ui, c.view
    paid = seat.seat in ui.paid
    verb, amount, color = seat_total(c, seat)
    keys = (str(seat.seat),) if seat.seat <= 9 else ()
    if paid:
        button(c, f"seat.{seat.seat}.paid", rect, c.tr("btn.paid") + " \u2713",
               MarkPaid(seat.seat), keys=keys, style="flat", sub=amount, sub_color=color)
    else:
        nxt = next_to_pay(view, ui) == seat.seat
        keys += ("return",) if nxt else ()  # Enter ticks the seat outlined, next to pay
        button(c, f"seat.{seat.seat}.paid", rect, c.tr(verb), MarkPaid(seat.seat), keys=keys,
               style="primary" if nxt else "normal", sub=amount,
               sub_color=theme.TEXT_DARK if nxt else color, pad=label_margin(c))
    c.p.region(f"seat.{seat.seat}.results", rect)


def all_paid_button(c: Ctx, rect: pygame.Rect) -> None:
    """All paid: tick every seat at once (outcome mode: and open a round asking no PIN)."""
    seats = payout_seats(c.view)
    left = [s for s in seats if s not in c.ui.paid]
    nxt = c.outcomes and next_round_open(c.view)  # outcome mode: and the next round opens
    button(c, "all_paid", rect, c.tr("btn.all_paid_next" if nxt else "btn.all_paid"),
           AllPaid(next_round=nxt) if left else None, keys=("a",), enabled=bool(left))


def mark_paid(ui_paid: set[int], seat: int) -> None:
    """Tick ``seat`` as paid, or untick it."""
    if seat in ui_paid:
        ui_paid.discard(seat)
    else:
        ui_paid.add(seat)
