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
    of betting until the next round opened; a bundle holds no secret, so a start-up's
    configuration and a new PIN's record come with their PIN hashes taken out (marked
    ``redacted``: the events chain through their journaled hashes, which cannot be
    recomputed from the redacted text);
``anchors.json``
    the chain hashes before and after those events, the journal's head then, and the
    verdict of the one verifier on the journal (a bundle is made only from a journal that
    passes it: from the snapshot the round's replay starts from to the anchored head, or
    with ``--full-check`` from the first event, as ``threecard verify-journal``);
``snapshot.json``
    the state the round started from (configuration without its PIN hashes, deck,
    meters);
``steps.json``
    the pictured steps: event, kind, the language and size its screens were drawn in
    (those of the start-up in force then: a table restarted in the round with other
    screens is drawn so from then on), the two images;
``manifest.json``, ``manifest.sig``
    the SHA-256 and size of every other file, signed with the table's Ed25519 key
    (:mod:`controller.signing`); with the table and round, the software that made the
    bundle (``software``) and the one that played the round (``round_software``, as its
    start-up record names it: None where it names none), and the language and size the
    screens were drawn in at the round's first step and where each came from
    (``screens``). The signature covers
    every file's name and bytes; the zip file's own dates, comment and the order of its
    members are not covered (they carry nothing of the round).

``verify`` checks the signature, every file's hash (a changed byte anywhere fails, naming
the file), that the events chain to the anchors, and replays the round from the bundled
snapshot and events through the table's own engine to the recorded result. The zip file
itself is read without trusting it (:mod:`controller.bundle_zip`): every member's local
header must match the zip's directory, every member must be a plain file, and a bundle
of more members or inflated bytes than a bundle ever holds is refused unread.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec

from controller.bundle_zip import MAX_MANIFEST, MAX_MEMBER, ZIP_ERRORS, read, too_many
from controller.bundle_zip import members as zip_members
from controller.cli import whole_number
from controller.files import new_file
from controller.game.numbers import LANGUAGES
from controller.game.text import for_terminal

FORMAT = "threecard-dispute/1"
"""The bundle's format, in its manifest."""
MANIFEST, SIGNATURE = "manifest.json", "manifest.sig"
UNAUTHENTICATED = 3
"""``dispute verify``'s status for a bundle that holds together, checked without the
table's public key: whose key signed it is not known."""
DEFAULT_SIZE = "1920x1080"
MAX_ROUND = 10**9


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _zip_time(utc: str) -> tuple[int, int, int, int, int, int]:
    from controller.game.shift import parse_utc

    t = parse_utc(utc)
    return (max(t.year, 1980), t.month, t.day, t.hour, t.minute, t.second)


SCREENS_FROM = {"given": "given on the command line",
                "table": "recorded by the table at start-up",
                "default": "the default, the table recorded none"}
"""Where a bundle's screens took their language and size from (the manifest's words)."""


def screens_used(recorded: dict[str, Any] | None, size: tuple[int, int] | None,
                 lang: str | None) -> dict[str, Any]:
    """The language and size a bundle draws the screens in, and where each came from.

    Args:
        recorded: the screens the start-up record in force names
            (:class:`~controller.game.inputs.Screens`' fields), or None.
        size: the size the command gives, or None.
        lang: the language the command gives, or None.

    Returns:
        The manifest's ``screens``: ``language``, ``size`` (``WIDTHxHEIGHT``), where each
        came from (:data:`SCREENS_FROM`) and the ``table``'s record as journaled. Both
        screens are drawn at that one size: a screen filling its display was as large as
        that display, which the journal does not record.
    """
    from display.screenshot import parse_size

    rec = recorded or {}
    lang_from = "given" if lang else "table" if rec.get("language") in LANGUAGES else "default"
    lang = lang or (rec["language"] if lang_from == "table" else "en")
    size_from = "given" if size else "table" if rec.get("dealer_size") else "default"
    if size is None:
        size = parse_size(rec["dealer_size"] if size_from == "table" else DEFAULT_SIZE)
    return {"language": lang, "language_from": SCREENS_FROM[lang_from],
            "size": f"{size[0]}x{size[1]}", "size_from": SCREENS_FROM[size_from],
            "table": recorded}


def bundle_files(journal: str | Path, round_id: int, size: tuple[int, int] | None = None,
                 lang: str | None = None, archive: str | Path | None = None,
                 full_check: bool = False) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Every file of a bundle but the manifest and its signature.

    ``size`` and ``lang``: the screens' (None: as the table recorded them,
    :func:`screens_used`). ``archive`` and ``full_check``: see
    :func:`controller.game.dispute.evidence`.

    Returns:
        (name -> bytes, facts for the manifest: table, round, close time, screens).

    Raises:
        JournalError: the journal cannot be read, its chain is broken, or it cannot be
            replayed.
        DisputeError: no such round, or it is still in play.
    """
    from controller.game.dispute import evidence
    from controller.game.replay import views_after
    from controller.journal import Journal
    from display.screenshot import ViewPainter, parse_size

    j = Journal(journal, readonly=True, archive=archive)
    try:
        ev = evidence(j, round_id, full_check)
        kinds = {e.seq: e.kind for e in ev.events}
        screens = screens_used(ev.screens, size, lang)
        painters: dict[tuple[str, str], ViewPainter] = {}
        files: dict[str, bytes] = {}
        steps = []
        for i, (seq, dealer, player) in enumerate(views_after(j, ev.steps), start=1):
            used = screens_used(ev.screens_at(seq), size, lang)  # as the table then ran
            shown = (used["size"], used["language"])
            if shown not in painters:
                painters[shown] = ViewPainter(parse_size(shown[0]), shown[1])
            painter = painters[shown]
            base = f"screens/{i:03d}-{seq}-{kinds[seq]}"
            files[f"{base}-dealer.png"] = painter.png("dealer", dealer)
            files[f"{base}-player.png"] = painter.png("player", player)
            steps.append({"step": i, "seq": seq, "kind": kinds[seq], "state": dealer.state,
                          "lang": shown[1], "size": list(parse_size(shown[0])),
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
        "closed_at": ev.close_seq, "journal_verdict": ev.verified})
    files["snapshot.json"] = ev.snapshot.encode()
    files["steps.json"] = _json({"size": list(parse_size(screens["size"])),
                                 "lang": screens["language"], "steps": steps})
    return files, {"table_id": ev.table_id, "round": round_id, "closed_utc": close_utc,
                   "screens": screens, "round_software": ev.software}


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
    # evidence to hand over: readable, as a copied file would be; whole or not at all
    with new_file(out, 0o644) as f, zipfile.ZipFile(f, "w") as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, when)
            info.compress_type = (zipfile.ZIP_STORED if name.endswith(".png")
                                  else zipfile.ZIP_DEFLATED)
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return manifest["key_fingerprint"]


@dataclass
class Verdict:
    """What ``dispute verify`` found.

    Attributes:
        problems: one line per problem, each naming the bundle file at fault.
        manifest: the manifest, once it could be read.
        record: the round's record as the replay gives it (when it ran).
        currency: the ISO 4217 code of its amounts (the bundled state's ``[table]
            currency``).
    """

    problems: list[str] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    record: dict[str, Any] | None = None
    currency: str = "EUR"

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems


REPLAYED = frozenset({"anchors.json", "events.jsonl", "recall.json", "snapshot.json"})
"""The files the replay reads: the only ones kept in memory (the rest are hashed as read)."""


HEX64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
"""64 lowercase hex digits: a SHA-256, or an Ed25519 public key."""


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
    """The public key a manifest names (None: it names none that can be read)."""
    try:
        return bytes.fromhex(msgspec.json.decode(data, type=_NamedKey).public_key)
    except (msgspec.DecodeError, ValueError):  # (msgspec.ValidationError is a DecodeError)
        return None


def _signed_manifest(z: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo | None],
                     public_key: bytes | None, v: Verdict) -> Manifest | None:
    """The manifest, once its signature holds (None: a problem was noted).

    The signature is checked over the manifest's bytes before anything in them is
    read but the key they name (the key checked against, without ``public_key``): any
    change to the manifest fails the signature, named. The manifest is then read as its
    declaration (:class:`Manifest`).
    """
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
    """Every listed file against the signed manifest: its size first, then its SHA-256.

    A member whose size in the zip's directory is not the manifest's is changed, and is
    not inflated; one the manifest lists larger than :data:`MAX_MEMBER` is not read.

    Returns:
        The bytes of the files the replay reads (:data:`REPLAYED`) that hold.
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
    from controller.game.numbers import currency_problem

    code = json.loads(members["snapshot.json"]).get("config", {}).get("currency")
    if isinstance(code, str) and currency_problem(code) is None:
        v.currency = code


def verify_bundle(path: str | Path, public_key: bytes | None = None) -> Verdict:
    """Check a bundle (see the module docstring).

    Args:
        path: the zip file.
        public_key: the table's public key (32 raw bytes); None trusts the key the
            bundle names (its fingerprint is then what a person compares).

    Returns:
        The verdict; the replay runs only once the signature and every hash hold. The
        manifest and its signature are read first; a file is inflated only once its
        size in the zip's directory is the signed manifest's (an altered member made to
        inflate to gigabytes is refused unread), and only the files the replay reads
        are kept in memory.
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
    if v.ok:
        _replay(kept, v)
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
    parser.add_argument("--size", help="the screens' size, WIDTHxHEIGHT (default: the dealer "
                        "window's size the table recorded at start-up, else "
                        f"{DEFAULT_SIZE})")
    parser.add_argument("--lang", choices=LANGUAGES, help="the screens' language (default: "
                        "the one the table recorded at start-up, else en)")
    parser.add_argument("--full-check", action="store_true",
                        help="check the whole journal from its first event, as verify-journal "
                        "does (default: from the snapshot the round's replay starts from to "
                        "the anchored head; anchors.json says which)")
    sub = parser.add_subparsers(dest="action", metavar="verify")
    check = sub.add_parser("verify", help="check a bundle: signature, every file, the replay",
                           description="Check a dispute bundle: its signature, the SHA-256 "
                           "of every file, and a replay of the round to its recorded result.")
    check.add_argument("bundle", help="the bundle (.zip)")
    check.add_argument("--public-key", help="the table's public key (table.pub); without it "
                       "the bundle's own key is used, its fingerprint printed to compare, "
                       f"and a bundle that holds together exits {UNAUTHENTICATED}, not 0")


def _fail(message: str, status: int) -> int:
    print(for_terminal(f"threecard dispute: {message}"), file=sys.stderr)
    return status


def run(args: argparse.Namespace) -> int:
    """Make a bundle, or (``verify``) check one.

    Returns:
        0 done (a bundle that verifies against the table's key); 1 a journal, key or
        bundle problem; 2 usage; 3 (:data:`UNAUTHENTICATED`) a bundle that holds together
        but was checked without ``--public-key``: anyone may have signed it.
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
    from controller.identity import identify
    from controller.journal import JournalError
    from controller.signing import SigningKeyError, key_path, load_private
    from display.screenshot import parse_size

    out = Path(args.out)
    try:
        size = parse_size(args.size) if args.size else None
        if out.suffix.lower() != ".zip":
            raise ValueError(f"--out: {out} does not end in .zip")
        if not out.parent.is_dir():
            raise ValueError(f"--out: folder {out.parent} does not exist")
    except ValueError as exc:
        return _fail(str(exc), 2)
    try:
        key = load_private(args.key or key_path(args.config))
        files, facts = bundle_files(args.journal, args.round, size, args.lang,
                                    args.archive, args.full_check)
        ident = identify()
        printed = write_bundle(out, files, facts, key,
                               {"version": ident.version, "sha256": ident.sha256})
    except (SigningKeyError, JournalError, DisputeError) as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"--out: cannot write {out}: {exc.strerror or exc}", 1)
    pictures = sum(1 for n in files if n.startswith("screens/"))
    print(f"{out}: round {args.round} of table {facts['table_id']}, {pictures} screens "
          f"({_screens(facts['screens'])}), {len(files) + 2} files; signed by key sha256 "
          f"{printed}")
    return 0


def say(line: str) -> None:
    """Print one line naming what a bundle holds, escaped for the terminal."""
    print(for_terminal(line))


def _screens(s: dict[str, Any]) -> str:
    return (f"in {s['language']} ({s['language_from']}) at {s['size']} "
            f"({s['size_from']})")


def _nets(record: dict[str, Any], currency: str) -> str:
    """Each seat's net, as an amount in the round's currency (``seat 1 +12.50 EUR``)."""
    from controller.game.numbers import format_money

    return ", ".join(f"seat {s['seat']} {format_money(s['net'], currency=currency, sign=True)} "
                     f"{currency}" for s in record["seats"] if s["net"] is not None) or "no seat"


def _run_verify(args: argparse.Namespace) -> int:
    from controller.signing import SigningKeyError, load_public

    try:
        public = load_public(args.public_key) if args.public_key else None
    except SigningKeyError as exc:
        return _fail(str(exc), 2)
    v = verify_bundle(args.bundle, public)
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
    say(f"replay from snapshot.json and events.jsonl: round {rec.get('status')}, "
        f"players' nets {_nets(rec, v.currency)} (as recall.json records)")
    if isinstance(m.get("screens"), dict):
        say(f"screens drawn {_screens(m['screens'])}")
    return 0 if public else UNAUTHENTICATED


__all__ = ["FORMAT", "Verdict", "bundle_files", "verify_bundle", "write_bundle"]
