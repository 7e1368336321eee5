"""``threecard report shift``: the PDF a pit boss signs tells the journal's truth.

A scripted evening (two voids, a lost shoe link, a jam, a misread entered by hand, then
two rounds with bets taken as outcomes, the second voided) is written in three parts with
two restarts between them; the meters are read with ``threecard meters --json`` at each
stop, and once more while the table runs between the two outcome rounds. The report is
made by the real command, its pages turned into PNG (``pdftoppm``) and its text read back
(``pdftotext``), as a person or an auditor would.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from in_process import threecard
from shift_journal import Refused, forged_copy, run_shift

POPPLER = ("pdftoppm", "pdftotext", "pdffonts")
IDENTITY_A = {"version": "0.1.0", "sha256": hashlib.sha256(b"build A").hexdigest(),
              "files": 90, "altered": 0, "named": [], "problem": ""}
IDENTITY_B = {"version": "0.1.0", "sha256": hashlib.sha256(b"build B").hexdigest(),
              "files": 91, "altered": 1, "named": ["changed display/theme.py"], "problem": ""}
LABELS = {  # the screens' words for the meters, as the report prints them
    "en": {"ante": "Ante", "play": "Play", "ante_bonus": "Ante Bonus", "pair_plus": "Pair Plus",
           "six_card_bonus": "6 Card Bonus", "total": "Total", "seat": "Seat {}"},
    "uk": {"ante": "Анте", "play": "Гра", "ante_bonus": "Анте бонус", "pair_plus": "Пара Плюс",
           "six_card_bonus": "Бонус 6 карт", "total": "Разом", "seat": "Місце {}"},
}
OUTCOME_WORDS = {  # the screens' words for the outcome meters, as the report prints them
    "en": {"title": "Outcome meters (rounds dealt as outcomes)", "rounds": "Rounds",
           "settled": "settled", "voided": "voided", "": "1 to 1",
           "three_of_a_kind": "Three of a kind", "straight_flush": "Straight flush",
           "pair": "Pair", "next": "Observed return against the exact return"},
    "fr": {"title": "Compteurs de résultats (coups joués en résultats)", "rounds": "Coups",
           "settled": "réglés", "voided": "annulés", "": "1 contre 1",
           "three_of_a_kind": "Brelan", "straight_flush": "Quinte couleur", "pair": "Paire",
           "next": "Retour observé et retour exact",
           "ante": "Ante", "play": "Jeu", "ante_bonus": "Bonus Ante", "pair_plus": "Paire Plus",
           "six_card_bonus": "Bonus 6 cartes"},
}
# an amount: digits in groups of three (any separator), two decimals; never a percentage
MONEY = re.compile(r"[\u2212-]?\d{1,3}(?:[\u202f\u00a0 .,]\d{3})*[.,]\d{2}(?![\s\u00a0]*%)")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="module", autouse=True)
def _poppler():
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing and _in_ci():
        pytest.fail(f"{', '.join(missing)} missing: .ci/run installs poppler-utils")
    if missing:
        pytest.skip(f"{', '.join(missing)} missing (Debian: apt-get install poppler-utils)")


@pytest.fixture(scope="module")
def shift(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shift")
    journal, stops = run_shift(folder, stop_after=(3, 7), read_after=(12,),
                               software=(None, IDENTITY_A, IDENTITY_B))
    return journal, stops


def recall_json(journal: Path) -> list[dict]:
    """``threecard recall --json`` of every round, newest first."""
    run = threecard("recall", "--journal", journal, "--json", "--last", "100")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def report(journal: Path, out: Path, *args: str, altered: bool = False) -> str:
    """The report's text; the command exits 1 (and says why) when software that ran in
    the period was altered (``altered``), else 0."""
    run = threecard("report", "shift", "--journal", journal, "--out", out, *args)
    assert run.returncode == (1 if altered else 0), run.stderr
    assert ("SOFTWARE ALTERED" in run.stderr) == altered, run.stderr
    assert out.read_bytes().startswith(b"%PDF-")
    return subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True,
                          text=True, check=True).stdout


def minor(text: str) -> int:
    sign = -1 if text[0] in "\u2212-" else 1
    return sign * int(re.sub(r"\D", "", text))


def meter_lines(text: str, labels: dict[str, str]) -> dict[str, list[list[int]]]:
    """Every table line whose first cell is one of ``labels``: name -> its money cells
    (wagered, won by the house, paid, house win, refunded), in page order."""
    found: dict[str, list[list[int]]] = {}
    by_label = {v: k for k, v in labels.items()}
    for line in text.splitlines():
        first = re.split(r"\s{2,}", line.strip())[0]
        name = by_label.get(first)
        if name is None:
            continue
        cells = [minor(m) for m in MONEY.findall(line[line.index(first) + len(first):])]
        if len(cells) == 5:
            found.setdefault(name, []).append(cells)
    return found


def expected(rows: dict[str, dict[str, int]], before: dict[str, dict[str, int]] | None = None
             ) -> dict[str, list[int]]:
    """From ``meters --json`` rows (minus ``before``): name -> [wagered, won, paid, house
    win, refunded], the columns the report prints."""
    out = {}
    for name, row in rows.items():
        b = (before or {}).get(name, {})
        d = {k: row[k] - b.get(k, 0) for k in row}
        out[name] = [d["wagered"], d["won"], d["paid"], d["won"] - d["paid"], d["refunded"]]
    return out


def labels_for(rows: dict[str, object], lang: str = "en") -> dict[str, str]:
    words = LABELS[lang]
    labels = {k: v for k, v in words.items() if k in rows}
    labels.update({k: words["seat"].format(k.split()[1]) for k in rows if k.startswith("seat ")})
    return labels


@pytest.fixture(scope="module")
def whole(shift, tmp_path_factory):
    """The English report of the whole journal, as text (build B, altered, ran in it)."""
    return report(shift[0], tmp_path_factory.mktemp("whole") / "shift.pdf", altered=True)


def test_the_whole_journal_totals_equal_the_meters(shift, whole):
    journal, stops = shift
    text = whole
    meters = stops[-1].meters["rows"]
    want = expected(meters)
    got = meter_lines(text, labels_for(meters))
    assert set(got) == set(want)
    for name, lines in got.items():
        assert all(line == want[name] for line in lines), (name, lines, want[name])
    assert len(got["total"]) == 2  # the bet table's total and the seat table's


def test_rounds_count_both_ways_of_taking_bets_and_money_counts_amounts_only(shift, whole):
    """Rounds settled and voided, and rounds per hour, count every round, those dealt as
    outcomes said apart; the money tables (checked against the money meters above) leave
    the outcome rounds out, and a note under them says so."""
    journal, stops = shift
    text = whole
    end = stops[-1].meters
    outcomes = end["outcomes"]
    settled = end["rows"]["total"]["rounds"] + outcomes["rounds settled"]
    voided = end["counters"]["voids"]
    rounds = recall_json(journal)
    assert settled == sum(r["status"] == "settled" for r in rounds) == 10
    assert voided == sum(r["status"] == "void" for r in rounds) == 3
    dealt = [r["status"] for r in rounds if r["bet_entry"] == "outcomes"]
    assert dealt.count("settled") == outcomes["rounds settled"] == 1
    assert dealt.count("void") == outcomes["rounds void"] == 1
    first = datetime.fromisoformat(min(r["started_utc"] for r in rounds))
    hours = (datetime.fromisoformat(stops[-1].utc) - first).total_seconds() / 3600
    per_hour = re.escape(f"{settled / hours:.1f}")
    assert re.search(rf"\b{settled}\s+{voided}\s+{per_hour}\s", text)  # the tiles
    assert re.search(r"\b1 as outcomes\s+1 as outcomes\b", text)
    note = re.sub(r"\s+", " ", text)
    assert "Rounds dealt as outcomes (1 settled, 1 voided) hold no money" in note

@pytest.fixture(scope="module")
def part(shift, tmp_path_factory):
    """The report of the part between the two stops, in Ukrainian: (its PDF, its text)."""
    _, stops = shift
    pdf = tmp_path_factory.mktemp("part") / "part.pdf"
    return pdf, report(shift[0], pdf, "--from", stops[0].utc, "--to", stops[1].utc,
                       "--lang", "uk")


def test_a_sub_period_equals_the_difference_of_the_readings(shift, part):
    _, stops = shift
    _, text = part
    now, then = stops[1].meters["rows"], stops[0].meters["rows"]
    want = expected(now, then)
    got = meter_lines(text, labels_for(now, "uk"))
    assert set(got) == set(want)
    for name, lines in got.items():
        assert all(line == want[name] for line in lines), (name, lines, want[name])
    # a part of the shift is not the whole: the difference is not the end reading
    assert want["total"] != expected(now)["total"]
    # the identity recorded at the restart inside the period; not the one after it
    flat = re.sub(r"\s", "", text)
    assert IDENTITY_A["sha256"] in flat and IDENTITY_B["sha256"] not in flat
    # no round dealt as outcomes in it: no note, no outcome meters, no column of bet entry
    assert not stops[1].meters["outcomes"]
    assert "Ігри в результатах" not in text and "Лічильники результатів" not in text
    assert "результатами" not in text and "сумами" not in text


@pytest.fixture(scope="module")
def last(shift, tmp_path_factory):
    """The French report from the reading between the two outcome rounds to the end."""
    _, stops = shift
    pdf = tmp_path_factory.mktemp("last") / "last.pdf"
    return report(shift[0], pdf, "--from", stops[2].utc, "--lang", "fr", altered=True)


def outcome_table(text: str, lang: str) -> dict[str, object]:
    """The outcome meters the report prints: ``rounds`` -> (settled, voided); bet name ->
    (wins: {paytable line key: n}, pushes, losses, returned)."""
    words = OUTCOME_WORDS[lang]
    body = text.split(words["title"], 1)[1].split(words["next"], 1)[0]
    bets = {**LABELS["en"], **{k: v for k, v in words.items() if k in LABELS["en"]}}
    by_label = {v: k for k, v in bets.items() if k in OUTCOME_BETS}
    lines = {v: k for k, v in words.items() if k in ("", "three_of_a_kind", "straight_flush",
                                                    "pair")}
    found: dict[str, object] = {}
    for line in body.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == words["rounds"]:
            m = re.fullmatch(rf"(\d+) {words['settled']}\s+(\d+) {words['voided']}",
                             "  ".join(cells[1:]))
            found["rounds"] = (int(m[1]), int(m[2]))
        elif cells[0] in by_label:
            wins = {} if cells[1] == "0" else {
                lines[name]: int(n) for name, n in
                (part.rsplit(": ", 1) for part in cells[1].split(", "))}
            found[by_label[cells[0]]] = (wins, *map(int, cells[2:]))
    return found


OUTCOME_BETS = ("ante", "play", "ante_bonus", "pair_plus", "six_card_bonus")


def expected_outcomes(now: dict[str, int], then: dict[str, int]) -> dict[str, object]:
    """From ``meters --json``'s outcome meters (``now`` minus ``then``; keys ``rounds
    settled``, ``rounds void``, ``BET OUTCOME [LINE]``): the table the report prints."""
    diff = {k: v - then.get(k, 0) for k, v in now.items() if v - then.get(k, 0)}
    want: dict[str, object] = {"rounds": (diff.pop("rounds settled", 0),
                                          diff.pop("rounds void", 0))}
    per_bet: dict[str, list] = {}
    for key, n in diff.items():
        bet, outcome, *line = key.split(" ", 2)
        row = per_bet.setdefault(bet, [{}, 0, 0, 0])
        if outcome == "win":
            row[0][line[0] if line else ""] = n
        else:
            row[["push", "lose", "refund"].index(outcome) + 1] += n
    want.update({bet: tuple(row) for bet, row in per_bet.items()})
    return want


@pytest.mark.parametrize("period", ["whole", "last"])
def test_outcome_meters_of_a_period_equal_the_difference_of_the_readings(shift, period,
                                                                        request):
    """The outcome meters the report prints for a period are the outcome meters of
    ``threecard meters --json`` at its end minus those at its start: over the whole
    journal the end reading; from the reading between the two outcome rounds, the void
    of the last one alone."""
    _, stops = shift
    text = request.getfixturevalue(period)
    lang, then = ("en", {}) if period == "whole" else ("fr", stops[2].meters["outcomes"])
    want = expected_outcomes(stops[-1].meters["outcomes"], then)
    assert outcome_table(text, lang) == want
    if period == "whole":
        assert want["rounds"] == (1, 1) and want["pair_plus"][0] == {"three_of_a_kind": 1,
                                                                     "pair": 1}
        return
    # a part: the difference, not the end reading; the tiles count the void
    assert want == {"rounds": (0, 1), "ante": ({}, 0, 0, 5), "pair_plus": ({}, 0, 0, 3),
                    "six_card_bonus": ({}, 0, 0, 2)}
    assert re.search(r"\b0\s+1\s+0,0\s", text)  # settled, voided, per hour (in French)
    assert re.search(r"dont 0 en résultats\s+dont 1 en résultats", text)


def test_the_money_figures_leave_the_outcome_rounds_out(shift):
    """The house result and each bet's observed return are money: over the whole journal
    they equal the money meters of ``meters --json``, and no round recall gives as dealt
    as outcomes is on the house result's curve (an outcome round's figures are units)."""
    from controller.game.shift import shift as figures

    journal, stops = shift
    rows = stops[-1].meters["rows"]
    sh = figures(journal)

    def net(*bets: str) -> int:
        return sum(rows[b]["paid"] - rows[b]["won"] for b in bets if b in rows)

    assert sh.house[-1][2] == rows["total"]["won"] - rows["total"]["paid"]
    dealt = {r["round_id"] for r in recall_json(journal) if r["bet_entry"] == "outcomes"}
    assert dealt == {12, 13} and not dealt & {rid for _, rid, _ in sh.house}
    returns = {line.group: line for line in sh.returns}
    assert {line.profile for line in sh.returns} == {"live"}
    for group, bets in (("ante_play", ("ante", "play", "ante_bonus")),
                        ("pair_plus", ("pair_plus",)), ("six_card_bonus", ("six_card_bonus",))):
        line = returns[group]
        assert (line.stake, line.net) == (rows[bets[0]]["wagered"], net(*bets)), group
        assert line.points[-1][0] == rows[bets[0]]["rounds"]


def test_the_void_list_equals_recall_and_names_who_approved(shift, whole):
    journal, _ = shift
    text = whole
    voids = sorted((r["round_id"], r["void_reason"], r["bet_entry"])
                   for r in recall_json(journal) if r["status"] == "void")
    rows = sorted(re.split(r"\s{2,}", line.strip()) for line in text.splitlines()
                  if "Round void" in line)
    listed = {int(cells[1]): cells for cells in rows}
    assert sorted(listed) == [rid for rid, _, _ in voids] == [3, 10, 13]
    # each void with the way its round took bets, as recall says
    mode = {"amounts": "in amounts", "outcomes": "as outcomes"}
    assert {rid: listed[rid][2] for rid in listed} == {rid: mode[e] for rid, _, e in voids}
    # the script: round 3 a card before "no more bets" (the table voids it, a supervisor's
    # PIN on "next round" acknowledges it); rounds 10 (bets in amounts) and 13 (bets as
    # outcomes) a jam, voided by a supervisor
    reason = listed[3][4]  # its first line: the reason may wrap
    assert len(reason) > 10 and "Card before no more bets".startswith(reason)
    assert listed[3][-2:] == ["Table", "Supervisor"]
    for rid in (10, 13):
        assert listed[rid][3:] == ["Round void", "Shoe fault", "Supervisor", "Supervisor"]
    assert {rid: reason for rid, reason, _ in voids if rid != 3} == {10: "Shoe fault",
                                                                     13: "Shoe fault"}
    for alarm in ("Shoe link lost", "Shoe alarm", "Misread", "Card entered by hand"):
        assert alarm in text


def test_every_page_renders_and_the_fonts_are_embedded(part, tmp_path):
    pdf, text = part
    assert "Звіт за зміну" in text and "Підпис" in text and "Супервайзер" in text
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts and all("DejaVuSans" in f for f in fonts)
    assert all(f.split()[-5] == "yes" for f in fonts), fonts  # emb column
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "page")],
                   check=True)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= 3
    for page in pages:  # a drawn page: far more than a blank A4 at 40 dpi compresses to
        assert page.stat().st_size > 4000, page


def test_bad_periods_and_outputs_are_refused(shift, tmp_path, capsys):
    from controller.cli import main

    journal, _ = shift
    base = ["report", "shift", "--journal", str(journal)]
    backwards = subprocess.run([sys.executable, "-m", "controller.cli", *base, "--from",
                                "2025-03-14T21:00Z", "--to", "2025-03-14T20:00Z", "--out",
                                str(tmp_path / "x.pdf")], capture_output=True, text=True,
                               timeout=120)
    assert backwards.returncode == 2 and "ends before it starts" in backwards.stderr
    assert "Traceback" not in backwards.stderr
    pdf = ["--out", str(tmp_path / "x.pdf")]
    assert main([*base, "--from", "2025-03-14T20:00Z", "--to", "2025-03-14T21:00Z",
                 "--hours", "2", *pdf]) == 2
    assert "--hours goes with --from or --to" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "x.txt")]) == 2
    assert "does not end in .pdf" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # argparse: the flag and why
        main([*base, "--from", "yesterday", *pdf])
    assert usage.value.code == 2 and "ISO 8601" in capsys.readouterr().err
    assert not (tmp_path / "x.pdf").exists()


def pages_text(pdf: Path) -> list[str]:
    """The text of each page of a PDF (``pdftotext``; pages end in a form feed)."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return [page for page in text.split("\f") if page.strip()]


def test_a_rewritten_journal_is_marked_untrustworthy_on_every_page(shift, tmp_path):
    """A forger's journal: one bet made ten times larger and every chain hash after it
    recomputed, its anchor copied beside it. ``verify-journal`` finds it; the report runs
    the same check, says so on every page and exits 1, naming the problem."""
    journal, _ = shift
    forged = forged_copy(journal, tmp_path, "place_bet",
                         lambda body: {**body, "amount": body["amount"] * 10})
    check = threecard("verify-journal", "--journal", forged)
    assert check.returncode == 1 and "JOURNAL BROKEN" in check.stdout
    pdf = tmp_path / "forged.pdf"
    run = threecard("report", "shift", "--journal", forged, "--out", pdf)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "fails verification" in run.stderr and "rewritten" in run.stderr
    assert "Traceback" not in run.stderr
    pages = pages_text(pdf)
    assert len(pages) >= 3
    for n, page in enumerate(pages, start=1):
        assert "JOURNAL FAILS VERIFICATION" in page, n
    assert "Hash chain verified" not in "".join(pages)


def test_altered_software_is_flagged_on_page_one(shift, whole, part):
    """Build B (one file changed) ran from the second restart: the report of a period it
    ran in says so on its first page, in red words, naming the file, and the command
    exits 1 (``report`` checks both); a period only build A ran in says nothing of it."""
    first = re.sub(r"\s+", " ", whole.split("\f")[0])
    assert "SOFTWARE ALTERED" in first and "changed display/theme.py" in first
    assert IDENTITY_B["sha256"] in re.sub(r"\s", "", whole.split("\f")[0])
    _, text = part
    assert "ЗМІНЕНО" not in text.split("\f")[0] and "ALTERED" not in text


def test_an_empty_file_or_a_journal_without_events_gives_no_report(tmp_path):
    """A zero-byte file is not a journal, as recall, meters and verify-journal say; a
    journal that holds no event has nothing to report. Either way: one line, exit 1, no
    PDF, whatever the period asked."""
    from controller.journal import Journal

    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.sqlite3"
    Journal(blank).close()
    pdf = tmp_path / "x.pdf"
    for journal, why in ((empty, "not a journal"), (blank, "holds no events")):
        for period in ([], ["--hours", "2"], ["--to", "2025-01-01T00:00Z"]):
            run = threecard("report", "shift", "--journal", journal, "--out", pdf, *period)
            assert run.returncode == 1, (journal.name, period, run.stderr)
            assert why in run.stderr and "Traceback" not in run.stderr, run.stderr
            assert len(run.stderr.strip().splitlines()) == 1, run.stderr
            assert not pdf.exists()


def test_a_full_disk_leaves_the_previous_report_whole(shift, tmp_path):
    """The PDF is written whole or not at all: on a full disk (a write past a size
    limit fails) the command says so in one line, exits 1, and the file that was there
    is as it was, with nothing beside it."""
    import resource

    journal, _ = shift
    pdf = tmp_path / "shift.pdf"
    pdf.write_bytes(b"%PDF- the previous report")
    run = subprocess.run([sys.executable, "-m", "controller.cli", "report", "shift",
                          "--journal", str(journal), "--out", str(pdf)],
                         capture_output=True, text=True, timeout=300,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE,
                                                               (20_000, 20_000)))
    assert run.returncode == 1, run.stderr
    assert "cannot write" in run.stderr and "Traceback" not in run.stderr
    assert pdf.read_bytes() == b"%PDF- the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["shift.pdf"]


@pytest.fixture(scope="module")
def changes(tmp_path_factory):
    """The evening with its rules and table id changed on the way: the table restarts as
    TCP-04 once round 4 opens; a supervisor puts the house's rules (Pair Plus's straight
    flush paying 35, not 40) in force before round 8 opens, and the classic rules (no 6
    Card Bonus) after the last round."""
    from controller.game.auth import DEMO_PINS
    from controller.game.inputs import ConfigChange

    folder = tmp_path_factory.mktemp("changes")
    live = (Path(__file__).resolve().parents[2] / "controller" / "game" / "profiles"
            / "live.toml").read_text()
    house = folder / "house.toml"
    house.write_text(live.replace('name = "live"', 'name = "house"')
                     .replace("straight_flush = 40\n", "straight_flush = 35\n")
                     .replace("pair_plus = 9551\n", ""))  # its own published return: none
    assert "straight_flush = 35" in house.read_text()
    sup = DEMO_PINS["supervisor"]
    journal, _ = run_shift(folder, stop_after=(3,), restart_settings={"table_id": "TCP-04"},
                           between={7: [ConfigChange(key="rules", value=str(house), pin=sup)]},
                           at_end=(ConfigChange(key="rules", value="classic", pin=sup),))
    return journal


def test_each_rule_profile_and_table_id_of_the_period_is_shown(changes, tmp_path):
    """Every profile and table id in force over the period is named on page one and
    in the rules section (each profile with its paytables and exact returns), and the
    observed returns are compared per profile: the rounds settled under each, against
    that profile's exact return."""
    from controller.game.shift import shift as figures

    text = report(changes, tmp_path / "changes.pdf")
    first = re.sub(r"\s+", " ", text.split("\f")[0])
    assert "TCP-03" in first and "TCP-04" in first and "TABLE-1" not in first
    assert all(name in first for name in ("live", "house", "classic"))
    flat = re.sub(r"\s+", " ", text)
    for name in ("live", "house", "classic"):
        assert f"Rule profile {name}" in flat
    assert "40 to 1" in flat and "35 to 1" in flat  # each Pair Plus paytable
    # the figures: rounds 1 to 7 under live, 8 to 11 under house, each to its own return
    sh = figures(changes)
    rounds = {r["round_id"]: r for r in recall_json(changes)}

    def staked(bet: str, ids: range) -> int:
        return sum(s["bets"].get(bet, 0) for i in ids for s in rounds[i]["seats"]
                   if rounds[i]["status"] == "settled" and rounds[i]["bet_entry"] == "amounts")

    lines = {(line.profile, line.group): line for line in sh.returns}
    assert {p for p, _ in lines} == {"live", "house"}
    assert lines["live", "pair_plus"].stake == staked("pair_plus", range(1, 8))
    assert lines["house", "pair_plus"].stake == staked("pair_plus", range(8, 12))
    assert lines["live", "pair_plus"].exact != lines["house", "pair_plus"].exact


@pytest.fixture(scope="module")
def yen(tmp_path_factory):
    """The evening at a table that plays in yen (no minor unit), a supervisor's Unblock
    deck refused (the deck is not blocked) before round 3 opens."""
    from controller.game.auth import DEMO_PINS
    from controller.game.inputs import UnblockDeck

    folder = tmp_path_factory.mktemp("yen")
    refused = Refused(UnblockDeck(reason="check", pin=DEMO_PINS["supervisor"]))
    journal, stops = run_shift(folder, currency="JPY", between={2: [refused]})
    return journal, stops[-1].meters


@pytest.mark.parametrize(("lang", "locale", "refusal"), [
    ("fr", "fr_FR", "Refusé : Le jeu n'est pas bloqué"),
    ("uk", "uk_UA", "Відхилено: Колоду не заблоковано")])
def test_amounts_numbers_and_refusals_are_written_in_the_tables_currency_and_language(
        yen, tmp_path, lang, locale, refusal):
    """Yen have no minor unit: 432,100 minor units are 432 100 yen, written with the
    language's grouping and no decimals; percentages and rates with the language's
    decimal comma; a refusal in the language's words, from the refusal's code."""
    from babel.numbers import format_decimal

    journal, meters = yen
    text = report(journal, tmp_path / f"yen-{lang}.pdf", "--lang", lang)
    assert "JPY" in text.split("\f")[0]
    total = meters["rows"]["total"]
    def spaced(x: str) -> str:  # pdftotext writes the grouping spaces as spaces
        return re.sub("[\u00a0\u202f]", " ", x)

    for amount in (total["wagered"], total["paid"], total["won"] - total["paid"]):
        # 226 000 yen, not 2 260,00
        assert spaced(format_decimal(amount, locale=locale)) in spaced(text), amount
    assert "," not in format_decimal(total["wagered"], locale=locale)
    figures = [line for line in text.split("\f")[0].splitlines()
               if "threecard-table" not in line]  # the footer's version number aside
    assert not re.search(r"\d\.\d", "\n".join(figures)), "a decimal point in " + lang
    holds = re.findall(r"-?\d+,\d{2}[\s\u00a0\u202f]?%", text)
    assert holds and not re.search("\u2212\\d", text)  # one minus sign, Babel's
    cells = subprocess.run(["pdftotext", str(tmp_path / f"yen-{lang}.pdf"), "-"],
                           capture_output=True, text=True, check=True).stdout  # cell by cell
    assert refusal in re.sub(r"\s+", " ", cells)


def test_a_period_outside_the_journal_is_refused_and_hours_end_at_the_newest_event(
        shift, tmp_path):
    """A period that holds none of the journal's time would make an empty report a pit
    boss could sign: refused (exit 2, one line, no PDF), with one end given or both.
    ``--hours N`` alone is the N hours up to the journal's newest event, as README and
    the help say."""
    journal, stops = shift
    pdf = tmp_path / "x.pdf"
    base = ["report", "shift", "--journal", journal, "--out", pdf]
    for period, why in ((["--from", "2030-01-01T00:00Z"], "after the journal's newest event"),
                        (["--to", "2020-01-01T00:00Z"], "before the journal's first event"),
                        (["--from", "2020-01-01T00:00Z", "--to", "2020-01-02T00:00Z"],
                         "before the journal's first event"),
                        (["--from", "2030-01-01T00:00Z", "--hours", "2"],
                         "after the journal's newest event")):
        run = threecard(*base, *period)
        assert run.returncode == 2, (period, run.stderr)
        assert why in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert not pdf.exists()
    newest = datetime.fromisoformat(stops[-1].utc)
    run = threecard(*base, "--hours", "1")
    assert run.returncode == 1, run.stderr  # build B, altered, ran in the last hour
    start = (newest - timedelta(hours=1)).isoformat()
    assert f"{start} to {newest.isoformat()}" in run.stdout
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    helped = threecard("report", "shift", "--help").stdout
    for said in (re.sub(r"\s+", " ", readme), re.sub(r"\s+", " ", helped)):
        assert "hours up to the journal's newest event" in said


def test_the_money_columns_reconcile(shift, whole):
    """Each money row of the report reconciles on its face, as ``meters`` does: the
    house win is what the house won (stakes lost by players) minus what it paid
    (winnings); the header says which column is which."""
    _, stops = shift
    meters = stops[-1].meters["rows"]
    got = meter_lines(whole, labels_for(meters))
    assert got and all(len(lines) >= 1 for lines in got.values())
    for name, lines in got.items():
        for _wagered, won, paid, house, _refunded in lines:
            assert house == won - paid, (name, lines)
            assert (won, paid) == (meters[name]["won"], meters[name]["paid"]), name
    header = re.sub(r"\s+", " ", whole)
    assert "Won (lost by" in header and "(winnings)" in header  # headers wrap
    assert "House win = Won − Paid" in header


def test_a_start_up_identity_without_a_file_count_is_reported(tmp_path):
    """The start-up record's ``software`` may leave out the fields its declaration
    defaults (``files``, ``altered``...): the report prints them at their defaults."""
    digest = hashlib.sha256(b"build C").hexdigest()
    journal, _ = run_shift(tmp_path, software=({"version": "0.2.0", "sha256": digest},))
    text = " ".join(report(journal, tmp_path / "report.pdf").split())
    assert f"0.2.0, sha256 {digest[:20]}" in text.replace("- ", "-"), text
    assert "all 0 files match" in text


def test_a_setting_change_is_written_in_words(whole):
    """The supervisor's change of how bets are taken reads as the setting's name and
    its values in words, never the configuration's keys."""
    flat = re.sub(r"\s+", " ", whole)
    assert "Bet entry; was bets in" in flat  # the cell wraps: its lines come apart
    assert all(words in flat for words in ("amounts; now bets as", "outcomes"))
    assert "bet_entry" not in flat and "setting bet" not in flat


REPORTS = {"en": "whole", "uk": "part", "fr": "last"}


def report_text(request, lang: str) -> str:
    """The text of the report in ``lang``, its whitespace one space."""
    text = request.getfixturevalue(REPORTS[lang])
    return " ".join((text if isinstance(text, str) else text[1]).split())


def catalogue(lang: str) -> dict[str, str]:
    from display.report.labels import CATALOGUES
    return CATALOGUES[lang]


@pytest.mark.parametrize("lang", sorted(REPORTS))
def test_the_band_note_says_what_the_band_is_for_each_bet(request, lang):
    """The note under the return plots names each bet and what its band is: Pair Plus per
    seat's hand, the bets that share the dealer's cards per round (an upper bound)."""
    from display.report.labels import ReportText
    t = ReportText(lang)
    note = catalogue(lang)["returns.note"]
    after = note[note.index("{strategy})") + len("{strategy})"):]  # the band's part
    bets = {g: t.bet(g) for g in ("ante_play", "pair_plus", "six_card_bonus")}
    assert all("{" + g + "}" in after for g in bets)
    assert " ".join(after.format(**bets).split()) in report_text(request, lang)


@pytest.mark.parametrize("lang", sorted(REPORTS))
def test_the_money_note_names_the_columns_by_their_own_headings(request, lang):
    words = catalogue(lang)
    text = report_text(request, lang)
    note = " ".join(words["meters.note"].split())
    assert note in text
    for key in ("col.wagered", "col.paid", "col.won", "col.house", "col.hold"):
        heading = words[key].split(" (")[0]
        assert heading in note, (key, heading)


def seal_show(journal: Path) -> dict:
    """``threecard seal show --json`` of a journal."""
    out = threecard("seal", "show", "--journal", journal, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def verify_journal(journal: Path, *args: str) -> subprocess.CompletedProcess:
    return threecard("verify-journal", "--journal", journal, *args)


@pytest.mark.parametrize("lang", sorted(REPORTS))
def test_the_journals_last_seal_stands_above_the_signatures(shift, request, lang):
    """Every report, whatever its period and language, prints the journal's last seal as
    ``verify-journal --witness`` takes it, under its heading, before the signatures."""
    last = seal_show(shift[0])["last_seal"]
    words = catalogue(lang)
    text = report_text(request, lang)
    witness = f"{last['seq']}:{last['signature']}"
    assert f" {witness} " in text
    assert text.index(words["seal.title"]) < text.index(witness) < text.rindex(
        words["sec.sign"])
    said = " ".join(words["seal.witness"].format(epoch=last["epoch"], seq=last["seq"]).split())
    assert said in text


@pytest.fixture(scope="module")
def rolled_back(tmp_path_factory):
    """A journal of 60 simulated rounds, and a copy of it taken after round 30."""
    from journal_edit import copy_journal

    folder = tmp_path_factory.mktemp("witness")
    journal, older = folder / "journal.sqlite3", folder / "older.sqlite3"
    for seed in (5, 6):  # the second run resumes the named journal
        run = threecard("simulate", "--journal", journal, "--rounds", "30", "--seed", seed)
        assert run.returncode == 0, run.stderr
        if seed == 5:
            copy_journal(journal, older)
    return journal, older


def test_the_witness_a_report_prints_holds_on_the_journal_and_fails_on_an_older_copy(
        rolled_back, tmp_path):
    """The line the report prints is what ``verify-journal --witness`` takes: the journal
    holds that seal; the copy 30 rounds older, put in its place, does not."""
    journal, older = rolled_back
    text = report(journal, tmp_path / "shift.pdf")
    (witness,) = re.findall(r"\b\d+:[0-9a-f]{128}\b", text)
    last = seal_show(journal)["last_seal"]
    assert witness == f"{last['seq']}:{last['signature']}"
    assert seal_show(older)["events"] < last["seq"]
    held = verify_journal(journal, "--witness", witness)
    assert held.returncode == 0, held.stdout + held.stderr
    gone = verify_journal(older, "--witness", witness)
    assert gone.returncode == 1, gone.stdout
    assert f"journal rolled back: the witness holds a seal at event {last['seq']}" in gone.stdout


def test_a_journal_made_before_seals_has_no_witness_and_the_report_says_so(rolled_back,
                                                                           tmp_path):
    from journal_edit import as_before_seals, copy_journal

    unsealed = copy_journal(rolled_back[1], tmp_path / "unsealed.sqlite3", keys=False)
    as_before_seals(unsealed)
    text = " ".join(report(unsealed, tmp_path / "shift.pdf").split())
    assert " ".join(catalogue("en")["seal.unsealed"].split()) in text
    assert not re.search(r"\b\d+:[0-9a-f]{128}\b", text)
