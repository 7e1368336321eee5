r"""Free text from outside the table (a void reason, a stored name): kept, drawn, printed.

A void reason or a deck unblock's reason is typed by a person on the control channel;
the journal, the floor's store and old journals hold such text. Three rules, one place:

- What is kept: an input's text may hold no control character (Unicode categories Cc and
  Cf: NUL, ESC, line breaks, bidirectional marks...) and no lone surrogate (category Cs).
  :data:`SAFE_TEXT_PATTERN` says so for :mod:`controller.game.inputs` (a regular
  expression, as :mod:`msgspec` checks it), so nothing with them is journaled.
- What is drawn: :func:`drawable` replaces each such character with U+FFFD (the
  replacement character), for text already in an old journal: a screen never fails on it.
- What is printed: :func:`for_terminal` writes each such character, and the line and
  paragraph separators, as its backslash escape (``\x1b``, ``\n``, ``\u200e``), so no
  escape sequence or forged line in stored text reaches a terminal or a log.

This module is a leaf: it imports nothing of the table.
"""

from __future__ import annotations

import re

CONTROL_RANGES: tuple[tuple[int, int], ...] = (
    (0x0, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD),
    (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F),
    (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xD800, 0xDFFF), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))
"""Every code point of Unicode categories Cc, Cf and Cs (first, last), as of Unicode 15.

Written out, not computed at import (scanning every code point takes a tenth of a
second); a test holds it to the running Python's :mod:`unicodedata`.
"""

_CLASS = "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in CONTROL_RANGES)
SAFE_TEXT_PATTERN = f"^[^{_CLASS}]*\\Z"
"""A regular expression matching text that holds no character of :data:`CONTROL_RANGES`."""
_CONTROL = re.compile(f"[{_CLASS}]")
_UNPRINTED = re.compile(f"[{_CLASS}\u2028\u2029]")
REPLACEMENT = "\ufffd"
"""What :func:`drawable` puts in place of a control character."""


def control_character(text: str) -> str | None:
    """The first control character or lone surrogate in ``text``, or None."""
    found = _CONTROL.search(text)
    return found.group() if found else None


def drawable(text: str) -> str:
    """``text`` with each control character and lone surrogate replaced by U+FFFD.

    What a screen draws never fails for its characters (a font refuses NUL and a lone
    surrogate). Text without them comes back as it is.
    """
    return text if text.isprintable() else _CONTROL.sub(REPLACEMENT, text)


def for_terminal(text: object) -> str:
    r"""``text`` (any value, as ``str``) with what a terminal must not be sent escaped.

    Each control or format character, lone surrogate, line or paragraph separator is
    written as its backslash escape: ESC as ``\x1b``, a line break as ``\n``, U+200E as
    ``\u200e``. Other text (accents, Cyrillic, no-break spaces) comes back as it is.
    """
    return _UNPRINTED.sub(_escape, str(text))


def _escape(found: re.Match[str]) -> str:
    return found.group().encode("unicode_escape", "backslashreplace").decode("ascii")


__all__ = ["CONTROL_RANGES", "REPLACEMENT", "SAFE_TEXT_PATTERN", "control_character",
           "drawable", "for_terminal"]
