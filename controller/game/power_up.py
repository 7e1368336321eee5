"""The power-up records, ``startup`` and ``environment``: a leaf, msgspec only."""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta, Struct


class _Record(Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of the power-up record's parts: strict, as every journal body."""


MAX_NAMED_FILES = 50
Text = Annotated[str, Meta(max_length=512)]


class Software(_Record):
    """The running software's identity, as ``threecard identify`` finds it at power-up.

    ``sha256``: the manifest's (empty from source); ``alarm``: installed files do not match
    (GLI-11), so the deck is held until a supervisor unblocks it.
    """

    version: Annotated[str, Meta(max_length=64)]
    sha256: Annotated[str, Meta(pattern="^([0-9a-f]{64})?$")]
    files: Annotated[int, Meta(ge=0)] = 0
    altered: Annotated[int, Meta(ge=0)] = 0
    named: Annotated[tuple[Text, ...], Meta(max_length=MAX_NAMED_FILES)] = ()
    problem: Text = ""
    alarm: bool = False


class EnvironmentRecord(_Record):
    """The whole environment's identity, journaled once READY (R18).

    ``alarm``: start-up code no distribution owns or an altered installed file: the deck is held.
    """

    sha256: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
    distributions: Annotated[int, Meta(ge=0)] = 0
    files: Annotated[int, Meta(ge=0)] = 0
    startup: Annotated[int, Meta(ge=0)] = 0
    altered: Annotated[int, Meta(ge=0)] = 0
    named: Annotated[tuple[Text, ...], Meta(max_length=MAX_NAMED_FILES)] = ()
    alarm: bool = False


class Screens(_Record):
    """The screens ``[display]`` gives at power-up (``dealer_size`` ``WxH``, empty: default)."""

    language: Annotated[str, Meta(pattern="^[a-z]{2}$")]
    dealer_size: Annotated[str, Meta(pattern="^([0-9]{3,4}x[0-9]{3,4})?$")] = ""
    fullscreen: bool = False


class Startup(_Record):
    """The table's power-up record (``software`` None when started by other code, a test)."""

    config: dict[str, Any]
    software: Software | None = None
    screens: Screens | None = None


__all__ = ["MAX_NAMED_FILES", "EnvironmentRecord", "Screens", "Software", "Startup"]
