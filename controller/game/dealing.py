"""Cards onto deal positions, burns, and the irregularities of the deal (docs/rules.md).

Handlers of the :class:`~controller.game.engine.Game` for the inputs that put cards on
the table or take them back: ``card``, ``misread``, ``retract``, ``manual_card`` and
``exposed_card``; and for what holds the deck for a supervisor (a blocked deck, the
``environment`` record's alarm). Each is a function of the game and the input's decoded body; a
refusal raises :class:`~controller.game.round.Rejected`.

Burn cards. A card the shoe reads in burn mode (a ``card`` with ``burn``, or an
unreadable burn: a ``misread`` with ``burn``) is never a hand card and never an
irregularity. The rules, in order:

1. With ``burn_cards`` = n, the first n positions of every deal are burns
   (:func:`~controller.game.round.deal_positions`); they are due from "no more bets".
2. A burn the shoe flags itself fills the next position when that position is a burn:
   in "no more bets", between two burns, and while the round is paused there. A
   misread waiting at a burn position is resolved by it; any other pause stays, and the
   round deals on from the next position once resumed.
3. A game-mode card while a burn position is due is still the burn: the dealer did not
   switch the shoe to burn mode. So is a game-mode misread there: it pauses like any
   misread, and the card presented again, a flagged burn or a supervisor's entry fills
   the burn position.
4. A flagged burn when no burn position is next (``burn_cards`` = 0, every burn dealt,
   mid-deal, after the deal, during betting, paused at a hand position) is recorded in
   the round's deal as a burn outside the positions, and nothing else happens. One read
   between rounds (settled or void, before the next round opens) is added to the deal
   of the finished round's record, whose deck it came from (the deck's inventory
   restarts with the next round when ``deck_per_round``); nothing else in the record
   changes.
5. A readable burn is a card out of the deck: seen twice in one deck, or of an unknown
   code, it voids and blocks the deck like any card (docs/rules.md). An unreadable burn is
   counted (``unreadable_burns``) and shown as a card None in the deal.

Journal compatibility: the card body of a flagged burn carries ``"burn_rule": 2``
(:func:`controller.game.inputs.journal_record`). A body without it was journaled before flagged
burns filled burn positions and replays as it was applied then: set aside wherever it
came (between rounds, in the game's deal but not in the finished round's record). A
``misread`` body without ``burn`` is a plain misread, as it always was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from controller.game import inputs
from controller.game.cards import parse_card
from controller.game.records import DealLine
from controller.game.round import CARDS_DUE, Pause, Rejected, RoundState

if TYPE_CHECKING:
    from controller.game.engine import Game

S = RoundState
EXPOSED = inputs.ExposedCard.name
"""The notice and void reason of an exposed card: the name of the command reporting it."""
#: notes a void or a resumed round clears (the round moved past them)
PAUSE_NOTES = ("misread", "seq_gap", "shoe_restart", "alarm", "shoe_empty", "frame_error",
               "interrupted_round", "card_not_recorded")


def fixed(g: Game) -> bool:
    """Every card and every decision is recorded: the outcome is fixed (R11)."""
    st = g.round.state
    if st in (S.REVEAL, S.SETTLED):
        return True
    return st is S.DECIDING and not g.wagers.undecided()


def block(g: Game, why: str, card: str | None, code: str) -> None:
    """docs/rules.md: duplicate or unknown card -> void, deck blocked until a supervisor."""
    g.deal.blocked = why
    g.meters.count(why)
    text = card or code
    what = (f"Card {text} seen twice in this deck" if why == "duplicate_card"
            else f"Unknown card code {code!r}")
    g.notes.put("deck_blocked", f"{what}: the deck is blocked.",
               "Supervisor: check the deck, then unblock it", severity="error",
               card=text)
    g.deal.set_aside(card, "rejected", g.shoe_seq, seen=False)


ENVIRONMENT_ALTERED = "environment_altered"
"""Why the deck is held once the environment's check found start-up code no distribution
owns or an altered file (``EnvironmentRecord.alarm``), and the kind of its alarm."""


def hold_deck(g: Game, why: str, what: str, files: int) -> None:
    """No more bets refused until a supervisor's Unblock deck; the round in play goes on.

    Args:
        g: the game.
        why: the deck's reason and the alarm's kind (``software_altered``...).
        what: the alarm's text, before the number of files.
        files: how many files (or start-up code) were found.
    """
    g.deal.blocked = why
    g.notes.put(why, f"{what}: {files}", "Supervisor: call a technician, then Unblock deck "
                "to deal on", severity="error", files=str(files))


def on_environment(g: Game, body: Any, actor: str) -> None:
    """The environment's identity, found once READY (R18): an alarm holds the deck."""
    if body.alarm:
        hold_deck(g, ENVIRONMENT_ALTERED, "Unknown start-up code or altered files beside "
                  "the software", body.startup + body.altered)


DEVICE_LOST = "device_lost"
"""The notice of a device lost (the floor's broker, a screen): up until it is back."""
DEVICE_BACK = "device_back"
"""The notice of a device back: up until the next round."""


def on_device(g: Game, body: inputs.DeviceRecord, actor: str) -> None:
    """A device lost or back (R20): counted (``player_screen_lost``...) and noted, as info.

    Play goes on either way: the table never waits for a screen or the floor's broker. The
    notice of a device lost stays up until that device is back.
    """
    name = body.device.replace(" ", "_")
    g.meters.count(f"{name}_{body.state}")
    what = body.device[0].upper() + body.device[1:]
    if body.state == "lost":
        g.notes.put(DEVICE_LOST, f"{what} lost ({body.detail or 'no reason given'}).",
                    severity="info", device=body.device, detail=body.detail)
        return
    lost = g.notes.get(DEVICE_LOST)
    if lost is not None and lost.params.get("device") == body.device:
        g.notes.drop(DEVICE_LOST)
    away = f"{body.away_ms / 1000:.1f}"
    g.notes.put(DEVICE_BACK, f"{what} back after {away} s.", severity="info",
                device=body.device, away_s=away)


def on_journal_fault(g: Game, body: inputs.JournalFault, actor: str) -> None:
    """A journal fault cleared by the table's self-check (R20): counted and noted.

    A card out of the shoe meanwhile is on the layout and in no record: a round whose
    cards are due waits for a supervisor, who voids it, or resumes it and has the card
    presented again; in any other state the notice asks for the card to be set aside.
    """
    g.meters.count("journal_faults")
    refused = ", ".join(f"{n} {k}" for k, n in sorted(body.refused.items()))
    g.notes.put("journal_fault_cleared", f"The journal could not be written from {body.began} "
                f"({body.reason}); it can again.", "Give again what the screen refused"
                if refused else "", severity="info", reason=body.reason, began=body.began,
                refused=refused)
    if not body.cards:
        return
    r, cards = g.round, " ".join(body.cards)
    due = r.state in CARDS_DUE or r.state is S.PAUSED
    if due:
        resume_to = r.pause.resume_to if r.pause else r.state.value
        if r.state is not S.PAUSED:
            r.go("pause", S.PAUSED)
        r.pause = Pause("card_not_recorded", resume_to, True)
    g.notes.put("card_not_recorded", f"Cards read while the journal could not be written are "
                f"in no record: {cards}.", "Supervisor: void the round, or resume it and "
                "present the cards again" if due else "Set the cards aside", severity="error"
                if due else "warning", cards=cards)


def on_card(g: Game, body: Any, actor: str) -> None:
    """A card was read (docs/rules.md: duplicate, unknown, before no more bets, extra)."""
    card = body.card
    g.shoe_seq = body.seq
    st = g.round.state
    bad = g.deal.problem(card)
    if bad:
        block(g, bad, card, body.code)
        if not fixed(g) and st not in (S.SETTLED, S.VOID):
            g.void(bad, acknowledged=False)
        return
    if body.burn:
        if body.burn_rule >= inputs.BURN_RULE:
            flagged_burn(g, card)
        else:  # journaled before flagged burns filled positions: replay as then
            g.deal.set_aside(card, "burn", g.shoe_seq)
        return
    if st in CARDS_DUE:
        deal_card(g, card, False)
    elif st is S.PAUSED:
        if not g.round.paused_for("misread"):
            raise Rejected("card_while_paused")
        resolve_misread(g, card, False)
    elif st is S.BETTING:
        g.deal.set_aside(card, "exposed", g.shoe_seq)
        g.meters.count("card_before_no_more_bets")
        g.void("card_before_no_more_bets", acknowledged=False, card=card)
    elif st is S.DECIDING and not fixed(g):
        g.deal.set_aside(card, "extra", g.shoe_seq)
        g.meters.count("wrong_count")
        g.void("wrong_count", acknowledged=False, card=card)
    else:
        # after the outcome is fixed, or between rounds: never void (R11); note it
        g.deal.set_aside(card, "extra", g.shoe_seq)
        g.notes.put("extra_card", f"An extra card {card} was read and set aside.",
                   "Set the card aside as a burn", card=card)


def burn_due(g: Game) -> bool:
    """The round's next position is a burn (rule 2 of the module docstring)."""
    if g.round.state not in CARDS_DUE and g.round.state is not S.PAUSED:
        return False
    nxt = g.deal.next
    return nxt is not None and nxt.seat < 0


def flagged_burn(g: Game, card: str | None) -> None:
    """A burn the shoe flagged (``card`` None: unreadable); rules 2 and 4 above.

    The card's identity was already checked against the deck by the caller.
    """
    r = g.round
    if burn_due(g):
        if r.pause is None:
            deal_card(g, card, False)
        elif r.pause.reason == "misread":
            resolve_misread(g, card, False)
        else:
            deal_card(g, card, False)
            if r.pause.resume_to == S.NO_MORE_BETS.value:
                r.pause.resume_to = S.DEALING.value
        return
    entry = g.deal.set_aside(card, "burn", g.shoe_seq)
    rec = g.recall.newest()
    if r.state in (S.SETTLED, S.VOID) and rec and rec.round_id == r.round_id:
        rec = msgspec.structs.replace(rec, deal=[*rec.deal, DealLine(*entry.line())])
        g.recall.replace_newest(rec)
        g.derived.rounds[r.round_id] = rec.to_dict()
        g.derived.ends[r.round_id] = g.last_seq
        g.records_version += 1


def deal_card(g: Game, card: str | None, manual: bool) -> None:
    """The card (None: an unreadable burn) takes the round's next position."""
    pos = g.deal.take(card, manual, g.shoe_seq)
    if pos.seat > 0:
        g.seats[pos.seat].cards.append(card)
    if g.deal.complete:
        g.round.go("card", S.DECIDING)
    elif g.round.state is S.NO_MORE_BETS:
        g.round.go("card", S.DEALING)


def on_reopen_bets(g: Game, body: inputs.ReopenBets, actor: str) -> None:
    """docs/rules.md "Reopen bets": betting opens again while no card, a burn too, is read."""
    if g.round.state is not S.NO_MORE_BETS or g.deal.entries:
        raise Rejected("cards_dealt", cards=len(g.deal.entries))
    g.deal.reset(new_deck=False)
    g.round.go(inputs.ReopenBets.name, S.BETTING)


def unpause(g: Game) -> None:
    """Resume a paused round where it stands (its positions tell how far the deal is)."""
    r = g.round
    target = S(r.pause.resume_to)
    r.pause = None
    if target is S.DEALING and g.deal.index == 0:
        target = S.NO_MORE_BETS
    if target in CARDS_DUE and g.deal.complete:
        target = S.DECIDING
    r.go(inputs.Resume.name, target)
    g.notes.drop(*PAUSE_NOTES)


def resolve_misread(g: Game, card: str | None, manual: bool) -> None:
    """The card a misread waited for (read again, a burn, or entered by hand)."""
    r = g.round
    resume_to = r.pause.resume_to
    r.pause = None
    r.go(inputs.Resume.name, S(resume_to))
    g.notes.drop("misread")
    deal_card(g, card, manual)


def on_misread(g: Game, body: Any, actor: str) -> None:
    """docs/rules.md: a misread pauses; re-present or enter by hand (supervisor); else void.

    An unreadable burn (``burn`` in the body) is no misread: it is a burn card
    (rules 2 and 4 of the module docstring).
    """
    if body.burn:
        g.meters.count("unreadable_burns")
        g.shoe_seq = body.seq
        flagged_burn(g, None)
        return
    g.meters.count("misreads")
    st = g.round.state
    if st in CARDS_DUE:
        g.round.start_pause("misread", supervisor=False, position=g.deal.index)
        g.notes.put("misread", "The shoe could not read a card.",
                   "Re-present the card, or a supervisor enters it by hand")
    elif g.round.paused_for("misread"):
        pass  # the re-presented card misread again: still waiting
    elif st is S.BETTING:
        g.void("card_before_no_more_bets", acknowledged=False)
    elif st is S.DECIDING and not fixed(g):
        g.void("wrong_count", acknowledged=False)
    else:
        g.notes.put("extra_card", "An extra unreadable card left the shoe.",
                   "Set the card aside as a burn")


def on_manual_card(g: Game, body: inputs.ManualCardRecord, actor: str) -> None:
    """A supervisor enters the misread card by hand (recorded as manual)."""
    if not g.round.paused_for("misread"):
        raise Rejected("manual_card_not_misread")
    try:
        card = str(parse_card(body.card))
    except ValueError as exc:
        raise Rejected("not_a_card", card=str(body.card), detail=str(exc)) from None
    if card in g.deal.seen:
        raise Rejected("card_already_dealt", card=card)
    g.shoe_seq = None
    g.meters.count("manual_cards")
    resolve_misread(g, card, True)


def on_retract(g: Game, body: Any, actor: str) -> None:
    """docs/rules.md: a card pulled back -> undo that card (the last one)."""
    st = g.round.state
    if g.round.paused_for("misread"):
        unpause(g)
        return
    if st not in (S.NO_MORE_BETS, S.DEALING, S.DECIDING) or not g.deal.entries:
        raise Rejected("nothing_to_undo")
    if any(sr.decision for sr in g.seats.values()):
        raise Rejected("undo_after_decisions")
    last = g.deal.entries[-1]
    want = body.card_seq
    if want is not None and last.seq is not None and want != last.seq:
        raise Rejected("undo_not_last", last=last.seq, want=want)
    if last.where in ("rejected", "exposed", "extra"):
        raise Rejected("undo_not_dealt")
    g.deal.pop_last()
    g.meters.count("retracts")
    if last.dealt:
        undo_position(g, "retract")


def undo_position(g: Game, trigger: str) -> None:
    """Take the last dealt card off its position (a retract, an exposed card)."""
    pos = g.deal.undo()
    if pos.seat > 0:
        g.seats[pos.seat].cards.pop()
    target = S.DEALING if g.deal.index else S.NO_MORE_BETS
    if g.round.state is not target:
        g.round.go(trigger, target)


def on_exposed_card(g: Game, body: inputs.ExposedCard, actor: str) -> None:
    """docs/rules.md: one card exposed (policy burn/void); dealer's cards exposed -> void."""
    if body.dealer_hand:
        g.meters.count("exposed_cards")
        if fixed(g):
            g.notes.put(EXPOSED, "The dealer's cards were exposed after every "
                       "decision: the round goes on.", "Continue", severity="info")
            return
        g.void("dealer_cards_exposed", acknowledged=False)
        return
    entries = g.deal.entries
    if g.deal.index == 0 or fixed(g) or not entries or not entries[-1].dealt:
        raise Rejected("nothing_to_expose")
    card = entries[-1].card
    if g.deal.positions[g.deal.index - 1].seat < 0:
        raise Rejected("last_card_burn")
    g.meters.count("exposed_cards")
    if g.deal.positions[g.deal.index - 1].seat == 0:
        g.void("dealer_cards_exposed", acknowledged=False, card=card)
        return
    if g.config.exposed_card == "void":
        g.void(EXPOSED, acknowledged=False, card=card)
        return
    undo_position(g, inputs.ExposedCard.name)
    g.deal.burn_last()
    g.notes.put(EXPOSED, f"Exposed card {card} burned; the next card takes "
               "its place.", "Burn the exposed card and deal on", severity="info",
               card=str(card))
