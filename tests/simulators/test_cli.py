"""The ``shoe-sim`` and ``decode`` commands, as people and programs run them."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys

import pytest
from shoe_rig import running_link, state_is, wait_for

from controller.cli import main
from controller.game.events import CardRead, LinkState
from drivers.dialects.native import encode_line

CMD = [sys.executable, "-m", "controller.cli"]


def test_decode_prints_one_json_line_per_event(tmp_path, capsys):
    capture = tmp_path / "capture.bin"
    capture.write_bytes(encode_line(16, "HB", "5") + encode_line(17, "CARD", "Qh")
                        + encode_line(18, "MISREAD") + encode_line(19, "CARD", "Ah", crc=1)
                        + encode_line(21, "CARD", "10d", "BURN")
                        + encode_line(22, "MISREAD", "BURN"))
    assert main(["decode", "--dialect", "native", str(capture)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[1] == {"type": "card", "card": "Qh", "seq": 17, "burn": False, "code": "Qh"}
    assert lines[2] == {"type": "misread", "seq": 18, "burn": False}
    assert lines[3]["type"] == "frame_error" and lines[3]["reason"] == "crc"
    assert lines[4] == {"type": "seq_gap", "expected": 19, "got": 21}
    assert lines[5]["card"] == "Td" and lines[5]["burn"] is True
    assert lines[6] == {"type": "misread", "seq": 22, "burn": True}   # an unreadable burn


def test_decode_beetek_from_stdin():
    data = (b"[Game]<Card:4S>\r\n[Manual Burn Cards]<Card:H3>\r\n[Game]<Game>\r\n<W0x01>\r\n"
            b"[Manual Burn Cards]<Game>\r\n")
    out = subprocess.run([*CMD, "decode", "--dialect", "beetek"], input=data,
                         capture_output=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert lines == [
        {"type": "card", "card": "4s", "seq": None, "burn": False, "code": "4S"},
        {"type": "card", "card": "3h", "seq": None, "burn": True, "code": "H3"},
        {"type": "misread", "seq": None, "burn": False},
        {"type": "warning", "code": "0x01", "seq": None},
        {"type": "misread", "seq": None, "burn": True},
    ]


def test_decode_missing_file(capsys):
    assert main(["decode", "--dialect", "native", "/nonexistent/capture.bin"]) == 2


@pytest.mark.parametrize("where", ["pty", "tcp"])
def test_shoe_sim_serves_a_link_and_stops_on_sigterm(where):
    args = ["--pty"] if where == "pty" else ["--tcp", "127.0.0.1:0"]
    proc = subprocess.Popen([*CMD, "shoe-sim", "--dialect", "native", *args, "--seed", "4",
                             "--interval", "20", "--gap", "0",
                             "--fault", "unknown_card:code=D12@2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"serial:///dev/pts/\d+\?dialect=native" if where == "pty"
                            else r"socket://127\.0\.0\.1:[1-9]\d*\?dialect=native", url), url
        with running_link(url) as (_link, q):
            wait_for(q, state_is(LinkState.ONLINE))
            cards = [wait_for(q, lambda ev: isinstance(ev, CardRead)) for _ in range(3)]
        assert all(c.seq is not None for c in cards)
        assert any(c.card is None and c.code == "D12" for c in cards)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0
        proc.stdout.close()
        proc.stderr.close()


def test_shoe_sim_manual_deals_on_enter():
    proc = subprocess.Popen([*CMD, "shoe-sim", "--dialect", "beetek", "--pty", "--manual",
                             "--seed", "2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"serial:///dev/pts/\d+\?dialect=beetek", url), url
        with running_link(url) as (_link, q):
            wait_for(q, state_is(LinkState.ONLINE))
            proc.stdin.write("\n\n")
            proc.stdin.flush()
            cards = [wait_for(q, lambda ev: isinstance(ev, CardRead)) for _ in range(2)]
        assert all(c.card for c in cards) and cards[0].card != cards[1].card
    finally:
        proc.stdin.close()
        assert proc.wait(20) == 0
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.parametrize("fault", ["gremlins", "bad_crc@x", "cut"])
def test_shoe_sim_rejects_bad_faults(fault, capsys):
    assert main(["shoe-sim", "--dialect", "beetek", "--pty", "--fault", fault]) == 2
    assert "shoe-sim" in capsys.readouterr().err
