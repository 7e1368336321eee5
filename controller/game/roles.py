"""The role check: who may give a command now, and the PIN lockout (docs/requirements.md R12).

The journal keeps each command's role: its PIN's, ``dealer`` with none, ``dealer!`` for a
PIN that matched no role. A dealer's PIN authorises nothing privileged.
"""

from __future__ import annotations

from controller.game.auth import PinLockout
from controller.game.inputs import DealerCommand, Role
from controller.game.meters import Meters
from controller.game.round import Rejected

WRONG_PIN = "dealer!"
_RANK = {r.value: r.rank for r in Role}


class Roles:
    """The role check and the PIN lockout of one table."""

    def __init__(self, lockout: PinLockout | None = None) -> None:
        self.lockout = lockout if lockout is not None else PinLockout()

    def check_pin(self, actor: str, mono_ns: int, utc: str, lockout_after: int,
                  lockout_seconds: int, meters: Meters) -> None:
        """Refuse (Rejected) a command while PIN entry is locked, or if its PIN matched no role.

        ``lockout_after`` wrong PINs in a row lock entry for ``lockout_seconds`` (``mono_ns``).
        """
        if actor != WRONG_PIN and _RANK.get(actor, 0) == 0:
            return
        if self.lockout.locked(mono_ns, utc):
            raise Rejected("pin_locked")
        if actor == WRONG_PIN:
            meters.count("pin_failures")
            if self.lockout.wrong_pin(mono_ns, utc, lockout_after, lockout_seconds):
                meters.count("pin_lockouts")
            raise Rejected("wrong_pin")

    def check_role(self, command: type[DealerCommand], actor: str, asked: bool,
                   meters: Meters) -> None:
        """Refuse ``command`` when ``actor`` lacks its role (``asked``: a supervisor is awaited)."""
        needed = command.needs
        if asked and command.needs_when_asked is not None:
            needed = max(needed, command.needs_when_asked, key=lambda r: r.rank)
        rank = _RANK.get(actor, 0)
        if rank < needed.rank:
            raise Rejected("needs_technician" if needed is Role.TECHNICIAN
                           else "needs_supervisor", command=command.name)
        if rank > 0:
            self.lockout.right_pin()
            if needed.rank > 0:
                meters.count("overrides")
