"""Roles and PINs (docs/requirements.md R12): a PIN is kept only as a salted scrypt hash.

Right answers are remembered under a salted digest so a repeated PIN skips scrypt.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from controller.game.config import (
    ROLES,
    SCRYPT_MAX_WORK,
    SCRYPT_N,
    SCRYPT_P,
    SCRYPT_R,
    pin_problem,
)

PRIVILEGED = frozenset({"supervisor", "technician"})

# DEMO ONLY. Never use these on a live table.
DEMO_PINS: dict[str, str] = {"supervisor": "2468", "technician": "1357"}

_N, _R, _P = 2**14, 8, 1


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """Hash a 4-12 digit PIN (else ValueError) with scrypt: ``scrypt$n$r$p$salt$hash`` (hex)."""
    problem = pin_problem(pin)
    if problem:
        raise ValueError(problem)
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def parse_pin_hash(stored: str) -> tuple[int, int, int, bytes, bytes]:
    """Split a PIN hash into ``(n, r, p, salt, digest)`` within bounds (ValueError says which)."""
    parts = stored.split("$") if isinstance(stored, str) else []
    if len(parts) != 6 or parts[0] != "scrypt":
        raise ValueError("expected scrypt$n$r$p$salt$hash")
    try:
        n, r, p = (int(x) for x in parts[1:4])
    except ValueError:
        raise ValueError("n, r and p must be whole numbers") from None
    if (n & (n - 1) or not SCRYPT_N[0] <= n <= SCRYPT_N[1] or not SCRYPT_R[0] <= r <= SCRYPT_R[1]
            or not SCRYPT_P[0] <= p <= SCRYPT_P[1] or n * r * p > SCRYPT_MAX_WORK):
        raise ValueError(f"scrypt parameters n={n} r={r} p={p} cannot be used (n a power of "
                         f"two {SCRYPT_N[0]} to {SCRYPT_N[1]}, r {SCRYPT_R[0]} to {SCRYPT_R[1]}, "
                         f"p {SCRYPT_P[0]} to {SCRYPT_P[1]}, n*r*p at most {SCRYPT_MAX_WORK})")
    try:
        salt, digest = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        raise ValueError("salt and hash must be hexadecimal") from None
    if len(salt) < 8 or len(digest) != 32:
        raise ValueError("salt must be at least 8 bytes and the hash 32 bytes")
    return n, r, p, salt, digest


def verify_pin(pin: str, stored: str) -> bool:
    """True when ``pin`` matches the stored hash (constant-time comparison)."""
    try:
        n, r, p, salt, digest = parse_pin_hash(stored)
        got = hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, dklen=32)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, digest)


# DEMO ONLY: DEMO_PINS hashed with demo_pin_salt's salts, written out so that a demo starts
# without paying scrypt (the tests hash them again).
_DEMO_HASHES: dict[str, str] = {
    "supervisor": "scrypt$16384$8$1$2d03eb454767ba244cf4c2c61fa06733$"
                  "87b66d3bd0ef6bdb0ee6e127d6c45d3910808a00f04bd455fdff47686b208ae5",
    "technician": "scrypt$16384$8$1$cf3b4ca84052940705aeeb7e5dfffd19$"
                  "ebc8988c301c0c8d293ea05da343d1e249ade41c1b3358345f450c53f1297cfb",
}


def demo_pin_salt(role: str) -> bytes:
    """The fixed salt of a demo role's PIN hash (stable between runs). DEMO ONLY."""
    return hashlib.sha256(b"demo-" + role.encode()).digest()[:16]


def demo_pin_hashes() -> dict[str, str]:
    """Hashes of :data:`DEMO_PINS` with fixed salts. DEMO ONLY."""
    return dict(_DEMO_HASHES)


class PinChecker:
    """Finds the role a typed PIN belongs to, remembering answers under an HMAC, never the PIN."""

    _KEY = os.urandom(16)
    _SHARED: dict[tuple[bytes, str], str] = {}

    def __init__(self, shared: bool = True) -> None:
        """Create a checker; ``shared`` uses the process-wide memory of answers."""
        self._key = self._KEY if shared else os.urandom(16)
        self._ok: dict[tuple[bytes, str], str] = self._SHARED if shared else {}

    def roles_for(self, pin: str, hashes: dict[str, str]) -> tuple[str, ...]:
        """Every role whose hash matches ``pin``, highest first (none: a wrong PIN).

        A dealer PIN never authorises a privileged action; several roles: one PIN set twice.
        """
        tag = hmac.new(self._key, pin.encode(), "sha256").digest()
        found = []
        for role in reversed(ROLES):
            stored = hashes.get(role)
            if not stored:
                continue
            known = self._ok.get((tag, stored))
            if known is None:
                if len(self._ok) > 1024:
                    self._ok.clear()
                known = self._ok[(tag, stored)] = role if verify_pin(pin, stored) else ""
            if known:
                found.append(known)
        return tuple(found)


def _epoch(utc: str) -> float:
    try:
        return datetime.fromisoformat(utc).timestamp()
    except (TypeError, ValueError):
        return 0.0


@dataclass(slots=True)
class PinLockout:
    """Wrong PINs in a row, and the PIN entry lockout they lead to (R12).

    Timed on the records' monotonic clock (``mono_ns``), so an NTP step never moves it. After a
    power-up at ``m`` it ends at ``min(until, m + period)``. Configuration version 1 journals
    timed it on the wall clock (``wall_until``); they replay as written.
    """

    failures: int = 0
    until_ns: int | None = None
    period_ns: int = 0
    clock: str = "monotonic"
    wall_until: float = 0.0

    def locked(self, mono_ns: int, utc: str) -> bool:
        """True while PIN entry is locked at this record's times."""
        if self.clock == "utc":
            return _epoch(utc) < self.wall_until
        return self.until_ns is not None and mono_ns < self.until_ns

    def ms_left(self, mono_ns: int, utc: str) -> int:
        """Milliseconds the lockout still runs, rounded up (0: none); screens count down from it."""
        if self.clock == "utc":
            left = self.wall_until - _epoch(utc)
            return max(0, int(-(-left * 1000 // 1)))
        if self.until_ns is None or mono_ns >= self.until_ns:
            return 0
        return -(-(self.until_ns - mono_ns) // 1_000_000)

    def observe(self, mono_ns: int) -> None:
        """See a record's monotonic time: a lockout it is past is over."""
        if self.until_ns is not None and mono_ns >= self.until_ns:
            self.until_ns = None

    def wrong_pin(self, mono_ns: int, utc: str, after: int, seconds: int) -> bool:
        """Count a wrong PIN; True if it is the ``after``-th in a row and locks for ``seconds``."""
        self.failures += 1
        if self.failures < after:
            return False
        self.failures = 0
        if self.clock == "utc":
            self.wall_until = _epoch(utc) + seconds
        else:
            self.period_ns = seconds * 1_000_000_000
            self.until_ns = mono_ns + self.period_ns
        return True

    def right_pin(self) -> None:
        """A supervisor's or technician's PIN: the wrong ones in a row start again."""
        self.failures = 0

    def power_up(self, mono_ns: int, utc: str, monotonic: bool, seconds: int) -> None:
        """Apply the power-up rule at a ``startup`` record.

        ``monotonic``: the record times lockouts on the monotonic clock (configuration 2+);
        ``seconds``: the period now configured.
        """
        if not monotonic:
            self.clock = "utc"
            return
        if self.clock == "utc":
            left = min(self.wall_until - _epoch(utc), seconds)
            self.clock, self.wall_until = "monotonic", 0.0
            self.until_ns = mono_ns + round(left * 1e9) if left > 0 else None
            self.period_ns = seconds * 1_000_000_000
            return
        self.observe(mono_ns)
        if self.until_ns is not None:
            self.until_ns = min(self.until_ns, mono_ns + self.period_ns)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (journal snapshots)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PinLockout:
        """Inverse of :meth:`to_dict`."""
        return cls(**d)

    @classmethod
    def before(cls, failures: int, locked_until: float) -> PinLockout:
        """The lockout of a state saved before (``pin_failures``, ``pin_locked_until``)."""
        return cls(failures=failures, clock="utc", wall_until=locked_until)
