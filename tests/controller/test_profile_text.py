"""A rule profile given by path is journaled by its text: replay never reads the file again.

Through the commands people run (``threecard simulate``, ``threecard verify-journal``,
``threecard run --control-stdin`` in tests/daemon/test_profile_change.py): the profile
file edited or deleted after the journal was written leaves the journal sound; a FIFO, a
device or a file too large is refused where it is named, before anything is journaled;
a journal written before the text was kept (its bodies name only the path) still replays
from the file, and never waits on one that became a FIFO.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from journal_edit import as_before_seals, rewrite_bodies

from controller.game.config import MAX_PROFILE_BYTES
from controller.game.inputs import STARTUP
from controller.journal import Journal

LIVE = (resources.files("controller.game") / "profiles" / "live.toml").read_text()


def threecard(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args],
                          capture_output=True, text=True, timeout=timeout)


def simulate(journal: Path, rules: Path | str, rounds: int) -> subprocess.CompletedProcess:
    return threecard("simulate", "--rules", str(rules), "--journal", str(journal),
                     "--rounds", str(rounds), "--seats", "3", "--seed", "7")


def startup_configs(journal: Path) -> list[dict]:
    j = Journal(journal, readonly=True)
    try:
        return [json.loads(r.body)["config"] for r in j.records() if r.kind == STARTUP]
    finally:
        j.close()


def test_a_profile_file_edited_or_deleted_leaves_its_journal_sound(tmp_path):
    profile, journal = tmp_path / "house.toml", tmp_path / "j.sqlite3"
    profile.write_text(LIVE)
    assert simulate(journal, profile, 20).returncode == 0
    profile.write_text(LIVE.replace("\npair = 1\n", "\npair = 3\n"))   # Pair Plus pays more
    p = threecard("verify-journal", "--journal", str(journal))
    assert p.returncode == 0 and p.stdout.startswith("journal OK"), p.stdout + p.stderr
    p = simulate(journal, profile, 30)                     # the table plays on, by the new text
    assert p.returncode == 0, p.stderr
    assert [c["rules_text"] for c in startup_configs(journal)] == [
        LIVE, LIVE.replace("\npair = 1\n", "\npair = 3\n")]
    profile.unlink()                                        # gone: the journal needs it not
    for command in ("verify-journal", "meters", "recall"):
        p = threecard(command, "--journal", str(journal))
        assert p.returncode == 0, (command, p.stdout, p.stderr)
    assert "journal OK" in threecard("verify-journal", "--journal", str(journal)).stdout


def test_a_shipped_profile_is_journaled_by_name_as_before(tmp_path):
    journal = tmp_path / "j.sqlite3"
    assert simulate(journal, "live", 2).returncode == 0
    (config,) = startup_configs(journal)
    assert config["rules"] == "live" and "rules_text" not in config


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_profile_that_is_no_regular_file_or_too_large_is_refused_before_anything(tmp_path):
    fifo, big = tmp_path / "fifo.toml", tmp_path / "big.toml"
    os.mkfifo(fifo)
    big.write_text(LIVE + "#" * MAX_PROFILE_BYTES)
    for rules, why in ((fifo, "not a regular file: a rule profile is a TOML file"),
                       (Path(os.devnull), "not a regular file"),
                       (tmp_path, "not a regular file"),
                       (big, f"larger than {MAX_PROFILE_BYTES} bytes: not a rule profile")):
        journal = tmp_path / "j.sqlite3"
        p = simulate(journal, rules, 2)                    # a FIFO would wait for ever
        assert p.returncode == 2 and f"{rules}: {why}" in p.stderr, p.stderr
        assert not journal.exists()
        p = threecard("run", "--headless", "--shoe", "sim://", "--rules", str(rules),
                      "--journal", str(journal), timeout=60)
        assert p.returncode == 2, p.stderr
        assert p.stderr.startswith(f"threecard run: --rules: {rules}: {why}")
        assert len(p.stderr.splitlines()) == 1
        assert not journal.exists()


def as_written_before(journal: Path) -> None:
    """The journal's bodies as the earlier version wrote them: they name the profile by
    path only (the chain recomputed over them)."""

    def by_path(_seq: int, body: str) -> str:
        b = json.loads(body)
        b.get("config", {}).pop("rules_text", None)
        b.pop("rules_text", None)
        return json.dumps(b, sort_keys=True, separators=(",", ":"))

    j = Journal(journal, readonly=True)
    assert not j.snapshot_seqs()
    j.close()
    rewrite_bodies(journal, by_path)
    as_before_seals(journal)                                # an earlier version: no seals
    Path(f"{journal}.anchor").unlink()                      # an inspector's copy


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_journal_naming_its_profile_by_path_only_replays_from_the_file(tmp_path):
    profile, journal = tmp_path / "house.toml", tmp_path / "j.sqlite3"
    profile.write_text(LIVE)
    assert simulate(journal, profile, 10).returncode == 0
    as_written_before(journal)
    assert "rules_text" not in startup_configs(journal)[0]
    p = threecard("verify-journal", "--journal", str(journal))
    assert p.returncode == 0 and "journal OK" in p.stdout, p.stdout   # read as it was
    profile.unlink()
    os.mkfifo(profile)                                      # the path is now a FIFO
    p = threecard("verify-journal", "--journal", str(journal), timeout=60)  # never waits
    assert p.returncode == 1 and p.stdout.startswith("JOURNAL BROKEN"), p.stdout + p.stderr
    assert "Traceback" not in p.stderr
