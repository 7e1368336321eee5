"""An event-level simulated shoe: shoe events straight from a seeded deck, with faults.

For the engine's tests and ``threecard simulate``, where bytes are not the point; the
faults: docs/shoe-simulator.md.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from controller.game.cards import parse_cards, shuffled_deck
from controller.game.events import (
    Alarm,
    CardRead,
    Cut,
    Empty,
    FrameError,
    Hello,
    Lid,
    LinkState,
    LinkStatus,
    Misread,
    Retract,
    SeqGap,
    ShoeEvent,
    Warning,
)

FAULTS = ("misread", "retract", "duplicate", "unknown", "seq_gap", "link_loss", "link_gap",
          "shoe_restart", "early_card", "extra_card", "alarm", "frame_error", "lid_open",
          "cut", "warning", "burn", "empty", "unreadable_burn")
_MID_DEAL = frozenset(FAULTS) - {"early_card", "extra_card"}


def parse_faults(spec: str | None) -> dict[str, float]:
    """Parse ``misread=0.01,link_loss=0.002`` (``all=``, ``random[=rate]``) into name -> rate.

    Raises:
        ValueError: an unknown fault name or a rate outside 0..1.
    """
    out: dict[str, float] = {}
    for part in (spec or "").split(","):
        part = part.strip()
        if not part:
            continue
        name, _, rate_text = part.partition("=")
        name = name.strip()
        try:
            rate = float(rate_text) if rate_text else (0.001 if name == "random" else 0.01)
        except ValueError:
            raise ValueError(f"bad fault rate in {part!r}") from None
        if not 0 <= rate <= 1:
            raise ValueError(f"fault rate must be 0..1, got {rate} in {part!r}")
        names = FAULTS if name in ("all", "random") else (name,)
        for n in names:
            if n not in FAULTS:
                raise ValueError(f"unknown fault {n!r} (known: all, random, "
                                 f"{', '.join(FAULTS)})")
            out[n] = rate
    return out


class EventShoe:
    """A shoe that deals seeded decks as events, with faults (name -> per-round probability).

    ``decks``: rounds as card texts (``--deck-file``), used in turn instead of shuffling;
    a round needing more takes the rest of a shuffled deck.
    """

    def __init__(self, seed: int = 0, faults: dict[str, float] | None = None,
                 decks: Sequence[str] | None = None) -> None:
        self.rng = random.Random(seed)
        self.faults = faults or {}
        self.decks = list(decks or ())
        self.seq = 0
        self.round_faults: set[str] = set()
        self.deck: list[str] = []
        self.dealt: list[str] = []
        self.pending: str | None = None
        self.injected: dict[str, int] = {}
        self._rounds = 0
        self._fault_at = 0

    def _next_seq(self) -> int:
        self.seq = (self.seq + 1) % 65536
        return self.seq

    def _card(self, card: str) -> CardRead:
        return CardRead(card=card, code=card, seq=self._next_seq())

    def new_round(self, seen: Collection[str] = ()) -> None:
        """Load the next deck and draw this round's faults (``seen``: cards out already)."""
        if self.decks:
            given = [str(c) for c in parse_cards(self.decks[self._rounds % len(self.decks)])]
            rest = [str(c) for c in shuffled_deck(self.rng) if str(c) not in given]
            self.deck = given + rest
        else:
            self.deck = [str(c) for c in shuffled_deck(self.rng)]
        if seen:
            self.deck = [c for c in self.deck if c not in seen]
        self._rounds += 1
        self.dealt = []
        self.pending = None
        rng = self.rng.random
        self.round_faults = {f for f, r in self.faults.items() if r and rng() < r}
        self._fault_at = self.rng.randrange(1, 12)

    def _take(self, name: str) -> bool:
        if name in self.round_faults:
            self.round_faults.discard(name)
            self.injected[name] = self.injected.get(name, 0) + 1
            return True
        return False

    def before_no_more_bets(self) -> list[ShoeEvent]:
        """Events before betting closes (an early card, when that fault is drawn)."""
        if self._take("early_card"):
            card = self.deck.pop()
            self.dealt.append(card)
            return [self._card(card)]
        return []

    def deal(self, n: int) -> list[ShoeEvent]:
        """The next ``n`` cards as events; stops right after a fault the table must handle."""
        out: list[ShoeEvent] = []
        for _ in range(n):
            if len(self.dealt) >= self._fault_at and self.round_faults & _MID_DEAL:
                fault = sorted(self.round_faults & _MID_DEAL)[0]
                self._take(fault)
                stop = self._inject(fault, out)
                if stop:
                    return out
            card = self.deck.pop(0)
            self.dealt.append(card)
            out.append(self._card(card))
        if n and self._take("extra_card"):
            card = self.deck.pop(0)
            self.dealt.append(card)
            out.append(self._card(card))
        return out

    def _inject(self, fault: str, out: list[ShoeEvent]) -> bool:
        if fault == "misread":
            self.pending = self.deck.pop(0)
            out.append(Misread(seq=self._next_seq()))
            return True
        if fault == "retract":
            ev = self._card(self.deck[0])
            out += [ev, Retract(card_seq=ev.seq, seq=self._next_seq())]
            return False
        if fault == "duplicate" and self.dealt:
            out.append(self._card(self.rng.choice(self.dealt)))
            return True
        if fault == "unknown":
            out.append(CardRead(card=None, code="ZZ", seq=self._next_seq()))
            return True
        if fault == "seq_gap":
            got = (self.seq + 3) % 65536
            out.append(SeqGap(expected=(self.seq + 1) % 65536, got=got, seq=got))
            self.seq = got
            return True
        if fault in ("link_loss", "link_gap"):
            out.append(LinkStatus(state=LinkState.DISCONNECTED, detail="simulated unplug"))
            if fault == "link_gap":
                got = (self.seq + 2) % 65536
                out.append(SeqGap(expected=(self.seq + 1) % 65536, got=got, seq=got))
                self.seq = got
            out.append(LinkStatus(state=LinkState.ONLINE, detail="simulated reconnect"))
            return fault == "link_gap"
        if fault == "shoe_restart":
            self.seq = 0
            out.append(Hello(model="sim", serial="0", firmware="1", seq=0))
            return True
        if fault == "alarm":
            out.append(Alarm(code="JAM", text="simulated jam", seq=self._next_seq()))
            return True
        if fault == "frame_error":  # a garbled line the dialect dropped (bad CRC, noise)
            out.append(FrameError(reason="crc", detail="simulated bad CRC"))
            return True
        if fault == "lid_open":
            out += [Lid(open=True, seq=self._next_seq()), Lid(open=False, seq=self._next_seq())]
            return False
        if fault == "cut":
            out.append(Cut(seq=self._next_seq()))
            return False
        if fault == "warning":
            out.append(Warning(code="0x01", seq=self._next_seq()))
            return False
        if fault == "burn":  # a card read in burn mode mid-deal: never a hand card
            card = self.deck.pop(0)
            self.dealt.append(card)
            out.append(CardRead(card=card, code=card, burn=True, seq=self._next_seq()))
            return True
        if fault == "unreadable_burn":
            self.dealt.append(self.deck.pop(0))
            out.append(Misread(burn=True, seq=self._next_seq()))
            return True
        if fault == "empty":
            out.append(Empty(seq=self._next_seq()))
            return True
        return False

    def re_present(self) -> list[ShoeEvent]:
        """The misread card read again (resolving the misread)."""
        card, self.pending = self.pending, None
        if card is None:
            return []
        self.dealt.append(card)
        return [self._card(card)]

    def misread_before_restart(self) -> bool:
        """Take the card left under the reader by a misread from before a restart.

        The next card of the deck; True when a card now waits to be re-presented.
        """
        if self.pending is None and self.deck:
            self.pending = self.deck.pop(0)
        return self.pending is not None

    def take_pending(self) -> str | None:
        """The misread card's identity, for a supervisor's manual entry."""
        card, self.pending = self.pending, None
        if card is not None:
            self.dealt.append(card)
        return card
