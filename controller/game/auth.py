"""Roles and PINs: dealer, supervisor, technician (docs/requirements.md R12).

PINs are never stored or journaled in clear: a PIN is kept as a salted scrypt hash
``scrypt$n$r$p$salt$hash`` (hex). The table checks a typed PIN against every role's
hash; successful checks are remembered in memory (keyed by a salted digest, never the
PIN) so a supervisor's repeated use does not pay the scrypt cost each time.

The demo PINs (:data:`DEMO_PINS`) are for the simulator and the demo ONLY: a real
installation sets its own with ``ChangePin`` or in its configuration.
"""

from __future__ import annotations

import hashlib
import hmac
import os

ROLES = ("dealer", "supervisor", "technician")
"""Roles, lowest to highest."""
PRIVILEGED = frozenset({"supervisor", "technician"})
"""Roles whose credential voids, enters manual cards, unblocks the deck, changes config."""

DEMO_PINS: dict[str, str] = {"supervisor": "2468", "technician": "1357"}
"""DEMO ONLY. Never use these on a live table."""

_N, _R, _P = 2**14, 8, 1


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    """Hash a PIN with scrypt and a random (or given) salt.

    Args:
        pin: the PIN digits.
        salt: 16 bytes; random when None.

    Returns:
        ``scrypt$n$r$p$salt_hex$hash_hex``.

    Raises:
        ValueError: the PIN is shorter than 4 characters or not digits.
    """
    if not isinstance(pin, str) or len(pin) < 4 or not pin.isdigit():
        raise ValueError("a PIN is at least 4 digits")
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


_MAX_MEM = 32 * 1024 * 1024
"""The memory hashlib.scrypt allows by default (OpenSSL's limit): 128 * r * n bytes."""


def parse_pin_hash(stored: str) -> tuple[int, int, int, bytes, bytes]:
    """Split a stored PIN hash ``scrypt$n$r$p$salt_hex$hash_hex`` into its parts.

    Args:
        stored: the hash as :func:`hash_pin` writes it.

    Returns:
        ``(n, r, p, salt, digest)``: scrypt's cost (a power of two, 2 or more), block size
        and parallelism, the salt (at least 8 bytes) and the 32-byte digest.

    Raises:
        ValueError: the text is not of that form; the message says which part is wrong.
    """
    parts = stored.split("$") if isinstance(stored, str) else []
    if len(parts) != 6 or parts[0] != "scrypt":
        raise ValueError("expected scrypt$n$r$p$salt$hash")
    try:
        n, r, p = (int(x) for x in parts[1:4])
    except ValueError:
        raise ValueError("n, r and p must be whole numbers") from None
    if n < 2 or n & (n - 1) or r < 1 or p < 1 or 128 * r * n > _MAX_MEM:
        raise ValueError(f"scrypt parameters n={n} r={r} p={p} cannot be used (n a power "
                         "of two, 128*r*n at most 32 MiB)")
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


_DEMO_HASHES: dict[str, str] = {}


def demo_pin_hashes() -> dict[str, str]:
    """Hashes of :data:`DEMO_PINS` with fixed salts (stable between runs). DEMO ONLY."""
    if not _DEMO_HASHES:
        for role, pin in DEMO_PINS.items():
            salt = hashlib.sha256(b"demo-" + role.encode()).digest()[:16]
            _DEMO_HASHES[role] = hash_pin(pin, salt)
    return dict(_DEMO_HASHES)


class PinChecker:
    """Finds the role a typed PIN belongs to, remembering each check's answer.

    The memory is keyed by an HMAC of the PIN under a per-process random key, never the
    PIN; remembering a wrong PIN's answer gives an attacker nothing (the lockout counts
    every wrong attempt all the same).
    """

    _KEY = os.urandom(16)
    _SHARED: dict[tuple[bytes, str], str] = {}

    def __init__(self, shared: bool = True) -> None:
        """Create a checker; ``shared`` uses the process-wide memory of answers."""
        self._key = self._KEY if shared else os.urandom(16)
        self._ok: dict[tuple[bytes, str], str] = self._SHARED if shared else {}

    def role_for(self, pin: str, hashes: dict[str, str]) -> str | None:
        """The highest role whose hash matches ``pin``, or None.

        Args:
            pin: the typed PIN.
            hashes: role -> stored hash, as configured.
        """
        tag = hmac.new(self._key, pin.encode(), "sha256").digest()
        for role in ("technician", "supervisor"):
            stored = hashes.get(role)
            if not stored:
                continue
            known = self._ok.get((tag, stored))
            if known is None:
                if len(self._ok) > 1024:
                    self._ok.clear()
                known = self._ok[(tag, stored)] = role if verify_pin(pin, stored) else ""
            if known:
                return known
        return None
