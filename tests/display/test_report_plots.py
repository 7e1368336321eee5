"""The shift report's house plot and lists, read as a person reads them.

Voids close together share one label instead of piling their numbers into a blob; a
shift with hundreds of voids marks them along the plot's top edge instead of painting it
red; the event counters are listed in the alphabetical order of the report's language.
"""

from __future__ import annotations

import io
import shutil
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pygame
import pytest

from controller.game.shift import VoidLine, parse_utc, shift
from display.report.document import alphabetical
from display.report.labels import ReportText
from display.report.plots import VOID, house_plot, void_labels

DATA = Path(__file__).resolve().parents[1] / "controller" / "data"


def test_voids_close_on_the_axis_share_one_label():
    start = parse_utc("2026-03-01T18:00Z")
    end = start + timedelta(hours=8)

    def at(minutes: int, rid: int):
        return start + timedelta(minutes=minutes), rid

    voids = [at(10, 3), at(60, 9), at(62, 10), at(63, 11), at(64, 12), at(200, 18),
             at(203, 21), at(300, 40), at(301, 44), at(302, 45), at(303, 50), at(470, 77)]
    labels = [label for _, label in void_labels(voids, start, end)]
    # a run of rounds as a range; two or three apart by commas; more by their ends
    assert labels == ["#3", "#9–12", "#18, 21", "#40…50 (4)", "#77"]
    # far apart, each its own
    assert len(void_labels([at(0, 1), at(240, 2), at(479, 3)], start, end)) == 3


def _red_share(png: bytes, below: float = 0.0) -> float:
    """The share of the image's pixels tinted red (the voids' colour, however faint), in
    the part of the image below ``below`` of its height."""
    surface = pygame.image.load(io.BytesIO(png))
    w, h = surface.get_size()
    assert pygame.Color(VOID).r > pygame.Color(VOID).g + 40  # the voids' colour is a red
    red = n = 0
    for x in range(0, w, 2):
        for y in range(int(h * below), h, 2):
            c = surface.get_at((x, y))
            red += c.r > c.g + 40 and c.r > c.b + 40
            n += 1
    return red / n


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """The shift of the format-1 journal kept from an earlier version (three voids)."""
    folder = tmp_path_factory.mktemp("plot")
    journal = folder / "format1.journal"
    shutil.copyfile(DATA / "format1.journal", journal)
    shutil.copyfile(DATA / "format1.journal.anchor", f"{journal}.anchor")
    return shift(journal)


def test_hundreds_of_voids_mark_the_edge_and_leave_the_plot_readable(real):
    """777 voids drawn as lines across the plot would paint it red; they are ticks along
    its top edge."""
    text = ReportText("en")
    few = house_plot(real, text, str)
    start, end = parse_utc(real.period_from), parse_utc(real.period_to)
    step = (end - start) / 800
    many = replace(real, voids=[VoidLine(1000 + i, 0, (start + i * step).isoformat(),
                                         "shoe_fault", "supervisor", "supervisor", 0)
                                for i in range(777)])
    crowded = house_plot(many, text, str)
    # the ticks stay in a band along the top (the legend's row and the plot's edge): the
    # house result below them is drawn on white, as with three voids
    assert _red_share(crowded, below=0.2) < 0.002, _red_share(crowded, below=0.2)
    assert _red_share(few, below=0.2) < 0.01


def test_counters_are_listed_in_the_alphabet_of_the_reports_language():
    uk = ["Їжак", "Іграшка", "Гра", "Ґанок", "Дерево", "Євро", "абетка"]
    assert sorted(uk, key=lambda s: alphabetical(s, "uk")) == [
        "абетка", "Гра", "Ґанок", "Дерево", "Євро", "Іграшка", "Їжак"]
    fr = ["zèbre", "Élan", "eau", "école", "Abandon"]
    assert sorted(fr, key=lambda s: alphabetical(s, "fr")) == [
        "Abandon", "eau", "école", "Élan", "zèbre"]
    # the counters' own Ukrainian labels, as the report lists them
    t = ReportText("uk")
    keys = ["voids", "misreads", "manual_cards", "rejected", "power_ups", "overrides",
            "duplicate_card", "config_changes"]
    labels = [t.either(f"counter.{k}", k) for k in keys]
    listed = sorted(labels, key=lambda s: alphabetical(s, "uk"))
    letters = "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя"
    firsts = [letters.index(s[0].lower()) for s in listed if s[0].lower() in letters]
    assert firsts == sorted(firsts) and len(firsts) == len(keys)
