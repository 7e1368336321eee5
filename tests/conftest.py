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
