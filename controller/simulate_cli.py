"""``threecard simulate``: the real engine, table and journal against the in-process event shoe.

Bets from ``--bets`` on every seat, decisions by the Q-6-4 rule (:mod:`controller.autoplay`);
run again on the same ``--journal`` after a kill, it goes on to ``--rounds`` settled in all.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import shutil
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from controller.autoplay import AutoPlayer
from controller.cli import counted, wagers, whole_number
from controller.floor_link import add_floor_arguments, check_floor, open_floor, resume_command
from controller.game.auth import DEMO_PINS, demo_pin_hashes
from controller.game.bet_types import ANTE, ANTE_PLAY, GROUPS, NAMES, PLACED
from controller.game.config import MAX_SEATS, MIN_SEATS, TableConfig
from controller.game.engine import Game
from controller.game.events import LinkState, LinkStatus
from controller.game.inputs import ManualCard, NoMoreBets
from controller.game.numbers import DEFAULT_CURRENCY, format_money, format_percent
from controller.game.recall import verify
from controller.game.replay import round_records, start_state
from controller.game.rules import RuleProfile, RuleProfileError
from controller.game.settlement import BetError, bets_from_mapping, validate_bets
from controller.game.table import Table
from controller.game.verdict import integrity_lock
from controller.journal import JournalError
from controller.journal.seal import default_folder, key_file
from controller.journal_watch import lift_mark, mark_broken
from simulators.deck_file import read_deck_file
from simulators.event_shoe import FAULTS, EventShoe, parse_faults

DEFAULT_BETS = json.dumps(dict.fromkeys(PLACED, 100))
FLOOR_DRAIN_S = 60.0
"""With ``--floor``, how long the run may go on sending to a connected broker at its end."""
SIMULATE_FLAGS = {"rules": "--rules", "seats": "--seats", "table_id": "--table-id",
                  "floor_broker": "--floor"}
"""The table's settings ``simulate`` takes from its flags: setting -> flag."""


def expected_returns(profile: RuleProfile) -> dict[str, Fraction]:
    """Exact return per bet of the autoplayer's Q-6-4 play, as the player screen shows it.

    Under the profile's fold rule: where a fold loses the side bets, a folded 6 Card Bonus loses.
    """
    from controller.game.deck_counts import stored_counts
    from controller.game.par_sheet import compute_par_sheet

    sheet = compute_par_sheet(profile, stored_counts())
    out = {ANTE_PLAY: sheet.ante_play.rtp}
    out.update({k: a.rtp for k, a in sheet.with_strategy.items()})
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``simulate``'s options."""
    parser.add_argument("--rules", default="live",
                        help="rule profile: live, classic or a TOML file path")
    parser.add_argument("--seats", type=whole_number(MIN_SEATS, MAX_SEATS), default=MAX_SEATS,
                        help=f"seats in play ({MIN_SEATS}-{MAX_SEATS})")
    parser.add_argument("--rounds", type=whole_number(1), default=1000,
                        help="rounds to settle in total (1 or more)")
    parser.add_argument("--seed", type=int, default=1, help="the shuffles' random seed")
    parser.add_argument("--deck-file", metavar="FILE", help="one round per line: cards in "
                        "delivery order (default: shuffled decks, from --seed)")
    parser.add_argument("--bets", type=wagers, default=DEFAULT_BETS,
                        help="JSON wagers for every seat, minor units")
    parser.add_argument("--faults", default="", help="shoe faults' chances per round, e.g. "
                        "misread=0.01,link_loss=0.005, all=0.01 or random; faults: "
                        f"{', '.join(FAULTS)} (default: none)")
    parser.add_argument("--journal", help="journal path (:memory: for none); default: a "
                        "temporary file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_floor_arguments(parser)


def _bet_net(rows: dict[str, list[int]], bet: str) -> tuple[int, int]:
    m = rows.get(bet) or [0, 0, 0]
    return m[0], m[1] - m[2]



class RoundAudit:
    """Checks every finished round's invariants and sums the return statistics, memory flat.

    Per round: 3 cards a hand, no card twice, every Ante decided, each net agrees with its
    outcome, stake and multiple and sums to the seat's, a void refunds all. ``sums``: per bet
    group [rounds, stake, sum of nets, of squared nets]; ``seat_net`` in minor units.
    """

    def __init__(self) -> None:
        self.violations = 0
        self.examples: list[str] = []
        self.sums = {k: [0, 0, 0, 0] for k in GROUPS}
        self.seat_net = 0
        self.rounds = 0

    def _bad(self, rec: dict[str, Any], what: str) -> None:
        self.violations += 1
        if len(self.examples) < 10:
            self.examples.append(f"round {rec['round_id']}: {what}")

    def observe(self, rec: dict[str, Any]) -> None:
        """Check one finished (settled or void) round and add it to the statistics."""
        self.rounds += 1
        dealt = [c for c, pos, _m in rec["deal"] if c and (pos == "dealer"
                                                           or pos.startswith("seat"))]
        if len(dealt) != len(set(dealt)):
            self._bad(rec, "a card dealt twice")
        if rec["status"] == "void":
            for seat in rec["seats"]:
                if any(r["outcome"] != "refund" or r["net"] for r in seat["results"].values()):
                    self._bad(rec, f"seat {seat['seat']}: a void that does not refund")
            return
        if len(rec["dealer_cards"]) != 3:
            self._bad(rec, f"dealer has {len(rec['dealer_cards'])} cards")
        for key, bets in GROUPS.items():
            stake = net = 0
            for seat in rec["seats"]:
                for b, r in seat["results"].items():
                    if b in bets:
                        net += r["net"]
                    if b == bets[0]:  # a group's return is per unit of its first bet
                        stake += r["stake"]
            if stake:
                acc = self.sums[key]
                acc[0] += 1
                acc[1] += stake
                acc[2] += net
                acc[3] += net * net
        for seat in rec["seats"]:
            n = seat["seat"]
            if len(seat["cards"]) != 3:
                self._bad(rec, f"seat {n} has {len(seat['cards'])} cards")
            if seat["bets"].get(ANTE) and seat["decision"] not in ("play", "fold"):
                self._bad(rec, f"seat {n} settled without a decision")
            total = 0
            for b, r in seat["results"].items():
                expect = {"win": r["stake"] * r["multiple"], "lose": -r["stake"],
                          "push": 0}.get(r["outcome"])
                if expect is None or r["net"] != expect or (r["outcome"] == "win"
                                                            and r["net"] <= 0):
                    self._bad(rec, f"seat {n} {b}: {r}")
                total += r["net"]
            if seat["net"] != total:
                self._bad(rec, f"seat {n}: net {seat['net']} is not the sum {total}")
            self.seat_net += total


def summarize(table: Table, elapsed: float, played: int, audit: RoundAudit) -> dict[str, Any]:
    """The run's figures: rounds, wagered and net per bet, observed return vs par.

    The round is the sample unit of the standard errors (its seats share the dealer's hand).
    """
    g = table.game
    rows = g.meters_dict()["rows"]
    total = rows.get("total", [0] * 6)
    out: dict[str, Any] = {
        "rules": g.config.rules, "seats": g.config.seats, "currency": g.config.currency,
        "rounds_settled": total[3], "rounds_voided": g.counters.get("voids", 0),
        "rounds_this_run": played, "seconds": round(elapsed, 3),
        "rounds_per_second": round(played / elapsed, 1) if elapsed > 0 else None,
        "wagered": {}, "net": {}, "return": {}, "par": {}, "expected": {},
        "standard_error": {}, "z": {},
        "counters": dict(sorted(g.counters.items())),
    }
    for bet in NAMES:
        if bet in rows:
            w, n = _bet_net(rows, bet)
            out["wagered"][bet] = w
            out["net"][bet] = n
    from controller.game.table_views import rtp_for

    par = dict(rtp_for(g.profile))
    expected = expected_returns(g.profile)
    sums = audit.sums
    house = total[2] - total[1]  # meters: stakes taken - winnings paid
    if audit.seat_net != -house:
        audit.violations += 1
        audit.examples.append(f"meters do not reconcile: rounds net {audit.seat_net}, "
                              f"meters {-house}")
    out["rounds_audited"] = audit.rounds
    out["invariant_violations"] = audit.violations
    out["invariant_examples"] = audit.examples
    for key, (n, stake, s1, s2) in sums.items():
        if not n or not stake:
            continue
        mean_stake = stake / n
        ret = 1 + s1 / stake
        var = max(s2 / n - (s1 / n) ** 2, 0.0)
        se = math.sqrt(var / n) / mean_stake
        out["return"][key] = round(ret, 6)
        out["standard_error"][key] = round(se, 6)
        if key in par:
            out["par"][key] = par[key] / 1_000_000
        if key in expected:
            exp = float(expected[key])
            out["expected"][key] = round(exp, 6)
            out["z"][key] = round((ret - exp) / se, 3) if se else None
    return out


class SimulationStuck(RuntimeError):
    """The simulated dealer has no accepted step left (or the table locked)."""


def simulate(table: Table, player: AutoPlayer, shoe: EventShoe, rounds: int,
             rng_manual: float = 0.3, chain: bool = True,
             audit: RoundAudit | None = None) -> int:
    """Drive ``table`` (not started) until ``rounds`` rounds are settled, journal's included.

    ``rng_manual`` is the share of misreads resolved by a manual card; ``chain`` sends the next
    round's bets with the settlement. Returns the rounds finished here (settled or void).

    Raises:
        SimulationStuck: no step the table accepts is left, or the table locked.
        JournalError: a journal write failed (the table stops).
    """
    g = table.game
    start = _settled(g) + g.counters.get("voids", 0)
    table.process([LinkStatus(state=LinkState.ONLINE, detail="simulated shoe")], flush=False)
    dealer = _Dealer(table, player, shoe, rng_manual)
    audited = max((r.round_id for r in g.recall), default=0)
    while _settled(g) < rounds:
        newest = g.recall.newest()
        if audit is not None and newest is not None and newest.round_id > audited:
            _observe(audit, g, audited)
            audited = newest.round_id
        dealer.step(chain and _settled(g) + 1 < rounds)
        if table.locked:
            raise SimulationStuck(table.locked)
    table.process([], flush=True)
    if audit is not None:
        _observe(audit, g, audited)
    return _settled(g) + g.counters.get("voids", 0) - start


def _settled(g: Game) -> int:
    total = g.meters.rows.get("total")
    return total.rounds if total is not None else 0


def _observe(audit: RoundAudit, g: Game, after: int) -> None:
    """Audit the recalled rounds after round ``after``, in order."""
    for rec in sorted((r for r in g.recall if r.round_id > after), key=lambda r: r.round_id):
        audit.observe(rec.to_dict())


class _Dealer:
    """The simulated dealer: each step sends the table the inputs its view asks for."""

    def __init__(self, table: Table, player: AutoPlayer, shoe: EventShoe,
                 rng_manual: float) -> None:
        self.table, self.player, self.shoe = table, player, shoe
        self.rng_manual = rng_manual
        self.round_id: int | None = None
        self.stuck = 0

    def step(self, chain: bool) -> None:
        """One batch of inputs; ``chain``: the next round's bets go with the settlement."""
        process, player, shoe = self.table.process, self.player, self.shoe
        dealer = self.table.views()[0]
        if dealer.round_id != self.round_id:
            # a restart may find a round half dealt: those cards are out of the deck
            shoe.new_round(seen=self.table.game.deal.seen if self.round_id is None else ())
            self.round_id = dealer.round_id
        st = dealer.state
        if st == "betting":
            cmds = player.next_commands(dealer)
            process([*cmds[:-1], *shoe.before_no_more_bets(), cmds[-1]], flush=False)
        elif st == "deciding" and chain:
            cmds = player.next_commands(dealer, chain=True)
            if isinstance(cmds[-1], NoMoreBets):  # the next round opens in the same commit
                self.round_id = dealer.round_id + 1
                shoe.new_round()
                cmds[-1:-1] = shoe.before_no_more_bets()
            process(cmds, flush=False)
        elif dealer.cards_due and st != "paused":
            process(shoe.deal(dealer.cards_due), flush=False)
        elif dealer.pause_reason == "misread" and shoe.misread_before_restart():
            # (a pending misread of this run, or one the journal kept from before a restart)
            if shoe.rng.random() < self.rng_manual:
                card = shoe.take_pending()
                process([ManualCard(card=card, pin=player.pin)], flush=False)
            else:
                process(shoe.re_present(), flush=False)
        else:
            cmds = player.next_commands(dealer)
            if not cmds:
                self.stuck += 1
                if self.stuck > 3:
                    raise SimulationStuck(f"the simulation is stuck in {st}: {dealer.next_action}")
            else:
                self.stuck = 0
            process(cmds, flush=False)


def full_check(table: Table) -> str | None:
    """``threecard verify-journal``'s check of every event up to the head; None if it holds.

    Start-up checks only from its snapshot. A problem locks and closes the table.
    """
    if table.journal.path == ":memory:":  # new with this run: start-up saw all of it
        return None
    try:
        v = verify(table.journal.path)
    except JournalError as exc:
        v_text = str(exc)
    else:
        if v.ok:
            lift_mark(table.journal.path)
            return None
        v_text = v.summary()
    reason = integrity_lock(v_text)
    table.lock(reason)
    mark_broken(table.journal.path, reason)  # the next start locks at once
    with contextlib.suppress(JournalError):
        table.close()
    return v_text


def run(args: argparse.Namespace) -> int:
    """Run ``threecard simulate``; prints the figures. Returns the exit status."""
    try:
        config, faults, decks = _settings(args)
    except (ValueError, BetError, RuleProfileError, OSError) as exc:
        print(f"threecard simulate: {exc}", file=sys.stderr)
        return 2
    tmp = None
    unsent = 0  # journal events the floor did not acknowledge (the journal is then kept)
    path = args.journal
    if not path:
        tmp = tempfile.mkdtemp(prefix="threecard-sim-")
        path = str(Path(tmp) / "journal.sqlite")
    try:
        status, result, unsent = _run_table(args, config, path, tmp, faults, decks)
    finally:
        if tmp is not None and not unsent:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp is not None:  # kept for the command that sends the rest: its seal key too
            _keep_keys(Path(tmp))
    if result is None:
        return status
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        _print_human(result)
    if unsent:
        bets = args.bets
        given = [] if bets == wagers(DEFAULT_BETS) else ["--bets", json.dumps(bets)]
        print(f"threecard simulate: the floor's broker did not acknowledge the last {unsent} "
              f"journal event(s); the journal keeps them: {path}"
              + (" (kept, not deleted)" if tmp is not None else "")
              + f"; `{resume_command('simulate', config, path, '--rounds', '1', *given)}` "
              "sends them", file=sys.stderr)
        return 1
    return 0


def _settings(args: argparse.Namespace
              ) -> tuple[TableConfig, dict[str, float], list[str] | None]:
    """The run's table settings, shoe faults and decks from its flags (errors in their words)."""
    try:
        faults = parse_faults(args.faults)
    except ValueError as exc:
        raise ValueError(f"--faults: {exc}") from None
    config = TableConfig(rules=args.rules, seats=args.seats, pin_hashes=demo_pin_hashes(),
                         table_id=args.table_id or "TABLE-1", floor_broker=args.floor or "",
                         flags=SIMULATE_FLAGS,  # its errors name the flags
                         ).pinned().validate()  # the profile's text read once, journaled
    check_floor(config, args.journal)
    try:
        validate_bets(config.profile, bets_from_mapping(args.bets))
    except BetError as exc:
        raise BetError(f"--bets: {exc}") from None
    return config, faults, ([" ".join(line) for line in read_deck_file(
        args.deck_file, one_deck_per_line=True)] if args.deck_file else None)


def _open_table(args: argparse.Namespace, config: TableConfig, path: str,
                tmp: str | None) -> Table | int:
    """The table on the run's journal, checked whole; else the exit status (told why)."""
    try:
        table = Table(path, config, keys=tmp)  # a temporary journal's key: beside it
    except JournalError as exc:
        print(f"threecard simulate: {exc}", file=sys.stderr)
        return 2
    if table.locked:
        print(f"threecard simulate: {table.locked}", file=sys.stderr)
        return 1
    if args.journal and table.journal.chain_started:
        print(f"verification key: {table.journal.verification_key}", file=sys.stderr)
    broken = full_check(table)  # start-up checked from its snapshot: now all of it
    if broken is not None:
        print(f"threecard simulate: {broken}; stopped before dealing", file=sys.stderr)
        return 1
    return table


def _resumed_audit(table: Table) -> RoundAudit:
    """An audit of the journal's rounds before this run (JournalError: unreadable record)."""
    audit = RoundAudit()
    for rec in round_records(table.journal):
        if rec["status"] in ("settled", "void"):
            audit.observe(rec)
    if table.journal.base_seq:  # rounds moved to an archive: their net, from meters
        moved = start_state(table.journal, table.journal.base_seq)[0]
        total = moved.meters_dict()["rows"].get("total", [0] * 6)
        audit.seat_net += total[1] - total[2]
    return audit


def _stop(table: Table, why: str) -> int:
    with contextlib.suppress(JournalError):
        table.close()
    print(f"threecard simulate: {why}", file=sys.stderr)
    return 1


def _run_table(args: argparse.Namespace, config: TableConfig, path: str, tmp: str | None,
               faults: dict[str, float], decks: list[str] | None
               ) -> tuple[int, dict[str, Any] | None, int]:
    """Deal the run: (exit status, its figures or None, events the floor did not take)."""
    table = _open_table(args, config, path, tmp)
    if isinstance(table, int):
        return table, None, 0
    feed = open_floor(config, table, drain_s=FLOOR_DRAIN_S)  # its witness checked
    if table.locked:  # the floor holds more of this journal than it does
        feed.stop(0)
        return _stop(table, f"{table.locked}; stopped before dealing"), None, 0
    player = AutoPlayer(bets=args.bets, pin=DEMO_PINS["supervisor"])
    shoe = EventShoe(args.seed + table.game.round_id, faults, decks)
    try:
        audit = _resumed_audit(table)
    except JournalError as exc:  # a record edited past reading: say so, run nothing
        return _stop(table, str(exc)), None, 0
    t0 = time.perf_counter()
    try:
        played = simulate(table, player, shoe, args.rounds, audit=audit)
    except JournalError as exc:  # a full disk, a failing card: the table stops
        feed.stop()
        return _stop(table, f"{exc}; stopped (every input before the failed write is in the "
                     "journal)"), None, 0
    except SimulationStuck as exc:
        return _stop(table, f"{exc}; stopped (the journal keeps every round so far)"), None, 0
    result = summarize(table, time.perf_counter() - t0, played, audit)
    result["journal"] = args.journal or "(temporary)"
    if args.journal and table.journal.verification_key:
        result["verification_key"] = table.journal.verification_key
    result["faults_injected"] = shoe.injected
    feed.stop()  # what is left goes to the floor before the journal closes
    unsent = feed.left
    try:
        table.close()
    except JournalError as exc:
        print(f"threecard simulate: {exc}", file=sys.stderr)
        return 1, None, unsent
    sealer = table.journal.sealer
    if tmp is not None and unsent and sealer is not None:  # kept: its key goes on with it
        kept = key_file(default_folder(), path, sealer.journal_id)
        kept.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        shutil.copy2(sealer.path, kept)
    return 0, result, unsent


def _keep_keys(folder: Path) -> None:
    """Move a kept temporary journal's seal key to the state folder, where a table finds it."""
    from controller.journal.seal import default_folder

    state = default_folder()
    try:
        state.mkdir(parents=True, exist_ok=True, mode=0o700)
        for key in folder.glob("seal-*.key"):
            shutil.move(key, state / key.name)
    except OSError as exc:
        print(f"threecard simulate: the kept journal's seal key stays in {folder}: {exc}",
              file=sys.stderr)


def _print_human(r: dict[str, Any]) -> None:
    print(f"rules {r['rules']}, {counted(r['seats'], 'seat')}: "
          f"{counted(r['rounds_settled'], 'round')} settled, "
          f"{r['rounds_voided']} void; {r['rounds_this_run']} this run in {r['seconds']} s "
          f"({r['rounds_per_second']} rounds/s)")
    cur = r.get("currency", DEFAULT_CURRENCY)
    print(f"  amounts in {cur}")
    for bet, w in r["wagered"].items():
        net = format_money(r["net"][bet], "en", cur, sign=True)
        print(f"  {bet:15} wagered {format_money(w, 'en', cur):>16}  player net {net:>16}")
    for key, ret in r["return"].items():
        exp, par = r["expected"].get(key), r["par"].get(key)
        line = f"  {key:15} return {format_percent(ret, digits=4)}"
        if exp is not None:
            line += (f" (expected {format_percent(exp, digits=4)} with Q-6-4 play; paytable "
                     f"{format_percent(par, digits=4)}; SE "
                     f"{format_percent(r['standard_error'][key], digits=4)}; "
                     f"z {r['z'].get(key)})")
        print(line)
