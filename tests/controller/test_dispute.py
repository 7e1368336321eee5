"""``threecard keygen``, ``threecard dispute`` and ``dispute verify``: a round that holds up.

The scripted evening (round 11: five seats, a misread entered by hand by a supervisor,
then a technician's new PIN before round 12 opens; round 10: a jam, voided by a
supervisor; round 4: the table restarted in it) is written to a journal; the table's key is made
by the real ``keygen``; bundles are made and checked by the real commands, and one byte
changed in any file of a bundle must fail its check, naming that file.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from in_process import threecard
from journal_edit import events as journal_events
from shift_journal import forged_copy, run_shift

from controller.game.auth import DEMO_PINS
from controller.game.inputs import ChangePin
from controller.journal import Journal

SIZE = (640, 360)
"""Small screens keep the bundles quick; the layout is the table's at any size."""


cli = threecard


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dispute")
    # snapshots every other round: a round is taken out from the one before it; copy-0 is
    # the journal as round 4 opened
    new_pin = ChangePin(role="technician", new_pin="97531", pin=DEMO_PINS["technician"])
    journal, _ = run_shift(folder, stop_after=(3,), snapshot_every=2, between={11: [new_pin]})
    config = folder / "table.toml"
    config.write_text('[table]\nid = "TCP-03"\n')
    made = cli("keygen", "--config", str(config))
    assert made.returncode == 0, made.stderr
    return folder, journal, config, made.stdout


@pytest.fixture(scope="module")
def bundle(table):
    folder, journal, config, _ = table
    out = folder / "round-11.zip"
    made = cli("dispute", "--journal", str(journal), "--round", "11", "--config", str(config),
               "--size", f"{SIZE[0]}x{SIZE[1]}", "--out", str(out))
    assert made.returncode == 0, made.stderr
    return out


def members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def rezip(path: Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)


def test_keygen_keeps_a_private_key_beside_the_configuration(table):
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        PublicFormat,
        load_pem_public_key,
    )

    folder, _, config, printed = table
    key, public = folder / "table.key", folder / "table.pub"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    raw = load_pem_public_key(public.read_bytes()).public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert f"sha256 {hashlib.sha256(raw).hexdigest()}" in printed
    before = key.read_bytes()
    again = cli("keygen", "--config", str(config))
    assert again.returncode == 1 and "never overwritten" in again.stderr
    assert key.read_bytes() == before


def test_a_key_others_may_read_is_refused(table, tmp_path):
    folder, journal, _, _ = table
    loose = tmp_path / "loose.key"
    loose.write_bytes((folder / "table.key").read_bytes())
    os.chmod(loose, 0o644)
    run = cli("dispute", "--journal", str(journal), "--round", "2", "--key", str(loose),
              "--out", str(tmp_path / "x.zip"))
    assert run.returncode == 1 and "chmod 600" in run.stderr
    assert not (tmp_path / "x.zip").exists()


def test_the_public_key_given_to_sign_is_named_and_never_overwritten(table, tmp_path):
    """``--key table.pub`` (mode 0644, as keygen writes it) is named a public key, not
    taken for a private key others may read; and keygen beside a ``table.pub`` whose
    ``table.key`` is gone refuses, leaving it as it was (a verifier may hold it)."""
    folder, journal, _, _ = table
    run = cli("dispute", "--journal", str(journal), "--round", "2", "--key",
              str(folder / "table.pub"), "--out", str(tmp_path / "x.zip"))
    assert run.returncode == 1 and "a public key; signing needs the private key" in run.stderr
    assert "chmod" not in run.stderr and not (tmp_path / "x.zip").exists()
    config = tmp_path / "table.toml"
    config.write_text("")
    public = tmp_path / "table.pub"
    shutil.copyfile(folder / "table.pub", public)
    before = public.read_bytes()
    again = cli("keygen", "--config", str(config))
    assert again.returncode == 1 and "a public key is already there" in again.stderr
    assert public.read_bytes() == before and not (tmp_path / "table.key").exists()


def test_a_bundle_verifies_and_its_replay_gives_recalls_nets(table, bundle):
    from controller.dispute import verify_bundle
    from controller.signing import load_public

    folder, journal, _, _ = table
    checked = cli("dispute", "verify", str(bundle), "--public-key", str(folder / "table.pub"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "bundle OK: round 11 of table TCP-03" in checked.stdout
    recalled = json.loads(cli("recall", "--journal", str(journal), "--json", "--last",
                              "20").stdout)
    (r11,) = [r for r in recalled if r["round_id"] == 11]
    verdict = verify_bundle(bundle, load_public(folder / "table.pub"))
    assert verdict.ok, verdict.problems
    assert [(s["seat"], s["net"]) for s in verdict.record["seats"]] == \
        [(s["seat"], s["net"]) for s in r11["seats"]]
    assert verdict.record == r11
    # the nets as amounts in the table's currency (euros: two decimals), labelled
    nets = ", ".join(f"seat {s['seat']} {s['net'] / 100:+,.2f} EUR" for s in r11["seats"])
    assert f"players' nets {nets} (as recall.json records)" in checked.stdout
    # what the bundle holds besides the screens
    files = members(bundle)
    events = [json.loads(line) for line in files["events.jsonl"].decode().splitlines()]
    anchors = json.loads(files["anchors.json"])
    assert events[0]["prev"] == anchors["before"]["hash"]
    # the journal checked from the snapshot the round's replay starts from, not its start
    checked_from = int(re.search(r"intact from event (\d+)", anchors["journal_verdict"])[1])
    assert 1 < checked_from <= events[0]["seq"], anchors["journal_verdict"]
    assert events[-1]["hash"] == anchors["after"]["hash"]
    assert {"manual_card", "misread", "reveal", "settle"} <= {e["kind"] for e in events}
    assert json.loads(files["snapshot.json"])["round_id"] == 11
    # a table started by other code than the daemon records no screens: the manifest
    # says the language is the default, and the size the command's
    assert json.loads(files["manifest.json"])["screens"] == {
        "language": "en", "language_from": "the default, the table recorded none",
        "size": f"{SIZE[0]}x{SIZE[1]}", "size_from": "given on the command line",
        "table": None}
    j = Journal(journal, readonly=True)  # the journal's own snapshots came before the round
    try:
        assert len([s for s in j.snapshot_seqs() if s < events[0]["seq"]]) >= 4
    finally:
        j.close()


def test_another_key_fails_the_check(table, bundle, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text("")
    assert cli("keygen", "--config", str(other)).returncode == 0
    run = cli("dispute", "verify", str(bundle), "--public-key", str(tmp_path / "other.pub"))
    assert run.returncode == 1 and "signed by another key" in run.stdout


def test_one_changed_byte_in_any_member_fails_naming_it(table, bundle, tmp_path):
    from controller.dispute import verify_bundle
    from controller.signing import load_public

    public = load_public(table[0] / "table.pub")
    files = members(bundle)
    assert len(files) > 20
    forged = tmp_path / "forged.zip"
    for name, data in files.items():
        changed = bytearray(data)
        changed[len(changed) // 2] ^= 0x01
        rezip(forged, {**files, name: bytes(changed)})
        verdict = verify_bundle(forged, public)
        assert not verdict.ok, name
        assert any(p.startswith(name) or f" {name}" in p or f"or {name}" in p
                   for p in verdict.problems), (name, verdict.problems)
    # from the command, as an inspector runs it
    png = next(n for n in files if n.endswith("-player.png"))
    changed = bytearray(files[png])
    changed[-20] ^= 0x80
    rezip(forged, {**files, png: bytes(changed)})
    run = cli("dispute", "verify", str(forged), "--public-key", str(table[0] / "table.pub"))
    assert run.returncode == 1 and f"{png}: changed" in run.stdout
    # a byte changed in the zip file itself, inside a stored image: its CRC fails, named
    raw = bytearray(bundle.read_bytes())
    with zipfile.ZipFile(bundle) as z:
        info = z.getinfo(png)
    raw[info.header_offset + 30 + len(png.encode()) + 100] ^= 0x01
    forged.write_bytes(bytes(raw))
    verdict = verify_bundle(forged, public)
    assert not verdict.ok and any(p.startswith(png) for p in verdict.problems)


BOMB = 256 << 20
"""Bytes of zeros in a member made to inflate far past anything a bundle holds (its
deflated form is a few hundred kilobytes)."""


def _with_zeros(path: Path, files: dict[str, bytes], name: str, declared: int | None = None,
                local: bool = False) -> None:
    """``files`` zipped with ``name`` holding :data:`BOMB` zeros (written in pieces);
    ``declared``: the size the zip's directory then claims for it instead (``local``:
    and its local header)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in files.items():
            if n != name:
                z.writestr(n, data)
                continue
            with z.open(n, "w") as f:
                zeros = bytes(1 << 20)
                for _ in range(BOMB >> 20):
                    f.write(zeros)
    if declared is not None:
        _declare(path, name, declared, local)


def _declare(path: Path, name: str, size: int, local: bool = False) -> None:
    """Make the zip's directory claim ``size`` bytes for ``name`` (``local``: and its local
    header)."""
    raw = bytearray(path.read_bytes())
    end = raw.rindex(b"PK\x05\x06")  # the end record: where the directory starts
    at = int.from_bytes(raw[end + 16:end + 20], "little")
    while True:
        n, m, k = (int.from_bytes(raw[at + i:at + i + 2], "little") for i in (28, 30, 32))
        if raw[at + 46:at + 46 + n] == name.encode():
            break
        at += 46 + n + m + k
    raw[at + 24:at + 28] = size.to_bytes(4, "little")
    if local:
        head = int.from_bytes(raw[at + 42:at + 46], "little")
        raw[head + 22:head + 26] = size.to_bytes(4, "little")
    path.write_bytes(bytes(raw))


def _verify_peak(path: Path, *args: str) -> tuple[int, str, int]:
    """``dispute verify`` in a process of its own: (status, output, peak RSS in KiB)."""
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "dispute", "verify",
                          str(path), *args], stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stdout.close()
    return p.returncode, out, usage.ru_maxrss


def test_a_member_made_to_inflate_to_gigabytes_is_refused_unread(table, bundle, tmp_path):
    """A member is inflated only once its size in the zip's directory is the signed
    manifest's, and never past it: one replaced by a quarter of a gigabyte of zeros
    (deflated to a few hundred kilobytes) fails, named, without the check holding it in
    memory; so does one whose directory claims the manifest's size (its local header
    does not), one whose two headers claim it (the inflater stops there and the CRC
    fails), and one a forger's own manifest lists at that size (more
    than any bundle file: refused unread)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from controller.bundle_zip import MAX_MEMBER
    from controller.dispute import MANIFEST, SIGNATURE
    from controller.signing import fingerprint, raw_public

    public = str(table[0] / "table.pub")
    files = members(bundle)
    listed = json.loads(files[MANIFEST])["files"]
    png = next(n for n in files if n.endswith("-player.png"))
    status, out, genuine_peak = _verify_peak(bundle, "--public-key", public)
    assert status == 0, out
    bomb = tmp_path / "bomb.zip"
    _with_zeros(bomb, files, png)
    assert bomb.stat().st_size < 4 << 20
    status, out, peak = _verify_peak(bomb, "--public-key", public)
    assert status == 1
    assert f"{png}: changed ({BOMB} bytes, the manifest's {listed[png]['bytes']}; not " \
        "inflated)" in out
    assert peak < genuine_peak + (32 << 10), (peak, genuine_peak)  # KiB: not read whole
    # the directory made to claim the manifest's size: its local header says otherwise
    _with_zeros(bomb, files, png, declared=listed[png]["bytes"])
    status, out, peak = _verify_peak(bomb, "--public-key", public)
    assert status == 1 and f"{png}: its local header differs from the zip's directory " \
        "(size): changed" in out, out
    assert peak < genuine_peak + (32 << 10), (peak, genuine_peak)
    # both headers made to claim it: inflated that far, and no further
    _with_zeros(bomb, files, png, declared=listed[png]["bytes"], local=True)
    status, out, peak = _verify_peak(bomb, "--public-key", public)
    assert status == 1 and f"{png}: damaged in the zip file" in out, out
    assert peak < genuine_peak + (32 << 10), (peak, genuine_peak)
    # a forger's manifest, signed with a key of their own, that lists the zeros' size
    manifest = json.loads(files[MANIFEST])
    manifest["files"][png]["bytes"] = BOMB
    forger = Ed25519PrivateKey.generate()
    manifest["public_key"] = raw_public(forger).hex()
    manifest["key_fingerprint"] = fingerprint(raw_public(forger))
    forged = {**files, MANIFEST: json.dumps(manifest).encode()}
    forged[SIGNATURE] = forger.sign(forged[MANIFEST]).hex().encode()
    _with_zeros(bomb, forged, png)
    status, out, peak = _verify_peak(bomb)
    assert status == 1 and f"{png}: {BOMB} bytes, more than a bundle's file ever holds " \
        f"({MAX_MEMBER}): not read" in out, out
    assert peak < genuine_peak + (32 << 10), (peak, genuine_peak)


def test_a_forged_result_with_recomputed_hashes_fails_the_signature(table, bundle, tmp_path):
    from controller.dispute import MANIFEST, verify_bundle
    from controller.signing import load_public

    files = members(bundle)
    record = json.loads(files["recall.json"])
    record["seats"][0]["net"] += 100
    files["recall.json"] = json.dumps(record).encode()
    manifest = json.loads(files[MANIFEST])
    manifest["files"]["recall.json"]["sha256"] = hashlib.sha256(files["recall.json"]
                                                                ).hexdigest()
    files[MANIFEST] = json.dumps(manifest).encode()
    rezip(tmp_path / "f.zip", files)
    verdict = verify_bundle(tmp_path / "f.zip", load_public(table[0] / "table.pub"))
    assert not verdict.ok and "signature does not match" in verdict.problems[0]


def _card_places(region, fit_card, rect_type):
    """Every place three cards could stand in ``region``, as the screens lay a row out."""
    for d in range(region.height // 4):
        box = region.inflate(0, -2 * d)
        w, h, gap = fit_card(box, 3)
        x = box.centerx - (3 * w + 2 * gap) // 2
        y = box.centery - h // 2
        yield [rect_type(x + i * (w + gap), y, w, h) for i in range(3)]


def test_player_screens_before_the_reveal_show_no_dealer_card_face(table, bundle):
    import numpy as np
    import pygame

    from controller.game.replay import views_at
    from display.cards import CardArt, fit_card
    from display.screenshot import ViewPainter

    _, journal, _, _ = table
    files = members(bundle)
    steps = json.loads(files["steps.json"])
    painter = ViewPainter(tuple(steps["size"]), steps["lang"])
    art = CardArt(painter.fonts)

    def backs(image, places, n):
        """How many of the first ``n`` places show exactly a card back."""
        pixels = pygame.surfarray.array3d(image)
        found = 0
        for r in places[:n]:
            back = art.image(None, r.width, r.height)
            solid = pygame.surfarray.array_alpha(back) == 255
            shown = pixels[r.left:r.right, r.top:r.bottom]
            if shown.shape[:2] == solid.shape and np.array_equal(
                    shown[solid], pygame.surfarray.array3d(back)[solid]):
                found += 1
        return found

    before = after = 0
    for step in steps["steps"]:
        dealer_view, player_view = views_at(journal, step["seq"])
        n = len(player_view.dealer_cards)
        if not n:
            continue
        image = pygame.image.load(io.BytesIO(files[step["player"]]), "step.png")
        region = painter.draw("player", player_view)[1].regions["dealer.cards"]
        best = max(backs(image, places, n)
                   for places in _card_places(region, fit_card, pygame.Rect))
        if step["state"] in ("reveal", "settled"):
            assert best == 0, step  # the faces are shown: no back anywhere
            after += 1
        else:
            assert player_view.dealer_cards == (None,) * n, step  # absent from the data
            assert best == n, step  # every dealer card drawn as a back, pixel for pixel
            before += 1
    assert before >= 15 and after == 2


def test_views_after_equals_views_at(table, bundle):
    from controller.game.replay import views_after, views_at
    from controller.journal import Journal

    _, journal, _, _ = table
    seqs = [s["seq"] for s in json.loads(members(bundle)["steps.json"])["steps"]]
    j = Journal(journal, readonly=True)
    try:
        got = list(views_after(j, seqs))
    finally:
        j.close()
    assert [seq for seq, _, _ in got] == seqs
    for seq, dealer, player in got:
        assert (dealer, player) == views_at(journal, seq)


def test_a_void_round_bundles_and_a_round_in_play_or_missing_does_not(table, tmp_path):
    from controller.dispute import bundle_files, verify_bundle, write_bundle
    from controller.game.dispute import DisputeError, evidence
    from controller.journal import Journal
    from controller.signing import load_private

    folder, journal, config, _ = table
    files, facts = bundle_files(journal, 10, SIZE, "fr")
    out = tmp_path / "round-10.zip"
    write_bundle(out, files, facts, load_private(folder / "table.key"), {})
    verdict = verify_bundle(out)
    assert verdict.ok, verdict.problems
    assert verdict.record["status"] == "void" and verdict.record["void_reason"] == "Shoe fault"
    # the supervisor's void is among the round's events, with its role
    events = [json.loads(line) for line in files["events.jsonl"].decode().splitlines()]
    assert ("void", "supervisor") in {(e["kind"], e["actor"]) for e in events}
    for path, round_id, reason in ((journal, 99, "no round 99"),
                                   (folder / "copy-0.sqlite3", 4, "round 4 is still in play")):
        j = Journal(path, readonly=True)
        try:
            with pytest.raises(DisputeError, match=reason):
                evidence(j, round_id)
        finally:
            j.close()
    usage = cli("dispute", "--journal", str(journal), "--round", "3", "--out",
                str(tmp_path / "x.zip"))
    assert usage.returncode == 2 and "--config" in usage.stderr
    assert "Traceback" not in usage.stderr


def test_a_rewritten_journal_is_refused_and_nothing_is_signed(table, tmp_path):
    """A forger's journal (a bet ten times larger, every chain hash after it recomputed,
    its anchor copied): ``dispute`` runs the check ``verify-journal`` runs, refuses it,
    naming why, and signs nothing."""
    _, journal, config, _ = table
    forged = forged_copy(journal, tmp_path, "place_bet",
                         lambda body: {**body, "amount": body["amount"] * 10})
    check = cli("verify-journal", "--journal", str(forged))
    assert check.returncode == 1 and "rewritten" in check.stdout
    out = tmp_path / "r11.zip"
    run = cli("dispute", "--journal", str(forged), "--round", "11", "--config", str(config),
              "--size", f"{SIZE[0]}x{SIZE[1]}", "--out", str(out))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "fails verification" in run.stderr and "rewritten" in run.stderr
    assert "Traceback" not in run.stderr
    assert not list(tmp_path.glob("*.zip"))


def pin_secrets(journal: Path) -> set[str]:
    """Every PIN hash the journal holds, with its salt and its digest apart."""
    found = set()
    for e in journal_events(journal):
        if e[3] not in ("startup", "change_pin"):
            continue
        b = json.loads(e[5])
        hashes = [*b.get("config", {}).get("pin_hashes", {}).values(), b.get("pin_hash")]
        for h in filter(None, hashes):
            found |= {h, *h.split("$")[4:]}  # scrypt$N$r$p$SALT$DIGEST
    return found


def test_a_bundle_gives_away_no_pin_hash_and_still_replays(table, bundle, tmp_path):
    """No PIN hash (nor its salt or digest) in any file of a bundle: not in the state
    the round starts from, not in a start-up record (round 4: the table restarted in it),
    not in a new PIN's record (round 11: a technician's, before round 12 opened). Those
    records are bundled with the hashes taken out and their chain hashes as journaled;
    the bundles still verify and replay to recall's result."""
    folder, journal, config, _ = table
    secrets = pin_secrets(journal)
    assert len(secrets) >= 9  # two roles at start-up (twice), one new PIN: hash, salt, digest
    r4 = tmp_path / "round-4.zip"
    made = cli("dispute", "--journal", str(journal), "--round", "4", "--config", str(config),
               "--size", f"{SIZE[0]}x{SIZE[1]}", "--out", str(r4))
    assert made.returncode == 0, made.stderr
    recalled = {r["round_id"]: r for r in json.loads(cli("recall", "--journal", str(journal),
                                                         "--json", "--last", "20").stdout)}
    for path, round_id, kind in ((bundle, 11, "change_pin"), (r4, 4, "startup")):
        files = members(path)
        events = [json.loads(line) for line in files["events.jsonl"].decode().splitlines()]
        assert kind in {e["kind"] for e in events}, round_id
        for name, data in files.items():
            leaked = [s for s in secrets if s.encode() in data]
            assert not leaked, (round_id, name, leaked)
        snapshot = json.loads(files["snapshot.json"])
        assert not snapshot["config"].get("pin_hashes"), round_id
        checked = cli("dispute", "verify", str(path), "--public-key", str(folder / "table.pub"))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert json.loads(files["recall.json"]) == recalled[round_id]


def test_a_changed_byte_in_the_zip_file_never_crashes_the_check(table, bundle, tmp_path):
    """Bytes flipped in the zip file itself, inside each compressed member's data (where
    the inflater, not the manifest, meets them first): the check fails, naming the member,
    never with a traceback."""
    from controller.dispute import verify_bundle
    from controller.signing import load_public

    public = load_public(table[0] / "table.pub")
    raw = bundle.read_bytes()
    with zipfile.ZipFile(bundle) as z:
        spans = [(i.filename, i.header_offset + 30 + len(i.filename.encode()) + len(i.extra),
                  i.compress_size) for i in z.infolist() if i.compress_type != zipfile.ZIP_STORED]
    assert len(spans) >= 5
    forged = tmp_path / "flipped.zip"
    original = members(bundle)
    tried = 0
    for name, start, size in spans:
        for offset in range(start, start + size, max(1, size // 40)):
            changed = bytearray(raw)
            changed[offset] ^= 0xFF
            forged.write_bytes(bytes(changed))
            verdict = verify_bundle(forged, public)  # must not raise
            if verdict.ok:  # bits the inflater never reads (after the member's last byte)
                assert members(forged) == original, (name, offset)
                continue
            assert any(name in p for p in verdict.problems), (name, verdict.problems)
            tried += 1
    assert tried > 100
    # from the command: one line per problem, exit 1, no traceback
    name, start, size = spans[0]
    changed = bytearray(raw)
    changed[start + 1] ^= 0xFF
    forged.write_bytes(bytes(changed))
    run = cli("dispute", "verify", str(forged), "--public-key", str(table[0] / "table.pub"))
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert f"  {name}: " in run.stdout


def test_a_name_twice_in_the_zip_file_fails(table, bundle, tmp_path):
    """A zip file may hold two members of one name; tools differ on which one they show.
    A bundle holding a name twice fails, naming it, whichever copy comes first."""
    import warnings

    files = members(bundle)
    record = json.loads(files["recall.json"])
    record["seats"][0]["net"] += 100
    other = json.dumps(record).encode()
    for order in ((files["recall.json"], other), (other, files["recall.json"])):
        dup = tmp_path / "dup.zip"
        with warnings.catch_warnings(), zipfile.ZipFile(dup, "w") as z:
            warnings.simplefilter("ignore")  # zipfile warns of the name given twice
            for name, data in files.items():
                if name == "recall.json":
                    for copy in order:
                        z.writestr(name, copy)
                else:
                    z.writestr(name, data)
        run = cli("dispute", "verify", str(dup), "--public-key", str(table[0] / "table.pub"))
        assert run.returncode == 1, run.stdout
        assert "recall.json: in the bundle twice" in run.stdout


def test_without_the_tables_key_no_bundle_passes(table, bundle, tmp_path):
    """Anyone can sign a manifest with a key of their own and name it in the manifest.
    Without ``--public-key`` the check cannot tell such a key from the table's: it exits
    3, never 0, saying so and printing the fingerprint a person must compare; with the
    table's key the genuine bundle passes (0) and the re-signed one fails (1)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from controller.dispute import MANIFEST, SIGNATURE
    from controller.signing import fingerprint, raw_public

    files = members(bundle)
    manifest = json.loads(files[MANIFEST])
    forger = Ed25519PrivateKey.generate()
    manifest["public_key"] = raw_public(forger).hex()
    manifest["key_fingerprint"] = fingerprint(raw_public(forger))
    files[MANIFEST] = json.dumps(manifest).encode()
    files[SIGNATURE] = forger.sign(files[MANIFEST]).hex().encode()
    resigned = tmp_path / "resigned.zip"
    rezip(resigned, files)
    public = str(table[0] / "table.pub")
    for path in (bundle, resigned):
        run = cli("dispute", "verify", str(path))
        assert run.returncode == 3, run.stdout + run.stderr
        assert "NOT CHECKED against the table's key" in run.stdout
        assert json.loads(members(path)[MANIFEST])["key_fingerprint"] in run.stdout
    assert cli("dispute", "verify", str(bundle), "--public-key", public).returncode == 0
    with_key = cli("dispute", "verify", str(resigned), "--public-key", public)
    assert with_key.returncode == 1 and "signed by another key" in with_key.stdout


def test_an_empty_file_or_a_journal_without_events_gives_no_bundle(table, tmp_path):
    _, _, config, _ = table
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.sqlite3"
    Journal(blank).close()
    for journal, why in ((empty, "not a journal"), (blank, "no round 1 in this journal")):
        run = cli("dispute", "--journal", str(journal), "--round", "1", "--config",
                  str(config), "--out", str(tmp_path / "r1.zip"))
        assert run.returncode == 1 and why in run.stderr, run.stderr
        assert "still in play" not in run.stderr and "Traceback" not in run.stderr
        assert not (tmp_path / "r1.zip").exists()


def _file_size_limit(n: int):
    """For ``preexec_fn``: the child may write files of at most ``n`` bytes (a full disk,
    as the writer sees it: a write past it fails)."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))


def test_keygen_on_a_full_disk_leaves_nothing_and_can_be_run_again(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text("")
    full = subprocess.run([sys.executable, "-m", "controller.cli", "keygen", "--config",
                           str(config)], capture_output=True, text=True, timeout=120,
                          preexec_fn=_file_size_limit(0))
    assert full.returncode == 1 and "Traceback" not in full.stderr, full.stderr
    assert "cannot write" in full.stderr and len(full.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]  # nothing half made
    again = cli("keygen", "--config", str(config))
    assert again.returncode == 0, again.stderr
    assert stat.S_IMODE((tmp_path / "table.key").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.key", "table.pub",
                                                          "table.toml"]


LOCAL_FIELDS = {"CRC": 14, "compressed size": 18, "size": 22, "name": 30}
"""Where a local file header holds what the zip's directory holds again (offsets)."""


@pytest.mark.parametrize("field", sorted(LOCAL_FIELDS))
def test_a_local_header_unlike_the_directory_fails_naming_the_member(table, bundle, tmp_path,
                                                                      field):
    """A tool reading the zip file from its start sees the local headers; Python's the
    directory: a member whose two headers disagree fails, named, stored or deflated."""
    from controller.dispute import verify_bundle
    from controller.signing import load_public

    public = load_public(table[0] / "table.pub")
    with zipfile.ZipFile(bundle) as z:
        infos = {i.compress_type: i for i in z.infolist()}
    assert set(infos) == {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    for info in infos.values():
        raw = bytearray(bundle.read_bytes())
        raw[info.header_offset + LOCAL_FIELDS[field]] ^= 0x01
        forged = tmp_path / "local.zip"
        forged.write_bytes(bytes(raw))
        verdict = verify_bundle(forged, public)
        assert f"{info.filename}: its local header differs from the zip's directory " \
            f"({field}): changed" in verdict.problems, verdict.problems
    run = cli("dispute", "verify", str(forged), "--public-key", str(table[0] / "table.pub"))
    assert run.returncode == 1 and f"{info.filename}: its local header differs" in run.stdout


def _rezip_as(path: Path, files: dict[str, bytes], name: str, mode: int) -> None:
    """``files`` zipped with ``name``'s Unix mode (type and permissions) set to ``mode``."""
    with zipfile.ZipFile(path, "w") as z:
        for n, data in files.items():
            info = zipfile.ZipInfo(n)
            info.create_system = 3
            info.external_attr = (mode if n == name else stat.S_IFREG | 0o644) << 16
            z.writestr(info, data)


@pytest.mark.parametrize(("mode", "said"), [
    (stat.S_IFLNK | 0o777, "a symbolic link"), (stat.S_IFDIR | 0o755, "a folder"),
    (stat.S_IFIFO | 0o644, "a device, pipe or socket"),
    (stat.S_IFREG | 0o755, "not a plain file (mode 0755)"),
    (stat.S_IFREG | stat.S_ISUID | 0o644, "not a plain file (mode 4644)")])
def test_a_member_that_is_not_a_plain_file_fails_naming_it(table, bundle, tmp_path, mode,
                                                           said):
    """Its bytes as signed, but a link, a folder, a pipe or a program to whoever unpacks
    the bundle: refused, named."""
    from controller.dispute import verify_bundle
    from controller.signing import load_public

    files = members(bundle)
    genuine = tmp_path / "genuine.zip"
    _rezip_as(genuine, files, "recall.json", stat.S_IFREG | 0o644)
    public = load_public(table[0] / "table.pub")
    assert verify_bundle(genuine, public).ok  # plain files, as the bundle's own
    odd = tmp_path / "odd.zip"
    _rezip_as(odd, files, "recall.json", mode)
    verdict = verify_bundle(odd, public)
    assert f"recall.json: {said}: a bundle holds plain files only" in verdict.problems, \
        verdict.problems
    with zipfile.ZipFile(odd, "a") as z:  # a folder entry by its name alone
        z.writestr("screens/", b"")
    assert "screens/: a folder: a bundle holds plain files only" in \
        verify_bundle(odd, public).problems


def test_more_members_or_bytes_than_a_bundle_holds_are_refused_unread(table, bundle,
                                                                      tmp_path):
    from controller.bundle_zip import MAX_MEMBERS, MAX_TOTAL

    files = members(bundle)
    many = tmp_path / "many.zip"
    rezip(many, {**files, **{f"screens/x{i}.png": b"" for i in range(MAX_MEMBERS)}})
    run = cli("dispute", "verify", str(many), "--public-key", str(table[0] / "table.pub"))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert f"its directory lists {len(files) + MAX_MEMBERS} members, more than a bundle " \
        f"ever holds ({MAX_MEMBERS}): not read" in run.stdout, run.stdout
    big = tmp_path / "big.zip"
    rezip(big, files)
    pngs = [n for n in files if n.endswith(".png")][:2]
    for name in pngs:  # two members each claiming most of the cap
        _declare(big, name, MAX_TOTAL // 2 + 1, local=True)
    run = cli("dispute", "verify", str(big), "--public-key", str(table[0] / "table.pub"))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert f"more than a bundle ever holds ({MAX_MEMBERS} members, {MAX_TOTAL} bytes): " \
        "not read" in run.stdout, run.stdout


def _der(tag: int, body: bytes) -> bytes:
    n = len(body)
    return bytes([tag]) + (bytes([n]) if n < 128 else bytes([0x81, n])) + body


def _oid(dotted: str) -> bytes:
    first, second, *rest = map(int, dotted.split("."))
    out = bytes([first * 40 + second])
    for part in rest:
        seven = [part & 0x7F]
        while part := part >> 7:
            seven.append(0x80 | part & 0x7F)
        out += bytes(reversed(seven))
    return _der(6, out)


def _pem(label: str, der: bytes) -> bytes:
    import base64

    return (f"-----BEGIN {label}-----\n".encode() + base64.encodebytes(der)
            + f"-----END {label}-----\n".encode())


def _foreign_keys() -> dict[str, bytes]:
    """Public keys of other kinds, in PEM: ones the key library reads, and ones it does
    not know (an unsupported curve, an unknown algorithm), and a garbled one."""
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def pem(key) -> bytes:
        return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)

    def spki(algorithm: bytes, key: bytes) -> bytes:
        return _pem("PUBLIC KEY", _der(0x30, _der(0x30, algorithm) + _der(3, b"\0" + key)))

    ec_key = pem(ec.generate_private_key(ec.SECP256R1()))
    lines = ec_key.decode().splitlines()
    lines[1] = lines[1][:10] + "!!!" + lines[1][13:]
    return {"rsa": pem(rsa.generate_private_key(65537, 2048)), "ec": ec_key,
            "unsupported-curve": spki(_oid("1.2.840.10045.2.1") + _oid("1.3.132.0.6"),
                                      b"\x04" + bytes(range(28))),
            "unknown-algorithm": spki(_oid("1.2.643.7.1.1.1.1"), bytes(64)),
            "garbled": ("\n".join(lines) + "\n").encode()}


@pytest.mark.parametrize("kind", sorted(_foreign_keys()))
def test_a_public_key_of_another_kind_is_a_one_line_error(bundle, tmp_path, kind):
    key = tmp_path / f"{kind}.pub"
    key.write_bytes(_foreign_keys()[kind])
    run = cli("dispute", "verify", str(bundle), "--public-key", str(key))
    assert run.returncode == 2, run.stderr
    assert run.stdout == "" and "Traceback" not in run.stderr
    (line,) = run.stderr.splitlines()
    said = "not a public key in PEM" if kind == "garbled" else "not an Ed25519 public key"
    assert line.startswith(f"threecard dispute: {key}: {said}"), line


def test_a_private_key_of_an_unknown_algorithm_is_a_one_line_error(table, tmp_path):
    key = tmp_path / "unknown.key"
    key.write_bytes(_pem("PRIVATE KEY", _der(0x30, _der(2, b"\0") + _der(
        0x30, _oid("1.2.643.7.1.1.1.1")) + _der(4, bytes(32)))))
    key.chmod(0o600)
    run = cli("dispute", "--journal", str(table[1]), "--round", "2", "--key", str(key),
              "--out", str(tmp_path / "x.zip"))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    (line,) = run.stderr.splitlines()
    assert line.startswith(f"threecard dispute: {key}: not an Ed25519 key"), line
    assert not (tmp_path / "x.zip").exists()


def test_any_change_to_the_manifest_is_a_signature_failure_naming_it(table, bundle, tmp_path):
    """The signature is checked over the manifest's bytes before any field is read: a key
    renamed, a field removed or of another type, the JSON broken, each fails the
    signature, naming the manifest, with or without the table's key; never a reader's
    error text. A manifest the table's key signed that is not of the format is named."""
    from controller.dispute import MANIFEST, verify_bundle
    from controller.signing import key_path, load_private, load_public, sign

    public = load_public(table[0] / "table.pub")
    files = members(bundle)
    text = files[MANIFEST].decode()
    assert text.count('"bytes":') > 20
    changes = {"a key renamed": text.replace('"bytes":', '"bytez":', 1),
               "the key removed": text.replace('"public_key":', '"public_kez":', 1),
               "the round a string": re.sub(r'"round": (\d+)', r'"round": "\1"', text),
               "broken JSON": text[:-3]}
    assert all(changed != text for changed in changes.values())
    forged = tmp_path / "forged.zip"
    for what, changed in changes.items():
        rezip(forged, {**files, MANIFEST: changed.encode()})
        for key in (public, None):
            problems = verify_bundle(forged, key).problems
            assert problems, what
            assert all(p.startswith(f"{MANIFEST} ") or p.startswith(f"{MANIFEST}:")
                       for p in problems), (what, problems)
            assert any("signature does not match" in p for p in problems), (what, problems)
            assert not any("unreadable" in p or "KeyError" in p for p in problems)
    # signed by the table's own key, yet a field of another type: named, not a traceback
    private = load_private(key_path(table[2]))
    data = changes["the round a string"].encode()
    rezip(forged, {**files, MANIFEST: data, "manifest.sig": sign(private, data).hex().encode()})
    (problem,) = verify_bundle(forged, public).problems
    assert problem.startswith(f"{MANIFEST}: signed, but not a manifest") and "round" in problem


def test_bytes_after_the_end_record_or_its_counts_changed_are_refused(table, bundle,
                                                                      tmp_path):
    """A zip reader finds the end record further back and reads on past bytes appended
    to the file, and counts the members from the directory itself: the check refuses
    both, naming what is wrong."""
    from controller.dispute import verify_bundle
    from controller.signing import load_public

    public = load_public(table[0] / "table.pub")
    raw = bundle.read_bytes()
    assert verify_bundle(bundle, public).ok
    forged = tmp_path / "forged.zip"
    for extra in (b"\0", b"appended evidence\n" * 50):
        forged.write_bytes(raw + extra)
        with zipfile.ZipFile(forged) as z:  # the zip reader takes it as it was
            assert z.testzip() is None
        (problem,) = verify_bundle(forged, public).problems
        assert f"{len(extra)} bytes after the zip's end record" in problem, problem
    end = raw.rfind(b"PK\x05\x06")
    assert end == len(raw) - 22
    count = int.from_bytes(raw[end + 10:end + 12], "little")
    for field in (8, 10):  # the members on this disk, then in all
        changed = bytearray(raw)
        changed[end + field:end + field + 2] = (count - 1).to_bytes(2, "little")
        forged.write_bytes(bytes(changed))
        (problem,) = verify_bundle(forged, public).problems
        assert f"its central directory holds {count}" in problem, problem
    run = cli("dispute", "verify", str(forged), "--public-key", str(table[0] / "table.pub"))
    assert run.returncode == 1 and "end record counts" in run.stdout, run.stdout


@pytest.fixture(scope="module")
def verification_key(table) -> str:
    """The journal's verification key, as ``threecard seal show`` prints it."""
    shown = cli("seal", "show", "--journal", str(table[1]), "--json")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["verification_key"]


def seal_rows(journal: Path) -> list[tuple[int, int, str]]:
    """(epoch, event, signature hex) of every seal, read with sqlite3, oldest first."""
    import sqlite3

    db = sqlite3.connect(journal)
    try:
        return [(e, s, sig.hex()) for e, s, sig in
                db.execute("SELECT epoch, seq, signature FROM seals ORDER BY epoch")]
    finally:
        db.close()


def closing_seal(journal: Path, seq: int) -> tuple[int, int]:
    """(epoch, event) of the first seal at or after event ``seq``."""
    return next((e, s) for e, s, _ in seal_rows(journal) if s >= seq)


def forge(bundle: Path, journal: Path, config: Path, out: Path, reseal: bool = False) -> str:
    """A forger's bundle, made with the package's own functions: the genuine bundle's
    events and the rows around them taken again from ``journal`` (a forged copy, every
    hash recomputed), the anchors and the record as they then are, every file signed
    again with the table's dispute key. ``reseal``: the seals signed anew by a chain of
    the forger's own keys (the journal's id kept).

    Returns:
        The verification key of the seals the forged bundle carries.
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from controller.dispute import MANIFEST, SEALS, SIGNATURE, write_bundle
    from controller.game.dispute import EventRow, replay_round, without_secrets
    from controller.journal.seal import message, raw_public
    from controller.signing import key_path, load_private

    files = members(bundle)
    manifest = json.loads(files.pop(MANIFEST))
    del files[SIGNATURE]
    rows = {r[0]: without_secrets(EventRow(*r)).to_json() for r in journal_events(journal)}
    events = [json.loads(line) for line in files["events.jsonl"].decode().splitlines()]
    events = [rows[e["seq"]] for e in events]
    files["events.jsonl"] = "".join(json.dumps(e, ensure_ascii=False) + "\n"
                                    for e in events).encode()
    anchors = json.loads(files["anchors.json"])
    anchors["after"]["hash"] = events[-1]["hash"]
    files["anchors.json"] = json.dumps(anchors).encode()
    sealed = json.loads(files[SEALS])
    sealed["before"] = [rows[r["seq"]] for r in sealed["before"]]
    sealed["after"] = [rows[r["seq"]] for r in sealed["after"]]
    if reseal:
        keys = [Ed25519PrivateKey.generate() for _ in range(len(sealed["seals"]) + 1)]
        sealed["chains"][0]["key"] = raw_public(keys[0]).hex()
        for s in sealed["seals"]:
            e = s["epoch"]
            s["head"] = rows[s["seq"]]["hash"]
            s["next_key"] = raw_public(keys[e + 1]).hex()
            s["signature"] = keys[e].sign(message(sealed["journal_id"], e, s["seq"], s["head"],
                                                  raw_public(keys[e + 1]))).hex()
    files[SEALS] = json.dumps(sealed).encode()
    record = replay_round(files["snapshot.json"].decode(),
                          [EventRow.from_json(e) for e in events],
                          (anchors["before"]["seq"], anchors["before"]["hash"]),
                          (anchors["after"]["seq"], anchors["after"]["hash"]),
                          manifest["round"])
    files["recall.json"] = json.dumps(record).encode()
    facts = {k: manifest[k] for k in ("table_id", "round", "closed_utc", "screens",
                                      "round_software")}
    write_bundle(out, files, facts, load_private(key_path(config)), manifest["software"])
    return sealed["chains"][0]["key"]


@pytest.fixture(scope="module")
def forged(table, bundle, tmp_path_factory):
    """Round 11 with seat 5's fold made a play, in a copy of the journal with every hash
    after it recomputed (``rewrite_chain_from``), and bundled by a forger who holds the
    table's dispute key: once with the journal's seals as they are, once with seals of
    the forger's own chain. Returns (the forged journal, the changed event, the bundle,
    the re-sealed bundle, the forger's verification key)."""
    from journal_edit import copy_journal, rewrite_chain_from

    folder, journal, config, _ = table
    out = tmp_path_factory.mktemp("forged")
    copy = copy_journal(journal, out / "journal.sqlite3", keys=False)
    events = [json.loads(line) for line in members(bundle)["events.jsonl"].decode().splitlines()]
    (fold,) = [e["seq"] for e in events if e["kind"] == "decide"
               and json.loads(e["body"]) == {"decision": "fold", "seat": 5}]
    rewrite_chain_from(copy, fold, lambda body: body.replace('"fold"', '"play"'))
    one, two = out / "round-11.zip", out / "round-11-resealed.zip"
    forge(bundle, copy, config, one)
    forger_key = forge(bundle, copy, config, two, reseal=True)
    return copy, fold, one, two, forger_key


def test_a_bundle_passes_the_seals_with_the_journals_key_and_fails_with_anothers(
        table, bundle, verification_key, tmp_path):
    """The seals from epoch 0 to the first one after the round's events walk from the
    verification key ``seal show`` prints; without the key they are said to hold
    together, unanchored; another journal's key fails, naming the round."""
    folder, journal, _, _ = table
    public = str(folder / "table.pub")
    last = json.loads(members(bundle)["anchors.json"])["after"]["seq"]
    epoch, seq = closing_seal(journal, last)
    run = cli("dispute", "verify", str(bundle), "--public-key", public, "--verify-key",
              verification_key)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"seals OK: round 11's events (to event {last}) chain to the first seal at or " \
        f"after them (epoch {epoch}, event {seq}), and the {epoch + 1} seals from epoch 0 " \
        f"verify from the verification key given, {verification_key}" in run.stdout
    unanchored = cli("dispute", "verify", str(bundle), "--public-key", public)
    assert unanchored.returncode == 0, unanchored.stdout
    assert "seals consistent but UNANCHORED" in unanchored.stdout
    assert f"the bundle's own first key {verification_key}" in unanchored.stdout
    other = tmp_path / "other.sqlite3"
    made = cli("simulate", "--journal", str(other), "--rounds", "1", "--seed", "1")
    assert made.returncode == 0, made.stderr
    other_key = json.loads(cli("seal", "show", "--journal", str(other), "--json").stdout
                           )["verification_key"]
    assert other_key != verification_key
    run = cli("dispute", "verify", str(bundle), "--public-key", public, "--verify-key",
              other_key)
    assert run.returncode == 1
    assert "seals.json: round 11's events fail the seals: the journal's verification key " \
        f"is {verification_key}, not the key given" in run.stdout, run.stdout
    bad = cli("dispute", "verify", str(bundle), "--verify-key", "not-a-key")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
    assert "--verify-key" in bad.stderr and "Traceback" not in bad.stderr


def test_changed_events_fail_the_seals_even_recomputed_and_re_signed(table, forged,
                                                                    verification_key):
    """A forger holding the table's dispute key changes a decision of round 11, recomputes
    every hash after it and the record, and signs the bundle again: every file holds and
    the replay gives the bundled record, but the seal the table signed over the round's
    end names another head: the check fails, naming that epoch and the round, with or
    without the verification key."""
    from controller.dispute import verify_bundle
    from controller.journal.seal import parse_key
    from controller.signing import load_public

    folder, journal, _, _ = table
    copy, fold, one, _, _ = forged
    epoch, seq = closing_seal(journal, fold)
    public = load_public(folder / "table.pub")
    for keys in ([], [parse_key(verification_key)]):
        (problem,) = verify_bundle(one, public, keys).problems  # the seals alone
        assert problem == (f"seals.json: round 11's events fail the seals: the seal of epoch "
                           f"{epoch} (events to {seq}) does not match the journal: an event at "
                           f"or before event {seq} was changed, inserted, deleted or "
                           "reordered"), problem
    run = cli("dispute", "verify", str(one), "--public-key", str(folder / "table.pub"),
              "--verify-key", verification_key)
    assert run.returncode == 1 and f"the seal of epoch {epoch}" in run.stdout
    assert "BUNDLE FAILS" in run.stdout and "Traceback" not in run.stderr


def test_seals_made_anew_by_a_forger_pass_only_unanchored(table, forged, verification_key):
    """A forger who also signs a seal chain of their own gets a bundle whose seals hold
    together: without the verification key the check says so, unanchored, naming the
    forger's key; with the table's key it fails."""
    folder, _, _, _ = table
    _, _, _, resealed, forger_key = forged
    public = str(folder / "table.pub")
    unanchored = cli("dispute", "verify", str(resealed), "--public-key", public)
    assert unanchored.returncode == 0, unanchored.stdout
    assert "UNANCHORED: round 11's events" in unanchored.stdout
    assert f"the bundle's own first key {forger_key}" in unanchored.stdout
    run = cli("dispute", "verify", str(resealed), "--public-key", public, "--verify-key",
              verification_key)
    assert run.returncode == 1
    assert f"the journal's verification key is {forger_key}, not the key given" in run.stdout


def test_no_bundle_is_made_of_a_journal_whose_seals_do_not_verify(table, forged, tmp_path):
    """``dispute`` refuses, on one line, a journal whose events were changed with every
    hash recomputed, and one whose first seal was changed where the check from the
    round's snapshot does not reach (its anchor beside it); and a round whose events
    are not sealed yet (the journal as it was before its last seal): nothing is
    written."""
    from journal_edit import copy_journal, sql

    _, journal, config, _ = table
    copy = forged[0]
    bad_seal = copy_journal(journal, tmp_path / "journal.sqlite3", keys=False)
    shutil.copyfile(journal.with_name(journal.name + ".anchor"),
                    bad_seal.with_name(bad_seal.name + ".anchor"))
    first = seal_rows(journal)[0]
    sql(bad_seal, "UPDATE seals SET signature = ? WHERE epoch = 0",
        bytes.fromhex(first[2])[::-1])
    unsealed = copy_journal(journal, tmp_path / "unsealed.sqlite3", keys=False)
    last = seal_rows(journal)[-1]
    sql(unsealed, "DELETE FROM seals WHERE epoch = ?", last[0])
    for path, said, rnd in ((copy, "fails verification", 11),
                            (unsealed, f"round 13's events (to event {last[1]}) are not "
                             f"sealed yet (the last seal is at event {seal_rows(journal)[-2][1]})",
                             13),
                       (bad_seal, "the journal's seals do not verify: round 11's events fail "
                        "the seals: the seal of epoch 0 (events to", 11)):
        out = tmp_path / "r.zip"
        run = cli("dispute", "--journal", str(path), "--round", str(rnd), "--config", str(config),
                  "--size", f"{SIZE[0]}x{SIZE[1]}", "--out", str(out))
        assert run.returncode == 1, run.stdout
        (line,) = run.stderr.splitlines()
        assert said in line and ("nothing is signed" in line or rnd == 13), line
        assert not out.exists()
