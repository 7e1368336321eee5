"""A bet is spelled once: in its declaration (controller/game/bet_types.py).

Every other module of the product names a bet through the declaration
(``bet_types.PAIR_PLUS``, ``bet_types.PAY_ORDER``). This test reads every string constant
of controller/, drivers/, display/, simulators/ and floor/ and finds none equal to a
bet's name outside the declaration, except where the word belongs to another
vocabulary, recognised by where it stands. Only ``play`` has one: a seat's decision
(Play or fold) and a button's style share the word with the Play bet. ``play`` is a
decision or a style, not a bet, where it is:

* in a collection (tuple, set, list, dict keys, ``Literal[...]``) beside ``fold``;
* compared with a ``decision``, ``decided`` or ``style``, or passed as ``decision=`` or
  ``style=``;
* the value of an enum member (:class:`~controller.game.settlement.Decision`);
* in one of the few places listed in :data:`OTHER_VOCABULARIES`, each with why.

Configuration keys and catalogue files are not Python and are not read here; a catalogue
key (``bet.pair_plus``) is not a bet's name and is built from the declared one.
"""

from __future__ import annotations

import ast

from literal_scan import REPO, Parents, is_enum, rel, sources, spelled, spelled_anywhere

from controller.game.bet_types import NAMES, PLAY

PACKAGES = ("controller", "drivers", "display", "simulators", "floor")
DECLARATION = "controller/game/bet_types.py"
#: (file, enclosing function or class, word) -> the vocabulary the word belongs to there
OTHER_VOCABULARIES = {
    ("display/outcome_mode.py", "mark_style", PLAY): "a button style",
    ("display/i18n.py", "Translator._param", PLAY): "a decision's value",
}
_DECISION_SUBJECTS = frozenset({"decision", "decided", "style"})
_OTHER_WORD = "fold"


def _subject(node: ast.AST) -> str | None:
    """The attribute, key or name an operand ends in (``seat.decision`` -> ``decision``)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    if isinstance(node, ast.Name):
        return node.id
    return None


def _beside_fold(node: ast.AST) -> bool:
    items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", ())
    return any(isinstance(x, ast.Constant) and x.value == _OTHER_WORD for x in items)


def _not_a_bet(node: ast.Constant, parents: Parents) -> bool:
    """True where ``play`` stands as a decision or a style (the rules of the module doc)."""
    if node.value != PLAY:
        return False
    up = parents.get(node)
    while isinstance(up, ast.IfExp):  # decision="play" if ... else "fold"
        up = parents.get(up)
    if isinstance(up, (ast.Tuple, ast.Set, ast.List, ast.Dict)) and _beside_fold(up):
        return True
    if isinstance(up, ast.keyword) and up.arg in _DECISION_SUBJECTS:
        return True
    if isinstance(up, ast.Compare) and any(
            _subject(x) in _DECISION_SUBJECTS for x in (up.left, *up.comparators)):
        return True
    owner = parents.get(up) if up is not None else None
    return isinstance(up, ast.Assign) and isinstance(owner, ast.ClassDef) and is_enum(owner)


def bet_literals(rel_path: str, text: str) -> list[tuple[str, int, str, str]]:
    """(file, line, enclosing scope, word) of each bet name spelled in a module.

    Args:
        rel_path: the module's path from the repository's root.
        text: its source.
    """
    return spelled(rel_path, text, NAMES, _not_a_bet, OTHER_VOCABULARIES)


def test_no_bet_name_is_spelled_outside_its_declaration():
    found = [hit for p in sources(PACKAGES) if rel(p) != DECLARATION
             for hit in bet_literals(rel(p), p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_scan_finds_a_bet_name_where_one_is_spelled():
    # the scan is not blind: the declaration spells every name, a module that reads a
    # seat's Play or keys a table on a bet is caught, a decision and a style are not
    declared = {w for *_, w in bet_literals(
        DECLARATION, (REPO / DECLARATION).read_text(encoding="utf-8"))}
    assert declared == set(NAMES)
    hits = bet_literals("controller/probe.py", (
        'def f(seat, decision):\n'
        '    if decision == "play" or seat.style == "play":\n'
        '        return seat.bets["play"], Decide(decision="play"), ("play", "fold")\n'
        '    return {"pair_plus": 1}, ("ante", "play"), [b for b in seat if b != "ante_bonus"]\n'
        'class Decision(enum.Enum):\n    PLAY = "play"\n'))
    assert [(w, where) for _, _, where, w in hits] == [
        ("play", "f"), ("ante", "f"), ("ante_bonus", "f"), ("pair_plus", "f"), ("play", "f")]


def test_every_exception_still_names_a_word_that_is_spelled_there():
    # an entry left behind after its code changed would silently allow a bet name
    assert {(f, w) for f, _, w in OTHER_VOCABULARIES} <= spelled_anywhere(PACKAGES, NAMES)
