"""``threecard report shift``: the PDF a pit boss signs tells the journal's truth.

A scripted evening (two voids, a lost shoe link, a jam, a misread entered by hand) is
written in three parts with two restarts between them; the meters are read with
``threecard meters --json`` at each stop. The report is made by the real command, its
pages turned into PNG (``pdftoppm``) and its text read back (``pdftotext``), as a person
or an auditor would.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shift_journal import run_shift

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
    journal, stops = run_shift(folder, stop_after=(3, 7),
                               software=(None, IDENTITY_A, IDENTITY_B))
    return journal, stops


def report(journal: Path, out: Path, *args: str) -> str:
    run = subprocess.run([sys.executable, "-m", "controller.cli", "report", "shift",
                          "--journal", str(journal), "--out", str(out), *args],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes().startswith(b"%PDF-")
    return subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True,
                          text=True, check=True).stdout


def minor(text: str) -> int:
    sign = -1 if text[0] in "\u2212-" else 1
    return sign * int(re.sub(r"\D", "", text))


def meter_lines(text: str, labels: dict[str, str]) -> dict[str, list[list[int]]]:
    """Every table line whose first cell is one of ``labels``: name -> its money cells
    (wagered, paid, house win, refunded), in page order."""
    found: dict[str, list[list[int]]] = {}
    by_label = {v: k for k, v in labels.items()}
    for line in text.splitlines():
        first = re.split(r"\s{2,}", line.strip())[0]
        name = by_label.get(first)
        if name is None:
            continue
        cells = [minor(m) for m in MONEY.findall(line[line.index(first) + len(first):])]
        if len(cells) == 4:
            found.setdefault(name, []).append(cells)
    return found


def expected(rows: dict[str, dict[str, int]], before: dict[str, dict[str, int]] | None = None
             ) -> dict[str, list[int]]:
    """From ``meters --json`` rows (minus ``before``): name -> [wagered, paid, house win,
    refunded], the columns the report prints."""
    out = {}
    for name, row in rows.items():
        b = (before or {}).get(name, {})
        d = {k: row[k] - b.get(k, 0) for k in row}
        out[name] = [d["wagered"], d["paid"], d["won"] - d["paid"], d["refunded"]]
    return out


def labels_for(rows: dict[str, object], lang: str = "en") -> dict[str, str]:
    words = LABELS[lang]
    labels = {k: v for k, v in words.items() if k in rows}
    labels.update({k: words["seat"].format(k.split()[1]) for k in rows if k.startswith("seat ")})
    return labels


@pytest.fixture(scope="module")
def whole(shift, tmp_path_factory):
    """The English report of the whole journal, as text."""
    return report(shift[0], tmp_path_factory.mktemp("whole") / "shift.pdf")


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
    # tiles: the rounds settled (the total meter's) and voided (the voids counter), as the
    # meters read them: 9 and 3 (the table's void of round 3, the shoe faults of 10 and 13)
    settled, voided = meters["total"]["rounds"], stops[-1].meters["counters"]["voids"]
    assert (settled, voided) == (9, 3)
    assert re.search(rf"\b{settled}\s+{voided}\s+", text)


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


def test_the_void_list_equals_recall_and_names_who_approved(shift, whole):
    journal, _ = shift
    text = whole
    out = subprocess.run([sys.executable, "-m", "controller.cli", "recall", "--journal",
                          str(journal), "--json", "--last", "100"], capture_output=True,
                         text=True, check=True).stdout
    voids = sorted((r["round_id"], r["void_reason"]) for r in json.loads(out)
                   if r["status"] == "void")
    lines = [line for line in text.splitlines() if "Round void" in line]
    listed = sorted((int(re.split(r"\s{2,}", line.strip())[1]), line) for line in lines)
    assert [rid for rid, _ in listed] == [rid for rid, _ in voids] == [3, 10, 13]
    # the script: round 3 a card before "no more bets" (the table voids it, a supervisor's
    # PIN on "next round" acknowledges it); rounds 10 and 13 a jam, voided by a supervisor
    (_, card_line), (_, jam_line), (_, outcome_jam_line) = listed
    assert re.search(r"Card before no more bets\s+Table\s+Supervisor", card_line)
    for line in (jam_line, outcome_jam_line):
        assert re.search(r"Shoe fault\s+Supervisor\s+Supervisor", line)
    assert dict(voids)[10] == dict(voids)[13] == "Shoe fault"
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
