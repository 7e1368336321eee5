"""10,000 random control lines through the daemon's real control path, in batches.

Valid commands, the same with a field of the wrong type (``true`` for a seat, a number
for a PIN, a list for a card), huge and non-finite numbers (``NaN``, ``1e400``, 10^29, a
400-digit number), unknown fields, and lines that are JSON but no object: each line goes
through :meth:`Daemon.handle_control_line` into a real table with a real journal; between
them a dealer plays rounds on the same channel and a simulated shoe deals the cards due,
so the random lines meet every state of a round. After every batch: no
exception escaped, the table thread is alive, the journal verifies, and a fresh table
opens it unlocked (a restart, which replays it) and plays on.
"""

from __future__ import annotations

import json
import logging
import os
import random
import tempfile
import threading
import time
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.autoplay import AutoPlayer
from controller.daemon import Daemon
from controller.game import inputs
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS
from controller.game.cards import DECK
from controller.game.config import MAX_LOCKOUT_AFTER, load_config
from controller.game.control_line import MAX_CONTROL_LINE
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.table import Table
from controller.journal import Journal

BATCHES = 20
LINES_PER_BATCH = 500
DEALER_EVERY = 8
"""A dealer plays the round on after every DEALER_EVERY random lines."""
SUP, TECH = DEMO_PINS["supervisor"], DEMO_PINS["technician"]
#: JSON that Python's json module cannot write, spliced in as text
RAW = {"__NaN__": "NaN", "__Inf__": "Infinity", "__-Inf__": "-Infinity", "__1e400__": "1e400",
       "__big__": "9" * 400, "__huge__": str(10**29)}
BAD_VALUES = st.sampled_from([
    True, False, None, -1, 0, 2.5, 2468, "2468", "", "x" * 300, ["Qh"], {"a": 1}, [],
    2**63, -2**63 - 1, *RAW])
PINS = st.sampled_from([None, SUP, TECH, "0000", "99999999"])


SEAT = st.integers(0, inputs.MAX_SEATS + 1)
#: command -> its fields' strategies, as their declarations allow them (the table may
#: still refuse them); a PIN change, which costs a salted hash (scrypt) and new checks of
#: every PIN, is drawn one time in fifty
FIELDS = {
    "place_bet": {"seat": SEAT, "bet": st.sampled_from(["ante", "pair_plus", "six_card_bonus"]),
                  "amount": st.sampled_from([1, 5, 100, 500, 2500, 50_000, inputs.MAX_AMOUNT])},
    "remove_chip": {"seat": SEAT, "bet": st.sampled_from(["ante", "pair_plus"]),
                    "amount": st.sampled_from([1, 100, 500])},
    "clear_bets": {"seat": SEAT}, "rebet": {"seat": SEAT}, "undo_decision": {"seat": SEAT},
    "no_more_bets": {}, "reveal": {}, "settle": {}, "next_round": {}, "resume": {},
    "new_deck": {},
    "decide": {"seat": SEAT, "decision": st.sampled_from(["play", "fold"])},
    "void": {"reason": st.text(max_size=12)}, "unblock_deck": {"reason": st.text(max_size=12)},
    "manual_card": {"card": st.sampled_from(["Qh", "10s", "As", "Zz"])},
    "exposed_card": {"dealer_hand": st.booleans()},
    "config_change": {"key": st.sampled_from(["deal_pattern", "burn_cards", "exposed_card",
                                              "exposed_card_policy"]),
                      "value": st.sampled_from(["by_hand", "round_robin", "burn", "void", 0, 1,
                                                2])},
}
NAMES = st.sampled_from(sorted(FIELDS))


def _command_dict(draw) -> dict:
    if draw(st.integers(0, 49)) == 49:  # not 0: the simplest draw, which hypothesis favours
        d = {"command": "change_pin", "role": "supervisor", "new_pin": SUP}
    else:
        name = draw(NAMES)
        d = {"command": name, **{k: draw(v) for k, v in FIELDS[name].items()}}
    pin = draw(PINS)
    return {**d, "pin": pin} if pin else d


def _spoil(d: dict, draw) -> dict:
    """The command with one field of a wrong type or value, or one field too many."""
    d = dict(d)
    how = draw(st.sampled_from(["value", "value", "unknown", "drop", "command"]))
    if how == "value":
        d[draw(st.sampled_from(sorted(d)))] = draw(BAD_VALUES)
    elif how == "unknown":
        d[draw(st.sampled_from(["colour", "old", "pin_hash", "seq", "Command"]))] = \
            draw(BAD_VALUES)
    elif how == "drop":
        d.pop(draw(st.sampled_from(sorted(d))))
    else:
        d["command"] = draw(st.sampled_from(["deal", "Void", "", "place_bets", 7]))
    return d


@st.composite
def control_lines(draw) -> str | bytes:
    kind = draw(st.sampled_from(["valid"] * 4 + ["spoiled"] * 4 + ["other"] * 2))
    if kind == "other":
        return draw(st.sampled_from([
            "123", '"void"', "null", "[]", "true", "{}", "not json", "{", "}", " ", "",
            '{"command": "void"', "NaN", "1e400", "9" * 400, '{"command": null}',
            b"\xff\xfe{}", b'{"command": "void", "reason": "\xc3"}', "\x00",
            '{"command": "settle"} {"command": "settle"}', '{"command": "settle"}\r']))
    d = _command_dict(draw)
    if kind == "spoiled":
        d = _spoil(d, draw)
    text = json.dumps(d)
    for token, raw in RAW.items():
        text = text.replace(json.dumps(token), raw)
    return text


class Shoe:
    """Deals the cards a view asks for from a shuffled deck per round."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.round = None
        self.deck: list[str] = []

    def feed(self, table: Table) -> None:
        for _ in range(40):
            dv = table.views()[0]
            if dv.round_id != self.round:
                self.round = dv.round_id
                self.deck = [str(c) for c in DECK]
                self.rng.shuffle(self.deck)
            if dv.next_card is None or dv.state not in ("no_more_bets", "dealing"):
                return
            card = self.deck.pop()
            table.submit(CardRead(card=card, code=card))
            table.drain()


def dealer_step(dealer: AutoPlayer, view) -> list[inputs.DealerCommand]:
    """What a dealer sends now: while betting, the wagers placed afresh (random lines may
    have left some below the table minimum), else autoplay's next commands."""
    if view.state != "betting":
        return dealer.next_commands(view)
    clear = [inputs.ClearBets(seat=s.seat) for s in view.seats if s.bets]
    return [*clear, *dealer.bet_commands(view), inputs.NoMoreBets()]


def _open(path: Path, daemon: Daemon) -> Table:
    t = Table(path, daemon._table_config())  # noqa: SLF001 - the daemon's own settings
    assert t.locked is None, t.locked
    t.start()
    t.submit(LinkStatus(state=LinkState.ONLINE))
    t.drain()
    return t


@pytest.fixture
def fast_dir(tmp_path):
    """A directory in memory where the system has one (the journal's fsyncs cost nothing
    there; what is tested is the input handling), else ``tmp_path``."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=shm, prefix="threecard-fuzz-") as d:
        yield Path(d)


@pytest.mark.slow
def test_ten_thousand_random_control_lines_never_harm_the_table(fast_dir, caplog):
    path = fast_dir / "journal.sqlite3"
    config = load_config(None, journal_path=str(path), seats=3,
                         lockout_after=MAX_LOCKOUT_AFTER, headless=True)
    daemon = Daemon(config, supervisor_pin=SUP)
    daemon.table = _open(path, daemon)
    shoe = Shoe(7)
    dealer = AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=SUP)
    stats = {"lines": 0, "submitted": 0, "refused": 0, "batches": 0, "dealer": 0}
    started = time.monotonic()
    caplog.set_level(logging.INFO, logger="threecard")

    @settings(max_examples=BATCHES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(control_lines(), min_size=LINES_PER_BATCH, max_size=LINES_PER_BATCH))
    def batch(lines):
        for n, line in enumerate(lines):
            submitted = daemon.handle_control_line(line)  # nothing may escape
            stats["lines"] += 1
            stats["submitted" if submitted else "refused"] += 1
            shoe.feed(daemon.table)
            if n % DEALER_EVERY:
                continue
            # a dealer plays the round on between the random lines, on the same channel
            for cmd in dealer_step(dealer, daemon.table.views()[0]):
                assert daemon.handle_control_line(msgspec.json.encode(cmd))
                stats["dealer"] += 1
            shoe.feed(daemon.table)
        assert daemon.table._thread.is_alive()  # noqa: SLF001
        assert daemon.table.locked is None
        daemon.table.stop()
        report = rc.verify(path)
        assert report.ok, report.problems
        daemon.table = _open(path, daemon)  # a restart replays the journal, unlocked
        stats["batches"] += 1

    batch()
    daemon.table.stop()
    elapsed = time.monotonic() - started
    j = Journal(path, readonly=True)
    events = j.last_seq
    j.close()
    print(f"\ncontrol lines fuzzed: {stats['lines']} in {stats['batches']} batches, "
          f"{elapsed:.1f} s; {stats['submitted']} submitted, {stats['refused']} refused; "
          f"{stats['dealer']} dealer commands between them; journal events {events}")
    assert stats["lines"] == BATCHES * LINES_PER_BATCH == 10_000
    assert stats["submitted"] > 1000 and stats["refused"] > 1000
    refusals = [r for r in caplog.records if "control: refused" in r.getMessage()]
    assert refusals and all(r.levelno == logging.WARNING for r in refusals)
    assert any("at `$." in r.getMessage() for r in refusals)  # the field is named
    settled = rc.meters(path).rows.get("total", [0] * 6)[3]
    print(f"rounds settled: {settled}")
    assert settled > 20  # rounds were played through, not only refused


def test_the_control_thread_lives_through_bad_lines_and_ends_at_eof(tmp_path, caplog):
    path = tmp_path / "journal.sqlite3"
    config = load_config(None, journal_path=str(path), seats=3, headless=True)
    daemon = Daemon(config, supervisor_pin=SUP)
    daemon.table = _open(path, daemon)
    caplog.set_level(logging.INFO, logger="threecard")
    r, w = os.pipe()
    daemon._spawn("control", lambda: daemon._control_loop(r))  # noqa: SLF001
    lines = [b"123", b'"void"', b"null", b"\xff\xfe", b'{"command": "place_bet", "seat": true, '
             b'"bet": "ante", "amount": 100}', b"x" * (MAX_CONTROL_LINE + 10),
             b'{"command": "place_bet", "seat": 1, "bet": "ante", "amount": 100}']
    os.write(w, b"\n".join(lines) + b"\n")
    deadline = time.monotonic() + 10
    while not daemon.table.views()[0].seats[0].bets and time.monotonic() < deadline:
        time.sleep(0.05)
    assert daemon.table.views()[0].seats[0].bets == {"ante": 100}  # the last line counted
    control = next(t for t in daemon._threads if t.name == "control")  # noqa: SLF001
    assert control.is_alive() and daemon._health() == []  # noqa: SLF001
    os.close(w)
    control.join(5)
    assert not control.is_alive()
    assert daemon._health() == []  # noqa: SLF001 - ending at end of input is normal
    end = [x for x in caplog.records if "end of input" in x.getMessage()]
    assert end and end[0].levelno == logging.INFO
    warned = [x.getMessage() for x in caplog.records if x.levelno == logging.WARNING]
    assert any("Expected `object`, got `int`" in m for m in warned)
    assert any("at `$.seat`" in m for m in warned)
    assert any("longer than" in m for m in warned)
    daemon.table.stop()
    os.close(r)


def test_a_control_thread_that_dies_is_noticed_by_the_watchdog(tmp_path):
    path = tmp_path / "journal.sqlite3"
    config = load_config(None, journal_path=str(path), seats=3, headless=True)
    daemon = Daemon(config, supervisor_pin=SUP)
    daemon.table = _open(path, daemon)
    gone = threading.Event()

    def broken() -> None:
        try:
            daemon._control_loop(-1)  # noqa: SLF001 - a descriptor that cannot be read
        finally:
            gone.set()

    daemon._spawn("control", broken)  # noqa: SLF001
    assert gone.wait(5)
    time.sleep(0.1)
    assert "thread control crashed" in daemon._health()  # noqa: SLF001
    daemon.table.stop()
