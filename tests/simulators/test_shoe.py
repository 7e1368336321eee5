"""The simulated shoe: deck, firmware model, and every fault by API."""

from __future__ import annotations

import threading

import pytest

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
from drivers.dialects import make_decoder
from drivers.dialects.native import NativeEncoder
from simulators.faults import FAULT_NEEDS, FAULTS, FaultNotSupported
from simulators.ports import PortGone, ShoePort
from simulators.runner import ShoeRunner
from simulators.shoe import SimulatedShoe


class RecordingPort(ShoePort):
    """A port that records each write, so splits and coalescing can be seen."""

    def __init__(self, name: str = "rec-0") -> None:
        self.name = name
        self.url = "memory://rec-*"
        self.writes: list[bytes] = []
        self.gone = False
        self.busy = self.denied = False
        self.connected = True

    @property
    def host_connected(self) -> bool:
        return self.connected and not self.gone

    def write(self, data: bytes) -> None:
        if self.gone:
            raise PortGone(self.name)
        self.writes.append(bytes(data))

    def unplug(self) -> None:
        self.gone = True

    def replug(self) -> RecordingPort:
        self.unplug()
        return RecordingPort(self.name[:-1] + str(int(self.name[-1]) + 1))

    def set_busy(self, busy: bool) -> None:
        self.busy = busy

    def set_denied(self, denied: bool) -> None:
        self.denied = denied

    def close(self) -> None:
        self.gone = True

    def take(self) -> bytes:
        data, self.writes = b"".join(self.writes), []
        return data


@pytest.fixture
def native():
    shoe = SimulatedShoe("native", seed=5)
    port = RecordingPort()
    shoe.attach(port)
    dec = make_decoder("native")
    assert dec.feed(port.take()) == [Hello(model="SIM-3CP", serial="SIM0001",
                                           firmware="1.0", seq=0)]
    return shoe, port, dec


def test_seeded_deck_is_reproducible_and_scripted_decks_are_followed():
    a = SimulatedShoe("native", seed=42)
    b = SimulatedShoe("native", seed=42)
    assert [a.deal() for _ in range(52)] == [b.deal() for _ in range(52)]
    assert sorted(a.dealt) == sorted(SimulatedShoe("native", seed=1, packs=1)._deck)
    assert a.deal() is None and isinstance(a.sent[-1], Empty)
    s = SimulatedShoe("beetek", cards=["As", "10h", "As"], cut_at=2)
    assert [s.deal() for _ in range(4)] == ["As", "Th", "As", None]
    assert SimulatedShoe("native", seed=3, packs=6).remaining == 312


def test_cut_card_after_n_cards(native):
    shoe = SimulatedShoe("native", seed=5, cut_at=2)
    port = RecordingPort()
    shoe.attach(port)
    shoe.deal(), shoe.deal()
    assert [e.type for e in make_decoder("native").feed(port.take())] == [
        "hello", "card", "card", "cut"]


def test_every_fault_is_known_to_the_injector():
    assert set(FAULTS) >= {
        "split", "coalesce", "noise", "lone_cr", "lone_lf", "bad_crc", "seq_skip",
        "seq_repeat", "seq_reorder", "seq_reuse", "misread", "alarm", "warning", "retract",
        "unknown_card", "duplicate_card", "burn", "cut", "empty", "lid_open", "silence",
        "unplug", "replug", "busy", "permission_denied", "restart", "stall"}
    with pytest.raises(FaultNotSupported, match="unknown fault"):
        SimulatedShoe("native").inject("gremlins")


def test_framing_faults(native):
    shoe, port, dec = native
    shoe.inject("split", pieces=3)
    card = shoe.deal()
    assert len(port.writes) == 3
    shoe.inject("coalesce", count=3)
    cards = [shoe.deal() for _ in range(3)]
    assert len(port.writes) == 4
    shoe.inject("noise")
    shoe.inject("lone_cr")
    shoe.inject("lone_lf")
    assert port.writes[-2:] == [b"\r", b"\n"]
    events = dec.feed(port.take())
    assert [e.card for e in events] == [card, *cards]
    assert dec.stats.noise_bytes > 0


def test_seq_faults(native):
    shoe, port, dec = native
    shoe.inject("bad_crc")
    lost = shoe.deal()
    assert port.writes[-1] == NativeEncoder().encode_bad_crc(shoe.sent[-1])  # the encoder's
    nxt = shoe.deal()
    ev = dec.feed(port.take())
    assert [e.type for e in ev] == ["frame_error", "seq_gap", "card"]
    assert ev[0].reason == "crc" and ev[2].card == nxt and lost != nxt
    shoe.inject("bad_crc", resend=True)
    again = shoe.deal()
    assert port.writes[-2:] == [NativeEncoder().encode_bad_crc(shoe.sent[-1]),
                                NativeEncoder().encode(shoe.sent[-1])]
    assert [(e.type, getattr(e, "card", None)) for e in dec.feed(port.take())] == [
        ("frame_error", None), ("card", again)]
    shoe.inject("seq_skip", count=2)
    shoe.deal()
    assert isinstance(dec.feed(port.take())[0], SeqGap)
    shoe.inject("seq_repeat")
    rep = shoe.deal()
    assert [e.card for e in dec.feed(port.take())] == [rep]
    assert dec.stats.retransmissions == 1
    shoe.inject("seq_reorder")
    first, second = shoe.deal(), shoe.deal()
    ev = dec.feed(port.take())
    assert [e.type for e in ev] == ["seq_gap", "card", "card"]
    assert [e.card for e in ev[1:]] == [second, first] and dec.stats.late == 1


def test_card_faults(native):
    shoe, port, dec = native
    dealt = shoe.deal()
    shoe.inject("retract")
    again = shoe.deal()
    assert again == dealt and shoe.dealt == [dealt]
    shoe.inject("misread")
    shoe.inject("unknown_card", code="D12")
    shoe.inject("duplicate_card", card=again)
    shoe.inject("burn")
    burnt = shoe.deal()
    ev = dec.feed(port.take())
    assert ev[0] == CardRead(card=dealt, code=dealt, seq=1)
    assert ev[1] == Retract(card_seq=1, seq=2)
    assert isinstance(ev[3], Misread)
    assert ev[4] == CardRead(card=None, code="D12", seq=5)
    assert ev[5].card == again and ev[6] == CardRead(card=burnt, code=burnt, burn=True, seq=7)


def test_device_events(native):
    shoe, port, dec = native
    for name in ("alarm", "warning", "cut", "empty", "lid_open", "lid_close"):
        shoe.inject(name)
    assert [type(e) for e in dec.feed(port.take())] == [Alarm, Warning, Cut, Empty, Lid, Lid]
    shoe.inject("restart")
    assert dec.feed(port.take()) == [Hello(model="SIM-3CP", serial="SIM0001", firmware="1.0",
                                           seq=0)]


def test_heartbeat_ping_and_silence(native):
    shoe, port, dec = native
    shoe.host_data(NativeEncoder.ping(0))
    assert isinstance(dec.feed(port.take())[0], Heartbeat)
    shoe.inject("silence")
    shoe.host_data(NativeEncoder.ping(1))
    assert not shoe.heartbeat() and port.take() == b""
    shoe.inject("resume")
    assert shoe.heartbeat()


def test_unplug_mid_frame_keeps_the_frame_for_the_replug(native):
    shoe, port, dec = native
    shoe.inject("unplug", at=5)
    card = shoe.deal()
    assert port.gone and len(port.writes) == 1 and len(port.writes[0]) == 5
    later = shoe.deal()  # dealt while unplugged: stored
    new = shoe.inject("replug")
    assert new is shoe.port and new.name == "rec-1"
    dec.reset()
    ev = dec.feed(new.take())
    assert [e.card for e in ev if isinstance(e, CardRead)] == [card, later]
    assert isinstance(ev[-1], Hello)


def test_open_faults_reach_the_port(native):
    shoe, port, _ = native
    shoe.inject("busy")
    shoe.inject("permission_denied")
    assert port.busy and port.denied
    shoe.inject("busy", busy=False)
    assert not port.busy
    shoe.inject("stall", seconds=5)
    assert shoe.stalled_until > 0


def test_beetek_refuses_what_it_cannot_say():
    shoe = SimulatedShoe("beetek", seed=1, encoder_options={"style": "suit-first", "ten": "T"})
    port = RecordingPort()
    shoe.attach(port)
    for name in FAULT_NEEDS:
        with pytest.raises(FaultNotSupported, match="beetek dialect"):
            shoe.inject(name)
    shoe.inject("misread")
    shoe.inject("burn", count=2)         # burn mode for the next two cards, misreads included
    shoe.inject("alarm")
    shoe.inject("warning", code="0x02")
    shoe.inject("misread")
    card = shoe.deal()
    game = shoe.deal()
    shoe.inject("misread", burn=True)
    assert port.writes[3] == b"[Manual Burn Cards]<Game>\r\n"
    ev = make_decoder("beetek").feed(port.take())
    assert ev == [Misread(), Alarm(code="E3", text="Card Not Read"), Warning(code="0x02"),
                  Misread(burn=True),
                  CardRead(card=card, code=shoe._encoder.card_code(card), burn=True),
                  CardRead(card=game, code=shoe._encoder.card_code(game)),
                  Misread(burn=True)]
    assert not shoe.heartbeat()


def test_runner_deals_at_an_interval_with_scheduled_faults():
    shoe = SimulatedShoe("native", seed=9)
    port = RecordingPort()
    shoe.attach(port)
    done = threading.Event()
    seen: list = []

    def on_deal(card):
        seen.append(card)
        if len(seen) == 3:
            done.set()

    runner = ShoeRunner(shoe, interval_ms=5, heartbeat_ms=5,
                        schedule=[(("card", 2), "unknown_card", {"code": "ZZ"})],
                        on_deal=on_deal)
    runner.start()
    try:
        assert done.wait(5)
    finally:
        runner.stop()
    ev = [e for e in make_decoder("native").feed(port.take()) if not isinstance(e, Heartbeat)]
    cards = [e for e in ev if isinstance(e, CardRead)]
    assert [c.card for c in cards][:4] == [seen[0], None, seen[1], seen[2]]
    assert not any(isinstance(e, FrameError) for e in ev)
