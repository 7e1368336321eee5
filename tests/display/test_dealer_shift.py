"""A whole 5-seat shift on the real dealer screen, by touches and by keys.

The dealer places the first round's bets chip by chip; the next round the bets repeat
(Rebet all); the one after, three seats change (their new bets first, then Rebet all fills
the two others). Each round: No more bets, the shoe deals, the folding seats fold and the
rest play, Reveal, Settle, All paid, Next round. The touches each round takes are printed
(the targets: at most 12 when the bets repeat, at most 20 when three seats change).
"""

from controller.game.events import CardRead

ROUND1 = {1: {"ante": 1000, "pair_plus": 500}, 2: {"ante": 2500},
          3: {"ante": 1000, "pair_plus": 1000}, 4: {"ante": 500, "pair_plus": 500},
          5: {"ante": 10000}}
CHANGED = {1: {"ante": 2500, "pair_plus": 500}, 3: {"ante": 1000},
           5: {"ante": 5000, "six_card_bonus": 500}}
"""Three seats change: seat 1 raises its Ante, seat 3 drops its Pair Plus, seat 5 halves
its Ante and adds a 6 Card Bonus."""


def placed(shift) -> dict[int, dict[str, int]]:
    return {s.seat: {k: v for k, v in s.bets.items() if k != "play"}
            for s in shift.view.seats if s.bets}


def last_round(shift):
    """The last round finished, as game recall keeps it."""
    return next(r for r in shift.view.recall if r.status != "in_progress")


def finished(shift):
    return [r.status for r in shift.view.recall if r.status != "in_progress"]


def test_a_shift_by_touches(dealer_shift, capsys):
    shift = dealer_shift()
    first = shift.round_by_touch(bets=ROUND1)
    assert {s.seat: {k: v for k, v in s.bets.items() if k != "play"}
            for s in last_round(shift).seats} == ROUND1
    repeat = shift.round_by_touch(rebet=True)
    assert {s.seat: {k: v for k, v in s.bets.items() if k != "play"}
            for s in last_round(shift).seats} == ROUND1
    changed = shift.round_by_touch(bets=CHANGED, rebet=True)
    assert {s.seat: {k: v for k, v in s.bets.items() if k != "play"}
            for s in last_round(shift).seats} == {**ROUND1, **CHANGED}
    assert shift.refused() == []  # no touch was refused by the table
    with capsys.disabled():
        print(f"\ndealer screen 800x480, touches per 5-seat round: first round {first}, "
              f"bets repeat {repeat}, three seats change {changed} (seats folding: "
              f"{', '.join(map(str, shift.fold_counts))})")
    assert repeat <= 12
    assert changed <= 20
    # every round is in the journal as the screen showed it: settled, all five seats
    assert finished(shift)[:3] == ["settled"] * 3
    assert shift.view.round_id == 4 and shift.view.state == "betting"


def test_a_shift_by_keys(dealer_shift, capsys):
    shift = dealer_shift()
    first = shift.round_by_key(bets=ROUND1)
    repeat = shift.round_by_key(rebet=True)
    changed = shift.round_by_key(bets=CHANGED, rebet=True)
    assert {s.seat: {k: v for k, v in s.bets.items() if k != "play"}
            for s in last_round(shift).seats} == {**ROUND1, **CHANGED}
    assert shift.refused() == []
    with capsys.disabled():
        print(f"\ndealer screen by keys, keys per 5-seat round: first round {first}, "
              f"bets repeat {repeat}, three seats change {changed}")
    assert shift.touches == 0
    # the folds the keys recorded are the seats' own: F on a seat folds that seat
    for r, folds in zip([r for r in shift.view.recall if r.status == "settled"][:3],
                        reversed(shift.fold_sets), strict=True):
        assert {s.seat for s in r.seats if s.decision == "fold"} == folds


MARKS = {1: ("ante", "pair_plus"), 2: ("ante",), 3: ("ante", "six_card_bonus"), 4: ("ante",),
         5: ("ante", "pair_plus")}
"""Outcome mode: the bets each seat plays (the chips stay on the layout)."""


def test_an_outcome_shift_by_touches(dealer_shift, capsys):
    """Outcome mode at 800x480: the first round's bets marked one touch each, the next
    round's by Rebet all; each round is decided, settled, paid and closed by touches."""
    shift = dealer_shift(bet_entry="outcomes")
    start = shift.touches
    for seat, bets in MARKS.items():
        for bet in bets:
            shift.tap(f"seat.{seat}.bet.{bet}")
    shift.round_by_touch()
    first = shift.touches - start
    repeat = shift.round_by_touch(rebet=True)
    assert shift.refused() == []
    for r in [r for r in shift.view.recall if r.status == "settled"][:2]:
        assert r.bet_entry == "outcomes"
        assert {s.seat: tuple(k for k in ("ante", "pair_plus", "six_card_bonus")
                              if k in s.bets) for s in r.seats} == MARKS
        assert all(b.stake == 1 for s in r.seats for b in s.results)  # marks, no money
    folds = shift.fold_counts[-1]
    with capsys.disabled():
        print(f"\ndealer screen 800x480, outcome mode, touches per 5-seat round: every bet "
              f"marked {first}, bets repeat {repeat} (seats folding: "
              f"{', '.join(map(str, shift.fold_counts))})")
    # Rebet all, No more bets, a touch per fold, Play the rest and reveal, Settle, All paid
    # and next round: 5 and one a fold, at most 8 with three seats folding
    assert repeat - folds <= 5
    assert repeat <= 8


def test_a_shift_with_its_exceptions(dealer_shift):
    """A card before No more bets, a misread entered by hand, a lost shoe link, a void:
    every one is resolved from the screen, and the table never stops."""
    shift = dealer_shift()
    shift.round_by_touch(bets=ROUND1)
    # a card read during betting: the round is void, a supervisor opens the next one
    shift.tap("rebet_all")
    shift.shoe(CardRead(card="7d", code="7d"))
    assert shift.view.state == "void"
    shift.tap("all_paid")  # every wager returned
    shift.tap("primary")   # next round: it asks for the supervisor's PIN
    assert shift.frame.notes["pad"] == "pin"
    shift.pin_by_touch(shift_pin := "2468")
    assert shift.view.state == "betting", shift.refused()
    assert shift_pin  # the demo supervisor's
    # a misread mid-deal: the large button offers the card by hand
    shift.tap("rebet_all")
    shift.tap("primary")
    shift.table.process([CardRead(card="2c", code="2c")])
    from controller.game.events import Misread
    shift.shoe(Misread())
    assert shift.view.pause_reason == "misread"
    shift.tap("primary")
    assert shift.frame.notes["pad"] == "card"
    shift.tap("pad.rank.K")
    shift.tap("pad.suit.h")
    shift.tap("pad.ok")
    shift.pin_by_touch("2468")
    assert shift.view.state == "dealing", shift.refused()
    shift.deck = [c for c in shift.deck if c not in ("2c", "Kh")]
    shift.deal()
    shift.decide_by_touch()
    shift.settle_by_touch()
    # a void by the supervisor with a reason
    shift.tap("rebet_all")
    shift.tap("primary")
    shift.tap("tool.void")
    shift.tap("pad.reason.shoe_fault")
    shift.pin_by_touch("2468")
    assert shift.view.state == "void" and shift.view.void_reason == "Shoe fault"
    shift.tap("all_paid")
    shift.tap("primary")  # after every void, the supervisor's PIN opens the next round
    shift.pin_by_touch("2468")
    assert shift.view.state == "betting"
    assert finished(shift)[:4] == ["void", "settled", "void", "settled"]
