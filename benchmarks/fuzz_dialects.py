"""Fuzz both dialect decoders with random and mutated inputs; report any exception.

Usage: python benchmarks/fuzz_dialects.py [--count N] [--seed S] [--dialect native|beetek]

Each input is either random bytes or a valid stream (from the encoders) mutated by byte
flips, insertions, deletions, duplications, truncations and splices; it is fed in random
splits to a fresh decoder. Checked: feed() never raises, returns only shoe events, and
every card is either None or one of the 52 canonical texts. Exits 1 on the first failure,
printing the input to reproduce it.
"""

from __future__ import annotations

import argparse
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
from drivers.dialects import make_decoder, make_encoder

CARDS = [str(c) for c in DECK]
CARD_SET = frozenset(CARDS)
SPECIALS = b"$*,[]<>\r\n :0123456789ABCDEFxW"


def valid_stream(rng: random.Random, dialect: str) -> bytes:
    enc = make_encoder(dialect, **({"style": rng.choice(["rank-suit", "suit-first"]),
                                    "ten": rng.choice(["10", "T"])}
                                   if dialect == "beetek" else {}))
    seq = rng.randrange(65536)
    out = []
    for _ in range(rng.randint(1, 8)):
        s = seq if dialect == "native" else None
        card = rng.choice(CARDS)
        kinds: list[ShoeEvent] = [
            CardRead(card=card, code=enc.card_code(card) if dialect == "beetek" else card,
                     burn=rng.random() < 0.2, seq=s),
            Misread(burn=rng.random() < 0.2, seq=s), Alarm(code="E3", text="Card Not Read", seq=s),
            Warning(code="0x01", seq=s)]
        if dialect == "native":
            kinds += [Heartbeat(uptime_ms=rng.randrange(10**9), seq=s), Lid(open=True, seq=s),
                      Cut(seq=s), Empty(seq=s), Retract(card_seq=seq - 1, seq=s),
                      Hello(model="M", serial="S", firmware="F", seq=rng.choice([s, 0]))]
        out.append(enc.encode(rng.choice(kinds)))
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
    parser.add_argument("--dialect", choices=["native", "beetek"], action="append")
    args = parser.parse_args()
    status = 0
    for dialect in args.dialect or ["native", "beetek"]:
        start = time.perf_counter()
        result = fuzz(dialect, args.count, args.seed)
        took = time.perf_counter() - start
        print(f"{dialect}: {args.count} inputs, {'FAILED' if result else 'no exception'}, "
              f"{took:.1f} s", flush=True)
        status |= result
    return status


if __name__ == "__main__":
    sys.exit(main())
