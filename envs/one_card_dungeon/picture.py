"""One Card Dungeon drawn as a picture (``render_mode="rgb_array"``): what ``render_text`` lists.

The 5x5 grid in the level's own orientation (row 0 the far edge, as in the text): walls, the start stair
``S`` and the other stair ``E``, the adventurer, and each monster with its slot number and its health as
hearts. Beside it the level's monster type and stats, the adventurer's skills and health, this turn's
dice and the points left, and the result at the end.
"""

from __future__ import annotations

import numpy as np

from ..core.picture import INK, MUTED, RED, WHITE, Canvas
from . import rules
from .levels import SIZE

WIDTH, HEIGHT = 760, 580  # every picture, whatever the state
# The sample picture (docs/images/): halfway through the heuristic's episode of this seed and these options.
SAMPLE = (2, {})
TILE = 84
GRID_X, GRID_Y = 44, 104
SIDE_X = GRID_X + SIZE * TILE + 28
BACKGROUND = (226, 222, 210)
FLOOR = (238, 230, 208)
FLOOR_EDGE = (196, 184, 156)
WALL = (92, 80, 70)
WALL_LINE = (120, 106, 94)
STAIR = (176, 200, 226)
STAIR_LINE = (120, 150, 186)
ADVENTURER = (40, 96, 200)
MONSTER = (150, 34, 40)
LOST_HEART = (205, 196, 176)

# Pip positions of a die face on a 3x3 lattice (0, 1, 2 per axis).
_PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
         5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)]}


def _tile_xy(t: int) -> tuple[int, int]:
    row, col = rules.row_col(t)
    return GRID_X + col * TILE, GRID_Y + row * TILE


def _floor(c: Canvas, s: rules.State, t: int) -> None:
    x, y = _tile_xy(t)
    box = (x + 1, y + 1, x + TILE - 2, y + TILE - 2)
    if (rules.WALLS[rules.layout(s)] >> t) & 1:
        c.draw.rectangle(box, fill=WALL)
        for k, line_y in enumerate(range(y + 14, y + TILE - 4, 17)):  # courses of bricks
            c.draw.line((x + 2, line_y, x + TILE - 3, line_y), fill=WALL_LINE, width=2)
            for brick_x in range(x + (12 if k % 2 else 28), x + TILE - 4, 32):
                c.draw.line((brick_x, line_y - 15, brick_x, line_y), fill=WALL_LINE, width=2)
        return
    stair = "S" if t == rules.LEVEL_START[s.level] else "E" if t == rules.LEVEL_OTHER_STAIR[s.level] else None
    c.draw.rectangle(box, fill=STAIR if stair else FLOOR, outline=FLOOR_EDGE)
    if stair:
        for k in range(4):  # steps going down
            step_y = y + 12 + 18 * k
            c.draw.line((x + 8 + 6 * k, step_y, x + TILE - 9 - 6 * k, step_y), fill=STAIR_LINE, width=3)
        c.text(x + TILE - 6, y + TILE - 22, stair, size=16, fill=INK, align="right", bold=True)


def _hearts(c: Canvas, x, y, health: int, most: int, size: int = 12) -> None:
    for point in range(most):
        c.suit(x + point * (size + 2), y, 1, size, RED if point < health else LOST_HEART)


def _pieces(c: Canvas, s: rules.State) -> None:
    kind = rules.LEVEL_MONSTER[s.level]
    for k, (t, hp) in enumerate(zip(s.monster_pos.tolist(), s.monster_hp.tolist())):
        if t < 0:
            continue
        x, y = _tile_xy(t)
        c.token(x + TILE / 2, y + TILE / 2 - 6, 24, MONSTER, kind.name[0], size=22)
        c.text(x + 5, y + 3, str(k), size=13, bold=True)
        width = kind.hp * 14 - 2
        _hearts(c, x + (TILE - width) / 2, y + TILE - 18, hp, kind.hp)
    x, y = _tile_xy(s.pos)
    c.token(x + TILE / 2, y + TILE / 2 - 4, 26, ADVENTURER, "@", size=26)


def _grid(c: Canvas, s: rules.State) -> None:
    for col in range(SIZE):
        c.text(GRID_X + col * TILE + TILE / 2, GRID_Y - 20, f"c{col}", size=14, fill=MUTED, align="center")
    for row in range(SIZE):
        c.text(GRID_X - 10, GRID_Y + row * TILE + TILE / 2 - 8, f"r{row}", size=14, fill=MUTED, align="right")
    c.draw.rectangle((GRID_X - 3, GRID_Y - 3, GRID_X + SIZE * TILE + 2, GRID_Y + SIZE * TILE + 2), fill=WALL)
    for t in range(rules.NUM_TILES):
        _floor(c, s, t)
    _pieces(c, s)


def _die(c: Canvas, x, y, value: int, size: int = 42) -> None:
    c.box(x, y, size, size, WHITE, edge=(120, 120, 120), radius=7)
    if value < 1:
        return
    step = size / 4
    for px, py in _PIPS[value]:
        c.token(x + step * (px + 1), y + step * (py + 1), 4, INK, edge=INK)


def _adventurer(c: Canvas, s: rules.State, y: int) -> int:
    c.text(SIDE_X, y, "adventurer", size=17, bold=True)
    c.token(SIDE_X + 110, y + 9, 10, ADVENTURER, "@", size=11)
    y += 28
    c.text(SIDE_X, y, f"health {s.health}/{rules.MAX_HEALTH}", size=15)
    _hearts(c, SIDE_X + 100, y + 2, s.health, rules.MAX_HEALTH, size=14)
    y += 24
    for name, value in (("speed", s.speed), ("attack", s.attack), ("defense", s.defense), ("range", s.range)):
        c.text(SIDE_X, y, name, size=15, fill=MUTED)
        c.text(SIDE_X + 80, y, str(value), size=15, bold=True)
        y += 21
    return y


def _dice(c: Canvas, s: rules.State, y: int) -> int:
    c.text(SIDE_X, y, "dice", size=17, bold=True)
    y += 26
    for i, value in enumerate(s.dice.tolist()):
        _die(c, SIDE_X + i * 54, y, value)
    y += 54
    for name, value in (("speed left", s.speed_left), ("attack left", s.attack_left),
                        ("defense total", s.defense_total)):
        c.text(SIDE_X, y, name, size=15, fill=MUTED)
        c.text(SIDE_X + 110, y, str(value), size=15, bold=True)
        y += 21
    return y


def _monsters(c: Canvas, s: rules.State, y: int) -> None:
    kind = rules.LEVEL_MONSTER[s.level]
    c.text(SIDE_X, y, "monsters", size=17, bold=True)
    y += 26
    for k, (t, hp) in enumerate(zip(s.monster_pos.tolist(), s.monster_hp.tolist())):
        if t < 0:
            continue
        row, col = rules.row_col(t)
        c.text(SIDE_X, y, f"{k}  {kind.name.lower()}  r{row}c{col}", size=14)
        _hearts(c, SIDE_X + 150, y + 2, hp, kind.hp)
        y += 20


def draw(s: rules.State) -> np.ndarray:
    """The table as a (580, 760, 3) uint8 picture."""
    c = Canvas(WIDTH, HEIGHT, BACKGROUND)
    kind = rules.LEVEL_MONSTER[s.level]
    title = c.text(16, 12, "One Card Dungeon", size=22, bold=True)
    c.text(16 + title + 24, 16, f"level {s.level}    turn {s.turn}/{s.max_turns}    "
                                f"phase {rules.PHASE_NAMES[s.phase]}", size=18)
    c.text(16, 46, f"{kind.name}: health {kind.hp}   speed {kind.speed}   attack {kind.attack}"
                   f"   defense {kind.defense}   range {kind.range}", size=16)
    _grid(c, s)
    y = _adventurer(c, s, GRID_Y - 6)
    y = _dice(c, s, y + 14)
    _monsters(c, s, y + 14)
    if s.phase == rules.OVER:
        result = rules.outcome(s)
        c.text(16, GRID_Y + SIZE * TILE + 20, f"game over: {result['result']}, levels cleared {result['score']}"
                                               f"{', WON' if result['won'] else ''}", size=17, bold=True)
    return c.array()
