"""``threecard simulate``: the real engine against the event shoe, compared with the par sheet."""

import json

import pytest

from controller.cli import main
from simulators.event_shoe import EventShoe, parse_faults


def run_json(capsys, *args: str) -> dict:
    assert main(["simulate", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_returns_are_within_three_standard_errors_of_the_par_sheet(capsys):
    out = run_json(capsys, "--rules", "live", "--seats", "7", "--rounds", "1200",
                   "--seed", "11", "--journal", ":memory:")
    assert out["rounds_settled"] == 1200 and out["rounds_voided"] == 0
    for bet in ("ante_play", "pair_plus", "six_card_bonus"):
        assert abs(out["return"][bet] - out["expected"][bet]) < 3 * out["standard_error"][bet]
    assert out["par"]["ante_play"] == out["expected"]["ante_play"] == pytest.approx(0.966270)
    assert out["par"]["pair_plus"] == out["expected"]["pair_plus"]
    # live: a fold loses the 6 Card Bonus, so a Q-6-4 player gets less than the paytable's
    # return; both figures are the par sheet's (docs/rules.md)
    assert out["par"]["six_card_bonus"] == pytest.approx(0.914386, abs=1e-6)
    assert out["expected"]["six_card_bonus"] == round(18253979 / 25448150, 6) == 0.717301
    w = out["wagered"]
    assert w["ante"] == w["pair_plus"] == w["six_card_bonus"] == 1200 * 7 * 100


def test_faults_void_or_resolve_and_every_round_still_ends(capsys, tmp_path):
    journal = str(tmp_path / "j.sqlite")
    out = run_json(capsys, "--seats", "4", "--rounds", "60", "--faults", "all=0.1",
                   "--seed", "3", "--journal", journal)
    assert out["rounds_settled"] == 60 and out["rounds_voided"] > 0
    assert sum(out["faults_injected"].values()) > 10
    assert out["counters"]["misreads"] == out["faults_injected"].get("misread", 0)
    assert main(["verify-journal", "--journal", journal]) == 0
    assert main(["meters", "--journal", journal]) == 0


def test_burns_flagged_by_the_shoe_never_pause_or_void(capsys, tmp_path):
    journal = str(tmp_path / "j.sqlite")
    out = run_json(capsys, "--seats", "3", "--rounds", "40", "--faults",
                   "burn=1,unreadable_burn=1", "--seed", "5", "--journal", journal)
    assert out["faults_injected"] == {"burn": 40, "unreadable_burn": 40}
    assert out["rounds_settled"] == 40 and out["rounds_voided"] == 0
    assert out["invariant_violations"] == 0                  # three cards a hand, none twice
    assert out["counters"]["unreadable_burns"] == 40
    assert "misreads" not in out["counters"] and "rejected" not in out["counters"]
    assert main(["recall", "--journal", journal, "--last", "40", "--json"]) == 0
    for r in json.loads(capsys.readouterr().out):
        burns = [c for c, pos, _ in r["deal"] if pos == "burn"]
        assert len(burns) == 2 and burns.count(None) == 1, r["deal"]
        assert len(r["deal"]) == 2 + 3 * 4
    assert main(["verify-journal", "--journal", journal]) == 0


def test_deck_file_gives_the_cards_in_delivery_order(capsys, tmp_path):
    deck = tmp_path / "decks.txt"
    deck.write_text("# seat 1, dealer; three passes\nAs Kd Ks Qd Qs 2c\n")
    journal = str(tmp_path / "j.sqlite")
    run_json(capsys, "--seats", "1", "--rounds", "2", "--deck-file", str(deck),
             "--bets", '{"ante": 100}', "--journal", journal)
    assert main(["recall", "--journal", journal, "--json"]) == 0
    rounds = json.loads(capsys.readouterr().out)
    assert [r["dealer_cards"] for r in rounds] == [["Kd", "Qd", "2c"]] * 2
    assert rounds[0]["seats"][0]["cards"] == ["As", "Ks", "Qs"]


def test_bad_options_are_usage_errors(capsys):
    assert main(["simulate", "--bets", '{"ante": 5}', "--rounds", "1"]) == 2
    assert "limits" in capsys.readouterr().err
    assert main(["simulate", "--faults", "gremlins=0.1", "--rounds", "1"]) == 2


def test_fault_spec_and_event_shoe_are_reproducible():
    assert parse_faults("misread=0.5, all=0.1")["misread"] == 0.1
    with pytest.raises(ValueError):
        parse_faults("misread=2")
    a, b = EventShoe(7, {"misread": 1.0}), EventShoe(7, {"misread": 1.0})
    a.new_round()
    b.new_round()
    assert a.deal(24) == b.deal(24)


def test_a_restart_paused_on_a_misread_is_resolved_and_the_run_finishes(capsys, tmp_path):
    """A run killed while the table waits for a misread card: the next run (a new shoe,
    which never made that misread) resolves the pause and finishes, with no duplicate."""
    from controller.autoplay import AutoPlayer
    from controller.game.auth import DEMO_PINS, demo_pin_hashes
    from controller.game.config import TableConfig
    from controller.game.events import LinkState, LinkStatus
    from controller.game.table import Table

    journal = tmp_path / "j.sqlite"
    table = Table(journal, TableConfig(seats=2, pin_hashes=demo_pin_hashes()))
    player = AutoPlayer(bets={"ante": 100}, pin=DEMO_PINS["supervisor"])
    shoe = EventShoe(9, {"misread": 1.0})
    shoe.new_round()
    table.process([LinkStatus(state=LinkState.ONLINE)])
    table.process(player.next_commands(table.views()[0]))
    for _ in range(20):
        dealer = table.views()[0]
        if dealer.pause_reason == "misread":
            break
        table.process(shoe.deal(dealer.cards_due))
    assert table.views()[0].pause_reason == "misread" and 0 < len(table.game.deal.seen) < 9
    table.close()                                    # the run ends here, paused
    out = run_json(capsys, "--seats", "2", "--rounds", "2", "--seed", "4",
                   "--journal", str(journal))
    assert out["rounds_settled"] == 2 and out["invariant_violations"] == 0
    assert main(["verify-journal", "--journal", str(journal)]) == 0


def test_an_old_event_edited_past_reading_stops_simulate_with_a_message(capsys, tmp_path):
    """An event of an old round (before the snapshot start-up verifies from: 200 rounds)
    edited past reading: start-up does not reach it, the resumed run's audit (which replays
    the rounds before it) does, and says so."""
    import sqlite3

    from journal_edit import first_of

    journal = str(tmp_path / "j.sqlite")
    run_json(capsys, "--seats", "1", "--rounds", "205", "--seed", "2", "--journal", journal)
    card = first_of(journal, "card")
    db = sqlite3.connect(journal)
    db.execute("UPDATE events SET b = x'c1' WHERE seq = ?", (card,))  # not MessagePack
    db.commit()
    db.close()
    assert main(["simulate", "--seats", "1", "--rounds", "210", "--journal", journal]) == 1
    err = capsys.readouterr().err
    assert "threecard simulate:" in err and f"event {card}" in err and "Traceback" not in err
