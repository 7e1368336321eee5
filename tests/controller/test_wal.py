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
        assert until(lambda: table.journal.wal_bytes() == 0)    # idle: emptied
        rounds = len(table.journal.round_ends())

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
