"""The shift report's own texts (en, fr, uk): key -> ``str.format`` template.

A missing key falls back to English, then the screens' catalogue, then the key itself.
"""

from __future__ import annotations

from babel.lists import format_list

from controller.game.config import RENAMED
from display.i18n import Translator
from display.report.text_en import EN
from display.report.text_fr import FR
from display.report.text_uk import UK

CATALOGUES = {"en": EN, "fr": FR, "uk": UK}
"""Language code -> the report's texts."""


class ReportText(Translator):
    """The report's texts in one language, then the screens' (bets, hands, words)."""

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

    def note(self, note: str) -> str:
        """A verifier's note as ``note.<kind>`` words here (English where it has none)."""
        key = f"note.{getattr(note, 'key', '')}"
        if key not in EN:
            return str(note)
        params = dict(getattr(note, "params", {}))
        if "parts" in params:
            params["parts"] = format_list([self(f"note.part.{p}") for p in params["parts"]],
                                          locale=self.lang)
        if "seconds" in params:
            params["seconds"] = f"{params['seconds']:g}"
        return self(key, **params)

    def either(self, key: str, fallback: str) -> str:
        """The text of ``key``, or ``fallback`` where none has one (e.g. a typed reason)."""
        return self(key) if self.has(key) else fallback

    def setting_words(self, values: dict[str, str]) -> dict[str, str]:
        """A setting change's values (``key``, ``old``, ``value``) in words.

        The name goes in ``text``; values read as ``setting.<name>.<value>``, seconds with
        their unit, others as they are. Other events' values are returned unchanged.
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
