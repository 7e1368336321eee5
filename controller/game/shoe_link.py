"""The shoe link's state and the shoe's own reports.

docs/rules.md "Shoe unplugged or silent mid-deal" is the rule for a link lost mid-deal.

Handlers of the :class:`~controller.game.engine.Game` for the shoe events that are not
cards: the link going down or silent (the round pauses while cards are due) and coming
back, lost lines and shoe restarts mid-deal (a supervisor must check), alarms, warnings,
frame errors, the lid, the cut card and an empty shoe. Each is a function of the game and
the event's decoded body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.game.dealing import unpause
from controller.game.events import NoFrameDecoded
from controller.game.round import CARDS_DUE, RoundState

if TYPE_CHECKING:
    from controller.game.engine import Game

S = RoundState
LINK_DOWN = ("disconnected", "silent")
"""Link states in which no card can arrive."""


def on_link(g: Game, body: Any, actor: str) -> None:
    """docs/rules.md: shoe unplugged or silent mid-deal -> pause; reconnect if intact."""
    r = g.round
    state = body.state.value
    g.link_state, g.link_detail = state, body.detail
    if state in LINK_DOWN:
        g.meters.count("shoe_disconnects")
        g.notes.put("link_lost" if state == "disconnected" else "link_silent",
                   "The shoe link is lost." if state == "disconnected"
                   else "The shoe went silent.", "Check the shoe cable; the round waits",
                   severity="error", detail=g.link_detail)
        if r.state in CARDS_DUE:
            r.seq_broken = False
            r.start_pause("link_lost", supervisor=False)
    elif state == "online":
        g.notes.drop("link_lost", "link_silent")
        if r.paused_for("link_lost"):
            if r.seq_broken:
                r.pause.supervisor = True
                g.notes.put("seq_gap", "The shoe reconnected but lines were lost.",
                           "Supervisor: void the round, or check the cards and resume",
                           severity="error")
            else:
                unpause(g)


def on_seq_gap(g: Game, body: Any, actor: str) -> None:
    """Lines between two shoe sequence numbers were lost."""
    g.meters.count("seq_gaps")
    broken(g, "seq_gap", f"Shoe lines {body.expected}..{body.got} were lost.")


def on_hello(g: Game, body: Any, actor: str) -> None:
    """The shoe powered up or reconnected (a restart mid-deal loses lines)."""
    g.meters.count("shoe_power_ups")
    if body.seq not in (0, None):
        return  # a reconnect: the line numbers go on, so nothing was lost
    if g.deal.index == 0:
        return  # a restart before the first card of the round loses nothing
    if g.round.state in CARDS_DUE or g.round.state is S.PAUSED:
        broken(g, "shoe_restart", "The shoe restarted mid-deal.")


def broken(g: Game, kind: str, message: str) -> None:
    """The card sequence is not intact mid-deal: pause for a supervisor."""
    r = g.round
    action = "Supervisor: void the round, or check the cards and resume"
    if r.pause is not None:
        r.seq_broken = True
        if r.pause.reason != "link_lost":
            r.pause.supervisor = True
            g.notes.put(kind, message, action, severity="error")
        return
    if r.state in CARDS_DUE:
        r.start_pause(kind, supervisor=True)
        g.notes.put(kind, message, action, severity="error")
    else:
        g.notes.put(kind, message, "", severity="info")


def on_alarm(g: Game, body: Any, actor: str) -> None:
    """A shoe fault such as a jam: cards due wait until it is cleared."""
    g.meters.count("alarms")
    g.notes.put("alarm", f"Shoe alarm {body.code}: {body.text}",
               "Clear the shoe, then resume", severity="error", code=str(body.code))
    if g.round.state in CARDS_DUE:
        g.round.start_pause("alarm", supervisor=False)


def on_frame_error(g: Game, body: Any, actor: str) -> None:
    """Garbled bytes from the shoe: a card may be missing while cards are due."""
    g.meters.count("frame_errors")
    if g.round.state in CARDS_DUE:
        g.round.start_pause("frame_error", supervisor=False)
        g.notes.put("frame_error", "Garbled data from the shoe: a card may be missing.",
                   "Check the cards dealt match the screen, then resume")


def on_no_frame(g: Game, body: Any, actor: str) -> None:
    """Bytes but no frame, or no byte at all since connecting (a wrong dialect?): a note.

    It stays until a frame decodes (for no byte at all: until a byte comes). No card was
    read, so the round is not touched.
    """
    if body.cleared:
        g.notes.drop("no_frame")
        return
    hint = NoFrameDecoded(nbytes=body.nbytes, dialect=body.dialect)  # its message
    g.notes.put("no_frame", hint.message, "Technician: check the shoe's dialect (and baud "
               "rate) in the shoe URL", bytes=str(body.nbytes), dialect=str(body.dialect))


def on_empty(g: Game, body: Any, actor: str) -> None:
    """The shoe ran out of cards."""
    g.meters.count("shoe_empty")
    if g.round.state in CARDS_DUE:
        g.round.start_pause("shoe_empty", supervisor=True)
        g.notes.put("shoe_empty", "The shoe ran out of cards mid-deal.",
                   "Supervisor: void the round", severity="error")
    else:
        g.notes.put("shoe_empty", "The shoe is empty.", "Load a new deck", severity="info")


def on_lid(g: Game, body: Any, actor: str) -> None:
    """The shoe lid opened or closed."""
    if body.open:
        g.meters.count("lid_opens")
        g.notes.put("lid_open", "The shoe lid is open.", "Close the lid", severity="info")
    else:
        g.notes.drop("lid_open")


def on_cut(g: Game, body: Any, actor: str) -> None:
    """The cut card was reached: this pack ends after the round."""
    g.cut_reached = True
    g.notes.put("cut_card", "Cut card reached: this pack ends after the round.",
               "Load a new deck after this round", severity="info")


def on_warning(g: Game, body: Any, actor: str) -> None:
    """A device warning (low battery...): a notice of its own, counted; it stops nothing."""
    g.meters.count("shoe_warnings")
    g.notes.put("shoe_warning", f"Shoe warning {body.code}",
                "Play on; tell the technician after the round", severity="info",
                code=str(body.code))
