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


# -- the declared reading (msgspec) answers every line as the full check does ------------

def _json_value():
    from hypothesis import strategies as st

    return st.one_of(st.none(), st.booleans(), st.integers(-5, 10**20), st.floats(
        allow_nan=False), st.text(max_size=4), st.lists(st.integers(0, 3), max_size=2))


def _lines():
    from hypothesis import strategies as st

    from controller.game.cards import DECK

    texts = st.sampled_from([str(c) for c in DECK] + ["AS", "as", "10h", " As", "Xs", "", "1"])
    cards = st.lists(texts, min_size=2, max_size=4)
    dealt = st.permutations([str(c) for c in DECK]).map(lambda d: (d[:3], d[3:6]))
    amounts = st.one_of(st.integers(0, 3000), _json_value())
    bets = st.dictionaries(st.sampled_from(["ante", "pair_plus", "six_card_bonus", "play",
                                            "banker"]), amounts, max_size=4)
    decision = st.sampled_from(["play", "fold", None, "PLAY", 1, "missing"])

    @st.composite
    def line(draw):
        player, dealer = draw(dealt)
        if draw(st.booleans()):
            player = draw(cards)
        if draw(st.booleans()):
            dealer = draw(st.one_of(cards, _json_value()))
        obj = {"player": player, "dealer": dealer, "bets": draw(st.one_of(bets, _json_value()))}
        d = draw(decision)
        if d != "missing":
            obj["decision"] = d
        if draw(st.integers(0, 9)) == 0:
            obj[draw(st.sampled_from(["extra", "player", "bets"]))] = draw(_json_value())
        text = json.dumps(obj)
        return draw(st.sampled_from([text, text, text, text[:-3], "[" + text + "]", "  ",
                                     text.replace(" ", "")]))

    return st.lists(line(), min_size=1, max_size=8)


def test_the_declared_reading_answers_every_line_as_the_full_check_does():
    """Each line is read by its msgspec declaration first; what that reading settles or
    refuses must be, to the byte, what the full check (settle_line) answers."""
    import io

    from hypothesis import given, settings

    from controller.game.cards import CardError, parse_cards
    from controller.game.hands import best_five_of_six, evaluate3
    from controller.game.rules import load_profile
    from controller.game.settlement import BetError
    from controller.settle_cli import InputError, settle_line, settle_stream

    profile = load_profile("live")

    @settings(max_examples=100, deadline=None)
    @given(_lines())
    def check(lines):
        data = "\n".join(lines).encode() + b"\n"
        for limits in (False, True):
            out = io.BytesIO()
            bad = settle_stream(profile, io.BytesIO(data), out, limits)
            want, errors = [], 0
            for n, raw in enumerate(io.BytesIO(data), start=1):
                text = raw.decode()
                if not text.strip():
                    continue
                try:
                    want.append(json.dumps(settle_line(profile, text, limits)))
                except (InputError, CardError, BetError) as exc:
                    want.append(json.dumps({"error": str(exc), "line": n}))
                    errors += 1
            got = out.getvalue().decode().splitlines()
            assert got == want
            assert bad == errors
            for text, answer in zip([t for t in lines if t.strip()], got, strict=True):
                answer = json.loads(answer)
                if "error" not in answer:   # the hands named as the evaluator names them
                    obj = json.loads(text)
                    player, dealer = parse_cards(obj["player"]), parse_cards(obj["dealer"])
                    assert answer["player_hand"] == evaluate3(player).hand_class.key
                    assert answer["dealer_hand"] == evaluate3(dealer).hand_class.key
                    assert answer["six_card_hand"] == best_five_of_six(player + dealer).key

    check()


def test_lines_read_together_answer_as_each_line_read_alone():
    """Lines arriving in pieces of any size, many at once, with a line of two rounds, a
    blank line, CRLF ends, a duplicated card and a bet under the limits among them: each
    answer, and each error's line number, is what that line alone gives."""
    import io
    import random

    from controller.game.cards import DECK, CardError
    from controller.game.rules import load_profile
    from controller.game.settlement import BetError
    from controller.settle_cli import InputError, settle_line, settle_stream

    rng = random.Random(5)
    lines = []
    for i in range(3000):
        cards = [str(c) for c in rng.sample(DECK, 6)]
        lines.append(json.dumps({"player": cards[:3], "dealer": cards[3:],
                                 "bets": {"ante": rng.choice([100, 200]) if i != 2500 else 1,
                                          "pair_plus": 100},
                                 "decision": rng.choice(["play", "fold"])}))
    lines[700] = lines[700] + ", " + lines[701]
    lines[1500] = ""
    lines[2100] = lines[2100].replace(json.loads(lines[2100])["dealer"][0],
                                      json.loads(lines[2100])["player"][0])
    lines[2900] = lines[2900] + "\r"
    data = "\n".join(lines).encode()  # and no newline after the last line

    class Pipe(io.BytesIO):
        def read1(self, size=-1):
            return super().read1(min(size, rng.randint(1, 50_000)))

    profile = load_profile("live")
    for limits in (False, True):
        out = io.BytesIO()
        bad = settle_stream(profile, Pipe(data), out, limits)
        want = []
        for n, text in enumerate(lines, start=1):
            if text.strip():
                try:
                    want.append(json.dumps(settle_line(profile, text, limits)))
                except (InputError, CardError, BetError) as exc:
                    want.append(json.dumps({"error": str(exc), "line": n}))
        assert out.getvalue().decode().splitlines() == want
        assert bad == sum('"error"' in w for w in want) == 2 + limits
