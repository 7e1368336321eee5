"""A small, fixed-seed run of the dialect fuzzer (the million-input run is a script)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

FUZZER = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_dialects.py"


@pytest.fixture(scope="module")
def fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_dialects", FUZZER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("dialect", ["native", "beetek"])
def test_small_fuzz_finds_no_exception(fuzzer, dialect):
    assert fuzzer.fuzz(dialect, 600, seed=7) == 0


def test_the_fuzzer_reads_a_new_dialect_from_the_registry(fuzzer, monkeypatch):
    # a third dialect, numbered with heartbeats (the native translators under another
    # name): the fuzzer takes its name and its flags from DIALECTS, not from a name it knows
    import random

    from controller.game.events import CardRead, Heartbeat
    from drivers.dialects import DIALECTS, Dialect, make_decoder, register_dialect

    register_dialect(Dialect("fuzz-copy", "drivers.dialects.native:NativeDecoder",
                             "drivers.dialects.native:NativeEncoder", heartbeat=True,
                             numbered=True))
    try:
        rng = random.Random(7)
        events = [e for _ in range(40)
                  for e in make_decoder("fuzz-copy").feed(fuzzer.valid_stream(rng, "fuzz-copy"))]
        cards = [e for e in events if isinstance(e, CardRead)]
        assert cards and all(e.seq is not None for e in cards)  # numbered: every card line
        assert any(isinstance(e, Heartbeat) for e in events)  # what its encoder can say
        assert fuzzer.fuzz("fuzz-copy", 300, seed=7) == 0
        monkeypatch.setattr("sys.argv", ["fuzz_dialects", "--count", "20", "--dialect",
                                         "fuzz-copy"])
        assert fuzzer.main() == 0
    finally:
        DIALECTS.pop("fuzz-copy")
