"""Keys on the real dealer screen: printed on their buttons, and working where they say.

Real table, real dealer screen, real KEYDOWN and FINGERDOWN events. Every action's key is
printed on its button, in every language, without shrinking its label below what the
same button shows elsewhere; the keys the README and the buttons give for the records
(``F7`` recall, ``F8`` meters, ``O`` the outcome meters) work from the main screen, and
where the tools' row has room the meters have a touch target.
"""

import pytest


def outcome_round(shift) -> None:
    """One round dealt as outcomes, played out by touches: the outcome meters count it."""
    shift.tap("seat.1.bet.ante")
    shift.tap("primary")                          # no more bets
    shift.deal()
    shift.tap("primary")                          # play the rest and reveal
    shift.tap("primary")                          # settle
    shift.tap("all_paid")                         # all paid and next round
    assert shift.view.state == "betting" and shift.view.outcome_meters


@pytest.mark.parametrize("key, mode", [("o", "outcomes"), ("f8", "meters"), ("f7", "recall")])
def test_the_records_keys_work_from_the_main_screen(dealer_shift, key, mode):
    shift = dealer_shift(bet_entry="outcomes")
    outcome_round(shift)
    assert shift.frame.notes["mode"] == "main"
    shift.key(key)
    assert shift.frame.notes["mode"] == mode
    shift.key("escape")
    assert shift.frame.notes["mode"] == "main"


def test_o_does_nothing_while_no_round_was_dealt_as_outcomes(dealer_shift):
    shift = dealer_shift()
    shift.key("o")
    assert shift.frame.notes["mode"] == "main"


def test_the_meters_have_a_touch_target_where_the_tools_row_has_room(dealer_shift):
    shift = dealer_shift(size=(1080, 1920))
    meters = shift.button("meters")
    assert meters.rect.width >= 47 and meters.rect.height >= 47
    assert [t.text for t in shift.frame.texts if t.role == "meters.hint"] == ["F8"]
    shift.tap("meters")
    assert shift.frame.notes["mode"] == "meters"
    shift.tap("back")
    assert shift.frame.notes["mode"] == "main"


@pytest.mark.parametrize("seats", [5, 7])
def test_french_prints_every_key_and_fold_keeps_its_size_on_the_outlined_seat(
        dealer_shift, seats):
    shift = dealer_shift(lang="fr", seats=seats)
    shift.chips_by_touch({n: {"ante": 500} for n in range(1, seats + 1)})
    shift.tap("primary")
    shift.deal()
    shift.key("2")                                # seat 2 outlined, its keys Y and F
    assert shift.frame.notes["selected_seat"] == 2
    assert printed(shift, "recall") == "F7"       # "Historique" with its key
    assert printed(shift, "seat.2.fold") == "F" and printed(shift, "seat.2.play") == "Y"
    sizes = {n: size(shift, f"seat.{n}.fold.label") for n in range(1, seats + 1)}
    assert min(sizes.values()) >= 14
    assert len(set(sizes.values())) == 1, sizes   # "Passer" as large on every seat


def printed(shift, button_id: str) -> str:
    """The key printed on a button (its hint), or ''."""
    texts = [t.text for t in shift.frame.texts if t.role == f"{button_id}.hint"]
    return texts[0] if texts else ""


def size(shift, role: str) -> int:
    (found,) = [t for t in shift.frame.texts if t.role == role]
    return found.size
