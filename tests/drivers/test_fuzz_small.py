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
