"""Input scripts: the dealer's touches and keys played from a file, as real pygame events.

``threecard run ... --input-script FILE`` posts each step's events to pygame's queue, where
the dealer screen takes them as it takes a finger or a key (training, bug reports, tests).
Every line is checked before any plays; each step waits until the table has applied the
last one's commands and the screen shows them. Format and timing:
docs/input-script-format.md. pygame is imported only to play a script, never to read one.
"""

from __future__ import annotations

import argparse
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from controller.game.round import RoundState

log = logging.getLogger(__name__)

MAX_WAIT_SECONDS = 3600.0
"""The longest wait a step may ask for."""
MAX_TEXT = 64
"""The most characters a ``text`` step types."""
MAX_KEYS = 64
"""The most key names a ``keys`` step presses."""
MAX_LINE = 4096
"""The longest line read, bytes."""
MAX_TAPS = 16
"""The most touches a ``taps`` step posts."""
MAX_GAP_MS = 10_000
"""The longest gap between the touches of a ``taps`` step, milliseconds."""
SETTLE_FRAMES = 2
"""Frames drawn before the next step once a step's commands are applied (read, then shown)."""

#: key name as scripts write it (lower case) -> pygame's key constant name
_SPECIAL = {"enter": "K_RETURN", "return": "K_RETURN", "esc": "K_ESCAPE",
            "escape": "K_ESCAPE", "backspace": "K_BACKSPACE", "tab": "K_TAB",
            "space": "K_SPACE", "left": "K_LEFT", "right": "K_RIGHT", "up": "K_UP",
            "down": "K_DOWN", "pageup": "K_PAGEUP", "pagedown": "K_PAGEDOWN",
            **{f"f{n}": f"K_F{n}" for n in range(1, 13)}}
KEY_NAMES: Mapping[str, str] = {**_SPECIAL,
                                **{c: f"K_{c}" for c in "abcdefghijklmnopqrstuvwxyz"},
                                **{d: f"K_{d}" for d in "0123456789"}}
"""Key names a script may use (any case; ``Shift+`` before any) -> pygame key constant."""
_TEXT_KEYS = {" ": "space", **{c: c for c in "abcdefghijklmnopqrstuvwxyz0123456789"}}

Fraction = Annotated[float, Meta(ge=0.0, le=1.0)]
StateName = Literal[tuple(s.value for s in RoundState)]  # type: ignore[valid-type]


class InputScriptError(ValueError):
    """A script that cannot be played; the message names the file, the line and the field."""


class Step(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One line of an input script: exactly one action (docs/input-script-format.md)."""

    key: Annotated[str, Meta(min_length=1, max_length=32)] | None = None
    keys: Annotated[str, Meta(min_length=1, max_length=MAX_KEYS * 16)] | None = None
    tap: tuple[Fraction, Fraction] | None = None
    taps: Annotated[list[tuple[Fraction, Fraction]],
                    Meta(min_length=1, max_length=MAX_TAPS)] | None = None
    gap_ms: Annotated[int, Meta(ge=0, le=MAX_GAP_MS)] | None = None
    text: Annotated[str, Meta(min_length=1, max_length=MAX_TEXT)] | None = None
    wait: Annotated[float, Meta(ge=0.0, le=MAX_WAIT_SECONDS)] | None = None
    until: StateName | None = None
    screenshot: Annotated[str, Meta(min_length=5, max_length=1024)] | None = None
    screen: Literal["dealer", "player"] | None = None
    texts: bool | None = None


_ACTIONS = ("key", "keys", "tap", "taps", "text", "wait", "screenshot")
_OPTIONS = {"until": "wait", "screen": "screenshot", "texts": "screenshot", "gap_ms": "taps"}
_DECODER = msgspec.json.Decoder(Step)


@dataclass(frozen=True, slots=True)
class Press:
    """One key press: pygame's key constant name, and whether Shift is held."""

    key: str
    shift: bool = False


@dataclass(frozen=True, slots=True)
class Action:
    """One checked step (kind: keys, tap, taps, wait, screenshot; seconds: a wait or a gap)."""

    line: int
    kind: str
    presses: tuple[Press, ...] = ()
    tap: tuple[float, float] = (0.0, 0.0)
    taps: tuple[tuple[float, float], ...] = ()
    seconds: float = 0.0
    until: str | None = None
    path: Path | None = None
    screen: str = "dealer"
    texts: bool = False
    text: str = ""


@dataclass(frozen=True, slots=True)
class InputScript:
    """A script read and checked: its file and its actions in order."""

    path: Path
    actions: tuple[Action, ...]


def _press(name: str) -> Press:
    """The press of a key name (``Shift+B``); ValueError names the unknown key."""
    text = name.strip()
    shift = text.lower().startswith("shift+")
    base = text[6:] if shift else text
    code = KEY_NAMES.get(base.lower())
    if code is None:
        raise ValueError(f"unknown key {name!r} (keys: Enter, Esc, Backspace, Tab, Space, "
                         "Left, Right, Up, Down, PageUp, PageDown, F1-F12, A-Z, 0-9, "
                         "with Shift+ before any)")
    return Press(code, shift)


def _action(step: Step, line: int, folder: Path, text: str) -> Action:
    """Check one decoded line's values. Raises ValueError naming the field."""
    given = [f for f in _ACTIONS if getattr(step, f) is not None]
    if len(given) != 1:
        raise ValueError("one action a line: key, keys, tap, taps, text, wait or screenshot"
                         + (f" (this line has {', '.join(given)})" if given else ""))
    (kind,) = given
    for option, owner in _OPTIONS.items():
        if getattr(step, option) is not None and kind != owner:
            raise ValueError(f"`{option}` goes with `{owner}` only - at `$.{option}`")
    if kind in ("key", "keys"):
        names = [step.key] if kind == "key" else step.keys.split()  # type: ignore[union-attr]
        if len(names) > MAX_KEYS:
            raise ValueError(f"at most {MAX_KEYS} keys a line - at `$.{kind}`")
        try:
            return Action(line, "keys", presses=tuple(_press(n) for n in names), text=text)
        except ValueError as exc:
            raise ValueError(f"{exc} - at `$.{kind}`") from None
    if kind == "text":
        presses = []
        for ch in step.text:  # type: ignore[union-attr]
            name = _TEXT_KEYS.get(ch.lower())
            if name is None:
                raise ValueError(f"no key types {ch!r} (letters, digits and spaces) - at "
                                 "`$.text`")
            presses.append(Press(KEY_NAMES[name], ch.isupper()))
        return Action(line, "keys", presses=tuple(presses), text=text)
    if kind == "tap":
        return Action(line, "tap", tap=step.tap, text=text)  # type: ignore[arg-type]
    if kind == "taps":
        return Action(line, "taps", taps=tuple(map(tuple, step.taps)),  # type: ignore[arg-type]
                      seconds=(step.gap_ms or 0) / 1000, text=text)
    if kind == "wait":
        return Action(line, "wait", seconds=step.wait, until=step.until,  # type: ignore[arg-type]
                      text=text)
    path = folder / step.screenshot  # type: ignore[operator]
    if path.suffix.lower() != ".png":
        raise ValueError(f"{step.screenshot!r} does not end in .png - at `$.screenshot`")
    if not path.parent.is_dir():
        raise ValueError(f"folder {path.parent} does not exist - at `$.screenshot`")
    return Action(line, "screenshot", path=path, screen=step.screen or "dealer",
                  texts=bool(step.texts), text=text)


def texts_path(png: Path) -> Path:
    """Where a screenshot's texts go: beside the PNG, ``.jsonl`` for ``.png``."""
    return png.with_suffix(".jsonl")


def frame_texts(frame: Any) -> bytes:
    """A drawn frame's texts, one JSON object a line in drawing order."""
    enc = msgspec.json.Encoder()
    return b"".join(enc.encode({"text": t.text, "role": t.role, "size": t.size,
                                "cut": t.truncated}) + b"\n" for t in frame.texts if t.text)


def parse(text: str, path: str | Path = "<script>") -> InputScript:
    """Read a script's text; ``path`` names it in errors, screenshots are relative to it.

    Raises:
        InputScriptError: the first bad line, as ``FILE:LINE: what is wrong - at `$.field```.
    """
    path = Path(path)
    actions = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if len(line.encode()) > MAX_LINE:
                raise ValueError(f"a line is at most {MAX_LINE} bytes")
            actions.append(_action(_DECODER.decode(line), n, path.parent, line))
        except (msgspec.DecodeError, ValueError) as exc:
            raise InputScriptError(f"{path}:{n}: {exc}") from None
    return InputScript(path, tuple(actions))


def load(path: str | Path) -> InputScript:
    """Read and check a script file (UTF-8).

    Raises:
        InputScriptError: the file cannot be read, or a line is bad (see :func:`parse`).
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputScriptError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputScriptError(f"{path}: cannot read: {exc}") from None
    return parse(text, path)


def argument(path: str) -> InputScript:
    """An argparse ``type`` for ``--input-script``: the script, read and checked.

    Raises:
        argparse.ArgumentTypeError: as :func:`load` says.
    """
    try:
        return load(path)
    except InputScriptError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _touch(x: float, y: float) -> None:
    """A finger down and up at (x, y), fractions of the dealer window."""
    import pygame

    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        pygame.event.post(pygame.event.Event(kind, x=x, y=y, dx=0.0, dy=0.0, touch_id=1,
                                             finger_id=0, pressure=1.0))


def _key(p: Press) -> None:
    """A key down and up (a capital with shift)."""
    import pygame

    code = getattr(pygame, p.key)
    mod = pygame.KMOD_LSHIFT if p.shift else pygame.KMOD_NONE
    char = pygame.key.name(code) if len(pygame.key.name(code)) == 1 else ""
    char = char.upper() if p.shift else char
    for kind in (pygame.KEYDOWN, pygame.KEYUP):
        pygame.event.post(pygame.event.Event(kind, key=code, mod=mod, unicode=char,
                                             scancode=0))


Fence = Callable[[], threading.Event]
"""Returns an event set once every input queued before the call has been applied."""


class ScriptPlayer:
    """Plays a script into pygame's event queue, one step when the screen is ready.

    The display loop calls :meth:`tick` before it reads pygame's events, :meth:`flushed`
    once the dealer screen's commands are posted, :meth:`drawn` after drawing; nothing
    blocks. Without a ``fence`` the next step waits :data:`SETTLE_FRAMES` frames only;
    ``start`` is set when the first step may play. ``failed`` says why it stopped early.
    """

    def __init__(self, script: InputScript, fence: Fence | None = None,
                 start: threading.Event | None = None) -> None:
        self.script = script
        self.fence = fence
        self.done = not script.actions
        self.failed: str | None = None
        self._i = 0
        self._press = 0               # the next key press of the step
        self._frames = 0
        self._ready_at = 1            # the frame count from which the next step may play
        self._posted = False
        self._pending: threading.Event | None = start
        self._deadline: float | None = None
        self._tap_at = 0.0            # when the first touch of a ``taps`` step was posted
        log.info("input script %s: %d steps", script.path, len(script.actions))

    @property
    def _action(self) -> Action:
        return self.script.actions[self._i]

    def _next(self) -> None:
        self._i += 1
        self._press = 0
        self._deadline = None
        if self._i >= len(self.script.actions):
            self.done = True
            log.info("input script %s: done, %d steps played", self.script.path,
                     len(self.script.actions))

    def _stop(self, why: str) -> None:
        self.failed = f"{self.script.path}:{self._action.line}: {why}"
        self.done = True
        log.error("input script %s; the script stops", self.failed)

    def _ready(self) -> bool:
        if self._pending is not None:
            if not self._pending.is_set():
                return False
            self._pending = None
            self._ready_at = self._frames + SETTLE_FRAMES
        return self._frames >= self._ready_at

    def tick(self, now: float, state: str | None, armed: bool = True) -> None:
        """Play the current step if the screen is ready (before pygame's events are read).

        ``now`` is monotonic seconds. Taps and keys wait while not ``armed`` (the large
        button just changed), as a finger would; a double tap's later touches do not.
        """
        if self.done:
            return
        a = self._action
        raw = a.kind == "taps" and self._press > 0  # a touch of a double tap: no waiting
        if not raw and not self._ready():
            return
        if a.kind in ("tap", "taps", "keys") and not armed and not raw:
            return
        if a.kind == "wait":
            self._wait(a, now, state)
            return
        if a.kind == "screenshot":
            return  # taken after the next frame is drawn
        if self._press == 0:
            log.debug("input script line %d: %s", a.line, a.text)
        if a.kind == "tap":
            self._posted = True
            _touch(*a.tap)
            self._next()
            return
        if a.kind == "taps":
            if raw and now < self._tap_at + self._press * a.seconds:
                return
            self._tap_at = now if not raw else self._tap_at
            _touch(*a.taps[self._press])
            self._press += 1
            if self._press == len(a.taps):  # the last: what they did is waited for
                self._posted = True
                self._next()
            return
        self._posted = True
        _key(a.presses[self._press])  # one press a frame, as a dealer types
        self._press += 1
        if self._press == len(a.presses):
            self._next()

    def _wait(self, a: Action, now: float, state: str | None) -> None:
        if self._deadline is None:
            self._deadline = now + a.seconds
            log.debug("input script line %d: %s", a.line, a.text)
        if a.until is not None and state == a.until:
            self._next()
        elif now >= self._deadline:
            if a.until is None:
                self._next()
            else:
                self._stop(f"the round did not reach {a.until!r} in {a.seconds:g} s "
                           f"(it is {state!r})")

    def flushed(self) -> None:
        """The screen's commands of this frame are in the table's inbox: fence them."""
        if self._posted:
            self._posted = False
            if self.fence is not None:
                self._pending = self.fence()
            self._ready_at = self._frames + SETTLE_FRAMES

    def drawn(self, surfaces: Mapping[str, Any], frames: Mapping[str, Any] | None = None
              ) -> None:
        """A frame was drawn: take a screenshot that is due (both maps by screen name)."""
        self._frames += 1
        if self.done or self._action.kind != "screenshot" or not self._ready():
            return
        a = self._action
        surface = surfaces.get(a.screen)
        if surface is None:
            log.error("input script %s:%d: no %s screen to take a screenshot of",
                      self.script.path, a.line, a.screen)
        else:
            import pygame

            try:
                pygame.image.save(surface, str(a.path))
                frame = (frames or {}).get(a.screen)
                if a.texts and frame is not None:
                    texts_path(a.path).write_bytes(frame_texts(frame))
                log.info("input script line %d: screenshot %s", a.line, a.path)
            except (pygame.error, OSError) as exc:
                log.error("input script %s:%d: cannot write %s: %s", self.script.path,
                          a.line, a.path, exc)
        self._next()


__all__ = ["Action", "InputScript", "InputScriptError", "KEY_NAMES", "Press", "ScriptPlayer",
           "Step", "argument", "frame_texts", "load", "parse", "texts_path"]
