"""Autoplay with a shoe that deals by itself opens a round only once the shoe is quiet.

The cards a shoe goes on dealing after a round has ended fall between rounds, where the
table sets them aside and voids nothing; the next round then gets only its own cards.
"""

from __future__ import annotations

import threading
import time

from controller import autoplay
from controller.autoplay import AutoPlayer, autoplay_loop
from controller.game.auth import demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import LinkState, LinkStatus
from controller.game.table import Table
from simulators.event_shoe import EventShoe


def _until(table: Table, pred, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        view = table.views()[0]
        if pred(view):
            return view
        assert time.monotonic() < deadline, view
        table.wait_for_version(view.version, 0.05)


def test_cards_after_a_round_fall_between_rounds_while_autoplay_waits(tmp_path):
    quiet = 0.6
    table = Table(tmp_path / "j.sqlite", TableConfig(seats=2, pin_hashes=demo_pin_hashes()))
    table.start()
    table.submit(LinkStatus(state=LinkState.ONLINE))
    stop = threading.Event()
    player = threading.Thread(target=autoplay_loop,
                              args=(table, AutoPlayer(bets={"ante": 100}), stop),
                              kwargs={"quiet": quiet, "idle_timeout": 0.1})
    player.start()
    shoe = EventShoe(seed=4)
    shoe.new_round()
    states = []
    try:
        _until(table, lambda v: v.cards_due == 9)
        for event in shoe.deal(9):
            table.submit(event)
        _until(table, lambda v: v.state == "settled")
        # the shoe goes on: five more cards, 0.2 s apart (the rest of a voided round)
        for event in shoe.deal(5):
            time.sleep(0.2)
            table.submit(event)
            table.drain()
            states.append((table.views()[0].round_id, table.views()[0].state))
        last = time.monotonic()
        view = _until(table, lambda v: v.round_id == 2 and v.state == "no_more_bets")
        opened = time.monotonic()
    finally:
        stop.set()
        player.join(10)
        table.stop()
    assert states == [(1, "settled")] * 5  # each card set aside between rounds
    assert quiet - 0.15 <= opened - last <= quiet + 1.0  # then the round opened, once quiet
    assert view.cards_due == 9 and not view.banners  # with none of those cards, nothing void


def test_a_card_slow_to_be_read_is_dealt_again_only_after_its_time(tmp_path, monkeypatch):
    """A shoe that deals on autoplay's word (``sim://``) gets one word a step: a card still
    on its way after many idle times is not dealt twice (the second would be an extra card, a
    wrong-count void); one lost for ``REDEAL_S`` is dealt again."""
    monkeypatch.setattr(autoplay, "REDEAL_S", 1.0)
    table = Table(tmp_path / "j.sqlite", TableConfig(seats=2, pin_hashes=demo_pin_hashes()))
    table.start()
    table.submit(LinkStatus(state=LinkState.ONLINE))
    stop, second = threading.Event(), threading.Event()
    calls: list[tuple[float, object]] = []

    def deal(view):  # the card never arrives: a slow read, then a lost one
        calls.append((time.monotonic(), view.next_card))
        if len(calls) == 2:
            second.set()

    player = threading.Thread(target=autoplay_loop,
                              args=(table, AutoPlayer(bets={"ante": 100}), stop),
                              kwargs={"idle_timeout": 0.1, "on_idle": deal})
    player.start()
    try:
        assert second.wait(20)
    finally:
        stop.set()
        player.join(10)
        table.stop()
    (first_at, first_card), (again_at, again_card) = calls[:2]
    assert first_card == again_card == (1, 1)
    assert again_at - first_at >= 1.0  # ten idle times passed: one word, not ten
