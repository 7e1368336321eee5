"""The journal's write-ahead log stays small: a reader that holds it makes it grow (and
that is logged); once the reader lets go, the idle table empties it."""

from __future__ import annotations

import logging
import random
import time

from polling import until

from controller.game.cards import DECK
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.inputs import Decide, NextRound, NoMoreBets, PlaceBet, Reveal, Settle
from controller.game.table import Table
from controller.game.wal_keeper import WalKeeper
from controller.journal import Journal

SEATS = 7


def play_round(table: Table, rng: random.Random) -> None:
    table.submit(LinkStatus(state=LinkState.ONLINE))
    for seat in range(1, SEATS + 1):
        table.submit(PlaceBet(seat=seat, bet="ante", amount=100))
        table.submit(PlaceBet(seat=seat, bet="six_card_bonus", amount=100))
    table.submit(NoMoreBets())
    for card in rng.sample(DECK, 3 * SEATS + 3):
        table.submit(CardRead(card=str(card), code=str(card)))
    for seat in range(1, SEATS + 1):
        table.submit(Decide(seat=seat, decision="play"))
    for item in (Reveal(), Settle(), NextRound()):
        table.submit(item)
    assert table.drain(30)


def test_a_reader_held_across_rounds_keeps_the_log_and_once_it_leaves_the_log_shrinks(
        tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="threecard")
    path = tmp_path / "journal.sqlite3"
    table = Table(path, TableConfig(seats=SEATS))
    table.checkpoint_idle_s = table.checkpoint_retry_s = 0.2
    table.wal_warn_bytes = 20_000  # about two 3-seat rounds of a journal's 1 KiB pages
    rng = random.Random(15)
    table.start()
    try:
        play_round(table, rng)
        assert until(lambda: table.journal.wal_bytes() == 0       # idle: emptied, its
                     and len(table.journal.round_ends()) == 1)   # record written first
        rounds = 1

        reader = Journal(path, readonly=True)        # recall, a backup: one read transaction
        sizes = []
        for _ in range(3):
            play_round(table, rng)
            time.sleep(1.0)                          # idle: the table tries, the reader holds
            sizes.append(table.journal.wal_bytes())
        assert sizes == sorted(sizes) and sizes[-1] > table.wal_warn_bytes, sizes
        assert len(table.journal.round_ends()) == rounds + 3      # play went on
        assert any("write-ahead log is" in r.getMessage() and r.levelno == logging.WARNING
                   for r in caplog.records)
        assert reader.last_seq < table.journal.last_seq              # its moment is old

        reader.close()
        assert until(lambda: table.journal.wal_bytes() == 0), table.journal.wal_bytes()
        assert until(lambda: any("write-ahead log is back to 0 bytes" in r.getMessage()
                                      for r in caplog.records))
    finally:
        table.stop()
    j = Journal(path, readonly=True)
    try:
        assert j.verify().ok and j.last_seq == table.journal.last_seq
    finally:
        j.close()


def wal_after_each_round(path, rounds: int) -> list[int]:
    """The log's size after each of ``rounds`` rounds played without a pause (never idle)."""
    table = Table(path, TableConfig(seats=SEATS))
    table.checkpoint_idle_s = 1e9                    # no idle emptying: only play
    rng = random.Random(15)
    table.start()
    try:
        sizes = []
        for _ in range(rounds):
            play_round(table, rng)
            sizes.append(table.journal.wal_bytes())
    finally:
        table.stop()
    return sizes


def test_in_continuous_play_the_log_is_copied_in_between_rounds_and_stays_small(
        tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.WARNING, logger="threecard")
    sizes = wal_after_each_round(tmp_path / "kept.sqlite3", 10)
    assert max(sizes[1:]) <= sizes[0] * 1.5, sizes   # about one round, whatever the rounds
    monkeypatch.setattr(WalKeeper, "between_rounds", lambda *a: None)  # idle emptying only
    grown = wal_after_each_round(tmp_path / "grown.sqlite3", 10)
    assert grown == sorted(grown) and grown[-1] > 4 * max(sizes), (grown, sizes)
    assert not [r for r in caplog.records if "write-ahead log is" in r.getMessage()]


def test_a_log_past_the_limit_in_play_is_said_once_and_its_return_once(tmp_path, caplog):
    """A reader holds the log through rounds: play never idles, the warning still comes
    (at a round's end), once; the reader gone, the next round's end says it is back."""
    caplog.set_level(logging.INFO, logger="threecard")
    path = tmp_path / "journal.sqlite3"
    table = Table(path, TableConfig(seats=SEATS))
    table.checkpoint_idle_s = 1e9
    table.wal_warn_bytes = 40_000  # about two 7-seat rounds of a new journal's 1 KiB pages
    rng = random.Random(3)
    table.start()
    try:
        reader = Journal(path, readonly=True)          # its moment: the start-up record's
        for _ in range(4):
            play_round(table, rng)
        reader.close()
        play_round(table, rng)
        play_round(table, rng)
    finally:
        table.stop()
    said = [r.getMessage() for r in caplog.records if "write-ahead log is" in r.getMessage()]
    assert len(said) == 2 and "a reader" in said[0] and "back to" in said[1], said
