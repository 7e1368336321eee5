"""The table's languages, the one list: importing it loads no Babel (the configuration reads it)."""

LANGUAGES = ("en", "fr", "uk")
"""Numbers are written in these (another code is written as English); every ``--lang``, the
configuration and the screens' catalogues read them."""
