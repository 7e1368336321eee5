"""``threecard dispute``: one round in a signed bundle, for surveillance or a regulator.

Make one::

    threecard dispute --journal J --round 42 --config /etc/threecard/table.toml --out r42.zip

and check one (anyone, with the table's public key)::

    threecard dispute verify r42.zip --public-key table.pub

The bundle (a zip file) holds:

``recall.json``
    the round's game recall record, as ``threecard recall`` shows it;
``screens/NNN-SEQ-KIND-dealer.png``, ``...-player.png``
    both screens rebuilt from the journal after each step of the round (bets closed, each
    card, each decision, the reveal, the settlement or void; ``steps.json`` lists
    them), drawn by the screens' own code from the views the table published: the player
    screen exactly as the players saw it, with no dealer card before the reveal;
``events.jsonl``
    the round's events, with their sequence numbers and chain hashes, from the opening
    of betting until the next round opened;
``anchors.json``
    the chain hashes before and after those events, and the journal's head then;
``snapshot.json``
    the state the round started from (configuration, deck, meters);
``steps.json``
    the pictured steps: event, kind, the two images;
``manifest.json``, ``manifest.sig``
    the SHA-256 of every other file, signed with the table's Ed25519 key
    (:mod:`controller.signing`).

``verify`` checks the signature, every file's hash (a changed byte anywhere fails, naming
the file), that the events chain to the anchors, and replays the round from the bundled
snapshot and events through the table's own engine to the recorded result.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.cli import whole_number
from controller.game.numbers import LANGUAGES

FORMAT = "threecard-dispute/1"
"""The bundle's format, in its manifest."""
MANIFEST, SIGNATURE = "manifest.json", "manifest.sig"
DEFAULT_SIZE = "1920x1080"
MAX_ROUND = 10**9


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _zip_time(utc: str) -> tuple[int, int, int, int, int, int]:
    from controller.game.shift import parse_utc

    t = parse_utc(utc)
    return (max(t.year, 1980), t.month, t.day, t.hour, t.minute, t.second)


def bundle_files(journal: str | Path, round_id: int, size: tuple[int, int], lang: str,
                 archive: str | Path | None = None) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Every file of a bundle but the manifest and its signature.

    Returns:
        (name -> bytes, facts for the manifest: table, round, close time).

    Raises:
        JournalError: the journal cannot be read, its chain is broken, or it cannot be
            replayed.
        DisputeError: no such round, or it is still in play.
    """
    from controller.game.dispute import evidence
    from controller.game.journal import Journal
    from controller.game.replay import views_after
    from display.screenshot import ViewPainter

    j = Journal(journal, readonly=True, archive=archive)
    try:
        ev = evidence(j, round_id)
        kinds = {e.seq: e.kind for e in ev.events}
        painter = ViewPainter(size, lang)
        files: dict[str, bytes] = {}
        steps = []
        for i, (seq, dealer, player) in enumerate(views_after(j, ev.steps), start=1):
            base = f"screens/{i:03d}-{seq}-{kinds[seq]}"
            files[f"{base}-dealer.png"] = painter.png("dealer", dealer)
            files[f"{base}-player.png"] = painter.png("player", player)
            steps.append({"step": i, "seq": seq, "kind": kinds[seq], "state": dealer.state,
                          "dealer": f"{base}-dealer.png", "player": f"{base}-player.png"})
    finally:
        j.close()
    close_utc = next(e.utc for e in ev.events if e.seq == ev.close_seq)
    files["recall.json"] = _json(ev.record)
    files["events.jsonl"] = "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n"
                                    for e in ev.events).encode()
    files["anchors.json"] = _json({
        "before": {"seq": ev.before[0], "hash": ev.before[1]},
        "after": {"seq": ev.after[0], "hash": ev.after[1]},
        "journal_head": {"seq": ev.head[0], "hash": ev.head[1]},
        "closed_at": ev.close_seq})
    files["snapshot.json"] = ev.snapshot.encode()
    files["steps.json"] = _json({"size": list(size), "lang": lang, "steps": steps})
    return files, {"table_id": ev.table_id, "round": round_id, "closed_utc": close_utc}


def write_bundle(out: Path, files: dict[str, bytes], facts: dict[str, Any], key: Any,
                 software: dict[str, Any]) -> str:
    """Write the bundle: the files, their signed manifest. Written whole or not at all.

    Returns:
        The signing key's fingerprint.
    """
    from controller.signing import fingerprint, raw_public, sign

    public = raw_public(key)
    manifest = {"format": FORMAT, **facts, "software": software,
                "public_key": public.hex(), "key_fingerprint": fingerprint(public),
                "files": {name: {"sha256": hashlib.sha256(data).hexdigest(),
                                 "bytes": len(data)} for name, data in sorted(files.items())}}
    manifest_bytes = _json(manifest)
    members = {MANIFEST: manifest_bytes, SIGNATURE: (sign(key, manifest_bytes).hex() + "\n"
                                                     ).encode(), **files}
    when = _zip_time(facts["closed_utc"])
    fd, tmp = tempfile.mkstemp(prefix=".dispute-", suffix=".zip", dir=out.parent)
    try:
        os.fchmod(fd, 0o644)  # evidence to hand over: readable, as a copied file would be
        with os.fdopen(fd, "wb") as f, zipfile.ZipFile(f, "w") as z:
            for name, data in members.items():
                info = zipfile.ZipInfo(name, when)
                info.compress_type = (zipfile.ZIP_STORED if name.endswith(".png")
                                      else zipfile.ZIP_DEFLATED)
                info.external_attr = 0o644 << 16
                z.writestr(info, data)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return manifest["key_fingerprint"]


@dataclass
class Verdict:
    """What ``dispute verify`` found.

    Attributes:
        problems: one line per problem, each naming the bundle file at fault.
        manifest: the manifest, once it could be read.
        record: the round's record as the replay gives it (when it ran).
    """

    problems: list[str] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems


def _read_members(path: Path, v: Verdict) -> dict[str, bytes]:
    try:
        z = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        v.problems.append(f"{path}: not a readable zip file ({exc})")
        return {}
    members: dict[str, bytes] = {}
    with z:
        for info in z.infolist():
            try:
                members[info.filename] = z.read(info)
            except (zipfile.BadZipFile, OSError, ValueError) as exc:  # a CRC or a header
                v.problems.append(f"{info.filename}: damaged in the zip file ({exc})")
    return members


def _check_manifest(members: dict[str, bytes], public_key: bytes | None, v: Verdict) -> None:
    from controller.signing import fingerprint, signature_ok

    data, sig = members.get(MANIFEST), members.get(SIGNATURE)
    if data is None or sig is None:
        v.problems.append(f"{MANIFEST if data is None else SIGNATURE}: missing")
        return
    try:
        manifest = json.loads(data)
        listed = {name: entry["sha256"] for name, entry in manifest["files"].items()}
        bundled_key = bytes.fromhex(manifest["public_key"])
        signature = bytes.fromhex(sig.decode("ascii").strip())
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        v.problems.append(f"{MANIFEST} or {SIGNATURE}: unreadable ({exc})")
        return
    key = public_key if public_key is not None else bundled_key
    if public_key is not None and public_key != bundled_key:
        v.problems.append(f"{MANIFEST}: signed by another key (fingerprint "
                          f"{fingerprint(bundled_key)}, not the table's {fingerprint(key)})")
    if not signature_ok(key, signature, data):
        v.problems.append(f"{MANIFEST} or {SIGNATURE}: the signature does not match (one of "
                          "them was changed, or another key signed it)")
        return
    v.manifest = manifest
    for name, want in sorted(listed.items()):
        got = members.get(name)
        if got is None:
            v.problems.append(f"{name}: missing from the bundle")
        elif hashlib.sha256(got).hexdigest() != want:
            v.problems.append(f"{name}: changed (its SHA-256 is not the manifest's)")
    for name in sorted(set(members) - set(listed) - {MANIFEST, SIGNATURE}):
        v.problems.append(f"{name}: not in the manifest")


def _replay(members: dict[str, bytes], v: Verdict) -> None:
    from controller.game.dispute import DisputeError, EventRow, replay_round

    try:
        anchors = json.loads(members["anchors.json"])
        before = (anchors["before"]["seq"], anchors["before"]["hash"])
        after = (anchors["after"]["seq"], anchors["after"]["hash"])
    except (KeyError, ValueError, TypeError) as exc:
        v.problems.append(f"anchors.json: unreadable ({exc})")
        return
    try:
        events = [EventRow.from_json(json.loads(line))
                  for line in members["events.jsonl"].decode().splitlines() if line]
    except (KeyError, ValueError, UnicodeDecodeError) as exc:
        v.problems.append(f"events.jsonl: unreadable ({exc})")
        return
    try:
        recorded = json.loads(members["recall.json"])
        v.record = replay_round(members["snapshot.json"].decode(), events, before, after,
                                v.manifest["round"])
    except DisputeError as exc:
        v.problems.append(str(exc))
        return
    except (KeyError, ValueError, UnicodeDecodeError) as exc:
        v.problems.append(f"recall.json or snapshot.json: unreadable ({exc})")
        return
    if v.record != recorded:
        v.problems.append("recall.json: the replay from snapshot.json and events.jsonl gives "
                          "another result")


def verify_bundle(path: str | Path, public_key: bytes | None = None) -> Verdict:
    """Check a bundle (see the module docstring).

    Args:
        path: the zip file.
        public_key: the table's public key (32 raw bytes); None trusts the key the
            bundle names (its fingerprint is then what a person compares).

    Returns:
        The verdict; the replay runs only once the signature and every hash hold.
    """
    v = Verdict()
    members = _read_members(Path(path), v)
    if members:
        _check_manifest(members, public_key, v)
    if v.ok:
        _replay(members, v)
    return v


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``dispute --journal J --round N --out F.zip (--config C | --key K)``; ``dispute verify``."""
    parser.add_argument("--journal", help="the journal file (read-only)")
    parser.add_argument("--archive", metavar="FILE", help="the archive the journal's settled "
                        "history was moved to (default: the one beside the journal)")
    parser.add_argument("--round", type=whole_number(1, MAX_ROUND), help="the round number")
    parser.add_argument("--out", help="the bundle to write (a .zip file)")
    parser.add_argument("--config", help="the table's configuration: its key is beside it "
                        "(threecard keygen)")
    parser.add_argument("--key", help="the signing key file, if not beside --config")
    parser.add_argument("--size", default=DEFAULT_SIZE,
                        help=f"the screens' size, WIDTHxHEIGHT (default {DEFAULT_SIZE})")
    parser.add_argument("--lang", choices=LANGUAGES, default="en",
                        help="the screens' language (default en)")
    sub = parser.add_subparsers(dest="action", metavar="verify")
    check = sub.add_parser("verify", help="check a bundle: signature, every file, the replay",
                           description="Check a dispute bundle: its signature, the SHA-256 "
                           "of every file, and a replay of the round to its recorded result.")
    check.add_argument("bundle", help="the bundle (.zip)")
    check.add_argument("--public-key", help="the table's public key (table.pub); without it "
                       "the bundle's own key is used, and its fingerprint printed to compare")


def _fail(message: str, status: int) -> int:
    print(f"threecard dispute: {message}", file=sys.stderr)
    return status


def run(args: argparse.Namespace) -> int:
    """Make a bundle, or (``verify``) check one.

    Returns:
        0 done (a bundle that verifies); 1 a journal, key or bundle problem; 2 usage.
    """
    if args.action == "verify":
        return _run_verify(args)
    missing = [f"--{n}" for n in ("journal", "round", "out") if getattr(args, n) is None]
    if missing:
        return _fail(f"{', '.join(missing)} required (or: threecard dispute verify FILE.zip)",
                     2)
    if (args.config is None) == (args.key is None):
        return _fail("give the signing key: --config (the key beside it) or --key", 2)
    from controller.game.dispute import DisputeError
    from controller.game.journal import JournalError
    from controller.identity import identify
    from controller.signing import SigningKeyError, key_path, load_private
    from display.screenshot import parse_size

    out = Path(args.out)
    try:
        size = parse_size(args.size)
        if out.suffix.lower() != ".zip":
            raise ValueError(f"--out: {out} does not end in .zip")
        if not out.parent.is_dir():
            raise ValueError(f"--out: folder {out.parent} does not exist")
    except ValueError as exc:
        return _fail(str(exc), 2)
    try:
        key = load_private(args.key or key_path(args.config))
        files, facts = bundle_files(args.journal, args.round, size, args.lang,
                                    args.archive)
        ident = identify()
        printed = write_bundle(out, files, facts, key,
                               {"version": ident.version, "sha256": ident.sha256})
    except (SigningKeyError, JournalError, DisputeError) as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"--out: cannot write {out}: {exc.strerror or exc}", 1)
    screens = sum(1 for n in files if n.startswith("screens/"))
    print(f"{out}: round {args.round} of table {facts['table_id']}, {screens} screens, "
          f"{len(files) + 2} files; signed by key sha256 {printed}")
    return 0


def _nets(record: dict[str, Any]) -> str:
    return ", ".join(f"seat {s['seat']} {s['net']:+}" for s in record["seats"]
                     if s["net"] is not None) or "no seat"


def _run_verify(args: argparse.Namespace) -> int:
    from controller.signing import SigningKeyError, load_public

    try:
        public = load_public(args.public_key) if args.public_key else None
    except SigningKeyError as exc:
        return _fail(str(exc), 2)
    v = verify_bundle(args.bundle, public)
    if not v.ok:
        print(f"BUNDLE FAILS: {args.bundle}")
        for problem in v.problems:
            print(f"  {problem}")
        return 1
    m, rec = v.manifest, v.record or {}
    trust = "the table's key" if public else "the key it names (compare the fingerprint)"
    print(f"bundle OK: round {m['round']} of table {m['table_id']}, {len(m['files']) + 2} "
          f"files, every SHA-256 as signed; signed by {trust}, sha256 {m['key_fingerprint']}")
    print(f"replay from snapshot.json and events.jsonl: round {rec.get('status')}, "
          f"{_nets(rec)} (as recall.json records)")
    return 0


__all__ = ["FORMAT", "Verdict", "bundle_files", "verify_bundle", "write_bundle"]
