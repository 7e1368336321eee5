"""Outcome mode driven by touches: two 5-seat rounds on a real daemon, every dealer step a
FINGERDOWN on the real dealer screen, played from an input script.

Where each touch lands is read from the real dealer screen drawn, at the daemon's size,
from the views a real table publishes in the same state (the button the dealer sees).
The test prints how many touches each round took; the journal must hold the marks,
decisions and outcomes those touches asked for, as the rules settle them.
"""

from __future__ import annotations

import json

import pygame
import pytest

from controller.game import recall as rc
from controller.game.auth import demo_pin_hashes
from controller.game.cards import parse_cards
from controller.game.config import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.inputs import Decide, MarkBet, NextRound, NoMoreBets, Rebet, Reveal, Settle
from controller.game.rules import load_profile
from controller.game.settlement import Decision, settle_outcomes
from controller.game.table import Table
from display.app import DEFAULT_SIZES
from display.dealer import DealerScreen
from display.theme import FontBook

SEATS = 5
MARKS = {1: ("ante", "pair_plus"), 2: ("ante",), 3: ("ante", "six_card_bonus"), 4: ("ante",),
         5: ("ante", "pair_plus")}
# round robin, seats 1-5 then the dealer, three passes (a fresh deck each round)
HANDS_1 = {1: "Ah Kh Qh", 2: "7c 7d 2s", 3: "4s 9d Jc", 4: "5h 6h 7s", 5: "Qc Qd Qs",
           0: "Kd Ks 8c"}
HANDS_2 = {1: "2c 3c 4c", 2: "5d 9h Jd", 3: "Td Tc 3s", 4: "As 8h 6d", 5: "Kc 9s 2h",
           0: "Qh Jh 4h"}
FOLDS = {1: 3, 2: 2}                                  # round -> the seat that folds


def deal_order(hands: dict[int, str]) -> list[str]:
    split = {k: v.split() for k, v in hands.items()}
    return [split[s][i] for i in range(3) for s in (*range(1, SEATS + 1), 0)]


@pytest.fixture(scope="module")
def taps(tmp_path_factory):
    """Where each button is, as fractions of the dealer window, state by state: the real
    screen drawn from a real table's views at the daemon's dealer size."""
    pygame.display.init()
    pygame.font.init()
    size = DEFAULT_SIZES["dealer"]
    screen = DealerScreen(FontBook(), "en")
    surface = pygame.Surface(size)
    path = tmp_path_factory.mktemp("layout") / "journal.sqlite3"
    t = Table(path, TableConfig(seats=SEATS, bet_entry="outcomes",
                                pin_hashes=demo_pin_hashes()))
    out: dict[str, dict[str, tuple[float, float]]] = {}

    def at(name: str) -> None:
        frame = screen.draw(surface, t.views()[0])
        out[name] = {b.id: (round(b.rect.centerx / size[0], 4),
                            round(b.rect.centery / size[1], 4))
                     for b in frame.buttons if b.enabled}

    def cards(hands):
        return [CardRead(card=c, code=c) for c in deal_order(hands)]

    t.process([LinkStatus(state=LinkState.ONLINE)])
    at("betting")
    t.process([MarkBet(seat=s, bet=b) for s, bets in MARKS.items() for b in bets])
    at("marked")
    t.process([NoMoreBets(), *cards(HANDS_1)])
    at("deciding")
    t.process([Decide(seat=FOLDS[1], decision="fold")])
    at("folded")
    t.process([Decide(seat=s, decision="play") for s in range(1, SEATS + 1) if s != FOLDS[1]])
    t.process([Reveal()])
    at("reveal")
    t.process([Settle()])
    at("settled")
    t.process([NextRound()])
    at("betting again")
    t.process([Rebet(seat=0)])
    at("rebet")
    t.close()
    return out


def tap(where: tuple[float, float]) -> str:
    return json.dumps({"tap": list(where)})


def test_two_outcome_rounds_by_touch(daemons, tmp_path, taps, scripted_shoe, journal_events):
    closing = [tap(taps["reveal"]["primary"])]                                      # settle
    next_round = [tap(taps["settled"]["all_paid"])]               # all paid and next round
    bets = {  # round 1: every bet marked by a touch on its line; round 2: the same, one touch
        1: [tap(taps["betting"][f"seat.{s}.bet.{b}"]) for s, bets in MARKS.items()
            for b in bets] + [tap(taps["marked"]["primary"])],           # No more bets
        2: [tap(taps["betting again"]["rebet_all"]), tap(taps["rebet"]["primary"])]}
    decide = {n: [tap(taps["deciding"][f"seat.{FOLDS[n]}.fold"]),  # one fold, the rest
                  tap(taps["folded"]["primary"])] for n in (1, 2)}  # play and reveal
    rounds = {n: bets[n] + decide[n] + closing + next_round for n in (1, 2)}
    lines = []
    for n in (1, 2):  # the shoe deals while the script waits for the decisions
        lines += [*bets[n], '{"wait": 90, "until": "deciding"}', *decide[n], *closing,
                  f'{{"screenshot": "round{n}.png"}}', *next_round]
    script = tmp_path / "outcomes.jsonl"
    script.write_text("\n".join(lines) + "\n")
    config = tmp_path / "table.toml"
    journal = tmp_path / "journal.sqlite3"
    config.write_text(f'[table]\nid = "OUT-1"\nseats = {SEATS}\nbet_entry = "outcomes"\n'
                      f'[journal]\npath = "{journal}"\n[log]\nlevel = "debug"\n')
    shoe = scripted_shoe(" ".join(deal_order(HANDS_1) + deal_order(HANDS_2)))
    d = daemons(["--config", str(config), "--shoe", shoe.url, "--headless",
                 "--input-script", str(script)])
    for n in (1, 2):
        d.wait_for(rf"round {n} no_more_bets", timeout=120)
        shoe.deal(3 * (SEATS + 1))
    d.wait_for(rf"input script .*: done, {len(lines)} steps played", timeout=180)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]
    # the round's log line gives outcomes, not amounts (rules: A-K-Q suited beats K-K-8;
    # Ante Bonus straight flush 5 to 1, Pair Plus mini royal 100 to 1)
    assert [x for x in d.lines if "round 1: dealer Kd Ks 8c pair (qualifies) | seat 1 Ah Kh "
            "Qh straight flush play pays 1 to 1, ante_bonus pays 5 to 1, ante pays 1 to 1, "
            "pair_plus pays 100 to 1 |" in x]
    for n, touches in rounds.items():
        print(f"outcome mode, {SEATS} seats, round {n} "
              f"({'every bet marked' if n == 1 else 'bets repeated'}): {len(touches)} touches")
    assert len(rounds[2]) <= 8
    assert len(rounds[2]) - 1 <= 5  # five touches and one for the fold

    # the journal holds what the touches asked for, by the dealer
    cmds = [(k, a, b) for k, a, b in journal_events(journal) if a not in ("shoe", "system")]
    assert {(b["seat"], b["bet"]) for k, _, b in cmds if k == "mark_bet"} == {
        (s, b) for s, bets in MARKS.items() for b in bets}
    assert all(a == "dealer" for _, a, _ in cmds)
    assert [k for k, _, _ in cmds].count("rebet") == 1
    live = load_profile("live")
    recalled = {r["round_id"]: r for r in rc.recall(journal, 3)}
    for n, hands in ((1, HANDS_1), (2, HANDS_2)):
        rec = recalled[n]
        assert rec["status"] == "settled" and rec["bet_entry"] == "outcomes"
        dealer = parse_cards(hands[0].split())
        for seat in rec["seats"]:
            s = seat["seat"]
            decision = Decision.FOLD if s == FOLDS[n] else Decision.PLAY
            assert seat["decision"] == decision.value
            want = settle_outcomes(live, parse_cards(hands[s].split()), dealer, MARKS[s],
                                   decision)
            assert {b: (r["outcome"], r["multiple"]) for b, r in seat["results"].items()} == {
                r.bet: (r.outcome.value, r.multiple) for r in want.results}, (n, s)
    report = rc.meters(journal)
    assert report.reconciled and report.rows == {} and report.outcomes["rounds settled"] == 2
    for name in ("round1.png", "round2.png"):
        assert pygame.image.load(str(tmp_path / name)).get_size() == DEFAULT_SIZES["dealer"]
