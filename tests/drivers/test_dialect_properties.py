"""Property tests of both dialects (hypothesis): splits, noise, and never raising."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from controller.game.cards import DECK
from controller.game.events import (
    Alarm,
    CardRead,
    Cut,
    Empty,
    FrameError,
    Heartbeat,
    Lid,
    Misread,
    Retract,
    ShoeEvent,
    Warning,
)
from drivers.dialects import make_decoder, make_encoder

CARD_TEXTS = [str(c) for c in DECK]
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def beetek_codes(draw, card: str) -> str:
    rank, suit = card[0], card[1]
    rank = draw(st.sampled_from(["10", "T"])) if rank == "T" else rank
    rank = draw(st.sampled_from([rank, rank.lower()]))
    suit = draw(st.sampled_from([suit, suit.upper()]))
    return draw(st.sampled_from([rank + suit, suit + rank]))


@st.composite
def event_streams(draw, dialect: str) -> list[ShoeEvent]:
    n = draw(st.integers(1, 12))
    events: list[ShoeEvent] = []
    seq = draw(st.integers(0, 65535))
    for _ in range(n):
        kind = draw(st.sampled_from(["card", "card", "card", "misread", "alarm", "warning",
                                     "hb", "lid", "cut", "empty", "retract", "unknown"]))
        if dialect == "beetek" and kind in ("hb", "lid", "cut", "empty", "retract"):
            kind = "card"
        card = draw(st.sampled_from(CARD_TEXTS))
        s = seq if dialect == "native" else None
        if kind == "card":
            code = draw(beetek_codes(card)) if dialect == "beetek" else card
            ev: ShoeEvent = CardRead(card=card, code=code, burn=draw(st.booleans()), seq=s)
        elif kind == "unknown":
            ev = CardRead(card=None, code=draw(st.sampled_from(["D12", "XX", "37", "1S"])),
                          seq=s)
        elif kind == "misread":
            ev = Misread(burn=draw(st.booleans()), seq=s)
        elif kind == "alarm":
            ev = Alarm(code="E3", text=draw(st.sampled_from(["Card Not Read", "jam"])), seq=s)
        elif kind == "warning":
            ev = Warning(code="0x0" + str(draw(st.integers(0, 9))), seq=s)
        elif kind == "hb":
            ev = Heartbeat(uptime_ms=draw(st.integers(0, 10**9)), seq=s)
        elif kind == "lid":
            ev = Lid(open=draw(st.booleans()), seq=s)
        elif kind == "retract":
            ev = Retract(card_seq=(seq - 1) % 65536, seq=s)
        else:
            ev = Cut(seq=s) if kind == "cut" else Empty(seq=s)
        events.append(ev)
        seq = (seq + 1) % 65536
    return events


def frames_of(dialect: str, events: list[ShoeEvent]) -> list[bytes]:
    enc = make_encoder(dialect)
    return [enc.encode(e) for e in events]


def feed_split(dialect: str, data: bytes, cuts: list[int]) -> list[ShoeEvent]:
    dec = make_decoder(dialect)
    out: list[ShoeEvent] = []
    prev = 0
    for cut in sorted(set(cuts)) + [len(data)]:
        out += dec.feed(data[prev:cut])
        prev = cut
    return out


NOISE = st.one_of(
    st.binary(max_size=40),
    st.lists(st.sampled_from([b"$", b"*", b",", b"[", b"]", b"<", b">", b"\r", b"\n", b" ",
                              b"Card:", b"Game", b"CARD", b"17", b"\xff", b"\x00", b"Qh"]),
             max_size=12).map(b"".join),
)


def _check_dialect_splits(dialect: str, data_events, cuts_frac):
    events = data_events
    data = b"".join(frames_of(dialect, events))
    cuts = [int(f * len(data)) for f in cuts_frac]
    assert feed_split(dialect, data, cuts) == events
    assert feed_split(dialect, data, list(range(len(data)))) == events


@SETTINGS
@given(event_streams("native"), st.lists(st.floats(0, 1), max_size=20))
def test_native_any_split_gives_the_same_events(events, cuts):
    _check_dialect_splits("native", events, cuts)


@SETTINGS
@given(event_streams("beetek"), st.lists(st.floats(0, 1), max_size=20))
def test_beetek_any_split_gives_the_same_events(events, cuts):
    _check_dialect_splits("beetek", events, cuts)


def _check_noise(dialect: str, events, noises, cuts_frac):
    for noise in noises:
        fresh = make_decoder(dialect).feed(noise + b"\r\n")
        assume(all(isinstance(e, FrameError) for e in fresh))
    frames = frames_of(dialect, events)
    data = b"".join(f + n for f, n in zip(frames, noises + [b""] * len(frames), strict=False))
    data = noises[-1] + data if noises else data
    cuts = [int(f * len(data)) for f in cuts_frac]
    got = [e for e in feed_split(dialect, data, cuts) if not isinstance(e, FrameError)]
    assert got == events


@SETTINGS
@given(event_streams("native"), st.lists(NOISE, max_size=12), st.lists(st.floats(0, 1),
                                                                        max_size=8))
def test_native_noise_between_frames_never_adds_or_loses_a_card(events, noises, cuts):
    _check_noise("native", events, noises, cuts)


@SETTINGS
@given(event_streams("beetek"), st.lists(NOISE, max_size=12), st.lists(st.floats(0, 1),
                                                                        max_size=8))
def test_beetek_noise_between_frames_never_adds_or_loses_a_card(events, noises, cuts):
    _check_noise("beetek", events, noises, cuts)


@st.composite
def mutated(draw, dialect: str) -> bytes:
    data = bytearray(b"".join(frames_of(dialect, draw(event_streams(dialect)))))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "dup"]))
        i = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and data:
            del data[i:i + draw(st.integers(1, 8))]
        else:
            data[i:i] = data[i:i + draw(st.integers(1, 30))]
    return bytes(data)


@SETTINGS
@given(st.sampled_from(["native", "beetek"]), st.data(), st.lists(st.floats(0, 1), max_size=6))
def test_feed_never_raises(dialect, data, cuts_frac):
    raw = data.draw(st.one_of(st.binary(max_size=300), mutated(dialect)))
    cuts = [int(f * len(raw)) for f in cuts_frac]
    for ev in feed_split(dialect, raw, cuts):
        assert isinstance(ev, ShoeEvent)
        if isinstance(ev, CardRead):
            assert ev.card is None or ev.card in CARD_TEXTS
