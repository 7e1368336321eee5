"""Every count the par sheet is made of: counted, stored and enumerated, all the same.

The counting (controller.game.counting) groups cases that must share an answer; the
enumeration (controller.game.enumeration, NumPy) visits every hand and every six-card set.
The stored copy the table's start-up reads (deck_counts.json) must equal both, to the
last count, and refuse to load when changed.
"""

import hashlib
import itertools
import json
from importlib import resources

import pytest

from controller.game.cards import DECK
from controller.game.counting import counted_text, hand_kinds, six_card_class_counts
from controller.game.deck_counts import (
    QUALIFIERS,
    SIX_CARD_COUNTS,
    STORED_SHA256,
    DeckCountsError,
    StoredCounts,
    stored_counts,
)
from controller.game.enumeration import Enumerated
from controller.game.hands import Qualifier, SixCardClass, evaluate3
from controller.game.par_sheet import compute_par_sheet
from controller.game.rules import load_profile

PROFILES = resources.files("controller.game") / "profiles"    # every profile shipped


@pytest.fixture(scope="module")
def kinds():
    return hand_kinds()


@pytest.fixture(scope="module")
def enumerated(kinds):
    return Enumerated(kinds)


def test_the_kinds_split_the_22100_hands_by_suit_renaming(kinds):
    """Each kind is one class of hands under the 24 renamings of the suits: its weight is
    the size of that class, its value every member's value, and the classes cover the
    deck once."""
    seen = set()
    for k in kinds:
        members = set()
        for perm in itertools.permutations(range(4)):
            members.add(frozenset(DECK[c.index // 4 * 4 + perm[c.index % 4]] for c in k.cards))
        assert len(members) == k.weight, k
        assert {evaluate3(sorted(m, key=lambda c: c.index)) for m in members} == {k.value}
        assert not members & seen
        seen |= members
    assert len(kinds) == 1_755 and len(seen) == 22_100


def test_six_card_sets_counted_by_rank_pattern_are_the_published_counts():
    assert six_card_class_counts() == SIX_CARD_COUNTS
    assert sum(SIX_CARD_COUNTS.values()) == 20_358_520


@pytest.mark.slow
@pytest.mark.parametrize("variant", [
    *sorted(p.name.removesuffix(".toml") for p in PROFILES.iterdir()
            if p.name.endswith(".toml")),
    "live, dealer qualifies with J-high",   # another strategy: other folded hands
    "live, dealer qualifies with a pair",
    "classic, pays 2 on a pair and 5 on a flush's Ante Bonus",
])
def test_the_par_sheet_counted_is_the_par_sheet_enumerated(variant, enumerated, tmp_path):
    """Every line of every bet, the derived strategy and the side bets as a player who
    folds gets them (the folded-hand variants of the 6 Card Bonus and Pair Plus): from
    the counting, the stored counts and the enumeration, for every shipped profile."""
    name = variant.split(",")[0]
    body = (PROFILES / f"{name}.toml").read_text(encoding="utf-8")
    edits = {"J-high": ('"Q-high"', '"J-high"'), "a pair": ('"Q-high"', '"pair"'),
             "pays 2": ("pair = 1", "pair = 2")}
    for key, (old, new) in edits.items():
        if key in variant:
            assert old in body
            body = body.replace(old, new)
    if "flush's Ante Bonus" in variant:
        body = body.replace("[ante_bonus]\n", "[ante_bonus]\nflush = 5\n")
    path = tmp_path / f"{name}.toml"
    path.write_text(body, encoding="utf-8")
    profile = load_profile(path)
    counted = compute_par_sheet(profile)
    assert compute_par_sheet(profile, enumerated) == counted
    assert compute_par_sheet(profile, stored_counts()) == counted
    if name == "live" and variant == name:
        assert counted.strategy.min_play_hand == ("Q", "6", "4")
        folded = [x for x in counted.with_strategy["six_card_bonus"].lines if x.name == "fold"]
        assert folded[0].count == 7_200 * 18_424


@pytest.mark.slow
def test_the_stored_counts_are_the_enumerated_counts(kinds, enumerated):
    """Each kind's dealer hands under every qualifier a profile can name, and the 6 Card
    Bonus classes of its 18,424 six-card sets, as the start-up self-check reads them."""
    stored = stored_counts()
    assert list(stored.kinds()) == list(kinds)
    assert stored.six_card() == enumerated.six_card() == SIX_CARD_COUNTS
    qualifiers = [Qualifier(q) for q in QUALIFIERS]
    by_kind = enumerated.dealer_counts_for(qualifiers)
    for i, q in enumerate(qualifiers):
        assert list(stored.dealer_counts(q)) == [d[i] for d in by_kind], q.text
    every = enumerated.dealer_six_card(range(len(kinds)))
    assert every == {c: 20 * n for c, n in SIX_CARD_COUNTS.items()}
    from controller.game.enumeration import hand_six_card_counts

    six = hand_six_card_counts([[c.index for c in k.cards] for k in kinds]).tolist()
    assert [[stored.dealer_six_card([i])[c] // k.weight for c in SixCardClass]
            for i, k in enumerate(kinds)] == six


@pytest.mark.slow
def test_the_stored_file_is_what_the_counting_writes():
    """`python -m controller.game.counting` writes the file again, byte for byte."""
    text = counted_text()
    shipped = (resources.files("controller.game") / "deck_counts.json").read_bytes()
    assert text.encode() == shipped
    assert hashlib.sha256(shipped).hexdigest() == STORED_SHA256


def test_changed_or_damaged_stored_counts_are_refused():
    shipped = (resources.files("controller.game") / "deck_counts.json").read_bytes()
    StoredCounts(shipped)                                        # as shipped: loads
    changed = shipped.replace(b'["Ac Kc Qc",4,18421,', b'["Ac Kc Qc",4,18420,', 1)
    assert changed != shipped
    with pytest.raises(DeckCountsError, match="does not match its SHA-256"):
        StoredCounts(changed)
    # a file whose digest is given but whose counts do not add up is refused too
    with pytest.raises(DeckCountsError, match="do not add up"):
        StoredCounts(changed, hashlib.sha256(changed).hexdigest())
    doc = json.loads(shipped)
    doc["kinds"] = doc["kinds"][:-1]                             # a kind lost
    short = json.dumps(doc).encode()
    with pytest.raises(DeckCountsError, match="do not add up"):
        StoredCounts(short, hashlib.sha256(short).hexdigest())
    with pytest.raises(DeckCountsError, match="not readable"):
        StoredCounts(b"{", hashlib.sha256(b"{").hexdigest())
