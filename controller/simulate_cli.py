"""``threecard simulate``: the real engine against the in-process event shoe.

Every input goes through the :class:`~controller.table.Table` and its journal exactly as
on a live table; bets come from ``--bets`` on every seat, decisions from the Q-6-4 rule
(:mod:`controller.autoplay`). Run again on the same ``--journal`` after a kill, it
recovers and continues until ``--rounds`` rounds are settled in total.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from controller.auth import DEMO_PINS, demo_pin_hashes
from controller.autoplay import AutoPlayer
from controller.commands import ManualCard, NoMoreBets
from controller.game import TableConfig
from controller.rules import RuleProfile, RuleProfileError
from controller.settlement import BetError, Bets, validate_bets
from controller.table import Table
from drivers.events import LinkState, LinkStatus
from simulators.event_shoe import EventShoe, parse_faults

DEFAULT_BETS = '{"ante": 100, "pair_plus": 100, "six_card_bonus": 100}'

#: 6 Card Bonus best-hand counts over every (folded hand, dealer hand) pair under the
#: Q-6-4 rule: 7,200 folded hands x 18,424 dealer hands = 132,652,800 pairs (computed by
#: full enumeration with :func:`controller.enumeration.classify_six`; a slow test
#: recomputes them). Where a fold loses the side bets, these wins are never paid.
FOLDED_SIX_COUNTS = {
    "royal_flush": 84, "straight_flush": 6_444, "four_of_a_kind": 21_600,
    "full_house": 388_800, "flush": 706_272, "straight": 3_107_376,
    "three_of_a_kind": 2_880_000, "two_pair": 11_858_400, "pair": 61_485_336,
    "high_card": 52_198_488,
}
_PAIRS = 22_100 * 18_424


def expected_returns(profile: RuleProfile) -> dict[str, Fraction]:
    """Exact expected return per bet under the Q-6-4 rule and the profile's fold rule.

    The par sheet's returns, except the 6 Card Bonus where a fold loses the side bets:
    there the wins a folded hand would have had are taken off, exactly. (Pair Plus needs
    no change: no folded hand holds a pair or better.)
    """
    from controller.enumeration import SIX_CARD_COUNTS
    from controller.par_sheet import compute_par_sheet

    sheet = compute_par_sheet(profile, six_card_counts=SIX_CARD_COUNTS)
    out = {"ante_play": sheet.ante_play.rtp, "pair_plus": sheet.pair_plus.rtp}
    if sheet.six_card_bonus is not None:
        six = sheet.six_card_bonus.rtp
        if profile.fold_loses_side_bets:
            lost = sum((profile.six_card_bonus.get(k, 0) + 1) * n
                       for k, n in FOLDED_SIX_COUNTS.items() if profile.six_card_bonus.get(k))
            six -= Fraction(lost, _PAIRS)
        out["six_card_bonus"] = six
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``simulate``'s options."""
    parser.add_argument("--rules", default="live", help="rule profile name or path")
    parser.add_argument("--seats", type=int, default=7, help="seats in play (1-7)")
    parser.add_argument("--rounds", type=int, default=1000, help="rounds to settle in total")
    parser.add_argument("--seed", type=int, default=1, help="random seed")
    parser.add_argument("--deck-file", help="one round per line: cards in delivery order")
    parser.add_argument("--bets", default=DEFAULT_BETS,
                        help="JSON wagers for every seat, minor units")
    parser.add_argument("--faults", default="",
                        help="e.g. misread=0.01,link_loss=0.005 or all=0.01 (per round)")
    parser.add_argument("--journal", help="journal path (:memory: for none); default: a "
                        "temporary file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _bet_net(rows: dict[str, list[int]], bet: str) -> tuple[int, int]:
    m = rows.get(bet) or [0, 0, 0]
    return m[0], m[1] - m[2]


def summarize(table: Table, elapsed: float, played: int) -> dict[str, Any]:
    """The run's figures: rounds, wagered and net per bet, observed return vs par.

    Standard errors come from the per-round nets in the journal's round records (the
    seats of one round share the dealer's hand, so the round is the sample unit).
    """
    g = table.game
    rows = g.meters
    total = rows.get("total", [0] * 6)
    out: dict[str, Any] = {
        "rules": g.config.rules, "seats": g.config.seats,
        "rounds_settled": total[3], "rounds_voided": g.counters.get("voids", 0),
        "rounds_this_run": played, "seconds": round(elapsed, 3),
        "rounds_per_second": round(played / elapsed, 1) if elapsed > 0 else None,
        "wagered": {}, "net": {}, "return": {}, "par": {}, "expected": {},
        "standard_error": {}, "z": {},
        "counters": dict(sorted(g.counters.items())),
    }
    groups = {"ante_play": ("ante", "play", "ante_bonus"), "pair_plus": ("pair_plus",),
              "six_card_bonus": ("six_card_bonus",)}
    for bet in ("ante", "play", "ante_bonus", "pair_plus", "six_card_bonus"):
        if bet in rows:
            w, n = _bet_net(rows, bet)
            out["wagered"][bet] = w
            out["net"][bet] = n
    from controller.table_views import rtp_for

    par = dict(rtp_for(g.profile))
    expected = expected_returns(g.profile)
    sums = {k: [0, 0, 0.0, 0.0] for k in groups}  # n, stake, sum net, sum net^2
    base = {"ante_play": "ante", "pair_plus": "pair_plus", "six_card_bonus": "six_card_bonus"}
    for rec in table.journal.stored_rounds():
        if rec["status"] != "settled":
            continue
        for key, bets in groups.items():
            stake = net = 0
            for s in rec["seats"]:
                for b, r in s["results"].items():
                    if b in bets:
                        net += r["net"]
                    if b == base[key]:
                        stake += r["stake"]
            if stake:
                acc = sums[key]
                acc[0] += 1
                acc[1] += stake
                acc[2] += net
                acc[3] += net * net
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


def simulate(table: Table, player: AutoPlayer, shoe: EventShoe, rounds: int,
             rng_manual: float = 0.3, chain: bool = True) -> int:
    """Drive ``table`` until ``rounds`` rounds are settled in total.

    Args:
        table: the table (its thread not started).
        player: the autoplayer (with a supervisor PIN for faults).
        shoe: the event shoe.
        rounds: settled rounds to reach, counting those already in the journal.
        rng_manual: share of misreads resolved by a manual card instead of re-presenting.
        chain: send the next round's bets with the settlement (one commit fewer a round).

    Returns:
        Rounds finished (settled or void) by this call.
    """
    process = table.process
    g = table.game
    start = g.meters.get("total", (0, 0, 0, 0))[3] + g.counters.get("voids", 0)
    process([LinkStatus(state=LinkState.ONLINE, detail="simulated shoe")], flush=False)
    round_id = None
    stuck = 0
    while g.meters.get("total", (0, 0, 0, 0))[3] < rounds:
        dealer = table.views()[0]
        if dealer.round_id != round_id:
            round_id = dealer.round_id
            shoe.new_round()
        st = dealer.state
        if st == "betting":
            cmds = player.next_commands(dealer)
            process([*cmds[:-1], *shoe.before_no_more_bets(), cmds[-1]], flush=False)
        elif st == "deciding" and chain and g.meters.get("total", (0, 0, 0, 0))[3] + 1 < rounds:
            cmds = player.next_commands(dealer, chain=True)
            if isinstance(cmds[-1], NoMoreBets):  # the next round opens in the same commit
                round_id = dealer.round_id + 1
                shoe.new_round()
                cmds[-1:-1] = shoe.before_no_more_bets()
            process(cmds, flush=False)
        elif dealer.cards_due and st != "paused":
            process(shoe.deal(dealer.cards_due), flush=False)
        elif dealer.pause_reason == "misread" and shoe.pending:
            if shoe.rng.random() < rng_manual:
                card = shoe.take_pending()
                process([ManualCard(card=card, pin=player.pin)], flush=False)
            else:
                process(shoe.re_present(), flush=False)
        else:
            cmds = player.next_commands(dealer)
            if not cmds:
                stuck += 1
                if stuck > 3:
                    raise RuntimeError(f"simulation stuck in {st}: {dealer.next_action}")
            else:
                stuck = 0
            process(cmds, flush=False)
        if table.locked:
            raise RuntimeError(table.locked)
    table.process([], flush=True)
    return g.meters.get("total", (0, 0, 0, 0))[3] + g.counters.get("voids", 0) - start


def run(args: argparse.Namespace) -> int:
    """Run ``threecard simulate``; prints the figures. Returns the exit status."""
    try:
        bets = json.loads(args.bets)
        if not isinstance(bets, dict) or not all(isinstance(v, int) for v in bets.values()):
            raise ValueError("--bets must be a JSON object of whole minor units")
        faults = parse_faults(args.faults)
        config = TableConfig(rules=args.rules, seats=args.seats, pin_hashes=demo_pin_hashes())
        config.validate()
        from controller.game import profile_for

        validate_bets(profile_for(args.rules), Bets(bets.get("ante", 0),
                                                     bets.get("pair_plus", 0),
                                                     bets.get("six_card_bonus", 0)))
        decks = (Path(args.deck_file).read_text(encoding="utf-8").splitlines()
                 if args.deck_file else None)
        decks = [d for d in decks or () if d.strip() and not d.lstrip().startswith("#")]
    except (ValueError, BetError, RuleProfileError, OSError) as exc:
        print(f"threecard simulate: {exc}", file=sys.stderr)
        return 2
    tmp = None
    path = args.journal
    if not path:
        tmp = tempfile.TemporaryDirectory(prefix="threecard-sim-")
        path = str(Path(tmp.name) / "journal.sqlite")
    try:
        table = Table(path, config)
        if table.locked:
            print(f"threecard simulate: {table.locked}", file=sys.stderr)
            return 1
        player = AutoPlayer(bets=bets, pin=DEMO_PINS["supervisor"])
        shoe = EventShoe(args.seed + table.game.round_id, faults, decks)
        t0 = time.perf_counter()
        played = simulate(table, player, shoe, args.rounds)
        elapsed = time.perf_counter() - t0
        result = summarize(table, elapsed, played)
        result["journal"] = args.journal or "(temporary)"
        result["faults_injected"] = shoe.injected
        table.close()
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        _print_human(result)
    return 0


def _print_human(r: dict[str, Any]) -> None:
    print(f"rules {r['rules']}, {r['seats']} seats: {r['rounds_settled']} rounds settled, "
          f"{r['rounds_voided']} void; {r['rounds_this_run']} this run in {r['seconds']} s "
          f"({r['rounds_per_second']} rounds/s)")
    for bet, w in r["wagered"].items():
        print(f"  {bet:15} wagered {w:>14,}  player net {r['net'][bet]:>+14,}")
    for key, ret in r["return"].items():
        exp, par = r["expected"].get(key), r["par"].get(key)
        line = f"  {key:15} return {ret:.4%}"
        if exp is not None:
            line += (f" (expected {exp:.4%}; par sheet {par:.4%}; SE "
                     f"{r['standard_error'][key]:.4%}; z {r['z'].get(key)})")
        print(line)
