"""Helpers for the engine's tests: a readable dealer's shift on a step clock."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from step_clock import StepClock

from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.inputs import Decide, NoMoreBets, PlaceBet, Reveal, Settle
from controller.game.table import Table, Verdict

SUP = DEMO_PINS["supervisor"]
TECH = DEMO_PINS["technician"]


def cards(text: str, burn: bool = False) -> list[CardRead]:
    """Shoe events for cards written ``"As Kd | 2c"`` (bars are only for the reader)."""
    return [CardRead(card=c, code=c, burn=burn) for c in text.replace("|", " ").split()]


class Shift:
    """A table on a journal file, driven like a dealer's shift."""

    SUP = SUP
    TECH = TECH

    def __init__(self, path: Path, **config) -> None:
        config.setdefault("seats", 3)
        self.path = path
        self.config = TableConfig(pin_hashes=demo_pin_hashes(), **config)
        self.clock = StepClock()  # one second per batch
        self.table = Table(path, self.config, clock=self.clock)
        self.table.process([LinkStatus(state=LinkState.ONLINE)])

    @property
    def game(self):
        return self.table.game

    def do(self, *items) -> list[Verdict]:
        """Send inputs; returns their verdicts."""
        flat = []
        for it in items:
            flat += it if isinstance(it, list) else [it]
        return self.table.process(flat)

    def ok(self, *items) -> None:
        """Send inputs that must all be accepted."""
        bad = [v for v in self.do(*items) if not v.accepted]
        assert not bad, bad

    def rejected(self, item) -> str:
        """Send one input that must be rejected and change nothing; returns the reason."""
        before = self.game.to_dict()
        (v,) = self.do(item)
        assert not v.accepted
        after = self.game.to_dict()
        for k in ("notes", "meters", "last_seq", "lockout"):
            before.pop(k), after.pop(k)
        assert before == after
        return v.reason

    def bets(self, seats=(1, 2), ante=100, **side) -> None:
        self.ok([PlaceBet(seat=s, bet="ante", amount=ante) for s in seats],
                [PlaceBet(seat=s, bet=b, amount=a) for s in seats for b, a in side.items()],
                NoMoreBets())

    def play_out(self, *decisions: str) -> None:
        self.ok([Decide(seat=i + 1, decision=d) for i, d in enumerate(decisions)],
                Reveal(), Settle())

    @property
    def view(self):
        return self.table.views()[0]

    @property
    def player_view(self):
        return self.table.views()[1]

    def recall(self, last: int = 10) -> list[dict]:
        """``threecard recall --json`` of this journal."""
        return rc.recall(self.path, last)

    def restart(self) -> None:
        """Power cut: the process dies; a new table starts on the same journal."""
        self.table.journal.close()
        self.table = Table(self.path, self.config, clock=self.clock)

    def close(self) -> None:
        self.table.close()


@pytest.fixture
def shift(tmp_path):
    s = Shift(tmp_path / "journal.sqlite")
    yield s
    s.close()


@pytest.fixture
def journal_from_before(tmp_path):
    """Copy a journal kept in ``data/`` (written by an earlier version) into tmp_path."""
    def copy(name: str) -> Path:
        path = tmp_path / f"{name}.sqlite3"
        shutil.copyfile(Path(__file__).resolve().parent / "data" / f"{name}.journal", path)
        return path
    return copy


@pytest.fixture
def make_shift(tmp_path):
    made = []

    def make(path: Path | None = None, **config) -> Shift:
        s = Shift(path or tmp_path / f"journal{len(made)}.sqlite", **config)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


def deal_of(rec: dict) -> list[tuple]:
    return [tuple(d) for d in rec["deal"]]


def nets(rec: dict) -> dict[int, int]:
    return {s["seat"]: s["net"] for s in rec["seats"]}


def outcomes(rec: dict, seat: int) -> dict[str, tuple[str, int]]:
    (s,) = [s for s in rec["seats"] if s["seat"] == seat]
    return {b: (r["outcome"], r["net"]) for b, r in s["results"].items()}


for _f in (cards, deal_of, nets, outcomes):
    setattr(Shift, _f.__name__, staticmethod(_f))
