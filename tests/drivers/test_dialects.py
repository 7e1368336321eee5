"""Unit tests of the two dialects: framing, normalisation, seq rules, encoders."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    Warning,
)
from drivers.dialects import UnsupportedEvent, make_decoder, make_encoder
from drivers.dialects.beetek import BeetekDecoder, BeetekEncoder
from drivers.dialects.native import NativeDecoder, NativeEncoder, crc16, encode_line


def test_crc_check_value():
    assert crc16(b"123456789") == 0x29B1


def _crc_bit_by_bit(data: bytes) -> int:
    """CRC-16/CCITT-FALSE as its definition states it: poly 0x1021, init 0xFFFF, MSB first."""
    crc = 0xFFFF
    for byte in data:
        for i in range(7, -1, -1):
            top = bool(crc & 0x8000) ^ bool(byte >> i & 1)
            crc = ((crc << 1) & 0xFFFF) ^ (0x1021 if top else 0)
    return crc


@given(st.binary(max_size=300))
def test_crc_is_the_ccitt_false_of_its_definition(data):
    assert crc16(data) == _crc_bit_by_bit(data)


def test_example_line():
    line = encode_line(17, "CARD", "Qh")
    assert line.startswith(b"$17,CARD,Qh*") and line.endswith(b"\r\n")
    assert line[12:16] == f"{binascii.crc_hqx(b'17,CARD,Qh', 0xFFFF):04X}".encode()
    assert NativeDecoder().feed(line) == [CardRead(card="Qh", code="Qh", seq=17)]


@pytest.mark.parametrize(
    ("code", "suit_first", "want"),
    [
        ("4S", False, "4s"), ("10H", False, "Th"), ("TH", False, "Th"), ("th", False, "Th"),
        ("qh", False, "Qh"), ("H3", False, None), ("H3", True, "3h"), ("S10", True, "Ts"),
        ("D12", True, None), ("37", True, None), ("", True, None), ("1S", True, None),
        ("AS ", False, "As"), ("10", True, None),
    ],
)
def test_normalise_code(code, suit_first, want):
    assert normalise_code(code, suit_first=suit_first) == want


def test_native_every_type_round_trips():
    enc = NativeEncoder()
    events = [
        Hello(model="SIM-1", serial="0042", firmware="1.2.3", seq=0),
        CardRead(card="As", code="As", seq=1),
        CardRead(card="Td", code="10d", burn=True, seq=2),
        Misread(seq=3),
        Retract(card_seq=1, seq=4),
        Lid(open=True, seq=5),
        Lid(open=False, seq=6),
        Cut(seq=7),
        Empty(seq=8),
        Alarm(code="JAM", text="feed jam, lower tray", seq=9),
        Warning(code="0x01", seq=10),
        Heartbeat(uptime_ms=123456, seq=11),
        CardRead(card=None, code="ZZ", seq=12),
        Misread(burn=True, seq=13),
    ]
    data = b"".join(enc.encode(e) for e in events)
    assert NativeDecoder().feed(data) == events
    assert enc.encode(events[-1]).startswith(b"$13,MISREAD,BURN*")


def test_native_burn_is_the_last_field_and_the_only_word_there():
    lines = [encode_line(1, "MISREAD", "burn"), encode_line(2, "MISREAD", "BURN", "x"),
             encode_line(3, "MISREAD", "GAME"), encode_line(4, "CARD", "As", "Burn")]
    assert [e.type for e in NativeDecoder().feed(b"".join(lines))] == ["frame_error"] * 4


def test_native_rules():
    d = NativeDecoder()
    out = d.feed(encode_line(5, "CARD", "2c") + encode_line(5, "CARD", "2c"))
    assert out == [CardRead(card="2c", code="2c", seq=5)]
    assert d.stats.retransmissions == 1
    out = d.feed(encode_line(8, "CARD", "3c"))
    assert out == [SeqGap(expected=6, got=8, seq=8), CardRead(card="3c", code="3c", seq=8)]
    out = d.feed(encode_line(7, "MISREAD"))  # late, never seen: delivered and counted
    assert out == [Misread(seq=7)] and d.stats.late == 1
    out = d.feed(encode_line(0, "HELLO", "m", "s", "f") + encode_line(1, "CUT"))
    assert out == [Hello(model="m", serial="s", firmware="f", seq=0), Cut(seq=1)]
    wrap = NativeDecoder()
    out = wrap.feed(b"".join(encode_line(s, "HB", str(s)) for s in (65534, 65535, 0, 1)))
    assert [e.seq for e in out] == [65534, 65535, 0, 1]
    assert wrap.stats.seq_gaps == 0


def test_native_frame_errors():
    d = NativeDecoder()
    bad_crc = encode_line(1, "CARD", "Ah", crc=0)
    out = d.feed(bad_crc + b"$2,CARD,Ah\r\n" + b"$" + b"9" * 300 + b"\r\n" + b"\r\n\n\r")
    assert [e.reason for e in out if isinstance(e, FrameError)] == ["crc", "malformed", "oversize"]
    assert d.stats.frame_errors == {"crc": 1, "malformed": 1, "oversize": 1}
    assert not any(isinstance(e, CardRead) for e in out)
    # an unknown TYPE, a bad seq, non-ASCII: dropped, counted
    payloads = [b"1,NOPE", b"x,CARD,As", b"70000,CARD,As", b"1,CARD,\xc3\xa9s"]
    for p in payloads:
        line = b"$" + p + b"*" + f"{crc16(p):04X}".encode() + b"\r\n"
        assert d.feed(line)[0].type == "frame_error"


def test_native_encoder_makes_the_bad_crc_line_beside_the_good_one():
    """``encode_bad_crc``: the line ``encode`` gives, but for a CRC the decoder refuses."""
    enc = NativeEncoder()
    event = CardRead(card="Qh", code="Qh", seq=17)
    good, bad = enc.encode(event), enc.encode_bad_crc(event)
    assert bad != good and bad[:-6] == good[:-6] and bad.endswith(b"\r\n")
    assert int(bad[-6:-2], 16) != crc16(good[1:-7])
    (error,) = NativeDecoder().feed(bad)
    assert error.type == "frame_error" and error.reason == "crc"


def test_beetek_tokens():
    data = (b"[Game]<Card:4S>\r\n[Manual Burn Cards] <Card:9D>\r\n[Game]<Game>\r\n"
            b"[GameAlarm]<Alarm:E3 Card Not Read>\r\n<W0x01>\r\n[Game]<Card:H3>\r\n"
            b"[Game] < Card : TH >\r\n[Game]<Card:D12>\r\n[Manual Burn Cards]<Game>\r\n"
            b"[manual burn cards] < game >\r\n<Game>\r\n")
    assert BeetekDecoder().feed(data) == [
        CardRead(card="4s", code="4S"),
        CardRead(card="9d", code="9D", burn=True),
        Misread(),
        Alarm(code="E3", text="Card Not Read"),
        Warning(code="0x01"),
        CardRead(card="3h", code="H3"),
        CardRead(card="Th", code="TH"),
        CardRead(card=None, code="D12"),
        Misread(burn=True),                 # an unreadable burn: the shoe was in burn mode
        Misread(burn=True),
        Misread(),                          # no mode: a misread, as always
    ]


def test_beetek_encoder_round_trips_burns():
    events = [CardRead(card="9d", code="9D", burn=True), Misread(burn=True), Misread()]
    data = b"".join(BeetekEncoder().encode(e) for e in events)
    assert data == (b"[Manual Burn Cards]<Card:9D>\r\n[Manual Burn Cards]<Game>\r\n"
                    b"[Game]<Game>\r\n")
    assert BeetekDecoder().feed(data) == events


def test_beetek_resync_and_errors():
    d = BeetekDecoder()
    out = d.feed(b"\x00\xffjunk[Gam[Game]<Card:5C>\r\n<Card:4S>\r\n[Game]<Ca\r\n"
                 b"[Weird]<Card:6C>\r\n[Game]<" + b"x" * 200 + b">[Game]<Card:7C>\r\n")
    assert [e.type for e in out] == ["frame_error", "card", "frame_error", "frame_error",
                                     "frame_error", "frame_error", "card"]
    assert [e.card for e in out if isinstance(e, CardRead)] == ["5c", "7c"]
    assert d.stats.oversize == 1 and d.stats.noise_bytes >= 4


def test_beetek_encoder_styles_and_limits():
    assert BeetekEncoder(style="suit-first", ten="T").encode(CardRead(card="Td")) == (
        b"[Game]<Card:DT>\r\n")
    with pytest.raises(UnsupportedEvent):
        BeetekEncoder().encode(Heartbeat(uptime_ms=1))
    with pytest.raises(UnsupportedEvent):
        NativeEncoder().encode(CardRead(card="As"))  # no seq


def test_registry():
    assert make_decoder("native").name == "native"
    assert make_encoder("beetek", style="suit-first").name == "beetek"
    with pytest.raises(ValueError, match="unknown shoe dialect"):
        make_decoder("klingon")


def _lines(*specs) -> bytes:
    return b"".join(encode_line(seq, *fields) for seq, *fields in specs)


def test_native_a_seq_reused_with_another_card_is_a_frame_error_naming_both_lines():
    d = NativeDecoder()
    assert d.feed(_lines((4, "HB", "1"), (5, "CARD", "2c"))) == [
        Heartbeat(uptime_ms=1, seq=4), CardRead(card="2c", code="2c", seq=5)]
    (err,) = d.feed(_lines((5, "CARD", "3c")))               # the same seq, another card
    assert err.reason == "seq_reuse" and d.stats.retransmissions == 0
    assert "'$5,CARD,2c*" in err.detail and "'$5,CARD,3c*" in err.detail
    assert d.feed(_lines((5, "CARD", "2c"))) == []           # the same line: a retransmission
    assert d.stats.retransmissions == 1
    assert d.feed(_lines((6, "CARD", "4c"))) == [CardRead(card="4c", code="4c", seq=6)]
    assert d.stats.extra == {"seq_reuse": 1}


def test_native_a_reuse_anywhere_in_the_last_64_lines_is_named():
    d = NativeDecoder()
    d.feed(b"".join(encode_line(s, "CARD", "As" if s == 140 else "Kd") for s in range(100, 200)))
    for back in range(1, 65):
        seq = 199 - back + 1
        (err,) = d.feed(encode_line(seq, "CARD", "Qh"))
        assert err.reason == "seq_reuse" and f"seq {seq} again" in err.detail
    assert d.stats.extra["seq_reuse"] == 64 and d.stats.retransmissions == 0


def test_native_a_restart_whose_hello_is_corrupt_loses_no_line():
    d = NativeDecoder()
    d.feed(_lines((0, "HELLO", "m", "s", "f"), *[(s, "HB", str(s)) for s in range(1, 41)]))
    out = d.feed(encode_line(0, "HELLO", "m", "s", "f", crc=0)      # the restart's HELLO
                 + _lines((1, "CARD", "As"), (2, "HB", "15"), (3, "CARD", "Kd")))
    assert [e.type for e in out] == ["frame_error", "frame_error", "frame_error", "seq_gap",
                                     "card", "heartbeat", "card"]
    assert [e.reason for e in out[:3]] == ["crc", "seq_reuse", "restart_without_hello"]
    assert "'$1,CARD,As*" in out[2].detail
    assert out[3] == SeqGap(expected=0, got=1, seq=1)                 # the HELLO was lost
    assert out[4:] == [CardRead(card="As", code="As", seq=1), Heartbeat(uptime_ms=15, seq=2),
                       CardRead(card="Kd", code="Kd", seq=3)]
    assert d.feed(_lines((4, "CARD", "Qh"))) == [CardRead(card="Qh", code="Qh", seq=4)]
    assert d.stats.extra["restart_without_hello"] == 1


def test_native_a_restart_whose_hello_is_corrupt_delivers_a_line_repeating_an_old_one():
    d = NativeDecoder()
    d.feed(_lines((0, "HELLO", "m", "s", "f"), (1, "CARD", "Qh"), (2, "CARD", "2c"),
                  *[(s, "HB", str(s)) for s in range(3, 9)]))
    out = d.feed(encode_line(0, "HELLO", "m", "s", "f", crc=0)   # the restart's HELLO
                 + _lines((1, "CARD", "Qh"), (2, "CARD", "3c")))   # Qh again at seq 1
    assert [e.type for e in out] == ["frame_error", "frame_error", "seq_gap", "card", "card"]
    assert out[1].reason == "restart_without_hello" and "'$1,CARD,Qh*" in out[1].detail
    assert out[2] == SeqGap(expected=0, got=1, seq=1)
    assert out[3:] == [CardRead(card="Qh", code="Qh", seq=1), CardRead(card="3c", code="3c",
                                                                      seq=2)]
    assert d.stats.retransmissions == 0
    assert d.feed(_lines((3, "HB", "7"))) == [Heartbeat(uptime_ms=7, seq=3)]


def test_native_old_lines_sent_again_stay_retransmissions():
    d = NativeDecoder()
    d.feed(_lines(*[(s, "CARD", "Kd") for s in range(0, 10)]))
    assert d.feed(_lines((3, "CARD", "Kd"), (4, "CARD", "Kd"), (5, "CARD", "Kd"))) == []
    assert d.stats.retransmissions == 3
    assert d.feed(_lines((10, "CARD", "Qh"))) == [CardRead(card="Qh", code="Qh", seq=10)]


def test_native_a_restart_after_a_long_session_and_its_first_lines_lost():
    d = NativeDecoder()
    d.feed(b"".join(encode_line(s, "HB", str(s)) for s in range(0, 3000)))
    # HELLO and line 1 lost; lines 2 and 3 are older than anything remembered
    out = d.feed(_lines((2, "CARD", "7s"), (3, "CARD", "8s")))
    assert [e.type for e in out] == ["frame_error", "frame_error", "seq_gap", "card", "card"]
    assert out[0].reason == "seq_back" and out[1].reason == "restart_without_hello"
    assert out[2] == SeqGap(expected=0, got=2, seq=2)
    assert [e.card for e in out[3:]] == ["7s", "8s"]


def test_native_a_stray_line_is_reported_and_the_stream_goes_on():
    d = NativeDecoder()
    d.feed(_lines(*[(s, "HB", str(s)) for s in range(10, 20)]))
    out = d.feed(_lines((3, "CARD", "2h"), (20, "CARD", "5h"), (21, "HB", "21")))
    assert out[0].type == "frame_error" and out[0].reason == "seq_back"
    assert "'$3,CARD,2h*" in out[0].detail
    assert out[1:] == [CardRead(card="5h", code="5h", seq=20), Heartbeat(uptime_ms=21, seq=21)]


def test_native_a_run_far_from_0_is_no_restart():
    d = NativeDecoder()
    d.feed(_lines(*[(s, "HB", str(s)) for s in range(0, 300)]))
    out = d.feed(_lines((100, "CARD", "2h"), (101, "CARD", "3h"), (102, "CARD", "4h")))
    assert [e.reason for e in out] == ["seq_reuse"] * 3
    assert d.feed(_lines((300, "CARD", "5h"))) == [CardRead(card="5h", code="5h", seq=300)]
