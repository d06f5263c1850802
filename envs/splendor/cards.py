"""The 90 development cards and 10 nobles of Splendor, as numpy tables.

Card ids are the rows of the card table (0-89): tier 1 first (0-39), then tier 2 (40-69) and
tier 3 (70-89), in the order of the game's published card list, which ships beside this module as
``cards.csv`` and ``nobles.csv``. Noble ids are 0-9 in the same way.
Gem colours are always in the order white ``W``, blue ``U``, green ``G``, red ``R``, black ``K``;
gold ``Y`` exists only as a token.
"""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np

COLORS = "WUGRK"
TOKEN_COLORS = COLORS + "Y"
COLOR_NAMES = ("white", "blue", "green", "red", "black")
NUM_COLORS = 5
GOLD = 5  # index of gold among the token colours


def _read(name: str) -> list[dict]:
    """A table of the package's own data files (the game's published card list, one row a card)."""
    with resources.files(__package__).joinpath(name).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# cards.csv: tier, bonus colour, points and cost in white, blue, green, red, black; the row is the card id.
_CARDS = _read("cards.csv")
# nobles.csv: points and the bonuses asked for, in the same colours; the row is the noble id.
_NOBLES = _read("nobles.csv")

NUM_CARDS = len(_CARDS)  # 90
NUM_NOBLES = len(_NOBLES)  # 10
NOBLE_POINTS = 3  # every noble; the data file says so on each row, and the tests hold the two together

TIER = np.array([int(row["tier"]) for row in _CARDS], dtype=np.int8)  # 1, 2 or 3
COLOR = np.array([COLOR_NAMES.index(row["color"]) for row in _CARDS], dtype=np.int8)
POINTS = np.array([int(row["points"]) for row in _CARDS], dtype=np.int8)
COST = np.array([[int(row[name]) for name in COLOR_NAMES] for row in _CARDS], dtype=np.int8)
NOBLE_REQUIREMENT = np.array([[int(row[name]) for name in COLOR_NAMES] for row in _NOBLES], dtype=np.int8)

TIERS = (1, 2, 3)
TIER_SIZE = (40, 30, 20)
TIER_FIRST = (0, 40, 70)  # id of each tier's first card
TIER_CARDS = tuple(np.arange(first, first + size, dtype=np.int8) for first, size in zip(TIER_FIRST, TIER_SIZE))

for _array in (TIER, COLOR, POINTS, COST, NOBLE_REQUIREMENT):
    _array.setflags(write=False)


def card_text(card: int) -> str:
    """A card as it reads on the table: ``#52 U 3pt (6U)``: id, bonus colour, points, cost."""
    cost = " ".join(f"{n}{COLORS[c]}" for c, n in enumerate(COST[card]) if n)
    return f"#{card} {COLORS[COLOR[card]]} {POINTS[card]}pt ({cost})"


def noble_text(noble: int) -> str:
    """A noble and what it asks for: ``N3 (4G 4R)``."""
    need = " ".join(f"{n}{COLORS[c]}" for c, n in enumerate(NOBLE_REQUIREMENT[noble]) if n)
    return f"N{noble} ({need})"
