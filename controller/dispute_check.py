"""``threecard dispute verify``: a dispute bundle checked, by anyone, without trusting it.

Signature, hashes, the events' chain to the anchors and the closing seal, every seal from
the verification key (a forger holding the dispute key cannot pass off changed events), and
a replay to the recorded result (docs/dispute-bundle-format.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from controller.bundle_zip import MAX_MANIFEST, MAX_MEMBER, ZIP_ERRORS, read, too_many
from controller.bundle_zip import members as zip_members
from controller.game.text import for_terminal

if TYPE_CHECKING:
    from controller.game.dispute_seals import SealFindings

MANIFEST, SIGNATURE = "manifest.json", "manifest.sig"
SEALS = "seals.json"
# A bundle that holds together, checked without the table's public key: whose key signed it
# is not known.
UNAUTHENTICATED = 3


@dataclass
class Verdict:
    """What ``dispute verify`` found; ``problems`` one line each, naming the file at fault."""

    problems: list[str] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    currency: str = "EUR"
    seals: SealFindings | None = None

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems


# The files the replay and the seals' check read: the only ones kept in memory.
REPLAYED = frozenset({"anchors.json", "events.jsonl", "recall.json", "snapshot.json", SEALS})


HEX64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class ListedFile(msgspec.Struct, forbid_unknown_fields=True):
    """A bundle file as the manifest lists it."""

    sha256: HEX64
    bytes: Annotated[int, msgspec.Meta(ge=0)]


class Manifest(msgspec.Struct):
    """A bundle's manifest, as :func:`write_bundle` writes it (read once it is signed)."""

    format: str
    table_id: str
    round: Annotated[int, msgspec.Meta(ge=1)]
    closed_utc: str
    public_key: HEX64
    key_fingerprint: str
    files: dict[str, ListedFile]
    screens: dict[str, Any] | None = None
    software: Any = None
    round_software: Any = None


class _NamedKey(msgspec.Struct):
    public_key: HEX64


def _named_key(data: bytes) -> bytes | None:
    try:
        return bytes.fromhex(msgspec.json.decode(data, type=_NamedKey).public_key)
    except (msgspec.DecodeError, ValueError):  # (msgspec.ValidationError is a DecodeError)
        return None


def _signed_manifest(z: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo | None],
                     public_key: bytes | None, v: Verdict) -> Manifest | None:
    """The manifest once its signature holds (None: a problem noted); checked before reading it."""
    from controller.signing import fingerprint, signature_ok

    texts: dict[str, bytes] = {}
    for name in (MANIFEST, SIGNATURE):
        info = members.get(name)
        if info is None:  # (a name held twice is noted already)
            if name not in members:
                v.problems.append(f"{name}: missing")
            return None
        if info.file_size > MAX_MANIFEST:
            v.problems.append(f"{name}: {info.file_size} bytes, more than a bundle's "
                              f"{name} ever holds ({MAX_MANIFEST}): not read")
            return None
        got = read(z, info, MAX_MANIFEST, v.problems)
        if got is None:
            return None
        texts[name] = got[1]
    data, sig = texts[MANIFEST], texts[SIGNATURE]
    try:
        signature = bytes.fromhex(sig.decode("ascii").strip())
    except (ValueError, UnicodeDecodeError):
        signature = b""
    bundled_key = _named_key(data)
    key = public_key if public_key is not None else bundled_key
    if public_key is not None and bundled_key is not None and public_key != bundled_key:
        v.problems.append(f"{MANIFEST}: signed by another key (fingerprint "
                          f"{fingerprint(bundled_key)}, not the table's {fingerprint(key)})")
    if key is None or len(signature) != 64 or not signature_ok(key, signature, data):
        v.problems.append(f"{MANIFEST} or {SIGNATURE}: the signature does not match (one of "
                          "them was changed, or another key signed it)")
        return None
    try:
        manifest = msgspec.json.decode(data, type=Manifest)
    except msgspec.DecodeError as exc:  # signed as it is, yet not a manifest of this format
        v.problems.append(f"{MANIFEST}: signed, but not a manifest this version reads "
                          f"({exc})")
        return None
    v.manifest = msgspec.to_builtins(manifest)
    return manifest


def _check_members(z: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo | None],
                   manifest: Manifest, v: Verdict) -> dict[str, bytes]:
    """Every listed file against the signed manifest: size first (not inflated if wrong), SHA-256.

    The :data:`REPLAYED` files' bytes are returned.
    """
    kept: dict[str, bytes] = {}
    for name, entry in sorted(manifest.files.items()):
        want, size = entry.sha256, entry.bytes
        info = members.get(name)
        if info is None or name in (MANIFEST, SIGNATURE):
            if name not in members or name in (MANIFEST, SIGNATURE):
                v.problems.append(f"{name}: missing from the bundle")
        elif info.file_size != size:
            v.problems.append(f"{name}: changed ({info.file_size} bytes, the manifest's "
                              f"{size}; not inflated)")
        elif size > MAX_MEMBER:
            v.problems.append(f"{name}: {size} bytes, more than a bundle's file ever holds "
                              f"({MAX_MEMBER}): not read")
        elif (got := read(z, info, size, v.problems, keep=name in REPLAYED)) is not None:
            if got[0] != want:
                v.problems.append(f"{name}: changed (its SHA-256 is not the manifest's)")
            elif name in REPLAYED:
                kept[name] = got[1]
    for name in sorted(set(members) - set(manifest.files) - {MANIFEST, SIGNATURE}):
        v.problems.append(f"{name}: not in the manifest")
    return kept


def _events(members: dict[str, bytes], v: Verdict) -> list[Any] | None:
    from controller.game.dispute import EventRow

    try:
        events = [EventRow.from_json(json.loads(line))
                  for line in members["events.jsonl"].decode().splitlines() if line]
    except (KeyError, ValueError, UnicodeDecodeError) as exc:
        v.problems.append(f"events.jsonl: unreadable ({exc})")
        return None
    if not events:
        v.problems.append("events.jsonl: holds no event")
        return None
    return events


def _check_seals(members: dict[str, bytes], events: list[Any], keys: list[bytes],
                 v: Verdict) -> None:
    from controller.game.dispute_seals import SealedRange, check_sealed

    data = members.get(SEALS)
    if data is None:
        if keys:
            v.problems.append(f"{SEALS}: missing: round {v.manifest['round']}'s events are "
                              "not sealed (the journal carried no seals, or the file was "
                              "taken out), so no verification key can check them")
        return
    try:
        rng = SealedRange.from_json(data)
    except ValueError as exc:
        v.problems.append(f"{SEALS}: unreadable ({exc})")
        return
    v.seals = check_sealed(rng, events, v.manifest["round"], keys)
    v.problems += v.seals.lines()


def _replay(members: dict[str, bytes], events: list[Any], v: Verdict) -> None:
    from controller.game.dispute import DisputeError, replay_round

    try:
        anchors = json.loads(members["anchors.json"])
        before = (anchors["before"]["seq"], anchors["before"]["hash"])
        after = (anchors["after"]["seq"], anchors["after"]["hash"])
    except (KeyError, ValueError, TypeError) as exc:
        v.problems.append(f"anchors.json: unreadable ({exc})")
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
    from controller.game.numbers import currency_problem

    code = json.loads(members["snapshot.json"]).get("config", {}).get("currency")
    if isinstance(code, str) and currency_problem(code) is None:
        v.currency = code


def verify_bundle(path: str | Path, public_key: bytes | None = None,
                  verify_keys: list[bytes] | None = None) -> Verdict:
    """Check a bundle; the seals and the replay run only once the signature and every hash hold.

    ``public_key`` None trusts the key the bundle names (a person compares its fingerprint);
    ``verify_keys`` (32 raw bytes each) anchor the seals, none checks them unanchored.
    """
    v = Verdict()
    refused = too_many(path)
    if refused:
        v.problems.append(refused)
        return v
    try:
        z = zipfile.ZipFile(path)
    except ZIP_ERRORS as exc:
        v.problems.append(f"{path}: not a readable zip file ({exc})")
        return v
    with z:
        members = zip_members(z, v.problems)
        if members is None:
            return v
        manifest = _signed_manifest(z, members, public_key, v)
        kept = _check_members(z, members, manifest, v) if manifest is not None else {}
    if v.ok and (events := _events(kept, v)) is not None:
        _check_seals(kept, events, verify_keys or [], v)
        _replay(kept, events, v)
    return v


def fail(message: str, status: int) -> int:
    """Say why ``threecard dispute`` stops, on one line; return the exit status."""
    print(for_terminal(f"threecard dispute: {message}"), file=sys.stderr)
    return status


def say(line: str) -> None:
    """Print one line naming what a bundle holds, escaped for the terminal."""
    print(for_terminal(line))


def screens_words(s: dict[str, Any]) -> str:
    """The language and size the screens were drawn in, and where each came from."""
    return (f"in {s['language']} ({s['language_from']}) at {s['size']} "
            f"({s['size_from']})")


def _nets(record: dict[str, Any], currency: str) -> str:
    from controller.game.numbers import format_money

    return ", ".join(f"seat {s['seat']} {format_money(s['net'], currency=currency, sign=True)} "
                     f"{currency}" for s in record["seats"] if s["net"] is not None) or "no seat"


def _seal_lines(v: Verdict, keys: list[bytes]) -> list[str]:
    f, rnd = v.seals, v.manifest["round"]
    if f is None or f.closing is None:
        return [f"events NOT SEALED: the bundle carries no seals (the journal was made "
                f"before seals, or {SEALS} was taken out): round {rnd}'s events rest on the "
                "bundle's signature alone"]
    sealed = (f"round {rnd}'s events (to event {f.last_event}) chain to the first seal at or "
              f"after them (epoch {f.closing.epoch}, event {f.closing.seq}), and the "
              f"{f.checked} seals from epoch 0 verify from")
    if keys:
        out = [f"seals OK: {sealed} the verification key given, {f.verification_key}"]
    else:
        out = [f"seals consistent but UNANCHORED: {sealed} the bundle's own first key "
               f"{f.verification_key} (anyone can make a chain of their own): compare it with "
               "the table's verification key (threecard seal show), or give --verify-key"]
    if f.redacted:
        out.append(f"{f.redacted} redacted records (PIN hashes taken out) are sealed by their "
                   "journaled hashes; their text shown rests on the bundle's signature")
    return out + list(f.notes)


def run_verify(args: argparse.Namespace) -> int:
    """``dispute verify``: check a bundle, print what holds (or each problem).

    Returns 0 verified against the table's key; 1 a problem; 2 an unreadable key given; 3
    (:data:`UNAUTHENTICATED`) checked without ``--public-key``.
    """
    from controller.journal.seal import parse_key
    from controller.signing import SigningKeyError, load_public

    try:
        public = load_public(args.public_key) if args.public_key else None
        keys = [parse_key(k) for k in args.verify_key]
    except (SigningKeyError, ValueError) as exc:
        return fail(str(exc) if isinstance(exc, SigningKeyError) else f"--verify-key: {exc}",
                     2)
    v = verify_bundle(args.bundle, public, keys)
    if not v.ok:
        print(for_terminal(f"BUNDLE FAILS: {args.bundle}"))
        for problem in v.problems:
            print(for_terminal(f"  {problem}"))  # the bundle's text, escaped
        return 1
    m, rec = v.manifest, v.record or {}
    files = f"{len(m['files']) + 2} files, every SHA-256 as signed"
    if public:
        say(f"bundle OK: round {m['round']} of table {m['table_id']}, {files}; signed by "
            f"the table's key, sha256 {m['key_fingerprint']}")
    else:  # anyone may sign with a key of their own and name it
        say(f"bundle holds together, NOT CHECKED against the table's key: round "
            f"{m['round']} of table {m['table_id']}, {files} by the key the bundle names, "
            f"sha256 {m['key_fingerprint']}; compare that fingerprint with the table's, "
            "or give --public-key")
    for line in _seal_lines(v, keys):
        say(line)
    say(f"replay from snapshot.json and events.jsonl: round {rec.get('status')}, "
        f"players' nets {_nets(rec, v.currency)} (as recall.json records)")
    if isinstance(m.get("screens"), dict):
        say(f"screens drawn {screens_words(m['screens'])}")
    return 0 if public else UNAUTHENTICATED


__all__ = ["MANIFEST", "SEALS", "SIGNATURE", "UNAUTHENTICATED", "Verdict", "fail", "run_verify",
           "say", "screens_words", "verify_bundle"]
