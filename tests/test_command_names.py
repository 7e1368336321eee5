"""A dealer command is spelled once: in its declaration (controller/game/inputs.py).

Every other module, the dealer screen, the control parser, the journal encoder and
decoder, replay and the role check included, names a command through its declaration
(``VoidRound.name``). This test reads every string constant of controller/ and display/
and finds none equal to a command's name outside the declaration, except where the same
word belongs to another vocabulary, recognised by where it stands:

* the value of an enum member: :class:`RoundState` declares the states ``void``,
  ``no_more_bets`` and ``reveal``;
* compared with a round's ``state`` or ``status`` (``view.state == "void"``,
  ``rec["status"] in ("settled", "void")``) or a banner's ``kind``;
* the few places listed in :data:`OTHER_VOCABULARIES`, each with the word it uses and why
  (a sub-command, a configuration key, a policy value).
"""

from __future__ import annotations

import ast

from literal_scan import REPO, Parents, is_enum, rel, sources, spelled, spelled_anywhere

from controller.game.inputs import COMMAND_NAMED

PACKAGES = ("controller", "display")
DECLARATION = "controller/game/inputs.py"
#: (file, enclosing function or class, word) -> the vocabulary the word belongs to there
OTHER_VOCABULARIES = {
    ("controller/cli.py", "<module>", "settle"): "the `threecard settle` sub-command",
    ("controller/game/config.py", "<module>", "exposed_card"):
        "the configuration file's key [table] exposed_card",
    ("controller/game/config.py", "<module>", "void"): "an exposed-card policy value",
    ("controller/game/config.py", "TableConfig", "exposed_card"):
        "the configuration file's key [table] exposed_card",
    ("controller/game/dealing.py", "on_exposed_card", "void"):
        "an exposed-card policy value",
    ("display/scenarios.py", "<module>", "void"): "a scenario's name",
    ("display/player.py", "<module>", "no_more_bets"): "a round state -> its message",
    ("display/player.py", "<module>", "reveal"): "a round state -> its message",
}
_OTHER_SUBJECTS = frozenset({"state", "status", "kind"})


def _subject(node: ast.AST) -> str | None:
    """The attribute, key or name a comparison operand ends in (``x.state`` -> ``state``)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    if isinstance(node, ast.Name) and node.id in ("state", "status"):
        return node.id
    return None


def _another_vocabulary(node: ast.Constant, parents: Parents) -> bool:
    """True where the word is a state's, a status's, a kind's or an enum member's value."""
    up = node
    while up in parents:
        child, up = up, parents[up]
        if isinstance(up, (ast.Tuple, ast.Set, ast.List)):
            continue
        if isinstance(up, ast.Compare) and any(
                _subject(x) in _OTHER_SUBJECTS for x in (up.left, *up.comparators)
                if x is not child):
            return True
        if isinstance(up, ast.ClassDef) and is_enum(up) and isinstance(
                parents.get(node), ast.Assign):
            return True
    return False


def command_literals(rel_path: str, text: str) -> list[tuple[str, int, str, str]]:
    """(file, line, enclosing scope, word) of each command name spelled in a module.

    Args:
        rel_path: the module's path from the repository's root.
        text: its source.
    """
    return spelled(rel_path, text, COMMAND_NAMED, _another_vocabulary, OTHER_VOCABULARIES)


def test_no_command_name_is_spelled_outside_its_declaration():
    found = [hit for p in sources(PACKAGES) if rel(p) != DECLARATION
             for hit in command_literals(rel(p), p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_scan_finds_a_command_name_where_one_is_spelled():
    # the scan is not blind: the declaration spells every name, and a module that tests
    # a command by its name, or keys a handler on it, is caught
    declared = {w for *_, w in command_literals(
        DECLARATION, (REPO / DECLARATION).read_text(encoding="utf-8"))}
    assert declared == set(COMMAND_NAMED)
    hits = command_literals("controller/probe.py", (
        'def f(kind, view):\n    if kind == "void":\n        return 1\n'
        '    return {"place_bet": f}, "settle" in view.allowed\n'))
    assert [(w, where) for _, _, where, w in hits] == [("void", "f"), ("place_bet", "f"),
                                                       ("settle", "f")]


def test_every_exception_still_names_a_word_that_is_spelled_there():
    # an entry left behind after its code changed would silently allow a command name
    assert {(f, w) for f, _, w in OTHER_VOCABULARIES} <= spelled_anywhere(PACKAGES,
                                                                          COMMAND_NAMED)
