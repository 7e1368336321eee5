"""``threecard decode``: raw shoe bytes in, one JSON line per event out (docs/shoe-frames.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any, BinaryIO, TextIO

from controller.game.events import CardRead, LinkStatus, NoFrameDecoded, ShoeEvent
from drivers.dialects import DIALECTS, make_decoder

_NO_SEQ = frozenset({"frame_error", "seq_gap", "link", "no_frame"})


def event_to_json(event: ShoeEvent) -> dict[str, Any]:
    """The JSON object ``threecard decode`` prints for one event: ``{"type": ..., <fields>}``."""
    out: dict[str, Any] = {"type": event.type}
    if isinstance(event, CardRead):
        out.update(card=event.card, seq=event.seq, burn=event.burn, code=event.code)
        return out
    for name in event.__struct_fields__:
        if name == "seq":
            continue
        value = getattr(event, name)
        out[name] = value.value if isinstance(event, LinkStatus) and name == "state" else value
    if event.type not in _NO_SEQ:
        out["seq"] = event.seq
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``decode`` arguments to its sub-parser."""
    parser.add_argument("--dialect", required=True, choices=DIALECTS,
                        help="the shoe's dialect")
    parser.add_argument("file", nargs="?", default="-",
                        help="capture file of raw bytes (default: standard input)")
    parser.add_argument("--stats", action="store_true",
                        help="print the decoder's counters to standard error at the end")


def decode_stream(dialect: str, source: BinaryIO | int, out: TextIO) -> dict[str, int]:
    """Decode all of ``source`` (a file or descriptor) to JSON lines; the counters and ``bytes``."""
    decoder = make_decoder(dialect)
    nbytes = 0
    while True:
        chunk = os.read(source, 65536) if isinstance(source, int) else source.read(65536)
        nbytes += len(chunk)
        if not chunk:
            # end of the capture: a last line without its line end is decoded (or reported
            # as a bad frame), never dropped unseen
            chunk, source = b"\r\n", None
        lines = [json.dumps(event_to_json(ev)) for ev in decoder.feed(chunk)]
        if lines:
            out.write("\n".join(lines) + "\n")
            out.flush()
        if source is None:
            break
    stats = dataclasses.asdict(decoder.stats)
    stats.pop("extra", None)
    stats["bytes"] = nbytes
    return stats


def run(args: argparse.Namespace) -> int:
    """Run ``threecard decode``: 0 all decoded, 1 a frame dropped or none decoded, 2 unreadable."""
    try:
        if args.file == "-":
            stats = decode_stream(args.dialect, sys.stdin.buffer.fileno(), sys.stdout)
        else:
            with open(args.file, "rb") as fh:
                stats = decode_stream(args.dialect, fh, sys.stdout)
    except OSError as exc:
        print(f"threecard decode: cannot read {args.file}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    if args.stats:
        print(json.dumps(stats), file=sys.stderr)
    if stats["bytes"] and not stats["frames"]:
        hint = NoFrameDecoded(nbytes=stats["bytes"], dialect=args.dialect)
        print(f"threecard decode: {hint.message} (decoded as {args.dialect})", file=sys.stderr)
        return 1
    bad = stats["crc"] + stats["malformed"] + stats["oversize"] + stats["seq_gaps"]
    return 1 if bad else 0
