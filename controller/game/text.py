"""Free text from outside the table (a void reason, a stored name): kept, drawn, printed.

Inputs hold no Cc, Cf or lone Cs character (:data:`SAFE_TEXT_PATTERN`); :func:`drawable`
replaces them with U+FFFD, :func:`for_terminal` escapes them (no forged line in a log).
"""

from __future__ import annotations

import re

# Every code point of categories Cc, Cf and Cs (first, last), Unicode 15: written out, since
# scanning takes a tenth of a second; a test holds it to unicodedata.
CONTROL_RANGES: tuple[tuple[int, int], ...] = (
    (0x0, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD),
    (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F),
    (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xD800, 0xDFFF), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))

_CLASS = "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in CONTROL_RANGES)
SAFE_TEXT_PATTERN = f"^[^{_CLASS}]*\\Z"
_CONTROL = re.compile(f"[{_CLASS}]")
_UNPRINTED = re.compile(f"[{_CLASS}\u2028\u2029]")
REPLACEMENT = "\ufffd"


def control_character(text: str) -> str | None:
    """The first control character or lone surrogate in ``text``, or None."""
    found = _CONTROL.search(text)
    return found.group() if found else None


def drawable(text: str) -> str:
    """``text`` with control characters and lone surrogates made U+FFFD (fonts refuse them)."""
    return text if text.isprintable() else _CONTROL.sub(REPLACEMENT, text)


def for_terminal(text: object) -> str:
    """``text`` (any value, as ``str``) with control characters and line separators escaped."""
    return _UNPRINTED.sub(_escape, str(text))


def _escape(found: re.Match[str]) -> str:
    return found.group().encode("unicode_escape", "backslashreplace").decode("ascii")


__all__ = ["CONTROL_RANGES", "REPLACEMENT", "SAFE_TEXT_PATTERN", "control_character",
           "drawable", "for_terminal"]
