"""The table's configuration: one TOML file, validated, with command-line overrides.

See ``systemd/table.toml.example`` for every key. A bad file is a clear error naming
the file and the key (:class:`ConfigError`); nothing starts with a configuration that
does not validate (docs/requirements.md R3).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.game.auth import parse_pin_hash
from controller.game.engine import MAX_SEATS
from controller.game.events import DEFAULT_DIALECT
from controller.game.rules import RuleProfile, RuleProfileError, load_profile

DEAL_PATTERNS = ("round_robin", "by_hand")
LANGUAGES = ("en", "fr", "uk")
LOG_LEVELS = ("debug", "info", "warning", "error")
DEMO_SHOE = "sim://?dialect=native"
"""The demo's shoe: simulated, in the process, dealing when autoplay pulls a card."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Everything ``threecard run`` needs.

    Attributes:
        source: the file it came from (or ``<defaults>``).
        table_id: the table's name on screens and in the journal.
        seats: number of seats, 1 to 7 (:data:`controller.game.engine.MAX_SEATS`).
        rules: profile name or path; ``profile`` is the loaded profile.
        deal_pattern: ``round_robin`` or ``by_hand``.
        burn_cards: cards burnt before each deal.
        exposed_card: policy for an accidentally exposed card: ``burn`` or ``void``.
        chip_values: chip denominations for the dealer screen, minor units.
        shoe_url: the shoe's URL (``serial://...``, ``usb://...``, ``socket://...``, ``sim://``).
        dialect: the shoe's dialect when the URL names none; checked against the
            dialect registry (``drivers.dialects``) by the daemon, which wires drivers in.
        silent_after_ms: no line for this long on a native link = silent.
        journal_path: SQLite journal file (``:memory:`` only for tests).
        dealer_screen / player_screen: which screens to open.
        language: ``en``, ``fr`` or ``uk``.
        fullscreen: open windows full screen.
        dealer_output / player_output: display indexes.
        headless: no window at all (SDL dummy driver).
        roles: role -> PIN hash; ``lockout_after`` and ``lockout_seconds``.
        log_level: ``debug`` ... ``error``.
        given: the fields the file or a flag set; the others are defaults.
    """

    source: str = "<defaults>"
    table_id: str = "TABLE-1"
    seats: int = 7
    rules: str = "live"
    profile: RuleProfile | None = None
    deal_pattern: str = "round_robin"
    burn_cards: int = 0
    exposed_card: str = "burn"
    chip_values: tuple[int, ...] = (100, 500, 2500, 10000)
    shoe_url: str = "serial:///dev/card-shoe"
    dialect: str = DEFAULT_DIALECT
    silent_after_ms: int = 3000
    journal_path: str = "journal.sqlite3"
    dealer_screen: bool = True
    player_screen: bool = True
    language: str = "en"
    fullscreen: bool = False
    dealer_output: int = 0
    player_output: int = 1
    headless: bool = False
    roles: dict[str, str] = field(default_factory=dict)
    lockout_after: int = 5
    lockout_seconds: int = 300
    log_level: str = "info"
    given: frozenset[str] = frozenset()


_SCHEMA: dict[str, dict[str, tuple[str, type | tuple[type, ...]]]] = {
    "table": {"id": ("table_id", str), "seats": ("seats", int), "rules": ("rules", str),
              "deal_pattern": ("deal_pattern", str), "burn_cards": ("burn_cards", int),
              "exposed_card": ("exposed_card", str), "chip_values": ("chip_values", list)},
    "shoe": {"url": ("shoe_url", str), "dialect": ("dialect", str),
             "silent_after_ms": ("silent_after_ms", int)},
    "journal": {"path": ("journal_path", str)},
    "display": {"dealer": ("dealer_screen", bool), "player": ("player_screen", bool),
                "language": ("language", str), "fullscreen": ("fullscreen", bool),
                "dealer_output": ("dealer_output", int), "player_output": ("player_output", int),
                "headless": ("headless", bool)},
    "roles": {"supervisor": ("supervisor", str), "technician": ("technician", str),
              "dealer": ("dealer", str), "lockout_after": ("lockout_after", int),
              "lockout_seconds": ("lockout_seconds", int)},
    "log": {"level": ("log_level", str)},
}


def _check(cfg: TableConfig) -> TableConfig:
    """Validate values and load the rule profile; raise ConfigError naming the key."""
    src = cfg.source

    def bad(key: str, msg: str) -> ConfigError:
        return ConfigError(f"{src}: {key}: {msg}")

    if not cfg.table_id.strip():
        raise bad("table.id", "must not be empty")
    if not 1 <= cfg.seats <= MAX_SEATS:
        raise bad("table.seats", f"must be 1 to {MAX_SEATS}, got {cfg.seats}")
    if cfg.deal_pattern not in DEAL_PATTERNS:
        raise bad("table.deal_pattern", f"must be one of {', '.join(DEAL_PATTERNS)}, "
                  f"got {cfg.deal_pattern!r}")
    if not 0 <= cfg.burn_cards <= 5:
        raise bad("table.burn_cards", f"must be 0 to 5, got {cfg.burn_cards}")
    if cfg.exposed_card not in ("burn", "void"):
        raise bad("table.exposed_card", f"must be 'burn' or 'void', got {cfg.exposed_card!r}")
    if not cfg.chip_values or any(not isinstance(v, int) or isinstance(v, bool) or v <= 0
                                  for v in cfg.chip_values):
        raise bad("table.chip_values", "must be a list of positive whole minor-unit amounts")
    if not cfg.shoe_url.strip():
        raise bad("shoe.url", "must not be empty")
    if cfg.silent_after_ms < 100:
        raise bad("shoe.silent_after_ms", f"must be at least 100, got {cfg.silent_after_ms}")
    if cfg.language not in LANGUAGES:
        raise bad("display.language", f"must be one of {', '.join(LANGUAGES)}, "
                  f"got {cfg.language!r}")
    if cfg.log_level not in LOG_LEVELS:
        raise bad("log.level", f"must be one of {', '.join(LOG_LEVELS)}, got {cfg.log_level!r}")
    if cfg.lockout_after < 1 or cfg.lockout_seconds < 0:
        raise bad("roles.lockout_after", "must be at least 1 (lockout_seconds at least 0)")
    for role, digest in cfg.roles.items():
        try:
            parse_pin_hash(digest)
        except ValueError as exc:
            raise bad(f"roles.{role}", f"must be a PIN hash from `threecard hash-pin` "
                      f"(scrypt$...), never a PIN: {exc}") from None
    for key in ("dealer_output", "player_output"):
        if getattr(cfg, key) < 0:
            raise bad(f"display.{key}", f"must be 0 or more (outputs are numbered from 0), "
                      f"got {getattr(cfg, key)}")
    if not cfg.journal_path:
        raise bad("journal.path", "must not be empty")
    try:
        profile = load_profile(cfg.rules)
    except RuleProfileError as exc:
        raise bad("table.rules", str(exc)) from None
    return replace(cfg, profile=profile, chip_values=tuple(cfg.chip_values))


def load_config(path: str | Path | None, **overrides: Any) -> TableConfig:
    """Load and validate a configuration file, then apply command-line overrides.

    Args:
        path: the TOML file, or None for the built-in defaults.
        **overrides: TableConfig field -> value for every flag given on the command line
            (None values are ignored).

    Returns:
        The validated configuration, its rule profile loaded.

    Raises:
        ConfigError: the file is missing, not TOML, has an unknown key or a bad value.
    """
    values: dict[str, Any] = {}
    source = "<defaults>"
    if path is not None:
        source = str(path)
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{source}: no such configuration file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{source}: cannot read: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{source}: not valid TOML: {exc}") from None
        roles: dict[str, str] = {}
        for section, body in data.items():
            if section not in _SCHEMA:
                raise ConfigError(f"{source}: {section}: unknown section (known: "
                                  + ", ".join(_SCHEMA) + ")")
            if not isinstance(body, dict):
                raise ConfigError(f"{source}: {section}: must be a [{section}] table")
            for key, value in body.items():
                if key not in _SCHEMA[section]:
                    raise ConfigError(f"{source}: {section}.{key}: unknown key (known: "
                                      + ", ".join(_SCHEMA[section]) + ")")
                attr, kind = _SCHEMA[section][key]
                if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                    raise ConfigError(f"{source}: {section}.{key}: must be "
                                      f"{kind.__name__}, got {value!r}")
                if section == "roles" and attr in ("supervisor", "technician", "dealer"):
                    roles[attr] = value
                else:
                    values[attr] = value
        values["roles"] = roles
    values.update({k: v for k, v in overrides.items() if v is not None})
    if "chip_values" in values:
        values["chip_values"] = tuple(values["chip_values"])
    return _check(TableConfig(source=source, given=frozenset(values), **values))
