"""``threecard par-sheet``: print the exact par sheet of a rule profile, counted afresh each run."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

from controller.game.bet_types import ANTE_PLAY, GROUPS, PAIR_PLUS, SIX_CARD_BONUS
from controller.game.numbers import format_number, format_odds, format_percent
from controller.game.par_sheet import N_HANDS as HANDS
from controller.game.par_sheet import BetAnalysis, ParSheet, compute_par_sheet
from controller.game.rules import RuleProfileError, load_profile

BET_TITLES = {ANTE_PLAY: "Ante / Play (with Ante Bonus, optimal play)",
              PAIR_PLUS: "Pair Plus", SIX_CARD_BONUS: "6 Card Bonus"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules`` and ``--json`` to the sub-command parser."""
    parser.add_argument("--rules", default="live",
                        help="rule profile: live, classic or a TOML file path (default live)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def _bet_json(a: BetAnalysis) -> dict:
    return {
        "rtp": round(float(a.rtp), 6),
        "house_edge": round(float(a.house_edge), 6),
        "ev": float(a.ev),
        "ev_fraction": _frac(a.ev),
        "cases": a.total,
        "lines": [{"hand": x.name, "count": x.count, "probability": float(x.probability),
                   "pay": x.pay, "contribution": float(x.contribution)} for x in a.lines],
    }


def sheet_to_json(sheet: ParSheet) -> dict:
    """The par sheet as a JSON-ready dict (returns as numbers, exact EVs as fractions)."""
    st = sheet.strategy
    ante = _bet_json(sheet.ante_play)
    ante.update({
        # ``house_edge`` of Ante/Play is per total wagered (Ante + Play), as the trade
        # quotes it; per unit of Ante it is 1 - rtp:
        "house_edge": round(float(st.house_edge_per_wager), 6),
        "house_edge_per_ante": round(float(-sheet.ante_play.ev), 6),
        "min_play_hand": list(st.min_play_hand),
        "hands_played": st.hands_played,
        "play_probability": float(st.play_probability),
        "threshold_strategy": st.threshold,
        "house_edge_per_total_wager": round(float(st.house_edge_per_wager), 6),
        "house_edge_per_total_wager_fraction": _frac(st.house_edge_per_wager),
        "dealer_qualifies": sheet.dealer_qualifies,
    })
    out = {"profile": sheet.profile, ANTE_PLAY: ante, PAIR_PLUS: _bet_json(sheet.pair_plus)}
    if sheet.six_card_bonus is not None:
        out[SIX_CARD_BONUS] = _bet_json(sheet.six_card_bonus)
    # the side bets as a player following the derived strategy gets them (fold rule applied)
    out["with_strategy"] = {k: _bet_json(a) for k, a in sheet.with_strategy.items()}
    return out


def _print_table(sheet: ParSheet) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"[bold]Par sheet: {sheet.profile}[/bold] (exact, every case counted)")
    for key in GROUPS:
        a: BetAnalysis | None = getattr(sheet, key)
        if a is None:
            continue
        t = Table(title=BET_TITLES[key], title_justify="left")
        pays_title = "net (Ante units)" if key == "ante_play" else "pays"
        for col in ("hand / outcome", "count", "probability", pays_title, "contribution"):
            t.add_column(col, justify="left" if col.startswith("hand") else "right")
        for x in a.lines:
            if key == "ante_play":
                pay = f"{x.pay:+d}"
            else:
                pay = "lose" if x.name == "lose" else format_odds(x.pay)
            t.add_row(x.name.replace("_", " "), format_number(x.count),
                      f"{float(x.probability):.8f}",
                      pay, f"{float(x.contribution):+.6f}")
        console.print(t)
        console.print(f"  return to player {format_percent(a.rtp, digits=4)}   "
                      f"EV {_frac(a.ev)} per unit")
        played = sheet.with_strategy.get(key)
        if played is not None and played.rtp != a.rtp:
            console.print(f"  for a player who plays {'-'.join(sheet.strategy.min_play_hand)} "
                          "or better and folds the rest, a fold losing this bet: return "
                          f"{format_percent(played.rtp, digits=4)}   EV {_frac(played.ev)} "
                          "per unit")
        if key == "ante_play":
            st = sheet.strategy
            console.print(f"  optimal strategy (derived): play {'-'.join(st.min_play_hand)} or "
                          f"better ({format_number(st.hands_played)} of "
                          f"{format_number(HANDS)} hands, P(play) "
                          f"{float(st.play_probability):.4f}); house edge per total wagered "
                          f"{format_percent(st.house_edge_per_wager, digits=4)}; dealer "
                          f"qualifies in {format_number(sheet.dealer_qualifies)} of "
                          f"{format_number(HANDS)} hands")


def run(args: argparse.Namespace) -> int:
    """Compute and print the par sheet; 2 when the rule profile cannot be loaded."""
    try:
        profile = load_profile(args.rules)
    except RuleProfileError as exc:
        print(f"threecard par-sheet: --rules: {exc}", file=sys.stderr)
        return 2
    sheet = compute_par_sheet(profile)  # counted now: exact, never a stored copy
    if args.json:
        print(json.dumps(sheet_to_json(sheet)))
    else:
        _print_table(sheet)
    for key in GROUPS:
        a = getattr(sheet, key)
        if a is not None and a.rtp >= 1:
            print(f"threecard par-sheet: WARNING: {BET_TITLES[key]} returns "
                  f"{format_percent(a.rtp, digits=4)} to the player (100 % or more); the table "
                  "will refuse these rules", file=sys.stderr)
    return 0
