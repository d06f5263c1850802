"""Card codes, labels and stacked-deck validation shared by the card games."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop_gym.envs.core.cards import (JOKERS, card_code, card_label, parse_card, parse_deck,
                                           standard_deck)


@pytest.mark.parametrize("code, label", [("AS", "A♠"), ("TD", "10♦"), ("10d", "10♦"), ("qh", "Q♥"),
                                         ("JC", "J♣"), ("jk", "JK"), (" 7s ", "7♠")])
def test_codes_parse_case_insensitively_and_print_with_suit_symbols(code, label):
    assert card_label(parse_card(code)) == label


@given(st.sampled_from(standard_deck(jokers=1)))
def test_code_round_trip(card):
    assert parse_card(card_code(card)) == card


@pytest.mark.parametrize("bad", ["", "1S", "AX", "11H", "KSS", "J", 5, None])
def test_bad_codes_are_rejected(bad):
    with pytest.raises(ValueError, match="card code"):
        parse_card(bad)


def test_parse_deck_maps_each_joker_to_its_own_id():
    ids = parse_deck(["JK", "AS", "JK"], [0, *JOKERS])
    assert sorted(ids.tolist()) == [0, 52, 53]


def test_parse_deck_names_every_problem():
    with pytest.raises(ValueError) as error:
        parse_deck(["AS", "AS", "KH"], [0, 1, 2])
    message = str(error.value)
    assert "repeated: AS" in message and "not in this game: KH" in message and "missing: 2S, 3S" in message
    with pytest.raises(ValueError, match="3 jokers, but this game's deck holds 2 jokers"):
        parse_deck(["JK"] * 3, list(JOKERS) + [0])
