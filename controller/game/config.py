"""The table's configuration: one class, one TOML file, every bound stated once.

:class:`TableConfig` holds every setting of one table. Its *game settings* (seats, rules,
deal pattern, burns, exposed-card policy, chips, PIN hashes and lockout, recall depth,
deck, snapshots) are what the :class:`~controller.game.engine.Game` plays by; they are
journaled (:meth:`TableConfig.to_dict`) and they alone decide whether two configurations
are equal. The other settings (shoe, journal path, screens, log, floor feed) are how
``threecard run`` wires the table; they never reach the journal.

Every field names its place in the TOML file (``systemd/table.toml.example`` shows every
key) and its check; every bound is a named constant below, read by the file loader, the
game (a ``config_change``), the command-line flags, the rule profiles (amounts, paytable
multiples) and the PIN pad alike. A bad file or value is a :class:`ConfigError` naming
the file and the key (``table.toml: [table] seatz: unknown key``); nothing starts with a
configuration that does not validate (docs/requirements.md R3).
Journal form: :meth:`TableConfig.to_dict` writes ``config_version`` 2. Version 1 (written
before, without ``config_version``) named ``exposed_card`` ``exposed_card_policy`` and
``lockout_after`` ``max_pin_failures``; :meth:`TableConfig.from_dict` and
:func:`changeable_setting` read the old names. A ``startup`` whose configuration is
version 2 also tells the game its PIN lockouts are timed on the monotonic clock
(:class:`controller.game.auth.PinLockout`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.game.broker import parse_broker_url, topic_prefix_problem
from controller.game.events import DEFAULT_DIALECT
from controller.game.languages import LANGUAGES

if TYPE_CHECKING:  # the profile loader is imported when a profile is loaded
    from controller.game.rules import RuleProfile

# ---------------------------------------------------------------------------- bounds
MIN_SEATS = 1
MAX_SEATS = 7
"""Seats are numbered 1 to 7."""
MIN_AMOUNT = 1
MAX_AMOUNT = 10**9
"""Amounts and limits (chips, table limits, wagers): 1 to 10^9 minor units."""
MAX_MULTIPLE = 10_000
"""Paytable pays are 0 to 10,000 "to 1"."""
MIN_LOCKOUT_SECONDS = 1
MAX_LOCKOUT_SECONDS = 86_400
"""A PIN lockout lasts 1 s to one day."""
MIN_LOCKOUT_AFTER = 1
MAX_LOCKOUT_AFTER = 100
"""Wrong PINs in a row before PIN entry locks."""
MIN_SILENT_AFTER_MS = 500
MAX_SILENT_AFTER_MS = 60_000
"""No line for this long on a native link = silent."""
TABLE_ID_MAX = 32
TABLE_ID_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{1,{TABLE_ID_MAX}}}")
"""A table id: 1 to 32 characters of ``A-Z a-z 0-9 _ -``."""
PIN_MIN_DIGITS = 4
PIN_MAX_DIGITS = 12
"""A PIN is 4 to 12 digits (configuration, ``hash-pin``, command line, PIN pad)."""
MAX_BURN_CARDS = 5
MAX_CHIP_VALUES = 8
MAX_DISPLAY_INDEX = 15
MIN_RECALL_DEPTH = 10
"""Game recall keeps at least the last 10 rounds (docs/requirements.md R5)."""
MAX_RECALL_DEPTH = 1000
MIN_SNAPSHOT_EVERY = 1
MAX_SNAPSHOT_EVERY = 100_000
SCRYPT_N = (2**10, 2**16)
SCRYPT_R = (1, 16)
SCRYPT_P = (1, 4)
SCRYPT_MAX_WORK = 2**18
"""A PIN hash's scrypt cost ``n`` (a power of two), block size ``r`` and parallelism ``p``,
and at most ``n * r * p`` (twice what ``hash-pin`` uses, 2^14 * 8 * 1): a PIN check takes
a fraction of a second, never seconds (``p = 64`` took 8 s)."""
MAX_PROFILE_BYTES = 64 * 1024
"""The largest rule profile file read (the shipped ones are about 2 KiB)."""

# ---------------------------------------------------------------------------- choices
ROLES = ("dealer", "supervisor", "technician")
"""Roles, lowest to highest (docs/requirements.md R12); each may have a PIN in ``[roles]``."""
DEAL_PATTERNS = ("round_robin", "by_hand")
EXPOSED_CARD_POLICIES = ("burn", "void")
BET_ENTRIES = ("amounts", "outcomes")
"""How the dealer enters bets: ``amounts`` (every wager in minor units, results paid in
money) or ``outcomes`` (the dealer marks which seats play which bets; results are given as
"pays X to 1", "push", "loses" and the dealer pays from the chips on the layout)."""
LOG_LEVELS = ("debug", "info", "warning", "error")
DEMO_SHOE = "sim://?dialect=native"
"""The demo's shoe: simulated, in the process, dealing when autoplay pulls a card."""

CONFIG_VERSION = 2
"""The journal form written by :meth:`TableConfig.to_dict` (see the module docstring)."""
RENAMED = {"exposed_card_policy": "exposed_card", "max_pin_failures": "lockout_after"}
"""Journal form version 1 name -> name now."""
CHANGEABLE = ("deal_pattern", "burn_cards", "exposed_card", "lockout_after",
              "lockout_seconds", "rules", "bet_entry")
"""Settings a ``config_change`` may set (between rounds, supervisor or technician PIN)."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


# ---------------------------------------------------------------------------- checks
Check = Callable[[Any], "str | None"]
"""A check returns what is wrong with a value, or None."""


def _show(value: Any) -> str:
    """A value as an error message quotes it: short, one line, never raising."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except ValueError:  # e.g. an integer too long to write out, inside a list
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _whole(lo: int, hi: int) -> Check:
    def check(v: Any) -> str | None:
        if not _is_int(v) or not lo <= v <= hi:
            return f"must be a whole number {lo} to {hi}, got {_show(v)}"
        return None
    return check


def _one_of(choices: tuple[str, ...]) -> Check:
    def check(v: Any) -> str | None:
        if v not in choices or not isinstance(v, str):
            return f"must be one of {', '.join(choices)}, got {_show(v)}"
        return None
    return check


def _flag(v: Any) -> str | None:
    return None if isinstance(v, bool) else f"must be true or false, got {_show(v)}"


def _text(v: Any) -> str | None:
    if not isinstance(v, str) or not v.strip():
        return f"must be a non-empty string, got {_show(v)}"
    return None


def _profile_text(v: Any) -> str | None:
    if not isinstance(v, str) or len(v.encode("utf-8", "replace")) > MAX_PROFILE_BYTES:
        return f"must be the text of a rule profile of at most {MAX_PROFILE_BYTES} bytes"
    return None


def _currency(v: Any) -> str | None:
    from controller.game.numbers import currency_problem  # Babel, loaded when checked

    return currency_problem(v)


def _table_id(v: Any) -> str | None:
    if not isinstance(v, str) or not TABLE_ID_PATTERN.fullmatch(v):
        return f"must be 1 to {TABLE_ID_MAX} characters of A-Z a-z 0-9 _ -, got {_show(v)}"
    return None


def _broker(v: Any) -> str | None:
    if v == "":
        return None  # no floor feed
    try:
        parse_broker_url(v)
    except ValueError as exc:
        return str(exc)
    return None


def _optional_path(v: Any) -> str | None:
    return None if v == "" else _text(v)


def amount_problem(v: Any) -> str | None:
    """What is wrong with an amount in minor units (None: a whole 1 to 10^9)."""
    if not _is_int(v) or not MIN_AMOUNT <= v <= MAX_AMOUNT:
        return f"must be a whole number of minor units {MIN_AMOUNT} to {MAX_AMOUNT}, " \
               f"got {_show(v)}"
    return None


def multiple_problem(v: Any) -> str | None:
    """What is wrong with a paytable pay "X to 1" (None: a whole 0 to 10,000)."""
    if not _is_int(v) or not 0 <= v <= MAX_MULTIPLE:
        return f"pay must be a whole 'X to 1' number 0 to {MAX_MULTIPLE}, got {_show(v)}"
    return None


def pin_problem(pin: Any) -> str | None:
    """What is wrong with a PIN (None: 4 to 12 digits)."""
    if not (isinstance(pin, str) and pin.isascii() and pin.isdigit()
            and PIN_MIN_DIGITS <= len(pin) <= PIN_MAX_DIGITS):
        return f"a PIN is {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits"
    return None


def _chips(v: Any) -> str | None:
    if not isinstance(v, (tuple, list)) or not 1 <= len(v) <= MAX_CHIP_VALUES:
        return f"must be a list of 1 to {MAX_CHIP_VALUES} amounts, got {_show(v)}"
    for x in v:
        problem = amount_problem(x)
        if problem:
            return f"each chip value {problem}"
    if len(set(v)) != len(v):
        return f"must not repeat a chip value, got {_show(list(v))}"
    return None


def _pin_hashes(v: Any) -> str | None:
    """Role -> PIN hash; a problem is worded ``<role>: <what is wrong>``."""
    if not isinstance(v, dict):
        return f"must map roles to PIN hashes, got {_show(v)}"
    from controller.game.auth import parse_pin_hash  # auth reads this module's bounds
    seen: dict[str, str] = {}  # hash -> the first role given it: one PIN is one role
    for role, digest in v.items():
        if role not in ROLES:
            return f"{_show(role)}: is not a role (roles: {', '.join(ROLES)})"
        try:
            parse_pin_hash(digest if isinstance(digest, str) else "")
        except ValueError as exc:
            return (f"{role}: must be a PIN hash from `threecard hash-pin` (scrypt$...), "
                    f"never a PIN: {exc}")
        if seen.setdefault(digest, role) != role:
            return f"{role}: same PIN as {seen[digest]}"
    return None


# ---------------------------------------------------------------------------- the class
@dataclass(frozen=True, slots=True)
class _Place:
    """Where a setting lives in the file, how it is checked, whether it is journaled."""

    section: str | None  # None: not in the file (set by the code, journaled)
    key: str
    check: Check
    game: bool = True  # a game setting: journaled and compared


def _setting(default: Any, section: str | None, key: str, check: Check, *,
             game: bool = True) -> Any:
    meta = {"place": _Place(section, key, check, game)}
    if isinstance(default, dict):
        return field(default_factory=dict, metadata=meta, compare=game)
    return field(default=default, metadata=meta, compare=game)


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Every setting of one table (see the module docstring for the two kinds).

    Attributes:
        table_id: ``[table] id``: the table's name on the screens and in the journal.
        seats: ``[table] seats``: seats 1 to :data:`MAX_SEATS`.
        rules: ``[table] rules``: rule profile name (``live``, ``classic``) or path.
        rules_text: the text of the profile file :attr:`rules` names (not in the file):
            read once (:meth:`pinned`) and journaled, so a replay plays by the profile the
            table played by, whatever became of the file since. Empty for a shipped
            profile, and in settings journaled before it existed (the file is read).
        deal_pattern: ``[table] deal_pattern``: ``round_robin`` or ``by_hand``.
        burn_cards: ``[table] burn_cards``: cards burnt before each round's deal.
        exposed_card: ``[table] exposed_card``: a card exposed by accident is burnt and
            the deal goes on (``burn``), or the round is void (``void``).
        bet_entry: ``[table] bet_entry``: ``amounts`` or ``outcomes``
            (:data:`BET_ENTRIES`). Journaled with the other game settings; a
            configuration journaled before it existed plays ``amounts``.
        chip_values: ``[table] chip_values``: the dealer's chip buttons, minor units.
        currency: ``[table] currency``: the ISO 4217 code of the money on the table
            (default ``EUR``); every amount is in its minor units, written with its
            digits (``controller.game.numbers``).
        pin_hashes: ``[roles] dealer``, ``supervisor``, ``technician``: role -> salted PIN
            hash (:mod:`controller.game.auth`); never a PIN.
        lockout_after: ``[roles] lockout_after``: wrong PINs in a row before PIN entry locks.
        lockout_seconds: ``[roles] lockout_seconds``: how long it stays locked (elapsed time).
        recall_depth: rounds kept for game recall in the views (not in the file).
        deck_per_round: the deck is reshuffled every round (not in the file).
        snapshot_every: rounds between journal snapshots (not in the file).
        shoe_url: ``[shoe] url`` (``serial://...``, ``usb://...``, ``socket://...``, ``sim://``).
        dialect: ``[shoe] dialect``: the shoe's dialect when the URL names none; checked
            against the dialect registry (``drivers.dialects``) by the wiring.
        silent_after_ms: ``[shoe] silent_after_ms``: no line this long on a native link =
            silent.
        journal_path: ``[journal] path``: the SQLite journal (``:memory:`` for tests).
        dealer_screen, player_screen: ``[display] dealer``, ``player``: screens to open.
        language: ``[display] language``: ``en``, ``fr`` or ``uk``.
        fullscreen, dealer_size: ``[display] fullscreen``; ``dealer_size``, the dealer
            window's ``WIDTHxHEIGHT`` (empty: the default), checked by the wiring.
        dealer_output, player_output, dealer_wait: ``[display] dealer_output``,
            ``player_output``: display indexes; ``dealer_wait``: seconds (1 to 60; the
            unit's start timeout is 90) the start waits for the dealer screen.
        headless: ``[display] headless``: no window at all (SDL dummy driver).
        log_level: ``[log] level``.
        floor_broker: ``[floor] broker``: the floor's MQTT broker (``mqtt://host:1883``,
            ``mqtts://host:8883``); empty: no floor feed.
        floor_ca_file, floor_client_cert, floor_client_key: ``[floor] ca_file``,
            ``client_cert``, ``client_key``: TLS files (PEM) for ``mqtts://``.
        floor_username, floor_password_file: ``[floor] username``, ``password_file``: the
            table's credentials on the broker (the user defaults to the table id).
        floor_topic_prefix: ``[floor] topic_prefix``: topics are
            ``<prefix>/<table id>/...``.
        source: the file it came from (names it in errors); empty when made in code.
        given: the fields the file or a flag set; the others are defaults.
        flags: field -> the command-line flag that set it (``--rules``): its errors name
            the flag, not the file (:meth:`place`).
    """

    # game settings: journaled, compared
    table_id: str = _setting("TABLE-1", "table", "id", _table_id)
    seats: int = _setting(MAX_SEATS, "table", "seats", _whole(MIN_SEATS, MAX_SEATS))
    rules: str = _setting("live", "table", "rules", _text)
    rules_text: str = _setting("", None, "rules_text", _profile_text)
    deal_pattern: str = _setting("round_robin", "table", "deal_pattern", _one_of(DEAL_PATTERNS))
    burn_cards: int = _setting(0, "table", "burn_cards", _whole(0, MAX_BURN_CARDS))
    exposed_card: str = _setting("burn", "table", "exposed_card", _one_of(EXPOSED_CARD_POLICIES))
    chip_values: tuple[int, ...] = _setting((100, 500, 2500, 10000), "table", "chip_values", _chips)
    currency: str = _setting("EUR", "table", "currency", _currency)
    bet_entry: str = _setting("amounts", "table", "bet_entry", _one_of(BET_ENTRIES))
    pin_hashes: dict[str, str] = _setting({}, "roles", "<role>", _pin_hashes)
    lockout_after: int = _setting(5, "roles", "lockout_after",
                                  _whole(MIN_LOCKOUT_AFTER, MAX_LOCKOUT_AFTER))
    lockout_seconds: int = _setting(300, "roles", "lockout_seconds",
                                    _whole(MIN_LOCKOUT_SECONDS, MAX_LOCKOUT_SECONDS))
    recall_depth: int = _setting(10, None, "recall_depth",
                                 _whole(MIN_RECALL_DEPTH, MAX_RECALL_DEPTH))
    deck_per_round: bool = _setting(True, None, "deck_per_round", _flag)
    snapshot_every: int = _setting(50, None, "snapshot_every",
                                   _whole(MIN_SNAPSHOT_EVERY, MAX_SNAPSHOT_EVERY))
    # wiring: how `threecard run` connects the table; never journaled
    shoe_url: str = _setting("serial:///dev/card-shoe", "shoe", "url", _text, game=False)
    dialect: str = _setting(DEFAULT_DIALECT, "shoe", "dialect", _text, game=False)
    silent_after_ms: int = _setting(3000, "shoe", "silent_after_ms",
                                    _whole(MIN_SILENT_AFTER_MS, MAX_SILENT_AFTER_MS),
                                    game=False)
    journal_path: str = _setting("journal.sqlite3", "journal", "path", _text, game=False)
    dealer_screen: bool = _setting(True, "display", "dealer", _flag, game=False)
    player_screen: bool = _setting(True, "display", "player", _flag, game=False)
    language: str = _setting("en", "display", "language", _one_of(LANGUAGES), game=False)
    fullscreen: bool = _setting(False, "display", "fullscreen", _flag, game=False)
    dealer_size: str = _setting("", "display", "dealer_size", _optional_path, game=False)
    dealer_output: int = _setting(0, "display", "dealer_output", _whole(0, MAX_DISPLAY_INDEX),
                                  game=False)
    player_output: int = _setting(1, "display", "player_output", _whole(0, MAX_DISPLAY_INDEX),
                                  game=False)
    dealer_wait: int = _setting(60, "display", "dealer_wait", _whole(1, 60), game=False)
    headless: bool = _setting(False, "display", "headless", _flag, game=False)
    log_level: str = _setting("info", "log", "level", _one_of(LOG_LEVELS), game=False)
    floor_broker: str = _setting("", "floor", "broker", _broker, game=False)
    floor_ca_file: str = _setting("", "floor", "ca_file", _optional_path, game=False)
    floor_client_cert: str = _setting("", "floor", "client_cert", _optional_path, game=False)
    floor_client_key: str = _setting("", "floor", "client_key", _optional_path, game=False)
    floor_username: str = _setting("", "floor", "username", _optional_path, game=False)
    floor_password_file: str = _setting("", "floor", "password_file", _optional_path, game=False)
    floor_topic_prefix: str = _setting("threecard", "floor", "topic_prefix",
                                       topic_prefix_problem, game=False)
    source: str = field(default="", compare=False)
    given: frozenset[str] = field(default=frozenset(), compare=False)
    flags: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def profile(self) -> RuleProfile:
        """The rule profile of :attr:`rules` and :attr:`rules_text` (loaded once each)."""
        from controller.game.rules import profile_for

        return profile_for(self.rules, self.rules_text)

    def pinned(self) -> TableConfig:
        """This configuration with the text of its profile file read (:attr:`rules_text`).

        Raises:
            ConfigError: the file cannot be read
                (:func:`controller.game.rules.profile_text`), named by its key.
        """
        from controller.game.rules import RuleProfileError, profile_text

        try:
            text = self.rules_text or profile_text(self.rules)
        except RuleProfileError as exc:
            raise ConfigError(f"{self.place('rules')}: {exc}") from None
        return replace(self, rules_text=text) if text != self.rules_text else self

    def validate(self) -> TableConfig:
        """Check every setting, and that the rule profile loads.

        Returns:
            self, for chaining.

        Raises:
            ConfigError: the first bad setting, named by its flag or its place in the file
                (``table.toml: [table] seats: must be a whole number 1 to 7, got 9``).
        """
        for name in _PLACES:
            problem = self._problem(name)
            if problem:  # a PIN hash's problem starts with its role: "[roles] dealer: ..."
                raise ConfigError(f"{self.place(name)}: {problem}".replace(" <role>:", ""))
        return self

    def place(self, name: str) -> str:
        """Where a setting came from, as errors name it: its flag, else ``file: [section] key``."""
        if name in self.flags:
            return self.flags[name]
        p = _PLACES[name]
        where = f"[{p.section}] {p.key}" if p.section else name
        return f"{self.source}: {where}" if self.source else where

    def _problem(self, name: str) -> str | None:
        """What is wrong with one setting (the rules: also whether the profile loads)."""
        value = getattr(self, name)
        problem = _PLACES[name].check(value)
        if problem is None and name == "rules":
            from controller.game.rules import RuleProfileError, profile_for

            try:
                profile_for(value, self.rules_text)
            except RuleProfileError as exc:
                return str(exc)
        if (problem is None and name == "player_output" and self.dealer_screen
                and self.player_screen and value == self.dealer_output):
            return (f"must differ from dealer_output ({value}): each screen needs a display "
                    "of its own")
        return problem

    def changed(self, key: Any, value: Any, rules_text: str | None = None) -> TableConfig:
        """This configuration with one setting changed by a ``config_change``.

        Args:
            key: one of :data:`CHANGEABLE` (a name journaled before is read too).
            value: the new value.
            rules_text: a ``rules`` change: the profile's text journaled with it (empty for
                a shipped profile; None for a change journaled before it was kept: the
                file is read).

        Returns:
            The new configuration.

        Raises:
            ConfigError: not a changeable setting (``unknown setting ...``), or a bad
                value (``bad value for <setting>: ...``).
        """
        name = changeable_setting(key)
        new = replace(self, **{name: value})
        if name == "rules":
            new = replace(new, rules_text=rules_text or "")
        problem = new._problem(name)
        if problem:
            raise ConfigError(f"bad value for {name}: {problem}")
        return new

    def to_dict(self) -> dict[str, Any]:
        """The journal form: the game settings and ``config_version``, JSON-ready."""
        d: dict[str, Any] = {"config_version": CONFIG_VERSION}
        for name in _GAME:
            v = getattr(self, name)
            d[name] = list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, dict) else v
        if not self.rules_text:
            del d["rules_text"]  # a shipped profile: the form journaled before it existed
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableConfig:
        """Read the journal form (version 1 or 2); the values as recorded, not re-checked.

        Raises:
            TypeError: a key that is no game setting.
        """
        d = dict(d)
        d.pop("config_version", None)
        for old, new in RENAMED.items():
            if old in d:
                d[new] = d.pop(old)
        unknown = set(d) - set(_GAME)
        if unknown:
            raise TypeError(f"not a game setting: {', '.join(sorted(map(str, unknown)))}")
        if "chip_values" in d:
            d["chip_values"] = tuple(d["chip_values"])
        return cls(**d)


_PLACES: dict[str, _Place] = {f.name: f.metadata["place"] for f in fields(TableConfig)
                              if "place" in f.metadata}
_GAME = tuple(name for name, place in _PLACES.items() if place.game)


FILE_KEYS: dict[str, dict[str, str]] = {
    section: {p.key: n for n, p in _PLACES.items() if p.section == section and n != "pin_hashes"}
    for section in dict.fromkeys(p.section for p in _PLACES.values() if p.section)}
"""The file's sections and keys, in the order of the fields: section -> key ->
:class:`TableConfig` field. ``[roles]`` also takes a PIN hash for each of :data:`ROLES`."""


def config_version(d: dict[str, Any]) -> int:
    """The journal form version of a journaled configuration (1 when not marked)."""
    v = d.get("config_version", 1) if isinstance(d, dict) else 1
    return v if _is_int(v) else 1


def setting_problem(name: str, value: Any) -> str | None:
    """What is wrong with ``value`` for the setting ``name``, by its own check, or None.

    The rule profile a ``rules`` value names is not loaded here (:meth:`TableConfig.validate`
    and :meth:`TableConfig.changed` load it).

    Raises:
        KeyError: ``name`` is no setting of :class:`TableConfig`.
    """
    return _PLACES[name].check(value)


def changeable_setting(key: Any) -> str:
    """The setting a ``config_change`` key names (a version 1 name is read too).

    Raises:
        ConfigError: not a setting a ``config_change`` may set.
    """
    name = RENAMED.get(key, key) if isinstance(key, str) else None
    if name not in CHANGEABLE:
        raise ConfigError(f"unknown setting {_show(key)} (known: {', '.join(CHANGEABLE)})")
    return name


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", key) else _show(key)


def load_config(path: str | Path | None, flags: dict[str, str] | None = None,
                **overrides: Any) -> TableConfig:
    """Load and validate a configuration file, then apply command-line overrides.

    The file is UTF-8 TOML; a byte-order mark (as some Windows editors save) is allowed.

    Args:
        path: the TOML file, or None for the built-in defaults.
        flags: TableConfig field -> the flag that overrides it (``{"rules": "--rules"}``):
            a bad value given so is named by its flag (:attr:`TableConfig.flags`).
        **overrides: TableConfig field -> value for every flag given on the command line
            (None values are ignored).

    Returns:
        The validated configuration.

    Raises:
        ConfigError: the file is missing, not UTF-8, not TOML, has an unknown section or
            key or a bad value; one line naming the file and the key, or the flag.
    """
    values: dict[str, Any] = {}
    source = ""
    if path is not None:
        source = str(path)
        try:
            text = Path(path).read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            raise ConfigError(f"{source}: no such configuration file") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{source}: not UTF-8 text (byte {exc.start}): save it as "
                              "UTF-8") from None
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read: {exc.strerror or exc}") from None
        try:
            data = tomllib.loads(text)
        except ValueError as exc:  # TOMLDecodeError, or an integer too long to read
            raise ConfigError(f"{source}: not valid TOML: {exc}") from None
        pins: dict[str, Any] = {}
        for section, body in data.items():
            if section not in FILE_KEYS:
                raise ConfigError(f"{source}: [{_key(section)}]: unknown section (known: "
                                  + ", ".join(FILE_KEYS) + ")")
            if not isinstance(body, dict):
                raise ConfigError(f"{source}: [{section}]: must be a table of keys, "
                                  f"got {_show(body)}")
            for key, value in body.items():
                if section == "roles" and key in ROLES:
                    pins[key] = value
                elif key in FILE_KEYS[section]:
                    values[FILE_KEYS[section][key]] = value
                else:
                    known = list(FILE_KEYS[section]) + (list(ROLES) if section == "roles" else [])
                    raise ConfigError(f"{source}: [{section}] {_key(key)}: unknown key "
                                      f"(known: {', '.join(known)})")
        values["pin_hashes"] = pins
    flagged = {k: v for k, v in overrides.items() if v is not None}
    values.update(flagged)
    if isinstance(values.get("chip_values"), list):
        values["chip_values"] = tuple(values["chip_values"])
    return TableConfig(source=source, given=frozenset(values), flags={
        k: f for k, f in (flags or {}).items() if k in flagged}, **values).pinned().validate()


__all__ = ["TableConfig", "ConfigError", "load_config", "changeable_setting", "config_version",
           "setting_problem", "amount_problem", "multiple_problem", "pin_problem", "ROLES",
           "CHANGEABLE", "BET_ENTRIES", "MAX_SEATS", "MAX_AMOUNT", "MAX_MULTIPLE"]
