"""Each input is checked once: from where it enters to the journal and ``Game.apply``.

A ``place_bet`` as a control line goes through the daemon's control path into a running
table; a card as beetek bytes goes through a real link over an in-memory port into the
same table. The counters are the test's: every way the product can check an input against
its declaration (the control line's decoder, ``msgspec.convert``, the check of a command
built in code or a shoe event read back through its type, the journal-body decoder) is
wrapped, and the record the table checked is the object the game applies.
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
import pytest

import drivers
from controller.daemon import Daemon
from controller.game import control_line, engine, inputs
from controller.game.config import load_config
from controller.game.events import CardRead
from controller.game.table import Table
from drivers.dialects.beetek import BeetekEncoder
from drivers.transports.memory import MemoryDevice


class _CountingDecoder:
    """The control line's decoder, counting what it decodes."""

    def __init__(self, decoder: Any) -> None:
        self.decoder, self.decoded = decoder, []

    def decode(self, data: bytes) -> Any:
        out = self.decoder.decode(data)
        self.decoded.append(out)
        return out


def _wait(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A daemon's control path and a table running on a new journal."""
    path = tmp_path_factory.mktemp("one") / "table.db"
    daemon = Daemon(load_config(None, journal_path=str(path), seats=3))
    daemon.table = Table(path, daemon._table_config(), keys=False).start()  # noqa: SLF001
    yield daemon
    daemon.table.stop()


@pytest.fixture
def counters(mocker: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every checking of an input the product can do, counted."""
    decoder = _CountingDecoder(control_line._CONTROL)  # noqa: SLF001
    monkeypatch.setattr(control_line, "_CONTROL", decoder)
    return {"control": decoder, "convert": mocker.spy(msgspec, "convert"),
            "built": mocker.spy(inputs, "_decoded"),
            "body": mocker.spy(engine, "decode_body"),
            "apply": mocker.spy(engine.Game, "apply")}


def _converted_to(spy: Any, cls: type) -> int:
    return sum(1 for c in spy.call_args_list if len(c.args) > 1 and c.args[1] is cls)


def _journaled(table: Table, kind: str) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in table.journal.records() if r.kind == kind]


def test_a_place_bet_from_the_control_channel_is_checked_once(running, counters):
    line = '{"command": "place_bet", "seat": 2, "bet": "ante", "amount": 500}'
    assert running.handle_control_line(line)

    decoded = counters["control"].decoded
    assert [type(c) for c in decoded] == [inputs.PlaceBet]  # the one check: its decoding
    assert _converted_to(counters["convert"], inputs.PlaceBet) == 0
    assert counters["built"].call_count == 0
    assert counters["body"].call_count == 0
    applied = [c.args[4] for c in counters["apply"].call_args_list if c.args[3] == "place_bet"]
    assert len(applied) == 1 and applied[0] is decoded[0]  # the same object reaches the game
    assert _journaled(running.table, "place_bet")[-1] == {"seat": 2, "bet": "ante",
                                                          "amount": 500}
    assert running.table.game.seats[2].bets == {"ante": 500}


def test_a_card_from_the_shoe_is_checked_once(running, counters):
    table = running.table
    assert running.handle_control_line('{"command": "no_more_bets"}')
    device = MemoryDevice("one-conversion")
    link = drivers.open_link("memory://one-conversion?dialect=beetek", table.inbox)
    link.start()
    try:
        _wait(lambda: device.host_connected)
        device.write(BeetekEncoder().encode(CardRead(card="Qh", code="QH")))
        _wait(lambda: _journaled(table, "card"))
    finally:
        assert link.stop(2.0)

    body_type = CardRead  # a shoe event is its own journal record
    built = counters["built"]
    checks = [(c.args[0], r) for c, r in zip(built.call_args_list, built.spy_return_list,
                                             strict=True) if type(c.args[0]) is CardRead]
    assert len(checks) == 1  # the one check: the card read back through its type
    assert checks[0][0].card == "Qh" and checks[0][0].code == "QH"  # as the dialect built it
    assert _converted_to(counters["convert"], body_type) == 0
    assert counters["body"].call_count == 0
    assert _journaled(table, "card") == [{"burn": False, "card": "Qh", "code": "QH",
                                          "seq": None}]
    cards = [c.args[4] for c in counters["apply"].call_args_list if c.args[3] == "card"]
    assert len(cards) == 1 and type(cards[0]) is body_type and cards[0].card == "Qh"
    assert cards[0] is checks[0][1]  # the record checked is the object applied


def test_a_command_checked_where_it_entered_is_passed_on_as_checked(counters):
    command = inputs.PlaceBet(seat=1, bet="ante", amount=100)

    def checks() -> int:  # of this command (the running table's thread checks its own)
        return sum(1 for c in counters["built"].call_args_list if c.args[0] is command)

    sent = inputs.check(command)  # a PIN pad's check: the one check
    assert sent == inputs.Checked(command) and checks() == 1
    assert inputs.journal_record(sent) == ("place_bet", command)
    assert checks() == 1  # not checked again
    assert inputs.journal_record(command)[1] is command  # given bare, it is checked
    assert checks() == 2
    with pytest.raises(inputs.InputError, match="seat"):
        inputs.check(inputs.PlaceBet(seat=99, bet="ante", amount=100))
