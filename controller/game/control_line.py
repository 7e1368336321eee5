"""The control channel's line: one dealer command as a JSON object.

The command is read through its declaration in :mod:`controller.game.inputs`. A line
names the command (``"command": "void"``) beside that command's fields, which are
checked as strictly as every input (no unknown field, no wrong type, numbers in range).
A line naming no command is refused with the names of the known ones.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec

from controller.game.inputs import (
    COMMAND_NAMED,
    COMMANDS,
    DealerCommand,
    InputError,
    failed,
)

MAX_CONTROL_LINE = 4096
"""The longest control line taken, bytes."""
MAX_CONTROL_DEPTH = 8
"""The deepest a control line's arrays and objects may nest (a command is one flat
object), checked before the line is decoded (which would recurse that deep)."""


class UnknownCommand(InputError):
    """A control line naming no dealer command; the message lists the known ones."""


_CONTROL = msgspec.json.Decoder(typing.Union[COMMANDS])  # noqa: UP007 - a runtime tuple


def parse_control_line(line: str | bytes) -> DealerCommand:
    """Parse one control line: a JSON object with ``command`` and that command's fields.

    Example: ``{"command": "void", "reason": "shoe jam", "pin": "2468"}``.

    Raises:
        InputError: longer than :data:`MAX_CONTROL_LINE` bytes, nested deeper than
            :data:`MAX_CONTROL_DEPTH`, not JSON, not an object, an unknown command
            (:class:`UnknownCommand`, naming the known ones), a field named twice (JSON
            would let the last one win), or a field that fails the command's
            declaration; the message says which
            (msgspec's path, e.g. ``Expected `int`, got `bool` - at `$.seat```).
    """
    data = line.encode() if isinstance(line, str) else line
    if len(data) > MAX_CONTROL_LINE:
        raise InputError(f"a control line is at most {MAX_CONTROL_LINE} bytes, "
                         f"got {len(data)}")
    depth = _depth(data)
    if depth > MAX_CONTROL_DEPTH:
        raise InputError(f"a control line nests arrays and objects at most "
                         f"{MAX_CONTROL_DEPTH} deep, got {depth}")
    try:
        command = _CONTROL.decode(data)
    except msgspec.DecodeError as exc:
        name = _command_name(data)
        if isinstance(name, str) and name not in COMMAND_NAMED:
            raise UnknownCommand(f"unknown command {name!r} (known: "
                                 f"{', '.join(sorted(COMMAND_NAMED))}); {exc}") from None
        raise failed(exc) from None
    twice = _named_twice(data)
    if twice is not None:  # JSON lets the last one win: the line would mean two things
        raise InputError(f"a control line names each field once: {twice!r} is named twice")
    command.check_values()
    return command


def _named_twice(data: bytes) -> str | None:
    """The first key an object of this (valid JSON) text names twice, or None."""
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        twice.extend(k for i, k in enumerate(keys) if k in keys[:i])
        return dict(items)

    json.loads(data, object_pairs_hook=pairs)
    return twice[0] if twice else None


def _depth(data: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets in strings left out)."""
    if data.count(b"[") + data.count(b"{") <= MAX_CONTROL_DEPTH:
        return 0  # too few brackets to nest too deep: the common case, at once
    depth, deepest, in_text, escaped = 0, 0, False, False
    for b in data:
        if in_text:  # inside a string: a backslash escapes the next byte, a quote ends it
            escaped, in_text = (False, True) if escaped else (b == 0x5C, b != 0x22)
        elif b in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= b in b"]}"
            in_text = b == 0x22
    return deepest


def _command_name(data: bytes) -> Any:
    """The ``command`` of a JSON object (None when there is none, or no object)."""
    try:
        obj = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    return obj.get("command") if isinstance(obj, dict) else None


__all__ = ["MAX_CONTROL_DEPTH", "MAX_CONTROL_LINE", "UnknownCommand", "parse_control_line"]
