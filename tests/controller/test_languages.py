"""One list of the table's languages: every --lang, the configuration and the screens read it."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from controller.game import config, languages, numbers


def _lang_choices(module: str):
    import importlib

    parser = argparse.ArgumentParser()
    importlib.import_module(module).add_arguments(parser)
    found = [a.choices for p in (parser, *[sp for a in parser._actions
                                            if isinstance(a, argparse._SubParsersAction)
                                            for sp in a.choices.values()])
             for a in p._actions if "--lang" in a.option_strings]
    assert found, module
    return found


@pytest.mark.parametrize("module", ["controller.daemon", "controller.dispute",
                                    "controller.report_cli", "display.screenshot"])
def test_every_lang_flag_offers_the_one_list(module):
    assert all(choices is numbers.LANGUAGES for choices in _lang_choices(module))


def test_the_configuration_and_the_screens_take_the_same_languages():
    from display import i18n
    from display.report.labels import CATALOGUES

    assert config.LANGUAGES is numbers.LANGUAGES is languages.LANGUAGES
    assert i18n.LANGUAGES is numbers.LANGUAGES
    assert set(i18n.MESSAGES) == set(i18n.SAME_AS_ENGLISH) == set(CATALOGUES) \
        == set(numbers.LANGUAGES)


def test_the_list_loads_no_babel_and_a_screen_loads_its_own_language_only():
    """In a new process: the list imports no Babel; French screens load the French labels
    and locale data (and English's labels, the fallback), never the Ukrainian."""
    code = """if True:
        import sys
        from controller.game.languages import LANGUAGES
        print("babel" in sys.modules)
        from babel import localedata
        from display.i18n import Translator
        tr = Translator("fr")
        print(tr.money(123456), tr.number(1234))
        print(sorted(m for m in sys.modules if m.startswith("display.languages.")))
        print(sorted(localedata._cache))
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.splitlines()
    assert out[0] == "False"
    assert out[1] == "1\u202f234,56 1\u202f234"  # written in French: its data was loaded
    assert out[2] == "['display.languages.en', 'display.languages.fr']"
    assert "uk" not in out[3] and "fr" in out[3] and "'en'" not in out[3]
