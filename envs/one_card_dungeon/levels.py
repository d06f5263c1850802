"""The printed card of One Card Dungeon: the four monster types and the twelve levels.

Each level is drawn in its own orientation (the card turned so that the level's indicator is at the
bottom left): row 0 is the far edge, row 4 the edge nearest the player. ``S`` is the stair the
adventurer starts on, ``E`` the other stair (plain floor), ``#`` a wall, ``M`` a monster's start tile.
The card has four positions (side A or B, turned 0 or 180 degrees); the three levels of a position
share its walls, stairs and monster type and differ only in the monster start tiles.
"""

from __future__ import annotations

from typing import NamedTuple

SIZE = 5

ADVENTURER_START = {"health": 6, "max_health": 6, "speed": 1, "attack": 1, "defense": 1, "range": 2}


class Monster(NamedTuple):
    name: str
    hp: int
    speed: int
    attack: int
    defense: int
    range: int


MONSTERS = {
    "Spider": Monster("Spider", hp=2, speed=5, attack=4, defense=4, range=3),
    "Skeleton": Monster("Skeleton", hp=3, speed=4, attack=5, defense=4, range=4),
    "Ogre": Monster("Ogre", hp=5, speed=3, attack=7, defense=7, range=2),
    "Dragon": Monster("Dragon", hp=5, speed=5, attack=5, defense=5, range=5),
}
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


LEVELS = (
    Level(1, "A", 0, "Spider", ("...ME",
                                "...#.",
                                "....M",
                                ".#.#.",
                                "S....")),
    Level(2, "B", 0, "Skeleton", ("E.M..",
                                  "M....",
                                  "#..#.",
                                  "...#.",
                                  "....S")),
    Level(3, "A", 180, "Ogre", ("....E",
                                ".#.#M",
                                ".....",
                                ".#...",
                                "S....")),
    Level(4, "B", 180, "Dragon", ("EM...",
                                  ".#...",
                                  ".#..#",
                                  ".....",
                                  "....S")),
    Level(5, "A", 0, "Spider", (".M..E",
                                "...#M",
                                ".....",
                                ".#.#.",
                                "S...M")),
    Level(6, "B", 0, "Skeleton", ("EM...",
                                  ".M...",
                                  "#..#.",
                                  "...#.",
                                  "M...S")),
    Level(7, "A", 180, "Ogre", ("....E",
                                ".#M#.",
                                ".....",
                                ".#..M",
                                "S....")),
    Level(8, "B", 180, "Dragon", ("E..M.",
                                  ".#...",
                                  ".#..#",
                                  ".....",
                                  ".M..S")),
    Level(9, "A", 0, "Spider", ("M...E",
                                "...#.",
                                "..M..",
                                ".#.#M",
                                "S.M..")),
    Level(10, "B", 0, "Skeleton", ("E...M",
                                   "..M..",
                                   "#M.#.",
                                   "M..#.",
                                   "....S")),
    Level(11, "A", 180, "Ogre", (".M.ME",
                                 ".#.#.",
                                 "....M",
                                 ".#...",
                                 "S....")),
    Level(12, "B", 180, "Dragon", ("E....",
                                   "M#M..",
                                   ".#..#",
                                   "M....",
                                   "....S")),
)
NUM_LEVELS = len(LEVELS)
MAX_MONSTERS = max(level.count for level in LEVELS)  # 4
