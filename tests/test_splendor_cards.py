"""Splendor's card table (envs/splendor/cards.py), read from the package's own data files, and the known
structure of the published set."""

import csv
from collections import Counter
from importlib import resources

import numpy as np

from tabletop_gym.envs.splendor import cards

COLOR_NAMES = ["white", "blue", "green", "red", "black"]


def read(name):
    """A data file as installed with the package (not the source tree's copy)."""
    with resources.files("tabletop_gym.envs.splendor").joinpath(name).open(newline="") as f:
        return list(csv.DictReader(f))


def test_the_90_cards_are_the_data_file_row_by_row():
    rows = read("cards.csv")
    assert list(rows[0]) == ["tier", "color", "points", *COLOR_NAMES]
    assert len(rows) == cards.NUM_CARDS == 90
    for card, row in enumerate(rows):
        assert cards.TIER[card] == int(row["tier"]), card
        assert cards.COLOR_NAMES[cards.COLOR[card]] == row["color"], card
        assert cards.POINTS[card] == int(row["points"]), card
        assert cards.COST[card].tolist() == [int(row[c]) for c in COLOR_NAMES], card


def test_the_10_nobles_are_the_data_file_row_by_row():
    rows = read("nobles.csv")
    assert len(rows) == cards.NUM_NOBLES == 10
    for noble, row in enumerate(rows):
        assert int(row["points"]) == cards.NOBLE_POINTS
        assert cards.NOBLE_REQUIREMENT[noble].tolist() == [int(row[c]) for c in COLOR_NAMES], noble


def test_some_cards_as_they_read_on_the_table():
    # Tier 1's first white card, the 1-point four-of-a-colour ones, the last 5-pointer, the first noble.
    assert cards.card_text(0) == "#0 W 0pt (3U)"
    assert [cards.card_text(c) for c in (7, 15)] == ["#7 W 1pt (4G)", "#15 U 1pt (4R)"]
    assert cards.card_text(89) == "#89 K 5pt (7R 3K)"
    assert cards.noble_text(0) == "N0 (4W 4U)"


def test_the_structure_of_the_published_set():
    assert [int(np.sum(cards.TIER == t)) for t in (1, 2, 3)] == [40, 30, 20]
    for t, per_color in zip((1, 2, 3), (8, 6, 4)):
        in_tier = cards.TIER == t
        assert np.bincount(cards.COLOR[in_tier], minlength=5).tolist() == [per_color] * 5
        # Every colour is asked for equally often in a tier: 33, 41 and 43 gems.
        assert cards.COST[in_tier].sum(axis=0).tolist() == [{1: 33, 2: 41, 3: 43}[t]] * 5
    assert [int(cards.POINTS[cards.TIER == t].sum()) for t in (1, 2, 3)] == [5, 55, 80]
    assert len({(int(cards.TIER[c]), int(cards.COLOR[c]), int(cards.POINTS[c]), *cards.COST[c].tolist())
                for c in range(90)}) == 90
    shapes = Counter(tuple(sorted(r[r > 0].tolist())) for r in cards.NOBLE_REQUIREMENT)
    assert shapes == {(4, 4): 5, (3, 3, 3): 5}


def test_tier_ranges_and_read_only_tables():
    assert [c.tolist() for c in cards.TIER_CARDS] == [list(range(0, 40)), list(range(40, 70)), list(range(70, 90))]
    assert not cards.COST.flags.writeable and not cards.TIER.flags.writeable
    assert cards.card_text(51) == "#51 U 3pt (6U)" and cards.noble_text(5) == "N5 (3W 3U 3G)"
