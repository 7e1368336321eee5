import json
import subprocess
import sys

EXAMPLE = ('{"player": ["As","Ks","Qs"], "dealer": ["2c","3d","5h"], '
           '"bets": {"ante": 100, "pair_plus": 10, "six_card_bonus": 10}, "decision": "play"}')


def run(lines, *args):
    p = subprocess.run([sys.executable, "-m", "controller.cli", "settle", *args],
                       input="\n".join(lines) + "\n", capture_output=True, text=True,
                       timeout=60)
    return p.returncode, [json.loads(x) for x in p.stdout.splitlines()]


def test_example_line_of_the_issue():
    rc, out = run([EXAMPLE])
    assert rc == 0
    r = out[0]
    assert r["player_hand"] == "straight_flush" and r["dealer_hand"] == "high_card"
    assert r["dealer_qualifies"] is False
    # As Ks Qs 2c 3d 5h: the best five is A-K-Q-5-3, no flush (three spades only)
    assert r["six_card_hand"] == "high_card"
    assert r["results"] == {"play": {"outcome": "push", "net": 0},
                            "ante_bonus": {"outcome": "win", "net": 500},
                            "ante": {"outcome": "win", "net": 100},
                            "pair_plus": {"outcome": "win", "net": 1000},
                            "six_card_bonus": {"outcome": "lose", "net": -10}}
    assert list(r["results"]) == ["play", "ante_bonus", "ante", "pair_plus", "six_card_bonus"]
    assert r["net"] == 1590


def test_bad_lines_are_reported_in_place_and_the_rest_settled():
    fold = ('{"player": ["2c","7d","9h"], "dealer": ["Qc","3d","5h"], '
            '"bets": {"ante": 100}, "decision": "fold"}')
    lines = [
        EXAMPLE,
        "{not json",
        EXAMPLE.replace('"Ks"', '"Xs"'),
        EXAMPLE.replace('"Ks"', '"As"'),
        EXAMPLE.replace('"As","Ks","Qs"', '"As","Ks"'),
        EXAMPLE.replace(', "decision": "play"', ""),
        fold,
    ]
    rc, out = run(lines)
    assert rc == 1 and len(out) == len(lines)
    assert out[0]["net"] == 1590
    for n in range(2, 7):
        assert out[n - 1]["line"] == n and out[n - 1]["error"]
    assert "Xs" in out[2]["error"]
    assert "twice" in out[3]["error"]
    assert "3 cards" in out[4]["error"]
    assert "decision" in out[5]["error"]
    assert out[6] == {"player_hand": "high_card", "dealer_hand": "high_card",
                      "dealer_qualifies": True, "six_card_hand": "high_card",
                      "results": {"ante": {"outcome": "lose", "net": -100}}, "net": -100}


def test_limits_only_when_asked():
    small = EXAMPLE.replace('"ante": 100', '"ante": 1')
    assert run([small])[0] == 0
    rc, out = run([small], "--limits")
    assert rc == 1 and "limits" in out[0]["error"]


def test_hostile_lines_are_errors_in_place_not_tracebacks():
    lines = ["[" * 100_000,
             EXAMPLE.replace('"ante": 100', '"ante": ' + "1" * 5000),
             EXAMPLE]
    rc, out = run(lines)
    assert rc == 1 and len(out) == 3
    assert "nested too deeply" in out[0]["error"] and out[0]["line"] == 1
    assert "too long" in out[1]["error"] and out[1]["line"] == 2
    assert out[2]["net"] == 1590
