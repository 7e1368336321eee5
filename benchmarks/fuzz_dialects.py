"""Fuzz both dialect decoders with random and mutated inputs; report any exception.

Usage: python benchmarks/fuzz_dialects.py [--count N] [--seed S] [--dialect NAME]

Every dialect of :data:`drivers.dialects.DIALECTS` is fuzzed (``--dialect`` picks some);
what a valid stream holds follows the dialect's flags (``numbered``: sequence numbers)
and what its encoder can say.

Each input is either random bytes or a valid stream (from the encoders) mutated by byte
flips, insertions, deletions, duplications, truncations and splices; it is fed in random
splits to a fresh decoder. Checked: feed() never raises, returns only shoe events, and
every card is either None or one of the 52 canonical texts. Exits 1 on the first failure,
printing the input to reproduce it.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import random
import sys
import time

from controller.game.cards import DECK
from controller.game.events import (
    Alarm,
    CardRead,
    Cut,
    Empty,
    Heartbeat,
    Hello,
    Lid,
    Misread,
    Retract,
    ShoeEvent,
    Warning,
)
from drivers.dialects import DIALECTS, UnsupportedEvent, dialect_named, make_decoder, make_encoder

CARDS = [str(c) for c in DECK]
CARD_SET = frozenset(CARDS)
SPECIALS = b"$*,[]<>\r\n :0123456789ABCDEFxW"


ENCODER_OPTIONS = {"style": ["rank-suit", "suit-first"], "ten": ["10", "T"]}
"""Encoder options drawn at random, for the encoders that take them."""


@functools.cache
def _options(dialect: str) -> tuple[str, ...]:
    """The options of :data:`ENCODER_OPTIONS` the dialect's encoder takes."""
    taken = inspect.signature(type(make_encoder(dialect)).__init__).parameters
    return tuple(k for k in ENCODER_OPTIONS if k in taken)


@functools.cache
def _says(dialect: str, kind: type) -> bool:
    """The dialect's encoder has a way to say an event of this kind."""
    sample = {CardRead: CardRead(card="Ah", code=None, seq=1), Misread: Misread(seq=1),
              Alarm: Alarm(code="E3", text="Card Not Read", seq=1),
              Warning: Warning(code="0x01", seq=1), Heartbeat: Heartbeat(uptime_ms=1, seq=1),
              Lid: Lid(open=True, seq=1), Cut: Cut(seq=1), Empty: Empty(seq=1),
              Retract: Retract(card_seq=1, seq=1),
              Hello: Hello(model="M", serial="S", firmware="F", seq=1)}[kind]
    try:
        make_encoder(dialect).encode(sample)
    except UnsupportedEvent:
        return False
    return True


def valid_stream(rng: random.Random, dialect: str) -> bytes:
    enc = make_encoder(dialect, **{k: rng.choice(ENCODER_OPTIONS[k]) for k in _options(dialect)})
    numbered = dialect_named(dialect).numbered
    seq = rng.randrange(65536)
    out = []
    for _ in range(rng.randint(1, 8)):
        s = seq if numbered else None
        card = rng.choice(CARDS)
        kinds: list[ShoeEvent] = [
            CardRead(card=card, code=enc.card_code(card), burn=rng.random() < 0.2, seq=s),
            Misread(burn=rng.random() < 0.2, seq=s), Alarm(code="E3", text="Card Not Read", seq=s),
            Warning(code="0x01", seq=s),
            Heartbeat(uptime_ms=rng.randrange(10**9), seq=s), Lid(open=True, seq=s),
            Cut(seq=s), Empty(seq=s), Retract(card_seq=seq - 1, seq=s),
            Hello(model="M", serial="S", firmware="F", seq=rng.choice([s, 0]))]
        out.append(enc.encode(rng.choice([k for k in kinds if _says(dialect, type(k))])))
        seq = (seq + 1) % 65536
    return b"".join(out)


def mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(7)
        i = rng.randrange(len(buf) + 1)
        if op == 0 and buf:
            buf[min(i, len(buf) - 1)] = rng.randrange(256)
        elif op == 1:
            buf[i:i] = bytes(rng.choice(SPECIALS) for _ in range(rng.randint(1, 6)))
        elif op == 2:
            buf[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 3:
            del buf[i:i + rng.randint(1, 10)]
        elif op == 4:
            buf[i:i] = buf[i:i + rng.randint(1, 40)]
        elif op == 5:
            del buf[i:]
        else:
            buf[i:i] = bytes([rng.choice(b"$[<")]) * rng.randint(1, 300)
    return bytes(buf)


def one_input(rng: random.Random, dialect: str) -> bytes:
    r = rng.random()
    if r < 0.25:
        return rng.randbytes(rng.randint(0, 120))
    if r < 0.35:
        return bytes(rng.choice(SPECIALS) for _ in range(rng.randint(0, 80)))
    return mutate(rng, valid_stream(rng, dialect))


def fuzz(dialect: str, count: int, seed: int) -> int:
    rng = random.Random(seed)
    for n in range(count):
        data = one_input(rng, dialect)
        dec = make_decoder(dialect)
        cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randint(0, 3)))
        prev = 0
        try:
            for cut in [*cuts, len(data)]:
                for ev in dec.feed(data[prev:cut]):
                    if not isinstance(ev, ShoeEvent):
                        raise AssertionError(f"not an event: {ev!r}")
                    if isinstance(ev, CardRead) and ev.card is not None \
                            and ev.card not in CARD_SET:
                        raise AssertionError(f"invented card text {ev.card!r}")
                prev = cut
            if dec.stats.internal_errors:
                raise AssertionError("feed() caught an internal error")
        except Exception as exc:  # noqa: BLE001 - report and stop
            print(f"FAIL {dialect} input #{n}: {exc!r}\n  data={data!r}\n  cuts={cuts}")
            return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--dialect", choices=sorted(DIALECTS), action="append")
    args = parser.parse_args()
    status = 0
    for dialect in args.dialect or list(DIALECTS):
        start = time.perf_counter()
        result = fuzz(dialect, args.count, args.seed)
        took = time.perf_counter() - start
        print(f"{dialect}: {args.count} inputs, {'FAILED' if result else 'no exception'}, "
              f"{took:.1f} s", flush=True)
        status |= result
    return status


if __name__ == "__main__":
    sys.exit(main())
