"""The daemon as a real process against a simulated shoe: a whole scripted shift.

Per transport (pty in both dialects, TCP): normal rounds, a fold, a void, a misread
resolved by manual entry, the shoe unplugged mid-deal and replugged under a new name
(the round waits, then continues), and a SIGKILL mid-round followed by a restart that
recovers the round. Game recall and meters at the end must match what the rules say
each round pays, seat by seat.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.game.cards import parse_cards
from controller.game.rules import load_profile
from controller.game.settlement import Bets, Decision, settle
from simulators.pty_shoe import PtyPort
from simulators.runner import ShoeRunner
from simulators.shoe import SimulatedShoe
from simulators.tcp_shoe import TcpPort

SUP = "2468"
BETS = {"ante": 100, "pair_plus": 100}

# round_robin with 2 seats: s1 s2 dealer, three times.
ROUNDS = {
    # name: (deal order, decisions by seat, status)
    "normal": ("Ah 7s Qh Kd 7d 5s 9c 2c 3d", {1: "play", 2: "play"}),
    "fold": ("Jc Ks 9d 8h Qd 6c 3s 4h 2h", {1: "fold", 2: "play"}),
    "void": ("5c 6d 8s Th", None),
    "misread": ("Ac 2s Kc Ad 3c Jh 4s 9h 5d", {1: "play", 2: "fold"}),
    "unplug": ("9s Qc As Ts Qs 8c Js 2d 4d", {1: "play", 2: "play"}),
    "kill": ("5h Tc Ah 5d 9d Qs Kd 8h 3c", {1: "play", 2: "play"}),
}


def hands(order: str) -> tuple[list[str], list[str], list[str]]:
    c = order.split()
    return c[0::3], c[1::3], c[2::3]


def expected_nets(name: str) -> dict[int, int]:
    """What the rules pay each seat in a round (the engine's tested settlement)."""
    live = load_profile("live")
    s1, s2, dealer = hands(ROUNDS[name][0])
    out = {}
    for seat, cards in ((1, s1), (2, s2)):
        r = settle(live, parse_cards(cards), parse_cards(dealer), Bets(**BETS),
                   Decision(ROUNDS[name][1][seat]))
        out[seat] = r.net
    return out


def cli(*args: str) -> dict | list:
    p = subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


class Shoe:
    """The simulated shoe on a transport; deals the script card by card."""

    def __init__(self, kind: str, dialect: str, tmp_path) -> None:
        script = " ".join(order for order, _ in ROUNDS.values()).split()
        self.shoe = SimulatedShoe(dialect, cards=script)
        if kind == "pty":
            port = PtyPort(str(tmp_path), dialect=dialect)
            self.url = port.stable_url
        else:
            port = TcpPort(dialect=dialect)
            self.url = port.url
        self.shoe.attach(port)
        self.names = [port.name]
        self.runner = ShoeRunner(self.shoe, heartbeat_ms=500)  # heartbeats only
        self.runner.start()

    def deal(self, n: int) -> None:
        for _ in range(n):
            assert self.shoe.deal() is not None

    def unplug_and_replug(self, daemon) -> None:
        self.shoe.inject("unplug", now=True)
        daemon.wait_for(r"round \d+ paused")
        new = self.shoe.inject("replug")
        self.names.append(new.name)

    def close(self) -> None:
        self.runner.stop()
        if self.shoe.port is not None:
            self.shoe.port.close()


@pytest.mark.parametrize("kind, dialect", [("pty", "native"), ("pty", "beetek"),
                                           ("tcp", "native")])
def test_a_whole_shift(kind, dialect, tmp_path, table_config, daemons):
    shoe = Shoe(kind, dialect, tmp_path)
    journal = str(tmp_path / "journal.sqlite3")
    args = ["--config", str(table_config), "--shoe", shoe.url, "--headless", "--autoplay",
            "--bets", json.dumps(BETS), "--control-stdin"]
    try:
        d = daemons(args)
        # READY and round 1's first line may come in either order: wait for the round

        def round_open(n: int) -> None:
            d.wait_for(rf"round {n} no_more_bets")

        # 1: a normal round; 2: seat 1 folds J-high (below Q-6-4)
        for n in (1, 2):
            round_open(n)
            shoe.deal(9)
            d.wait_for(rf"round {n}: dealer ")

        # 3: voided by a supervisor after four cards
        round_open(3)
        shoe.deal(4)
        d.wait_for("round 3: 4 cards dealt")
        d.send("void", reason="dealer error", pin=SUP)
        d.wait_for(r"round 3 VOID \(dealer error\)")

        # 4: the third card is a misread; the supervisor enters it by hand
        round_open(4)
        shoe.deal(2)
        shoe.shoe.inject("misread")
        d.wait_for(r"round 4 paused")
        d.send("manual_card", card="Kc", pin=SUP)
        d.wait_for("round 4: 3 cards dealt")
        shoe.deal(6)
        d.wait_for(r"round 4: dealer ")

        # 5: the shoe is unplugged after four cards and comes back under a new name
        round_open(5)
        shoe.deal(4)
        d.wait_for("round 5: 4 cards dealt")
        shoe.unplug_and_replug(d)
        d.wait_for(r"round 5 dealing")
        shoe.deal(5)
        d.wait_for(r"round 5: dealer ")

        # 6: SIGKILL after five cards; the restart recovers the round
        round_open(6)
        shoe.deal(5)
        d.wait_for("round 6: 5 cards dealt")
        d.kill()
        d = daemons(args)
        d.wait_for(r"round 6 paused")                 # rebuilt from the journal...
        d.wait_for("READY")                           # ...before the daemon is ready
        d.send("resume", pin=SUP)
        d.wait_for(r"round 6 dealing")
        shoe.deal(4)
        d.wait_for(r"round 6: dealer ")
        assert d.stop() == 0
    finally:
        shoe.close()
    if kind == "pty":
        assert len(set(shoe.names)) == 2  # replugged under another name

    recall = {r["round_id"]: r for r in cli("recall", "--journal", journal, "--last", "10",
                                                 "--json")}
    names = list(ROUNDS)
    for n, name in enumerate(names, start=1):
        r = recall[n]
        order, decisions = ROUNDS[name]
        dealt = [c for c, _, _ in r["deal"]]
        assert dealt == order.split(), (name, r["deal"])
        if decisions is None:
            assert r["status"] == "void" and r["void_reason"] == "dealer error"
            for seat in r["seats"]:
                assert all(x["outcome"] == "refund" and x["net"] == 0
                           for x in seat["results"].values())
            continue
        assert r["status"] == "settled", name
        assert {s["seat"]: s["decision"] for s in r["seats"]} == decisions
        assert {s["seat"]: s["net"] for s in r["seats"]} == expected_nets(name), name
    manual = [m for c, _, m in recall[4]["deal"]]
    assert manual == [False, False, True] + [False] * 6

    meters = cli("meters", "--journal", journal, "--json")
    assert meters["reconciled"] and not meters["problems"]
    settled = [name for name in names if ROUNDS[name][1] is not None]
    for seat in (1, 2):
        row = meters["rows"][f"seat {seat}"]
        assert row["paid"] - row["won"] == sum(expected_nets(n)[seat] for n in settled)
    total = meters["rows"]["total"]
    stakes = sum(BETS.values())
    assert total["refunded"] == 2 * stakes and total["voids"] == 2 * len(BETS)  # wagers
    # wagered counts the settled rounds' stakes; the void's stakes are refunded instead
    assert total["wagered"] == sum(
        2 * stakes + 100 * list(ROUNDS[n][1].values()).count("play") for n in settled)
    assert meters["counters"]["voids"] == 1 and meters["counters"]["misreads"] == 1
    assert meters["counters"]["power_ups"] == 2
    assert cli("recall", "--journal", journal, "--last", "1", "--json")[0]["round_id"] >= 6
