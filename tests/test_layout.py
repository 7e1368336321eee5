"""The layout tells the truth: who may import what (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

from fresh_python import modules_after, packages_after

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
            if _top(name) in ("drivers", "display", "simulators", "floor", "paho", *FOREIGN):
                bad.append((path.name, name))
            elif _top(name) == "controller" and name != "controller" and not name.startswith(
                    "controller.game"):
                bad.append((path.name, name))  # the wiring sits above the core
    assert bad == []


def test_display_imports_no_driver_or_simulator():
    bad = [(p.name, n) for p in _modules("display") for n in _imports(p)
           if _top(n) in ("drivers", "simulators", "serial", "usb")]
    assert bad == []


def test_the_floor_feed_reads_the_game_core_and_nothing_of_the_table_besides():
    # floor/ publishes and records what journals hold: it may read the game core (the
    # journal, its replay, the records, the configuration's bounds), never write through
    # the table, and never load the wiring, a shoe, a screen or a simulator
    bad = [(p.name, n) for p in _modules("floor") for n in _imports(p)
           if _top(n) in ("drivers", "display", "simulators", *FOREIGN)
           or (_top(n) == "controller" and not n.startswith("controller.game."))
           or n.startswith("controller.game.table")]
    assert bad == []
    # and the game core and the shoe side never load the floor
    assert [(p.name, n) for folder in ("drivers", "display", "simulators")
            for p in _modules(folder) for n in _imports(p) if _top(n) in ("floor", "paho")] == []


def test_the_daemon_loads_the_floor_only_when_a_broker_is_configured():
    assert packages_after("from controller.daemon import Daemon", among=("floor", "paho")) == []


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
    # every part of the table reads them: they import only msgspec, the shoe's vocabulary
    # and the configuration's bounds (which import no part of the game but that vocabulary)
    names = _imports(REPO / "controller" / "game" / "inputs.py")
    ours = {n for n in names if _top(n) == "controller"}
    assert {n.rsplit(".", 1)[0] if n.startswith("controller.game.config.") else n
            for n in ours} <= {"controller.game", "controller.game.events",
                               "controller.game.config"}
    # config.py imports the shoe's vocabulary, the floor broker's URL form (a leaf), the
    # rule profiles only when one loads, and the PIN hash format and the currency codes
    # only when a configuration is checked (auth imports only config; numbers and broker
    # import nothing of the game)
    config = {".".join(n.split(".")[:3]) for n in _imports(REPO / "controller" / "game" /
                                                           "config.py")
              if _top(n) == "controller"}
    assert config <= {"controller.game.events", "controller.game.rules",
                      "controller.game.auth", "controller.game.numbers",
                      "controller.game.broker"}
    for leaf in ("numbers.py", "broker.py"):
        assert {n for n in _imports(REPO / "controller" / "game" / leaf)
                if _top(n) == "controller"} == set()
    auth = {".".join(n.split(".")[:3]) for n in _imports(REPO / "controller" / "game" /
                                                         "auth.py")
            if _top(n) == "controller"}
    assert auth <= {"controller.game.config"}
    assert {_top(n) for n in names} <= {"controller", "msgspec", "__future__", "dataclasses",
                                        "enum", "json", "typing"}


def test_drivers_import_no_simulator_or_screen():
    bad = [(p.name, n) for p in _modules("drivers") for n in _imports(p)
           if _top(n) in ("simulators", "display", "pygame")]
    assert bad == []


def test_simulators_import_from_controller_only_the_vocabulary_and_the_views():
    allowed = ("controller.game.cards", "controller.game.events", "controller.game.codes",
               "controller.game.views")
    bad = [(p.name, n) for p in _modules("simulators") for n in _imports(p)
           if (_top(n) == "controller" and not n.startswith(allowed))
           or _top(n) in ("display", "pygame")]
    assert bad == []


def test_the_drivers_name_no_simulator_and_the_simulators_register_sim_themselves():
    # the drivers' own list of schemes names no simulator: importing the simulated shoe
    # is what adds sim://, and the wiring imports it only for a sim:// URL
    from drivers.url import SCHEMES

    assert not any(str(opener).startswith("simulators") for opener in SCHEMES.values())
    assert packages_after("import drivers.url\nassert 'sim' not in drivers.url.SCHEMES",
                          among=("simulators",)) == []
    registered = ("import drivers.url, simulators.sim_link\n"
                  "assert drivers.url.SCHEMES['sim'] is simulators.sim_link.open_sim")
    assert "simulators.sim_link" in modules_after(registered)


def test_opening_a_shoe_loads_no_simulator_unless_its_url_is_sim():
    opening = ("import queue\nfrom controller.game.config import TableConfig\n"
               "from controller.shoe_link import open_shoe\n"
               "open_shoe(TableConfig(shoe_url='{}?dialect=native'), queue.Queue())")
    assert packages_after(opening.format("memory://none"), among=("simulators", "display")) == []
    assert "simulators.sim_link" in modules_after(opening.format("sim://") + ".connector.close()")


LONGEST = 600
"""Lines a module of the product may have: past it, split it by what it holds."""
DEALER_LONGEST = 400
"""Lines a module of the dealer screen may have: one panel, or one part of the screen."""


def test_no_module_is_longer_than_600_lines():
    long = {str(p.relative_to(REPO)) for folder in ("controller", "drivers", "display",
                                                     "simulators", "floor")
            for p in _modules(folder)
            if len(p.read_text(encoding="utf-8").splitlines()) > LONGEST}
    assert long == set()


def test_the_dealer_screen_is_panels_of_at_most_400_lines():
    modules = _modules("display/dealer")
    assert {p.stem for p in modules} >= {"screen", "next_action", "header", "alarms", "hand",
                                         "seat", "chips", "pads", "payouts", "recall",
                                         "meters"}
    long = {p.name: n for p in modules
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > DEALER_LONGEST}
    assert long == {}
    assert not (REPO / "display" / "dealer.py").exists()
