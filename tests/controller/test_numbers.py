"""One formatter for money, numbers and percentages per language (Babel, the CLDR)."""

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.config import ConfigError, TableConfig
from controller.game.numbers import (
    DEFAULT_CURRENCY,
    currency_digits,
    format_money,
    format_number,
    format_percent,
    format_ppm,
    money_value,
)

NNBSP, NBSP = "\u202f", "\u00a0"
# the CLDR's separators: (group, decimal) per language
SEPARATORS = {"en": (",", "."), "fr": (NNBSP, ","), "uk": (NBSP, ",")}


@pytest.mark.parametrize("lang, want", [("en", "1,234.50"), ("fr", f"1{NNBSP}234,50"),
                                        ("uk", f"1{NBSP}234,50")])
def test_money_is_written_as_each_language_writes_it(lang, want):
    assert format_money(123450, lang) == want
    assert format_money(-123450, lang) == "-" + want
    assert format_money(123450, lang, sign=True) == "+" + want


@given(st.integers(min_value=-10**15, max_value=10**15), st.sampled_from(sorted(SEPARATORS)))
def test_money_reads_back_to_the_same_minor_units(minor, lang):
    """Every amount, in every language: the digits are the minor units, two decimals."""
    group, decimal = SEPARATORS[lang]
    text = format_money(minor, lang)
    whole, _, cents = text.lstrip("-").partition(decimal)
    assert len(cents) == 2
    groups = whole.split(group)
    assert all(len(g) == 3 for g in groups[1:]) and 1 <= len(groups[0]) <= 3
    value = Decimal("".join(groups) + "." + cents)
    assert value * 100 == abs(minor)
    assert text.startswith("-") == (minor < 0)


def test_a_currency_s_digits_place_the_decimal_point():
    assert currency_digits(DEFAULT_CURRENCY) == 2
    assert format_money(12345, "en", "JPY") == "12,345"          # ISO 4217: no minor unit
    assert format_money(12345, "en", "KWD") == "12.345"          # three digits
    assert format_money(12345, "fr", "UAH") == "123,45"
    assert money_value(12345, "KWD") == Decimal("12.345")
    with pytest.raises(TypeError):
        money_value(12.5)  # never a float
    with pytest.raises(ValueError):
        currency_digits("XYZ")


def test_whole_amounts_may_leave_out_their_decimals():
    assert format_money(250000, "fr", whole=True) == f"2{NNBSP}500"
    assert format_money(250050, "fr", whole=True) == f"2{NNBSP}500,50"


def test_numbers_and_percentages():
    assert format_number(1234567, "en") == "1,234,567"
    assert format_number(1234567, "uk") == f"1{NBSP}234{NBSP}567"
    assert format_ppm(966270, "en") == "96.63%"
    assert format_ppm(966270, "fr") == f"96,63{NBSP}%"
    assert format_ppm(966250, "en") == "96.63%"                   # half up, as published
    assert format_ppm(966270, "uk", digits=4) == "96,6270%"
    assert format_percent(Fraction(1, 8), "en", 1) == "12.5%"
    assert format_percent(0.0201465, "en", 4) == "2.0147%"


def test_the_currency_is_a_setting_of_the_table(tmp_path):
    assert TableConfig().currency == "EUR"
    cfg = TableConfig(currency="UAH").validate()
    assert cfg.to_dict()["currency"] == "UAH"
    assert TableConfig.from_dict(cfg.to_dict()).currency == "UAH"
    assert TableConfig.from_dict({k: v for k, v in cfg.to_dict().items()
                                  if k != "currency"}).currency == "EUR"  # older journals
    with pytest.raises(ConfigError, match=r"currency: must be an ISO 4217 currency code"):
        TableConfig(currency="euro").validate()
    toml = tmp_path / "table.toml"
    toml.write_text('[table]\ncurrency = "usd"\n', encoding="utf-8")
    from controller.game.config import load_config

    with pytest.raises(ConfigError, match=r"table.toml: \[table\] currency: .*got 'usd'"):
        load_config(toml)


def _one_round_in_kwd(make_shift):
    """Seat 1: Ante 1.500 KWD (minor units of three digits), straight flush As Ks Qs against
    a dealer who does not qualify (5-3-2): Ante pays 1 to 1, Play pushes, Ante Bonus 5 to 1:
    +1.500 +0 +7.500 = +9.000 KWD."""
    from controller.game.inputs import Decide, NoMoreBets, PlaceBet, Reveal, Settle

    s = make_shift(seats=1, currency="KWD")
    s.ok(PlaceBet(seat=1, bet="ante", amount=1500), NoMoreBets(), s.cards("As 2c Ks 3d Qs 5h"),
         Decide(seat=1, decision="play"), Reveal(), Settle())
    return s


def test_recall_and_meters_write_the_journal_s_currency(make_shift):
    import subprocess
    import sys

    s = _one_round_in_kwd(make_shift)
    s.close()

    def cli(*args):
        p = subprocess.run([sys.executable, "-m", "controller.cli", *args, "--journal",
                            str(s.path)], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout

    recall = cli("recall")
    assert recall.splitlines()[0] == "amounts in KWD"
    assert "bets play 1.500, ante 1.500" in recall and "ante_bonus win +7.500" in recall
    assert "net +9.000" in recall
    meters = cli("meters")
    assert meters.splitlines()[0] == "amounts in KWD"
    (total,) = [ln.split() for ln in meters.splitlines() if ln.startswith("total")]
    # wagered Ante + Play; paid 9.000 to the player; the house net -9.000
    assert total[1:5] == ["3.000", "9.000", "0.000", "-9.000"]


def test_the_round_log_line_writes_the_table_s_currency(make_shift):
    from controller.round_log import describe_round

    s = _one_round_in_kwd(make_shift)
    view = s.view
    assert view.currency == s.player_view.currency == "KWD"
    (rec,) = [r for r in view.recall if r.round_id == 1]
    line = describe_round(rec, s.config.profile, view.currency)
    assert line.endswith("seat 1 As Ks Qs straight flush +9.000"), line


def test_compact_money_only_where_it_is_exact():
    """1000.00 and 25000.00 short in each language (CLDR's compact notation); an amount
    the notation would round, one with decimals or under a thousand: none."""
    from babel.numbers import format_compact_decimal

    from controller.game.numbers import format_money_compact
    for lang in ("en", "fr", "uk"):
        for major in (1000, 25000, 1250, 1_500_000):
            got = format_money_compact(major * 100, lang, "EUR")
            assert got == format_compact_decimal(major, locale=lang, fraction_digits=2)
        assert format_money_compact(123400, lang, "EUR") is None       # 1,234 would round
        assert format_money_compact(100050, lang, "EUR") is None       # 1,000.50
        assert format_money_compact(99900, lang, "EUR") is None        # 999
    assert format_money_compact(100000, "en", "EUR") == "1K"


def test_odds_one_form_per_screen_width_grouped_per_language():
    from controller.game.numbers import ODDS_COLON, ODDS_WORDS, format_odds, odds_form
    assert [odds_form(w) for w in (800, 999, 1000, 1920)] == [ODDS_COLON, ODDS_COLON,
                                                               ODDS_WORDS, ODDS_WORDS]
    assert format_odds(30) == "30 to 1"
    assert format_odds(1000, "en", ODDS_COLON) == "1,000:1"
    assert format_odds(1000, "fr", ODDS_WORDS, "{x} contre 1") == f"1{NNBSP}000 contre 1"
