"""A connection that died is noticed: a socket numbered past 1023, a network thread that
ended, a broker that stopped answering with its TCP connections open (SIGSTOP)."""

from __future__ import annotations

import logging
import os
import resource
import signal
import threading
from pathlib import Path

import pytest
from floor_feed import dealt, finished
from polling import until

from floor.mqtt import FloorSettings
from floor.publisher import FloorPublisher
from floor.recorder import serve

TABLE = "TCP-D"


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    """A journal of 3 rounds at 2 seats."""
    return dealt(tmp_path_factory.mktemp("dead") / "journal.sqlite3", TABLE, 3, 5)


@pytest.fixture(scope="module")
def broker(module_floor):
    return module_floor.broker().start()


def _stored(module_floor, store: Path) -> int:
    return len(module_floor.stored(store, TABLE))


def test_feed_and_recorder_deliver_with_sockets_numbered_past_1023(module_floor, broker,
                                                                   journal, tmp_path):
    # a process with many tables holds more than 1024 descriptors: select() refuses the
    # sockets opened last, and paho's own thread ended without a word
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip(f"the process may open only {hard} files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400), hard))
    fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    stop = threading.Event()
    store = tmp_path / "floor.sqlite3"
    settings = FloorSettings(broker.url)
    rec = threading.Thread(target=serve, args=(settings, str(store), "rec-fds", stop))
    feed = None
    try:
        rec.start()
        feed = FloorPublisher(settings, str(journal), TABLE, drain_s=0).start()
        assert until(lambda: _stored(module_floor, store) == len(finished(journal)), 30), \
            f"{_stored(module_floor, store)} of {len(finished(journal))} rounds stored"
        assert until(lambda: feed.cursor == feed.follower.head(), 10)  # all acknowledged
    finally:
        if feed is not None:
            feed.stop(0)
        stop.set()
        rec.join(20)
        for fd in fds:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_network_thread_that_ends_is_noticed_and_replaced(broker, journal, caplog):
    caplog.set_level(logging.INFO, "threecard.floor")
    feed = FloorPublisher(FloorSettings(broker.url), str(journal), TABLE, drain_s=0).start()
    try:
        assert until(lambda: feed.connected and feed.follower is not None
                     and feed.cursor == feed.follower.head(), 20)  # all acknowledged
        first, seen = feed._client, feed.acknowledged

        def die() -> None:
            raise SystemExit  # ends the thread and nothing else, silently
        first.loop_misc = die
        feed._net.poke()
        assert until(lambda: feed._client is not None and feed._client is not first
                     and feed.connected, 20)
        assert until(lambda: feed.acknowledged > seen, 20)  # the new connection delivers
        assert any("network thread" in r.getMessage() and "ended" in r.getMessage()
                   for r in caplog.records)
    finally:
        feed.stop(0)


def test_a_broker_that_stops_answering_is_left_and_everything_delivered(floor, tmp_path):
    b = floor.broker().start()
    store = tmp_path / "floor.sqlite3"
    rec = floor.recorder(b, store)
    table_journal = tmp_path / "table.sqlite3"
    table = floor.table(b, TABLE, table_journal, 150)
    table.wait_for("floor: connected to")
    floor.wait_until(lambda: floor.stored(store, TABLE), 30, "a first round stored")
    n = table.text().count("floor: connected to")
    b.proc.send_signal(signal.SIGSTOP)  # TCP connections stay open; nothing answers
    try:  # no PINGRESP within the keep-alive, or nothing at all within 1.5 times it
        for p in (table, rec):
            p.wait_for(r"nothing heard from the broker|lost.*Keep alive timeout", 20)
    finally:
        b.proc.send_signal(signal.SIGCONT)
    rec.wait_for("recorder connected.*\n(.*\n)*.*recorder connected", 30)
    floor.wait_until(lambda: table.text().count("floor: connected to") > n, 30,
                     "the table connected again")
    assert table.stop() == 0
    want = finished(table_journal)
    floor.wait_until(lambda: floor.stored(store, TABLE) == want, 30,
                     "every round the table dealt in the store")
