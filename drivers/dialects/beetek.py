"""The ``beetek`` dialect: the Bee-Tek USPC shoe's listen-only tokens (docs/shoe-frames.md)."""

from __future__ import annotations

import re

from controller.game.codes import normalise_code
from controller.game.events import Alarm, CardRead, FrameError, Misread, ShoeEvent, Warning
from drivers.dialects import ScanningDecoder, UnsupportedEvent

# Longest mode text between ``[`` and ``]``, and body between ``<`` and ``>``.
MAX_MODE = 40
MAX_BODY = 80

_SPECIAL = re.compile(rb"[\[\]<>\r\n]")
_CARD = re.compile(r"\s*card\s*:\s*(\S*)\s*", re.IGNORECASE)
_ALARM = re.compile(r"\s*alarm\s*:\s*(\S*)\s*(.*?)\s*", re.IGNORECASE)
_WARNING = re.compile(r"\s*W\s*((?:0x)?[0-9A-Fa-f]+)\s*")
_MISREAD = re.compile(r"\s*game\s*", re.IGNORECASE)

_IDLE, _MODE, _AFTER_MODE, _BODY, _DISCARD = range(5)


def _show(data: bytes) -> str:
    return repr(data[:60].decode("ascii", "backslashreplace"))


class BeetekDecoder(ScanningDecoder):
    """Incremental decoder of beetek tokens (docs/shoe-frames.md)."""

    name = "beetek"
    SPECIAL = _SPECIAL

    def __init__(self) -> None:
        super().__init__()
        self._state = _IDLE
        self._mode = bytearray()
        self._body = bytearray()
        self._has_mode = False

    def reset(self) -> None:
        """Forget an unfinished token (use after a reconnect)."""
        self._state = _IDLE
        self._mode.clear()
        self._body.clear()
        self._has_mode = False

    restart = reset

    def _abandon(self, out: list[ShoeEvent], why: str) -> None:
        self.stats.malformed += 1
        text = (b"[" + bytes(self._mode) + b"]" if self._has_mode else b"") + (
            b"<" + bytes(self._body) if self._state == _BODY else b"")
        if self._state == _MODE:
            text = b"[" + bytes(self._mode)
        out.append(FrameError(reason="malformed", detail=f"{why}: {_show(text)}"))

    def _oversize(self, out: list[ShoeEvent], limit: int) -> None:
        self.stats.oversize += 1
        out.append(FrameError(reason="oversize", detail=f"token part longer than {limit} bytes"))
        self._state = _DISCARD
        self._mode.clear()
        self._body.clear()
        self._has_mode = False

    def _plain(self, data: bytes, pos: int, end: int, out: list[ShoeEvent]) -> None:
        state = self._state
        if state == _IDLE:
            self.stats.noise_bytes += len(data[pos:end].strip())
        elif state == _MODE:
            if len(self._mode) + end - pos > MAX_MODE:
                self._oversize(out, MAX_MODE)
            else:
                self._mode += data[pos:end]
        elif state == _BODY:
            if len(self._body) + end - pos > MAX_BODY:
                self._oversize(out, MAX_BODY)
            else:
                self._body += data[pos:end]
        elif state == _AFTER_MODE:
            chunk = data[pos:end]
            if chunk.strip(b" \t"):
                self._abandon(out, "mode not followed by <...>")
                self.reset()
                self.stats.noise_bytes += len(chunk.strip())

    def _special(self, c: int, out: list[ShoeEvent]) -> None:
        state = self._state
        if c == 0x5B:  # [
            if state in (_MODE, _AFTER_MODE, _BODY):
                self._abandon(out, "token cut short")
            self.reset()
            self._state = _MODE
        elif c == 0x5D:  # ]
            if state == _MODE:
                self._state = _AFTER_MODE
                self._has_mode = True
            elif state in (_AFTER_MODE, _BODY):
                self._abandon(out, "stray ']'")
                self.reset()
            elif state == _IDLE:
                self.stats.noise_bytes += 1
        elif c == 0x3C:  # <
            if state == _AFTER_MODE:
                self._state = _BODY
                return
            if state in (_MODE, _BODY):
                self._abandon(out, "token cut short")
            self.reset()
            self._state = _BODY
        elif c == 0x3E:  # >
            if state == _BODY:
                self._token(bytes(self._mode) if self._has_mode else None, bytes(self._body), out)
                self.reset()
            elif state in (_MODE, _AFTER_MODE):
                self._abandon(out, "stray '>'")
                self.reset()
            elif state == _DISCARD:
                self.reset()
            else:
                self.stats.noise_bytes += 1
        else:  # CR or LF
            if state in (_MODE, _AFTER_MODE, _BODY):
                self._abandon(out, "line ended inside a token")
            self.reset()

    def _token(self, mode_b: bytes | None, body_b: bytes, out: list[ShoeEvent]) -> None:
        try:
            body = body_b.decode("ascii")
            mode = None if mode_b is None else mode_b.decode("ascii").strip()
        except UnicodeDecodeError:
            body = ""
            mode = None
            ok = False
        else:
            ok = body.isprintable() and (mode is None or mode.isprintable())
        if not ok:
            self.stats.malformed += 1
            out.append(FrameError(reason="malformed",
                                  detail=f"non-ASCII token: {_show((mode_b or b'') + body_b)}"))
            return
        event = self._event(mode, body)
        if isinstance(event, str):
            self.stats.malformed += 1
            shown = (f"[{mode}]" if mode is not None else "") + f"<{body}>"
            out.append(FrameError(reason="malformed", detail=f"{event}: {shown[:80]!r}"))
            return
        self.stats.frames += 1
        out.append(event)

    @staticmethod
    def _event(mode: str | None, body: str) -> ShoeEvent | str:
        m = _CARD.fullmatch(body)
        if m:
            code = m.group(1)
            if not code:
                return "card token without a code"
            if mode is None:
                return "card without a mode (burn or game unknown)"
            lowered = mode.lower()
            if "burn" in lowered:
                burn = True
            elif lowered == "game":
                burn = False
            else:
                return f"card in unknown mode {mode!r}"
            return CardRead(card=normalise_code(code, suit_first=True), code=code, burn=burn)
        if _MISREAD.fullmatch(body):
            return Misread(burn=mode is not None and "burn" in mode.lower())
        m = _ALARM.fullmatch(body)
        if m:
            return Alarm(code=m.group(1), text=m.group(2))
        m = _WARNING.fullmatch(body)
        if m:
            return Warning(code=m.group(1))
        return "unknown token"


class BeetekEncoder:
    """Encodes events as beetek tokens (``style``: ``rank-suit``, ``suit-first``; ``ten``: 10|T)."""

    name = "beetek"

    def __init__(self, style: str = "rank-suit", ten: str = "10") -> None:
        if style not in ("rank-suit", "suit-first") or ten not in ("10", "T"):
            raise ValueError(f"bad beetek encoder options: style={style!r} ten={ten!r}")
        self.style = style
        self.ten = ten

    def card_code(self, card: str) -> str:
        """The code this shoe would send for a canonical card text such as ``Td``."""
        rank, suit = card[:-1], card[-1].upper()
        if rank.upper() == "T":
            rank = self.ten
        return suit + rank if self.style == "suit-first" else rank + suit

    def encode(self, event: ShoeEvent) -> bytes:
        """Encode one event as one token with CR LF.

        Raises:
            UnsupportedEvent: beetek has no token for it (retract, lid, cut, heartbeat...).
        """
        match event:
            case CardRead():
                code = event.code or (self.card_code(event.card) if event.card else "??")
                mode = "Manual Burn Cards" if event.burn else "Game"
                text = f"[{mode}]<Card:{code}>"
            case Misread():
                text = "[Manual Burn Cards]<Game>" if event.burn else "[Game]<Game>"
            case Alarm():
                text = f"[GameAlarm]<Alarm:{event.code} {event.text}>".rstrip()
            case Warning():
                code = event.code if event.code.lower().startswith("0x") else f"0x{event.code}"
                text = f"<W{code}>"
            case _:
                raise UnsupportedEvent(
                    f"the beetek dialect has no token for {type(event).__name__}")
        clean = "".join(ch if " " <= ch <= "~" else "?" for ch in text)
        return clean.encode("ascii") + b"\r\n"
