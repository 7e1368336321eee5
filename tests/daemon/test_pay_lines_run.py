"""Both screens name the paytable line each big pay was paid on, and list refunds in pay order.

A real daemon (``threecard run``, headless, the live rules: Pair Plus and 6 Card Bonus)
plays two rounds from an input script of the dealer's keys, a simulated shoe on TCP
dealing the cards. The script's screenshots write the texts each screen drew beside the
picture (``"texts": true``), and the test reads those.

Round 1: seat 1 holds A-K-Q of hearts with a Pair Plus bet (the live paytable's "Mini
royal" line, 100 to 1); seat 2 holds a high card whose six cards with the dealer's make a
9-high straight flush (the 6 Card Bonus's "Straight flush" line, 200 to 1). Round 2 is
voided by the supervisor after seat 1 played: every bet refunded, Play first, in the
rules' pay order (Play, Ante, Pair Plus) on both screens, not in the order they were
placed (Ante, Pair Plus, Play).
"""

from __future__ import annotations

import json

from controller.game.auth import DEMO_PINS
from display.i18n import MESSAGES

SUP = DEMO_PINS["supervisor"]

# round-robin, seat 1, seat 2, dealer, three times
ROUND_1 = "Ah 9s 7s Kh 8s 6s Qh 2h 5s"  # 1: Ah Kh Qh; 2: 9s 8s 2h; dealer: 7s 6s 5s
ROUND_2 = "2c 3c 4c 5d 6d 8d 9c Tc Jc"


def texts(path) -> list[dict]:
    """The texts a screenshot step wrote beside its picture."""
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def seat_texts(drawn: list[dict], seat: int) -> list[dict]:
    """The texts drawn in a seat's place (its results, hand, lines), in drawing order."""
    return [t for t in drawn if t["role"].startswith(f"seat.{seat}.")]


def bets_named(drawn: list[dict], seat: int) -> list[str]:
    """The bets a seat's lines name, in the order drawn (full or short names)."""
    en = MESSAGES["en"]
    names = {en[f"{k}.{b}"]: b for b in ("ante", "play", "pair_plus", "six_card_bonus")
             for k in ("bet", "short")}
    return [names[t["text"]] for t in seat_texts(drawn, seat) if t["text"] in names]


def test_the_big_pays_are_named_and_refunds_come_in_pay_order_on_both_screens(
        daemons, table_config, tmp_path, scripted_shoe):
    shots = [f'{{"screenshot": "{n}-{s}.png", "screen": "{s}", "texts": true}}'
             for n in ("settled", "void") for s in ("dealer", "player")]
    script = tmp_path / "pays.jsonl"
    script.write_text("\n".join([
        "# round 1: seat 1 Ante and Pair Plus, seat 2 Ante and 6 Card Bonus (chip 1.00)",
        '{"keys": "1 F1 A P"}', '{"keys": "2 A X"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}', '{"keys": "1 Y Y"}', '{"key": "R"}',
        '{"key": "S"}', '{"wait": 60, "until": "settled"}', *shots[:2],
        '{"key": "A"}', '{"key": "Enter"}',
        "# round 2: the same bets, seat 1 plays, then the supervisor voids the round",
        '{"keys": "1 A P"}', '{"keys": "2 A X"}', '{"key": "N"}',
        '{"wait": 60, "until": "deciding"}', '{"keys": "1 Y"}',
        '{"screenshot": "decided.png"}', '{"wait": 60, "until": "void"}', *shots[2:]])
        + "\n")
    shoe = scripted_shoe(f"{ROUND_1} {ROUND_2}")
    d = daemons(["--config", str(table_config), "--shoe", shoe.url, "--headless",
                 "--control-stdin", "--input-script", str(script)])
    d.wait_for(r"round 1 no_more_bets", timeout=60)
    shoe.deal(9)
    d.wait_for(r"round 2 no_more_bets", timeout=120)
    shoe.deal(9)
    d.wait_for(r"screenshot .*decided\.png", timeout=60)
    d.send("void", reason="dealer error", pin=SUP)
    d.wait_for(r"input script .*pays.jsonl: done, 21 steps played", timeout=120)
    assert d.stop() == 0
    assert not [x for x in d.lines if "Traceback" in x or "script stops" in x]

    for screen in ("dealer", "player"):
        drawn = texts(tmp_path / f"settled-{screen}.jsonl")
        one, two = seat_texts(drawn, 1), seat_texts(drawn, 2)
        # each hand keeps its name; the paytable line that paid is named beside it
        assert "Straight flush" in [t["text"] for t in one if t["role"].endswith(".hand")]
        assert "High card" in [t["text"] for t in two if t["role"].endswith(".hand")]
        one_text = " ".join(t["text"] for t in one)
        two_text = " ".join(t["text"] for t in two)
        # both screens are 1000 px wide or more: odds in words, as on the rest of the screen
        assert "Mini royal" in one_text and "100 to 1" in one_text, (screen, one_text)
        assert "Straight flush" in two_text and "200 to 1" in two_text, (screen, two_text)
        assert not [t for t in one + two if t["cut"]], screen
        # the refunds of the voided round in pay order, Play first
        void = texts(tmp_path / f"void-{screen}.jsonl")
        assert bets_named(void, 1) == ["play", "ante", "pair_plus"], screen
        assert bets_named(void, 2) == ["ante", "six_card_bonus"], screen
