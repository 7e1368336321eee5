"""The layout tells the truth: who may import what (docs/architecture.md)."""

from __future__ import annotations

import ast
import fnmatch
import functools
import re
from pathlib import Path

import pytest
from fresh_python import modules_after, packages_after

REPO = Path(__file__).resolve().parents[1]
FOREIGN = ("pygame", "serial", "usb", "argparse")


REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*:[A-Za-z_]\w*")
"""A registry's ``"module:attr"`` (``DIALECTS``, ``SCHEMES``), imported when first used."""
DYNAMIC = {"import_module", "__import__", "resolve_name"}
"""Calls that import the module their first argument names."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_of(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module of ours ``source`` may load, as dotted names (``module`` is its name).

    Import statements (relative ones resolved against the module's package), registry
    strings ``"module:attr"`` and the string argument of ``importlib.import_module``,
    ``__import__`` and ``pkgutil.resolve_name``.
    """
    tree = ast.parse(source)
    package = module.split(".") if is_package else module.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package[:len(package) - node.level + 1]
                base = ".".join([*above, *([base] if base else [])])
            out.add(base)
            out.update(".".join(filter(None, (base, a.name))) for a in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(
                node.args[0], ast.Constant) and isinstance(node.args[0].value, str) and (
                getattr(node.func, "attr", None) in DYNAMIC
                or getattr(node.func, "id", None) in DYNAMIC):
            out.add(node.args[0].value.partition(":")[0])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and REFERENCE.fullmatch(node.value):
            out.add(node.value.partition(":")[0])
    return {n for n in out if n}


def _imports(path: Path) -> set[str]:
    return _imports_of(path.read_text(encoding="utf-8"), _module_name(path),
                       path.name == "__init__.py")


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
                    ("controller.game", "controller.journal")):
                bad.append((path.name, name))  # the wiring sits above the core
    assert bad == []


JOURNAL_TAKES = ("controller.game.inputs", "controller.game.text")
"""What the journal's storage takes from the game core: the input declarations (the codec
stores their values compactly) and the rule for free text (a reader's words)."""


def test_the_journal_storage_takes_nothing_that_replays_the_game():
    # the verifier and the archive replay the game and import the storage: never the other
    # way round, so the storage has no cycle with the game core
    bad = [(p.name, n) for p in _modules("controller/journal") for n in _imports(p)
           if _top(n) in ("drivers", "display", "simulators", "floor", "paho", *FOREIGN)
           or (_top(n) == "controller" and n not in ("controller", "controller.game")
               and not n.startswith(("controller.journal", *JOURNAL_TAKES)))]
    assert bad == []


def _display_bad(path: Path) -> list[tuple[str, str]]:
    return [(str(path.relative_to(REPO)), n) for n in _imports(path)
            if _display_refuses(str(path.relative_to(REPO / "display")), n)]


DISPLAY_TAKES = ("controller.game.cards", "controller.game.events", "controller.game.codes",
                 "controller.game.bet_types", "controller.game.inputs", "controller.game.languages",
                 "controller.game.numbers",
                 "controller.game.refusals", "controller.game.text", "controller.game.views")
"""What the screens take from controller/: the leaves (the vocabulary, the bets, the input
declarations, numbers, refusal codes, the rule for free text) and the views they draw."""
DISPLAY_ALSO_TAKES = {
    # the scenarios drive a real table through a script to render its screens headless
    "scenarios.py": ("controller.game.script",),
    # the shift report draws the shift's figures and the paytables' exact returns, writes
    # its PDF whole or not at all, words a setting change under the setting's name now, and
    # the verifier's note in the report's language (not twice in English)
    "report/*": ("controller.game.shift", "controller.game.table_views",
                 "controller.game.rules", "controller.game.par_sheet", "controller.game.files",
                 "controller.game.config", "controller.game.verdict"),
    # an input script and the dealer screen's state wait on and word the round's states
    "input_script.py": ("controller.game.round",),
    "dealer/state.py": ("controller.game.round",),
    # outcome meters: the meters' key format and round counters
    "outcome_mode.py": ("controller.game.meters",),
    # the PIN pad's length is the configuration's bound
    "dealer/screen.py": ("controller.game.config",),
    # the payout list pays in the rules' pay order (pay_lines.in_pay_order)
    "dealer/payouts.py": ("controller.game.pay_lines",),
}
"""What single display modules take from controller.game beyond the leaves and the views
(today's list: a new entry is a design decision); never the wiring nor the table's
journal, engine or table."""
DISPLAY_NEVER = ("controller.daemon", "controller.cli", "controller.shoe_link",
                 "controller.journal", "controller.game.engine", "controller.game.table")


def _within(name: str, modules: tuple[str, ...]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in modules)


def _display_refuses(relative: str, name: str) -> bool:
    """``display/<relative>`` may not import ``name``."""
    if _top(name) in ("drivers", "simulators", "serial", "usb"):
        return True
    if _top(name) != "controller" or name in ("controller", "controller.game"):
        return False
    if not name.startswith("controller.game."):
        return True  # the wiring: the commands, the daemon, the journal, the files they write
    also = [m for pattern, mods in DISPLAY_ALSO_TAKES.items()
            if fnmatch.fnmatch(relative, pattern) for m in mods]
    return _within(name, DISPLAY_NEVER) or not _within(name, (*DISPLAY_TAKES, *also))


def test_display_imports_no_driver_or_simulator_and_of_controller_only_leaves_and_views():
    assert not any(_within(m, DISPLAY_NEVER) for mods in DISPLAY_ALSO_TAKES.values()
                   for m in mods)
    # what the display may take is all of the game core: nothing of the wiring
    assert [m for m in (*DISPLAY_TAKES, *(m for mods in DISPLAY_ALSO_TAKES.values()
                                          for m in mods))
            if not m.startswith("controller.game.")] == []
    assert [bad for p in _modules("display") for bad in _display_bad(p)] == []


@pytest.mark.parametrize(("source", "module", "found"), [
    ("from ..drivers import link", "display.scenarios", "drivers.link"),
    ("from .. import simulators", "drivers.url", "simulators"),
    ("SCHEMES = {'sim': 'simulators.sim_link:open_sim'}", "drivers.url",
     "simulators.sim_link"),
    ("importlib.import_module('display.app')", "drivers.link", "display.app"),
    ("__import__('pygame')", "controller.game.rules", "pygame"),
    ("pkgutil.resolve_name('simulators.shoe:SimulatedShoe')", "drivers.x", "simulators.shoe"),
])
def test_the_import_rules_see_relative_registry_and_dynamic_imports(source, module, found):
    assert found in _imports_of(source, module)


@pytest.mark.parametrize(("relative", "name", "refused"), [
    ("dealer/seat.py", "controller.game.views.SeatView", False),
    ("dealer/seat.py", "controller.game.round", True),  # round: dealer/state.py only
    ("dealer/state.py", "controller.game.round.RoundState", False),
    ("report/plots.py", "controller.game.shift", False),
    ("player.py", "controller.game.shift", True),
    ("scenarios.py", "controller.game.table", True),
    ("app.py", "controller.daemon", True),
    ("app.py", "controller.cli", True),
    ("app.py", "controller.shoe_link", True),
    ("app.py", "controller.journal", True),
    ("app.py", "controller.game.engine", True),
    ("app.py", "drivers.link", True),
    ("report/document.py", "controller.files", True),
    ("report/document.py", "controller.signing", True),
    ("report/document.py", "controller.game.files", False),
])
def test_the_display_rule_refuses_what_it_should(relative, name, refused):
    assert _display_refuses(relative, name) is refused


def test_the_floor_feed_reads_the_game_core_and_nothing_of_the_table_besides():
    # floor/ publishes and records what journals hold: it may read the game core (the
    # journal, its replay, the records, the configuration's bounds), never write through
    # the table, and never load the wiring, a shoe, a screen or a simulator
    bad = [(p.name, n) for p in _modules("floor") for n in _imports(p)
           if _top(n) in ("drivers", "display", "simulators", *FOREIGN)
           or (_top(n) == "controller"
               and not n.startswith(("controller.game.", "controller.journal")))
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
    leaves = ("controller.game.config.", "controller.game.power_up.", "controller.game.text.",
              "controller.game.clock_steps.", "controller.game.fault_record.",
              "controller.game.bet_types.")
    assert {n.rsplit(".", 1)[0] if n.startswith(leaves) else n
            for n in ours} <= {"controller.game", "controller.game.events",
                               "controller.game.config", "controller.game.power_up",
                               "controller.game.text", "controller.game.clock_steps",
                               "controller.game.fault_record", "controller.game.bet_types"}
    # config.py imports the shoe's vocabulary, the floor broker's URL form (a leaf), the
    # rule profiles only when one loads, the languages (a leaf: no Babel), and the PIN hash
    # format and the currency codes only when a configuration is checked (auth imports only
    # config; numbers only the languages; broker nothing of the game)
    config = {".".join(n.split(".")[:3]) for n in _imports(REPO / "controller" / "game" /
                                                           "config.py")
              if _top(n) == "controller"}
    assert config <= {"controller.game.events", "controller.game.rules",
                      "controller.game.auth", "controller.game.numbers",
                      "controller.game.broker", "controller.game.languages"}
    also = {"fault_record.py": "controller.game.text", "numbers.py": "controller.game.languages"}
    for leaf in ("numbers.py", "broker.py", "power_up.py", "text.py", "clock_steps.py",
                 "fault_record.py", "bet_types.py", "languages.py"):
        text = also.get(leaf, "-")  # a leaf too
        assert {n for n in _imports(REPO / "controller" / "game" / leaf)
                if _top(n) == "controller" and n != text
                and not n.startswith(text + ".")} == set()
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


PACKAGES = ("controller", "drivers", "display", "simulators", "floor")
"""The product's packages: what the size rules below measure."""
LONGEST_FUNCTION = 60
"""Lines a function of the product may have: past it, split it into named steps."""
DOCSTRING_SHARE = 0.15
"""The part of the product's lines its docstrings may take: what and why in a few lines
(formats and history belong in docs/)."""


@functools.cache
def _trees() -> tuple[tuple[Path, str, ast.Module], ...]:
    """Every module of the product: its path, its text and its syntax tree (read once)."""
    out = []
    for folder in PACKAGES:
        for path in _modules(folder):
            source = path.read_text(encoding="utf-8")
            out.append((path, source, ast.parse(source)))
    return tuple(out)


def _long_functions(tree: ast.AST) -> list[tuple[str, int]]:
    """Every function of ``tree`` longer than :data:`LONGEST_FUNCTION`, with its lines."""
    return [(node.name, n) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and (n := node.end_lineno - node.lineno + 1) > LONGEST_FUNCTION]


def _docstring_lines(tree: ast.AST) -> int:
    """Lines of ``tree``'s bare strings: module, class and function docstrings, and the
    strings that document an attribute."""
    bodies = (node.body for node in ast.walk(tree) if isinstance(getattr(node, "body", None),
                                                                  list))
    return sum(statement.end_lineno - statement.lineno + 1 for body in bodies
               for statement in body if isinstance(statement, ast.Expr)
               and isinstance(statement.value, ast.Constant)
               and isinstance(statement.value.value, str))


def test_the_size_rules_measure_what_they_say():
    tree = ast.parse('"""Module."""\nX = 1\n"""An attribute,\nover two lines."""\n\n\n'
                     'class K:\n    """A class."""\n\n    def f(self):\n        """A method."""\n'
                     '        "not a docstring" + "but an expression"\n'
                     + "def g():\n" + "    x = 1\n" * LONGEST_FUNCTION
                     + "def h():\n" + "    x = 1\n" * (LONGEST_FUNCTION - 1))
    assert _docstring_lines(tree) == 5
    assert _long_functions(tree) == [("g", LONGEST_FUNCTION + 1)]


def test_no_function_is_longer_than_60_lines():
    long = [f"{path.relative_to(REPO)}:{name} ({n})" for path, _, tree in _trees()
            for name, n in _long_functions(tree)]
    assert long == []


def test_docstrings_are_at_most_15_percent_of_the_product_lines():
    trees = _trees()
    lines = sum(len(source.splitlines()) for _, source, _ in trees)
    docstrings = sum(_docstring_lines(tree) for _, _, tree in trees)
    assert docstrings <= DOCSTRING_SHARE * lines, f"{docstrings / lines:.1%} of {lines} lines"
