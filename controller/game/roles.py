"""The role check: who may give a command now, and the PIN lockout (docs/requirements.md R12).

The table journals, for each command, the role its PIN belongs to (``supervisor``,
``technician``), ``dealer`` when no PIN was typed, or ``dealer!`` when a PIN was typed
and matched no role; a dealer's PIN identifies the dealer (``dealer``): it is no wrong
PIN and never authorises what needs a supervisor or technician. The role a command needs
is its declaration's (:attr:`~controller.game.inputs.DealerCommand.needs`, or
``needs_when_asked`` while the table waits for a supervisor). Wrong PINs in a row lock
PIN entry for a while, measured in elapsed time
(:class:`~controller.game.auth.PinLockout`).
"""

from __future__ import annotations

from controller.game.auth import PinLockout
from controller.game.inputs import DealerCommand, Role
from controller.game.meters import Meters
from controller.game.round import Rejected

WRONG_PIN = "dealer!"
"""The actor of a command whose PIN matched no role."""
_RANK = {r.value: r.rank for r in Role}


class Roles:
    """The role check and the PIN lockout of one table.

    Attributes:
        lockout: wrong PINs in a row and the lockout they lead to, timed on the
            journal's monotonic clock (:class:`~controller.game.auth.PinLockout`).
    """

    def __init__(self, lockout: PinLockout | None = None) -> None:
        self.lockout = lockout if lockout is not None else PinLockout()

    def check_pin(self, actor: str, mono_ns: int, utc: str, lockout_after: int,
                  lockout_seconds: int, meters: Meters) -> None:
        """Refuse a command while PIN entry is locked, or when its PIN matched no role.

        A dealer's PIN (actor ``dealer``) is no wrong PIN and is not locked out: it
        identifies the dealer, whose commands need no PIN. A wrong PIN counts towards
        the lockout (``lockout_after`` in a row lock PIN entry for ``lockout_seconds``
        of elapsed time).

        Args:
            actor: the role the command's PIN belongs to, ``dealer``, or ``dealer!``.
            mono_ns: the record's monotonic time, nanoseconds.
            utc: its wall-clock time (lockouts of journals written before).
            lockout_after: wrong PINs in a row that lock PIN entry.
            lockout_seconds: how long it stays locked.
            meters: where wrong PINs and lockouts are counted.

        Raises:
            Rejected: PIN entry is locked, or the PIN matched no role.
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
        """Refuse ``command`` when ``actor`` lacks the role it needs.

        Args:
            command: the command's declaration.
            actor: the role its PIN belongs to, or ``dealer``.
            asked: the table waits for a supervisor (``needs_when_asked`` applies).
            meters: where an authorised override is counted.
        """
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
