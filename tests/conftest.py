import atexit
import os
import shutil
import tempfile

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
    """With test processes (pytest-xdist), build Hypothesis's Unicode tables once, here.

    Text strategies need them; each process would otherwise compute them (about 1.5 s of
    CPU) in a fresh folder such as tests/run's. The processes read them from ``.hypothesis``.
    """
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=1, database=None, suppress_health_check=list(HealthCheck))
    @given(st.text())
    def warm(_text: str) -> None:
        pass

    warm()


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
