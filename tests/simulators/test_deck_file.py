"""One deck-file reader for ``simulate`` and ``shoe-sim``: a bad file is one line, exit 2."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.game.cards import shuffled_deck
from simulators.deck_file import DeckFileError, read_deck_file

CMD = [sys.executable, "-m", "controller.cli"]
COMMANDS = {
    "simulate": ["simulate", "--rounds", "1", "--seats", "1", "--journal", ":memory:"],
    "shoe-sim": ["shoe-sim", "--dialect", "native", "--tcp", "127.0.0.1:0"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("text", "message"), [
    ("Xx Ks\n", "line 1: not a card: 'Xx' (expected rank 2-9/T/10/J/Q/K/A then suit "
                "c/d/h/s)"),
    ("# round 1\nAs Kd\n\n2c 11h 3d  # a typo\n", "line 4: not a card: '11h' (expected rank "
                                                 "2-9/T/10/J/Q/K/A then suit c/d/h/s)"),
    ("# nothing but comments\n\n   # and blanks\n", "no card in it (only blank lines or "
                                                    "comments)"),
    ("", "no card in it (only blank lines or comments)"),
])
def test_a_bad_deck_file_is_one_line_naming_the_flag_and_the_line(tmp_path, command, text,
                                                                    message):
    deck = tmp_path / "d.txt"
    deck.write_text(text, encoding="utf-8")
    out = subprocess.run([*CMD, *COMMANDS[command], "--deck-file", str(deck)],
                         capture_output=True, text=True, timeout=60, check=False)
    sep = ", " if message.startswith("line") else ": "
    assert out.returncode == 2
    assert out.stderr == f"threecard {command}: --deck-file {deck}{sep}{message}\n"
    assert out.stdout == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_deck_file_is_one_line(tmp_path, command):
    deck = tmp_path / "none.txt"
    out = subprocess.run([*CMD, *COMMANDS[command], "--deck-file", str(deck)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2
    assert out.stderr == (f"threecard {command}: --deck-file {deck}: No such file or "
                          "directory\n")


def test_simulate_refuses_a_round_with_a_card_twice_and_shoe_sim_deals_packs_on(tmp_path):
    deck = tmp_path / "d.txt"
    deck.write_text("As Kd 2c\nAs As Kd 2c 3c 4c\n", encoding="utf-8")
    out = subprocess.run([*CMD, *COMMANDS["simulate"], "--deck-file", str(deck)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2
    assert out.stderr == (f"threecard simulate: --deck-file {deck}, line 2: the same card "
                          "twice: As (a line is one round, from one deck)\n")
    # shoe-sim deals the file in order, several packs one after another: a card may recur
    assert [c for line in read_deck_file(str(deck)) for c in line] == [
        "As", "Kd", "2c", "As", "As", "Kd", "2c", "3c", "4c"]


def test_a_deck_file_that_is_not_text_is_refused(tmp_path):
    deck = tmp_path / "d.bin"
    deck.write_bytes(b"As \xff\xfe Kd\n")
    with pytest.raises(DeckFileError, match=r"^--deck-file .*d\.bin: not UTF-8 text$"):
        read_deck_file(str(deck))


@given(st.lists(st.integers(0, 51), min_size=1, max_size=20),
       st.sampled_from([" ", "  ", "\t"]), st.booleans())
def test_every_card_text_reads_back_in_order(tmp_path_factory, picks, sep, tens):
    deck = [str(c) for c in shuffled_deck(random.Random(0))]
    cards = [deck[i] for i in picks]
    texts = [c.replace("T", "10") if tens else c for c in cards]
    path = tmp_path_factory.mktemp("deck") / "d.txt"
    path.write_text(f"# scripted\n{sep.join(texts)}  # end\n", encoding="utf-8")
    assert read_deck_file(str(path)) == [cards]
