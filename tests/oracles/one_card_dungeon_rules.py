"""One Card Dungeon's rules as they were written in plain Python and numpy before they were compiled: the oracle
that ``tests/test_compiled_rules.py`` plays beside ``envs/one_card_dungeon/rules.py`` over thousands of seeds.

One Card Dungeon (Barny Skinner), the rules as pure functions.

Hold this file next to RULES.md: each section there has a section here. The state is a ``State`` of
numbers and fixed-shape numpy arrays; ``apply`` copies it and returns the next one. No Gymnasium here:
the env, agents and benchmarks only call these functions.

Tiles are numbered ``row * 5 + col`` (row-major), so ordering tiles by number is ordering them by
(row, col). Sets of tiles are Python ints used as 25-bit masks (bit ``t`` = tile ``t``). Everything that
depends only on the walls (ranges, which tiles each corner-to-corner sight line touches) is computed
once at import, per card position; monsters are checked against it at run time.
"""

from __future__ import annotations

import heapq
from functools import lru_cache

import numpy as np

from tabletop_gym.envs.core.state import ArrayState
from tabletop_gym.envs.one_card_dungeon.levels import ADVENTURER_START, LEVELS, MAX_MONSTERS, MONSTERS, NUM_LEVELS, SIZE

NUM_TILES = SIZE * SIZE
FAR = 99  # the cost of a tile that cannot be reached
MAX_HEALTH = ADVENTURER_START["max_health"]
DIE_FACES = 6


def tile(row: int, col: int) -> int:
    return row * SIZE + col


def row_col(t: int) -> tuple[int, int]:
    return divmod(t, SIZE)


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


# ---------------------------------------------------------------- geometry: step costs and range

ORTHOGONAL_STEP, DIAGONAL_STEP = 2, 3
NEIGHBOURS = tuple(
    tuple((tile(r + dr, c + dc), DIAGONAL_STEP if dr and dc else ORTHOGONAL_STEP)
          for dr in (-1, 0, 1) for dc in (-1, 0, 1)
          if (dr or dc) and 0 <= r + dr < SIZE and 0 <= c + dc < SIZE)
    for r in range(SIZE) for c in range(SIZE)
)


@lru_cache(maxsize=1 << 16)
def path_costs(source: int, blocked: int) -> tuple[int, ...]:
    """The cheapest path cost from ``source`` to every tile (FAR if none), never entering ``blocked``.

    Steps cost 2 orthogonally and 3 diagonally. A step needs only its destination to be enterable:
    diagonal steps past a wall's corner, or between two blocked orthogonal neighbours, are allowed.
    """
    cost = [FAR] * NUM_TILES
    cost[source] = 0
    queue = [(0, source)]
    while queue:
        here_cost, here = heapq.heappop(queue)
        if here_cost > cost[here]:
            continue
        for there, step in NEIGHBOURS[here]:
            new_cost = here_cost + step
            if new_cost < cost[there] and not (blocked >> there) & 1:
                cost[there] = new_cost
                heapq.heappush(queue, (new_cost, there))
    return tuple(cost)


# RANGE[layout][a][b]: the range (distance) between tiles a and b: the cheapest path through
# non-wall tiles, pieces ignored. FAR when a or b is a wall (a path never enters one).
RANGE = [
    [path_costs(a, WALLS[layout]) if not (WALLS[layout] >> a) & 1 else (FAR,) * NUM_TILES
     for a in range(NUM_TILES)]
    for layout in range(NUM_LAYOUTS)
]


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


def _sight_table(walls: int) -> list:
    """Per tile pair (a * 25 + b): True (always in sight), False (never) or the tuple of tile masks of
    the wall-free sight lines, any one of which must be free of monsters."""
    table = []
    for a in range(NUM_TILES):
        for b in range(NUM_TILES):
            if a == b:
                table.append(True)
                continue
            open_lines = [m for m in _sight_lines(a, b) if not m & walls]
            if any(m == 0 for m in open_lines):
                table.append(True)
            elif not open_lines:
                table.append(False)
            else:
                # A line that touches a superset of another's tiles is never the only free one.
                minimal = [m for m in open_lines if not any(o != m and o & m == o for o in open_lines)]
                table.append(tuple(sorted(minimal)))
    return table


SIGHT = [_sight_table(WALLS[layout]) for layout in range(NUM_LAYOUTS)]


def in_sight(layout: int, a: int, b: int, monsters: int) -> bool:
    """Line of sight between tiles a and b: some corner-to-corner segment touches (with positive
    length) no wall and no monster tile other than a and b (``monsters``: the monster tiles, a mask)."""
    lines = SIGHT[layout][a * NUM_TILES + b]
    if lines is True or lines is False:
        return lines
    for touched in lines:
        if not touched & monsters:
            return True
    return False


# ---------------------------------------------------------------- actions

PERMUTATIONS = ("HML", "HLM", "MHL", "MLH", "LHM", "LMH")
_DIE_INDEX = {"H": 0, "M": 1, "L": 2}  # into the dice sorted high to low
ASSIGN_ORDER = tuple(tuple(_DIE_INDEX[ch] for ch in p) for p in PERMUTATIONS)  # (speed, attack, defense)
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


def _assign_masks() -> dict:
    """For each sorted roll (high, mid, low): the permutations whose totals no earlier one gives."""
    masks = {}
    for high in range(1, DIE_FACES + 1):
        for mid in range(1, high + 1):
            for low in range(1, mid + 1):
                dice = (high, mid, low)
                seen = set()
                mask = np.zeros(len(PERMUTATIONS), dtype=bool)
                for k, order in enumerate(ASSIGN_ORDER):
                    totals = tuple(dice[i] for i in order)
                    mask[k] = totals not in seen
                    seen.add(totals)
                masks[dice] = mask
    return masks


ASSIGN_MASK = _assign_masks()


# ---------------------------------------------------------------- the state

ASSIGN, ACT, LEVEL_UP, OVER = range(4)
PHASE_NAMES = ("assign", "act", "level_up", "over")
PLAYING, WON, LOST, FORFEITED, TRUNCATED = range(5)
RESULT_NAMES = ("playing", "won", "lost", "forfeited", "truncated")
NO_ROLLS = np.zeros(0, dtype=np.int8)
NO_ROLLS.flags.writeable = False


class State(ArrayState):
    """Everything about a game, including the fixed future dice (the only hidden thing)."""

    def __init__(self, level: int, rolls: np.ndarray, max_turns: int, skill_cap: int):
        self.level = level
        self.phase = ASSIGN
        self.result = PLAYING
        self.cleared = level - 1  # the last level completed: the score
        self.pos = 0
        self.health = ADVENTURER_START["health"]
        self.speed = ADVENTURER_START["speed"]
        self.attack = ADVENTURER_START["attack"]
        self.defense = ADVENTURER_START["defense"]
        self.range = ADVENTURER_START["range"]
        # Monster slot k: its tile (-1 once dead or when the level has fewer monsters) and health.
        self.monster_pos = np.full(MAX_MONSTERS, -1, dtype=np.int8)
        self.monster_hp = np.zeros(MAX_MONSTERS, dtype=np.int8)
        self.dice = np.zeros(3, dtype=np.int8)  # this turn's rolls, in roll order
        self.speed_left = 0
        self.attack_left = 0
        self.defense_total = 0
        self.turn = 0  # turns begun this episode
        self.max_turns = max_turns
        self.skill_cap = skill_cap
        # Die results fixed in advance, used in order: the first ``fixed_rolls`` of ``rolls``. The array has room
        # for every die a game can roll (3 a turn), so that all games of a vector env hold arrays of one shape;
        # never written, so copies share it.
        self.fixed_rolls = min(len(rolls), 3 * max_turns)
        self.rolls = room_for_every_roll(rolls, max_turns)
        self.next_roll = 0

    def copy(self):
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        new.monster_pos = self.monster_pos.copy()
        new.monster_hp = self.monster_hp.copy()
        new.dice = self.dice.copy()
        return new


def layout(s: State) -> int:
    return LAYOUT_OF_LEVEL[s.level]


def monster_tiles(s: State) -> int:
    """The tiles of the living monsters as a bit mask."""
    bits = 0
    for p in s.monster_pos.tolist():
        if p >= 0:
            bits |= 1 << p
    return bits


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
    _set_up_level(s)
    _begin_turn(s, rng)
    return s


def _set_up_level(s: State) -> None:
    """The adventurer on the start stair, the level's monsters at full health on their start tiles."""
    s.pos = LEVEL_START[s.level]
    starts = LEVEL_MONSTER_STARTS[s.level]
    s.monster_pos[:] = -1
    s.monster_hp[:] = 0
    s.monster_pos[:len(starts)] = starts
    s.monster_hp[:len(starts)] = LEVEL_MONSTER[s.level].hp
    s.cleared = s.level - 1


# ---------------------------------------------------------------- a turn: energy

def _roll(s: State, rng: np.random.Generator | None) -> None:
    """Three dice: the next fixed rolls while any are left, then the generator."""
    fixed = s.rolls[s.next_roll:min(s.next_roll + 3, s.fixed_rolls)].tolist()
    s.next_roll += len(fixed)
    if len(fixed) < 3:
        if rng is None:
            raise ValueError("the dice need a random generator: the fixed rolls have run out")
        fixed += rng.integers(1, DIE_FACES + 1, size=3 - len(fixed)).tolist()
    s.dice[:] = fixed


def _begin_turn(s: State, rng) -> None:
    """The energy roll starts a turn; the turn after ``max_turns`` is never begun (truncation)."""
    s.speed_left = s.attack_left = s.defense_total = 0
    if s.turn >= s.max_turns:
        s.phase = OVER
        s.result = TRUNCATED
        return
    s.turn += 1
    _roll(s, rng)
    s.phase = ASSIGN


def sorted_dice(s: State) -> tuple[int, int, int]:
    """This turn's dice high to low (the H, M, L of the assign actions)."""
    a, b, c = s.dice.tolist()
    if a < b:
        a, b = b, a
    if b < c:
        b, c = c, b
        if a < b:
            a, b = b, a
    return a, b, c


def _assign(s: State, permutation: int) -> None:
    dice = sorted_dice(s)
    to_speed, to_attack, to_defense = ASSIGN_ORDER[permutation]
    s.speed_left = s.speed + dice[to_speed]
    s.attack_left = s.attack + dice[to_attack]
    s.defense_total = s.defense + dice[to_defense]
    s.phase = ACT


# ---------------------------------------------------------------- a turn: the adventurer

def adventurer_costs(s: State) -> tuple[int, ...]:
    """What a move to each tile costs: paths through floor, never through walls or monsters."""
    return path_costs(s.pos, WALLS[layout(s)] | monster_tiles(s))


def can_attack(s: State, k: int, monsters: int | None = None) -> bool:
    """Monster slot k is alive, within the adventurer's Range and sight, and Attack left pays its Defense."""
    p = int(s.monster_pos[k])
    if p < 0 or s.attack_left < LEVEL_MONSTER[s.level].defense:
        return False
    lay = layout(s)
    if RANGE[lay][s.pos][p] > s.range:
        return False
    return in_sight(lay, s.pos, p, monster_tiles(s) if monsters is None else monsters)


def _move(s: State, target: int) -> None:
    s.speed_left -= adventurer_costs(s)[target]
    s.pos = target


def _attack(s: State, k: int) -> None:
    s.attack_left -= LEVEL_MONSTER[s.level].defense
    s.monster_hp[k] -= 1
    if s.monster_hp[k] == 0:
        s.monster_pos[k] = -1
        if not s.monster_hp.any():
            _level_cleared(s)


def _level_cleared(s: State) -> None:
    """The last monster died: the level ends at once, with no monster phases."""
    s.speed_left = s.attack_left = 0
    s.cleared = s.level
    if s.level == NUM_LEVELS:
        s.phase = OVER
        s.result = WON
    else:
        s.phase = LEVEL_UP


def _end_turn(s: State, rng) -> None:
    s.speed_left = s.attack_left = 0  # unspent points are lost
    monster_movement(s)
    monster_attack(s)
    if s.health == 0:
        s.phase = OVER
        s.result = LOST
    else:
        _begin_turn(s, rng)


# ---------------------------------------------------------------- a turn: the monsters

def monster_order(s: State) -> list[int]:
    """Living monster slots, closest to the adventurer first (range), ties by row then column."""
    ranges = RANGE[layout(s)]
    alive = [k for k, p in enumerate(s.monster_pos.tolist()) if p >= 0]
    return sorted(alive, key=lambda k: (ranges[int(s.monster_pos[k])][s.pos], int(s.monster_pos[k])))


def monster_destination(s: State, k: int) -> int:
    """Where monster slot k ends its move (RULES.md, "Monster movement", three tiers)."""
    lay = layout(s)
    walls = WALLS[lay]
    hero = s.pos
    kind = LEVEL_MONSTER[s.level]
    here = int(s.monster_pos[k])
    others = monster_tiles(s) & ~(1 << here)
    ranges = RANGE[lay]
    # The monster's movement: walls and the adventurer block; other monsters may be passed.
    spent = path_costs(here, walls | (1 << hero))
    reachable = [t for t in range(NUM_TILES) if spent[t] <= kind.speed and not (others >> t) & 1]

    def attacks_from(t: int) -> bool:
        return ranges[t][hero] <= kind.range and in_sight(lay, t, hero, others)

    # Tier 1: a reachable tile in Range and sight: the largest range, then least cost, then (row, col).
    spots = [t for t in reachable if attacks_from(t)]
    if spots:
        return min(spots, key=lambda t: (-ranges[t][hero], spent[t], t))
    # Tier 2: head for the best empty tile in Range and sight (the goal).
    empty = ~(walls | others | (1 << hero))
    goals = [t for t in range(NUM_TILES) if (empty >> t) & 1 and spent[t] < FAR and attacks_from(t)]
    if goals:
        goal = min(goals, key=lambda t: (-ranges[t][hero], spent[t], t))
        to_goal = path_costs(goal, walls | (1 << hero))
        return min(reachable, key=lambda t: (to_goal[t], ranges[t][hero], spent[t], t))
    # Tier 3: no goal anywhere: just close in.
    return min(reachable, key=lambda t: (ranges[t][hero], spent[t], t))


def monster_movement(s: State) -> None:
    """Each monster moves in turn; later monsters see earlier monsters' new tiles."""
    for k in monster_order(s):
        s.monster_pos[k] = monster_destination(s, k)


def attackers(s: State) -> list[int]:
    """Monster slots within their Range and line of sight of the adventurer (other monsters block)."""
    lay = layout(s)
    kind = LEVEL_MONSTER[s.level]
    monsters = monster_tiles(s)
    ranges = RANGE[lay]
    return [k for k, p in enumerate(s.monster_pos.tolist())
            if p >= 0 and ranges[p][s.pos] <= kind.range and in_sight(lay, p, s.pos, monsters)]


def monster_attack(s: State) -> int:
    """Damage = floor(sum of the attackers' Attack / this turn's Defense total); returns it."""
    damage = len(attackers(s)) * LEVEL_MONSTER[s.level].attack // s.defense_total
    s.health = max(0, s.health - damage)
    return damage


# ---------------------------------------------------------------- levels

def _level_up(s: State, choice: int, rng) -> None:
    """+1 to a skill (masked at the cap) or heal to full, then the next level and a new turn."""
    if choice == len(UPGRADES):
        s.health = MAX_HEALTH
    else:
        name = UPGRADES[choice]
        setattr(s, name, getattr(s, name) + 1)
    s.level += 1
    _set_up_level(s)
    _begin_turn(s, rng)


# ---------------------------------------------------------------- the player's decisions

def legal_mask(s: State) -> np.ndarray:
    """Which actions the rules allow now (all False once the game is over or truncated)."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.phase == ACT:
        costs = np.array(adventurer_costs(s))
        mask[A_MOVE:A_ATTACK] = costs <= s.speed_left
        mask[A_MOVE + s.pos] = False
        if s.attack_left >= LEVEL_MONSTER[s.level].defense:
            monsters = monster_tiles(s)
            for k in range(MAX_MONSTERS):
                mask[A_ATTACK + k] = can_attack(s, k, monsters)
        mask[A_END_TURN] = True
    elif s.phase == ASSIGN:
        mask[A_ASSIGN:A_MOVE] = ASSIGN_MASK[sorted_dice(s)]
    elif s.phase == LEVEL_UP:
        cap = s.skill_cap
        mask[A_UPGRADE:A_HEAL] = (s.speed < cap, s.attack < cap, s.defense < cap, s.range < cap)
        mask[A_HEAL] = True
    return mask


def apply(s: State, action: int, rng: np.random.Generator | None = None) -> State:
    """The state after the player takes ``action`` (which must be legal). ``s`` is not changed.

    ``rng`` rolls the dice of every turn begun once the fixed rolls have run out.
    """
    s = s.copy()
    if action < A_MOVE:
        _assign(s, action - A_ASSIGN)
    elif action < A_ATTACK:
        _move(s, action - A_MOVE)
    elif action < A_END_TURN:
        _attack(s, action - A_ATTACK)
    elif action == A_END_TURN:
        _end_turn(s, rng)
    else:
        _level_up(s, action - A_UPGRADE, rng)
    return s


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


def forfeit(s: State) -> State:
    """The game lost by an illegal action."""
    s = s.copy()
    s.phase = OVER
    s.result = FORFEITED
    return s


# ---------------------------------------------------------------- end and score

def is_over(s: State) -> bool:
    return s.result in (WON, LOST, FORFEITED)


def is_truncated(s: State) -> bool:
    return s.result == TRUNCATED


def outcome(s: State) -> dict:
    """``won``, ``score`` (the last level completed), ``result``, ``level`` and ``turn``."""
    return {
        "won": s.result == WON,
        "score": s.cleared,
        "result": RESULT_NAMES[s.result],
        "level": s.level,
        "turn": s.turn,
    }


# ---------------------------------------------------------------- what the player sees

PLANES = ("wall", "start_stair", "other_stair", "adventurer", "monster", "monster_hp")
MAX_MONSTER_HP = max(m.hp for m in MONSTERS.values())
_STAT_NAMES = ("hp", "speed", "attack", "defense", "range")
_STAT_HIGH = {stat: max(getattr(m, stat) for m in MONSTERS.values()) for stat in _STAT_NAMES}
_MOST_UPGRADES = NUM_LEVELS - 1


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
    fields += [(name, skills[name]) for name in UPGRADES]
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


LEVEL_PICTURE = [None] + [_level_picture(level) for level in range(1, NUM_LEVELS + 1)]


def observe(s: State) -> np.ndarray:
    """The flat observation: the board planes, the level, the monsters, the adventurer, this turn's
    dice (high to low) and points, the phase, and the share of turns used. Never a future die."""
    obs = LEVEL_PICTURE[s.level].copy()
    obs[_ADVENTURER_PLANE + s.pos] = 1
    vector = []  # everything from the slots on, written in one go
    for p, hp in zip(s.monster_pos.tolist(), s.monster_hp.tolist()):
        if p >= 0:
            obs[_MONSTER_PLANE + p] = 1
            obs[_MONSTER_HP_PLANE + p] = hp
            vector += (1, p // SIZE, p % SIZE, hp)
        else:
            vector += (0, 0, 0, 0)
    phase = [0, 0, 0, 0]
    phase[s.phase] = 1
    vector += (s.health, s.speed, s.attack, s.defense, s.range, s.pos // SIZE, s.pos % SIZE, *sorted_dice(s),
               s.speed_left, s.attack_left, s.defense_total, *phase, s.turn / s.max_turns)
    obs[_SLOTS:] = vector
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
