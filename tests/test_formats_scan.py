"""Money and odds are written by one formatter (:mod:`controller.game.numbers`).

A scan of the product's source for text written by hand: an f-string that divides by 100,
groups a number with ``:,`` (an amount or a count), formats an amount with ``:.2f``, or
writes odds as ``{x}:1``/``{x} to 1``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("controller", "display", "drivers", "floor", "simulators")
HOME = ROOT / "controller" / "game" / "numbers.py"
MONEY_WORDS = ("amount", "minor", "money", "net", "stake", "refund", "wager", "paid", "won",
               "chip", "limit", "payout", "balance")


def _sources():
    for top in PRODUCT:
        for path in sorted((ROOT / top).rglob("*.py")):
            if path != HOME and "languages" not in path.parts:
                yield path


def _names(node: ast.AST) -> str:
    return " ".join(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
                    if isinstance(n, (ast.Name, ast.Attribute))).lower()


def _by_hand(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for i, part in enumerate(parts):
            if not isinstance(part, ast.FormattedValue):
                continue
            expr = part.value
            if any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv))
                   and isinstance(n.right, ast.Constant) and n.right.value in (100, 100.0)
                   for n in ast.walk(expr)):
                found.append((node.lineno, "an amount divided by 100"))
            spec = ast.unparse(part.format_spec) if part.format_spec else ""
            if "," in spec:  # counts too: format_number groups them
                found.append((node.lineno, f"a number grouped with {spec!r}"))
            elif ".2f" in spec and any(w in _names(expr) for w in MONEY_WORDS):
                found.append((node.lineno, f"an amount written with {spec!r}"))
            after = parts[i + 1] if i + 1 < len(parts) else None
            if isinstance(after, ast.Constant) and isinstance(after.value, str) and (
                    after.value.startswith(":1") or after.value.startswith(" to 1")):
                found.append((node.lineno, "odds written by hand"))
    return found


def test_no_money_or_odds_written_outside_the_formatter():
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in _sources()
             for line, what in _by_hand(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def test_the_scan_finds_what_it_looks_for():
    """The scan's own check: each pattern it forbids is found in a sample."""
    sample = ast.parse('a = f"{net / 100:.2f}"\nb = f"{stake:,}"\nc = f"{x}:1"\n'
                       'd = f"{x} to 1"\ne = f"{count:,} events"\n')
    assert [line for line, _ in _by_hand(sample)] == [1, 1, 2, 3, 4, 5]
