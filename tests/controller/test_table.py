"""The Table's contract: journal integrity, roles and PINs, the thread, views, transitions."""

import json
import re
import sqlite3
import threading

import pytest
from journal_edit import edit_body, events, first_of

from controller.autoplay import AutoPlayer, should_play
from controller.cli import main
from controller.game import recall as rc
from controller.game.auth import hash_pin, verify_pin
from controller.game.inputs import (
    ChangePin,
    ConfigChange,
    Decide,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Rebet,
    Reveal,
    Settle,
    UnblockDeck,
    VoidRound,
)
from controller.game.round import (
    ALLOWED_COMMANDS,
    TRANSITIONS,
    RoundState,
    TransitionError,
    check_transition,
    deal_positions,
)
from controller.game.table import Table

DECK = "Ah Kh 2c | Qd Qs 5d | 9c 3s 8h"


def test_the_transition_table_is_the_only_way_to_change_state():
    assert check_transition(RoundState.BETTING, "no_more_bets", RoundState.NO_MORE_BETS)
    with pytest.raises(TransitionError):
        check_transition(RoundState.SETTLED, "void", RoundState.VOID)
    assert (RoundState.REVEAL, "void") not in TRANSITIONS  # the outcome is fixed
    assert ALLOWED_COMMANDS[RoundState.LOCKED] == frozenset()


def test_deal_patterns():
    assert deal_positions([1, 3], "round_robin")[:4] == [(1, 1), (3, 1), (0, 1), (1, 2)]
    assert deal_positions([1, 3], "by_hand", burns=1)[:5] == [(-1, 1), (1, 1), (1, 2), (1, 3),
                                                              (3, 1)]


def test_by_hand_pattern_with_a_burn(make_shift):
    s = make_shift(deal_pattern="by_hand", burn_cards=1)
    s.bets(seats=(1,))
    s.ok(s.cards("Td | Ah Qd 9c | 2c 5d 8h"))
    s.play_out("play")
    (r,) = s.recall()
    assert s.deal_of(r)[:2] == [("Td", "burn", False), ("Ah", "seat 1", False)]
    assert r["dealer_cards"] == ["2c", "5d", "8h"] and s.nets(r) == {1: 100}


def test_every_command_not_allowed_in_a_state_is_rejected_and_changes_nothing(shift):
    assert "not allowed while betting" in shift.rejected(Reveal())
    shift.bets()
    for cmd in (PlaceBet(seat=1, bet="ante", amount=100), Rebet(seat=0), Settle(),
                NextRound(), Decide(seat=1, decision="play")):
        assert "not allowed" in shift.rejected(cmd)
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="play"))
    assert "already decided" in shift.rejected(Decide(seat=1, decision="fold"))
    assert "still to decide: 2" in shift.rejected(Reveal())
    rej = shift.table.journal.rejections()
    assert len(rej) >= 8 and any("not allowed" in r for r in rej.values())  # recorded


def test_bets_are_checked_against_the_limits_and_the_rules(shift):
    assert "above the table maximum" in shift.rejected(
        PlaceBet(seat=1, bet="ante", amount=50001))
    assert "no seat 4 at this table (1-3)" in shift.rejected(
        PlaceBet(seat=4, bet="ante", amount=100))
    # past the most seats any table has: refused by the declaration, never journaled
    seq = shift.table.journal.last_seq
    (v,) = shift.table.process([PlaceBet(seat=9, bet="ante", amount=100)])
    assert (v.seq, v.accepted) == (None, False) and "at `$.seat`" in v.reason
    assert shift.table.journal.last_seq == seq
    shift.ok(PlaceBet(seat=1, bet="pair_plus", amount=100))
    assert "Ante" in shift.rejected(NoMoreBets())       # live: Pair Plus needs an Ante
    shift.ok(PlaceBet(seat=1, bet="ante", amount=50))
    assert "outside the table limits" in shift.rejected(NoMoreBets())


def test_pins_are_hashed_and_never_journaled(shift):
    h = hash_pin("2468")
    assert h.startswith("scrypt$") and "2468" not in h and verify_pin("2468", h)
    assert not verify_pin("2469", h)
    shift.ok(ChangePin(role="supervisor", new_pin="80808080", pin=shift.TECH))
    assert "technician" in shift.rejected(ChangePin(role="supervisor", new_pin="1111",
                                                   pin="80808080"))
    shift.ok(ConfigChange(key="burn_cards", value=0, pin="80808080"))
    rows = events(shift.path)
    bodies = " ".join(r[5] for r in rows)
    actors = {r[4] for r in rows}
    # outside the hashes (whose random hex digits may spell anything)
    bodies = re.sub(r"scrypt\$[0-9a-f$]+", "scrypt$...", bodies)
    assert bodies.count("scrypt$...") == 4                  # two demo PINs, two changes
    for pin in ("2468", "1357", "80808080"):
        assert pin not in bodies
    assert {"technician", "supervisor", "shoe", "system"} <= actors


def test_repeated_wrong_pins_lock_pin_entry(make_shift):
    s = make_shift(lockout_after=3, lockout_seconds=3600)
    for _ in range(3):
        assert s.rejected(UnblockDeck(pin="0000")) == "wrong PIN"
    # even the right PIN is refused while locked out, and the lockout survives a restart
    assert "locked" in s.rejected(ConfigChange(key="burn_cards", value=1, pin=s.SUP))
    s.restart()
    assert "locked" in s.rejected(ConfigChange(key="burn_cards", value=1, pin=s.SUP))
    assert s.game.counters["pin_lockouts"] == 1


def test_config_changes_record_old_and_new_values(shift):
    assert "PIN" in shift.rejected(ConfigChange(key="deal_pattern", value="by_hand"))
    assert "bad value for deal_pattern: must be one of round_robin, by_hand" in shift.rejected(
        ConfigChange(key="deal_pattern", value="x", pin=shift.SUP))   # its declaration
    assert "bad value for rules" in shift.rejected(
        ConfigChange(key="rules", value="no-such-profile", pin=shift.SUP))  # the table's
    shift.ok(ConfigChange(key="deal_pattern", value="by_hand", pin=shift.SUP))
    (last,) = [json.loads(r.body) for r in shift.table.journal.records(shift.game.last_seq - 1)]
    assert last == {"key": "deal_pattern", "value": "by_hand", "old": "round_robin"}
    banner = [b for b in shift.view.banners if b.kind == "config"][0]
    assert "'round_robin' to 'by_hand' by supervisor" in banner.message
    assert shift.game.config.deal_pattern == "by_hand"


def test_an_edited_journal_locks_the_table_for_good(shift):
    shift.bets()
    shift.ok(shift.cards(DECK))
    shift.table.journal.close()
    edit_body(shift.path, first_of(shift.path, "place_bet"),
              lambda body: body.replace('"amount":100', '"amount":900'))
    for _ in range(2):                                   # never clears itself (R4)
        t = Table(shift.path, shift.config)
        d, p = t.views()
        assert t.locked and d.state == p.state == "locked" and not d.allowed
        assert d.banners[0].kind == "journal_broken"                     # not a write failure
        assert d.banners[0].message.startswith("Journal integrity check failed: ")
        assert not t.process([NoMoreBets()])[0].accepted
        t.journal.close()
    assert main(["verify-journal", "--journal", str(shift.path)]) == 1
    shift.table = Table(":memory:", shift.config)        # for the fixture's close()


def test_a_deleted_event_is_detected(shift):
    shift.bets()
    shift.table.journal.close()
    db = sqlite3.connect(shift.path)
    db.execute("DELETE FROM events WHERE seq = 3")
    db.commit()
    db.close()
    rep = rc.verify(shift.path)
    assert not rep.ok and rep.problem.seq == 3 and rep.problem.kind.value == "event_missing"
    shift.table = Table(":memory:", shift.config)


def test_the_table_thread_publishes_views_to_subscribers(tmp_path):
    from controller.game.auth import demo_pin_hashes
    from controller.game.engine import TableConfig
    seen = []
    got = threading.Event()

    def on_views(dealer, player):
        seen.append((dealer.version, dealer.state))
        if dealer.state == "no_more_bets":
            got.set()

    t = Table(tmp_path / "j.sqlite", TableConfig(seats=2, pin_hashes=demo_pin_hashes()),
              on_publish=on_views).start()
    v0 = t.version
    t.submit(PlaceBet(seat=1, bet="ante", amount=100))
    t.submit(NoMoreBets())
    assert got.wait(10)
    assert t.wait_for_version(v0, 10)
    d, p = t.views()
    assert d.state == p.state == "no_more_bets" and d.version == p.version == t.version
    assert [v for v, _ in seen] == sorted(v for v, _ in seen)
    t.stop()
    assert rc.recall(tmp_path / "j.sqlite")[0]["status"] == "in_progress"


def test_views_show_paytables_with_the_par_sheet_return(shift):
    d, p = shift.table.views()
    assert dict(p.paytables.rtp) == {"ante_play": 966270, "pair_plus": 955113,
                                     "six_card_bonus": 914386}
    # a fold loses the 6 Card Bonus: what a player folding below Q-6-4 gets, beside it
    assert p.paytables.rtp_strategy == (("six_card_bonus", 717301),)
    assert p.paytables.strategy == "Q-6-4"
    assert ("mini_royal", 100) in p.paytables.pair_plus  # a key: the display translates
    assert ("ante", 100, 50000) in p.paytables.limits
    assert d.next_action_key == "place_bets" and "place_bet" in d.allowed


def test_void_tells_every_seat_what_was_refunded(shift):
    shift.bets(pair_plus=100)
    shift.ok(shift.cards("Ah"), VoidRound(reason="dispute", pin=shift.SUP))
    d, p = shift.table.views()
    (b,) = [b for b in p.banners if b.kind == "void"]
    assert b.params["refunds"] == "seat 1: 200, seat 2: 200"
    assert {(x.seat, x.bet, x.outcome, x.amount) for x in d.payouts} >= {
        (1, "ante", "refund", 100), (2, "pair_plus", "refund", 100)}
    assert [m for m in d.meters if m.name == "total"][0].refunded == 400


def test_classic_players_cards_face_down_on_the_player_screen(make_shift):
    s = make_shift(rules="classic")
    s.ok(PlaceBet(seat=1, bet="pair_plus", amount=100), NoMoreBets())  # Pair Plus alone
    s.ok(s.cards("Ah 2c Qd 5d 9c 8h"))
    d, p = s.table.views()
    assert d.seats[0].cards == ("Ah", "Qd", "9c") and p.seats[0].cards == (None, None, None)
    s.ok(Reveal(), Settle())
    assert s.table.views()[1].seats[0].cards == ("Ah", "Qd", "9c")


def test_q64_rule():
    assert should_play(("Qc", "6d", "4h")) and not should_play(("Qc", "6d", "3h"))
    assert should_play(("2c", "2d", "3h")) and not should_play(("Jc", "9d", "8h"))


def test_autoplay_runs_rounds(shift):
    ap = AutoPlayer(bets={"ante": 100, "pair_plus": 100}, seats=(1, 2), pin=shift.SUP)
    for deck in (DECK, "As Ks Qs | Ad Kd Qd | Ac Kc Qc"):
        shift.ok(ap.next_commands(shift.view))
        shift.ok(shift.cards(deck))
        shift.ok(ap.next_commands(shift.view))
    r2, r1 = shift.recall()
    assert r1["status"] == r2["status"] == "settled"
    assert r2["seats"][0]["bets"] == {"ante": 100, "pair_plus": 100, "play": 100}


def test_recall_and_meters_commands(shift, capsys):
    shift.bets(pair_plus=100)
    shift.ok(shift.cards(DECK))
    shift.play_out("play", "fold")
    shift.ok(NextRound(), Rebet(seat=0), NoMoreBets(), shift.cards("As Ks Qs"))
    assert main(["recall", "--journal", str(shift.path), "--json"]) == 0
    rounds = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in rounds] == ["in_progress", "settled"]
    assert rounds[0]["dealer_cards"] == ["??"]          # not revealed yet
    assert rounds[1]["seats"][1]["results"]["ante"] == {"outcome": "lose", "net": -100,
                                                        "stake": 100, "multiple": 0}
    assert main(["recall", "--journal", str(shift.path)]) == 0
    assert "GAME RECALL  round 1  SETTLED" in capsys.readouterr().out
    assert main(["meters", "--journal", str(shift.path), "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["reconciled"] and m["rows"]["seat 2"]["won"] == 200
    assert main(["verify-journal", "--journal", str(shift.path)]) == 0


def test_autoplay_loop_drives_a_running_table_fed_by_a_shoe_thread(tmp_path):
    from controller.autoplay import autoplay_loop
    from controller.game.auth import demo_pin_hashes
    from controller.game.engine import TableConfig
    from controller.game.events import LinkState, LinkStatus
    from simulators.event_shoe import EventShoe

    t = Table(tmp_path / "j.sqlite", TableConfig(seats=2, pin_hashes=demo_pin_hashes()))
    t.start()
    t.submit(LinkStatus(state=LinkState.ONLINE))
    stop = threading.Event()
    player = threading.Thread(target=autoplay_loop, args=(t, AutoPlayer(bets={"ante": 100}),
                                                          stop))
    player.start()
    shoe = EventShoe(seed=4)
    dealt_round = None
    try:
        while True:                                      # the "shoe" side: deal when due
            d = t.views()[0]
            if len(d.recall) > 1 and d.recall[1].round_id >= 3:
                break
            if d.cards_due and d.round_id != dealt_round:
                dealt_round = d.round_id
                shoe.new_round()
                for ev in shoe.deal(d.cards_due):
                    t.submit(ev)
            assert t.wait_for_version(d.version, 10), d
    finally:
        stop.set()
        player.join(10)
        t.stop()
    rounds = rc.recall(tmp_path / "j.sqlite")
    assert [r["status"] for r in rounds if r["round_id"] <= 3] == ["settled"] * 3


def test_snapshots_shorten_replay_and_match_a_full_replay(make_shift):
    s = make_shift(snapshot_every=2)
    ap = AutoPlayer(bets={"ante": 100}, seats=(1, 2), pin=s.SUP)
    for _ in range(5):
        s.ok(ap.next_commands(s.view))
        s.ok(s.cards(DECK))
        s.ok(ap.next_commands(s.view))
    assert len(s.table.journal.snapshots()) >= 2
    before = s.game.to_dict()
    s.restart()
    assert s.table.recovered == before
    full = rc.replay(s.table.journal, full=True)
    assert json.loads(full.dumps()) == json.loads(s.game.dumps())
    rep = rc.verify(s.path)
    assert rep.ok and rep.snapshots_checked >= 2
