"""Screen labels in English, French and Ukrainian (the rule documents' languages).

The language is chosen in the configuration (``lang``). Every label is looked up by a
stable key; a key missing in French or Ukrainian falls back to English, and a key missing
everywhere shows the key itself (never a crash on a live table). Banner texts are
translated by the banner's ``kind``; the controller's English text is the fallback.
"""

from __future__ import annotations

import functools
import importlib
import re
import string
from collections.abc import Iterator, Mapping
from typing import Any

from controller.game import numbers, refusals
from controller.game.cards import CardError, parse_card
from controller.game.languages import LANGUAGES as LANGUAGES  # the screens' languages
from controller.game.numbers import DEFAULT_CURRENCY
from controller.game.refusals import Refusal
from controller.game.views import Banner


class _ByLanguage(Mapping[str, Any]):
    """Language code -> ``name`` in its module of :mod:`display.languages`.

    A module is imported when first asked for: a table loads its language's labels only
    (and English's, the fallback).
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getitem__(self, lang: str) -> Any:
        if lang not in LANGUAGES:
            raise KeyError(lang)
        return getattr(importlib.import_module(f"display.languages.{lang}"), self._name)

    def __iter__(self) -> Iterator[str]:
        return iter(LANGUAGES)

    def __len__(self) -> int:
        return len(LANGUAGES)


MESSAGES: Mapping[str, Mapping[str, str]] = _ByLanguage("MESSAGES")
"""Language code -> key -> text template (``str.format`` fields)."""
_EN = MESSAGES["en"]

SAME_AS_ENGLISH: Mapping[str, frozenset[str]] = _ByLanguage("SAME_AS_ENGLISH")
"""Language code -> the keys whose text is the English one by right (``Ante``, ``OK``);
any other key with the English text is a label left untranslated."""

VOID_REASONS = ("card_before_no_more_bets", "wrong_count", "dealer_exposed",
                "misread_unresolved", "shoe_fault", "other")
"""Reasons offered on the void pad; the English text is what the command records."""


AUTOPLAY_PREFIX = "autoplay:"
"""How autoplay's void reasons begin (``autoplay: link_lost``)."""
_PAD_REASONS = {text: key for key, text in _EN.items() if key.startswith("reason.")}
"""The void pad's English reason (what the command records) -> its label key."""


SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
"""A suit's letter -> the symbol the screens draw."""
RED_SUITS = frozenset("dh")
"""Suits drawn in red."""


def rank_label(card: str) -> str:
    """The rank as printed on a card (``T`` -> ``10``)."""
    r = card[0].upper()
    return "10" if r == "T" else r


def card_label(card: str) -> str:
    """A card as short text with its suit symbol, e.g. ``Q♥``."""
    return rank_label(card) + SUIT_SYMBOLS.get(card[1:2].lower(), "?")


def shown_card(text: str) -> str:
    """A card's code (``6c``, ``10h``) as the screens draw it (``6♣``).

    A text that is no card (an unknown code the shoe sent) is shown as it is.
    """
    try:
        return card_label(str(parse_card(text)))
    except CardError:
        return text


_KEY_SYMBOLS = {"backspace": "\u232b", "left": "\u2190", "right": "\u2192", "up": "\u2191",
                "down": "\u2193"}
"""Keys printed as a symbol, the same in every language."""


class _Params(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class Translator:
    """Look up labels in one language, falling back to English, then to the key.

    Args:
        lang: ``en``, ``fr`` or ``uk``; anything else means English.
    """

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in MESSAGES else "en"
        self._table = MESSAGES[self.lang]
        self._cache: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}

    def has(self, key: str) -> bool:
        """Whether ``key`` has a text in this language or in English."""
        return key in self._table or key in _EN

    def __call__(self, key: str, **params: object) -> str:
        """The text of ``key`` with ``params`` filled in.

        Args:
            key: a label key, e.g. ``btn.reveal``.
            **params: values for the template fields.

        Returns:
            The translated text; unknown fields are left as ``{name}``.
        """
        template = self._table.get(key) or _EN.get(key) or key
        if not params:
            return template
        ck = (key, tuple(sorted((k, str(v)) for k, v in params.items())))
        hit = self._cache.get(ck)
        if hit is None:
            hit = string.Formatter().vformat(template, (), _Params(params))
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[ck] = hit
        return hit

    def plural(self, key: str, n: int, **params: object) -> str:
        """The text of ``key`` for the count ``n`` in this language's plural form.

        ``key.one``, ``key.few``, ``key.many`` or ``key.other`` as the language's rules
        (CLDR, by Babel) class ``n``, else ``key.other``; ``n`` is filled in as ``{n}``,
        written with the language's grouping.
        """
        form = f"{key}.{numbers.plural_form(n, self.lang)}"
        chosen = form if form in self._table else f"{key}.other"
        return self(chosen, n=self.number(n), **params)

    def money(self, minor: int, currency: str = DEFAULT_CURRENCY, *, sign: bool = False,
              whole: bool = False) -> str:
        """An amount in minor units written in this language (:func:`format_money`)."""
        return numbers.format_money(minor, self.lang, currency, sign=sign, whole=whole)

    def money_compact(self, minor: int, currency: str = DEFAULT_CURRENCY) -> str | None:
        """A whole amount in compact notation (``1K``), where that is exact, else None."""
        return numbers.format_money_compact(minor, self.lang, currency)

    def odds(self, x: int, form: str = numbers.ODDS_WORDS, *, pays: bool = False) -> str:
        """A pay of ``x`` to 1 in this language, in the screen's form (one per screen).

        Args:
            x: the "X to 1" pay.
            form: :func:`~controller.game.numbers.odds_form` of the screen's width:
                ``30 to 1`` (words) or ``30:1`` (colon).
            pays: a win in words with its verb, ``pays 30 to 1`` (the colon form has none).
        """
        template = self("result.pays" if pays else "word.to_one", x="{x}")
        return numbers.format_odds(x, self.lang, form, template)

    def number(self, n: int) -> str:
        """A whole number with this language's grouping (``1,234`` / ``1 234``)."""
        return numbers.format_number(n, self.lang)

    def percent(self, ppm: int) -> str:
        """Parts per million as a percentage in this language (``96.63%`` / ``96,63 %``)."""
        return numbers.format_ppm(ppm, self.lang)

    def refusal(self, refusal: Refusal, currency: str = DEFAULT_CURRENCY) -> str:
        """Why an input was refused, in words: ``6 Card Bonus 50.00 is above ...``.

        Each parameter is written by its kind (:mod:`controller.game.refusals`): money in
        this language with the table's currency, bets, commands, states and settings by
        their names. A refusal about one seat's wagers names the seat first. An undeclared
        code is English text from the game, shown as it is.

        Args:
            refusal: the code and typed parameters.
            currency: the table's currency (ISO 4217).
        """
        kind = refusal.kind
        if kind is None:
            return refusal.code
        values = {name: self._param(kind.params.get(name, refusals.TEXT), value, currency)
                  for name, value in refusal.params.items()}
        key = f"refusal.{refusal.code}"
        text = self(key, **values)
        if refusal.code in refusals.BET_ERRORS and "seat" in values and "{seat}" not in _EN[key]:
            text = self("refusal.seat", seat=values["seat"], text=text)
        return text

    def rejection(self, banner: Banner) -> str:
        """The words of a ``rejected`` banner (its message when it carries no code)."""
        refusal = Refusal.from_params(banner.params)
        if refusal is None:
            return banner.message
        return self.refusal(refusal, banner.params.get("currency", DEFAULT_CURRENCY))

    def _param(self, kind: str, value: object, currency: str) -> str:
        if kind == refusals.MONEY and isinstance(value, int):
            return self.money(value, currency)
        if kind == refusals.SEATS and isinstance(value, (tuple, list)):
            return ", ".join(map(str, value))
        if kind == refusals.BET:
            return self.bet(str(value))
        if kind == refusals.CARD:
            return shown_card(str(value))
        if kind == refusals.STATE:
            return self.state(str(value))
        if kind == refusals.DECISION:
            return self("word.played" if value == "play" else "word.folded")
        if kind in (refusals.COMMAND, refusals.SETTING):
            key = f"{kind}.{value}"
            return self(key) if self.has(key) else str(value).replace("_", " ")
        return str(value)

    def key(self, key: str) -> str:
        """A key as its cap reads, in this language (``shift+b`` -> ``\u21e7B``).

        Keys named by words are in the catalogue (``key.return``: ``Enter``, ``Entr\u00e9e``);
        arrows and the backspace are symbols; a letter or a function key is its cap.

        Args:
            key: the key as ``pygame.key.name`` spells it (``return``, ``page up``, ``f9``),
                ``shift+`` before it when Shift is held.
        """
        if not key:
            return ""
        if key.startswith("shift+"):
            return "\u21e7" + self.key(key[6:])
        name = "key." + key.replace(" ", "_")
        return _KEY_SYMBOLS.get(key) or (self(name) if self.has(name) else key.upper())

    def next_key(self, key: str, state: str) -> str:
        """The label key of a next action: its own text in ``state`` where there is one.

        ``next_round`` after a void (``next.next_round.void``: return every wager) is not
        ``next_round`` after a settled round (pay the seats).
        """
        own = f"next.{key}.{state}"
        return own if self.has(own) else f"next.{key}"

    def link_detail(self, text: str) -> str:
        """The shoe link's detail (the drivers' English) in this language.

        The detail is matched against the English ``linkdetail.*`` templates; a match is
        written with this language's template (the device kept, the operating system's
        own error text left to the log). A detail no template matches is shown as it is.
        """
        if self.lang == "en" or not text:
            return text
        for key, pattern in _link_patterns():
            m = pattern.fullmatch(text)
            if m and key in self._table:
                return self(key, **m.groupdict())
        return text

    def hand(self, name: str | None) -> str:
        """A hand name (``three_of_a_kind``) in this language; empty for None."""
        if not name:
            return ""
        key = f"hand.{name}"
        return self(key) if self.has(key) else name.replace("_", " ").capitalize()

    def qualifier(self, qualifier: str) -> str:
        """The dealer's qualifier (``Q-high``) as the rule words it in this language.

        A qualifier the language has no words for is written as the rules name it.
        """
        key = f"qualifier.{qualifier}"
        return self(key) if self.has(key) else qualifier

    def bet(self, name: str) -> str:
        """A bet type name (``pair_plus``) in this language."""
        key = f"bet.{name}"
        return self(key) if self.has(key) else name.replace("_", " ").title()

    def void_reason(self, text: str) -> str:
        """Why a round was voided, in this language.

        The reason codes the table writes itself (``duplicate_card``,
        ``card_before_no_more_bets``...), the void pad's English reasons, and autoplay's
        ``autoplay: link_lost`` are worded; any other reason (a supervisor's own words)
        is shown as it was written.
        """
        code = text.strip()
        auto = code.startswith(AUTOPLAY_PREFIX)
        if auto:
            code = code[len(AUTOPLAY_PREFIX):].strip()
        word = code
        for key in (f"voidreason.{code}", f"reason.{code}", _PAD_REASONS.get(code, "")):
            if key and self.has(key):
                word = self(key)
                break
        return self("voidreason.autoplay", why=word) if auto else word

    def state(self, name: str) -> str:
        """A round state name in this language."""
        key = f"state.{name}"
        return self(key) if self.has(key) else name.replace("_", " ").capitalize()

    def banner(self, kind: str, part: str, fallback: str, params: Mapping[str, str]) -> str:
        """A banner's message (``msg``), action (``act``) or player line (``player``).

        Args:
            kind: the banner kind.
            part: ``msg``, ``act`` or ``player``.
            fallback: the controller's English text, used for unknown kinds; when the
                language is English and the controller wrote a text, that text wins
                (it may carry detail the generic label lacks).
            params: values for the template.

        Returns:
            The text to show.
        """
        key = f"banner.{kind}.{part}"
        if (self.lang == "en" and fallback) or not self.has(key):
            code = params.get("card")
            if code and fallback and shown_card(code) != code:  # the table's words: the card drawn
                return re.sub(rf"(?<!\w){re.escape(code)}(?!\w)", shown_card(code), fallback)
            return fallback
        return self(key, **self.banner_params(params))

    def banner_params(self, params: Mapping[str, str]) -> dict[str, str]:
        """A banner's parameters as the screens write them.

        A card as drawn (rank and suit symbol), a device by its name in this language.
        """
        out = dict(params)
        if out.get("card"):
            out["card"] = shown_card(out["card"])
        device = f"device.{out.get('device')}"
        if self.has(device):
            out["device"] = self(device)
        return out


@functools.lru_cache(maxsize=1)
def _link_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The English ``linkdetail.*`` templates as patterns (a field matches any text)."""
    out = []
    for key, template in _EN.items():
        if key.startswith("linkdetail."):
            parts = re.split(r"\{(\w+)\}", template)
            rx = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)"
                         for i, p in enumerate(parts))
            out.append((key, re.compile(rx, re.DOTALL)))
    return tuple(out)


def format_rtp(ppm: int, lang: str = "en") -> str:
    """A return to player in parts per million: ``966270`` -> ``96.63%`` (``96,63 %``)."""
    return numbers.format_ppm(ppm, lang)
