import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# the journals' seal keys (the table's state folder): one throwaway folder a test process,
# inherited by the commands the tests run
os.environ.pop("STATE_DIRECTORY", None)
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="threecard-state-")
atexit.register(shutil.rmtree, os.environ["XDG_STATE_HOME"], True)

def pytest_configure(config):
    """With test processes (pytest-xdist), do once here what each of them would repeat.

    Each test process would rewrite the asserts of every test module (about 5 s of CPU)
    and build Hypothesis's Unicode tables (1.5 s): they start together, and
    PYTHONDONTWRITEBYTECODE stops pytest's cache. Both are cached here, the modules in
    ``__pycache__`` beside them (as pytest does), the tables in ``.hypothesis``.
    """
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    _rewrite_test_modules(config)
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=1, database=None, suppress_health_check=list(HealthCheck))
    @given(st.text())
    def warm(_text: str) -> None:
        pass

    warm()


def _rewrite_test_modules(config) -> None:
    """pytest's own rewrite and cache of the test modules; if its internals change, nothing
    (each process then rewrites them itself)."""
    try:
        from _pytest.assertion import rewrite as rw

        state = config.stash[rw.assertstate_key]
        for path in sorted(Path(__file__).parent.rglob("*.py")):
            if not (path.name.startswith("test_") or path.name == "conftest.py"):
                continue
            cache = rw.get_cache_dir(path)
            pyc = cache / (path.name[:-3] + rw.PYC_TAIL)
            if rw.try_makedirs(cache) and rw._read_pyc(path, pyc) is None:
                source_hash, code = rw._rewrite_test(path, config)
                rw._write_pyc(state, code, source_hash, pyc)
    except (ImportError, AttributeError, KeyError, TypeError, SyntaxError):
        return


@pytest.hookimpl(trylast=True)  # after -k and -m have taken out what is not run
def pytest_collection_modifyitems(items):
    """Long tests first: each test process starts on its share of them.

    pytest-xdist's worksteal gives each of N processes a run of the list in turn (the k-th,
    of the tests left, ``left // (N - k)``) and lets an idle one take the second half of
    the longest queue. The long tests of ``long_tests.txt`` are dealt, a file's together
    (its module fixtures built once), longest first to the least loaded share, each share
    starting its run: no long test starts in the last minute, alone on two cores. Without
    test processes, they simply come first.
    """
    long = _long_tests()
    units: dict[str, list] = {}
    for item in items:
        if item.nodeid in long:
            units.setdefault(item.nodeid.split("::")[0], []).append(item)
    dealt = {id(item) for unit in units.values() for item in unit}
    rest = [item for item in items if id(item) not in dealt]
    n = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    heads: list[list] = [[] for _ in range(max(1, n))]
    load = [0.0] * len(heads)
    weights = {f: sum(long[i.nodeid] for i in unit) for f, unit in units.items()}
    for f in sorted(units, key=lambda f: -weights[f]):
        k = load.index(min(load))
        heads[k] += units[f]
        load[k] += weights[f]
    out, left = [], len(items)
    for k, head in enumerate(heads):
        share = left // (len(heads) - k)
        take = max(0, share - len(head))
        out += head + rest[:take]
        del rest[:take]
        left -= share
    items[:] = out + rest


def _long_tests() -> dict[str, float]:
    """``long_tests.txt``: node id -> seconds."""
    out = {}
    for line in (Path(__file__).parent / "long_tests.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            seconds, nodeid = line.split(maxsplit=1)
            out[nodeid] = float(seconds)
    return out
