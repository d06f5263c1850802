"""The printed card of One Card Dungeon: the four monster types and the twelve levels, read from ``levels.json``.

Each level is drawn in its own orientation (the card turned so that the level's indicator is at the
bottom left): row 0 is the far edge, row 4 the edge nearest the player. ``S`` is the stair the
adventurer starts on, ``E`` the other stair (plain floor), ``#`` a wall, ``M`` a monster's start tile.
The card has four positions (side A or B, turned 0 or 180 degrees); the three levels of a position
share its walls, stairs and monster type and differ only in the monster start tiles.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import NamedTuple

SIZE = 5

# levels.json, beside this module, is the card as data: the adventurer's and monsters' stats and every level's grid
# (with the tiles also listed by kind, which the tests hold against the grid).
_CARD = json.loads(resources.files(__package__).joinpath("levels.json").read_text(encoding="utf-8"))

ADVENTURER_START = dict(_CARD["adventurer_initial"])


class Monster(NamedTuple):
    name: str
    hp: int
    speed: int
    attack: int
    defense: int
    range: int


MONSTERS = {name: Monster(name, **stats) for name, stats in _CARD["monsters"].items()}
MONSTER_NAMES = tuple(MONSTERS)


class Level(NamedTuple):
    level: int
    card_side: str
    rotation: int
    monster: str
    grid: tuple[str, ...]

    def tiles(self, symbol: str) -> list[tuple[int, int]]:
        """The (row, col) tiles marked ``symbol``, in row-major order."""
        return [(r, c) for r, line in enumerate(self.grid) for c, ch in enumerate(line) if ch == symbol]

    @property
    def walls(self) -> list[tuple[int, int]]:
        return self.tiles("#")

    @property
    def monster_starts(self) -> list[tuple[int, int]]:
        return self.tiles("M")

    @property
    def count(self) -> int:
        return len(self.monster_starts)

    @property
    def adventurer_start(self) -> tuple[int, int]:
        return self.tiles("S")[0]

    @property
    def other_stair(self) -> tuple[int, int]:
        return self.tiles("E")[0]


LEVELS = tuple(Level(row["level"], row["card_side"], row["rotation"], row["monster"], tuple(row["grid"]))
               for row in _CARD["levels"])
NUM_LEVELS = len(LEVELS)
MAX_MONSTERS = max(level.count for level in LEVELS)  # 4
