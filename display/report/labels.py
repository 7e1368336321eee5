"""The shift report's texts in English, French and Ukrainian: key -> ``str.format`` template.

Bets, hands and words the screens already say come from the screens' catalogue
(:mod:`display.i18n`); these are the report's own. A key missing in French or Ukrainian
shows its English text; a key missing everywhere shows the screens' text, then the key.
"""

from __future__ import annotations

from controller.game.config import RENAMED
from display.i18n import Translator
from display.report.text_en import EN
from display.report.text_fr import FR
from display.report.text_uk import UK

CATALOGUES = {"en": EN, "fr": FR, "uk": UK}
"""Language code -> the report's texts."""


class ReportText(Translator):
    """The report's texts in one language, then the screens' (bets, hands, words).

    Args:
        lang: ``en``, ``fr`` or ``uk``.
    """

    def __init__(self, lang: str = "en") -> None:
        super().__init__(lang)
        self._own = CATALOGUES.get(self.lang, EN)

    def has(self, key: str) -> bool:
        """Whether ``key`` has a text here or on the screens."""
        return key in self._own or key in EN or super().has(key)

    def __call__(self, key: str, **params: object) -> str:
        """The text of ``key`` with ``params`` filled in (see :class:`Translator`)."""
        template = self._own.get(key) or EN.get(key)
        if template is None:
            return super().__call__(key, **params)
        return template.format(**params) if params else template

    def either(self, key: str, fallback: str) -> str:
        """The text of ``key``, or ``fallback`` where none has one (e.g. a typed reason)."""
        return self(key) if self.has(key) else fallback

    def setting_words(self, values: dict[str, str]) -> dict[str, str]:
        """A setting change's values (``key``, ``old``, ``value``) in words.

        The setting's name (the screens', ``setting.<name>``) stands bare first (as
        ``text``, in place of ``key``); its old and new values
        the words of ``setting.<name>.<value>`` (``bets in amounts``), seconds with their
        unit; a value with no words (a count, a rule profile's name) as it is. Values of
        any other event are returned unchanged.
        """
        key = values.get("key")
        if key is None:
            return values
        name = RENAMED.get(key, key)
        out = {("text" if k == "key" else k): v for k, v in values.items()}  # printed bare
        out["text"] = self.either(f"setting.{name}", key.replace("_", " "))
        for k in ("old", "value"):
            v = values.get(k)
            if v is None:
                continue
            if name == "lockout_seconds" and v.isdigit():
                out[k] = self("setting.seconds", n=v)
            else:
                out[k] = self.either(f"setting.{name}.{v}", v)
        return out
