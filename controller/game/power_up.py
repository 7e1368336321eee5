"""The table's power-up records: the settings, the software, the screens, the environment.

The settings, the software and the screens at power-up (the ``startup`` record); the
whole environment's identity, found once the table is READY (the ``environment``
record). Declared apart from :mod:`controller.game.inputs`, which reads these
declarations as the journal bodies of those kinds (and re-exports them). A leaf: it imports only
:mod:`msgspec`.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta, Struct


class _Record(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of the power-up record's parts: strict, as every journal body."""


MAX_NAMED_FILES = 50
"""The most altered files a start-up record names (``Software.altered`` counts them all)."""
Text = Annotated[str, Meta(max_length=512)]


class Software(_Record):
    """The running software's identity, as ``threecard identify`` finds it at power-up.

    Attributes:
        version: the package's version.
        sha256: the SHA-256 of the manifest written when the package was built; empty
            when there is none (an editable or source install).
        files: files the manifest lists.
        altered: installed files that do not match it (changed, missing or added).
        named: the first :data:`MAX_NAMED_FILES` of them, e.g. ``changed controller/cli.py``.
        problem: why the files could not be checked, or empty.
        alarm: an installed package whose files do not match its manifest, or cannot be
            checked against it (GLI-11): the table holds the deck (No more bets refused)
            until a supervisor acknowledges with Unblock deck. False for a source tree
            run in place, and in records made before the field was (they replay so).
    """

    version: Annotated[str, Meta(max_length=64)]
    sha256: Annotated[str, Meta(pattern="^([0-9a-f]{64})?$")]
    files: Annotated[int, Meta(ge=0)] = 0
    altered: Annotated[int, Meta(ge=0)] = 0
    named: Annotated[tuple[Text, ...], Meta(max_length=MAX_NAMED_FILES)] = ()
    problem: Text = ""
    alarm: bool = False


class EnvironmentRecord(_Record):
    """The whole environment's identity, as the daemon finds it after READY (R18).

    Journaled as an ``environment`` record (actor ``system``) once the table is READY:
    the check of every file takes seconds, and start-up does not wait for it
    (:mod:`controller.environment`).

    Attributes:
        sha256: the digest over the package's manifest, every installed distribution's
            files and the interpreter's start-up files.
        distributions: the installed distributions checked.
        files: the files their installers listed.
        startup: start-up code no distribution owns (``.pth`` files, ``sitecustomize``,
            ``usercustomize``).
        altered: files that do not match their installer's record (changed, missing,
            added, byte code not made from its source, unreadable).
        named: the first :data:`MAX_NAMED_FILES` of them, the start-up code first, e.g.
            ``pth /opt/threecard-table/lib/python3.11/site-packages/x.pth``.
        alarm: start-up code or an altered file found beside an installed package: the
            table holds the deck (No more bets refused) until a supervisor acknowledges
            with Unblock deck. False for a source tree run in place.
    """

    sha256: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
    distributions: Annotated[int, Meta(ge=0)] = 0
    files: Annotated[int, Meta(ge=0)] = 0
    startup: Annotated[int, Meta(ge=0)] = 0
    altered: Annotated[int, Meta(ge=0)] = 0
    named: Annotated[tuple[Text, ...], Meta(max_length=MAX_NAMED_FILES)] = ()
    alarm: bool = False


class Screens(_Record):
    """The screens the daemon drives, as its settings (``[display]``) give them at power-up.

    A dispute bundle draws the screens again in this language (and this size, when one is
    set), as the players saw them.

    Attributes:
        language: the screens' language (``en``, ``fr``, ``uk``).
        dealer_size: the dealer window's size, ``WIDTHxHEIGHT``; empty for the default
            (1280x800 in a window; the display's own size in full screen, which is not
            known here).
        fullscreen: each screen fills its display.
    """

    language: Annotated[str, Meta(pattern="^[a-z]{2}$")]
    dealer_size: Annotated[str, Meta(pattern="^([0-9]{3,4}x[0-9]{3,4})?$")] = ""
    fullscreen: bool = False


class Startup(_Record):
    """The table's power-up record (journaled by the table itself, actor ``system``).

    Attributes:
        config: the settings in force (``TableConfig.to_dict()``).
        software: the running software's identity (the daemon's; None where the table
            was started by other code, such as a test or ``threecard simulate``).
        screens: the screens the daemon drives (None: none, or a record made before the
            field was).
    """

    config: dict[str, Any]
    software: Software | None = None
    screens: Screens | None = None


__all__ = ["MAX_NAMED_FILES", "EnvironmentRecord", "Screens", "Software", "Startup"]
