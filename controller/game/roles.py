"""The role check: who may give a command now, and the PIN lockout (docs/requirements.md R12).

The table journals, for each command, the role its PIN belongs to (``supervisor``,
``technician``), ``dealer`` when no PIN was typed, or ``dealer!`` when a PIN was typed
and matched no role. The role a command needs is its declaration's
(:attr:`~controller.game.inputs.DealerCommand.needs`, or ``needs_when_asked`` while the
table waits for a supervisor). Wrong PINs in a row lock PIN entry for a while.
"""

from __future__ import annotations

from controller.game.inputs import DealerCommand, Role
from controller.game.meters import Meters
from controller.game.round import Rejected

WRONG_PIN = "dealer!"
"""The actor of a command whose PIN matched no role."""
_RANK = {r.value: r.rank for r in Role}


class Roles:
    """The role check and the PIN lockout of one table.

    Attributes:
        failures: wrong PINs in a row.
        locked_until: PIN entry is locked until this time (UTC epoch seconds).
    """

    def __init__(self, failures: int = 0, locked_until: float = 0.0) -> None:
        self.failures = failures
        self.locked_until = locked_until

    def check_pin(self, actor: str, now: float, max_failures: int, lockout_seconds: int,
                  meters: Meters) -> None:
        """Refuse a command while PIN entry is locked, or when its PIN matched no role.

        A wrong PIN counts towards the lockout (``max_failures`` in a row lock PIN entry
        for ``lockout_seconds``).
        """
        if actor != WRONG_PIN and _RANK.get(actor, 0) == 0:
            return
        if now < self.locked_until:
            raise Rejected("PIN entry is locked after repeated wrong PINs; try later")
        if actor == WRONG_PIN:
            self.failures += 1
            meters.count("pin_failures")
            if self.failures >= max_failures:
                self.locked_until = now + lockout_seconds
                self.failures = 0
                meters.count("pin_lockouts")
            raise Rejected("wrong PIN")

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
            what = ("a technician" if needed is Role.TECHNICIAN
                    else "a supervisor or technician")
            raise Rejected(f"{command.name} needs {what} PIN")
        if rank > 0:
            self.failures = 0
            if needed.rank > 0:
                meters.count("overrides")
