import random

import pytest

from controller.game.cards import (
    DECK,
    CardError,
    format_cards,
    parse_card,
    parse_cards,
    shuffled_deck,
)


@pytest.mark.parametrize("text", ["As", "AS", "as", "aS", " As "])
def test_ace_of_spades_in_every_case(text):
    card = parse_card(text)
    assert (card.rank, card.suit) == (14, "s")
    assert str(card) == "As"


@pytest.mark.parametrize("text", ["10h", "Th", "TH", "th", "10H"])
def test_ten_written_either_way(text):
    assert str(parse_card(text)) == "Th"


@pytest.mark.parametrize("text", ["", "A", "1s", "11h", "Ax", "Zs", "As2", "10", "🂡", None, 14])
def test_bad_text_names_the_input(text):
    with pytest.raises(CardError) as err:
        parse_card(text)
    assert repr(text) in str(err.value)
    assert err.value.text == text


def test_deck_has_52_distinct_cards_that_round_trip():
    assert len(DECK) == 52 and len(set(DECK)) == 52
    assert sorted(c.index for c in DECK) == list(range(52))
    for c in DECK:
        assert parse_card(str(c)) is c
        assert parse_card(str(c).upper()) is c


def test_canonical_text():
    assert format_cards(parse_cards("as 10d 2C")) == "As Td 2c"


def test_parse_cards_rejects_duplicates_and_wrong_count():
    with pytest.raises(CardError, match="twice"):
        parse_cards(["As", "AS", "2c"])
    with pytest.raises(CardError, match="expected 3 cards"):
        parse_cards(["As", "Kd"], 3)


def test_seeded_shuffle_is_reproducible_and_complete():
    a = shuffled_deck(random.Random(7))
    b = shuffled_deck(random.Random(7))
    assert a == b and sorted(a, key=lambda c: c.index) == list(DECK)
