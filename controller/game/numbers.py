"""Money, numbers and percentages written per language (Babel, the CLDR's conventions).

One formatter for every screen and command. Money is an integer count of minor units;
it is turned into a :class:`~decimal.Decimal` by the currency's digits (``12345`` EUR
minor units are ``123.45``; ``12345`` JPY are ``12345``), never through a float, and
written with the language's separators: ``1,234.50`` in English, ``1 234,50`` in French
(a narrow no-break space, U+202F, groups the thousands) and ``1 234,50`` in Ukrainian (a
no-break space, U+00A0). Amounts are written without the currency's sign: the screens
and commands name the currency once where it is configured (``[table] currency``).

Languages are the screens' (``en``, ``fr``, ``uk``); any other code is written as
English. Currencies are ISO 4217 codes that the CLDR knows.
"""

from __future__ import annotations

import copy
import functools
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from babel import Locale
from babel.numbers import (
    format_compact_decimal,
    get_currency_precision,
    get_plus_sign_symbol,
    list_currencies,
)

from controller.game.languages import LANGUAGES

DEFAULT_CURRENCY = "EUR"
"""The currency when the configuration names none: the euro, two decimal digits (a
casino elsewhere names its own in ``[table] currency``)."""


@functools.lru_cache(maxsize=8)
def _locale(lang: str) -> Locale:
    return Locale.parse(lang if lang in LANGUAGES else "en")


@functools.lru_cache(maxsize=64)
def _pattern(lang: str, kind: str, digits: int) -> object:
    """The language's decimal or percent pattern with exactly ``digits`` decimals."""
    loc = _locale(lang)
    base = loc.percent_formats[None] if kind == "percent" else loc.decimal_formats[None]
    pattern = copy.copy(base)
    pattern.frac_prec = (digits, digits)
    return pattern


def currency_problem(code: object) -> str | None:
    """What is wrong with a currency code (None: an ISO 4217 code the CLDR knows)."""
    if not isinstance(code, str) or code not in _currencies():
        shown = repr(code) if len(repr(code)) <= 40 else repr(code)[:37] + "..."
        return f"must be an ISO 4217 currency code such as EUR, USD or UAH, got {shown}"
    return None


@functools.lru_cache(maxsize=1)
def _currencies() -> frozenset[str]:
    return frozenset(list_currencies())


@functools.lru_cache(maxsize=64)
def currency_digits(currency: str = DEFAULT_CURRENCY) -> int:
    """Decimal digits of the currency's minor unit (EUR 2, JPY 0, KWD 3).

    Raises:
        ValueError: not a currency code the CLDR knows.
    """
    problem = currency_problem(currency)
    if problem:
        raise ValueError(f"currency {problem}")
    return get_currency_precision(currency)


def money_value(minor: int, currency: str = DEFAULT_CURRENCY) -> Decimal:
    """Minor units as an exact decimal amount: ``12345`` EUR -> ``Decimal('123.45')``.

    Raises:
        TypeError: ``minor`` is not an integer (money is never a float).
        ValueError: an unknown currency.
    """
    if not isinstance(minor, int) or isinstance(minor, bool):
        raise TypeError(f"money is a whole number of minor units, got {minor!r}")
    return Decimal(minor).scaleb(-currency_digits(currency))


def format_money(minor: int, lang: str = "en", currency: str = DEFAULT_CURRENCY, *,
                 sign: bool = False, whole: bool = False) -> str:
    """Minor units written as an amount in ``lang``: ``123450`` -> ``1,234.50``/``1 234,50``.

    Args:
        minor: an integer amount in minor units of ``currency``.
        lang: ``en``, ``fr`` or ``uk`` (another code: English).
        currency: the ISO 4217 code; its digits place the decimal separator.
        sign: write ``+`` before a positive amount (a negative one always has its sign).
        whole: leave out the decimals of an amount that has none (``25`` for 25.00).

    Returns:
        The amount without a currency sign.

    Raises:
        TypeError: ``minor`` is not an integer.
        ValueError: an unknown currency.
    """
    value = money_value(minor, currency)
    digits = currency_digits(currency)
    if whole and minor % (10 ** digits) == 0:
        digits = 0
    text = _pattern(lang, "decimal", digits).apply(value, _locale(lang))
    if sign and minor > 0:
        return get_plus_sign_symbol(_locale(lang)) + text
    return text


def format_money_compact(minor: int, lang: str = "en", currency: str = DEFAULT_CURRENCY
                         ) -> str | None:
    """A whole amount of a thousand or more in the language's compact notation.

    ``100000`` EUR minor units (1000.00) -> ``1K`` / ``1 k`` / ``1 тис.``; ``125000`` ->
    ``1.25K``. Only where the compact form is exact: None for an amount with decimals,
    under a thousand, or one the notation would round (1,234.00).

    Raises:
        TypeError: ``minor`` is not an integer.
        ValueError: an unknown currency.
    """
    value = money_value(minor, currency)
    if value != value.to_integral_value() or abs(value) < 1000:
        return None
    unit = 10 ** (3 * ((len(str(abs(int(value)))) - 1) // 3))  # a thousand, a million...
    if int(value) % (unit // 100):  # more than two decimals of the compact unit
        return None
    return format_compact_decimal(value, locale=_locale(lang), fraction_digits=2)


def format_number(n: int, lang: str = "en") -> str:
    """A whole number with the language's grouping: ``1234567`` -> ``1,234,567``."""
    return _pattern(lang, "decimal", 0).apply(Decimal(int(n)), _locale(lang))


ODDS_WORDS = "words"
"""Odds written in words, ``30 to 1`` (``30 contre 1``, ``30 до 1``): screens wide enough."""
ODDS_COLON = "colon"
"""Odds written as a ratio, ``30:1``: narrow screens, where the words would not fit."""
ODDS_WORDS_FROM = 1000
"""The narrowest screen (pixels wide) that writes odds in words; narrower ones write
``30:1``."""
ODDS_TEMPLATE = "{x} to 1"
"""The English words of odds (the screens take theirs from their catalogue)."""


def odds_form(width: int) -> str:
    """How a screen ``width`` pixels wide writes odds: one form on the whole screen.

    :data:`ODDS_WORDS` from :data:`ODDS_WORDS_FROM` pixels up, else :data:`ODDS_COLON`.
    """
    return ODDS_WORDS if width >= ODDS_WORDS_FROM else ODDS_COLON


def format_odds(x: int, lang: str = "en", form: str = ODDS_WORDS,
                template: str = ODDS_TEMPLATE) -> str:
    """A pay of ``x`` to 1 written as odds: ``30 to 1`` or ``30:1``.

    Args:
        x: the whole "X to 1" pay (grouped per language: ``10,000 to 1``).
        lang: ``en``, ``fr`` or ``uk``, for the digits' grouping.
        form: :data:`ODDS_WORDS` or :data:`ODDS_COLON` (:func:`odds_form`).
        template: the words with an ``{x}`` field (the language's own, from a catalogue).
    """
    n = format_number(x, lang)
    return f"{n}:1" if form == ODDS_COLON else template.replace("{x}", n)


def plural_form(n: int, lang: str = "en") -> str:
    """The language's plural category of ``n`` (CLDR, by Babel).

    ``one``, ``few``, ``many`` or ``other``: ``1`` is ``one`` in English, ``21`` is
    ``one`` in Ukrainian and ``22`` is ``few``.
    """
    return _locale(lang).plural_form(abs(int(n)))


def _decimal(value: Decimal | Fraction | float | int) -> Decimal:
    """An exact decimal of a number (a float through its shortest decimal text)."""
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    if isinstance(value, float):  # a subclass (NumPy's) may write its repr otherwise
        return Decimal(float.__repr__(value))
    return Decimal(value)


def format_decimal(value: Decimal | Fraction | float | int, lang: str = "en",
                   digits: int = 1) -> str:
    """A number with ``digits`` decimals in ``lang``: ``21.74`` -> ``21.7``/``21,7``.

    Args:
        value: the number (a float is read through its shortest decimal text).
        lang: ``en``, ``fr`` or ``uk``.
        digits: decimals, rounded half up.
    """
    exact = _decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return _pattern(lang, "decimal", digits).apply(exact, _locale(lang))


def format_percent(ratio: Decimal | Fraction | float | int, lang: str = "en",
                   digits: int = 2) -> str:
    """A ratio written as a percentage in ``lang``: ``0.96627`` -> ``96.63%``/``96,63 %``.

    Args:
        ratio: the ratio (1 = 100 %); a float is read through its shortest decimal text.
        lang: ``en``, ``fr`` or ``uk``.
        digits: decimals of the percentage, rounded half up.
    """
    value = _decimal(ratio).quantize(Decimal(1).scaleb(-(digits + 2)), rounding=ROUND_HALF_UP)
    return _pattern(lang, "percent", digits).apply(value, _locale(lang))


def format_ppm(ppm: int, lang: str = "en", digits: int = 2) -> str:
    """Parts per million written as a percentage: ``966270`` -> ``96.63%``/``96,63 %``."""
    return format_percent(Decimal(int(ppm)).scaleb(-6), lang, digits)


__all__ = ["DEFAULT_CURRENCY", "LANGUAGES", "ODDS_COLON", "ODDS_WORDS", "ODDS_WORDS_FROM",
           "currency_digits", "currency_problem", "plural_form",
           "format_decimal", "format_money", "format_number", "format_odds", "format_percent",
           "format_ppm", "money_value", "odds_form"]
