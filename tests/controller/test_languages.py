"""One list of the table's languages: every --lang, the configuration and the screens read it."""

from __future__ import annotations

import argparse

import pytest

from controller.game import config, numbers


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

    assert config.LANGUAGES == numbers.LANGUAGES  # restated there to keep Babel unloaded
    assert i18n.LANGUAGES is numbers.LANGUAGES
    assert set(i18n.MESSAGES) == set(i18n.SAME_AS_ENGLISH) == set(CATALOGUES) \
        == set(numbers.LANGUAGES)
