"""The running table loads only what it needs: no NumPy, no par-sheet counting, no rich;
headless, no pygame and no screen.

Its start-up self-check reads the deck's stored counts (checked against their SHA-256)
instead of counting or enumerating anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", re.M)


def test_a_headless_demo_round_imports_neither_numpy_nor_the_par_sheet_nor_pygame(tmp_path):
    """``-X importtime`` names every module the process imports, in every thread, from
    start to exit; a settled round in between proves the table ran."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "controller.cli", "run",
                        "--demo", "--headless", "--rounds", "1"],
                       capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "1 round settled this run" in p.stdout
    imported = set(IMPORT_LINE.findall(p.stderr))
    # the list is read right: what the table does use is in it
    assert {"sqlite3", "msgspec", "controller.game.deck_counts", "controller.game.par_sheet",
            "controller.game.table", "controller.autoplay"} <= imported
    assert {m for m in imported if m.split(".")[0] in ("numpy", "rich", "pygame")} == set()
    assert {m for m in imported if m.startswith("display")} == set()  # no screen drawn
    assert imported & {"controller.game.enumeration", "controller.game.counting"} == set()
