"""``threecard hash-pin``: turn a PIN into the salted hash ``[roles]`` stores; the PIN never is.

Read without echo on a terminal (asked twice), or as one line on stdin.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from controller.game.auth import hash_pin
from controller.game.config import PIN_MAX_DIGITS, PIN_MIN_DIGITS, pin_problem


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``hash-pin`` takes no options: its help says what it asks."""
    parser.description = (
        f"{parser.description}. On a terminal it asks for the PIN twice, without echo "
        "(the two must match); else it reads the PIN as one line on stdin. The PIN is "
        f"{PIN_MIN_DIGITS} to {PIN_MAX_DIGITS} digits; the line printed (scrypt$...) goes "
        "into [roles] of the table's configuration, e.g. supervisor = \"scrypt$...\". The "
        "PIN itself is stored nowhere.")


def run(args: argparse.Namespace) -> int:
    """Read a PIN, print its hash; 1 when it is not 4 to 12 digits or the two entries differ."""
    if sys.stdin.isatty():
        pin = getpass.getpass("PIN: ")
        if getpass.getpass("PIN again: ") != pin:
            print("threecard hash-pin: the two PINs differ", file=sys.stderr)
            return 1
    else:
        pin = sys.stdin.readline().strip()
    if pin_problem(pin):
        print(f"threecard hash-pin: {pin_problem(pin)}", file=sys.stderr)
        return 1
    print(hash_pin(pin))
    return 0
