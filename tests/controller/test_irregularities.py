"""One scenario per row of the irregularity table of docs/rules.md, read like a dealer's shift.

Seats 1 and 2 bet; the deal is round robin: seat 1, seat 2, dealer, three passes.
Each scenario ends with the game recall the journal gives (``threecard recall --json``).
"""

from controller.game.events import Alarm, CardRead, LinkState, LinkStatus, Misread, Retract, SeqGap
from controller.game.inputs import (
    ConfigChange,
    Decide,
    ExposedCard,
    ManualCard,
    NextRound,
    NoMoreBets,
    PlaceBet,
    Resume,
    Reveal,
    Settle,
    UnblockDeck,
    VoidRound,
)

# seat 1: Ah Qd 9c (ace high) | seat 2: Kh Qs 3s (king high) | dealer: 2c 5d 8h (no qualify)
DECK = "Ah Kh 2c | Qd Qs 5d | 9c 3s 8h"
DEAL = [("Ah", "seat 1", False), ("Kh", "seat 2", False), ("2c", "dealer", False),
        ("Qd", "seat 1", False), ("Qs", "seat 2", False), ("5d", "dealer", False),
        ("9c", "seat 1", False), ("3s", "seat 2", False), ("8h", "dealer", False)]
REFUND = {"ante": ("refund", 0)}


def test_card_read_before_no_more_bets_voids_the_round(shift):
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100))
    shift.ok(shift.cards("As"))                            # the shoe reads a card: too early
    assert shift.view.state == "void"
    assert shift.view.awaiting_supervisor == "void"        # a supervisor acknowledges it
    assert "PIN" in shift.rejected(NextRound())
    shift.ok(NextRound(pin=shift.SUP))
    (r1,) = shift.recall()
    assert r1["status"] == "void" and r1["void_reason"] == "card_before_no_more_bets"
    assert shift.deal_of(r1) == [("As", "exposed", False)]
    assert shift.outcomes(r1, 1) == REFUND and shift.nets(r1) == {1: 0}


def test_a_hand_with_other_than_three_cards_voids_the_round(shift):
    shift.bets()
    shift.ok(shift.cards(DECK))
    shift.ok(shift.cards("7d"))                            # a fourth card: wrong count
    assert shift.view.state == "void"
    (r1,) = shift.recall()
    assert r1["void_reason"] == "wrong_count"
    assert shift.deal_of(r1) == [*DEAL, ("7d", "extra", False)]
    assert shift.outcomes(r1, 2) == REFUND


def test_duplicate_card_voids_and_blocks_the_deck_until_a_supervisor_clears_it(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh 2c Ah"))                   # Ah read twice in one deck
    v = shift.view
    assert v.state == "void" and v.deck_blocked
    shift.ok(NextRound(pin=shift.SUP))
    shift.ok(PlaceBet(seat=1, bet="ante", amount=100))
    assert "blocked" in shift.rejected(NoMoreBets())       # no new deal on a blocked deck
    shift.restart()                                        # the fault survives a restart
    assert shift.view.deck_blocked and shift.view.awaiting_supervisor == "unblock_deck"
    assert "PIN" in shift.rejected(UnblockDeck(reason="deck checked"))
    shift.ok(UnblockDeck(reason="deck checked", pin=shift.SUP), NoMoreBets())
    (r2, r1) = shift.recall()
    assert r2["status"] == "in_progress" and r2["round_id"] == 2
    assert r1["void_reason"] == "duplicate_card"
    assert shift.deal_of(r1) == [*DEAL[:3], ("Ah", "rejected", False)]


def test_unknown_card_code_voids_and_blocks_the_deck(shift):
    shift.bets()
    shift.ok(shift.cards("Ah"), CardRead(card=None, code="X9"))
    assert shift.view.deck_blocked and shift.view.state == "void"
    assert "X9" in shift.view.banners[0].message or any(
        "X9" in b.message for b in shift.view.banners)
    (r1,) = shift.recall()
    assert r1["void_reason"] == "unknown_card"
    assert shift.deal_of(r1) == [DEAL[0], (None, "rejected", False)]


def test_misread_pauses_and_the_card_presented_again_continues(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh"), Misread())
    assert shift.view.state == "paused" and shift.view.pause_reason == "misread"
    assert shift.player_view.state == "paused"
    shift.ok(shift.cards("2c Qd Qs 5d 9c 3s 8h"))          # 2c re-presented, read this time
    shift.play_out("play", "play")
    (r1,) = shift.recall()
    assert r1["status"] == "settled" and shift.deal_of(r1) == DEAL
    assert shift.nets(r1) == {1: 100, 2: 100}


def test_misread_card_entered_by_hand_needs_a_supervisor_and_is_marked_manual(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh"), Misread())
    assert "PIN" in shift.rejected(ManualCard(card="2c"))
    assert "wrong PIN" in shift.rejected(ManualCard(card="2c", pin="0000"))
    shift.ok(ManualCard(card="2c", pin=shift.SUP))
    shift.ok(shift.cards("Qd Qs 5d 9c 3s 8h"))
    shift.play_out("play", "fold")
    (r1,) = shift.recall()
    assert shift.deal_of(r1)[2] == ("2c", "dealer", True)
    assert shift.nets(r1) == {1: 100, 2: -100}


def test_unresolved_misread_is_voided_by_a_supervisor(shift):
    shift.bets()
    shift.ok(shift.cards("Ah"), Misread())
    assert "PIN" in shift.rejected(VoidRound(reason="card lost"))
    shift.ok(VoidRound(reason="misread not resolved", pin=shift.SUP))
    shift.ok(NextRound())                                  # acknowledged by the voiding PIN
    (r1,) = shift.recall()
    assert r1["void_reason"] == "misread not resolved"
    assert shift.outcomes(r1, 1) == REFUND


def test_exposed_card_is_burned_and_the_deal_continues_under_the_burn_policy(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Td"), ExposedCard())          # Td flashed face up: burn it
    assert shift.view.next_card == (2, 1)                  # seat 2 still needs its first card
    shift.ok(shift.cards("Kh 2c Qd Qs 5d 9c 3s 8h"))
    shift.play_out("play", "play")
    (r1,) = shift.recall()
    assert r1["status"] == "settled"
    assert shift.deal_of(r1) == [DEAL[0], ("Td", "burn", False), *DEAL[1:]]


def test_exposed_card_voids_the_round_under_the_void_policy(shift):
    shift.ok(ConfigChange(key="exposed_card", value="void", pin=shift.SUP))
    shift.bets()
    shift.ok(shift.cards("Ah Td"), ExposedCard())
    (r1,) = shift.recall()
    assert r1["void_reason"] == "exposed_card"


def test_link_lost_mid_deal_pauses_and_an_intact_reconnect_continues(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh 2c"), LinkStatus(state=LinkState.DISCONNECTED, detail="unplugged"))
    d, p = shift.table.views()
    assert d.state == p.state == "paused" and d.link_state == p.link_state == "disconnected"
    assert any(b.kind == "link_lost" for b in p.banners)   # both screens show it (R15)
    assert "paused" in shift.rejected(shift.cards("Qd")[0])
    shift.ok(LinkStatus(state=LinkState.ONLINE))
    assert shift.view.state == "dealing"
    shift.ok(shift.cards("Qd Qs 5d 9c 3s 8h"))
    shift.play_out("play", "play")
    (r1,) = shift.recall()
    assert r1["status"] == "settled" and shift.deal_of(r1) == DEAL


def test_link_lost_with_lines_missing_waits_for_a_supervisor_void(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh"), LinkStatus(state=LinkState.SILENT),
             SeqGap(expected=3, got=5), LinkStatus(state=LinkState.ONLINE))
    assert shift.view.state == "paused" and shift.view.awaiting_supervisor == "resume"
    shift.ok(VoidRound(reason="shoe lines lost", pin=shift.SUP))
    (r1,) = shift.recall()
    assert r1["void_reason"] == "shoe lines lost" and shift.deal_of(r1) == DEAL[:2]


def test_a_shoe_restart_mid_deal_whose_hello_is_corrupt_pauses_and_loses_no_line(shift):
    """The native shoe restarts after two cards; its HELLO arrives with a bad CRC. Its
    next lines are taken as the restart (rule 8 of the native dialect): the round waits
    for a supervisor, and the card read after the restart is in the journal, rejected
    while paused, never lost."""
    from drivers.dialects.native import NativeDecoder, encode_line

    shoe = NativeDecoder()
    shift.bets()
    lines = [encode_line(0, "HELLO", "M", "1", "1.0"), encode_line(1, "CARD", "Ah"),
             encode_line(2, "CARD", "Kh"), encode_line(3, "HB", "900")]
    shift.ok(shoe.feed(b"".join(lines)))
    restart = [encode_line(0, "HELLO", "M", "1", "1.0", crc=0),   # corrupt
               encode_line(1, "HB", "20"), encode_line(2, "CARD", "2c")]
    events = shoe.feed(b"".join(restart))
    assert [e.type for e in events] == ["frame_error", "frame_error", "frame_error",
                                        "seq_gap", "heartbeat", "card"]
    verdicts = shift.do(events)
    assert shift.view.state == "paused" and shift.view.awaiting_supervisor == "resume"
    assert verdicts[-1].kind == "card" and "paused" in verdicts[-1].reason
    assert shift.game.counters["frame_errors"] == 3 and shift.game.counters["seq_gaps"] == 1
    shift.ok(VoidRound(reason="shoe restarted", pin=shift.SUP))
    (r1,) = shift.recall()
    assert r1["void_reason"] == "shoe restarted" and shift.deal_of(r1) == DEAL[:2]


def test_retracted_card_is_undone(shift):
    shift.bets()
    shift.ok(CardRead(card="Ah", code="Ah", seq=1), CardRead(card="7c", code="7c", seq=2),
             Retract(card_seq=2))                          # 7c pushed back into the shoe
    assert shift.view.next_card == (2, 1)
    shift.ok(shift.cards("Kh 2c Qd Qs 5d 9c 3s 8h"))
    shift.play_out("play", "play")
    (r1,) = shift.recall()
    assert shift.deal_of(r1) == DEAL


def test_dealer_cards_exposed_before_every_decision_voids(shift):
    shift.bets()
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="play"), ExposedCard(dealer_hand=True))
    (r1,) = shift.recall()
    assert r1["void_reason"] == "dealer_cards_exposed"
    assert shift.outcomes(r1, 1) == {"ante": ("refund", 0), "play": ("refund", 0)}


def test_dealer_cards_exposed_after_every_decision_do_not_void(shift):
    shift.bets()
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="play"), Decide(seat=2, decision="fold"),
             ExposedCard(dealer_hand=True), Reveal(), Settle())
    (r1,) = shift.recall()
    assert r1["status"] == "settled" and shift.nets(r1) == {1: 100, 2: -100}


def test_malfunction_after_all_cards_and_decisions_never_voids(shift):
    shift.bets(pair_plus=100)
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="play"), Decide(seat=2, decision="play"))
    shift.ok(LinkStatus(state=LinkState.DISCONNECTED), Alarm(code="JAM"), shift.cards("Ah"))
    assert shift.view.deck_blocked and shift.view.state == "deciding"
    assert "cannot be voided" in shift.rejected(VoidRound(reason="jam", pin=shift.SUP))
    shift.ok(Reveal(), Settle())
    (r1,) = shift.recall()
    assert r1["status"] == "settled"
    assert shift.outcomes(r1, 1) == {"play": ("push", 0), "ante": ("win", 100),
                                     "pair_plus": ("lose", -100)}
    assert shift.deal_of(r1)[-1] == ("Ah", "rejected", False)


def test_crash_mid_deal_restores_the_round_and_waits_for_a_supervisor(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh 2c Qd"))
    shift.restart()                                        # power cut
    v = shift.view
    assert v.state == "paused" and v.pause_reason == "interrupted"
    assert v.seats[0].cards == ("Ah", "Qd") and v.dealer_cards == (None,)
    assert "PIN" in shift.rejected(Resume())
    shift.ok(Resume(pin=shift.SUP), shift.cards("Qs 5d 9c 3s 8h"))
    shift.play_out("play", "play")
    (r1,) = shift.recall()
    assert r1["status"] == "settled" and shift.deal_of(r1) == DEAL


def test_crash_with_a_complete_record_continues_without_a_supervisor(shift):
    shift.bets()
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="play"))
    shift.restart()
    assert shift.view.state == "deciding" and shift.view.awaiting_supervisor is None
    shift.ok(Decide(seat=2, decision="play"), Reveal(), Settle())
    (r1,) = shift.recall()
    assert r1["status"] == "settled" and shift.nets(r1) == {1: 100, 2: 100}


def test_crash_with_an_incomplete_record_can_be_voided_by_a_supervisor(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh"))
    shift.restart()
    shift.ok(VoidRound(reason="interrupted deal", pin=shift.SUP))
    (r1,) = shift.recall()
    assert r1["status"] == "void" and r1["void_reason"] == "interrupted deal"
    assert shift.game.counters["power_ups"] == 2


def test_new_supervisor_pins_count_at_once_even_mid_round(shift):
    """A restart with new PINs must not leave an interrupted round waiting forever."""
    from dataclasses import replace

    from controller.game.auth import hash_pin
    from controller.game.table import Table

    shift.bets()
    shift.ok(shift.cards("Ah Kh"))
    shift.table.close()
    config = replace(shift.config, pin_hashes={"supervisor": hash_pin("4321")}, burn_cards=1)
    shift.table = Table(shift.path, config, clock=shift.clock)
    assert shift.view.state == "paused"                    # interrupted mid-deal
    assert "wrong PIN" in shift.rejected(VoidRound(reason="x", pin=shift.SUP))  # old PIN
    shift.ok(VoidRound(reason="interrupted deal", pin="4321"))  # the new one works now
    assert shift.game.config.burn_cards == 0              # game settings wait for the round
    assert shift.game.pending_config.burn_cards == 1


def test_a_hole_card_read_twice_is_named_to_the_dealer_and_the_log_never_to_the_players(
        shift, caplog):
    """docs/rules.md, a duplicate card: the dealer must find the card read twice, so the
    dealer screen and the log name it, even when it is one of the dealer's hole cards; the
    player view never holds it before the reveal (R13), in any language."""
    import logging
    import re

    from controller.round_log import RoundLog

    shift.bets()
    shift.ok(shift.cards(DECK), Decide(seat=1, decision="play"), Decide(seat=2, decision="play"))
    shift.ok(shift.cards("5d"))                            # the dealer's second card, again
    dealer, player = shift.table.views()
    assert dealer.state == "deciding" and dealer.deck_blocked
    (b,) = [b for b in dealer.banners if b.kind == "deck_blocked"]
    assert b.params["card"] == "5d" and "Card 5d seen twice" in b.message
    assert not re.search(r"\b5d\b|a card", repr(player))
    with caplog.at_level(logging.INFO, logger="threecard"):
        RoundLog().update(dealer, player)
    assert "deck_blocked: Card 5d seen twice in this deck" in caplog.text
    assert "a card" not in caplog.text


def test_a_hole_card_in_a_void_reason_reaches_the_players_as_a_mark_in_no_language(shift):
    shift.bets()
    shift.ok(shift.cards("Ah Kh 2c"), VoidRound(reason="dealer flashed 2c", pin=shift.SUP))
    dealer, player = shift.table.views()
    (b,) = [b for b in player.banners if b.kind == "void"]
    assert "2c" not in repr(player) and "(dealer flashed ??)" in b.message
    assert b.params["reason"] == "dealer flashed ??"
    assert any("dealer flashed 2c" in b.message for b in dealer.banners)
