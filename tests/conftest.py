import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# the journals' seal keys (the table's state folder): one throwaway folder a test process,
# inherited by the commands the tests run
os.environ.pop("STATE_DIRECTORY", None)
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="threecard-state-")
atexit.register(shutil.rmtree, os.environ["XDG_STATE_HOME"], True)

LONG_FOLDERS = ("daemon", "floor")
"""Test folders whose tests mostly run the real daemon, a broker or a database."""


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


def pytest_collection_modifyitems(items):
    """Long tests first (the slow mark, then daemon and floor tests), in their files' order.

    On two cores the suite's last minute is then many short tests shared among the test
    processes, not one long test alone.
    """
    def weight(item):
        if item.get_closest_marker("slow"):
            return 0
        return 1 if item.path.parent.name in LONG_FOLDERS else 2
    items.sort(key=weight)
