"""The faults a simulated shoe can inject, by name, and what each needs of the dialect."""

from __future__ import annotations

from controller.game.events import Cut, Empty, Hello, Lid, Retract, ShoeEvent

FAULTS: dict[str, str] = {
    "split": "next frame written in pieces (pieces=N, default 3; or at=[offsets])",
    "coalesce": "next frames written in one write (count=N, default 3)",
    "noise": "noise and non-ASCII bytes now, between frames (data=bytes to send)",
    "lone_cr": "a lone CR now",
    "lone_lf": "a lone LF now",
    "bad_crc": "next line with a wrong CRC (native; resend=True sends it again, right)",
    "seq_skip": "skip seq numbers before the next line (count=N, default 1) (native)",
    "seq_repeat": "next line sent twice, same seq (native)",
    "seq_reorder": "next two lines sent in swapped order (native)",
    "seq_reuse": "next line sent with the seq of a line already sent (back=N lines, default "
                 "1), the seq going on as before after it (native)",
    "misread": "a card leaves the shoe unidentified (uses the next card); in burn mode "
               "(burn=True, or a pending burn) an unreadable burn",
    "alarm": "a device alarm (code=, text=)",
    "warning": "a device warning (code=)",
    "retract": "the last card dealt is pushed back in; it will be dealt again (native)",
    "unknown_card": "a card whose code is not one of the 52 (code=, default XX)",
    "duplicate_card": "a card already out of this deck is read again (card=, default the last)",
    "burn": "the next cards, misreads included, are read in burn mode (count=N, default 1)",
    "cut": "the cut card is reached (native)",
    "empty": "the shoe reports it is empty (native)",
    "lid_open": "the lid opens mid-pack (native)",
    "lid_close": "the lid closes (native)",
    "silence": "heartbeats and PING answers stop while the port stays open",
    "resume": "heartbeats and PING answers resume",
    "unplug": "the cable is pulled mid-frame during the next line (at=byte offset); now=True "
              "pulls it at once",
    "replug": "the shoe comes back on a port under another name",
    "busy": "opening the port fails as busy (busy=False undoes)",
    "permission_denied": "opening the port fails with permission denied (denied=False undoes)",
    "restart": "the shoe restarts mid-round: HELLO with seq 0 (native; lost_hello=True "
               "sends that HELLO with a wrong CRC)",
    "stall": "the dealer stalls: no card for a while (seconds=, default 30; runner only)",
}

NUMBERED = "numbered"
# Faults not every dialect can express: NUMBERED needs lines with seq and CRC; an event
# type needs a dialect that can say it (beetek: no seq, hello, retract, lid, cut, empty).
FAULT_NEEDS: dict[str, type[ShoeEvent] | str] = {
    "bad_crc": NUMBERED, "seq_skip": NUMBERED, "seq_repeat": NUMBERED, "seq_reorder": NUMBERED,
    "seq_reuse": NUMBERED,
    "retract": Retract, "cut": Cut, "empty": Empty, "lid_open": Lid, "lid_close": Lid,
    "restart": Hello,
}


class FaultNotSupported(ValueError):
    """The fault cannot be expressed in the shoe's dialect, or is unknown."""


def fault_name(name: str) -> str:
    """The fault's name in :data:`FAULTS` (``-`` and ``_`` alike); FaultNotSupported if none."""
    name = name.replace("-", "_")
    if name not in FAULTS:
        raise FaultNotSupported(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
    return name
