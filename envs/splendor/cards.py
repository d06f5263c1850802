"""The 90 development cards and 10 nobles of Splendor, as numpy tables.

Card ids are the rows of the card table (0-89): tier 1 first (0-39), then tier 2 (40-69) and
tier 3 (70-89), in the order of the game's published card list. Noble ids are 0-9 in the same way.
Gem colours are always in the order white ``W``, blue ``U``, green ``G``, red ``R``, black ``K``;
gold ``Y`` exists only as a token.
"""

from __future__ import annotations

import numpy as np

COLORS = "WUGRK"
TOKEN_COLORS = COLORS + "Y"
COLOR_NAMES = ("white", "blue", "green", "red", "black")
NUM_COLORS = 5
GOLD = 5  # index of gold among the token colours

# (tier, bonus colour, points, cost in W U G R K)
_CARDS = [
    # tier 1
    (1, "W", 0, "03000"),
    (1, "W", 0, "00021"),
    (1, "W", 0, "02002"),
    (1, "W", 0, "01111"),
    (1, "W", 0, "31001"),
    (1, "W", 0, "02201"),
    (1, "W", 0, "01211"),
    (1, "W", 1, "00400"),
    (1, "U", 0, "10002"),
    (1, "U", 0, "00003"),
    (1, "U", 0, "10111"),
    (1, "U", 0, "00202"),
    (1, "U", 0, "10220"),
    (1, "U", 0, "10121"),
    (1, "U", 0, "01310"),
    (1, "U", 1, "00040"),
    (1, "G", 0, "21000"),
    (1, "G", 0, "00030"),
    (1, "G", 0, "11011"),
    (1, "G", 0, "02020"),
    (1, "G", 0, "13100"),
    (1, "G", 0, "11012"),
    (1, "G", 0, "01022"),
    (1, "G", 1, "00004"),
    (1, "R", 0, "30000"),
    (1, "R", 0, "02100"),
    (1, "R", 0, "20020"),
    (1, "R", 0, "11101"),
    (1, "R", 0, "21101"),
    (1, "R", 0, "20102"),
    (1, "R", 0, "10013"),
    (1, "R", 1, "40000"),
    (1, "K", 0, "00300"),
    (1, "K", 0, "00210"),
    (1, "K", 0, "20200"),
    (1, "K", 0, "11110"),
    (1, "K", 0, "22010"),
    (1, "K", 0, "12110"),
    (1, "K", 0, "00131"),
    (1, "K", 1, "04000"),
    # tier 2
    (2, "W", 1, "00322"),
    (2, "W", 1, "23030"),
    (2, "W", 2, "00050"),
    (2, "W", 2, "00142"),
    (2, "W", 2, "00053"),
    (2, "W", 3, "60000"),
    (2, "U", 1, "02230"),
    (2, "U", 1, "02303"),
    (2, "U", 2, "05000"),
    (2, "U", 2, "20014"),
    (2, "U", 2, "53000"),
    (2, "U", 3, "06000"),
    (2, "G", 1, "23002"),
    (2, "G", 1, "30230"),
    (2, "G", 2, "00500"),
    (2, "G", 2, "42001"),
    (2, "G", 2, "05300"),
    (2, "G", 3, "00600"),
    (2, "R", 1, "20023"),
    (2, "R", 1, "03023"),
    (2, "R", 2, "00005"),
    (2, "R", 2, "14200"),
    (2, "R", 2, "30005"),
    (2, "R", 3, "00060"),
    (2, "K", 1, "32200"),
    (2, "K", 1, "30302"),
    (2, "K", 2, "50000"),
    (2, "K", 2, "01420"),
    (2, "K", 2, "00530"),
    (2, "K", 3, "00006"),
    # tier 3
    (3, "W", 3, "03353"),
    (3, "W", 4, "00007"),
    (3, "W", 4, "30036"),
    (3, "W", 5, "30007"),
    (3, "U", 3, "30335"),
    (3, "U", 4, "70000"),
    (3, "U", 4, "63003"),
    (3, "U", 5, "73000"),
    (3, "G", 3, "53033"),
    (3, "G", 4, "07000"),
    (3, "G", 4, "36300"),
    (3, "G", 5, "07300"),
    (3, "R", 3, "35303"),
    (3, "R", 4, "00700"),
    (3, "R", 4, "03630"),
    (3, "R", 5, "00730"),
    (3, "K", 3, "33530"),
    (3, "K", 4, "00070"),
    (3, "K", 4, "00363"),
    (3, "K", 5, "00073"),

]

_NOBLES = [  # requirement in bonuses, W U G R K; every noble is worth 3 points
    "44000", "40004", "04400", "00440", "00044",
    "33300", "33003", "30033", "03330", "00333",
]

NUM_CARDS = len(_CARDS)  # 90
NUM_NOBLES = len(_NOBLES)  # 10
NOBLE_POINTS = 3

TIER = np.array([t for t, _, _, _ in _CARDS], dtype=np.int8)  # 1, 2 or 3
COLOR = np.array([COLORS.index(c) for _, c, _, _ in _CARDS], dtype=np.int8)
POINTS = np.array([p for _, _, p, _ in _CARDS], dtype=np.int8)
COST = np.array([[int(x) for x in cost] for _, _, _, cost in _CARDS], dtype=np.int8)
NOBLE_REQUIREMENT = np.array([[int(x) for x in r] for r in _NOBLES], dtype=np.int8)

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
