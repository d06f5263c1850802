"""One Card Dungeon (Barny Skinner), the rules as pure functions.

Hold this file next to RULES.md: each section there has a section here. A game's state is a ``State``: one flat
integer array (``s.data``) with a named view per part (``s.pos``, ``s.monster_pos``...), beside it the fixed die
results (``s.rolls``). The turn itself (``take_action``, ``fill_legal_mask``, ``fill_observation``, the monsters'
movement) is written once, as functions compiled with numba over that array; the single env calls them on one
game, the vector env through the loops at the end of this file on a row per game. ``apply`` copies the state and
returns the next. No Gymnasium here: the env, agents and benchmarks only call these functions. With
``NUMBA_DISABLE_JIT=1`` the same functions run as plain Python.

Tiles are numbered ``row * 5 + col`` (row-major), so ordering tiles by number is ordering them by (row, col). Sets
of tiles are integers used as 25-bit masks (bit ``t`` = tile ``t``). Everything that depends only on the walls
(ranges, which tiles each corner-to-corner sight line touches) is computed once at import, per card position;
monsters are checked against it at run time.

Dice: compiled code draws nothing. A turn begun takes its dice from the fixed rolls while any are left; the rest
are owed (``dice_owed``) and paid from a *bank* of dice drawn in Python from the game's own generator, exactly the
numbers ``rng.integers(1, 7, size=owed)`` gives, so every seed rolls what it always rolled. A compiled step that
finds its bank short stops, and is resumed once the bank is filled.
"""

from __future__ import annotations

from functools import lru_cache

import numba
import numpy as np

from ..core.compiled import compiled, generator_list, on_threads
from ..core.state import FlatState, lay_out
from ..core.turn import CompiledTurn, one_game
from .levels import ADVENTURER_START, LEVELS, MAX_MONSTERS, MONSTERS, NUM_LEVELS, SIZE

NUM_TILES = SIZE * SIZE
ALL_TILES = (1 << NUM_TILES) - 1
FAR = 99  # the cost of a tile that cannot be reached
MAX_HEALTH = ADVENTURER_START["max_health"]
DIE_FACES = 6


def tile(row: int, col: int) -> int:
    return row * SIZE + col


def row_col(t: int) -> tuple[int, int]:
    return divmod(t, SIZE)


def _plain(function):
    """A compiled function as the Python it is written in: what the tables built at import call, so that importing
    this module compiles nothing."""
    return getattr(function, "py_func", function)


# ---------------------------------------------------------------- the card

# The levels of one card position share walls and stairs: level n uses position (n - 1) % 4.
NUM_LAYOUTS = 4
LAYOUT_OF_LEVEL = [None] + [(lv.level - 1) % NUM_LAYOUTS for lv in LEVELS]  # indexed by level
WALLS = [0] * NUM_LAYOUTS  # wall tiles of each layout as a bit mask
for _lv in LEVELS[:NUM_LAYOUTS]:
    WALLS[LAYOUT_OF_LEVEL[_lv.level]] = sum(1 << tile(r, c) for r, c in _lv.walls)
for _lv in LEVELS:  # the three levels of a position really do share its walls
    assert WALLS[LAYOUT_OF_LEVEL[_lv.level]] == sum(1 << tile(r, c) for r, c in _lv.walls)

LEVEL_MONSTER = [None] + [MONSTERS[lv.monster] for lv in LEVELS]
LEVEL_COUNT = [0] + [lv.count for lv in LEVELS]
LEVEL_START = [0] + [tile(*lv.adventurer_start) for lv in LEVELS]
LEVEL_OTHER_STAIR = [0] + [tile(*lv.other_stair) for lv in LEVELS]
# Monster slots are the level's start tiles in row-major order.
LEVEL_MONSTER_STARTS = [()] + [tuple(sorted(tile(r, c) for r, c in lv.monster_starts)) for lv in LEVELS]

# The same as arrays indexed by level (row 0 unused), for the compiled functions.
_LAYOUT = np.array([0] + LAYOUT_OF_LEVEL[1:], dtype=np.int64)
_WALLS = np.array(WALLS, dtype=np.int64)
_START = np.array(LEVEL_START, dtype=np.int64)
_MONSTER_HP, _MONSTER_SPEED, _MONSTER_ATTACK, _MONSTER_DEFENSE, _MONSTER_RANGE = (
    np.array([0] + [getattr(LEVEL_MONSTER[level], stat) for level in range(1, NUM_LEVELS + 1)], dtype=np.int64)
    for stat in ("hp", "speed", "attack", "defense", "range"))
# Each level's monster slots: their start tiles (-1 for a slot the level lacks) and health.
_SLOT_START = np.full((NUM_LEVELS + 1, MAX_MONSTERS), -1, dtype=np.int64)
_SLOT_HP = np.zeros((NUM_LEVELS + 1, MAX_MONSTERS), dtype=np.int64)
for _level in range(1, NUM_LEVELS + 1):
    _starts = LEVEL_MONSTER_STARTS[_level]
    _SLOT_START[_level, :len(_starts)] = _starts
    _SLOT_HP[_level, :len(_starts)] = _MONSTER_HP[_level]


# ---------------------------------------------------------------- geometry: step costs and range

ORTHOGONAL_STEP, DIAGONAL_STEP = 2, 3
_NOT_FIRST_COLUMN = sum(1 << t for t in range(NUM_TILES) if t % SIZE)
_NOT_LAST_COLUMN = sum(1 << t for t in range(NUM_TILES) if t % SIZE != SIZE - 1)
# 2 is a primitive root modulo 37, so the 25 one-bit masks leave 25 different remainders: a bit's tile by lookup.
_TILE_OF_BIT = np.zeros(37, dtype=np.int64)
for _t in range(NUM_TILES):
    _TILE_OF_BIT[(1 << _t) % 37] = _t


@compiled
def fill_path_costs(source, blocked, most, cost):
    """``cost[t]``: the cheapest path cost from ``source`` to tile t (FAR if none), never entering ``blocked``; a
    cost above ``most`` is left FAR (a move needs no more than the points it can spend).

    Steps cost 2 orthogonally and 3 diagonally. A step needs only its destination to be enterable: diagonal steps
    past a wall's corner, or between two blocked orthogonal neighbours, are allowed. So the tiles first reached at
    cost c are the free ones one orthogonal step from those first reached at c - 2 or one diagonal step from those
    at c - 3; a diagonal step is a step up or down, then one sideways."""
    for t in range(NUM_TILES):
        cost[t] = FAR
    cost[source] = 0
    free = ALL_TILES & ~(blocked | (1 << source))
    back1, back2 = 1 << source, 0  # the tiles first reached at cost c - 1, c - 2
    # The tiles a step up or down from those first reached at cost c - 1, c - 2, c - 3.
    up_down1, up_down2, up_down3 = ALL_TILES & ((back1 << SIZE) | (back1 >> SIZE)), 0, 0
    c, idle = 0, 0
    while idle < DIAGONAL_STEP and c < most:  # (three costs in a row that reach nothing: none is left to step from)
        c += 1
        sideways = back2 | up_down3
        new = free & (up_down2 | ((sideways << 1) & _NOT_FIRST_COLUMN) | ((sideways >> 1) & _NOT_LAST_COLUMN))
        free &= ~new
        back1, back2 = new, back1
        up_down1, up_down2, up_down3 = ALL_TILES & ((new << SIZE) | (new >> SIZE)), up_down1, up_down2
        idle = 0 if new else idle + 1
        while new:
            low = new & -new
            cost[_TILE_OF_BIT[low % 37]] = c
            new ^= low


@lru_cache(maxsize=1 << 16)
def path_costs(source: int, blocked: int) -> tuple[int, ...]:
    """The cheapest path cost from ``source`` to every tile (see ``fill_path_costs``), as a tuple."""
    cost = np.empty(NUM_TILES, dtype=np.int64)
    fill_path_costs(source, blocked, FAR, cost)
    return tuple(cost.tolist())


def _costs_at_import(source: int, blocked: int) -> tuple[int, ...]:
    cost = np.empty(NUM_TILES, dtype=np.int64)
    _plain(fill_path_costs)(source, blocked, FAR, cost)
    return tuple(cost.tolist())


# RANGE[layout][a][b]: the range (distance) between tiles a and b: the cheapest path through
# non-wall tiles, pieces ignored. FAR when a or b is a wall (a path never enters one).
RANGE = [
    [_costs_at_import(a, WALLS[layout]) if not (WALLS[layout] >> a) & 1 else (FAR,) * NUM_TILES
     for a in range(NUM_TILES)]
    for layout in range(NUM_LAYOUTS)
]
_RANGE = np.array(RANGE, dtype=np.int64)


# ---------------------------------------------------------------- geometry: line of sight

def _shares_a_length(p: tuple[int, int], q: tuple[int, int], t: int) -> bool:
    """Whether the segment p-q shares a piece of positive length with the closed square of tile t.

    Points are lattice points (x, y) = (col, row). Liang-Barsky clipping with the segment parameter
    scaled by 60: every clip value is 60·k/d with |d| <= 5, an exact integer, so this is exact.
    """
    (x0, y0), (x1, y1) = p, q
    r, c = row_col(t)
    dx, dy = x1 - x0, y1 - y0
    low, high = 0, 60
    for d, k in ((-dx, x0 - c), (dx, c + 1 - x0), (-dy, y0 - r), (dy, r + 1 - y0)):
        if d == 0:
            if k < 0:
                return False
        elif d < 0:
            low = max(low, 60 * k // d)
        else:
            high = min(high, 60 * k // d)
    return high > low


def _segment_tiles(p, q) -> int:
    """The tiles (bit mask) a corner-to-corner segment shares a positive length with."""
    if p == q:
        return 0
    return sum(1 << t for t in range(NUM_TILES) if _shares_a_length(p, q, t))


def _corners(t: int):
    r, c = row_col(t)
    return ((c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1))


_LATTICE = [(x, y) for y in range(SIZE + 1) for x in range(SIZE + 1)]
_SEGMENT = {(p, q): _segment_tiles(p, q) for p in _LATTICE for q in _LATTICE if p <= q}


def _sight_lines(a: int, b: int) -> set[int]:
    """For tiles a and b, the tiles each of the 16 corner-to-corner segments touches, a and b left out."""
    ends = ~((1 << a) | (1 << b))
    return {_SEGMENT[min(p, q), max(p, q)] & ends for p in _corners(a) for q in _corners(b)}


def _open_lines(walls: int, a: int, b: int) -> list[int]:
    """The tile masks of the wall-free sight lines between a and b, any one of which must be free of monsters:
    ``[0]`` when a line touches no tile at all (always in sight), none when every line meets a wall."""
    if a == b:
        return [0]
    lines = [m for m in _sight_lines(a, b) if not m & walls]
    if 0 in lines:
        return [0]
    # A line that touches a superset of another's tiles is never the only free one.
    return sorted(m for m in lines if not any(o != m and o & m == o for o in lines))


_LINES = [[_open_lines(WALLS[layout], a, b) for a in range(NUM_TILES) for b in range(NUM_TILES)]
          for layout in range(NUM_LAYOUTS)]
# SIGHT_LINES[layout, a * 25 + b, j] for j < SIGHT_LINE_COUNT[layout, a * 25 + b]: the lines between tiles a and b.
SIGHT_LINE_COUNT = np.array([[len(lines) for lines in table] for table in _LINES], dtype=np.int64)
SIGHT_LINES = np.zeros((NUM_LAYOUTS, NUM_TILES * NUM_TILES, SIGHT_LINE_COUNT.max()), dtype=np.int64)
for _layout, _table in enumerate(_LINES):
    for _pair, _lines in enumerate(_table):
        SIGHT_LINES[_layout, _pair, :len(_lines)] = _lines


@compiled
def in_sight(layout, a, b, monsters):
    """Line of sight between tiles a and b: some corner-to-corner segment touches (with positive
    length) no wall and no monster tile other than a and b (``monsters``: the monster tiles, a mask)."""
    pair = a * NUM_TILES + b
    for j in range(SIGHT_LINE_COUNT[layout, pair]):
        if not SIGHT_LINES[layout, pair, j] & monsters:
            return True
    return False


# ---------------------------------------------------------------- actions

PERMUTATIONS = ("HML", "HLM", "MHL", "MLH", "LHM", "LMH")
_DIE_INDEX = {"H": 0, "M": 1, "L": 2}  # into the dice sorted high to low
ASSIGN_ORDER = tuple(tuple(_DIE_INDEX[ch] for ch in p) for p in PERMUTATIONS)  # (speed, attack, defense)
_ASSIGN_ORDER = np.array(ASSIGN_ORDER, dtype=np.int64)
UPGRADES = ("speed", "attack", "defense", "range")

ACTION_NAMES = (
    ["assign_" + p for p in PERMUTATIONS]
    + [f"move_r{r}c{c}" for r in range(SIZE) for c in range(SIZE)]
    + [f"attack_{k}" for k in range(MAX_MONSTERS)]
    + ["end_turn"]
    + ["upgrade_" + u for u in UPGRADES] + ["heal"]
)
NUM_ACTIONS = len(ACTION_NAMES)  # 41
A_ASSIGN = 0
A_MOVE = A_ASSIGN + len(PERMUTATIONS)  # 6
A_ATTACK = A_MOVE + NUM_TILES  # 31
A_END_TURN = A_ATTACK + MAX_MONSTERS  # 35
A_UPGRADE = A_END_TURN + 1  # 36: speed, attack, defense, range
A_HEAL = A_UPGRADE + len(UPGRADES)  # 40


def _assign_masks() -> np.ndarray:
    """ASSIGN_MASK[high, mid, low]: for each sorted roll, the permutations whose totals no earlier one gives."""
    masks = np.zeros((DIE_FACES + 1,) * 3 + (len(PERMUTATIONS),), dtype=np.bool_)
    for high in range(1, DIE_FACES + 1):
        for mid in range(1, high + 1):
            for low in range(1, mid + 1):
                dice = (high, mid, low)
                seen = set()
                for k, order in enumerate(ASSIGN_ORDER):
                    totals = tuple(dice[i] for i in order)
                    masks[high, mid, low, k] = totals not in seen
                    seen.add(totals)
    return masks


ASSIGN_MASK = _assign_masks()


# ---------------------------------------------------------------- the state

ASSIGN, ACT, LEVEL_UP, OVER = range(4)
PHASE_NAMES = ("assign", "act", "level_up", "over")
PLAYING, WON, LOST, FORFEITED, TRUNCATED = range(5)
RESULT_NAMES = ("playing", "won", "lost", "forfeited", "truncated")
NO_ROLLS = np.zeros(0, dtype=np.int8)
NO_ROLLS.flags.writeable = False
MAX_MONSTER_HP = max(m.hp for m in MONSTERS.values())
_MOST_UPGRADES = NUM_LEVELS - 1
_SKILL_HIGH = max(ADVENTURER_START[name] for name in UPGRADES) + _MOST_UPGRADES
_POINTS_HIGH = _SKILL_HIGH + DIE_FACES


class State(FlatState):
    """Everything about a game, including the fixed future dice (the only hidden thing). ``rolls`` (beside the
    array): the die results fixed in advance, used in order, the first ``fixed_rolls`` of them; it has room for
    every die a game can roll (3 a turn), so that all games of a vector env hold arrays of one shape, and is never
    written, so copies share it. Each part's values run from ``low`` to ``high``."""

    PARTS = (
        ("level", 0, 1, NUM_LEVELS),
        ("phase", 0, ASSIGN, OVER),
        ("result", 0, PLAYING, TRUNCATED),
        ("cleared", 0, 0, NUM_LEVELS),  # the last level completed: the score
        ("pos", 0, 0, NUM_TILES - 1),
        ("health", 0, 0, MAX_HEALTH),
        # The skills, in UPGRADES order (an upgrade choice is an offset from speed).
        ("speed", 0, ADVENTURER_START["speed"], _SKILL_HIGH),
        ("attack", 0, ADVENTURER_START["attack"], _SKILL_HIGH),
        ("defense", 0, ADVENTURER_START["defense"], _SKILL_HIGH),
        ("range", 0, ADVENTURER_START["range"], _SKILL_HIGH),
        # Monster slot k: its tile (-1 once dead or when the level has fewer monsters) and health.
        ("monster_pos", MAX_MONSTERS, -1, NUM_TILES - 1),
        ("monster_hp", MAX_MONSTERS, 0, MAX_MONSTER_HP),
        ("dice", 3, 1, DIE_FACES),  # this turn's rolls, in roll order
        ("speed_left", 0, 0, _POINTS_HIGH),
        ("attack_left", 0, 0, _POINTS_HIGH),
        ("defense_total", 0, 0, _POINTS_HIGH),
        ("turn", 0, 0, 2**62),  # turns begun this episode
        ("max_turns", 0, 1, 2**62),  # the env's options, kept with the game
        ("skill_cap", 0, 2, 2**62),
        ("fixed_rolls", 0, 0, 2**62),
        ("next_roll", 0, 0, 2**62),
        ("dice_owed", 0, 0, 0),  # the dice a turn begun still waits for: none between calls
    )

    def __init__(self, level: int, rolls: np.ndarray, max_turns: int, skill_cap: int):
        self.data = np.zeros(self.SIZE, dtype=np.int64)
        self.level = level
        self.phase = ASSIGN
        self.result = PLAYING
        self.cleared = level - 1
        self.health = ADVENTURER_START["health"]
        for name in UPGRADES:
            setattr(self, name, ADVENTURER_START[name])
        self.monster_pos = -1
        self.max_turns = max_turns
        self.skill_cap = skill_cap
        self.fixed_rolls = min(len(rolls), 3 * max_turns)
        self.rolls = room_for_every_roll(rolls, max_turns)

    def check_values(self) -> None:
        super().check_values()
        if self.turn > self.max_turns:
            raise ValueError(f"the saved game's turn is {self.turn}, past its max_turns {self.max_turns}: not a "
                             f"state the rules reach")
        if not self.next_roll <= self.fixed_rolls <= len(self.rolls) or \
                not np.isin(self.rolls[:self.fixed_rolls], range(1, DIE_FACES + 1)).all():
            raise ValueError(f"the saved game's fixed rolls do not fit: next_roll {self.next_roll}, fixed_rolls "
                             f"{self.fixed_rolls}, rolls {self.rolls[:self.fixed_rolls].tolist()} (die results 1-6)")


_AT = lay_out(State)
AT_LEVEL, AT_PHASE, AT_RESULT, AT_CLEARED, AT_POS, AT_HEALTH = (
    _AT[name] for name in ("level", "phase", "result", "cleared", "pos", "health"))
AT_SPEED, AT_ATTACK, AT_DEFENSE, AT_RANGE = (_AT[name] for name in UPGRADES)
AT_MONSTER_POS, AT_MONSTER_HP, AT_DICE = _AT["monster_pos"], _AT["monster_hp"], _AT["dice"]
AT_SPEED_LEFT, AT_ATTACK_LEFT, AT_DEFENSE_TOTAL, AT_TURN = (
    _AT[name] for name in ("speed_left", "attack_left", "defense_total", "turn"))
AT_MAX_TURNS, AT_SKILL_CAP, AT_FIXED_ROLLS, AT_NEXT_ROLL, AT_DICE_OWED = (
    _AT[name] for name in ("max_turns", "skill_cap", "fixed_rolls", "next_roll", "dice_owed"))


def layout(s: State) -> int:
    return LAYOUT_OF_LEVEL[s.level]


@compiled
def _monster_tiles(a):
    bits = 0
    for k in range(MAX_MONSTERS):
        p = a[AT_MONSTER_POS + k]
        if p >= 0:
            bits |= 1 << p
    return bits


def monster_tiles(s: State) -> int:
    """The tiles of the living monsters as a bit mask."""
    return int(_monster_tiles(s.data))


# ---------------------------------------------------------------- setup

def room_for_every_roll(rolls: np.ndarray, max_turns: int) -> np.ndarray:
    """``rolls`` in a read-only array of 3 * ``max_turns`` dice, padded with 0 (dice beyond are never rolled)."""
    padded = np.zeros(3 * max_turns, dtype=np.int8)
    count = min(len(rolls), len(padded))
    padded[:count] = rolls[:count]
    padded.flags.writeable = False
    return padded


def check_rolls(rolls) -> np.ndarray:
    """The fixed die results as a read-only int8 array; ValueError naming the first bad one."""
    if rolls is None:
        return NO_ROLLS
    if isinstance(rolls, (str, bytes, dict, set)) or not hasattr(rolls, "__len__"):
        raise ValueError(f"rolls must be a list of die results 1-6, got {rolls!r}")
    for i, die in enumerate(rolls):
        if isinstance(die, (bool, np.bool_)) or not isinstance(die, (int, np.integer)) or not 1 <= die <= DIE_FACES:
            raise ValueError(f"rolls[{i}] must be a die result, an integer 1-6, got {die!r}")
    array = np.array([int(d) for d in rolls], dtype=np.int8)
    array.flags.writeable = False
    return array


def check_level(level) -> int:
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)) or not 1 <= level <= NUM_LEVELS:
        raise ValueError(f"level must be an integer 1-{NUM_LEVELS}, got {level!r}")
    return int(level)


def new_game(rng: np.random.Generator, rolls=None, level=None, max_turns: int = 400, skill_cap: int = 6) -> State:
    """A new game at ``level`` (default 1) with the starting adventurer; turn 1's dice are rolled."""
    s = State(check_level(1 if level is None else level), check_rolls(rolls), max_turns, skill_cap)
    start_game(s.data, _rolls_of(s))
    _pay_from(s, rng)
    return s


@compiled
def _set_up_level(a):
    """The adventurer on the start stair, the level's monsters at full health on their start tiles."""
    level = a[AT_LEVEL]
    a[AT_POS] = _START[level]
    for k in range(MAX_MONSTERS):
        a[AT_MONSTER_POS + k] = _SLOT_START[level, k]
        a[AT_MONSTER_HP + k] = _SLOT_HP[level, k]
    a[AT_CLEARED] = level - 1


@compiled
def start_game(a, rolls):
    """A new game's level set up and its first turn begun (its dice owed when the fixed rolls do not cover them)."""
    a[AT_TURN] = 0
    a[AT_NEXT_ROLL] = 0
    _set_up_level(a)
    _begin_turn(a, rolls)


# ---------------------------------------------------------------- a turn: energy

@compiled
def _begin_turn(a, rolls):
    """The energy roll starts a turn: three dice, the next fixed rolls while any are left, the rest owed (paid from
    the game's generator, ``pay_dice``). The turn after ``max_turns`` is never begun (truncation)."""
    a[AT_SPEED_LEFT] = a[AT_ATTACK_LEFT] = a[AT_DEFENSE_TOTAL] = 0
    if a[AT_TURN] >= a[AT_MAX_TURNS]:
        end_game(a, TRUNCATED)
        return
    a[AT_TURN] += 1
    fixed = min(3, max(0, a[AT_FIXED_ROLLS] - a[AT_NEXT_ROLL]))
    for j in range(fixed):
        a[AT_DICE + j] = rolls[a[AT_NEXT_ROLL] + j]
    a[AT_NEXT_ROLL] += fixed
    a[AT_DICE_OWED] = 3 - fixed
    a[AT_PHASE] = ASSIGN


@compiled
def pay_dice(a, bank):
    """Pay the dice the turn begun owes from ``bank`` (``bank[0]``: the index of its next die, the dice after it);
    False, and nothing paid, when the bank holds too few."""
    owed = a[AT_DICE_OWED]
    if owed == 0:
        return True
    start = bank[0]
    if start + owed > len(bank):
        return False
    for j in range(owed):
        a[AT_DICE + 3 - owed + j] = bank[start + j]
    bank[0] = start + owed
    a[AT_DICE_OWED] = 0
    return True


@compiled
def _sorted_dice(a):
    """This turn's dice high to low (the H, M, L of the assign actions)."""
    high, mid, low = a[AT_DICE], a[AT_DICE + 1], a[AT_DICE + 2]
    if high < mid:
        high, mid = mid, high
    if mid < low:
        mid, low = low, mid
        if high < mid:
            high, mid = mid, high
    return high, mid, low


@compiled
def _assign(a, permutation):
    dice = _sorted_dice(a)
    a[AT_SPEED_LEFT] = a[AT_SPEED] + dice[_ASSIGN_ORDER[permutation, 0]]
    a[AT_ATTACK_LEFT] = a[AT_ATTACK] + dice[_ASSIGN_ORDER[permutation, 1]]
    a[AT_DEFENSE_TOTAL] = a[AT_DEFENSE] + dice[_ASSIGN_ORDER[permutation, 2]]
    a[AT_PHASE] = ACT


# ---------------------------------------------------------------- a turn: the adventurer

@compiled
def _adventurer_costs(a, cost):
    """What a move to each tile costs: paths through floor, never through walls or monsters (FAR beyond the Speed
    left)."""
    fill_path_costs(a[AT_POS], _WALLS[_LAYOUT[a[AT_LEVEL]]] | _monster_tiles(a), a[AT_SPEED_LEFT], cost)


@compiled
def _can_attack(a, k, monsters):
    """Monster slot k is alive, within the adventurer's Range and sight, and Attack left pays its Defense."""
    p = a[AT_MONSTER_POS + k]
    level = a[AT_LEVEL]
    if p < 0 or a[AT_ATTACK_LEFT] < _MONSTER_DEFENSE[level]:
        return False
    lay = _LAYOUT[level]
    if _RANGE[lay, a[AT_POS], p] > a[AT_RANGE]:
        return False
    return in_sight(lay, a[AT_POS], p, monsters)


@compiled
def _move(a, target):
    cost = np.empty(NUM_TILES, dtype=np.int64)
    _adventurer_costs(a, cost)
    a[AT_SPEED_LEFT] -= cost[target]
    a[AT_POS] = target


@compiled
def _attack(a, k):
    a[AT_ATTACK_LEFT] -= _MONSTER_DEFENSE[a[AT_LEVEL]]
    a[AT_MONSTER_HP + k] -= 1
    if a[AT_MONSTER_HP + k] == 0:
        a[AT_MONSTER_POS + k] = -1
        if not a[AT_MONSTER_HP:AT_MONSTER_HP + MAX_MONSTERS].any():
            _level_cleared(a)


@compiled
def _level_cleared(a):
    """The last monster died: the level ends at once, with no monster phases."""
    a[AT_SPEED_LEFT] = a[AT_ATTACK_LEFT] = 0
    a[AT_CLEARED] = a[AT_LEVEL]
    if a[AT_LEVEL] == NUM_LEVELS:
        end_game(a, WON)
    else:
        a[AT_PHASE] = LEVEL_UP


@compiled
def _end_turn(a, rolls):
    a[AT_SPEED_LEFT] = a[AT_ATTACK_LEFT] = 0  # unspent points are lost
    _monster_movement(a)
    _monster_attack(a)
    if a[AT_HEALTH] == 0:
        end_game(a, LOST)
    else:
        _begin_turn(a, rolls)


# ---------------------------------------------------------------- a turn: the monsters

@compiled
def _monster_order(a, order):
    """Fill ``order`` with the living monster slots, closest to the adventurer first (range), ties by row then
    column; their number."""
    lay, hero = _LAYOUT[a[AT_LEVEL]], a[AT_POS]
    keys = np.empty(MAX_MONSTERS, dtype=np.int64)
    count = 0
    for k in range(MAX_MONSTERS):
        p = a[AT_MONSTER_POS + k]
        if p < 0:
            continue
        key = _RANGE[lay, p, hero] * 32 + p
        j = count
        while j > 0 and keys[j - 1] > key:  # insertion sort: at most four slots
            keys[j], order[j] = keys[j - 1], order[j - 1]
            j -= 1
        keys[j], order[j] = key, k
        count += 1
    return count


# A monster's move ranks tiles by one integer key, the smallest first: every part is below 128 (a cost or a
# range, FAR at most), a tile below 32.
_COST_UNIT, _RANGE_UNIT, _GOAL_UNIT = 32, 32 * 128, 32 * 128 * 128


@compiled
def _monster_destination(a, k):
    """Where monster slot k ends its move (RULES.md, "Monster movement", three tiers)."""
    level = a[AT_LEVEL]
    lay = _LAYOUT[level]
    walls = _WALLS[lay]
    hero = a[AT_POS]
    here = a[AT_MONSTER_POS + k]
    others = _monster_tiles(a) & ~(1 << here)
    speed, reach = _MONSTER_SPEED[level], _MONSTER_RANGE[level]
    # The monster's movement: walls and the adventurer block; other monsters may be passed.
    spent = np.empty(NUM_TILES, dtype=np.int64)
    fill_path_costs(here, walls | (1 << hero), FAR, spent)
    # Tier 1: a reachable tile in Range and sight: the largest range, then least cost, then (row, col).
    # Tier 2 needs the same ranking over the empty tiles in Range and sight: its goal is the best of them.
    best, best_key = -1, 1 << 62
    goal, goal_key = -1, 1 << 62
    empty = ~(walls | others | (1 << hero))
    for t in range(NUM_TILES):
        distance = _RANGE[lay, t, hero]
        if distance > reach or not in_sight(lay, t, hero, others):
            continue
        key = (FAR - distance) * _RANGE_UNIT + spent[t] * _COST_UNIT + t
        if spent[t] <= speed and not (others >> t) & 1 and key < best_key:
            best, best_key = t, key
        if (empty >> t) & 1 and spent[t] < FAR and key < goal_key:
            goal, goal_key = t, key
    if best >= 0:
        return best
    # Tier 2: head for the goal: the reachable tile nearest it, then closest to the adventurer, then least cost,
    # then (row, col). Tier 3, no goal anywhere: the same with every tile as near the goal (it just closes in).
    to_goal = np.zeros(NUM_TILES, dtype=np.int64)
    if goal >= 0:
        fill_path_costs(goal, walls | (1 << hero), FAR, to_goal)
    for t in range(NUM_TILES):
        if spent[t] <= speed and not (others >> t) & 1:
            key = to_goal[t] * _GOAL_UNIT + _RANGE[lay, t, hero] * _RANGE_UNIT + spent[t] * _COST_UNIT + t
            if key < best_key:
                best, best_key = t, key
    return best


@compiled
def _monster_movement(a):
    """Each monster moves in turn; later monsters see earlier monsters' new tiles."""
    order = np.empty(MAX_MONSTERS, dtype=np.int64)
    for j in range(_monster_order(a, order)):
        a[AT_MONSTER_POS + order[j]] = _monster_destination(a, order[j])


@compiled
def _attacks(a, k, monsters):
    """Monster slot k is alive, within its Range and line of sight of the adventurer (other monsters block)."""
    p = a[AT_MONSTER_POS + k]
    if p < 0:
        return False
    lay, hero = _LAYOUT[a[AT_LEVEL]], a[AT_POS]
    return _RANGE[lay, p, hero] <= _MONSTER_RANGE[a[AT_LEVEL]] and in_sight(lay, p, hero, monsters)


@compiled
def _monster_attack(a):
    """Damage = floor(sum of the attackers' Attack / this turn's Defense total)."""
    monsters = _monster_tiles(a)
    count = 0
    for k in range(MAX_MONSTERS):
        count += _attacks(a, k, monsters)
    damage = count * _MONSTER_ATTACK[a[AT_LEVEL]] // a[AT_DEFENSE_TOTAL]
    a[AT_HEALTH] = max(0, a[AT_HEALTH] - damage)


def monster_order(s: State) -> list[int]:
    """Living monster slots, closest to the adventurer first (range), ties by row then column."""
    order = np.empty(MAX_MONSTERS, dtype=np.int64)
    return order[:_monster_order(s.data, order)].tolist()


def monster_destination(s: State, k: int) -> int:
    """Where monster slot k ends its move (RULES.md, "Monster movement", three tiers)."""
    return int(_monster_destination(s.data, k))


def monster_movement(s: State) -> None:
    """Each monster moves in turn (``s`` changed in place); later monsters see earlier monsters' new tiles."""
    _monster_movement(s.data)


def attackers(s: State) -> list[int]:
    """Monster slots within their Range and line of sight of the adventurer (other monsters block)."""
    monsters = _monster_tiles(s.data)
    return [k for k in range(MAX_MONSTERS) if _attacks(s.data, k, monsters)]


# ---------------------------------------------------------------- levels

@compiled
def _level_up(a, choice, rolls):
    """+1 to a skill (masked at the cap) or heal to full, then the next level and a new turn."""
    if choice == len(UPGRADES):
        a[AT_HEALTH] = MAX_HEALTH
    else:
        a[AT_SPEED + choice] += 1
    a[AT_LEVEL] += 1
    _set_up_level(a)
    _begin_turn(a, rolls)


@compiled
def end_game(a, result):
    a[AT_PHASE] = OVER
    a[AT_RESULT] = result


# ---------------------------------------------------------------- the player's decisions

@compiled
def take_action(a, action, rolls):
    """The player takes ``action`` (which must be legal); a turn it begins may owe dice (``pay_dice``)."""
    if action < A_MOVE:
        _assign(a, action - A_ASSIGN)
    elif action < A_ATTACK:
        _move(a, action - A_MOVE)
    elif action < A_END_TURN:
        _attack(a, action - A_ATTACK)
    elif action == A_END_TURN:
        _end_turn(a, rolls)
    else:
        _level_up(a, action - A_UPGRADE, rolls)


@compiled
def fill_legal_mask(a, mask):
    """Which actions the rules allow now (all False once the game is over or truncated)."""
    mask[:] = False
    phase = a[AT_PHASE]
    if phase == ACT:
        cost = np.empty(NUM_TILES, dtype=np.int64)
        _adventurer_costs(a, cost)
        for t in range(NUM_TILES):
            mask[A_MOVE + t] = cost[t] <= a[AT_SPEED_LEFT]
        mask[A_MOVE + a[AT_POS]] = False
        if a[AT_ATTACK_LEFT] >= _MONSTER_DEFENSE[a[AT_LEVEL]]:
            monsters = _monster_tiles(a)
            for k in range(MAX_MONSTERS):
                mask[A_ATTACK + k] = _can_attack(a, k, monsters)
        mask[A_END_TURN] = True
    elif phase == ASSIGN:
        high, mid, low = _sorted_dice(a)
        mask[A_ASSIGN:A_MOVE] = ASSIGN_MASK[high, mid, low]
    elif phase == LEVEL_UP:
        for j in range(len(UPGRADES)):
            mask[A_UPGRADE + j] = a[AT_SPEED + j] < a[AT_SKILL_CAP]
        mask[A_HEAL] = True


def _steps_from(moves) -> np.ndarray:
    """Per tile, the tiles one step of each (row, col) offset in ``moves`` away, as a mask."""
    return np.array([sum(1 << tile(r + dr, c + dc) for dr, dc in moves if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE)
                     for r in range(SIZE) for c in range(SIZE)], dtype=np.int64)


_ORTHOGONAL_NEXT = _steps_from(((-1, 0), (1, 0), (0, -1), (0, 1)))
_DIAGONAL_NEXT = _steps_from(((-1, -1), (-1, 1), (1, -1), (1, 1)))


@compiled
def forced_action(a):
    """The one legal action when there is exactly one, else -1 (a choice, or the game is over), told without the
    whole mask: dice all alike leave one assignment; skills all at the cap leave healing; an act phase leaves only
    the end of the turn when no attack can be made and no first step can be paid for (every move starts with one
    step, to a tile that is itself a move)."""
    phase = a[AT_PHASE]
    if phase == ASSIGN:
        alike = a[AT_DICE] == a[AT_DICE + 1] and a[AT_DICE + 1] == a[AT_DICE + 2]
        return A_ASSIGN if alike else -1
    if phase == LEVEL_UP:
        for j in range(len(UPGRADES)):
            if a[AT_SPEED + j] < a[AT_SKILL_CAP]:
                return -1
        return A_HEAL
    if phase != ACT:
        return -1
    monsters = _monster_tiles(a)
    free = ~(_WALLS[_LAYOUT[a[AT_LEVEL]]] | monsters)
    pos, speed_left = a[AT_POS], a[AT_SPEED_LEFT]
    if speed_left >= ORTHOGONAL_STEP and _ORTHOGONAL_NEXT[pos] & free:
        return -1
    if speed_left >= DIAGONAL_STEP and _DIAGONAL_NEXT[pos] & free:
        return -1
    for k in range(MAX_MONSTERS):
        if _can_attack(a, k, monsters):
            return -1
    return A_END_TURN


@compiled
def continue_turn(a, skip_forced, rolls, bank):
    """What follows an action: the dice owed paid from ``bank``, then (``skip_forced``) every forced move, each
    paid for alike. True once the game waits for a decision or is over; False when the bank ran short: call again
    with more dice."""
    while pay_dice(a, bank):
        action = forced_action(a) if skip_forced else -1
        if action < 0:
            return True
        take_action(a, action, rolls)
    return False


@compiled
def take_turn(a, action, skip_forced, rolls, bank):
    """The env's step: ``action``, then ``continue_turn``."""
    take_action(a, action, rolls)
    return continue_turn(a, skip_forced, rolls, bank)


_NO_DICE = np.ones(1, dtype=np.int64)  # a bank with no die left: it never pays, so it is never written


def _rolls_of(s: State) -> np.ndarray:
    """``s.rolls`` read-only (a copy taken from a vector env is writable), so that compiled code sees one kind."""
    rolls = s.rolls
    if rolls.flags.writeable:
        rolls = rolls.view()
        rolls.flags.writeable = False
    return rolls


def dice_from(rng: np.random.Generator | None, count: int) -> np.ndarray:
    """A bank of ``count`` dice from the game's generator, drawn as one call to ``rng.integers(1, 7)``."""
    if rng is None:
        raise ValueError("the dice need a random generator: the fixed rolls have run out")
    bank = np.empty(1 + count, dtype=np.int64)
    roll_dice(bank, generator_list(rng))
    return bank


@compiled
def roll_dice(bank, rngs):
    """``dice_from``'s draw: ``bank[1:]`` thrown with the generator in ``rngs`` (a typed list of one), as one call
    to ``integers(1, 7)``, which numba draws as numpy does (and four times as fast, from a list)."""
    bank[0] = 1
    bank[1:] = rngs[0].integers(1, DIE_FACES + 1, size=len(bank) - 1)


def _pay_from(s: State, rng) -> None:
    if s.dice_owed:
        pay_dice(s.data, dice_from(rng, s.dice_owed))


# The rest of the turn for Python callers, on a State (copied first): written once in ``envs/core/turn.py``.
_TURN = CompiledTurn(NUM_ACTIONS, fill_legal_mask, end_game, FORFEITED)
legal_mask, forfeit = _TURN.legal_mask, _TURN.forfeit


def apply(s: State, action: int, rng: np.random.Generator | None = None) -> State:
    """The state after the player takes ``action`` (which must be legal). ``s`` is not changed.

    ``rng`` rolls the dice of every turn begun once the fixed rolls have run out.
    """
    s = s.copy()
    take_action(s.data, action, _rolls_of(s))
    _pay_from(s, rng)
    return s


def play(s: State, action: int, rng: np.random.Generator | None, skip_forced: bool) -> tuple[State, np.ndarray]:
    """The env's step: ``action``, then (``skip_forced``) every forced move after it; the new state and its mask.
    ``s`` is not changed."""
    s = s.copy()
    rolls = _rolls_of(s)
    done = take_turn(s.data, action, skip_forced, rolls, _NO_DICE)
    while not done:
        done = continue_turn(s.data, skip_forced, rolls, dice_from(rng, s.dice_owed))
    return s, legal_mask(s)


def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy whose future dice are re-drawn with ``rng``: the fixed rolls not yet used are dropped and
    replaced by fresh ones for every turn that can still begin, so the copy's own generator (a copy of
    the real game's) is never used and cannot replay the real future."""
    s = s.copy()
    future = np.asarray(rng.integers(1, DIE_FACES + 1, size=3 * max(0, s.max_turns - s.turn)), dtype=np.int8)
    s.rolls = room_for_every_roll(future, s.max_turns)
    s.fixed_rolls = len(future)
    s.next_roll = 0
    return s


# ---------------------------------------------------------------- end and score

def is_over(s: State) -> bool:
    return s.result in (WON, LOST, FORFEITED)


def is_truncated(s: State) -> bool:
    return s.result == TRUNCATED




def outcomes(data: np.ndarray) -> dict:
    """The outcome of each game, a row of ``data`` each, as arrays (what a vector env's infos hold): ``won``,
    ``score`` (the last level completed), ``result`` (the code of a name in ``RESULT_NAMES``), ``level`` and
    ``turn``."""
    return {
        "won": data[:, AT_RESULT] == WON,
        "score": data[:, AT_CLEARED],
        "result": data[:, AT_RESULT].copy(),
        "level": data[:, AT_LEVEL],
        "turn": data[:, AT_TURN],
    }


def outcome(s: State) -> dict:
    """``outcomes`` of the game ``s``, as Python's values."""
    return one_game(outcomes(s.data[None]), RESULT_NAMES)


# ---------------------------------------------------------------- what the player sees

PLANES = ("wall", "start_stair", "other_stair", "adventurer", "monster", "monster_hp")
_STAT_NAMES = ("hp", "speed", "attack", "defense", "range")
_STAT_HIGH = {stat: max(getattr(m, stat) for m in MONSTERS.values()) for stat in _STAT_NAMES}


def skill_bounds(skill_cap: int) -> dict[str, tuple[int, int]]:
    """The values each skill can take: from its start to the cap (or start + 11 upgrades)."""
    bounds = {}
    for name in UPGRADES:
        start = ADVENTURER_START[name]
        bounds[name] = (start, max(start, min(skill_cap, start + _MOST_UPGRADES)))
    return bounds


def observation_fields(skill_cap: int = 6) -> list[tuple[str, tuple[float, float]]]:
    """(name, (low, high)) for every entry of the observation, in order."""
    skills = skill_bounds(skill_cap)
    fields = []
    for plane in PLANES:
        high = MAX_MONSTER_HP if plane == "monster_hp" else 1
        fields += [(f"{plane}_r{r}c{c}", (0, high)) for r in range(SIZE) for c in range(SIZE)]
    fields += [(f"level_{n}", (0, 1)) for n in range(1, NUM_LEVELS + 1)]
    fields += [(f"monster_{stat}", (0, _STAT_HIGH[stat])) for stat in _STAT_NAMES]
    for k in range(MAX_MONSTERS):
        fields += [(f"slot{k}_alive", (0, 1)), (f"slot{k}_row", (0, SIZE - 1)), (f"slot{k}_col", (0, SIZE - 1)),
                   (f"slot{k}_hp", (0, MAX_MONSTER_HP))]
    fields += [("health", (0, MAX_HEALTH))]
    # A skill the cap keeps at its start (Range at skill_cap 2) still spans one step: Gymnasium's checker warns
    # about a Box entry whose low equals its high.
    fields += [(name, (low, max(high, low + 1))) for name, (low, high) in skills.items()]
    fields += [("row", (0, SIZE - 1)), ("col", (0, SIZE - 1))]
    fields += [("die_high", (1, DIE_FACES)), ("die_mid", (1, DIE_FACES)), ("die_low", (1, DIE_FACES))]
    fields += [("speed_left", (0, skills["speed"][1] + DIE_FACES)),
               ("attack_left", (0, skills["attack"][1] + DIE_FACES)),
               ("defense_total", (0, skills["defense"][1] + DIE_FACES))]
    fields += [(f"phase_{name}", (0, 1)) for name in PHASE_NAMES]
    fields += [("turn_fraction", (0, 1))]
    return fields


def observation_bounds(skill_cap: int = 6) -> tuple[np.ndarray, np.ndarray]:
    fields = observation_fields(skill_cap)
    low = np.array([lo for _, (lo, _) in fields], dtype=np.float32)
    high = np.array([hi for _, (_, hi) in fields], dtype=np.float32)
    return low, high


OBSERVATION_FIELDS = observation_fields()
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
OBSERVATION_LOW, OBSERVATION_HIGH = observation_bounds()

_PLANE = {name: i * NUM_TILES for i, name in enumerate(PLANES)}
_VECTOR = len(PLANES) * NUM_TILES
_SLOTS = _VECTOR + NUM_LEVELS + len(_STAT_NAMES)
_ADVENTURER = _SLOTS + 4 * MAX_MONSTERS
_PHASE = _ADVENTURER + 7 + 3 + 3
_TURN = _PHASE + len(PHASE_NAMES)
assert _TURN + 1 == OBSERVATION_SIZE
_ADVENTURER_PLANE, _MONSTER_PLANE, _MONSTER_HP_PLANE = _PLANE["adventurer"], _PLANE["monster"], _PLANE["monster_hp"]


def _level_picture(level: int) -> np.ndarray:
    """The part of the observation fixed by the level: walls, stairs, the level and the monster type."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    walls = WALLS[LAYOUT_OF_LEVEL[level]]
    for t in range(NUM_TILES):
        obs[_PLANE["wall"] + t] = (walls >> t) & 1
    obs[_PLANE["start_stair"] + LEVEL_START[level]] = 1
    obs[_PLANE["other_stair"] + LEVEL_OTHER_STAIR[level]] = 1
    obs[_VECTOR + level - 1] = 1
    kind = LEVEL_MONSTER[level]
    obs[_VECTOR + NUM_LEVELS:_SLOTS] = [getattr(kind, stat) for stat in _STAT_NAMES]
    return obs


_LEVEL_PICTURE = np.array([np.zeros(OBSERVATION_SIZE, dtype=np.float32)]
                          + [_level_picture(level) for level in range(1, NUM_LEVELS + 1)])


@compiled
def fill_observation(a, obs):
    """The flat observation: the board planes, the level, the monsters, the adventurer, this turn's dice (high to
    low) and points, the phase, and the share of turns used. Never a future die."""
    obs[:] = _LEVEL_PICTURE[a[AT_LEVEL]]
    pos = a[AT_POS]
    obs[_ADVENTURER_PLANE + pos] = 1
    for k in range(MAX_MONSTERS):
        p, hp, at = a[AT_MONSTER_POS + k], a[AT_MONSTER_HP + k], _SLOTS + 4 * k
        if p >= 0:
            obs[_MONSTER_PLANE + p] = 1
            obs[_MONSTER_HP_PLANE + p] = hp
            obs[at], obs[at + 1], obs[at + 2], obs[at + 3] = 1, p // SIZE, p % SIZE, hp
    obs[_ADVENTURER] = a[AT_HEALTH]
    for j in range(len(UPGRADES)):
        obs[_ADVENTURER + 1 + j] = a[AT_SPEED + j]
    obs[_ADVENTURER + 5], obs[_ADVENTURER + 6] = pos // SIZE, pos % SIZE
    obs[_ADVENTURER + 7], obs[_ADVENTURER + 8], obs[_ADVENTURER + 9] = _sorted_dice(a)
    obs[_ADVENTURER + 10] = a[AT_SPEED_LEFT]
    obs[_ADVENTURER + 11] = a[AT_ATTACK_LEFT]
    obs[_ADVENTURER + 12] = a[AT_DEFENSE_TOTAL]
    obs[_PHASE + a[AT_PHASE]] = 1
    obs[_TURN] = a[AT_TURN] / a[AT_MAX_TURNS]


def observe(s: State) -> np.ndarray:
    """The flat observation (see ``fill_observation``), float32."""
    obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    fill_observation(s.data, obs)
    return obs


def describe(s: State) -> dict:
    """The public table as a JSON-serialisable dict (the keys RULES.md lists)."""
    kind = LEVEL_MONSTER[s.level]
    monsters = []
    for k in range(LEVEL_COUNT[s.level]):
        p = int(s.monster_pos[k])
        monsters.append(None if p < 0 else {"pos": list(row_col(p)), "hp": int(s.monster_hp[k])})
    return {
        "level": s.level,
        "phase": PHASE_NAMES[s.phase],
        "adventurer": {"pos": list(row_col(s.pos)), "health": s.health, "speed": s.speed, "attack": s.attack,
                       "defense": s.defense, "range": s.range},
        "monsters": monsters,
        "monster_type": {"name": kind.name, "hp": kind.hp, "speed": kind.speed, "attack": kind.attack,
                         "defense": kind.defense, "range": kind.range},
        "dice": [int(d) for d in s.dice],
        "speed_left": s.speed_left,
        "attack_left": s.attack_left,
        "defense_total": s.defense_total,
        "turn": s.turn,
        "max_turns": s.max_turns,
        "levels_cleared": s.cleared,
        "result": RESULT_NAMES[s.result],
    }


# ---------------------------------------------------------------- the vector env's loops, a row per game

@compiled
def take_actions(data, actions, rows, rolls, banks, waiting):
    """Every game ``rows`` selects takes its action; ``waiting[i]``: game i's bank ran short of the dice owed."""
    for i in range(data.shape[0]):
        if rows[i]:
            take_action(data[i], actions[i], rolls[i])
            waiting[i] = not pay_dice(data[i], banks[i])


@compiled
def pay_rows(data, rows, banks, waiting):
    for i in range(data.shape[0]):
        if rows[i]:
            waiting[i] = not pay_dice(data[i], banks[i])


@compiled
def continue_rows(data, rows, skip_forced, rolls, banks, waiting):
    """``continue_turn`` for every game ``rows`` selects (``waiting[i]`` where game i's bank ran short)."""
    for i in range(data.shape[0]):
        if rows[i]:
            waiting[i] = not continue_turn(data[i], skip_forced, rolls[i], banks[i])


@compiled
def start_games(data, rows, rolls, banks, waiting):
    for i in range(data.shape[0]):
        if rows[i]:
            start_game(data[i], rolls[i])
            waiting[i] = not pay_dice(data[i], banks[i])


@compiled
def fill_legal_masks(data, masks):
    for i in range(data.shape[0]):
        fill_legal_mask(data[i], masks[i])


@compiled
def fill_observations(data, observations):
    for i in range(data.shape[0]):
        fill_observation(data[i], observations[i])


@compiled
def refill(bank, rng):
    """Fill a vector env's bank of one game's dice (``bank[0]``: the index of its next die, the dice after it): the
    dice still in it first, then new ones drawn from the game's generator ``rng``, as many as the bank holds. One
    call's draw gives the dice of drawing three at a time (numba's ``integers`` draws what numpy's does)."""
    left = len(bank) - bank[0]
    bank[1:1 + left] = bank[bank[0]:].copy()
    bank[1 + left:] = rng.integers(1, DIE_FACES + 1, size=len(bank) - 1 - left)
    bank[0] = 1


@compiled
def step_rows(data, actions, taking, starting, fresh, rolls, banks, rngs, skip_forced, masks, observations):
    """One step of a vector env in one call: each game ``taking`` takes its action (``take_turn``: its dice paid,
    and with ``skip_forced`` its forced moves), each game ``starting`` is started anew from ``fresh`` (a new game's
    data; its fixed ``rolls`` already in place), its bank refilled from its own generator whenever it runs short;
    then every game's legal mask and observation are written in place. A game's row depends on nothing but itself,
    its bank and its generator, so ``step_rows_on_threads`` shares the games among threads, with the same games."""
    for i in numba.prange(data.shape[0]):
        a, bank, rng = data[i], banks[i], rngs[np.int64(i)]  # (prange counts in unsigned integers)
        if taking[i]:
            done = take_turn(a, actions[i], skip_forced, rolls[i], bank)
            while not done:
                refill(bank, rng)
                done = continue_turn(a, skip_forced, rolls[i], bank)
        elif starting[i]:
            a[:] = fresh
            start_game(a, rolls[i])
            while not pay_dice(a, bank):
                refill(bank, rng)
        fill_legal_mask(a, masks[i])
        fill_observation(a, observations[i])


step_rows_on_threads = on_threads(step_rows)
