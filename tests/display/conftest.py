"""A dealer's shift on the real dealer screen: a real table, real pygame events.

:class:`DealerShift` runs a :class:`~controller.game.table.Table` on a journal file and
the real :class:`~display.app.DisplayApp` (headless, the dealer screen) reading its views.
The dealer acts only through pygame FINGERDOWN and KEYDOWN events posted to SDL's queue;
whatever the screen posts to its inbox is processed by the table, then the screen is
drawn again, as on a live table. Touches and keys are counted.
"""

from __future__ import annotations

import math
import queue
import random
from datetime import UTC, datetime
from pathlib import Path

import pygame
import pytest

from controller.autoplay import should_play
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import TableConfig
from controller.game.events import CardRead, LinkState, LinkStatus
from controller.game.script import ScriptClock
from controller.game.table import Table, Verdict
from display.app import DisplayApp
from display.theme import FontBook

SUP = DEMO_PINS["supervisor"]
CHIP_BUTTONS = {100: "chip.100", 500: "chip.500", 2500: "chip.2500", 10000: "chip.10000"}
CHIP_KEYS = {100: "f1", 500: "f2", 2500: "f3", 10000: "f4"}
BET_KEYS = {"ante": "a", "pair_plus": "p", "six_card_bonus": "x"}
DECK = [r + s for r in "AKQJT98765432" for s in "shdc"]


@pytest.fixture(scope="module")
def fonts():
    """One font book for a module's screens (SDL's display and fonts started)."""
    pygame.display.init()
    pygame.font.init()
    return FontBook()


class DealerShift:
    """A table and its dealer screen, driven by real touches and keys.

    Args:
        path: the journal file.
        size: the dealer screen's size.
        lang: its language.
        seed: the shuffle of each round's deck.
        **config: table settings (5 seats, the live rules and the demo PINs by default).
    """

    def __init__(self, path: Path, size=(800, 480), lang="en", seed=7, **config) -> None:
        pygame.display.init()
        pygame.event.clear()
        config.setdefault("seats", 5)
        self.config = TableConfig(table_id="T-5", pin_hashes=demo_pin_hashes(), **config)
        self.clock = ScriptClock(datetime(2026, 1, 1, 20, tzinfo=UTC))
        self.table = Table(path, self.config, clock=self.clock)
        self.table.process([LinkStatus(state=LinkState.ONLINE, detail="shoe on ttyUSB0")])
        self.inbox: queue.Queue = queue.Queue()
        self.app = DisplayApp(self.table.views, self.inbox, views=("dealer",), headless=True,
                              sizes={"dealer": size}, lang=lang)
        self.rng = random.Random(seed)
        self.deck: list[str] = []
        self.now = 1.0
        self.touches = 0
        self.keys = 0
        self.fold_counts: list[int] = []
        self.fold_sets: list[set[int]] = []
        self.verdicts: list[Verdict] = []
        self.step()

    # -- what the dealer sees ---------------------------------------------------------------
    @property
    def view(self):
        """The table's newest dealer view."""
        return self.table.views()[0]

    @property
    def frame(self):
        """The frame last drawn on the dealer screen."""
        return self.app.frame("dealer")

    def button(self, button_id: str):
        """A button of the frame drawn (None when there is none)."""
        return self.frame.button(button_id)

    def texts(self, role: str) -> list[str]:
        """The texts drawn with ``role`` (and its second line)."""
        return [t.text for t in self.frame.texts if t.role in (role, role + "2")]

    def refused(self) -> list[Verdict]:
        """The dealer's inputs the table refused so far."""
        return [v for v in self.verdicts if not v.accepted]

    # -- time and the table -----------------------------------------------------------------
    def step(self, dt: float = 0.7) -> None:
        """Let ``dt`` seconds pass: the screen reads its events, the table what it posted."""
        self.now += dt
        self.clock.advance(max(1, math.ceil(dt)))  # the table's clock moves on as well
        self.app.step(now=self.now, wait=False)
        posted = []
        while True:
            try:
                posted.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        if posted:
            self.verdicts += self.table.process(posted)
            self.app.step(now=self.now + 0.01, wait=False)

    def shoe(self, *events) -> None:
        """Shoe events reach the table; the screen draws the new view."""
        self.table.process(list(events))
        self.step(0.05)

    def deal(self) -> None:
        """The shoe deals every card due, from this round's shuffled deck."""
        if not self.deck:
            self.deck = DECK[:]
            self.rng.shuffle(self.deck)
        while self.view.cards_due:
            card = self.deck.pop()
            self.table.process([CardRead(card=card, code=card)])
        self.step(0.05)
        self.deck = []

    # -- the dealer's hands -----------------------------------------------------------------
    def tap(self, button_id: str, dt: float = 0.7) -> None:
        """A finger on the centre of a button the dealer sees enabled."""
        b = self.button(button_id)
        assert b is not None and b.rect.width, f"no {button_id} on the screen"
        assert b.enabled, f"{button_id} is disabled"
        self.tap_at(b.rect.center, dt)

    def tap_at(self, pos: tuple[int, int], dt: float = 0.7) -> None:
        """A finger at a pixel of the dealer screen (SDL gives it normalised)."""
        w, h = self.frame.size
        pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=pos[0] / w, y=pos[1] / h,
                                             touch_id=1, finger_id=1, dx=0.0, dy=0.0,
                                             pressure=1.0))
        self.touches += 1
        self.step(dt)

    def key(self, name: str, shift: bool = False, dt: float = 0.7) -> None:
        """A key pressed (``return``, ``f9``, ``y``; ``shift`` held for ``Shift+B``)."""
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name),
                                             mod=pygame.KMOD_LSHIFT if shift else 0,
                                             unicode=""))
        self.keys += 1
        self.step(dt)

    def type(self, digits: str) -> None:
        """Digits typed on the keyboard (a PIN)."""
        for d in digits:
            self.key(d, dt=0.2)

    def pin_by_touch(self, pin: str) -> None:
        """A PIN typed on the pad, a digit each quarter second, then OK."""
        for d in pin:
            self.tap("pad.key.10" if d == "0" else f"pad.key.{int(d) - 1}", dt=0.25)
        self.tap("pad.key.11")

    # -- whole steps of a round, as a dealer does them ----------------------------------------
    def chips_by_touch(self, bets: dict[int, dict[str, int]]) -> None:
        """Place ``bets`` (seat -> bet -> amount) chip by chip, a chip value at a time."""
        plan = []
        for seat, seat_bets in bets.items():
            for bet, amount in seat_bets.items():
                for chip in (10000, 2500, 500, 100):
                    n, amount = divmod(amount, chip)
                    plan += [(chip, seat, bet)] * n
        for chip in sorted({c for c, _, _ in plan}, reverse=True):
            if self.app.dealer.chip(self.view) != chip:
                self.tap(CHIP_BUTTONS[chip])
            for c, seat, bet in plan:
                if c == chip:
                    self.tap(f"seat.{seat}.bet.{bet}")

    def chips_by_key(self, bets: dict[int, dict[str, int]]) -> None:
        """Place ``bets`` from the keyboard: seat digit, chip key, bet key per chip."""
        for seat, seat_bets in bets.items():
            self.key(str(seat))
            for bet, amount in seat_bets.items():
                for chip in (10000, 2500, 500, 100):
                    n, amount = divmod(amount, chip)
                    if n and self.app.dealer.chip(self.view) != chip:
                        self.key(CHIP_KEYS[chip])
                    for _ in range(n):
                        self.key(BET_KEYS[bet])

    def folds(self) -> list[int]:
        """The seats a player folds (below Q-6-4), from the cards dealt."""
        return [s.seat for s in self.view.seats
                if s.bets.get("ante") and not should_play(list(s.cards))]

    def decide_by_touch(self) -> list[int]:
        """Fold the folding seats, then play the rest with the large button."""
        folds = self.folds()
        self.fold_counts.append(len(folds))
        for seat in folds:
            self.tap(f"seat.{seat}.fold")
        if any(s.bets.get("ante") and not s.decision for s in self.view.seats):
            self.tap("primary")
        return folds

    def settle_by_touch(self) -> None:
        """Reveal, settle, pay everyone (All paid), next round.

        In outcome mode Play the rest revealed already, and All paid opens the next round.
        """
        if self.view.state == "deciding":
            self.tap("primary")
        assert self.view.state == "reveal", self.view.state
        self.tap("primary")
        assert self.view.state == "settled", self.view.state
        self.tap("all_paid")
        if self.view.state != "betting":
            self.tap("primary")
        assert self.view.state == "betting", self.view.state

    def round_by_touch(self, bets=None, rebet=False) -> int:
        """One round by touches: bets (chips, then Rebet all), deal, decide, settle, pay.

        Returns:
            The touches it took.
        """
        start = self.touches
        if bets:
            self.chips_by_touch(bets)
        if rebet:
            self.tap("rebet_all")
        self.tap("primary")
        assert self.view.state in ("no_more_bets", "dealing"), self.refused()
        self.deal()
        self.decide_by_touch()
        self.settle_by_touch()
        return self.touches - start

    def round_by_key(self, bets=None, rebet=False) -> int:
        """One round from the keyboard alone; returns the keys it took."""
        start = self.keys
        if bets:
            self.chips_by_key(bets)
        if rebet:
            self.key("b", shift=True)
        self.key("n")
        self.deal()
        folds = set(self.folds())
        self.fold_sets.append(folds)
        for s in self.view.seats:
            if s.bets.get("ante"):
                self.key("f" if s.seat in folds else "y")
        self.key("r")
        self.key("s")
        self.key("a")
        self.key("g")
        assert self.view.state == "betting", self.refused()
        return self.keys - start

    def close(self) -> None:
        """Close the screen and the journal."""
        self.app.close()
        self.table.close()
        pygame.event.clear()


@pytest.fixture
def dealer_shift(tmp_path):
    """Make shifts (``dealer_shift(size=..., lang=..., **table settings)``)."""
    made = []

    def make(**kwargs) -> DealerShift:
        s = DealerShift(tmp_path / f"journal{len(made)}.sqlite3", **kwargs)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()
