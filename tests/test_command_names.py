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
from pathlib import Path

from controller.game.inputs import COMMAND_NAMED

REPO = Path(__file__).resolve().parents[1]
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


def _sources() -> list[Path]:
    found = sorted(p for d in ("controller", "display") for p in (REPO / d).rglob("*.py"))
    assert len(found) > 30
    return found


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _subject(node: ast.AST) -> str | None:
    """The attribute, key or name a comparison operand ends in (``x.state`` -> ``state``)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return str(node.slice.value)
    if isinstance(node, ast.Name) and node.id in ("state", "status"):
        return node.id
    return None


def _is_enum(cls: ast.ClassDef) -> bool:
    return any((isinstance(b, ast.Attribute) and b.attr.endswith("Enum"))
               or (isinstance(b, ast.Name) and b.id.endswith("Enum")) for b in cls.bases)


def command_literals(rel: str, text: str) -> list[tuple[str, int, str, str]]:
    """(file, line, enclosing scope, word) of each command name spelled in a module.

    Args:
        rel: the module's path from the repository's root.
        text: its source.
    """
    tree = ast.parse(text, rel)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and node.value in COMMAND_NAMED):
            continue
        scope, up, allowed = [], node, False
        while up in parents:
            child, up = up, parents[up]
            if isinstance(up, (ast.Tuple, ast.Set, ast.List)):
                continue
            if isinstance(up, ast.Compare) and any(
                    _subject(x) in _OTHER_SUBJECTS for x in (up.left, *up.comparators)
                    if x is not child):
                allowed = True
            if isinstance(up, ast.ClassDef) and _is_enum(up) and isinstance(
                    parents.get(node), ast.Assign):
                allowed = True
            if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scope.append(up.name)
        where = ".".join(reversed(scope)) or "<module>"
        if not allowed and (rel, where, node.value) not in OTHER_VOCABULARIES:
            found.append((rel, node.lineno, where, node.value))
    return found


def test_no_command_name_is_spelled_outside_its_declaration():
    spelled = [hit for p in _sources() if _rel(p) != DECLARATION
               for hit in command_literals(_rel(p), p.read_text(encoding="utf-8"))]
    assert spelled == []


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
    spelled = set()
    for p in _sources():
        rel = _rel(p)
        tree = ast.parse(p.read_text(encoding="utf-8"))
        spelled |= {(rel, w) for w in COMMAND_NAMED
                    if any(isinstance(n, ast.Constant) and n.value == w for n in ast.walk(tree))}
    assert {(f, w) for f, _, w in OTHER_VOCABULARIES} <= spelled
