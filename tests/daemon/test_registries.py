"""A third dialect and a new URL scheme, each added by one registry call, work everywhere.

The plugin (``tests/plugins/fake_shoe.py``) registers the ``fake`` dialect with
``register_dialect(...)`` and the ``fake://`` scheme with ``register_scheme(...)``; then
``threecard decode --dialect``, ``threecard run`` with ``?dialect=``, with ``--dialect``
and with the configuration's ``shoe.dialect``, and ``threecard shoe-sim --dialect`` take
them, with no other change. A dialect or scheme nobody registered is refused before
anything starts.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.game.cards import DECK
from drivers.dialects import DIALECTS, make_decoder
from drivers.url import SCHEMES

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"
WITH_PLUGIN = "import sys, fake_shoe; from controller.cli import main; sys.exit(main())"
FIRST_ROUND = {str(c) for c in DECK[:6]}
"""One seat and the dealer: the fake shoe's first six cards (it deals DECK in order)."""


@pytest.fixture
def fake_shoe(monkeypatch):
    """The plugin, imported (and so registered) in this process; unregistered after."""
    monkeypatch.syspath_prepend(str(PLUGINS))
    yield importlib.import_module("fake_shoe")
    DIALECTS.pop("fake", None)
    SCHEMES.pop("fake", None)
    sys.modules.pop("fake_shoe", None)


def threecard(args: list[str], cwd: Path, *, plugin: bool = True) -> subprocess.Popen:
    """``threecard ARGS`` as a child process, the plugin imported first when ``plugin``."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYTHONUNBUFFERED="1")
    if plugin:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PLUGINS),
                                                          env.get("PYTHONPATH")]))
    head = ["-c", WITH_PLUGIN] if plugin else ["-m", "controller.cli"]
    return subprocess.Popen([sys.executable, *head, *args], cwd=cwd, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_decode_reads_a_registered_dialect(fake_shoe, tmp_path, capsys):
    from controller.cli import main

    capture = tmp_path / "capture.bin"
    capture.write_bytes(b"CARD QH\nCARD 10D\r\nHELLO\nCARD ZZ\n")
    status = main(["decode", "--dialect", "fake", str(capture)])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    card = {"type": "card", "seq": None, "burn": False}
    assert lines == [{**card, "card": "Qh", "code": "QH"}, {**card, "card": "Td", "code": "10D"},
                     {"type": "frame_error", "reason": "malformed", "detail": "'HELLO'"},
                     {**card, "card": None, "code": "ZZ"}]
    assert status == 1  # a frame was dropped


def test_the_simulated_shoe_speaks_a_registered_dialect(fake_shoe):
    from drivers.transports.memory import MemoryConnector
    from simulators.faults import FaultNotSupported
    from simulators.ports import MemoryPort
    from simulators.shoe import SimulatedShoe

    shoe = SimulatedShoe("fake", cards=["Qh", "Td"])
    port = MemoryPort(dialect="fake")
    assert port.url.endswith("?dialect=fake")
    host = MemoryConnector(port.name).open()
    try:
        shoe.attach(port)
        assert (shoe.deal(), shoe.deal()) == ("Qh", "Td")
        sent = b""
        while sent.count(b"\n") < 2:
            chunk = host.read(5.0)
            assert chunk, sent
            sent += chunk
    finally:
        host.close()
    assert sent == b"CARD QH\nCARD 10D\n"  # and no HELLO: the dialect has none
    assert [e.card for e in make_decoder("fake").feed(sent)] == ["Qh", "Td"]
    with pytest.raises(FaultNotSupported, match="fake dialect"):
        shoe.inject("lid_open")


def _round_cards(log: str) -> set[str]:
    line = re.search(r"round 1: dealer .*", log)
    assert line, log
    return set(re.findall(r"\b(?:[2-9TJQKA][cdhs])\b", line.group(0)))


def test_a_table_plays_a_round_through_a_registered_dialect_and_scheme(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[shoe]\nurl = "fake://by-config"\ndialect = "fake"\n')
    ways = {
        "?dialect=": ["--shoe", "fake://by-url?dialect=fake"],
        "--dialect": ["--shoe", "fake://by-flag", "--dialect", "fake"],
        "shoe.dialect": ["--config", str(config)],
    }
    runs = {way: threecard(["run", *args, "--journal", str(tmp_path / f"{i}.sqlite3"), "--headless",
                            "--autoplay", "--seats", "1", "--rounds", "1", "--pace-ms", "0"],
                           tmp_path)
            for i, (way, args) in enumerate(ways.items())}
    helps = threecard(["run", "--help"], tmp_path)
    for way, proc in runs.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (way, out, err)
        assert re.search(r"shoe link started: fake://by-\S+ \(fake dialect\)", out), (way, out)
        assert _round_cards(out) == FIRST_ROUND, (way, out)
        assert out.rstrip().endswith("stopped: 1 round settled this run"), (way, out)
    out, _ = helps.communicate(timeout=60)
    assert "--dialect {beetek,native,fake}" in out


def test_shoe_sim_deals_in_a_registered_dialect(tmp_path):
    proc = threecard(["shoe-sim", "--dialect", "fake", "--tcp", "127.0.0.1:0", "--manual"],
                     tmp_path)
    try:
        url = proc.stdout.readline().strip()
        port = re.fullmatch(r"socket://127\.0\.0\.1:(\d+)\?dialect=fake", url)
        assert port, url
        with socket.create_connection(("127.0.0.1", int(port.group(1))), timeout=30) as table:
            proc.stdin.write("\n")  # Enter deals a card
            proc.stdin.flush()
            line = table.makefile("rb").readline()
        assert re.fullmatch(rb"CARD (10|[2-9JQKA])[CDHS]\n", line), line
        proc.stdin.close()  # the end of input stops the simulator
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()


@pytest.mark.parametrize(("shoe", "key", "words"), [
    ('dialect = "klingon"', "[shoe] dialect", "unknown shoe dialect 'klingon' "
                                              "(expected one of beetek, native)"),
    ('url = "ftp://shoe"', "[shoe] url", "unknown shoe URL scheme 'ftp'"),
    ('url = "/dev/card-shoe?dialect=fake"', "[shoe] url", "unknown shoe dialect 'fake'"),
])
def test_an_unregistered_dialect_or_scheme_stops_the_table_before_it_starts(tmp_path, shoe,
                                                                            key, words):
    config = tmp_path / "table.toml"
    journal = tmp_path / "journal.sqlite3"
    config.write_text(f'[shoe]\n{shoe}\n[journal]\npath = "{journal}"\n')
    proc = threecard(["run", "--config", str(config), "--headless"], tmp_path, plugin=False)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, (out, err)
    assert f"threecard run: {config}: {key}: {words}" in err
    assert not journal.exists()  # nothing started


def test_dialect_flags_offer_only_registered_dialects(tmp_path):
    for command in (["run"], ["decode"], ["shoe-sim", "--pty"]):
        proc = threecard([*command, "--dialect", "klingon"], tmp_path, plugin=False)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 2
        assert "argument --dialect: invalid choice: 'klingon' (choose from" in err
        assert "beetek" in err and "native" in err
