"""Every scenario, both views, three sizes and three languages: texts fit, results shown."""

import pygame
import pytest
from player_pages import page_texts, player_pages

from display.dealer import DealerScreen
from display.player import PlayerScreen
from display.scenarios import SCENARIOS, build

SIZES = [(800, 480), (1920, 1080), (1080, 1920)]
LANGS = ["en", "fr", "uk"]
# the dealer's hand is turned in these rounds; results and payouts exist once settled
REVEALED = {"reveal", "settled"}


@pytest.fixture(scope="module")
def screens(fonts):
    return {lang: (DealerScreen(fonts, lang), PlayerScreen(fonts, lang)) for lang in LANGS}


def _check_texts(frame, where):
    bad = [(t.text, t.role, t.size) for t in frame.texts
           if not t.box.contains(t.rect) or t.truncated]
    assert not bad, f"{where}: texts out of their box or cut: {bad[:8]}"
    w, h = frame.size
    screen = pygame.Rect(0, 0, w, h)
    assert all(screen.contains(t.rect) for t in frame.texts)


def _not_blank(surface, rect):
    """The region holds drawn content: its pixels are not one flat colour."""
    sub = surface.subsurface(rect.clip(surface.get_rect()))
    colors = set()
    step_x = max(1, sub.get_width() // 24)
    step_y = max(1, sub.get_height() // 24)
    for x in range(0, sub.get_width(), step_x):
        for y in range(0, sub.get_height(), step_y):
            colors.add(tuple(sub.get_at((x, y)))[:3])
    return len(colors) > 3


def _active_seats(view):
    return [s.seat for s in view.seats if s.bets or s.cards]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", SCENARIOS)
def test_player_scenario(screens, name, size, lang):
    sc = build(name)
    pages = player_pages(screens[lang][1], sc.player, size)
    surface, frame = pages[0]
    where = f"player {name} {size} {lang}"
    for _, page in pages:
        _check_texts(page, where)
    # every seat of the table is drawn; the paytables, limits and RTP are on screen (R14),
    # on one page or turning through several
    for s in sc.player.seats:
        assert f"seat.{s.seat}" in frame.regions, where
    assert frame.texts_in("paytables"), where
    texts = page_texts(pages)
    assert any(t.role == "rtp.value" for t in texts), where
    assert any(t.role == "limits.value" for t in texts), where
    assert sum(1 for t in texts if "%" in t.text) >= 3, where
    assert "link" in frame.regions
    if sc.player.state == "settled":
        for n in _active_seats(sc.player):
            texts = frame.texts_in(f"seat.{n}.results")
            assert texts, f"{where}: seat {n} results empty"
            assert _not_blank(surface, frame.regions[f"seat.{n}.results"])
            assert frame.texts_in(f"seat.{n}.net"), f"{where}: seat {n} net missing"
    if sc.player.state in REVEALED:
        q = [t.text for t in frame.texts if t.role.startswith("dealer.qualifies")]
        expected = screens[lang][1].tr("dealer.qualifies" if sc.player.dealer_qualifies
                                       else "dealer.not_qualify")
        assert " ".join(q) == expected  # on one line, or split over two
    else:
        assert not [t for t in frame.texts if t.role.startswith("dealer.qualifies")], where
    if name in ("void", "link-lost"):
        assert frame.texts_in("banner"), f"{where}: banner missing"
        assert frame.regions["banner"].width > size[0] * 0.9  # full width
    if name == "void":
        # the script's round 10: seat 1 bets 25 + 10 + 5, seat 2 10 + 5, seat 6 100 + 25 + 25
        act = [" ".join(t.text for t in frame.texts if t.role.startswith("banner.act"))]
        tr = screens[lang][1].tr
        assert act and all(tr.money(x) in act[0] for x in (4000, 1500, 15000)), act
        assert "40,00" in act[0] if lang != "en" else "40.00" in act[0]
    if sc.player.history:
        assert frame.texts_in("history")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", SCENARIOS)
def test_dealer_scenario(screens, name, size, lang):
    sc = build(name)
    screen = screens[lang][0]
    screen.ui.screen = sc.dealer_screen
    surface = pygame.Surface(size)
    try:
        frame = screen.draw(surface, sc.dealer)
    finally:
        screen.ui.screen = "main"
    where = f"dealer {name} {size} {lang}"
    _check_texts(frame, where)
    assert frame.texts_in("link"), f"{where}: shoe link state not shown"
    mode = sc.dealer_screen
    assert frame.notes["mode"] == mode
    if mode == "recall":
        (title,) = [t.text for t in frame.texts if t.role == "recall.title"]
        assert title.split()[0] == screen.tr("screen.recall").split()[0], where
        assert frame.texts_in("recall.detail")
        assert frame.texts_in("recall.band")
        return
    if mode == "meters":
        # every meter with its voids and refunds (8 columns, in one table or two)
        cells = [t for t in frame.texts if t.role == "meters.cell"]
        assert len(cells) in (8 * len(sc.dealer.meters), 9 * len(sc.dealer.meters))
        return
    if mode == "outcomes":
        # the rounds dealt as outcomes: their rounds, then a row per bet (5 columns)
        cells = [t for t in frame.texts if t.role == "meters.outcomes.cell" and t.text]
        assert cells and cells[0].text == screen.tr("meter.rounds"), where
        return
    assert frame.texts_in("next_action"), where
    assert frame.texts_in("next_card"), where
    for s in sc.dealer.seats:
        assert f"seat.{s.seat}" in frame.regions, where
    if sc.dealer.next_card is not None:
        seat, n = sc.dealer.next_card
        want = screen.tr("card.seat", seat=seat, n=n)
        assert " ".join(t.text for t in frame.texts
                        if t.role in ("next_card", "next_card2")) == want
    if sc.dealer.state == "settled":
        # the payout list: every result of every seat, in its seat, and a tick per seat
        for s in sc.dealer.seats:
            amounts = [t for t in frame.texts if t.role == f"seat.{s.seat}.amount"]
            assert len(amounts) == len(s.results), where
            if s.results:
                assert frame.texts_in(f"seat.{s.seat}.results"), f"{where}: seat {s.seat}"
                assert frame.button(f"seat.{s.seat}.paid").enabled
    if [b for b in sc.dealer.banners if b.kind != "rejected"]:
        assert frame.texts_in("banner.0"), where
    if name == "decisions":
        undecided = [s.seat for s in sc.dealer.seats if s.bets.get("ante") and not s.decision]
        for n in undecided:
            assert frame.button(f"seat.{n}.play").enabled
            assert frame.button(f"seat.{n}.fold").enabled


@pytest.mark.parametrize("view", ["dealer", "player"])
def test_4k_settled(fonts, view):
    sc = build("settled")
    surface = pygame.Surface((3840, 2160))
    if view == "dealer":
        frame = DealerScreen(fonts, "en").draw(surface, sc.dealer)
    else:
        frame = PlayerScreen(fonts, "en").draw(surface, sc.player)
    _check_texts(frame, f"{view} 4k")
    nets = [t for t in frame.texts if t.role.endswith((".net", ".paid.sub"))]
    assert nets and min(t.size for t in nets) >= 40  # large type at 4K


@pytest.mark.parametrize("pad", ["reason", "card", "pin"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_pads_fit(fonts, pad, size):
    for lang in LANGS:
        screen = DealerScreen(fonts, lang)
        screen.ui.pad = pad
        screen.ui.pad_action = {"reason": "void", "card": "manual_card"}.get(pad, "unblock_deck")
        screen.ui.pin = "12"
        frame = screen.draw(pygame.Surface(size), build("misread-paused").dealer)
        _check_texts(frame, f"pad {pad} {size} {lang}")
        # modal: only pad buttons take input
        assert frame.buttons and all(b.id.startswith("pad.") for b in frame.buttons)


@pytest.mark.parametrize("lang", ["fr", "uk"])
def test_player_paytables_name_every_hand_in_the_screen_language(screens, lang):
    """The paytables show each hand in the screen's language, never the English name."""
    from display.i18n import MESSAGES, Translator

    view = build("settled").player
    pages = player_pages(screens[lang][1], view, (1920, 1080))
    shown = {t.text for _, frame in pages for t in frame.texts_in("paytables")}
    pt = view.paytables
    keys = {k for table in (pt.ante_bonus, pt.pair_plus, pt.six_card_bonus) for k, _ in table}
    assert {"mini_royal", "three_of_a_kind", "royal_flush"} <= keys
    tr = Translator(lang)
    assert {tr.hand(k) for k in keys} <= shown
    english = {MESSAGES["en"][f"hand.{k}"] for k in keys} - {tr.hand(k) for k in keys}
    assert not english & shown, sorted(english & shown)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_player_screen_says_what_each_6_card_bonus_return_assumes(screens, size, lang):
    """A fold loses the 6 Card Bonus (live rules): the screen shows the paytable's return
    as the return of a hand played, and beside it what a player folding below Q-6-4 gets
    (docs/rules.md, the par sheet's two figures)."""
    from display.i18n import Translator, format_rtp

    view = build("settled").player
    tr = Translator(lang)
    rows = [t.text for _, frame in player_pages(screens[lang][1], view, size)
            for t in frame.texts_in("paytables")]
    played = tr("player.rtp_played", bet=tr.bet("six_card_bonus"))
    folding = tr("player.rtp_strategy", hand="Q-6-4")
    assert played in rows and folding in rows
    want = {"en": ("91.44%", "71.73%"), "fr": ("91,44\u00a0%", "71,73\u00a0%"),
            "uk": ("91,44%", "71,73%")}[lang]
    assert rows[rows.index(played) + 1] == format_rtp(914386, lang) == want[0]
    assert rows[rows.index(folding) + 1] == format_rtp(717301, lang) == want[1]


@pytest.mark.parametrize("lang, want", [
    ("en", "RECALL  Round {r} ({i} of {n})"),
    ("fr", "HISTORIQUE  Coup {r} ({i} sur {n})"),
    ("uk", "ІСТОРІЯ  Гра {r} ({i} з {n})")])
def test_recall_header_names_the_round_and_its_place_among_those_kept(fonts, lang, want):
    """Not "Round 11 of the last 10": the round shown, then which of the rounds kept."""
    sc = build("recall")
    rounds = sc.dealer.recall
    assert len(rounds) >= 3
    for index in (0, 2):
        screen = DealerScreen(fonts, lang)
        screen.ui.screen = sc.dealer_screen
        screen.ui.recall_index = index
        frame = screen.draw(pygame.Surface((1280, 800)), sc.dealer)
        (title,) = [t.text for t in frame.texts if t.role == "recall.title"]
        assert title == want.format(r=rounds[index].round_id, i=index + 1, n=len(rounds))
