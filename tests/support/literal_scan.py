"""Find a vocabulary's words spelled as string constants in the product's modules.

A word declared once (a command's name, a bet's) is found on the syntax tree wherever a
module spells it instead of naming its declaration; a test says where the same word
belongs to another vocabulary (``allowed``) and lists its few exceptions by place.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
Parents = dict[ast.AST, ast.AST]
Hit = tuple[str, int, str, str]


def sources(packages: Collection[str]) -> list[Path]:
    """Every .py file of ``packages`` (folders of the repository), sorted."""
    found = sorted(p for d in packages for p in (REPO / d).rglob("*.py"))
    assert len(found) > 30
    return found


def rel(path: Path) -> str:
    """``path`` from the repository's root, with forward slashes."""
    return path.relative_to(REPO).as_posix()


def is_enum(cls: ast.ClassDef) -> bool:
    """True when the class derives from an ``...Enum``."""
    return any((isinstance(b, ast.Attribute) and b.attr.endswith("Enum"))
               or (isinstance(b, ast.Name) and b.id.endswith("Enum")) for b in cls.bases)


def spelled(rel_path: str, text: str, words: Collection[str],
            allowed: Callable[[ast.Constant, Parents], bool],
            exceptions: Mapping[tuple[str, str, str], str]) -> list[Hit]:
    """(file, line, enclosing scope, word) of each word of ``words`` a module spells.

    A constant ``allowed`` accepts, or listed in ``exceptions`` by (file, scope, word),
    is another vocabulary's and is not a hit.
    """
    tree = ast.parse(text, rel_path)
    parents: Parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and node.value in words) or allowed(
                node, parents):
            continue
        scope, up = [], node
        while up in parents:
            up = parents[up]
            if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                scope.append(up.name)
        where = ".".join(reversed(scope)) or "<module>"
        if (rel_path, where, node.value) not in exceptions:
            found.append((rel_path, node.lineno, where, node.value))
    return sorted(found)


def spelled_anywhere(packages: Collection[str], words: Collection[str]) -> set[tuple[str, str]]:
    """(file, word) of every word spelled in a module, wherever it stands."""
    out = set()
    for p in sources(packages):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        out |= {(rel(p), w) for w in words
                if any(isinstance(n, ast.Constant) and n.value == w for n in ast.walk(tree))}
    return out
