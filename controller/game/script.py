"""Scripted shifts run through a real table (docs/shift-script-format.md).

The clock moves only as the script says, so a script writes the same journal every run;
a rejected input stops it.
"""

from __future__ import annotations

import enum
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from controller.game import events
from controller.game.auth import demo_pin_hashes
from controller.game.codes import normalise_code
from controller.game.engine import TableConfig
from controller.game.events import CardRead, ShoeEvent
from controller.game.inputs import COMMANDS, DealerCommand
from controller.game.table import Table
from controller.game.views import DealerView, PlayerView

Input = ShoeEvent | DealerCommand


class ScriptError(ValueError):
    """A script that cannot be read or run; the message names the file and the line."""


@dataclass(frozen=True, slots=True)
class Step:
    """One line of a script (``line`` 1-based; ``wait`` seconds before its inputs)."""

    line: int
    inputs: tuple[Input, ...] = ()
    wait: int = 0
    mark: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Script:
    """A parsed script: the table's set-up and its steps (``step_seconds`` before each input)."""

    name: str
    config: TableConfig
    start_utc: datetime
    step_seconds: int
    steps: tuple[Step, ...]

    @property
    def marks(self) -> tuple[str, ...]:
        """The marks' names, in script order."""
        return tuple(s.mark for s in self.steps if s.mark)


@dataclass(frozen=True, slots=True)
class Mark:
    """A named moment of a run: the views published after journal event ``seq``."""

    name: str
    seq: int
    dealer: DealerView
    player: PlayerView
    options: dict[str, Any] = field(default_factory=dict)


class ScriptClock:
    """A clock that moves only when told: the script's time, reproducible to the second."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self.ns = 0

    def advance(self, seconds: int) -> None:
        """Move the clock on ``seconds``."""
        self.now += timedelta(seconds=seconds)
        self.ns += seconds * 1_000_000_000

    def utc(self) -> str:
        """Now, ISO 8601 UTC."""
        return self.now.isoformat()

    def monotonic_ns(self) -> int:
        """Nanoseconds since the script started."""
        return self.ns


def _registry(module: Any, base: type) -> dict[str, type]:
    return {name: obj for name, obj in vars(module).items()
            if isinstance(obj, type) and issubclass(obj, base) and obj is not base}


_EVENTS = _registry(events, ShoeEvent)
_COMMANDS = {c.__name__: c for c in COMMANDS}


def _build(classes: dict[str, type], what: str, name: object, body: dict[str, Any]) -> Any:
    cls = classes.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown {what} {name!r} (known: {', '.join(sorted(classes))})")
    hints = typing.get_type_hints(cls)
    known = set(cls.__struct_fields__)
    unknown = sorted(set(body) - known)
    if unknown:
        raise ValueError(f"{name} has no field {', '.join(unknown)}")
    args = {}
    for k, v in body.items():
        kind = hints.get(k)
        args[k] = kind(v) if isinstance(kind, type) and issubclass(kind, enum.Enum) else v
    return cls(**args)


def _command(name: object, body: dict[str, Any]) -> DealerCommand:
    cls = _COMMANDS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown dealer command {name!r} (known: "
                         f"{', '.join(sorted(_COMMANDS))})")
    try:
        return msgspec.convert(body, cls)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _cards(text: object, burn: object) -> tuple[Input, ...]:
    if not isinstance(text, str) or not text.split():
        raise ValueError(f"cards are written as text such as \"Ah 7c Tc\", got {text!r}")
    if not isinstance(burn, bool):
        raise ValueError(f"burn is true or false, got {burn!r}")
    out = []
    for code in text.split():
        card = normalise_code(code)
        if card is None:
            raise ValueError(f"{code!r} is not a card (write an unknown code as a CardRead "
                             "event)")
        out.append(CardRead(card=card, code=code, burn=burn))
    return tuple(out)


def _step(n: int, obj: dict[str, Any]) -> Step:
    obj = dict(obj)
    if "event" in obj:
        return Step(n, (_build(_EVENTS, "shoe event", obj.pop("event"), obj),))
    if "command" in obj:
        return Step(n, (_command(obj.pop("command"), obj),))
    if "cards" in obj:
        text, burn = obj.pop("cards"), obj.pop("burn", False)
        if obj:
            raise ValueError(f"a cards line has no {', '.join(sorted(obj))}")
        return Step(n, _cards(text, burn))
    if "wait" in obj:
        wait = obj.pop("wait")
        if obj or isinstance(wait, bool) or not isinstance(wait, int) or wait < 0:
            raise ValueError("a wait line is {\"wait\": SECONDS} with whole seconds >= 0")
        return Step(n, wait=wait)
    if "mark" in obj:
        name = obj.pop("mark")
        if not isinstance(name, str) or not name:
            raise ValueError(f"a mark is named by text, got {name!r}")
        return Step(n, mark=name, options=obj)
    raise ValueError("a step is an event, command, cards, wait or mark line")


def parse_script(text: str, name: str = "<script>") -> Script:
    """Parse a script's text; ``name`` says where it came from.

    Raises:
        ScriptError: a bad line (named), two marks of one name, or no set-up.
    """
    header: tuple[int, dict[str, Any]] | None = None
    steps: list[Step] = []
    seen: set[str] = set()
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            obj = json.loads(line)
            if not isinstance(obj, dict):
                raise ValueError("a line is one JSON object")
            if header is None:
                header = (n, obj)
                continue
            step = _step(n, obj)
        except (ValueError, TypeError) as exc:
            raise ScriptError(f"{name}:{n}: {exc}") from None
        if step.mark:
            if step.mark in seen:
                raise ScriptError(f"{name}:{n}: a second mark named {step.mark!r}")
            seen.add(step.mark)
        steps.append(step)
    if header is None:
        raise ScriptError(f"{name}: empty script (the first line sets up the table)")
    n, obj = header
    try:
        config, start, step_seconds = _setup(obj)
    except (ValueError, TypeError) as exc:
        raise ScriptError(f"{name}:{n}: bad set-up line: {exc}") from None
    return Script(name, config, start, step_seconds, tuple(steps))


def _setup(obj: dict[str, Any]) -> tuple[TableConfig, datetime, int]:
    """The set-up line's table, start time and seconds a step (ValueError: a wrong one)."""
    unknown = sorted(set(obj) - {"table", "demo_pins", "start_utc", "step_seconds"})
    if unknown:
        raise ValueError(f"the set-up line has no {', '.join(unknown)}")
    settings = dict(obj.get("table", {}))
    if obj.get("demo_pins"):
        settings["pin_hashes"] = demo_pin_hashes()
    if "chip_values" in settings:
        settings["chip_values"] = tuple(settings["chip_values"])
    config = TableConfig(**settings)
    config.validate()
    if "start_utc" not in obj:
        raise ValueError("start_utc is required (ISO 8601, +00:00)")
    start = datetime.fromisoformat(obj["start_utc"])
    if start.utcoffset() != timedelta(0):
        raise ValueError("start_utc must be UTC (+00:00)")
    step_seconds = obj.get("step_seconds", 1)
    if isinstance(step_seconds, bool) or not isinstance(step_seconds, int) \
            or step_seconds < 0:
        raise ValueError("step_seconds must be whole seconds >= 0")
    return config, start, step_seconds


def load_script(path: str | Path) -> Script:
    """Read and parse a script file (ScriptError: unreadable or bad)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"{p}: cannot read the script: {exc}") from None
    return parse_script(text, p.name)


def run_script(script: Script, journal: str | Path,
               on_publish: Callable[[DealerView, PlayerView], None] | None = None
               ) -> dict[str, Mark]:
    """Run a script through a real table on a new journal; the marks by name, in order.

    Raises:
        ScriptError: the journal file exists, or the table rejected an input (line and reason).
        JournalError: the journal cannot be written.
    """
    path = Path(journal)
    if path.exists():
        raise ScriptError(f"{path}: exists; a script writes a new journal")
    clock = ScriptClock(script.start_utc)
    table = Table(path, script.config, clock=clock, on_publish=on_publish)
    marks: dict[str, Mark] = {}
    try:
        if table.locked:
            raise ScriptError(f"{script.name}: the table is locked: {table.locked}")
        for step in script.steps:
            clock.advance(step.wait)
            for item in step.inputs:
                clock.advance(script.step_seconds)
                for verdict in table.process([item]):  # none for a heartbeat
                    if not verdict.accepted:
                            raise ScriptError(f"{script.name}:{step.line}: the table rejected "
                                          f"{verdict.kind}: {verdict.reason}")
            if step.mark:
                dealer, player = table.views()
                marks[step.mark] = Mark(step.mark, table.journal.last_seq, dealer, player,
                                        dict(step.options))
    finally:
        table.close()
    return marks


__all__ = ["Mark", "Script", "ScriptClock", "ScriptError", "Step", "load_script",
           "parse_script", "run_script"]
