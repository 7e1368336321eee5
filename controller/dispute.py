"""``threecard dispute``: one round in a signed bundle, for surveillance or a regulator.

docs/dispute-bundle-format.md lists the bundle's members; ``dispute verify`` checks one
(:mod:`controller.dispute_check`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from controller.cli import whole_number
from controller.dispute_check import (
    MANIFEST,
    SEALS,
    SIGNATURE,
    UNAUTHENTICATED,
    Verdict,
    run_verify,
    screens_words,
    verify_bundle,
)
from controller.dispute_check import fail as _fail
from controller.game.files import new_file
from controller.game.numbers import LANGUAGES

FORMAT = "threecard-dispute/2"
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


def screens_used(recorded: dict[str, Any] | None, size: tuple[int, int] | None,
                 lang: str | None) -> dict[str, Any]:
    """The manifest's ``screens``: language and size drawn in, the command's over ``recorded``.

    Both screens at one size: a full screen's size is not journaled.
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
    """Every file of a bundle but the manifest and its signature, and the manifest's facts.

    Raises:
        JournalError: the journal cannot be read, its chain is broken, or it cannot be replayed.
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
    if ev.sealed is not None:
        files[SEALS] = ev.sealed.to_json()
    files["steps.json"] = _json({"size": list(parse_size(screens["size"])),
                                 "lang": screens["language"], "steps": steps})
    return files, {"table_id": ev.table_id, "round": round_id, "closed_utc": close_utc,
                   "screens": screens, "round_software": ev.software}


def write_bundle(out: Path, files: dict[str, bytes], facts: dict[str, Any], key: Any,
                 software: dict[str, Any]) -> str:
    """Write the bundle and its signed manifest, whole or not at all; the key's fingerprint."""
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
    sub = parser.add_subparsers(dest="action", metavar="verify", title="or check a bundle",
                                help="a bundle's signature, every file, the seals, the replay "
                                "(threecard dispute verify --help)")
    check = sub.add_parser("verify", description="Check a dispute bundle: its signature, the "
                           "SHA-256 of every file, the round's events against the journal's "
                           "seals, and a replay of the round to its recorded result.")
    check.add_argument("bundle", help="the bundle (.zip)")
    check.add_argument("--public-key", metavar="FILE",
                       help="the table's public key (table.pub); without it the bundle's own "
                       "key is used, its fingerprint printed to compare, and a bundle that "
                       f"holds together exits {UNAUTHENTICATED}, not 0")
    check.add_argument("--verify-key", action="append", default=[], metavar="KEY",
                       help="the journal's verification key (64 hexadecimal digits, from "
                       "the table's commissioning record; `threecard seal show` prints it): "
                       "every seal must follow from it, so changed events fail even in a "
                       "bundle signed with the table's key; give one more for each chain "
                       "`seal init` started. Without it the seals are checked to hold "
                       "together, unanchored")
    # set once the sub-command is made: its name is read from this parser's usage
    parser.usage = ("%(prog)s --journal JOURNAL --round ROUND --out OUT.zip\n"
                    "                         (--config CONFIG | --key KEY) [--archive FILE]\n"
                    "                         [--size SIZE] [--lang LANG] [--full-check]\n"
                    "       %(prog)s verify [--public-key FILE] [--verify-key KEY] bundle")


def run(args: argparse.Namespace) -> int:
    """Make a bundle, or (``verify``) check one: 0 done, 1 a problem, 2 usage, 3 unauthenticated."""
    if args.action == "verify":
        return run_verify(args)
    missing = [f"--{n}" for n in ("journal", "round", "out") if getattr(args, n) is None]
    if missing:
        return _fail(f"{', '.join(missing)} required (or: threecard dispute verify FILE.zip)",
                     2)
    if (args.config is None) == (args.key is None):
        return _fail("give the signing key: --config (the key beside it) or --key", 2)
    from controller.game.dispute import DisputeError
    from controller.identity import bytecode_known, identify
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
        ident = identify(known=bytecode_known())
        printed = write_bundle(out, files, facts, key,
                               {"version": ident.version, "sha256": ident.sha256})
    except (SigningKeyError, JournalError, DisputeError) as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"--out: cannot write {out}: {exc.strerror or exc}", 1)
    pictures = sum(1 for n in files if n.startswith("screens/"))
    print(f"{out}: round {args.round} of table {facts['table_id']}, {pictures} screens "
          f"({screens_words(facts['screens'])}), {len(files) + 2} files; signed by key sha256 "
          f"{printed}")
    return 0


__all__ = ["FORMAT", "MANIFEST", "SEALS", "SIGNATURE", "Verdict", "bundle_files", "verify_bundle",
           "write_bundle"]
