"""Rule profiles: paytables, qualifier, table limits and house options, from TOML.

``live`` and ``classic`` ship (docs/rules.md "Rule profiles"); any other house's rules are a
TOML file of the same shape, loaded from its path. Pays are "X to 1" on the stake, limits
minor units, within the bounds of :mod:`controller.game.config`.
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from controller.game.bet_types import ANTE, ANTE_BONUS, GROUPS, PAIR_PLUS, SIX_CARD_BONUS
from controller.game.bet_types import PAY_ORDER as PAY_ORDER
from controller.game.config import MAX_PROFILE_BYTES, amount_problem, multiple_problem
from controller.game.hands import HandClass, Qualifier, SixCardClass
from controller.game.inputs import BET_NAMES

ANTE_BONUS_CLASSES = ("straight_flush", "three_of_a_kind", "straight")
PAIR_PLUS_CLASSES = ("straight_flush", "three_of_a_kind", "straight", "flush", "pair")
PAIR_PLUS_OPTIONAL = ("mini_royal",)
SIX_CARD_CLASSES = ("royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
                    "straight", "three_of_a_kind")
SIX_CARD_OPTIONAL = ("two_pair", "pair")
ANTE_BONUS_OPTIONAL = ("flush", "pair")

_TOP_KEYS = {"name", "description", "dealer_qualifier", "pair_plus_requires_ante",
             "six_card_bonus_requires_ante", "fold_loses_side_bets", "player_cards",
             ANTE_BONUS, PAIR_PLUS, SIX_CARD_BONUS, "limits", "published_rtp"}
SHIPPED = ("live", "classic")


class RuleProfileError(ValueError):
    """A rule profile file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class Limit:
    """Table limits of one bet type, in minor units (``min`` <= stake <= ``max``)."""

    min: int
    max: int


@dataclass(frozen=True, slots=True)
class RuleProfile:
    """One house's rules: paytables are "X to 1" by hand key, limits minor units.

    ``six_card_bonus`` is empty when the bet is not offered; ``limits`` has no ``play`` (it
    follows the Ante). ``published_rtp``: bet -> the return the house publishes, in basis
    points (9663 = 96.63 %); the self-check refuses paytables whose exact return differs.
    """

    name: str
    description: str
    source: str
    qualifier: Qualifier
    ante_bonus: MappingProxyType
    pair_plus: MappingProxyType
    six_card_bonus: MappingProxyType
    pair_plus_requires_ante: bool
    six_card_bonus_requires_ante: bool
    fold_loses_side_bets: bool
    player_cards_face_up: bool
    limits: MappingProxyType
    published_rtp: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def offers_six_card_bonus(self) -> bool:
        """True when the profile has a 6 Card Bonus paytable."""
        return bool(self.six_card_bonus)

    def offers(self, bet: str) -> bool:
        """True when a seat may hold ``bet`` (one of :data:`bet_types.HELD`) under these rules."""
        return bet != SIX_CARD_BONUS or self.offers_six_card_bonus

    def paid_line(self, bet: str, hand: str, mini_royal: bool = False) -> str:
        """The ``bet`` paytable line a 3-card hand is on: its key, or ``mini_royal`` if named."""
        return "mini_royal" if (bet == PAIR_PLUS and mini_royal
                                and "mini_royal" in self.pair_plus) else hand

    def pair_plus_pay(self, hand_class: HandClass, mini_royal: bool) -> int:
        """Pair Plus "X to 1" for a hand (0: none); an unnamed mini royal is a straight flush."""
        return self.pair_plus.get(self.paid_line(PAIR_PLUS, hand_class.key, mini_royal), 0)

    def ante_bonus_pay(self, hand_class: HandClass) -> int:
        """Ante Bonus "X to 1" for the player's hand, 0 when it does not pay."""
        return self.ante_bonus.get(hand_class.key, 0)

    def six_card_pay(self, six_class: SixCardClass) -> int:
        """6 Card Bonus "X to 1" for the best five of six, 0 when it does not pay."""
        return self.six_card_bonus.get(six_class.key, 0)


def _err(source: str, key: str, message: str) -> RuleProfileError:
    return RuleProfileError(f"{source}: {key}: {message}")


def _paytable(data: dict[str, Any], key: str, required: tuple[str, ...],
              optional: tuple[str, ...], source: str) -> MappingProxyType:
    table = data.get(key)
    if not isinstance(table, dict):
        raise _err(source, key, "a paytable table such as [" + key + "] is required")
    for cls in table:
        if cls not in required and cls not in optional:
            raise _err(source, f"{key}.{cls}", "unknown hand class (known: "
                       + ", ".join(required + optional) + ")")
    for cls in required:
        if cls not in table:
            raise _err(source, f"{key}.{cls}", "missing hand class (use 0 if it does not pay)")
    for cls, pay in table.items():
        problem = multiple_problem(pay)
        if problem:
            raise _err(source, f"{key}.{cls}", problem)
    return MappingProxyType({k: v for k, v in table.items() if v > 0})


def _bool(data: dict[str, Any], key: str, default: bool, source: str) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise _err(source, key, f"must be true or false, got {value!r}")
    return value


def _limits(data: dict[str, Any], six: MappingProxyType, source: str) -> MappingProxyType:
    """The ``[limits.<bet>]`` tables: bet -> :class:`Limit`; the Ante's are required."""
    limits_data = data.get("limits", {})
    if not isinstance(limits_data, dict):
        raise _err(source, "limits", "must be a table of [limits.<bet>]")
    limits: dict[str, Limit] = {}
    for bet, lim in limits_data.items():
        key = f"limits.{bet}"
        if bet not in BET_NAMES:
            raise _err(source, key, "unknown bet (known: " + ", ".join(BET_NAMES) + ")")
        if bet == SIX_CARD_BONUS and not six:
            raise _err(source, key, "limits for a bet the profile does not offer")
        if not isinstance(lim, dict) or set(lim) != {"min", "max"}:
            raise _err(source, key, "must have exactly 'min' and 'max' (minor units)")
        lo, hi = lim["min"], lim["max"]
        for k, v in (("min", lo), ("max", hi)):
            problem = amount_problem(v)
            if problem:
                raise _err(source, f"{key}.{k}", problem)
        if lo > hi:
            raise _err(source, key, f"min {lo} is above max {hi}")
        limits[bet] = Limit(lo, hi)
    if ANTE not in limits:
        raise _err(source, "limits.ante", "table limits for the Ante are required")
    return MappingProxyType(limits)


def _published(data: dict[str, Any], six: MappingProxyType, source: str) -> MappingProxyType:
    """The ``[published_rtp]`` table: bet -> return to player in basis points."""
    published = data.get("published_rtp", {})
    if not isinstance(published, dict):
        raise _err(source, "published_rtp", "must be a table of bet = basis points")
    for bet, bp in published.items():
        key = f"published_rtp.{bet}"
        if bet not in GROUPS:
            raise _err(source, key, "unknown bet (known: " + ", ".join(GROUPS) + ")")
        if bet == SIX_CARD_BONUS and not six:
            raise _err(source, key, "a published return for a bet the profile does not offer")
        if not isinstance(bp, int) or isinstance(bp, bool) or not 0 < bp <= 10000:
            raise _err(source, key, f"must be basis points 1..10000 (9663 = 96.63 %), "
                       f"got {bp!r}")
    return MappingProxyType(dict(published))


def _header(data: dict[str, Any], source: str) -> tuple[str, Qualifier, bool]:
    """The profile's known keys, name, dealer qualifier and whether cards are face up."""
    for key in data:
        if key not in _TOP_KEYS:
            raise _err(source, key, "unknown key (known: " + ", ".join(sorted(_TOP_KEYS)) + ")")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise _err(source, "name", "a non-empty name is required")
    try:
        qualifier = Qualifier(str(data.get("dealer_qualifier", "Q-high")))
    except ValueError as exc:
        raise _err(source, "dealer_qualifier", str(exc)) from None
    player_cards = data.get("player_cards", "face_up")
    if player_cards not in ("face_up", "face_down"):
        raise _err(source, "player_cards",
                   f"must be 'face_up' or 'face_down', got {player_cards!r}")
    return name, qualifier, player_cards == "face_up"


def profile_from_dict(data: dict[str, Any], source: str = "<profile>") -> RuleProfile:
    """Build and validate a profile from parsed TOML; ``source`` names it in errors.

    Raises:
        RuleProfileError: an unknown key, a missing hand class, a pay not a whole 0 to
            10,000, a limit not a whole 1 to 10^9 minor units or min above max, a bad
            qualifier; naming the file and the key.
    """
    name, qualifier, face_up = _header(data, source)
    ante_bonus = _paytable(data, ANTE_BONUS, ANTE_BONUS_CLASSES, ANTE_BONUS_OPTIONAL, source)
    pair_plus = _paytable(data, PAIR_PLUS, PAIR_PLUS_CLASSES, PAIR_PLUS_OPTIONAL, source)
    six = (_paytable(data, SIX_CARD_BONUS, SIX_CARD_CLASSES, SIX_CARD_OPTIONAL, source)
           if SIX_CARD_BONUS in data else MappingProxyType({}))
    limits, published = _limits(data, six, source), _published(data, six, source)
    return RuleProfile(
        name=name,
        description=str(data.get("description", "")),
        source=source,
        qualifier=qualifier,
        ante_bonus=ante_bonus,
        pair_plus=pair_plus,
        six_card_bonus=six,
        pair_plus_requires_ante=_bool(data, "pair_plus_requires_ante", True, source),
        six_card_bonus_requires_ante=_bool(data, "six_card_bonus_requires_ante", True, source),
        fold_loses_side_bets=_bool(data, "fold_loses_side_bets", True, source),
        player_cards_face_up=face_up,
        limits=limits,
        published_rtp=published,
    )


def read_profile_file(path: str | Path) -> str:
    """A rule profile file's text (UTF-8, BOM allowed), opened non-blocking (a FIFO never waits).

    Raises:
        RuleProfileError: missing, not a regular file, over ``MAX_PROFILE_BYTES`` or not UTF-8.
    """
    source = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise RuleProfileError(f"{source}: no such rule profile (shipped: "
                               + ", ".join(SHIPPED) + ")") from None
    except (OSError, ValueError) as exc:
        raise RuleProfileError(f"{source}: cannot read: {getattr(exc, 'strerror', exc)}"
                               ) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RuleProfileError(f"{source}: not a regular file: a rule profile is a TOML "
                                   "file")
        data = b""
        while len(data) <= MAX_PROFILE_BYTES:
            chunk = os.read(fd, MAX_PROFILE_BYTES + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise RuleProfileError(f"{source}: cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_PROFILE_BYTES:
        raise RuleProfileError(f"{source}: larger than {MAX_PROFILE_BYTES} bytes: not a rule "
                               "profile")
    try:
        return data.decode("utf-8-sig")  # a BOM is allowed
    except UnicodeDecodeError as exc:
        raise RuleProfileError(f"{source}: cannot read: not UTF-8 (byte {exc.start})") from None


def profile_from_text(text: str, source: str) -> RuleProfile:
    """Build and validate a profile from its TOML text (RuleProfileError if not valid)."""
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer too long to read
        raise RuleProfileError(f"{source}: not valid TOML: {exc}") from None
    return profile_from_dict(data, source)


_PROFILES: dict[tuple[str, str], RuleProfile] = {}


def profile_for(rules: str, text: str = "") -> RuleProfile:
    """The profile ``rules`` names, from ``text`` or :func:`load_profile`, loaded once each."""
    p = _PROFILES.get((rules, text))
    if p is None:
        p = _PROFILES[(rules, text)] = (profile_from_text(text, rules) if text
                                        else load_profile(rules))
    return p


def profile_text(rules: Any) -> str:
    """The text a ``rules`` value journals beside it: its file's, or "" for a shipped profile."""
    if not isinstance(rules, str) or rules in SHIPPED:
        return ""
    return read_profile_file(rules)


def load_profile(name_or_path: str | Path) -> RuleProfile:
    """Load a shipped profile (``live``, ``classic``) or a profile file by path.

    Raises:
        RuleProfileError: the file cannot be read, is not TOML, or not a valid profile.
    """
    text_name = str(name_or_path)
    if text_name in SHIPPED:
        ref = resources.files("controller.game") / "profiles" / f"{text_name}.toml"
        return profile_from_text(ref.read_text(encoding="utf-8"),
                                 f"{text_name} (shipped profile)")
    return profile_from_text(read_profile_file(name_or_path), text_name)
