"""Burn cards on the running daemon: a simulated Bee-Tek shoe on a pseudo-terminal, one
burn configured, the dealer's bets and decisions automatic.

The shoe flags the burn itself (a card read in burn mode, and an unreadable one:
``[Manual Burn Cards]<Game>``), or the dealer burns in game mode; another unreadable
burn comes mid-deal. Every round must settle with the hands dealt after the burn, with
no pause and no void; game recall lists the burns in deal order.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from shoe_rig import shoe_on_pty

from controller.game.auth import hash_pin
from controller.game.cards import parse_cards
from controller.game.rules import load_profile
from controller.game.settlement import Bets, Decision, settle
from simulators.runner import ShoeRunner

SUP = "2468"
BETS = {"ante": 100}
# round robin, 2 seats: seat 1, seat 2, dealer, three passes (after the burn)
ROUNDS = [
    # (burn, hand cards in deal order, decisions by Q-6-4)
    ("9s", "Ah 7s Qh Kd 7d 5s 9c 2c 3d", {1: "play", 2: "play"}),  # flagged, burn mode
    ("4h", "Jc Ks 9d 8h Qd 6c 3s 4c 2h", {1: "fold", 2: "play"}),  # flagged, unreadable
    ("Tc", "Ac 2s Kc Ad 3c Jh 4s 9h 5d", {1: "play", 2: "fold"}),  # game mode: the burn
    ("8c", "9s Qc As Ts Qs 8d Js 2d 4d", {1: "play", 2: "play"}),  # + 7c unreadable mid-deal
]


def cli(*args: str):
    p = subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def expected(order: str, decisions: dict[int, str]):
    """Seat cards, dealer cards and what the rules pay each seat (the tested settlement)."""
    c = order.split()
    seats = {1: c[0::3], 2: c[1::3]}
    dealer = c[2::3]
    live = load_profile("live")
    nets = {s: settle(live, parse_cards(cards), parse_cards(dealer), Bets(**BETS),
                      Decision(decisions[s])).net for s, cards in seats.items()}
    return seats, dealer, nets


def test_burns_on_the_running_daemon(tmp_path, daemons):
    config = tmp_path / "table.toml"
    journal = tmp_path / "journal.sqlite3"
    config.write_text(
        '[table]\nid = "BURN-1"\nseats = 2\nrules = "live"\nburn_cards = 1\n'
        f'[journal]\npath = "{journal}"\n'
        f'[roles]\nsupervisor = "{hash_pin(SUP)}"\n'
        '[log]\nlevel = "debug"\n')
    script = []
    for n, (burn, order, _) in enumerate(ROUNDS):
        cards = order.split()
        script += [burn, *cards[:3], "7c", *cards[3:]] if n == 3 else [burn, *cards]
    shoe, port = shoe_on_pty("beetek", tmp_path, cards=script)
    runner = ShoeRunner(shoe)
    runner.start()
    args = ["--config", str(config), "--shoe", port.stable_url, "--headless", "--autoplay",
            "--bets", json.dumps(BETS), "--control-stdin"]
    try:
        d = daemons(args)
        for n in range(1, len(ROUNDS) + 1):
            d.wait_for(rf"round {n} no_more_bets")
            if n in (1, 4):
                shoe.inject("burn")
                shoe.deal()
            elif n == 2:
                shoe.inject("misread", burn=True)
            else:
                shoe.deal()                              # game mode
            d.wait_for(rf"round {n} dealing")
            if n == 4:
                for _ in range(3):
                    shoe.deal()
                shoe.inject("misread", burn=True)
            while len(shoe.dealt) < _dealt_by(n):
                assert shoe.deal() is not None
            d.wait_for(rf"round {n}: dealer ")
        assert d.stop() == 0
    finally:
        runner.stop()
        if shoe.port is not None:
            shoe.port.close()
    log = "\n".join(d.lines)
    assert not re.search(r"round [1-4] paused|VOID|misread|extra_card", log), log

    recall = {r["round_id"]: r for r in cli("recall", "--journal", str(journal), "--json")}
    for n, (burn, order, decisions) in enumerate(ROUNDS, start=1):
        r = recall[n]
        seats, dealer, nets = expected(order, decisions)
        assert r["status"] == "settled", r
        assert {s["seat"]: s["decision"] for s in r["seats"]} == decisions
        assert {s["seat"]: s["cards"] for s in r["seats"]} == seats
        assert r["dealer_cards"] == dealer
        assert {s["seat"]: s["net"] for s in r["seats"]} == nets
        deal = [tuple(x[:2]) for x in r["deal"]]
        assert deal[0] == ((None if n == 2 else burn), "burn")
        if n == 4:
            assert deal[4] == (None, "burn")             # the unreadable burn mid-deal
        assert [c for c, pos in deal if pos != "burn"] == order.split()
    meters = cli("meters", "--journal", str(journal), "--json")
    assert meters["reconciled"]
    counters = meters["counters"]
    assert counters.get("unreadable_burns") == 2 and "misreads" not in counters
    assert "voids" not in counters


def _dealt_by(n: int) -> int:
    """Cards out of the shoe at the end of round ``n`` (misreads count as cards out)."""
    return sum(10 + (i == 3) for i in range(n))
