"""The screens' labels, one module per language: ``en``, ``fr``, ``uk``.

Read through :class:`display.i18n.Translator`.
"""
