"""Labels in three languages with glyphs in the bundled font; the screenshot command."""

import argparse

import pygame
import pytest

from display import i18n, screenshot
from display.i18n import MESSAGES, Translator, format_rtp
from display.theme import font_path


@pytest.mark.parametrize("lang", ["fr", "uk"])
def test_every_label_translated(lang):
    missing = sorted(set(MESSAGES["en"]) - set(MESSAGES[lang]))
    assert not missing


@pytest.mark.parametrize("bold", [False, True])
def test_bundled_font_has_every_glyph(bold):
    pygame.font.init()
    font = pygame.font.Font(font_path(bold), 20)
    chars = set()
    for table in MESSAGES.values():
        for text in table.values():
            chars.update(text)
    chars.update("\u2660\u2665\u2666\u2663\u2212\u202f\u2026\u2713\u2717\u21a9\u21e7\u232b"
                 "\u2190\u2192\u25cf\u2022\u2013")
    chars.discard("{")
    chars.discard("}")
    missing = [c for c in sorted(chars) if font.metrics(c)[0] is None]
    assert not missing
    assert font_path(bold).with_name("LICENSE-DejaVu.txt").exists()


def test_translator_fallbacks():
    tr = Translator("uk")
    assert tr("card.seat", seat=3, n=2) == "Місце 3, карта 2"
    assert Translator("xx")("btn.reveal") == "Reveal"
    assert tr("no.such.key") == "no.such.key"
    assert tr.hand("three_of_a_kind") == "Трійка"
    assert tr.banner("mystery", "msg", "Something odd", {}) == "Something odd"
    assert Translator("en").banner("link_lost", "msg", "Shoe link lost: port closed", {}) == \
        "Shoe link lost: port closed"


def test_money_and_rtp_formats():
    """The screens' names for the one formatter: the language and currency they are given."""
    en, fr, uk = Translator("en"), Translator("fr"), Translator("uk")
    assert en.money(12500) == "125.00"
    assert en.money(-500) == "-5.00"
    assert en.money(100000, sign=True) == "+1,000.00"
    assert fr.money(100000, sign=True) == "+1\u202f000,00"
    assert uk.money(100000) == "1\u00a0000,00"
    assert en.money(0, sign=True) == "0.00"
    assert fr.money(2500, whole=True) == "25"
    assert fr.money(2550, whole=True) == "25,50"
    assert en.money(2500, currency="JPY") == "2,500"
    assert Translator("fr").money(123450) == "1\u202f234,50"
    assert format_rtp(966270) == "96.63%"
    assert format_rtp(914386, "fr") == "91,44\u00a0%"
    assert format_rtp(914386, "uk") == "91,44%"
    assert len(i18n.VOID_REASONS) == 6


def test_screenshot_command(tmp_path):
    parser = argparse.ArgumentParser()
    screenshot.add_arguments(parser)
    out = tmp_path / "shot.png"
    args = parser.parse_args(["--view", "player", "--scenario", "void", "--size", "800x480",
                              "--lang", "fr", "--out", str(out)])
    assert screenshot.run(args) == 0
    img = pygame.image.load(str(out))
    assert img.get_size() == (800, 480)
    bad = parser.parse_args(["--view", "dealer", "--scenario", "void", "--size", "big",
                             "--out", str(out)])
    assert screenshot.run(bad) == 2


def test_cli_dispatches_screenshot(tmp_path):
    from controller.cli import main

    out = tmp_path / "d.png"
    assert main(["screenshot", "--view", "dealer", "--scenario", "meters", "--size",
                 "1080x1920", "--out", str(out)]) == 0
    assert out.exists()
