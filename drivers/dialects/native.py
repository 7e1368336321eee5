"""The ``native`` dialect: this product's own line protocol, with seq and CRC.

``$<seq>,<TYPE>[,<field>...]*<CRC>`` and CR LF. The line types, the framing and the host's
sequence rules 1-8 that this decoder applies: docs/shoe-frames.md.
"""

from __future__ import annotations

import binascii
import re

from controller.game.codes import normalise_code
from controller.game.events import (
    Alarm,
    CardRead,
    Cut,
    Empty,
    FrameError,
    Heartbeat,
    Hello,
    Lid,
    Misread,
    Retract,
    SeqGap,
    ShoeEvent,
    Warning,
)
from drivers.dialects import ScanningDecoder, UnsupportedEvent

MAX_LINE = 200
SEQ_MODULO = 65536
# Seq numbers remembered (with their lines) for rules 4, 5 and 7.
HISTORY = 1024
# Rule 8: a run restarting the seq without a HELLO starts below RESTART_NEAR and has at
# least RESTART_RUN consecutive lines.
RESTART_NEAR = 64
RESTART_RUN = 2
_SKIPPED = None
_SPECIAL = re.compile(rb"[$\r\n]")
_HEX = frozenset(b"0123456789ABCDEFabcdef")


def _show(body: bytes) -> str:
    return repr("$" + body[:60].decode("ascii", "backslashreplace"))


# Flipped in a line's CRC by encode_bad_crc (never 0: always wrong).
BAD_CRC_MASK = 0x5A5A


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of the bytes between ``$`` and ``*`` (``crc_hqx`` from 0xFFFF)."""
    return binascii.crc_hqx(data, 0xFFFF)


def _clean(text: str, *, allow_commas: bool = False) -> str:
    out = []
    for ch in text:
        if ch in "$\r\n" or not (" " <= ch <= "~") or (ch == "," and not allow_commas):
            out.append("?")
        else:
            out.append(ch)
    return "".join(out)


def encode_line(seq: int, typ: str, *fields: str, crc: int | None = None) -> bytes:
    """One native line, CRC and CR LF included, e.g. ``$17,CARD,Qh*XXXX``.

    Args:
        seq: 0..65535 (taken modulo 65536).
        typ: the TYPE word, e.g. ``CARD``.
        *fields: the fields after TYPE, as text (``$`` and control characters become
            ``?``; commas only in the last field).
        crc: force this CRC value (fault injection); None computes the right one.
    """
    parts = [str(seq % SEQ_MODULO), _clean(typ)]
    for i, f in enumerate(fields):
        parts.append(_clean(str(f), allow_commas=i == len(fields) - 1))
    payload = ",".join(parts).encode("ascii")
    value = crc16(payload) if crc is None else crc & 0xFFFF
    return b"$" + payload + b"*" + f"{value:04X}".encode("ascii") + b"\r\n"


def event_fields(event: ShoeEvent) -> tuple[str, ...]:
    """``(TYPE, field, ...)`` of an event in the native dialect.

    Raises:
        UnsupportedEvent: the event is not something a shoe sends.
    """
    match event:
        case Hello():
            return ("HELLO", event.model, event.serial, event.firmware)
        case CardRead():
            code = event.code or event.card or "??"
            return ("CARD", code, "BURN") if event.burn else ("CARD", code)
        case Misread():
            return ("MISREAD", "BURN") if event.burn else ("MISREAD",)
        case Retract():
            if event.card_seq is None:
                raise UnsupportedEvent("native RETRACT needs the seq of the card it undoes")
            return ("RETRACT", str(event.card_seq))
        case Lid():
            return ("LID", "OPEN" if event.open else "CLOSED")
        case Cut():
            return ("CUT",)
        case Empty():
            return ("EMPTY",)
        case Alarm():
            return ("ALARM", event.code, event.text)
        case Warning():
            return ("WARN", event.code)
        case Heartbeat():
            return ("HB", str(event.uptime_ms))
    raise UnsupportedEvent(f"a shoe does not send {type(event).__name__} in the native dialect")


class NativeEncoder:
    """Encodes events as native lines; the event's ``seq`` is the line's seq."""

    name = "native"

    @staticmethod
    def card_code(card: str) -> str:
        """A native shoe sends the canonical card text itself (``Td``)."""
        return card

    def encode(self, event: ShoeEvent) -> bytes:
        """Encode one event as a line, its ``seq`` the line's.

        Raises:
            UnsupportedEvent: no seq, or not an event a shoe sends.
        """
        if event.seq is None:
            raise UnsupportedEvent("native lines need a seq")
        return encode_line(event.seq, *event_fields(event))

    def encode_bad_crc(self, event: ShoeEvent) -> bytes:
        """The line :meth:`encode` gives, with a wrong CRC (a simulated shoe's ``bad_crc``).

        Raises:
            UnsupportedEvent: as :meth:`encode`.
        """
        good = self.encode(event)
        return encode_line(event.seq or 0, *event_fields(event),
                           crc=int(good[-6:-2], 16) ^ BAD_CRC_MASK)

    @staticmethod
    def ping(seq: int) -> bytes:
        """The host's ``PING`` line with the given seq."""
        return encode_line(seq, "PING")


def _u16(text: str) -> int | None:
    if 1 <= len(text) <= 5 and text.isascii() and text.isdigit():
        value = int(text)
        if value < SEQ_MODULO:
            return value
    return None


class NativeDecoder(ScanningDecoder):
    """Incremental decoder of native lines (the rules: docs/shoe-frames.md)."""

    name = "native"
    SPECIAL = _SPECIAL

    def __init__(self, *, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        super().__init__()
        self._frame = bytearray()
        self._in_frame = False
        self._discarding = False
        self._expected: int | None = None
        # seq -> its line (the bytes between $ and the line end), or _SKIPPED; oldest first
        self._history: dict[int, bytes | None] = {}
        # lines behind the expected seq, consecutive, that may start a restart (rule 8)
        # (seq, line, event, new: says something its seq had not said)
        self._run: list[tuple[int, bytes, ShoeEvent, bool]] = []

    def reset(self) -> None:
        """Forget an unfinished frame (use after a reconnect); the seq history stays."""
        self._frame.clear()
        self._in_frame = False
        self._discarding = False

    def restart(self) -> None:
        """Forget everything, seq history included (a new shoe)."""
        self.reset()
        self._expected = None
        self._history.clear()
        self._run.clear()

    # -- framing -----------------------------------------------------------------------

    def _plain(self, data: bytes, pos: int, end: int, out: list[ShoeEvent]) -> None:
        if not self._in_frame:
            self.stats.noise_bytes += end - pos
        elif not self._discarding:
            if len(self._frame) + (end - pos) > self.max_line:
                self._discarding = True
                self._frame.clear()
                self.stats.oversize += 1
                out.append(FrameError(reason="oversize",
                                      detail=f"line longer than {self.max_line} bytes"))
            else:
                self._frame += data[pos:end]

    def _special(self, byte: int, out: list[ShoeEvent]) -> None:
        if byte == 0x24:  # '$'
            if self._in_frame and not self._discarding:
                self.stats.malformed += 1
                out.append(FrameError(reason="malformed",
                                      detail=f"frame cut short: {_show(bytes(self._frame))}"))
            self._in_frame = True
        else:  # CR or LF
            if self._in_frame and not self._discarding:
                self._line(bytes(self._frame), out)
            self._in_frame = False
        self._discarding = False
        self._frame.clear()

    def _bad(self, out: list[ShoeEvent], why: str, body: bytes) -> None:
        self.stats.malformed += 1
        out.append(FrameError(reason="malformed", detail=f"{why}: {_show(body)}"))

    def _line(self, body: bytes, out: list[ShoeEvent]) -> None:
        star = body.rfind(b"*")
        if star < 0:
            self._bad(out, "no *CRC", body)
            return
        payload, crc_text = body[:star], body[star + 1:]
        if len(crc_text) != 4 or not all(c in _HEX for c in crc_text):
            self._bad(out, "bad CRC field", body)
            return
        want = crc16(payload)
        if int(crc_text, 16) != want:
            self.stats.crc += 1
            out.append(FrameError(reason="crc",
                                  detail=f"CRC {crc_text.decode()} != {want:04X}: {_show(body)}"))
            return
        try:
            text = payload.decode("ascii")
        except UnicodeDecodeError:
            self._bad(out, "non-ASCII bytes", body)
            return
        if not text.isprintable():
            self._bad(out, "control characters", body)
            return
        parts = text.split(",")
        seq = _u16(parts[0])
        if seq is None or len(parts) < 2:
            self._bad(out, "bad seq or no TYPE", body)
            return
        typ, fields = parts[1], parts[2:]
        if typ == "PING":
            return  # the host's own line (echo on a loopback): not an event
        event = self._event(seq, typ, fields)
        if event is None:
            self._bad(out, f"bad {typ[:12]!r} line", body)
            return
        self.stats.frames += 1
        self._sequence(seq, event, body, out)

    @staticmethod
    def _event(seq: int, typ: str, fields: list[str]) -> ShoeEvent | None:
        nf = len(fields)
        if typ == "CARD" and (nf == 1 or (nf == 2 and fields[1] == "BURN")):
            code = fields[0]
            return CardRead(card=normalise_code(code), code=code, burn=nf == 2, seq=seq)
        if typ == "HB" and nf == 1:
            uptime = fields[0]
            if uptime.isascii() and uptime.isdigit() and len(uptime) <= 20:
                return Heartbeat(uptime_ms=int(uptime), seq=seq)
            return None
        if typ == "MISREAD" and (nf == 0 or (nf == 1 and fields[0] == "BURN")):
            return Misread(burn=nf == 1, seq=seq)
        if typ == "RETRACT" and nf == 1:
            card_seq = _u16(fields[0])
            return None if card_seq is None else Retract(card_seq=card_seq, seq=seq)
        if typ == "LID" and nf == 1 and fields[0] in ("OPEN", "CLOSED"):
            return Lid(open=fields[0] == "OPEN", seq=seq)
        if typ == "CUT" and nf == 0:
            return Cut(seq=seq)
        if typ == "EMPTY" and nf == 0:
            return Empty(seq=seq)
        if typ == "ALARM" and nf >= 1:
            return Alarm(code=fields[0], text=",".join(fields[1:]), seq=seq)
        if typ == "WARN" and nf == 1:
            return Warning(code=fields[0], seq=seq)
        if typ == "HELLO" and nf == 3:
            return Hello(model=fields[0], serial=fields[1], firmware=fields[2], seq=seq)
        return None

    # -- sequence (the rules of docs/shoe-frames.md) ------------------------------------

    def _keep(self, seq: int, line: bytes | None) -> None:
        history = self._history
        history[seq] = line
        while len(history) > HISTORY:
            del history[next(iter(history))]

    def _deliver(self, seq: int, line: bytes, event: ShoeEvent, out: list[ShoeEvent]) -> None:
        self._keep(seq, line)
        self._expected = (seq + 1) % SEQ_MODULO
        self._run.clear()
        out.append(event)

    def _count(self, reason: str) -> None:
        extra = self.stats.extra
        extra[reason] = extra.get(reason, 0) + 1

    def _sequence(self, seq: int, event: ShoeEvent, line: bytes, out: list[ShoeEvent]) -> None:
        expected = self._expected
        history = self._history
        if isinstance(event, Hello) and seq == 0:  # rule 2
            if expected == 1 and _same(history.get(0), line):
                self.stats.retransmissions += 1
                return
            history.clear()
            self._deliver(seq, line, event, out)
            return
        if expected is None or seq == expected:  # rule 3
            self._deliver(seq, line, event, out)
            return
        run = self._run
        goes_on = bool(run) and seq == (run[-1][0] + 1) % SEQ_MODULO  # a run of rule 8
        if seq in history:
            known = history[seq]
            if known is _SKIPPED and not goes_on:  # rule 7: late
                self.stats.late += 1
                self._keep(seq, line)
                run.clear()
                out.append(event)
                return
            if _same(known, line):  # rule 4, unless a run of rule 8 proves it new
                self._behind(seq, line, event, "", "", out)
                return
            if known is not _SKIPPED:  # rule 5
                self._behind(seq, line, event, "seq_reuse",
                             f"seq {seq} again with another line: {_show(known)} then "
                             f"{_show(line)}", out)
                return
        elif not goes_on and (seq - expected) % SEQ_MODULO < SEQ_MODULO // 2:  # rule 6
            self.stats.seq_gaps += 1
            out.append(SeqGap(expected=expected, got=seq, seq=seq))
            skipped = (seq - expected) % SEQ_MODULO
            for back in range(min(skipped, HISTORY), 0, -1):
                self._keep((seq - back) % SEQ_MODULO, _SKIPPED)
            self._deliver(seq, line, event, out)
            return
        self._behind(seq, line, event, "seq_back",  # rule 7
                     f"seq {seq} is behind the expected {expected}: {_show(line)}", out)

    def _behind(self, seq: int, line: bytes, event: ShoeEvent, reason: str, detail: str,
                out: list[ShoeEvent]) -> None:
        """A line behind the expected seq: reported, and perhaps a restart (rule 8).

        An empty ``reason`` (rule 4, a repeat) holds it in the run as a retransmission,
        delivered after all if the run proves a restart.
        """
        run = self._run
        if not (run and seq == (run[-1][0] + 1) % SEQ_MODULO):
            run.clear()
        run.append((seq, line, event, bool(reason)))
        first = run[0][0]
        if len(run) < RESTART_RUN or first >= RESTART_NEAR or not any(r[3] for r in run):
            if reason:
                self._count(reason)
                out.append(FrameError(reason=reason, detail=detail))
            else:
                self.stats.retransmissions += 1
            return
        self._count("restart_without_hello")
        out.append(FrameError(reason="restart_without_hello", detail=(
            f"seq starts again at {first} without a HELLO, {_show(run[0][1])} after "
            f"{(self._expected - 1) % SEQ_MODULO}: taken as a shoe restart whose HELLO "
            "was lost")))
        self.stats.retransmissions -= sum(not r[3] for r in run[:-1])
        if first > 0:
            self.stats.seq_gaps += 1
            out.append(SeqGap(expected=0, got=first, seq=first))
        lines, self._run = run, []
        self._history.clear()
        for s, ln, ev, _new in lines:
            self._deliver(s, ln, ev, out)


def _same(known: bytes | None, line: bytes) -> bool:
    """Two lines of one seq say the same (TYPE and fields; the seq's text may differ)."""
    if known is None:
        return False
    return known[known.find(b",") + 1:known.rfind(b"*")] == line[line.find(b",") + 1:
                                                                 line.rfind(b"*")]
