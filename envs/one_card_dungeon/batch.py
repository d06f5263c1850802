"""One Card Dungeon's rules over a batch of games: ``rules.py`` with a leading axis of N.

``rules.py`` is the source of truth; each function here does, for every game a row mask (or index array) selects,
what the function of the same name there does for one game, and ``tests/test_vector_one_card_dungeon.py`` plays
both side by side. The state is a ``Batch`` of ``rules.State`` (see ``envs/core/vector.py``): ``b.pos[i]`` is
where game i's adventurer stands, ``b.monster_pos[i, k]`` monster slot k's tile, and so on. Functions change ``b``
in place; ``rows`` are arrays of game indices.

All geometry comes from tables built at import from the scalar rules' own (ranges, the monsters' path costs for
every tile the adventurer may stand on, the sight lines of every tile pair). A game's *board* is its layout with
the adventurer (or the tile seen from) on a tile, ``layout * 25 + tile``, and the tables hold one row of 25 tiles
per board, so one ``take`` gives every game its row. The one path cost that depends on where the monsters stand,
the adventurer's, is found for all games at once by growing the sets of tiles of cost 2, 3, 4... as 25-bit masks.
The monsters move one after another, so their movement loops over the places of the moving order, each pass moving
one monster in every game. Dice come from each game's own generator, the same dice ``rules._roll`` draws, but
asked for many turns ahead (see ``_from_generators``); ``deal`` rolls a new game's first dice that way too (the rest
of a new game is the same for every game). With ``skip_forced`` the vector env calls ``play_forced``, which tells a
forced move from a choice without working out every legal action (``_forced_actions``).
"""

from __future__ import annotations

import numpy as np

from . import rules
from .levels import MAX_MONSTERS, NUM_LEVELS
from .rules import (A_ASSIGN, A_ATTACK, A_END_TURN, A_HEAL, A_MOVE, A_UPGRADE, ACT, ASSIGN, DIAGONAL_STEP,
                    DIE_FACES, FAR, FORFEITED, LEVEL_UP, LOST, MAX_HEALTH, NUM_ACTIONS, NUM_LAYOUTS, NUM_TILES,
                    ORTHOGONAL_STEP, OVER, SIZE, TRUNCATED, WON)

_TILES = np.arange(NUM_TILES)

# ---------------------------------------------------------------- the card, per level

_LAYOUT = np.array([0] + rules.LAYOUT_OF_LEVEL[1:])  # indexed by level (0 unused)
_WALLS = np.array(rules.WALLS, dtype=np.int64)  # per layout, a tile mask
_START = np.array(rules.LEVEL_START)


def _per_level(stat: str) -> np.ndarray:
    return np.array([0] + [getattr(rules.LEVEL_MONSTER[level], stat) for level in range(1, NUM_LEVELS + 1)])


_MONSTER_HP, _MONSTER_SPEED, _MONSTER_ATTACK, _MONSTER_DEFENSE, _MONSTER_RANGE = map(
    _per_level, ("hp", "speed", "attack", "defense", "range"))
# Each level's monster slots: the start tiles (-1 for a slot the level lacks) and their health.
_SLOT_START = np.full((NUM_LEVELS + 1, MAX_MONSTERS), -1, dtype=np.int8)
_SLOT_HP = np.zeros((NUM_LEVELS + 1, MAX_MONSTERS), dtype=np.int8)
for _level in range(1, NUM_LEVELS + 1):
    _starts = rules.LEVEL_MONSTER_STARTS[_level]
    _SLOT_START[_level, :len(_starts)] = _starts
    _SLOT_HP[_level, :len(_starts)] = _MONSTER_HP[_level]

# ---------------------------------------------------------------- geometry tables, one row per board

_RANGE = np.array(rules.RANGE, dtype=np.int32)  # [layout, a, b]
_RANGE_FROM = _RANGE.reshape(-1, NUM_TILES)  # [board of a, b]: RANGE[layout][a][b]
_RANGE_TO = _RANGE.transpose(0, 2, 1).reshape(-1, NUM_TILES)  # [board of b, a]: RANGE[layout][a][b]
# A monster's path costs with the adventurer on the board's tile (walls and the adventurer block, monsters may be
# passed): row board * 25 + here is rules.path_costs(here, walls | hero).
_MONSTER_COSTS = np.array([rules.path_costs(here, rules.WALLS[layout] | (1 << hero))
                           for layout in range(NUM_LAYOUTS) for hero in range(NUM_TILES)
                           for here in range(NUM_TILES)], dtype=np.int32)
_WALL_TILES = np.repeat((_WALLS[:, None] >> _TILES) & 1, NUM_TILES, axis=0).astype(bool)  # [board]
_HERO_TILE = np.tile(np.eye(NUM_TILES, dtype=bool), (NUM_LAYOUTS, 1))  # [board]: the board's own tile
# A tier-2 goal must be floor, not the adventurer's, and reachable at some cost (other monsters aside).
_OPEN = (_MONSTER_COSTS < FAR) & np.repeat(~_WALL_TILES & ~_HERO_TILE, NUM_TILES, axis=0)

# Line of sight: rules.SIGHT[layout][b * 25 + a] lists the wall-free sight lines between tiles b and a, each as the
# tiles it touches, and b sees a when some line touches no monster. Here the lines of a pair are the bits of a small
# int: _LINE_BITS[board of a, b] has one bit per line (a pair always in sight has a line no tile touches, a pair
# never in sight none), and row (board of a) * 26 + m of _HITS the bits of the lines a monster on tile m touches
# (m = _NOWHERE, no monster, touches none). In sight: the monsters do not touch all the lines.
_NOWHERE = NUM_TILES
_LINE_BITS = np.zeros((NUM_LAYOUTS, NUM_TILES, NUM_TILES), dtype=np.uint8)
_HITS = np.zeros((NUM_LAYOUTS, NUM_TILES, NUM_TILES + 1, NUM_TILES), dtype=np.uint8)
for _layout, _table in enumerate(rules.SIGHT):
    for _pair, _lines in enumerate(_table):
        _b, _a = divmod(_pair, NUM_TILES)
        for _j, _touched in enumerate((0,) if _lines is True else () if _lines is False else _lines):
            _LINE_BITS[_layout, _a, _b] |= 1 << _j
            for _m in range(NUM_TILES):
                if (_touched >> _m) & 1:
                    _HITS[_layout, _a, _m, _b] |= 1 << _j
_LINE_BITS = _LINE_BITS.reshape(-1, NUM_TILES)
_HITS = _HITS.reshape(-1, NUM_TILES)
# Sight is symmetric, so one orientation serves the adventurer's attacks and the monsters' alike.
assert all(table[a * NUM_TILES + b] == table[b * NUM_TILES + a] for table in rules.SIGHT
           for a in range(NUM_TILES) for b in range(NUM_TILES))

# Row level * 25 + hero: the tiles within the level's monster Range of the adventurer (sight aside).
_IN_REACH = np.zeros((NUM_LEVELS + 1, NUM_TILES, NUM_TILES), dtype=bool)
_IN_REACH[1:] = _RANGE_TO.reshape(NUM_LAYOUTS, NUM_TILES, NUM_TILES)[_LAYOUT[1:]] <= _MONSTER_RANGE[1:, None, None]
_IN_REACH = _IN_REACH.reshape(-1, NUM_TILES)

# A monster's move: the tie-breaks folded into one integer key per tile, the smallest wins. Every part is below
# FAR + 1 <= 128 and a tile below 32: key = ((to_goal * 128 + range (or FAR - range)) * 128 + cost) * 32 + tile.
_COST_UNIT, _RANGE_UNIT, _GOAL_UNIT = 32, 32 * 128, 32 * 128 * 128
# int32 (every key is below 2**31): half the memory of int64 to go through.
_FARTHEST_FIRST = ((FAR - _RANGE_TO) * _RANGE_UNIT + _TILES).astype(np.int32)  # [board of the adventurer], cost to add
_CLOSEST_FIRST = (_RANGE_TO * _RANGE_UNIT + _TILES).astype(np.int32)
_NEVER = np.iinfo(np.int32).max

# Indexed by a monster slot's tile, where index -1 (a dead or unused slot) reads the last entry: the tile itself or
# _NOWHERE, and its bit or 0.
_WHERE = np.append(_TILES, _NOWHERE)
_TILE_BIT = np.array([1 << t for t in range(NUM_TILES)] + [0], dtype=np.int64)
_NOT_FIRST_COLUMN = sum(1 << t for t in range(NUM_TILES) if t % SIZE)
_NOT_LAST_COLUMN = sum(1 << t for t in range(NUM_TILES) if t % SIZE != SIZE - 1)

# ---------------------------------------------------------------- the dice

_ASSIGN_ORDER = np.array(rules.ASSIGN_ORDER)  # (permutation, (speed, attack, defense)) -> index into sorted dice
_ASSIGN_MASK = np.zeros((DIE_FACES + 1,) * 3 + (len(rules.PERMUTATIONS),), dtype=bool)
for (_high, _mid, _low), _mask in rules.ASSIGN_MASK.items():
    _ASSIGN_MASK[_high, _mid, _low] = _mask


def _sorted_dice(b, rows=slice(None)) -> np.ndarray:
    """This turn's dice high to low (the H, M, L of the assign actions), (k, 3)."""
    return -np.sort(-b.dice[rows], axis=1)


def _roll(b, rows, rngs) -> None:
    """Three dice: the next fixed rolls while any are left, then each game's own generator (through its bank)."""
    fixed = np.clip(b.fixed_rolls[rows] - b.next_roll[rows], 0, 3)
    full = rows[fixed == 3]
    if len(full):
        b.dice[full] = b.rolls[full[:, None], b.next_roll[full, None] + np.arange(3)]
        b.next_roll[full] += 3
    drawing, fixed = rows[fixed < 3], fixed[fixed < 3]
    if not len(drawing):
        return
    if not fixed.any():  # no fixed rolls left in these games: the common case, three dice from every generator
        b.dice[drawing] = _from_generators(b, drawing, rngs, 3)
        return
    for i, count in zip(drawing.tolist(), fixed.tolist()):
        start = int(b.next_roll[i])
        b.dice[i, :count] = b.rolls[i, start:start + count]
        b.next_roll[i] += count
        b.dice[i, count:] = _from_generators(b, np.array([i]), rngs, 3 - count)[0]


# A game's generator is asked for its dice ahead of need, _BANK_SIZE at a time, and they wait in a bank kept with
# the batch: one call per game every 32 turns rather than one a turn. The dice are the same: a numpy Generator's
# ``integers`` draws its results one after another from one stream, so asking for 3 dice k times gives exactly the
# dice of asking once for 3k (the parity tests hold the vector env to this). Nothing else in a game draws from its
# generator. The bank remembers the generator it was drawn from: a game given a new one (a reseed) starts afresh.
_BANK_SIZE = 96


class _DiceBank:
    def __init__(self, n: int):
        self.dice = np.zeros((n, _BANK_SIZE), dtype=np.int8)
        self.next = np.full(n, _BANK_SIZE)  # each game's next die to hand out (_BANK_SIZE: none left)
        self.generators = [None] * n  # the generator each game's dice came from


def _from_generators(b, rows, rngs, count: int) -> np.ndarray:
    """``count`` dice for each game of ``rows`` from its own generator, as ``rng.integers(1, 7, size=count)``
    would give them, (k, count)."""
    bank = getattr(b, "dice_bank", None)
    if bank is None:
        bank = b.dice_bank = _DiceBank(len(b.phase))
    if bank.generators != rngs:  # (one quick comparison of the lists, element by element identity first)
        for i, (drawn_from, now) in enumerate(zip(bank.generators, rngs)):
            if drawn_from is not now:  # a new generator (a reseed): the game's bank starts afresh
                bank.next[i] = _BANK_SIZE
        bank.generators = list(rngs)
    for i in rows[bank.next[rows] > _BANK_SIZE - count].tolist():
        left = bank.dice[i, bank.next[i]:].copy()  # still to be handed out: they come first
        bank.dice[i, :len(left)] = left
        bank.dice[i, len(left):] = rngs[i].integers(1, DIE_FACES + 1, size=_BANK_SIZE - len(left))
        bank.next[i] = 0
    dice = bank.dice[rows[:, None], bank.next[rows, None] + np.arange(count)]
    bank.next[rows] += count
    return dice


# ---------------------------------------------------------------- geometry at run time

def _board(level, pos) -> np.ndarray:
    """The games' layouts with the adventurer (or the tile looked from) on ``pos``."""
    return _LAYOUT[level] * NUM_TILES + pos


def _either(columns) -> np.ndarray:
    """The bitwise or over axis 1 (one entry per monster slot)."""
    out = columns[:, 0] | columns[:, 1]
    for k in range(2, columns.shape[1]):
        out |= columns[:, k]
    return out


def _sight_to(board, blockers) -> np.ndarray:
    """(k, 25): whether each tile is in sight of the board's tile with monsters on ``blockers`` (k, MAX_MONSTERS),
    rules.in_sight(layout, tile, board's tile, their mask)."""
    touched = _either(_HITS.take(board[:, None] * (NUM_TILES + 1) + blockers, axis=0))
    return touched != _LINE_BITS.take(board, axis=0)


def _cost_levels(source, blocked, most: int) -> np.ndarray:
    """``levels[:, c]``: the tiles (a mask per game) whose cheapest path cost from ``source`` is c, for c up to
    ``most`` (or fewer once no tile is left to reach), never entering ``blocked``: rules.path_costs by cost.

    A tile first reached at cost c is one orthogonal step from a tile first reached at c - 2 or one diagonal step
    from one at c - 3; like there, only the step's destination must be enterable. A diagonal step is a step up or
    down (kept per level in ``up_down``) then sideways, so one sideways shift serves both kinds of step."""
    none = np.zeros_like(source)
    levels, up_down = [source, none], [(source << SIZE) | (source >> SIZE), none]
    free = ~(source | blocked) & ((1 << NUM_TILES) - 1)  # bits shifted off the board never survive ``& free``
    idle = 0
    for cost in range(ORTHOGONAL_STEP, most + 1):
        sideways = levels[cost - ORTHOGONAL_STEP]
        if cost >= DIAGONAL_STEP:
            sideways = sideways | up_down[cost - DIAGONAL_STEP]
        new = free & (up_down[cost - ORTHOGONAL_STEP] | ((sideways << 1) & _NOT_FIRST_COLUMN)
                      | ((sideways >> 1) & _NOT_LAST_COLUMN))
        free ^= new
        levels.append(new)
        up_down.append((new << SIZE) | (new >> SIZE))
        idle = 0 if new.any() else idle + 1
        if idle == DIAGONAL_STEP:  # nothing left to step from
            break
    return np.stack(levels, axis=1)


def _adventurer_levels(b, rows, most: int) -> np.ndarray:
    """rules.adventurer_costs as cost levels: paths through floor, never through walls or monsters."""
    blocked = _WALLS[_LAYOUT[b.level[rows]]] | _either(_TILE_BIT.take(b.monster_pos[rows]))
    return _cost_levels(_TILE_BIT.take(b.pos[rows]), blocked, most)


def _moves(b, rows) -> np.ndarray:
    """The tiles (k, 25) a move reaches with ``speed_left``, the adventurer's own tile left out."""
    speed_left = b.speed_left[rows]
    levels = _adventurer_levels(b, rows, int(speed_left.max()))
    levels[:, 0] = 0
    within = np.bitwise_or.accumulate(levels, axis=1)  # [:, c]: the tiles a move of cost <= c reaches
    within = within[np.arange(len(rows)), np.minimum(speed_left, levels.shape[1] - 1)]
    return ((within[:, None] >> _TILES) & 1).astype(bool)


def _can_attack(b, rows) -> np.ndarray:
    """rules.can_attack for every slot, (k, MAX_MONSTERS): alive, in Range and sight, Attack left pays Defense."""
    monster_pos, level = b.monster_pos[rows], b.level[rows]
    at = _WHERE.take(monster_pos)  # below, at % _NOWHERE reads a dead slot's tile as 0: masked out
    board = _board(level, b.pos[rows])
    able = (b.attack_left[rows] >= _MONSTER_DEFENSE[level])[:, None] & (at != _NOWHERE)
    able &= _RANGE_FROM.take(board[:, None] * NUM_TILES + at % _NOWHERE) <= b.range[rows, None]
    seen = _sight_to(board, at)
    return able & seen[np.arange(len(rows))[:, None], at % _NOWHERE]


# ---------------------------------------------------------------- setup and the turn's start

def deal(b, rows, rngs, options) -> None:
    """Begin each new game's first turn with its own generator, as ``rules.new_game`` does: the rest of a new game
    is already in place (dealt once, its dice rolled by a stand-in generator), so its turn is begun again."""
    b.turn[rows] = 0
    b.next_roll[rows] = 0
    _begin_turn(b, rows, rngs)


def _set_up_level(b, rows) -> None:
    """The adventurer on the start stair, the level's monsters at full health on their start tiles."""
    level = b.level[rows]
    b.pos[rows] = _START[level]
    b.monster_pos[rows] = _SLOT_START[level]
    b.monster_hp[rows] = _SLOT_HP[level]
    b.cleared[rows] = level - 1


def _begin_turn(b, rows, rngs) -> None:
    """The energy roll starts a turn; the turn after ``max_turns`` is never begun (truncation)."""
    if not len(rows):
        return
    b.speed_left[rows] = b.attack_left[rows] = b.defense_total[rows] = 0
    out_of_turns = b.turn[rows] >= b.max_turns[rows]
    cut = rows[out_of_turns]
    b.phase[cut] = OVER
    b.result[cut] = TRUNCATED
    going = rows[~out_of_turns]
    b.turn[going] += 1
    _roll(b, going, rngs)
    b.phase[going] = ASSIGN


def _assign(b, rows, chosen, rngs) -> None:
    totals = _sorted_dice(b, rows)[np.arange(len(rows))[:, None], _ASSIGN_ORDER[chosen - A_ASSIGN]]
    b.speed_left[rows] = b.speed[rows] + totals[:, 0]
    b.attack_left[rows] = b.attack[rows] + totals[:, 1]
    b.defense_total[rows] = b.defense[rows] + totals[:, 2]
    b.phase[rows] = ACT


# ---------------------------------------------------------------- a turn: the adventurer

def _move(b, rows, chosen, rngs) -> None:
    targets = chosen - A_MOVE
    levels = _adventurer_levels(b, rows, int(b.speed_left[rows].max()))
    b.speed_left[rows] -= ((levels >> targets[:, None]) & 1).argmax(axis=1)  # the cost level the target is in
    b.pos[rows] = targets


def _attack(b, rows, chosen, rngs) -> None:
    slots = chosen - A_ATTACK
    b.attack_left[rows] -= _MONSTER_DEFENSE[b.level[rows]]
    b.monster_hp[rows, slots] -= 1
    killed = b.monster_hp[rows, slots] == 0
    b.monster_pos[rows[killed], slots[killed]] = -1
    last = rows[killed][~b.monster_hp[rows[killed]].any(axis=1)]
    _level_cleared(b, last)


def _level_cleared(b, rows) -> None:
    """The last monster died: the level ends at once, with no monster phases."""
    if not len(rows):
        return
    b.speed_left[rows] = b.attack_left[rows] = 0
    b.cleared[rows] = b.level[rows]
    won = b.level[rows] == NUM_LEVELS
    b.phase[rows[won]] = OVER
    b.result[rows[won]] = WON
    b.phase[rows[~won]] = LEVEL_UP


def _end_turn(b, rows, chosen, rngs) -> None:
    b.speed_left[rows] = b.attack_left[rows] = 0  # unspent points are lost
    _monster_movement(b, rows)
    _monster_attack(b, rows)
    dead = b.health[rows] == 0
    b.phase[rows[dead]] = OVER
    b.result[rows[dead]] = LOST
    _begin_turn(b, rows[~dead], rngs)


# ---------------------------------------------------------------- a turn: the monsters

def _monster_order(b, rows, board) -> np.ndarray:
    """(k, MAX_MONSTERS) slots, living ones first, closest to the adventurer first (range), ties by tile."""
    at = _WHERE.take(b.monster_pos[rows])
    ranges = _RANGE_TO.take(board[:, None] * NUM_TILES + at % _NOWHERE)
    return np.argsort(np.where(at != _NOWHERE, ranges * NUM_TILES + at, _NEVER), axis=1, kind="stable")


def _monster_movement(b, rows) -> None:
    """Each monster moves in turn; later monsters see earlier monsters' new tiles. Pass j moves the j-th monster
    of the order in every game that has one (the adventurer stands still meanwhile)."""
    level = b.level[rows]
    board = _board(level, b.pos[rows])
    order = _monster_order(b, rows, board)
    for j in range(MAX_MONSTERS):
        slots = order[:, j]
        moving = b.monster_pos[rows, slots] >= 0
        if not moving.all():
            rows, slots, order, level, board = rows[moving], slots[moving], order[moving], level[moving], board[moving]
            if not len(rows):
                return
        b.monster_pos[rows, slots] = _monster_destination(b, rows, slots, level, board)


def _best(chosen, key) -> np.ndarray:
    """The tile (per game) with the smallest ``key`` among the ``chosen`` ones (k, 25)."""
    return np.where(chosen, key, _NEVER).argmin(axis=1)


def _monster_destination(b, rows, slots, level, board) -> np.ndarray:
    """Where monster slot ``slots[i]`` of game ``rows[i]`` ends its move (RULES.md, "Monster movement");
    ``board``: the games' layouts with the adventurer on its tile."""
    here = b.monster_pos[rows, slots]
    others = _WHERE.take(b.monster_pos[rows])
    others[np.arange(len(rows)), slots] = _NOWHERE
    elsewhere = ((_either(_TILE_BIT.take(others))[:, None] >> _TILES) & 1) == 0  # no other monster there
    # The monster's movement: walls and the adventurer block; other monsters may be passed, not ended on.
    spent = _MONSTER_COSTS.take(board * NUM_TILES + here, axis=0)
    reachable = (spent <= _MONSTER_SPEED[level, None]) & elsewhere
    attacks_from = _IN_REACH.take(level * NUM_TILES + b.pos[rows], axis=0) & _sight_to(board, others)
    spent *= _COST_UNIT
    # Tier 1: a reachable tile in Range and sight: the largest range, then least cost, then (row, col).
    farthest_first = _FARTHEST_FIRST.take(board, axis=0) + spent
    spots = reachable & attacks_from
    destination = _best(spots, farthest_first)
    # Tier 2, for the monsters with no such tile: the goal is the best empty tile in Range and sight (ranked as in
    # tier 1); the monster ends on the reachable tile nearest it, then closest to the adventurer, then least cost,
    # then (row, col). Tier 3, no goal anywhere, is the same with every tile as near the goal: it just closes in.
    far = np.flatnonzero(~spots.any(axis=1))
    if len(far):
        board, here, spent = board[far], here[far], spent[far]
        goals = _OPEN.take(board * NUM_TILES + here, axis=0) & elsewhere[far] & attacks_from[far]
        to_goal = _MONSTER_COSTS.take(board * NUM_TILES + _best(goals, farthest_first[far]), axis=0)
        to_goal *= goals.any(axis=1, keepdims=True)
        destination[far] = _best(reachable[far], to_goal * _GOAL_UNIT + _CLOSEST_FIRST.take(board, axis=0) + spent)
    return destination


def _monster_attack(b, rows) -> None:
    """Damage = floor(sum of the attackers' Attack / this turn's Defense total)."""
    level, hero = b.level[rows], b.pos[rows]
    at = _WHERE.take(b.monster_pos[rows])
    threatened = _IN_REACH.take(level * NUM_TILES + hero, axis=0) & _sight_to(_board(level, hero), at)
    attacking = (at != _NOWHERE) & threatened[np.arange(len(rows))[:, None], at % _NOWHERE]
    damage = attacking.sum(axis=1) * _MONSTER_ATTACK[level] // b.defense_total[rows]
    b.health[rows] = np.maximum(0, b.health[rows] - damage)


# ---------------------------------------------------------------- levels

_SKILLS = rules.UPGRADES  # the fields the upgrades raise, in action order


def _level_up(b, rows, chosen, rngs) -> None:
    """+1 to a skill (masked at the cap) or heal to full, then the next level and a new turn."""
    choices = chosen - A_UPGRADE
    b.health[rows[choices == len(_SKILLS)]] = MAX_HEALTH
    for k, name in enumerate(_SKILLS):
        getattr(b, name)[rows[choices == k]] += 1
    b.level[rows] += 1
    _set_up_level(b, rows)
    _begin_turn(b, rows, rngs)


# ---------------------------------------------------------------- the player's decisions

def legal_masks(b) -> np.ndarray:
    """Which actions the rules allow now, (N, 41) (all False once a game is over or truncated)."""
    n = b.phase.shape[0]
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    phase = b.phase
    acting = np.flatnonzero(phase == ACT)
    if len(acting):
        mask[acting, A_MOVE:A_ATTACK] = _moves(b, acting)
        mask[acting, A_ATTACK:A_END_TURN] = _can_attack(b, acting)
        mask[acting, A_END_TURN] = True
    assigning = np.flatnonzero(phase == ASSIGN)
    if len(assigning):
        high, mid, low = _sorted_dice(b, assigning).T
        mask[assigning, :A_MOVE] = _ASSIGN_MASK[high, mid, low]
    choosing = np.flatnonzero(phase == LEVEL_UP)
    if len(choosing):
        skills = np.stack([getattr(b, name)[choosing] for name in _SKILLS], axis=1)
        mask[choosing, A_UPGRADE:A_HEAL] = skills < b.skill_cap[choosing, None]
        mask[choosing, A_HEAL] = True
    return mask


# Each kind of action's handler, and the kind of every action index.
_HANDLERS = (_assign, _move, _attack, _end_turn, _level_up)
_KIND = np.repeat(np.arange(len(_HANDLERS)), np.diff([A_ASSIGN, A_MOVE, A_ATTACK, A_END_TURN, A_UPGRADE, NUM_ACTIONS]))


def apply(b, actions, rows, rngs) -> None:
    """Every game ``rows`` (a bool mask) selects takes its action, which must be legal. ``rngs[i]`` rolls game i's
    dice of every turn begun once its fixed rolls have run out."""
    games = np.flatnonzero(rows)
    _apply(b, games, actions[games], rngs)


def _apply(b, games, chosen, rngs) -> None:
    """Game ``games[k]`` takes action ``chosen[k]``; each kind of action is handled once for all the games taking
    it."""
    kind = _KIND[chosen]
    for k in np.flatnonzero(np.bincount(kind, minlength=len(_HANDLERS))).tolist():
        taking = kind == k
        _HANDLERS[k](b, games[taking], chosen[taking], rngs)


# ---------------------------------------------------------------- forced moves

# The tiles one orthogonal step (2 points) and one diagonal step (3 points) away from each tile, as masks.
_ORTHOGONAL_NEXT = np.array([sum(1 << t for t, step in rules.NEIGHBOURS[here] if step == ORTHOGONAL_STEP)
                             for here in range(NUM_TILES)], dtype=np.int64)
_DIAGONAL_NEXT = np.array([sum(1 << t for t, step in rules.NEIGHBOURS[here] if step == DIAGONAL_STEP)
                           for here in range(NUM_TILES)], dtype=np.int64)


def _forced_actions(b, rows) -> np.ndarray:
    """The one legal action of each game of ``rows`` that has exactly one, else -1 (a choice, or the game is over),
    found without the whole mask. Dice all alike leave one assignment; skills all at the cap leave healing; an act
    phase leaves only the end of the turn when no attack can be made and no first step can be paid for (every move
    starts with one step, to a tile that is itself a move)."""
    phase = b.phase[rows]
    action = np.full(len(rows), -1)
    dice = b.dice[rows]
    action[(phase == ASSIGN) & (dice[:, 0] == dice[:, 1]) & (dice[:, 1] == dice[:, 2])] = A_ASSIGN
    capped = b.skill_cap[rows]
    maxed = (b.speed[rows] >= capped) & (b.attack[rows] >= capped) & (b.defense[rows] >= capped)
    action[(phase == LEVEL_UP) & maxed & (b.range[rows] >= capped)] = A_HEAL
    acting = np.flatnonzero(phase == ACT)
    if len(acting):
        games = rows[acting]
        level, pos, speed_left = b.level[games], b.pos[games], b.speed_left[games]
        free = ~(_WALLS[_LAYOUT[level]] | _either(_TILE_BIT.take(b.monster_pos[games])))
        steps = np.where(speed_left >= ORTHOGONAL_STEP, _ORTHOGONAL_NEXT[pos], 0)
        steps |= np.where(speed_left >= DIAGONAL_STEP, _DIAGONAL_NEXT[pos], 0)
        stuck = (steps & free) == 0
        armed = np.flatnonzero(stuck & (b.attack_left[games] >= _MONSTER_DEFENSE[level]))
        stuck[armed] = ~_can_attack(b, games[armed]).any(axis=1)
        action[acting[stuck]] = A_END_TURN
    return action


def play_forced(b, rows, rngs) -> None:
    """Play every game ``rows`` (a bool mask) selects on while it has exactly one legal action (``skip_forced``)."""
    going = np.flatnonzero(rows)
    while len(going):
        actions = _forced_actions(b, going)
        forced = actions >= 0
        going = going[forced]
        _apply(b, going, actions[forced], rngs)


def forfeit(b, rows) -> None:
    """The games ``rows`` (a bool mask) selects are lost by an illegal action."""
    b.phase[rows] = OVER
    b.result[rows] = FORFEITED


# ---------------------------------------------------------------- end and score

def is_over(b) -> np.ndarray:
    return (b.result == WON) | (b.result == LOST) | (b.result == FORFEITED)


def is_truncated(b) -> np.ndarray:
    return b.result == TRUNCATED


_RESULT_NAMES = np.array(rules.RESULT_NAMES)


def outcome(b, rows) -> dict:
    """``rules.outcome`` of each game ``rows`` (a bool mask) selects, as arrays."""
    return {
        "won": b.result[rows] == WON,
        "score": b.cleared[rows],
        "result": _RESULT_NAMES[b.result[rows]],
        "level": b.level[rows],
        "turn": b.turn[rows],
    }


# ---------------------------------------------------------------- what the player sees

_LEVEL_PICTURE = np.array([np.zeros(rules.OBSERVATION_SIZE, dtype=np.float32)] + rules.LEVEL_PICTURE[1:])
_SLOTS, _ADVENTURER, _PHASE, _TURN = rules._SLOTS, rules._ADVENTURER, rules._PHASE, rules._TURN
# A monster slot's alive, row, col by its tile (the last row: _NOWHERE, an empty slot, all 0).
_SLOT_PICTURE = np.array([(1, t // SIZE, t % SIZE) for t in range(NUM_TILES)] + [(0, 0, 0)], dtype=np.float32)


def observe(b) -> np.ndarray:
    """rules.observe of every game, (N, 201) float32."""
    n = b.phase.shape[0]
    games = np.arange(n)
    obs = _LEVEL_PICTURE.take(b.level, axis=0)
    obs[games, rules._ADVENTURER_PLANE + b.pos] = 1
    where = _WHERE.take(b.monster_pos)
    hp = np.where(where != _NOWHERE, b.monster_hp, 0)
    game, slot = np.nonzero(where != _NOWHERE)
    at = where[game, slot]
    obs[game, rules._MONSTER_PLANE + at] = 1
    obs[game, rules._MONSTER_HP_PLANE + at] = hp[game, slot]
    slots = obs[:, _SLOTS:_ADVENTURER].reshape(n, MAX_MONSTERS, 4)  # a view: per slot alive, row, col, hp
    slots[:, :, :3] = _SLOT_PICTURE.take(where, axis=0)
    slots[:, :, 3] = hp
    obs[:, _ADVENTURER:_PHASE] = np.stack([
        b.health, b.speed, b.attack, b.defense, b.range, b.pos // SIZE, b.pos % SIZE, *_sorted_dice(b).T,
        b.speed_left, b.attack_left, b.defense_total], axis=1, dtype=np.float32)
    obs[games, _PHASE + b.phase] = 1
    obs[:, _TURN] = b.turn / b.max_turns
    return obs
