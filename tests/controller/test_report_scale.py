"""The shift report and the dispute bundle cost what their period costs, in either format.

A journal of forty rounds in each format (snapshots every four rounds; misreads and
duplicate cards: voids and manual cards) is reported over its last quarter: the one
verifier checks it from the snapshot the period's figures start from to the anchored head,
the report's pass rides on that replay (each event after the snapshot applied once, none
before it), and the figures are those of a check from the first event (``--full-check``).
A snapshot before the period forged and sealed again fails the check; a journal without
its anchor is checked whole. The journal of an earlier version (``data/format1.journal``)
is reported and disputed as it was read then, and so is history moved to an archive.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from in_process import threecard
from journal_edit import copy_keys, set_snapshot_state, snapshot_state
from step_clock import StepClock

from controller.autoplay import AutoPlayer
from controller.game import archive as arc
from controller.game import recall as rc
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.engine import Game, TableConfig
from controller.game.inputs import Reveal
from controller.game.shift import Shift, last_at_or_before, parse_utc, shift
from controller.game.shift_returns import Thinned
from controller.game.table import Table
from controller.game.verdict import NO_ANCHOR, unreplayed_note
from controller.journal import Journal
from controller.simulate_cli import simulate
from simulators.event_shoe import EventShoe, parse_faults

DATA = Path(__file__).resolve().parent / "data"
ROUNDS = 40


cli = threecard


def play(path: Path, fmt: int) -> None:
    config = TableConfig(seats=3, pin_hashes=demo_pin_hashes(), snapshot_every=4)
    t = Table(Journal(path, fmt=fmt), config, clock=StepClock(timedelta(seconds=20)))
    t.process([Reveal()])                                   # a rejection
    simulate(t, AutoPlayer(bets={"ante": 100, "pair_plus": 100}, pin=DEMO_PINS["supervisor"]),
             EventShoe(5, parse_faults("misread=0.2,duplicate=0.1")), ROUNDS)
    t.close()


@pytest.fixture(scope="module", params=[1, 2], ids=["format1", "format2"])
def dealt(request, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp(f"f{request.param}") / "journal.sqlite3"
    play(path, request.param)
    return path


def copy(journal: Path, folder: Path, anchor: bool = True) -> Path:
    out = folder / journal.name
    shutil.copyfile(journal, out)
    if anchor:
        shutil.copyfile(f"{journal}.anchor", f"{out}.anchor")
        copy_keys(journal, out)
    return out


def times(journal: Path) -> list[tuple[int, str]]:
    j = Journal(journal, readonly=True)
    try:
        return list(j.times())
    finally:
        j.close()


def last_quarter(journal: Path) -> tuple[object, int, int]:
    """The start of the journal's last quarter, the event before it, the snapshot before."""
    every = times(journal)
    start = parse_utc(every[len(every) * 3 // 4][1])
    seq = max(s for s, t in every if parse_utc(t) <= start)  # (events of one commit)
    j = Journal(journal, readonly=True)
    try:
        return start, seq, j.latest_snapshot(seq)[0]
    finally:
        j.close()


def figures(sh: Shift) -> tuple:
    return (sh.start, sh.end, sh.rows, sh.counters, sh.outcomes, sh.voids, sh.alarms,
            sh.irregularities, sh.role_actions, sh.house, sh.returns, sh.rules)


def count_applies(monkeypatch) -> object:
    """Count every event the table's engine applies from now on (each still applied)."""
    n = [0]
    real = Game.apply

    def counted(self, *args, **kwargs):
        n[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Game, "apply", counted)
    return lambda: n[0]


def test_a_period_is_checked_and_replayed_once_from_the_snapshot_before_it(dealt,
                                                                           monkeypatch):
    start, s_seq, snap = last_quarter(dealt)
    last = times(dealt)[-1][0]
    assert 0 < snap <= s_seq < last
    applied = count_applies(monkeypatch)
    part = shift(dealt, start)
    assert part.trusted and part.verdict.checked_from == snap + 1, part.verdict.summary()
    assert part.start.seq == s_seq and part.end.seq == last
    assert applied() == last - snap  # the check's replay carries the report: one pass
    assert any(n.startswith(f"events 1 to {snap} were not rehashed or replayed here")
               for n in part.verdict.notes), part.verdict.notes
    full = shift(dealt, start, full_check=True)
    assert full.trusted and full.verdict.checked_from == 1 and not full.verdict.notes
    assert applied() == (last - snap) + last
    assert figures(part) == figures(full)
    assert part.rows["total"][0] > 0 and part.voids and part.house
    # the whole journal: checked from its first event, each event applied once
    whole = shift(dealt)
    assert whole.trusted and whole.verdict.checked_from == 1
    assert applied() == (last - snap) + 2 * last
    m = rc.meters(dealt)
    assert (whole.rows, whole.counters) == (m.rows, m.counters)


def test_a_snapshot_forged_before_the_period_fails_the_check(dealt, tmp_path):
    """A forger who changes the snapshot the period starts from and seals it again to the
    chain (the seal is no signature) cannot get past the replay from it: the replay
    reaches the snapshots after it, the anchored one last, and they differ."""
    start, _, snap = last_quarter(dealt)
    forged = copy(dealt, tmp_path)
    state = json.loads(snapshot_state(forged, snap))
    state["meters"]["rows"]["total"][0] += 10_000
    set_snapshot_state(forged, snap, json.dumps(state), reseal=True)
    sh = shift(forged, start)
    assert not sh.trusted
    assert sh.verdict.problem.kind.value == "snapshot", sh.verdict.summary()
    out = tmp_path / "forged.pdf"
    run = cli("report", "shift", "--journal", forged, "--from", start.isoformat(), "--out", out)
    assert run.returncode == 1 and "fails verification" in run.stderr, run.stderr


def test_without_its_anchor_the_journal_is_checked_whole(dealt, tmp_path):
    start, _, _ = last_quarter(dealt)
    bare = copy(dealt, tmp_path, anchor=False)
    sh = shift(bare, start)
    assert sh.trusted and sh.verdict.checked_from == 1 and NO_ANCHOR in sh.verdict.notes


@pytest.fixture(scope="module")
def compact(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("compact") / "journal.sqlite3"
    play(path, 2)
    return path


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_period_bounds_are_those_of_reading_every_event(compact, data):
    """The binary search over the events' numbers finds the event a scan of every event's
    time finds: the newest at or before the instant (0 before the first)."""
    every = times(compact)
    _, utc = data.draw(st.sampled_from(every))
    when = parse_utc(utc) + timedelta(microseconds=data.draw(st.sampled_from([-1, 0, 1])))
    scanned = max([seq for seq, t in every if parse_utc(t) <= when], default=0)
    j = Journal(compact, readonly=True)
    try:
        assert last_at_or_before(j, when) == scanned
    finally:
        j.close()


@given(n=st.integers(0, 5000), limit=st.integers(1, 64))
def test_a_thinned_series_keeps_an_even_spread_and_its_last_point(n, limit):
    series = Thinned(limit)
    for i in range(n):
        series.add(i)
    kept = series.points()
    assert len(series) == n and len(kept) <= limit + 2
    if n <= limit:
        assert kept == list(range(n))  # a short series is kept whole
        return
    assert kept[0] == 0 and kept[-1] == n - 1 and len(kept) >= limit // 2 + 1
    gaps = [b - a for a, b in zip(kept, kept[1:], strict=False)]
    assert len(set(gaps[:-1])) <= 1 and 0 < gaps[-1] <= max(gaps)  # evenly spaced


def nets(record: dict) -> list:
    return [(s["seat"], s["net"]) for s in record["seats"]]


def keygen(folder: Path) -> tuple[Path, Path]:
    config = folder / "table.toml"
    config.write_text("")
    assert cli("keygen", "--config", config).returncode == 0
    return config, folder / "table.pub"


def dispute_verified(journal: Path, round_id: int, folder: Path) -> dict:
    """Bundle a round with the real command and verify it against the table's key; the
    verified record's nets."""
    config, public = keygen(folder)
    out = folder / f"round-{round_id}.zip"
    made = cli("dispute", "--journal", journal, "--round", round_id, "--config", config,
               "--size", "480x270", "--out", out)
    assert made.returncode == 0, made.stderr
    checked = cli("dispute", "verify", out, "--public-key", public)
    assert checked.returncode == 0 and "bundle OK" in checked.stdout, checked.stdout
    with zipfile.ZipFile(out) as z:
        return json.loads(z.read("recall.json"))


def test_a_journal_of_an_earlier_version_is_reported_and_disputed(tmp_path):
    """``data/format1.journal`` (format 1, written by the last version that wrote it):
    the report's figures and voids are what meters and recall said of it then, and a
    round of it is bundled and verifies."""
    then = json.loads((DATA / "format1.json").read_text())
    journal = tmp_path / "format1.journal"
    shutil.copyfile(DATA / "format1.journal", journal)
    shutil.copyfile(DATA / "format1.journal.anchor", f"{journal}.anchor")
    assert Journal(journal, readonly=True).format == 1
    sh = shift(journal)
    assert sh.trusted, sh.verdict.summary()
    assert (sh.rows, sh.counters) == (then["rows"], then["counters"])
    assert [v.round_id for v in sh.voids] == sorted(r["round_id"] for r in then["recall"]
                                                     if r["status"] == "void")
    run = cli("report", "shift", "--journal", journal, "--out", tmp_path / "f1.pdf")
    assert run.returncode == 0 and "8 rounds settled, 3 voided" in run.stdout, run.stderr
    record = dispute_verified(journal, 6, tmp_path)
    assert record == next(r for r in then["recall"] if r["round_id"] == 6)


def test_archived_history_is_reported_and_disputed(dealt, tmp_path):
    journal = copy(dealt, tmp_path)
    before = shift(journal)
    done = arc.archive(journal, timedelta(0))
    assert done.cut > before.voids[0].seq  # a void and the rounds around it are archived
    after = shift(journal)
    assert after.trusted and figures(after) == figures(before)
    run = cli("report", "shift", "--journal", journal, "--out", tmp_path / "all.pdf")
    assert run.returncode == 0, run.stderr
    assert f"{before.settled} rounds settled, {before.voided} voided" in run.stdout
    archived = next(r for r in rc.recall(journal, ROUNDS + 5)
                    if r["status"] == "settled" and r["round_id"] <= 3)
    record = dispute_verified(journal, archived["round_id"], tmp_path)
    assert nets(record) == nets(archived)


def test_a_round_in_play_at_the_periods_end_is_named(dealt, tmp_path):
    """A period ending between "no more bets" and the settlement leaves that round's
    bets to the next period: the report says which round, in the report's language."""
    every = [(r.seq, r.utc, r.kind) for r in Journal(dealt, readonly=True).records()]
    closed = next(seq for seq, _, kind in every[len(every) // 2:] if kind == "no_more_bets")
    utc = next(u for seq, u, _ in every if seq == closed)
    sh = shift(dealt, end=parse_utc(utc))
    rounds = rc.recall(dealt, ROUNDS + 5)
    open_then = [r["round_id"] for r in rounds
                 if r["started_utc"] <= utc < (r["ended_utc"] or "9")]
    assert sh.in_play is not None and open_then == [sh.in_play]
    # at power-up round 1 takes bets, and has none yet: nothing is left over
    assert shift(dealt, end=parse_utc(every[0][1])).in_play is None
    if shutil.which("pdftotext") is None:
        return
    out = tmp_path / "fr.pdf"
    run = cli("report", "shift", "--journal", dealt, "--to", utc, "--lang", "fr", "--out", out)
    assert run.returncode == 0, run.stderr
    text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert f"Le coup {sh.in_play} était encore en jeu à la fin de la période" in \
        " ".join(text.split())


def test_the_report_says_from_where_it_verified_the_journal(dealt, tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext missing (Debian: apt-get install poppler-utils)")
    start, _, snap = last_quarter(dealt)

    def text(*args: object) -> str:
        out = tmp_path / "r.pdf"
        run = cli("report", "shift", "--journal", dealt, "--from", start.isoformat(),
                  "--out", out, *args)
        assert run.returncode == 0, run.stderr
        return " ".join(subprocess.run(["pdftotext", str(out), "-"], capture_output=True,
                                       text=True, check=True).stdout.split())

    part = text()
    assert f"Journal verified from the snapshot after event {snap}, which this period's " \
        "figures start from" in part
    assert (f"Events 1 to {snap} were counted and their records checked for form, not "
            "rehashed or replayed here: `threecard verify-journal`") in part
    journal = part.split("Last seal")[0]  # the journal's section (the seal's names it too)
    assert journal.count("verify-journal") == 1  # said once, not again in the checker's words
    for lang in ("fr", "uk"):  # in the language, every sentence
        worded = text("--lang", lang)
        english = [s for s in english_sentences() if s in worded]
        assert not english, (lang, english)
        assert f" {snap} " in worded and "verify-journal` (" in worded
    whole = text("--full-check")
    assert "Journal verified from its first event" in whole
    assert "verified from the snapshot" not in whole


def english_sentences() -> set[str]:
    """The English report catalogue's texts cut at their blanks, the pieces of four words
    or more (a shorter piece may be a name every language shares)."""
    from display.report.labels import CATALOGUES
    out = set()
    for value in CATALOGUES["en"].values():
        for piece in re.split(r"\{[^}]*\}", value):
            piece = " ".join(piece.split()).strip(" .,;:()")
            if len(re.findall(r"[A-Za-z]{2,}", piece)) >= 4:
                out.add(piece)
    # and the checker's note on the events it counted but did not replay
    out.add(unreplayed_note(1, 2, "here").split(" 2 ", 1)[1])
    return out


def note_kinds() -> set[str]:
    """Every kind of note the verifier writes (each ``Note(text, kind, ...)`` in its code)."""
    import ast

    import controller.game.verdict as vd
    import controller.game.verifier as vf
    import controller.game.verifier_history as vh
    import controller.game.verifier_support as vs

    kinds = set()
    for module in (vd, vf, vh, vs):
        for node in ast.walk(ast.parse(Path(module.__file__).read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Note" \
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                kinds.add(node.args[1].value)
    return kinds


def test_every_note_of_the_verifier_is_worded_in_every_language():
    from controller.game.verdict import Note
    from display.report.labels import ReportText

    kinds = note_kinds()
    assert {"no_anchor", "after_anchor", "unfinished", "unreplayed", "tables_missing"} <= kinds
    values = {"first": 1201, "last": 1234, "anchor": 1200, "seq": 977, "name": "extra",
              "names": "rejections, counters",
              "parts": ("count", "records", "pages"), "seconds": 2.0}
    for kind in kinds - {"unreplayed"}:  # that one the report says in its own sentence
        note = Note(f"the {kind} note", kind, **values)
        said = {lang: ReportText(lang).note(note) for lang in ("en", "fr", "uk")}
        assert len(set(said.values())) == 3 and note not in said.values(), said
        for lang, text in said.items():
            assert "{" not in text, (lang, text)
            named = [str(v) for k, v in values.items() if k not in ("parts", "seconds")
                     and "{" + k + "}" in ReportText("en")._own[f"note.{kind}"]]
            assert all(v in text for v in named), (lang, text, named)
    parts = ReportText("fr").note(Note("x", "unfinished", parts=("count", "pages"),
                                       seconds=2.0))
    assert "le comptage des événements et les pages du fichier" in parts, parts


def test_a_report_in_french_or_ukrainian_words_the_verifiers_notes(dealt, tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext missing (Debian: apt-get install poppler-utils)")
    start, _, _ = last_quarter(dealt)
    bare = copy(dealt, tmp_path, anchor=False)               # notes: no anchor
    for lang, want in (("en", "No anchor beside the journal"),
                       ("fr", "Pas d'ancre à côté du journal"),
                       ("uk", "Поруч із журналом немає якоря")):
        out = tmp_path / f"r-{lang}.pdf"
        run = cli("report", "shift", "--journal", bare, "--from", start.isoformat(),
                  "--out", out, "--lang", lang)
        assert run.returncode == 0, run.stderr
        text = " ".join(subprocess.run(["pdftotext", str(out), "-"], capture_output=True,
                                       text=True, check=True).stdout.split())
        assert want in text, (lang, text[-1500:])
        assert NO_ANCHOR not in text, lang                   # not the checker's English
