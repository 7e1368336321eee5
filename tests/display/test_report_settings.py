"""The shift report writes every setting a supervisor may change, and its values, in words."""

from __future__ import annotations

import pytest

from controller.game.config import CHANGEABLE, RENAMED
from controller.game.inputs import SETTINGS
from display.report.labels import ReportText


@pytest.mark.parametrize("lang", ["en", "fr", "uk"])
@pytest.mark.parametrize("key", [*CHANGEABLE, *RENAMED])
def test_each_setting_and_its_values_have_words(lang, key):
    t = ReportText(lang)
    values = SETTINGS[RENAMED.get(key, key)]
    shown = values[:2] if isinstance(values, tuple | range) else ("live", "classic")
    old, new = (str(v) for v in shown)
    words = t.setting_words({"key": key, "old": old, "value": new})
    assert set(words) == {"text", "old", "value"}
    name = words["text"]
    assert "_" not in name and name != key and name[0].isupper()
    for raw, said in ((old, words["old"]), (new, words["value"])):
        if isinstance(values, tuple):  # a choice: its words, not its key
            assert said != raw and "_" not in said
        else:  # a number (with its unit for seconds) or a profile's name
            assert raw in said
    # each language its own words (English where a key has none would show here)
    if lang != "en" and isinstance(values, tuple):
        assert words != ReportText("en").setting_words({"key": key, "old": old,
                                                        "value": new})


def test_other_events_values_are_left_alone():
    values = {"code": "JAM", "detail": "feed jam"}
    assert ReportText("fr").setting_words(values) == values
