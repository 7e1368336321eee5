"""The records (recall, meters, outcome meters) open from the main dealer screen.

Real table, real dealer screen, real KEYDOWN and FINGERDOWN events: the keys the README
and the buttons give (``F7`` recall, ``F8`` meters, ``O`` the outcome meters) work from
the main screen, and where the tools' row has room the meters have a touch target.
"""

import pytest


def outcome_round(shift) -> None:
    """One round dealt as outcomes, played out by touches: the outcome meters count it."""
    shift.tap("seat.1.bet.ante")
    shift.tap("primary")                          # no more bets
    shift.deal()
    shift.tap("primary")                          # play the rest
    shift.tap("primary")                          # reveal
    shift.tap("primary")                          # settle
    shift.tap("all_paid")
    shift.tap("primary")                          # next round
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
