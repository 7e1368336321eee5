"""``threecard keygen``: the table's Ed25519 signing key for dispute bundles.

``table.key`` (PEM, PKCS #8, mode 0600) is never overwritten, or what it signed could not be
told from forgeries. The fingerprint is the SHA-256 of the 32 raw public bytes;
``cryptography`` is imported only when a key is made or used.
"""

from __future__ import annotations

import argparse
import hashlib
import stat
import sys
from pathlib import Path
from typing import Any

from controller.game.files import write_new_file
from controller.game.verifier_support import one_line
from controller.journal.seal import signature_ok as signature_ok  # the bundles' check

KEY_SUFFIX = ".key"
PUBLIC_SUFFIX = ".pub"


class SigningKeyError(ValueError):
    """A key that cannot be made, read or trusted; the message says which file and why."""


def key_path(config: str | Path) -> Path:
    """The private key beside a configuration file (``table.toml`` -> ``table.key``)."""
    return Path(config).with_suffix(KEY_SUFFIX)


def public_path(config: str | Path) -> Path:
    """The public key beside a configuration file (``table.toml`` -> ``table.pub``)."""
    return Path(config).with_suffix(PUBLIC_SUFFIX)


def raw_public(key: Any) -> bytes:
    """The 32 raw bytes of an Ed25519 public key (or of a private key's public half)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = key.public_key() if hasattr(key, "public_key") else key
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def fingerprint(public: bytes) -> str:
    """A public key's fingerprint: the SHA-256 of its raw bytes, hexadecimal."""
    return hashlib.sha256(public).hexdigest()


def make_key(config: str | Path) -> tuple[Path, Path, str]:
    """Make the key pair beside ``config``, each file whole or not: (private, public, fingerprint).

    Raises:
        SigningKeyError: no configuration file, a key already there, or unwritable files.
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        PublicFormat,
    )

    config = Path(config)
    if not config.is_file():
        raise SigningKeyError(f"{config}: no such configuration file (the key is kept beside it)")
    private, public = key_path(config), public_path(config)
    for path, what in ((private, "a key"), (public, "a public key")):
        if path.exists() or path.is_symlink():
            raise SigningKeyError(f"{path}: {what} is already there; it is never overwritten "
                                  "(move it away first if it must be replaced)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    pub = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    made: list[Path] = []
    try:
        for path, data, mode in ((private, pem, 0o600), (public, pub, 0o644)):
            write_new_file(path, data, mode, replace=False)  # whole or not at all
            made.append(path)
    except FileExistsError as exc:
        _remove(made)
        raise SigningKeyError(f"{exc.filename}: a key is already there; it is never "
                              "overwritten (move it away first if it must be replaced)"
                              ) from None
    except OSError as exc:
        _remove(made)
        raise SigningKeyError(f"{config.parent}: cannot write the key files: "
                              f"{exc.strerror or exc}; nothing was written") from None
    return private, public, fingerprint(raw_public(key))


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def load_private(path: str | Path) -> Any:
    """The table's private key; a public key given in its place is named as such.

    Raises:
        SigningKeyError: missing, unreadable, a public key, readable by others than its owner
            (mode 0600 or stricter), or not an Ed25519 private key in PEM.
    """
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        load_pem_private_key,
        load_pem_public_key,
    )

    path = Path(path)
    try:
        mode = path.stat().st_mode
        data = path.read_bytes()
    except FileNotFoundError:
        raise SigningKeyError(f"{path}: no key here; make one with `threecard keygen --config "
                        "<the table's configuration>`") from None
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot read the key: {exc.strerror}") from None
    try:
        load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        pass  # not a public key: the private key's checks follow
    else:
        raise SigningKeyError(f"{path}: a public key; signing needs the private key "
                              f"({KEY_SUFFIX}, beside the configuration, made by `threecard "
                              "keygen`)")
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SigningKeyError(f"{path}: others may read this key (mode {stat.S_IMODE(mode):04o}); "
                        "chmod 600 it")
    try:
        key = load_pem_private_key(data, password=None)
    except UnsupportedAlgorithm as exc:
        raise SigningKeyError(f"{path}: not an Ed25519 key ({one_line(exc)})") from None
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path}: not a private key in PEM: {one_line(exc)}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path}: not an Ed25519 key")
    return key


def load_public(path: str | Path) -> bytes:
    """A public key file's 32 raw bytes (SigningKeyError: missing, unreadable, not Ed25519 PEM)."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(Path(path).read_bytes())
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot read the public key: {exc.strerror}") from None
    except UnsupportedAlgorithm as exc:  # a key type or curve this library does not know
        raise SigningKeyError(f"{path}: not an Ed25519 public key ({one_line(exc)})"
                              ) from None
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path}: not a public key in PEM: {one_line(exc)}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError(f"{path}: not an Ed25519 public key")
    return raw_public(key)


def sign(key: Any, data: bytes) -> bytes:
    """The Ed25519 signature of ``data`` (64 bytes)."""
    return key.sign(data)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``keygen --config PATH``."""
    parser.add_argument("--config", required=True,
                        help="the table's configuration file: the key is written beside it "
                        "(table.toml -> table.key, mode 0600, and table.pub)")


def run(args: argparse.Namespace) -> int:
    """Make the key pair and print where it is and its fingerprint; 1 when it cannot be."""
    try:
        private, public, print_ = make_key(args.config)
    except SigningKeyError as exc:
        print(f"threecard keygen: {exc}", file=sys.stderr)
        return 1
    print(f"private key {private} (mode 0600: keep it with the configuration)")
    print(f"public key  {public} (give it to whoever verifies the table's bundles)")
    print(f"fingerprint sha256 {print_}")
    return 0
