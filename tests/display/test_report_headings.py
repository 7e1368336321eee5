"""The shift report's column headings wrap between words, never inside one.

The meter tables' columns are narrow and the Ukrainian headings long words
("Поставлено", "Утримання"): each heading, set in its column as the report sets it, must
break only where it has a space (the font shrinks where a word is wider than its column).
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from controller.game.numbers import LANGUAGES
from display.report.document import _Builder, _register_fonts
from display.report.labels import ReportText


def _lines(paragraph, width: float) -> list[str]:
    """The lines a heading is set in, ``width`` points wide (its padding taken off)."""
    paragraph.wrap(width, 1000)
    return [" ".join(getattr(w, "text", w) for w in
                     (line.words if hasattr(line, "words") else line[1]))
            for line in paragraph.blPara.lines]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("title", ["col.bet", "col.seat"])
def test_each_heading_of_the_meter_tables_breaks_between_words(lang, title):
    _register_fonts()
    text = ReportText(lang)
    builder = _Builder(SimpleNamespace(rows={}, currency="EUR"), text, "", datetime.now(UTC))
    (table,) = builder.meters(["ante"], str, title)
    for heading, width in zip(table._cellvalues[0], table._colWidths, strict=True):
        words = heading.text.removeprefix("<b>").removesuffix("</b>").split()
        lines = _lines(heading, width - 12)  # the cell's padding: 6 points each side
        assert " ".join(lines).split() == words, (lang, lines)
        for line in lines:
            assert set(line.split()) <= set(words), (lang, heading.text, lines)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("title", ["col.bet", "col.seat"])
def test_no_heading_of_the_meter_tables_is_set_small(lang, title):
    """Each column is wide enough for its heading's longest word at a readable size."""
    from display.report.document import MIN_HEADING_PT

    _register_fonts()
    builder = _Builder(SimpleNamespace(rows={}, currency="EUR"), ReportText(lang), "",
                       datetime.now(UTC))
    (table,) = builder.meters(["ante"], str, title)
    assert sum(table._colWidths) <= builder.width + 0.01  # the page's width, no more
    for heading in table._cellvalues[0]:
        assert heading.style.fontSize >= MIN_HEADING_PT, (lang, heading.text,
                                                          heading.style.fontSize)
