"""``threecard shoe-sim`` paired with ``threecard run --autoplay``: rounds settle, none void.

The simulated shoe deals one round's cards, pauses while the table settles and takes the
next bets, then deals the next round from a fresh deck; it deals nothing while no table
listens. The tests run both programs as a user does, over a real pty and over TCP.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from simulators.cli import round_cards
from simulators.ports import ShoePort
from simulators.runner import ShoeRunner
from simulators.shoe import SimulatedShoe

CMD = [sys.executable, "-m", "controller.cli"]
ROUND_LINE = re.compile(r"round (\d+): dealer ")


class Port(ShoePort):
    """A port whose host comes and goes when the test says."""

    def __init__(self) -> None:
        self.name = "test-0"
        self.url = "memory://test-*"
        self.connected = False
        self.frames: list[bytes] = []

    @property
    def host_connected(self) -> bool:
        return self.connected

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    def unplug(self) -> None:
        self.connected = False

    def replug(self) -> Port:
        return self

    def close(self) -> None:
        self.connected = False


def test_round_size_is_three_cards_a_seat_and_the_dealer_after_the_burns():
    assert round_cards(7) == 24
    assert round_cards(2) == 9
    assert round_cards(1, burn_cards=1) == 7


def test_runner_deals_rounds_apart_only_while_a_host_listens():
    shoe = SimulatedShoe("native", seed=9)
    port = Port()
    shoe.attach(port)
    times: list[float] = []
    six = threading.Event()

    def on_deal(card):
        times.append(time.monotonic())
        if len(times) == 6:
            six.set()

    runner = ShoeRunner(shoe, interval_ms=5, heartbeat_ms=20, round_cards=3, gap_ms=400,
                        fresh_packs=1, on_deal=on_deal)
    runner.start()
    try:
        time.sleep(0.5)
        assert runner.dealt == 0  # no host: nothing dealt, nothing queued for later
        port.connected = True
        opened = time.monotonic()
        assert six.wait(5)
    finally:
        runner.stop()
    assert times[0] - opened >= 0.4  # the table gets the gap before the first round
    assert all(b - a < 0.2 for a, b in zip(times[:2], times[1:3], strict=True))
    assert times[3] - times[2] >= 0.4  # and between rounds
    assert runner.rounds == 2 and runner.in_round == 3
    assert shoe.remaining == 52 - 3  # the second round came from a fresh pack


def test_manual_rounds_come_from_a_fresh_deck_too():
    shoe = SimulatedShoe("beetek", seed=4)
    shoe.attach(Port())
    runner = ShoeRunner(shoe, round_cards=9, fresh_packs=1)
    first = [runner.deal() for _ in range(9)]
    second = [runner.deal() for _ in range(9)]
    assert len(set(first)) == 9 and len(set(second)) == 9
    assert shoe.remaining == 52 - 9


def _sim(dialect: str, where: list[str]) -> subprocess.Popen:
    return subprocess.Popen([*CMD, "shoe-sim", "--dialect", dialect, *where, "--seed", "21",
                             "--seats", "2", "--interval", "30", "--gap", "1000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize(("dialect", "where", "url_rx"), [
    ("native", ["--pty"], r"serial:///dev/pts/\d+\?dialect=native"),
    ("beetek", ["--tcp", "127.0.0.1:0"], r"socket://127\.0\.0\.1:[1-9]\d*\?dialect=beetek"),
])
def test_autoplay_on_the_printed_url_settles_three_rounds_without_a_void(tmp_path, dialect,
                                                                         where, url_rx):
    sim = _sim(dialect, where)
    try:
        url = sim.stdout.readline().strip()
        assert re.fullmatch(url_rx, url), url
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
        run = subprocess.run([*CMD, "run", "--autoplay", "--headless", "--rounds", "3",
                              "--seats", "2", "--shoe", url,
                              "--journal", str(tmp_path / "journal.sqlite3")],
                             capture_output=True, text=True, timeout=120, env=env, check=False)
    finally:
        sim.send_signal(signal.SIGTERM)
        sim_status = sim.wait(20)
        sim_err = sim.stderr.read()
        sim.stdout.close()
        sim.stderr.close()
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    assert sim_status == 0, sim_err
    assert "3 rounds settled" in log
    assert not re.search(r"\bVOID\b|WARNING +(void|extra_card|wrong_count|deck_blocked|"
                         r"card_before_no_more_bets|misread):|round \d+ paused", log), log
    assert [int(r) for r in ROUND_LINE.findall(log)] == [1, 2, 3], log
    recall = subprocess.run([*CMD, "recall", "--journal", str(tmp_path / "journal.sqlite3"),
                             "--json"], capture_output=True, text=True, timeout=60, check=True)
    rounds = sorted((r for r in json.loads(recall.stdout) if r["round_id"] <= 3),
                    key=lambda r: r["round_id"])
    assert [(r["round_id"], r["status"]) for r in rounds] == [(1, "settled"), (2, "settled"),
                                                             (3, "settled")]
    # every card of the shoe went to its own round, round robin, none set aside
    dealt = re.findall(r"^dealt (\S+) ", sim_err, re.MULTILINE)
    assert len(dealt) >= 27, sim_err
    order = ["seat 1", "seat 2", "dealer"] * 3
    for n, rec in enumerate(rounds):
        assert rec["deal"] == [[card, where, False] for card, where
                               in zip(dealt[9 * n: 9 * n + 9], order, strict=True)]
    assert f"threecard run --seats 2 --shoe '{url}'" in sim_err


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--seats", "9", "--seats must be 1 to 7, got 9"),
    ("--seats", "0", "--seats must be 1 to 7, got 0"),
    ("--gap", "-1", "--gap must be 0 or more, got -1"),
    ("--interval", "0", "--interval must be 1 or more, got 0"),
    ("--burn-cards", "-2", "--burn-cards must be 0 to 52, got -2"),
])
def test_a_pace_the_table_cannot_follow_is_refused(flag, value, words):
    out = subprocess.run([*CMD, "shoe-sim", "--dialect", "native", "--pty", flag, value],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == f"threecard shoe-sim: {words}"
