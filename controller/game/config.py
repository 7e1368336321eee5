"""The table's configuration: one TOML file, one msgspec Struct per section, bounds declared once.

:class:`TableConfig` is the flat view the table reads. Its game settings are journaled
(docs/config-format.md) and alone decide equality; the others only wire ``threecard run``.
A bad value is a :class:`ConfigError` naming the file, section and key
(``table.toml: [table] seatz: unknown key``); nothing starts unvalidated (docs/requirements.md R3).
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
import typing
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct, field

from controller.game.broker import parse_broker_url, topic_prefix_problem
from controller.game.events import DEFAULT_DIALECT
from controller.game.languages import LANGUAGES

if TYPE_CHECKING:  # the profile loader is imported when a profile is loaded
    from controller.game.rules import RuleProfile

# ---------------------------------------------------------------------------- bounds
MIN_SEATS = 1
MAX_SEATS = 7
MIN_AMOUNT = 1
MAX_AMOUNT = 10**9
"""Amounts and limits (chips, table limits, wagers): 1 to 10^9 minor units."""
MAX_MULTIPLE = 10_000
"""Paytable pays are 0 to 10,000 "to 1"."""
MIN_LOCKOUT_SECONDS = 1
MAX_LOCKOUT_SECONDS = 86_400
MIN_LOCKOUT_AFTER = 1
MAX_LOCKOUT_AFTER = 100
MIN_SILENT_AFTER_MS = 500
MAX_SILENT_AFTER_MS = 60_000
TABLE_ID_MAX = 32
TABLE_ID_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{1,{TABLE_ID_MAX}}}")
PIN_MIN_DIGITS = 4
PIN_MAX_DIGITS = 12
MAX_BURN_CARDS = 5
MAX_CHIP_VALUES = 8
MAX_DISPLAY_INDEX = 15
MIN_RECALL_DEPTH = 10  # docs/requirements.md R5
MAX_RECALL_DEPTH = 1000
MIN_SNAPSHOT_EVERY = 1
MAX_SNAPSHOT_EVERY = 100_000
SCRYPT_N = (2**10, 2**16)
SCRYPT_R = (1, 16)
SCRYPT_P = (1, 4)
SCRYPT_MAX_WORK = 2**18
"""scrypt bounds of a PIN hash: a check in well under a second (``p = 64`` took 8 s)."""
MAX_PROFILE_BYTES = 64 * 1024  # the largest rule profile read (the shipped ones: ~2 KiB)

# ---------------------------------------------------------------------------- choices
ROLES = ("dealer", "supervisor", "technician")
"""Roles, lowest to highest (docs/requirements.md R12); each may have a PIN in ``[roles]``."""
DEAL_PATTERNS = ("round_robin", "by_hand")
EXPOSED_CARD_POLICIES = ("burn", "void")
BET_ENTRIES = ("amounts", "outcomes")
"""Bets entered as ``amounts`` (minor units) or ``outcomes`` (which seats play which bets)."""
LOG_LEVELS = ("debug", "info", "warning", "error")
DEMO_SHOE = "sim://?dialect=native"  # simulated, in the process, dealt as autoplay pulls

CONFIG_VERSION = 2
"""The journal form :meth:`TableConfig.to_dict` writes (docs/config-format.md)."""
RENAMED = {"exposed_card_policy": "exposed_card", "max_pin_failures": "lockout_after"}
"""Journal form version 1 name -> name now."""
CHANGEABLE = ("deal_pattern", "burn_cards", "exposed_card", "lockout_after",
              "lockout_seconds", "rules", "bet_entry")
"""Settings a ``config_change`` may set (between rounds, supervisor or technician PIN)."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


def _show(value: Any) -> str:
    """A value as an error message quotes it: short, one line, never raising."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except ValueError:  # e.g. an integer too long to write out, inside a list
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------------------- value types
def _whole(lo: int, hi: int, what: str = "a whole number") -> Any:
    return Annotated[int, Meta(ge=lo, le=hi, description=f"{what} {lo} to {hi}")]


def _one_of(choices: tuple[str, ...]) -> Any:
    return Annotated[Literal[choices], Meta(description="one of " + ", ".join(choices))]


def _checked(check: Callable[[Any], str | None], base: Any = str) -> Any:
    """A type whose value is checked by ``check`` (a message, or None) beyond its type."""
    return Annotated[base, Meta(extra={"check": check})]


def _broker(v: Any) -> str | None:
    if v == "":
        return None  # no floor feed
    try:
        parse_broker_url(v)
    except ValueError as exc:
        return str(exc)
    return None


def _currency(v: Any) -> str | None:
    from controller.game.numbers import currency_problem  # Babel, loaded when checked

    return currency_problem(v)


def _profile_text(v: Any) -> str | None:
    if not isinstance(v, str) or len(v.encode("utf-8", "replace")) > MAX_PROFILE_BYTES:
        return f"must be the text of a rule profile of at most {MAX_PROFILE_BYTES} bytes"
    return None


def _distinct(v: Any) -> str | None:
    return None if len(set(v)) == len(v) else f"must not repeat a chip value, got {_show(list(v))}"


def _pin_hash(digest: Any) -> str | None:
    from controller.game.auth import parse_pin_hash  # auth reads this module's bounds

    try:
        parse_pin_hash(digest if isinstance(digest, str) else "")
    except ValueError as exc:
        return f"must be a PIN hash from `threecard hash-pin` (scrypt$...), never a PIN: {exc}"
    return None


def _pin_hashes(v: Any) -> str | None:
    """Role -> PIN hash; a problem is worded ``<role>: <what is wrong>``."""
    if not isinstance(v, dict):
        return f"must map roles to PIN hashes, got {_show(v)}"
    seen: dict[str, str] = {}  # hash -> the first role given it: one PIN is one role
    for role, digest in v.items():
        if role not in ROLES:
            return f"{_show(role)}: is not a role (roles: {', '.join(ROLES)})"
        problem = _pin_hash(digest)
        if problem or seen.setdefault(digest, role) != role:
            return f"{role}: {problem or 'same PIN as ' + seen[digest]}"
    return None


Flag = Annotated[bool, Meta(description="true or false")]
Text = Annotated[str, Meta(pattern=r"\S", description="a non-empty string")]
OptionalText = Annotated[str, Meta(pattern=r"\A\Z|\S", description="a non-empty string")]
TableId = Annotated[str, Meta(pattern=rf"\A{TABLE_ID_PATTERN.pattern}\Z",
                              description=f"1 to {TABLE_ID_MAX} characters of A-Z a-z 0-9 _ -")]
Amount = _whole(MIN_AMOUNT, MAX_AMOUNT, "a whole number of minor units")
Multiple = _whole(0, MAX_MULTIPLE, "a whole 'X to 1' number")
Chips = Annotated[tuple[Amount, ...], Meta(
    min_length=1, max_length=MAX_CHIP_VALUES, description=f"a list of 1 to {MAX_CHIP_VALUES} "
    "amounts", extra={"item": "chip value", "check": _distinct})]
DisplayIndex = _whole(0, MAX_DISPLAY_INDEX)
OptionalBroker = _checked(_broker)
PinHash = _checked(_pin_hash)


def _problem(tp: Any, value: Any) -> str | None:
    """What is wrong with ``value`` as a value of the type ``tp``, or None."""
    meta = next((m for m in typing.get_args(tp)[1:] if isinstance(m, Meta)), Meta())
    extra = meta.extra or {}
    try:
        msgspec.convert(value, tp, strict=True)
    except msgspec.ValidationError as exc:
        item = re.search(r"`\$\[(\d+)\]`$", str(exc))
        if item and "item" in extra:
            item_type = typing.get_args(typing.get_args(tp)[0])[0]
            return f"each {extra['item']} {_problem(item_type, value[int(item[1])])}"
        if meta.description:
            return f"must be {meta.description}, got {_show(value)}"
        return extra["check"](value) or str(exc) if "check" in extra else str(exc)
    return extra["check"](value) if "check" in extra else None


def amount_problem(v: Any) -> str | None:
    """What is wrong with an amount in minor units (None: a whole 1 to 10^9)."""
    return _problem(Amount, v)


def multiple_problem(v: Any) -> str | None:
    """What is wrong with a paytable pay "X to 1" (None: a whole 0 to 10,000)."""
    problem = _problem(Multiple, v)
    return problem and f"pay {problem}"


def pin_problem(pin: Any) -> str | None:
    """What is wrong with a PIN (None: 4 to 12 digits)."""
    if not (isinstance(pin, str) and pin.isascii() and pin.isdigit()
            and PIN_MIN_DIGITS <= len(pin) <= PIN_MAX_DIGITS):
        return f"a PIN is {PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits"
    return None


# ---------------------------------------------------------------------------- the file
class _Section(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A section of the file: unknown keys refused; a field's encode name is its key."""


class TableSection(_Section):
    """``[table]``: the game. ``rules`` is a shipped profile's name or a profile file's path."""

    table_id: TableId = field(default="TABLE-1", name="id")
    seats: _whole(MIN_SEATS, MAX_SEATS) = MAX_SEATS
    rules: Text = "live"
    deal_pattern: _one_of(DEAL_PATTERNS) = "round_robin"
    burn_cards: _whole(0, MAX_BURN_CARDS) = 0
    exposed_card: _one_of(EXPOSED_CARD_POLICIES) = "burn"
    chip_values: Chips = (100, 500, 2500, 10000)
    currency: _checked(_currency) = "EUR"
    bet_entry: _one_of(BET_ENTRIES) = "amounts"


class RolesSection(_Section):
    """``[roles]``: PIN lockout, and each role's PIN hash (``threecard hash-pin``)."""

    lockout_after: _whole(MIN_LOCKOUT_AFTER, MAX_LOCKOUT_AFTER) = 5
    lockout_seconds: _whole(MIN_LOCKOUT_SECONDS, MAX_LOCKOUT_SECONDS) = 300
    dealer: PinHash = ""
    supervisor: PinHash = ""
    technician: PinHash = ""


class CodeSettings(_Section):
    """Game settings the code sets, not the file (journaled with the others)."""

    # the profile file's text, so a replay plays by it (empty for a shipped profile)
    rules_text: _checked(_profile_text) = ""
    pin_hashes: _checked(_pin_hashes, dict[str, str]) = {}
    recall_depth: _whole(MIN_RECALL_DEPTH, MAX_RECALL_DEPTH) = 10
    deck_per_round: Flag = True
    snapshot_every: _whole(MIN_SNAPSHOT_EVERY, MAX_SNAPSHOT_EVERY) = 50


class ShoeSection(_Section):
    """``[shoe]``: the URL (``serial://``, ``usb://``, ``socket://``, ``sim://``)."""

    shoe_url: Text = field(default="serial:///dev/card-shoe", name="url")
    dialect: Text = DEFAULT_DIALECT  # when the URL names none
    # no line this long on a native link = silent
    silent_after_ms: _whole(MIN_SILENT_AFTER_MS, MAX_SILENT_AFTER_MS) = 3000


class JournalSection(_Section):
    """``[journal]``: the SQLite journal's path."""

    journal_path: Text = field(default="journal.sqlite3", name="path")


class DisplaySection(_Section):
    """``[display]``: screens, their outputs and the dealer window."""

    dealer_screen: Flag = field(default=True, name="dealer")
    player_screen: Flag = field(default=True, name="player")
    language: _one_of(LANGUAGES) = "en"
    fullscreen: Flag = False
    dealer_size: OptionalText = ""  # WIDTHxHEIGHT, checked by the wiring; "": the default
    dealer_output: DisplayIndex = 0
    player_output: DisplayIndex = 1
    dealer_wait: _whole(1, 60) = 60  # seconds the start waits for the dealer screen
    headless: Flag = False


class LogSection(_Section):
    """``[log]``: the log level."""

    log_level: _one_of(LOG_LEVELS) = field(default="info", name="level")


class FloorSection(_Section):
    """``[floor]``: the floor's MQTT broker ("": no feed), TLS files, credentials, topics."""

    floor_broker: OptionalBroker = field(default="", name="broker")
    floor_ca_file: OptionalText = field(default="", name="ca_file")
    floor_client_cert: OptionalText = field(default="", name="client_cert")
    floor_client_key: OptionalText = field(default="", name="client_key")
    floor_username: OptionalText = field(default="", name="username")
    floor_password_file: OptionalText = field(default="", name="password_file")
    floor_topic_prefix: _checked(topic_prefix_problem) = field(default="threecard",
                                                               name="topic_prefix")


class ConfigFile(_Section):
    """The whole file, one field per section (all optional)."""

    table: TableSection = TableSection()
    roles: RolesSection = RolesSection()
    shoe: ShoeSection = ShoeSection()
    journal: JournalSection = JournalSection()
    display: DisplaySection = DisplaySection()
    log: LogSection = LogSection()
    floor: FloorSection = FloorSection()


_SECTIONS: dict[str, type[_Section]] = {
    f.encode_name: f.type for f in msgspec.structs.fields(ConfigFile)}
_KEYS = {section: {f.encode_name: f for f in msgspec.structs.fields(s)}
         for section, s in _SECTIONS.items()}
FILE_KEYS: dict[str, dict[str, str]] = {
    section: {key: f.name for key, f in keys.items() if key not in ROLES or section != "roles"}
    for section, keys in _KEYS.items()}
"""Section -> key -> :class:`TableConfig` field; ``[roles]`` also takes a PIN hash per role."""
_SETTINGS = {f.name: (section, key, f) for section, keys in [
    *list(_KEYS.items())[:2], (None, {f.name: f for f in msgspec.structs.fields(CodeSettings)}),
    *list(_KEYS.items())[2:]] for key, f in keys.items() if f.name not in ROLES}
"""Every setting of :class:`TableConfig`: name -> (section or None, key, field)."""
_SETTINGS["pin_hashes"] = ("roles", "<role>", _SETTINGS["pin_hashes"][2])  # a key per role
_GAME = tuple(n for n, (section, _, _) in _SETTINGS.items() if section in ("table", "roles", None))


# ---------------------------------------------------------------------------- the class
class _Methods:
    """What :class:`TableConfig` does; its fields are generated from the sections."""

    __slots__ = ()

    @property
    def profile(self) -> RuleProfile:
        """The rule profile of :attr:`rules` and :attr:`rules_text` (loaded once each)."""
        from controller.game.rules import profile_for

        return profile_for(self.rules, self.rules_text)

    def pinned(self) -> TableConfig:
        """This configuration with its profile file's text read (ConfigError names the key)."""
        from controller.game.rules import RuleProfileError, profile_text

        try:
            text = self.rules_text or profile_text(self.rules)
        except RuleProfileError as exc:
            raise ConfigError(f"{self.place('rules')}: {exc}") from None
        return replace(self, rules_text=text) if text != self.rules_text else self

    def validate(self) -> TableConfig:
        """Check every setting and that the rule profile loads; returns self.

        Raises:
            ConfigError: the first bad setting, named by its flag or its place in the file.
        """
        for name in _SETTINGS:
            problem = self._problem(name)
            if problem:  # a PIN hash's problem starts with its role: "[roles] dealer: ..."
                raise ConfigError(f"{self.place(name)}: {problem}".replace(" <role>:", ""))
        return self

    def place(self, name: str) -> str:
        """Where a setting came from, as errors name it: its flag, else ``file: [section] key``."""
        if name in self.flags:
            return self.flags[name]
        section, key, _ = _SETTINGS[name]
        where = f"[{section}] {key}" if section else name
        return f"{self.source}: {where}" if self.source else where

    def _problem(self, name: str) -> str | None:
        """What is wrong with one setting (the rules: also whether the profile loads)."""
        value = getattr(self, name)
        problem = setting_problem(name, value)
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
            key: one of :data:`CHANGEABLE` (a version 1 name is read too).
            value: the new value.
            rules_text: a ``rules`` change's journaled profile text ("" shipped; None: not kept).

        Raises:
            ConfigError: not a changeable setting, or a bad value.
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
        """Read the journal form (version 1 or 2) as recorded, unchecked (TypeError: no setting)."""
        d = {RENAMED.get(k, k): v for k, v in d.items() if k != "config_version"}
        unknown = set(d) - set(_GAME)
        if unknown:
            raise TypeError(f"not a game setting: {', '.join(sorted(map(str, unknown)))}")
        if "chip_values" in d:
            d["chip_values"] = tuple(d["chip_values"])
        return cls(**d)


def _dataclass_field(name: str, f: msgspec.structs.FieldInfo) -> tuple[str, Any, Any]:
    default = (dataclasses.field(default_factory=f.default_factory, compare=name in _GAME)
               if f.default is msgspec.NODEFAULT else
               dataclasses.field(default=f.default, compare=name in _GAME))
    return name, f.type, default


TableConfig = dataclasses.make_dataclass(
    "TableConfig",
    [*(_dataclass_field(n, f) for n, (_, _, f) in _SETTINGS.items()),
     ("source", str, dataclasses.field(default="", compare=False)),
     ("given", frozenset, dataclasses.field(default=frozenset(), compare=False)),
     ("flags", dict, dataclasses.field(default_factory=dict, compare=False))],
    bases=(_Methods,), frozen=True, slots=True, namespace={"__module__": __name__})
TableConfig.__doc__ = """Every setting of one table, flat: one attribute per field of the
sections above (``[floor] broker`` is ``floor_broker``) and of :class:`CodeSettings`.
``source`` is the file it came from; ``given`` the fields the file or a flag set;
``flags`` field -> the flag that set it (its errors name the flag)."""


def config_version(d: dict[str, Any]) -> int:
    """The journal form version of a journaled configuration (1 when not marked)."""
    v = d.get("config_version", 1) if isinstance(d, dict) else 1
    return v if isinstance(v, int) and not isinstance(v, bool) else 1


def setting_problem(name: str, value: Any) -> str | None:
    """What is wrong with ``value`` for setting ``name`` by its type, or None (KeyError: none).

    The profile a ``rules`` value names is not loaded here (validate and changed do).
    """
    return _problem(_SETTINGS[name][2].type, value)


def changeable_setting(key: Any) -> str:
    """The setting a ``config_change`` key names, version 1 names too (else ConfigError)."""
    name = RENAMED.get(key, key) if isinstance(key, str) else None
    if name not in CHANGEABLE:
        raise ConfigError(f"unknown setting {_show(key)} (known: {', '.join(CHANGEABLE)})")
    return name


# ---------------------------------------------------------------------------- loading
def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", key) else _show(key)


def _read(source: str) -> dict[str, Any]:
    """The TOML document of a file (UTF-8, a byte-order mark allowed)."""
    try:
        text = Path(source).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such configuration file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 text (byte {exc.start}): save it as "
                          "UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer too long to read
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None


def _file_problem(data: dict[str, Any], exc: msgspec.ValidationError) -> str:
    """The file's error as msgspec gives it (``... - at `$.table.seats```), in our words."""
    message = str(exc)
    where = message.rpartition(" - at `$")[2] if " - at `$" in message else ""
    path = re.findall(r"\.(\w+)", where)
    if not path:  # "Object contains unknown field" at the top
        unknown = next(s for s in data if s not in _SECTIONS)
        return f"[{_key(unknown)}]: unknown section (known: {', '.join(_SECTIONS)})"
    section, body = path[0], data[path[0]]
    if len(path) == 1 and not isinstance(body, dict):
        return f"[{section}]: must be a table of keys, got {_show(body)}"
    if len(path) == 1:
        unknown = next(k for k in body if k not in _KEYS[section])
        return (f"[{section}] {_key(unknown)}: unknown key (known: "
                f"{', '.join(_KEYS[section])})")
    key = path[1]
    return f"[{section}] {key}: {_problem(_KEYS[section][key].type, body[key])}"


def _file_settings(source: str) -> dict[str, Any]:
    """The settings a file gives: field -> value, each checked by its section's type."""
    data = _read(source)
    try:
        file = msgspec.convert(data, ConfigFile, strict=True)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{source}: {_file_problem(data, exc)}") from None
    values: dict[str, Any] = {"pin_hashes": {}}
    for section, body in data.items():
        for key in body:
            name = _KEYS[section][key].name
            value = getattr(getattr(file, section), name)
            if section == "roles" and key in ROLES:
                values["pin_hashes"][key] = value
            else:
                values[name] = value
    return values


def load_config(path: str | Path | None, flags: dict[str, str] | None = None,
                **overrides: Any) -> TableConfig:
    """Load and validate a configuration file, then apply command-line overrides.

    Args:
        path: the TOML file (UTF-8), or None for the built-in defaults.
        flags: field -> the flag that overrides it (``{"rules": "--rules"}``), for errors.
        **overrides: field -> a flag's value (None values are ignored).

    Raises:
        ConfigError: missing, not UTF-8, not TOML, an unknown section or key or a bad
            value; one line naming the file and the key, or the flag.
    """
    source = "" if path is None else str(path)
    values = _file_settings(source) if source else {}
    flagged = {k: v for k, v in overrides.items() if v is not None}
    values.update(flagged)
    if isinstance(values.get("chip_values"), list):
        values["chip_values"] = tuple(values["chip_values"])
    return TableConfig(source=source, given=frozenset(values), flags={
        k: f for k, f in (flags or {}).items() if k in flagged}, **values).pinned().validate()


__all__ = ["TableConfig", "ConfigError", "load_config", "changeable_setting", "config_version",
           "setting_problem", "amount_problem", "multiple_problem", "pin_problem", "ROLES",
           "CHANGEABLE", "BET_ENTRIES", "MAX_SEATS", "MAX_AMOUNT", "MAX_MULTIPLE"]
