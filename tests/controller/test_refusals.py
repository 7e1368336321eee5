"""Refusals carry a code and typed parameters; the screens write them in words.

The journal keeps the English reason every version wrote (older journals replay to the
same rejections); the dealer screen and the control channel write the refusal in the
screen's language, money with the table's currency, bets and commands by their names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pygame
import pytest

from controller.game.inputs import PlaceBet
from controller.game.refusals import BET_ERRORS, KINDS, REFUSALS, Refusal
from controller.game.round import Rejected
from display.i18n import LANGUAGES, MESSAGES, Translator

GAME = Path(__file__).resolve().parents[2] / "controller" / "game"
MINOR = 123456
"""The sample amount: 1,234.56 in a currency of two digits; never shown as 123456."""
SAMPLES = {"money": MINOR, "seat": 6, "number": 7, "seats": (1, 3), "bet": "six_card_bonus",
           "command": "no_more_bets", "state": "no_more_bets", "decision": "fold",
           "card": "Qh", "setting": "lockout_seconds", "text": "Zz"}


def _sample(code: str) -> Refusal:
    kind = REFUSALS[code]
    params = {name: SAMPLES[k] for name, k in kind.params.items()}
    if code in BET_ERRORS:
        params["seat"] = 6
    return Refusal(code, params)


def test_every_refusal_the_game_core_raises_is_declared_with_its_parameters():
    """Each ``Rejected("code", ...)`` and ``BetError("code", ...)`` names a declared code
    with exactly its declared parameters: a refusal that would read as code cannot slip in."""
    assert set(SAMPLES) == set(KINDS)
    raised = set()
    for path in sorted(GAME.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("Rejected", "BetError") and node.args):
                continue
            first = node.args[0]
            if isinstance(first, ast.IfExp):
                codes = [first.body, first.orelse]
            elif isinstance(first, ast.Constant):
                codes = [first]
            else:
                continue  # a bet error passed on with its own code and parameters
            for c in codes:
                code = c.value
                assert code in REFUSALS, f"{path.name}:{node.lineno}: undeclared {code!r}"
                raised.add(code)
                given = {k.arg for k in node.keywords}
                declared = set(REFUSALS[code].params)
                if node.func.id == "BetError":  # its second argument is the bet concerned
                    assert len(node.args) == 2 or "bet" not in declared
                    given |= {"bet"} & declared
                assert given == declared, f"{path.name}:{node.lineno}: {code}"
    # "fault" is the engine's own (a crash while applying), never raised by a handler; an
    # input failing its declaration is refused by the table before the game sees it
    assert set(REFUSALS) - raised == {"fault", "pin_digits", "input_invalid"}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_every_refusal_reads_as_words_in_every_language(code, lang):
    tr = Translator(lang)
    refusal = _sample(code)
    text = tr.refusal(refusal)
    assert text and "_" not in text and "{" not in text, text
    assert str(MINOR) not in text  # no raw minor units
    kind = REFUSALS[code]
    for name, k in kind.params.items():
        if k == "money":
            assert tr.money(MINOR) in text, text
        elif k == "bet":
            assert tr.bet(SAMPLES["bet"]) in text, text
        elif k == "command":
            assert tr(f"command.{SAMPLES['command']}") in text, text
        elif k in ("seat", "number") and f"{{{name}}}" in MESSAGES["en"][f"refusal.{code}"]:
            assert str(SAMPLES[k]) in text
    if code in BET_ERRORS:
        assert text.startswith(tr("refusal.seat", seat=6, text="").strip()), text
    if lang != "en":  # translated, not the English left in place
        assert text != Translator("en").refusal(refusal)


def test_the_example_from_the_floor_reads_in_words():
    r = Refusal("above_maximum", {"seat": 6, "bet": "six_card_bonus", "amount": 5000,
                                  "maximum": 2500})
    assert r.journal_text() == "seat 6: six_card_bonus 5000 is above the table maximum 2500"
    assert Translator("en").refusal(r) == ("Seat 6: 6 Card Bonus 50.00 is above the table "
                                          "maximum 25.00")
    assert Translator("fr").refusal(r) == ("Place 6 : Bonus 6 cartes 50,00 dépasse le maximum "
                                          "de la table 25,00")
    assert Translator("uk").refusal(r) == ("Місце 6: Бонус 6 карт 50,00 більше за максимум "
                                          "столу 25,00")
    assert Translator("fr").refusal(r, "JPY") == ("Place 6 : Bonus 6 cartes 5\u202f000 dépasse "
                                                 "le maximum de la table 2\u202f500")


def test_a_refusal_in_plain_english_is_shown_as_it_is():
    exc = Rejected("the croupier went home")
    assert str(exc) == "the croupier went home"
    assert Translator("fr").refusal(exc.refusal) == "the croupier went home"


def test_a_refusal_survives_the_banner_as_text_and_comes_back_typed():
    r = Refusal("seats_undecided", {"seats": (1, 3)})
    back = Refusal.from_params(r.as_params())
    assert back == r and back.journal_text() == "seats still to decide: 1, 3"
    r = _sample("outside_limits")
    assert Refusal.from_params(r.as_params()) == r


def test_the_table_refuses_with_a_code_and_the_screen_writes_it(make_shift):
    """A real table: the verdict and the banner carry the code; the dealer screen shows words
    with formatted money in each language (never ``six_card_bonus 5000``), beside its large
    button."""
    from display.dealer import DealerScreen
    from display.theme import FontBook

    s = make_shift(seats=2, currency="EUR")
    (v,) = s.do(PlaceBet(seat=2, bet="six_card_bonus", amount=5000))
    assert not v.accepted
    assert v.reason == "seat 2: six_card_bonus 5000 is above the table maximum 2500"
    assert v.refusal == Refusal("above_maximum", {"seat": 2, "bet": "six_card_bonus",
                                                  "amount": 5000, "maximum": 2500})
    (banner,) = [b for b in s.view.banners if b.kind == "rejected"]
    assert banner.params["code"] == "above_maximum" and banner.params["currency"] == "EUR"
    pygame.display.init()
    pygame.font.init()
    fonts = FontBook()
    for lang in LANGUAGES:
        tr = Translator(lang)
        frame = DealerScreen(fonts, lang).draw(pygame.Surface((1920, 1080)), s.view)
        shown = " ".join(t.text for t in frame.texts if t.role.startswith("refusal"))
        assert tr.refusal(v.refusal) in shown, shown
        assert "_" not in shown and "5000" not in shown and tr.money(5000) in shown
