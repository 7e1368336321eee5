"""The native dialect's sequence rules end to end: a simulated shoe on a pty (the real
pyserial path), its faults injected, the production link decoding."""

from __future__ import annotations

from msgspec.structs import replace
from shoe_rig import running_link, shoe_on_pty, state_is, wait_for

from controller.game.events import CardRead, FrameError, LinkState, SeqGap, Warning


def _until_sentinel(shoe, q, seen: list) -> list:
    shoe.inject("warning", code="0x7F")
    wait_for(q, lambda ev: isinstance(ev, Warning) and ev.code == "0x7F", seen=seen)
    return seen


def _online(port, **opts):
    return running_link(port.url, silence_timeout=60.0, **opts)


def test_a_restart_whose_hello_is_lost_delivers_a_line_repeating_an_old_one(tmp_path):
    shoe, port = shoe_on_pty("native", tmp_path, seed=3)
    try:
        with _online(port) as (_link, q):
            seen: list = []
            wait_for(q, state_is(LinkState.ONLINE), seen=seen)
            dealt = [shoe.deal() for _ in range(6)]
            _until_sentinel(shoe, q, seen)
            old = {ev.seq: ev for ev in shoe.sent}
            shoe.inject("restart", lost_hello=True)
            again = shoe.send(replace(old[1], seq=None))   # seq 1 says what it said before
            assert again == old[1]
            new = shoe.deal()
            after: list = []
            _until_sentinel(shoe, q, after)
    finally:
        port.close()
    assert [ev.card for ev in seen if isinstance(ev, CardRead)] == dealt
    errors = [ev for ev in after if isinstance(ev, FrameError)]
    assert [e.reason for e in errors] == ["crc", "restart_without_hello"], after
    at = after.index(errors[1])
    assert after[at + 1:at + 4] == [SeqGap(expected=0, got=1, seq=1), old[1],
                                    CardRead(card=new, code=new, seq=2)]


def test_a_seq_reused_with_another_card_is_named_never_dropped(tmp_path):
    shoe, port = shoe_on_pty("native", tmp_path, seed=4, packs=2)
    try:
        with _online(port) as (link, q):
            seen: list = []
            wait_for(q, state_is(LinkState.ONLINE), seen=seen)
            for back in (1, 5, 63):
                for _ in range(back):
                    shoe.deal()
                shoe.inject("seq_reuse", back=back)
                reused = shoe.deal()
                nxt = shoe.deal()
                _until_sentinel(shoe, q, seen)
                (err,) = [ev for ev in seen if isinstance(ev, FrameError)]
                assert err.reason == "seq_reuse" and f"CARD,{reused}*" in err.detail
                assert [ev.card for ev in seen if isinstance(ev, CardRead)][-1] == nxt
                assert reused not in [ev.card for ev in seen[-4:] if isinstance(ev, CardRead)]
                seen.clear()
            assert link.decoder.stats.retransmissions == 0
    finally:
        port.close()
