"""Named table situations built from the view contracts, for screenshots and tests.

Each scenario is one moment of a realistic round on a seven-seat table under the
``live`` rules: the same deal throughout, results from :func:`controller.settlement.settle`.
Nothing here talks to a controller; the views are built directly, as the engine would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from controller.cards import parse_cards
from controller.rules import PAY_ORDER, load_profile
from controller.settlement import Bets, Decision, settle
from controller.views import (
    Banner,
    BetLine,
    DealerView,
    HistoryEntry,
    MeterRow,
    PayoutLine,
    Paytables,
    PlayerView,
    RecallRound,
    SeatView,
)
from display.i18n import format_money

SCENARIOS = ("betting", "dealing", "decisions", "reveal-qualify", "reveal-no-qualify",
             "settled", "void", "link-lost", "misread-paused", "recall", "meters")
"""Scenario names, in the order of a shift."""

SEATS = 7
TABLE = "TCP-03"
ROUND = 1287

#: seat -> (cards, bets, decision)
_HANDS: dict[int, tuple[str, Bets, Decision]] = {
    1: ("Ah Kh Qh", Bets(ante=2500, pair_plus=1000, six_card_bonus=500), Decision.PLAY),
    2: ("7c 7d 2s", Bets(ante=1000, pair_plus=500), Decision.PLAY),
    3: ("Tc 9d 8h", Bets(ante=5000, six_card_bonus=500), Decision.PLAY),
    5: ("5h 3d 2c", Bets(ante=1000, pair_plus=500), Decision.FOLD),
    6: ("Kc Jd 4h", Bets(ante=10000, pair_plus=2500, six_card_bonus=2500), Decision.PLAY),
}
_DEALER_Q = "Qs 8d 3c"
_DEALER_NQ = "Js 9h 4d"


@dataclass(frozen=True, slots=True)
class Scenario:
    """One named situation.

    Attributes:
        name: scenario name.
        dealer: the dealer view.
        player: the player view.
        dealer_screen: which dealer screen to open (``main``, ``recall``, ``meters``).
    """

    name: str
    dealer: DealerView
    player: PlayerView
    dealer_screen: str = "main"


def paytables(profile_name: str = "live") -> Paytables:
    """The :class:`Paytables` view of a shipped profile, with its par-sheet returns.

    Args:
        profile_name: ``live`` or ``classic``.

    Returns:
        Paytables high to low, limits, return to player (RULES.md numbers).
    """
    p = load_profile(profile_name)

    def table(m: object) -> tuple[tuple[str, int], ...]:
        items = [(k, int(v)) for k, v in dict(m).items() if int(v) > 0]  # type: ignore[call-overload]
        return tuple(sorted(items, key=lambda kv: -kv[1]))

    limits = tuple((k, lim.min, lim.max) for k, lim in p.limits.items())
    rtp: list[tuple[str, int]] = [("ante_play", 966270)]
    rtp.append(("pair_plus", 955113 if dict(p.pair_plus).get("mini_royal") else 927240))
    if p.offers_six_card_bonus:
        rtp.append(("six_card_bonus", 914386))
    return Paytables(profile=p.name, ante_bonus=table(p.ante_bonus),
                     pair_plus=table(p.pair_plus), six_card_bonus=table(p.six_card_bonus),
                     limits=limits, rtp=tuple(rtp), qualifier="Q-high",
                     player_cards_face_up=p.player_cards_face_up)


def _settled_seats(dealer_text: str) -> tuple[list[SeatView], list[PayoutLine], bool, str]:
    profile = load_profile("live")
    dealer = parse_cards(dealer_text)
    seats: list[SeatView] = []
    lines: dict[str, list[PayoutLine]] = {b: [] for b in PAY_ORDER}
    qualifies, dealer_hand = False, ""
    for n in range(1, SEATS + 1):
        if n not in _HANDS:
            seats.append(SeatView(seat=n))
            continue
        text, bets, decision = _HANDS[n]
        cards = parse_cards(text)
        s = settle(profile, cards, dealer, bets, decision)
        qualifies, dealer_hand = s.dealer_qualifies, s.dealer_hand.hand_class.key
        results = tuple(BetLine(r.bet, r.outcome.value, r.stake, r.net, r.multiple)
                        for r in s.results)
        for r in s.results:
            amount = r.net if r.outcome.value == "win" else r.stake
            lines[r.bet].append(PayoutLine(n, r.bet, r.outcome.value, amount))
        placed = bets.as_dict()
        if decision is Decision.PLAY:
            placed["play"] = bets.ante
        hand = "mini_royal" if s.player_hand.mini_royal else s.player_hand.hand_class.key
        seats.append(SeatView(seat=n, bets=placed, cards=tuple(text.split()), hand=hand,
                              decision=decision.value, results=results, net=s.net,
                              six_card_hand=(s.six_card_hand.key if bets.six_card_bonus
                                             else None)))
    payouts = [pl for b in PAY_ORDER for pl in lines[b]]
    return seats, payouts, qualifies, dealer_hand


def _history() -> tuple[HistoryEntry, ...]:
    return (
        HistoryEntry(ROUND - 1, "settled", ("Kd", "Kc", "4s"), "pair", True,
                     ((1, 2000), (2, -2000), (6, 5000))),
        HistoryEntry(ROUND - 2, "settled", ("9c", "6h", "2d"), "high_card", False,
                     ((1, 1000), (3, 2500))),
        HistoryEntry(ROUND - 3, "void", (), None, None, ((1, 0), (2, 0))),
        HistoryEntry(ROUND - 4, "settled", ("Ad", "Qc", "7s"), "high_card", True,
                     ((2, -1000), (5, 1000), (6, -20000))),
        HistoryEntry(ROUND - 5, "settled", ("8h", "8s", "8d"), "three_of_a_kind", True,
                     ((1, -5000), (3, -2000))),
        HistoryEntry(ROUND - 6, "settled", ("Jc", "5d", "3h"), "high_card", False,
                     ((1, 1000), (2, 1500), (3, 5000), (6, 10000))),
        HistoryEntry(ROUND - 7, "settled", ("Qd", "Jh", "Th"), "straight", True,
                     ((2, -1000), (6, 40000))),
        HistoryEntry(ROUND - 8, "settled", ("4c", "4h", "Ks"), "pair", True,
                     ((1, 2500), (5, -1500))),
    )


def _recall(current: SeatView | None = None) -> tuple[RecallRound, ...]:
    seats, _, _, _ = _settled_seats(_DEALER_Q)
    deal: list[tuple[str | None, str, bool]] = [("9s", "burn", False)]
    in_round = [s for s in seats if s.cards]
    for i in range(3):
        for s in in_round:
            deal.append((s.cards[i], f"seat {s.seat}", False))
        deal.append((_DEALER_Q.split()[i], "dealer", False))
    deal[7] = (deal[7][0], deal[7][1], True)  # one card entered by hand after a misread
    played = tuple(s for s in seats if s.cards)
    rounds = [RecallRound(ROUND, "settled", None, "2025-03-14T21:42:07Z", tuple(deal),
                          tuple(_DEALER_Q.split()), played)]
    for k, h in enumerate(_history(), start=1):
        if h.status == "void":
            rounds.append(RecallRound(h.round_id, "void", "Card read before no more bets",
                                      f"2025-03-14T21:{40 - 2 * k:02d}:11Z",
                                      (("7d", "seat 1", False),), (),
                                      tuple(SeatView(seat=n, bets={"ante": 1000},
                                                     results=(BetLine("ante", "refund", 1000,
                                                                      0),), net=0)
                                            for n, _ in h.seat_nets)))
        else:
            rounds.append(RecallRound(h.round_id, "settled", None,
                                      f"2025-03-14T21:{40 - 2 * k:02d}:11Z", (),
                                      h.dealer_cards,
                                      tuple(SeatView(seat=n, net=net) for n, net in h.seat_nets)))
    rounds.append(RecallRound(ROUND - 9, "settled", None, "2025-03-14T21:20:45Z"))
    return tuple(rounds)


def _meters() -> tuple[MeterRow, ...]:
    rows = [
        MeterRow("ante", 1_842_500, 1_021_000, 1_108_500, 87_500, 412),
        MeterRow("play", 1_480_000, 702_000, 801_000, 99_000, 377),
        MeterRow("ante_bonus", 0, 64_500, 0, -64_500, 29),
        MeterRow("pair_plus", 512_000, 391_500, 438_000, 46_500, 298),
        MeterRow("six_card_bonus", 186_500, 120_000, 171_000, 51_000, 201),
    ]
    for n in range(1, SEATS + 1):
        w = 300_000 + 91_000 * n
        rows.append(MeterRow(f"seat {n}", w, w // 2, w // 2 + 6_000 * n, 6_000 * n, 60 + n))
    total_w = sum(r.wagered for r in rows[:5])
    total_p = sum(r.paid for r in rows[:5])
    total_won = sum(r.won for r in rows[:5])
    rows.append(MeterRow("total", total_w, total_p, total_won, total_won - total_p, 412))
    return tuple(rows)


def _base() -> tuple[DealerView, PlayerView]:
    pt = paytables()
    hist = _history()
    dv = DealerView(table_id=TABLE, round_id=ROUND, link_state="online",
                    link_detail="serial:///dev/card-shoe beetek", paytables=pt,
                    recall=_recall(), meters=_meters(), version=1)
    pv = PlayerView(table_id=TABLE, round_id=ROUND, link_state="online", paytables=pt,
                    history=hist, version=1)
    return dv, pv


def _strip(seats: list[SeatView], upto: int | None = None) -> list[SeatView]:
    """Seats with bets and cards (first ``upto`` cards), before any result."""
    out = []
    for s in seats:
        if not s.cards:
            out.append(SeatView(seat=s.seat))
            continue
        bets = {k: v for k, v in s.bets.items() if k != "play"}
        cards = s.cards if upto is None else s.cards[:upto]
        hand = s.hand if len(cards) == 3 else None
        out.append(SeatView(seat=s.seat, bets=bets, cards=cards, hand=hand))
    return out


def _with_decisions(seats: list[SeatView], full: list[SeatView],
                    decided: set[int]) -> list[SeatView]:
    out = []
    for s, f in zip(seats, full, strict=True):
        if s.seat in decided and f.decision:
            bets = dict(s.bets)
            if f.decision == "play":
                bets["play"] = bets["ante"]
            s = replace(s, decision=f.decision, bets=bets)
        out.append(s)
    return out


def build(name: str) -> Scenario:
    """Build one scenario.

    Args:
        name: one of :data:`SCENARIOS`.

    Returns:
        The dealer and player views of that moment.

    Raises:
        KeyError: an unknown scenario name.
    """
    if name not in _BUILDERS:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    return _BUILDERS[name]()


def _betting() -> Scenario:
    dv, pv = _base()
    seats = [SeatView(seat=n) for n in range(1, SEATS + 1)]
    seats[0] = SeatView(seat=1, bets={"ante": 2500, "pair_plus": 1000, "six_card_bonus": 500})
    seats[1] = SeatView(seat=2, bets={"ante": 1000})
    seats[2] = SeatView(seat=3, bets={"ante": 5000, "six_card_bonus": 500})
    allowed = frozenset({"place_bet", "clear_bets", "rebet", "no_more_bets", "new_deck"})
    dv = replace(dv, state="betting", next_action="Place bets, then press No more bets",
                 next_action_key="place_bets", seats=tuple(seats), allowed=allowed)
    pv = replace(pv, state="betting", seats=tuple(seats))
    return Scenario("betting", dv, pv)


def _dealing() -> Scenario:
    dv, pv = _base()
    full, _, _, _ = _settled_seats(_DEALER_Q)
    seats = _strip(full, 1)
    seats = [replace(s, cards=(*s.cards, full[i].cards[1])) if s.seat in (1, 2) else s
             for i, s in enumerate(seats)]
    dv = replace(dv, state="dealing", next_action="Deal the cards from the shoe",
                 next_action_key="deal", next_card=(3, 2), seats=tuple(seats),
                 dealer_cards=(None,), allowed=frozenset({"void"}))
    pv = replace(pv, state="dealing", seats=tuple(seats), dealer_cards=(None,))
    return Scenario("dealing", dv, pv)


def _decisions() -> Scenario:
    dv, pv = _base()
    full, _, _, _ = _settled_seats(_DEALER_Q)
    seats = _with_decisions(_strip(full), full, {1, 2})
    dv = replace(dv, state="deciding", next_action="Record each seat: Play or Fold",
                 next_action_key="decide", seats=tuple(seats), dealer_cards=(None,) * 3,
                 allowed=frozenset({"decide", "void"}))
    pv = replace(pv, state="deciding", seats=tuple(seats), dealer_cards=(None,) * 3)
    return Scenario("decisions", dv, pv)


def _reveal(name: str, dealer_text: str) -> Scenario:
    dv, pv = _base()
    full, payouts, qualifies, dealer_hand = _settled_seats(dealer_text)
    dealer_cards = tuple(dealer_text.split())
    dv = replace(dv, state="reveal", next_action="Settle the bets", next_action_key="settle",
                 seats=tuple(full), dealer_cards=dealer_cards, dealer_hand=dealer_hand,
                 dealer_qualifies=qualifies, payouts=tuple(payouts),
                 allowed=frozenset({"settle"}))
    pv = replace(pv, state="reveal", seats=tuple(full), dealer_cards=dealer_cards,
                 dealer_hand=dealer_hand, dealer_qualifies=qualifies)
    return Scenario(name, dv, pv)


def _settled() -> Scenario:
    sc = _reveal("settled", _DEALER_Q)
    dv = replace(sc.dealer, state="settled", next_action="Collect cards, then open the next round",
                 next_action_key="next_round", allowed=frozenset({"next_round", "new_deck"}))
    pv = replace(sc.player, state="settled")
    return Scenario("settled", dv, pv)


def _void() -> Scenario:
    dv, pv = _base()
    full, _, _, _ = _settled_seats(_DEALER_Q)
    seats = []
    payouts = []
    for s in _strip(full, 2):
        if not s.bets:
            seats.append(s)
            continue
        lines = tuple(BetLine(b, "refund", s.bets[b], 0) for b in PAY_ORDER if b in s.bets)
        seats.append(replace(s, results=lines, net=0))
        payouts.extend(PayoutLine(s.seat, ln.bet, "refund", ln.stake) for ln in lines)
    payouts.sort(key=lambda p: PAY_ORDER.index(p.bet))
    refunds = ", ".join(f"seat {s.seat} {format_money(sum(s.bets.values()))}" for s in seats
                        if s.bets)
    banner = Banner("void", "error", "Round void: every bet is returned",
                    "Return every wager, then open the next round",
                    {"reason": "Shoe jammed mid-deal; card sequence not intact",
                     "refunds": refunds})
    dv = replace(dv, state="void", next_action="Collect cards, then open the next round",
                 next_action_key="next_round", seats=tuple(seats), dealer_cards=(None, None),
                 banners=(banner,), payouts=tuple(payouts),
                 allowed=frozenset({"next_round", "new_deck"}))
    pv = replace(pv, state="void", seats=tuple(seats), dealer_cards=(None, None),
                 banners=(banner,))
    return Scenario("void", dv, pv)


def _link_lost() -> Scenario:
    sc = _dealing()
    banner = Banner("link_lost", "error", "Shoe link lost: serial port closed",
                    "Check the shoe cable; the round waits", {"port": "/dev/card-shoe"})
    dv = replace(sc.dealer, state="paused", link_state="disconnected",
                 link_detail="serial:///dev/card-shoe: device disconnected, retrying in 4 s",
                 next_action="Reconnect the shoe", next_action_key="resolve",
                 banners=(banner,), allowed=frozenset({"void"}), version=2)
    pv = replace(sc.player, state="paused", link_state="disconnected", banners=(banner,),
                 version=2)
    return Scenario("link-lost", dv, pv)


def _misread() -> Scenario:
    dv, pv = _base()
    full, _, _, _ = _settled_seats(_DEALER_Q)
    seats = _strip(full, 1)
    seats = [replace(s, cards=(*s.cards, full[i].cards[1])) if s.seat in (1, 2, 3) else s
             for i, s in enumerate(seats)]
    banner = Banner("misread", "warning", "Shoe misread the card for seat 5, card 2",
                    "Re-present the card or enter it by hand (supervisor)",
                    {"seat": "5", "n": "2"})
    dv = replace(dv, state="paused", next_action="Re-present the card or enter it by hand",
                 next_action_key="resolve", next_card=(5, 2), seats=tuple(seats),
                 dealer_cards=(None,), banners=(banner,), awaiting_supervisor="manual_card",
                 allowed=frozenset({"manual_card", "void", "resume"}))
    pv = replace(pv, state="paused", seats=tuple(seats), dealer_cards=(None,))
    return Scenario("misread-paused", dv, pv)


def _recall_sc() -> Scenario:
    sc = _settled()
    return Scenario("recall", sc.dealer, sc.player, "recall")


def _meters_sc() -> Scenario:
    sc = _betting()
    return Scenario("meters", sc.dealer, sc.player, "meters")


_BUILDERS: dict[str, Callable[[], Scenario]] = {
    "betting": _betting,
    "dealing": _dealing,
    "decisions": _decisions,
    "reveal-qualify": lambda: _reveal("reveal-qualify", _DEALER_Q),
    "reveal-no-qualify": lambda: _reveal("reveal-no-qualify", _DEALER_NQ),
    "settled": _settled,
    "void": _void,
    "link-lost": _link_lost,
    "misread-paused": _misread,
    "recall": _recall_sc,
    "meters": _meters_sc,
}
