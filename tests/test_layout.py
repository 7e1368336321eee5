"""The layout tells the truth: who may import what (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOREIGN = ("pygame", "serial", "usb", "argparse")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _modules(folder: str) -> list[Path]:
    found = sorted((REPO / folder).rglob("*.py"))
    assert found, folder
    return found


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_game_core_imports_no_hardware_screen_simulator_or_wiring():
    bad = []
    for path in _modules("controller/game"):
        for name in _imports(path):
            if _top(name) in ("drivers", "display", "simulators", *FOREIGN):
                bad.append((path.name, name))
            elif _top(name) == "controller" and name != "controller" and not name.startswith(
                    "controller.game"):
                bad.append((path.name, name))  # the wiring sits above the core
    assert bad == []


def test_display_imports_no_driver_or_simulator():
    bad = [(p.name, n) for p in _modules("display") for n in _imports(p)
           if _top(n) in ("drivers", "simulators", "serial", "usb")]
    assert bad == []


def test_controller_wiring_imports_no_pygame_serial_or_usb():
    bad = [(p.name, n) for p in _modules("controller") for n in _imports(p)
           if _top(n) in ("pygame", "serial", "usb")]
    assert bad == []


def test_drivers_import_from_controller_only_the_vocabulary():
    leaves = ("controller.game.events", "controller.game.codes", "controller.game.cards")
    bad = [(p.name, n) for p in _modules("drivers") for n in _imports(p)
           if _top(n) == "controller" and not n.startswith(leaves)]
    assert bad == []


def test_the_input_declarations_are_a_leaf():
    # every part of the table reads them: they import only msgspec and the shoe's vocabulary
    names = _imports(REPO / "controller" / "game" / "inputs.py")
    ours = {n for n in names if _top(n) == "controller"}
    assert ours <= {"controller.game", "controller.game.events"}
    assert {_top(n) for n in names} <= {"controller", "msgspec", "__future__", "dataclasses",
                                        "enum", "json", "typing"}
