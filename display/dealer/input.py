"""Pointer and key input of the dealer screen: one tap is one press, keys by name."""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from display.painter import Button, Frame

SDL_MOUSE_TOUCHID = -1
"""``touch_id`` of a touch SDL made up from a mouse click (``SDL_MOUSE_TOUCHID``)."""
TAP_COPY_SECONDS = 0.5
"""A finger press and a mouse press this close in time at one place are one tap."""
TAP_COPY_PIXELS = 40
"""How far apart (pixels, on each axis) a tap's finger and mouse copies may land."""


def key_name(event: pygame.event.Event) -> str:
    """The shortcut name of a KEYDOWN event: ``n``, ``f9``, ``return``, ``shift+b``."""
    name = pygame.key.name(event.key).lower()
    if name.startswith("keypad "):
        name = name[7:]
        name = {"enter": "return", "period": ".", "minus": "-", "plus": "+"}.get(name, name)
    elif name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
        name = {"enter": "return"}.get(name, name)
    if name == "enter":
        name = "return"
    mod = getattr(event, "mod", 0)
    if mod & pygame.KMOD_SHIFT and len(name) == 1 and name.isalpha():
        return "shift+" + name
    return name


@dataclass(slots=True)
class _Press:
    """A pointer press acted on: ``finger`` or ``mouse``, where and when."""

    kind: str
    pos: tuple[int, int]
    at: float
    copied: bool = False
    bounced: bool = False


class Presses:
    """Finds the button an input event presses, dropping the copies of a tap.

    SDL's own copies go, and one press of the other kind (finger, mouse) close in time and
    place: some touchscreen drivers send a click of their own with each touch. A press taken
    as a bounce leaves the verdict to its copy, if one comes, on the copy's own kind: the
    driver's copy may come before its touch, sooner after the last tap than the touch.
    When the kinds' clocks disagree the tap wins: not knowing which kind a driver copies,
    a bounce and two taps can be the very same events.
    """

    def __init__(self) -> None:
        self._last: _Press | None = None
        self.copy = False  # the last event was a copy of the press before it

    def bounced(self) -> None:
        """The last press was a bounce: its copy, if one comes, is judged on its own."""
        if self._last is not None:
            self._last.bounced = True

    def button(self, event: pygame.event.Event, frame: Frame, now: float) -> Button | None:
        """The enabled button ``event`` presses on ``frame``, or None."""
        self.copy = False
        if event.type == pygame.MOUSEBUTTONDOWN:
            if getattr(event, "button", 1) != 1 or getattr(event, "touch", False):
                return None  # touches arrive as FINGERDOWN; ignore SDL's mouse copy
            if self._copy("mouse", event.pos, now):
                return None
            return frame.button_at(event.pos)
        if event.type == pygame.FINGERDOWN:
            if getattr(event, "touch_id", 0) == SDL_MOUSE_TOUCHID:
                return None  # SDL's touch copy of a mouse click; the click itself counts
            w, h = frame.size
            pos = (int(event.x * w), int(event.y * h))
            if self._copy("finger", pos, now):
                return None
            return frame.button_at(pos)
        if event.type == pygame.KEYDOWN:
            name = key_name(event)
            found = frame.button_for_key(name)
            if found is None and name.startswith("shift+"):
                found = frame.button_for_key(name[6:])
            return found
        return None

    def _copy(self, kind: str, pos: tuple[int, int], now: float) -> bool:
        """True when this press is the other-kind copy of the last press acted on."""
        last = self._last
        if (last is not None and not last.copied and last.kind != kind
                and 0 <= now - last.at <= TAP_COPY_SECONDS
                and abs(pos[0] - last.pos[0]) <= TAP_COPY_PIXELS
                and abs(pos[1] - last.pos[1]) <= TAP_COPY_PIXELS):
            last.copied = True
            self.copy = not last.bounced
            return self.copy
        self._last = _Press(kind, (int(pos[0]), int(pos[1])), now)
        return False


BOUNCE_SECONDS = 0.2
"""A second tap this soon on the same spot is a bounce of the first, not a press."""
BOUNCE_PIXELS = 24
"""How far apart (pixels, on each axis) a tap and its bounce may land."""
ANSWER_WAIT_SECONDS = 3.0
"""How long an unanswered command blocks the next (a lost answer does not block for good)."""


class InputGuard:
    """The one guard every dealer press passes before it acts.

    It ignores a bounce, a tap on a frame older than the newest view, and a command while
    the last is unanswered: Reveal, Settle and Next round never chain from a double tap.
    """

    def __init__(self) -> None:
        self._tap: dict[int, tuple[tuple[int, int], float]] = {}  # the last, by event type
        self._posted: tuple[int, float] | None = None

    def bounce(self, event: pygame.event.Event, frame: Frame, now: float) -> bool:
        """True when ``event`` bounces the last tap of its kind (another kind is a copy)."""
        pos = tap_pos(event, frame)
        if pos is None:
            return False
        last = self._tap.get(event.type)
        self._tap[event.type] = (pos, now)
        return (last is not None and 0 <= now - last[1] < BOUNCE_SECONDS
                and abs(pos[0] - last[0][0]) <= BOUNCE_PIXELS
                and abs(pos[1] - last[0][1]) <= BOUNCE_PIXELS)

    @staticmethod
    def stale(event: pygame.event.Event, frame: Frame, version: int) -> bool:
        """True when ``event`` is a tap on a frame drawn from a view older than ``version``."""
        drawn = frame.notes.get("version")
        return tap_pos(event, frame) is not None and drawn is not None and drawn < version

    def waiting(self, version: int, now: float) -> bool:
        """True while a command posted is unanswered (the view is still at ``version``)."""
        posted = self._posted
        if posted is None:
            return False
        if version > posted[0] or now - posted[1] > ANSWER_WAIT_SECONDS:
            self._posted = None
            return False
        return True

    def posted(self, version: int, now: float) -> None:
        """Commands were posted to the table while its view was at ``version``."""
        self._posted = (version, now)


def tap_pos(event: pygame.event.Event, frame: Frame) -> tuple[int, int] | None:
    """Where a finger or a left click lands on ``frame`` (pixels), or None for a key."""
    if event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1:
        return int(event.pos[0]), int(event.pos[1])
    if event.type == pygame.FINGERDOWN:
        w, h = frame.size
        return int(event.x * w), int(event.y * h)
    return None
