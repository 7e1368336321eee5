"""Paying out on the real dealer screen: the words, the keys and the outline.

A real table, the real dealer screen at 800x480, real FINGERDOWN and KEYDOWN events. The
round is dealt from chosen cards so each seat's fate is known: seat 1 loses (its bets are
taken), seat 2 wins (it is paid), seat 3 ties the dealer (its bets are returned).
"""

import pytest
from dealer_frames import alarm_lines

from controller.game.events import CardRead
from display import theme

BETS = {1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 500}}
# round robin: seats 1, 2, 3, then the dealer; three passes
HANDS = {1: "2c 5d 8h", 2: "7s 7d 3c", 3: "Ac Kh 9c", 0: "Ah Kd 9s"}
"""Seat 1: eight high, loses to the dealer's ace high; seat 2: a pair, wins; seat 3: the
dealer's ranks, a tie (Ante and Play push)."""

WORDS = {
    "en": {"next": ["Take seat 1's bets, then tick it", "Pay seat 2, then tick it paid",
                    "Return seat 3's wagers, then tick it"],
           "status": ["Take seat 1", "Pay seat 2", "Return seat 3"],
           "button": ["Take", "Pay", "Return"]},
    "fr": {"next": ["Prenez les mises de la place 1, puis cochez-la",
                    "Payez la place 2, puis cochez-la",
                    "Rendez les mises de la place 3, puis cochez-la"],
           "status": ["Prendre place 1", "Payer place 2", "Rendre place 3"],
           "button": ["Prendre", "Payer", "Rendre"]},
    "uk": {"next": ["Заберіть ставки місця 1 і позначте", "Виплатіть місцю 2 і позначте",
                    "Поверніть ставки місця 3 і позначте"],
           "status": ["Збір з місця 1", "Виплата місцю 2", "Повернення місцю 3"],
           "button": ["Забрати", "Виплатити", "Повернути"]},
}


def deal_order(hands: dict[int, str]) -> list[str]:
    split = {k: v.split() for k, v in hands.items()}
    return [split[s][i] for i in range(3) for s in (1, 2, 3, 0)]


def settled(shift) -> None:
    """Bets by touch, No more bets, the chosen cards, every seat plays, Reveal, Settle."""
    shift.chips_by_touch(BETS)
    shift.tap("primary")
    shift.shoe(*[CardRead(card=c, code=c) for c in deal_order(HANDS)])
    for seat in BETS:
        shift.tap(f"seat.{seat}.play")
    shift.tap("primary")                          # reveal
    shift.tap("primary")                          # settle
    assert shift.view.state == "settled"
    nets = {s.seat: s.net for s in shift.view.seats if s.results}
    assert nets[1] < 0 and nets[2] > 0 and nets[3] == 0  # the rules settled them so


def said(shift, role: str) -> str:
    return " ".join(shift.texts(role))


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_the_next_step_and_the_status_use_the_seats_own_verb(dealer_shift, lang):
    shift = dealer_shift(lang=lang)
    settled(shift)
    words = WORDS[lang]
    for i, seat in enumerate((1, 2, 3)):
        assert shift.frame.notes["selected_seat"] == seat
        assert said(shift, "next_action") == words["next"][i]
        assert said(shift, "primary.status") == words["status"][i]
        assert said(shift, f"seat.{seat}.paid.label") == words["button"][i]
        shift.tap(f"seat.{seat}.paid")
    assert shift.frame.notes["selected_seat"] is None


def test_enter_ticks_the_outlined_seat_paid_then_opens_the_next_round(dealer_shift):
    shift = dealer_shift()
    settled(shift)
    for seat in (1, 2, 3):
        assert shift.frame.notes["selected_seat"] == seat
        shift.key("return")                       # the seat outlined, next to pay
        assert seat in shift.app.dealer.ui.paid
    assert shift.view.state == "settled"          # the list stayed until the last tick
    assert shift.frame.notes["selected_seat"] is None
    shift.key("return")                           # now the large button: Next round
    assert shift.view.state == "betting" and shift.refused() == []


def test_a_seat_ticked_out_of_turn_moves_the_outline_right_never_back(dealer_shift):
    shift = dealer_shift()
    settled(shift)
    shift.tap("seat.2.paid")                      # seat 2 paid first
    assert shift.frame.notes["selected_seat"] == 3
    shift.key("return")                           # seat 3: the list wraps to seat 1
    assert shift.frame.notes["selected_seat"] == 1
    shift.key("return")
    assert shift.app.dealer.ui.paid == {1, 2, 3}
    assert shift.frame.notes["selected_seat"] is None


def test_the_next_round_after_a_void_starts_with_the_outline_where_a_round_starts(
        dealer_shift):
    shift = dealer_shift()
    fresh = shift.frame.notes["selected_seat"]       # where a new table starts
    shift.chips_by_key({3: {"ante": 500}})            # seat 3 outlined
    assert shift.frame.notes["selected_seat"] == 3
    shift.shoe(CardRead(card="7d", code="7d"))        # a card before No more bets: void
    assert shift.view.state == "void"
    shift.key("a")                                    # every wager returned
    shift.key("return")                               # Next round, with the PIN
    shift.type("2468")
    shift.key("return")
    assert shift.view.state == "betting" and shift.view.round_id == 2
    assert shift.frame.notes["selected_seat"] == fresh
    assert outline(shift, fresh) and not outline(shift, 3)


def outline(shift, seat: int) -> bool:
    """The seat's edge is drawn in gold (the outline of the seat the keys act on)."""
    rect = shift.frame.regions[f"seat.{seat}"]
    pixel = shift.app.surfaces["dealer"].get_at((rect.left + 1, rect.centery))
    return tuple(pixel)[:3] == theme.GOLD


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
def test_a_void_and_an_extra_card_each_say_what_to_do(dealer_shift, lang):
    shift = dealer_shift(lang=lang)
    shift.chips_by_touch({1: {"ante": 500}, 2: {"ante": 500}})
    strip = shift.frame.regions["alarms"]
    places = {b.id: tuple(b.rect) for b in shift.frame.buttons if b.id.startswith("chip.")}
    shift.shoe(CardRead(card="7d", code="7d"))   # before No more bets: the round is void
    shift.shoe(CardRead(card="8d", code="8d"))   # then an extra card, set aside
    assert [b.kind for b in shift.view.banners] == ["void", "extra_card"]
    assert shift.frame.regions["alarms"] == strip  # the reserved strip, no larger
    assert {b.id: tuple(b.rect) for b in shift.frame.buttons if b.id in places} == places
    said = alarm_lines(shift.frame, 2, lang)
    assert said[1] == EXTRA_CARD[lang]            # in the screen's language
    assert said[0][1] != said[1][1]               # each its own step


EXTRA_CARD = {
    "en": ("An extra card 8♦ was read and set aside.", "Set the card aside as a burn"),
    "fr": ("Carte en trop mise de côté", "Écartez-la comme une carte brûlée"),
    "uk": ("Зайву карту відкладено", "Відкладіть її як спалену"),
}
"""The extra card's alarm: in English the table's words (they name the card)."""
