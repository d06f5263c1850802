"""Players for One Card Dungeon that read only the observation: a heuristic, and the heuristic with a learned value
of the levels' starts choosing when to heal."""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np

from ..envs.one_card_dungeon import rules
from .policy import MODELS, ValueNetwork, saved_value

_I = {name: i for i, (name, _) in enumerate(rules.OBSERVATION_FIELDS)}
_ACTION = {name: i for i, name in enumerate(rules.ACTION_NAMES)}
_SLOTS = rules.MAX_MONSTERS
_UPGRADE = {name: _ACTION["upgrade_" + name] for name in rules.UPGRADES}
_HEAL = _ACTION["heal"]
_END_TURN = _ACTION["end_turn"]
_LEVEL_FIELDS = [_I[f"level_{n}"] for n in range(1, rules.NUM_LEVELS + 1)]
_PHASE_FIELDS = [_I["phase_" + name] for name in rules.PHASE_NAMES]
# The numbers the table is read from: four per monster slot (alive, row, col, hp), then the adventurer's.
_FIRST_NUMBER = _I["slot0_alive"]
_HERO = _I["health"] - _FIRST_NUMBER
assert [name for name, _ in rules.OBSERVATION_FIELDS[_FIRST_NUMBER:_I["defense_total"] + 1]] == (
    [f"slot{k}_{field}" for k in range(_SLOTS) for field in ("alive", "row", "col", "hp")]
    + ["health", *rules.UPGRADES, "row", "col", "die_high", "die_mid", "die_low", "speed_left", "attack_left",
       "defense_total"])
_FACES = rules.DIE_FACES


# ---------------------------------------------------------------- the dice

def _roll_table():
    """Every roll sorted high to low with its chance, and each assignment's (speed, attack, defense) dice."""
    counts = {}
    for roll in product(range(1, _FACES + 1), repeat=3):
        key = tuple(sorted(roll, reverse=True))
        counts[key] = counts.get(key, 0) + 1
    rolls = sorted(counts)
    chance = np.array([counts[r] for r in rolls], dtype=float) / _FACES ** 3
    # [roll, assignment, (speed die, attack die, defense die)]
    dice = np.array([[[r[i] for i in order] for order in rules.ASSIGN_ORDER] for r in rolls], dtype=np.int64)
    return chance, dice


ROLL_CHANCE, ROLL_DICE = _roll_table()  # 56 rolls


class Table:
    """The public state rebuilt from the observation: all of it is on the table for the player to see."""

    __slots__ = ("level", "phase", "pos", "health", "speed", "attack", "defense", "range",
                 "monster_pos", "monster_hp", "dice", "speed_left", "attack_left", "defense_total")

    def __init__(self, o):
        o = np.asarray(o)
        numbers = np.rint(o[_FIRST_NUMBER:]).astype(np.int64).tolist()  # every field from the slots on, read at once
        slots = numbers[:_HERO]
        self.monster_pos = tuple(rules.tile(slots[i + 1], slots[i + 2]) if slots[i] else -1
                                 for i in range(0, _HERO, 4))
        self.monster_hp = tuple(slots[3:_HERO:4])
        (self.health, self.speed, self.attack, self.defense, self.range, row, col, high, mid, low,
         self.speed_left, self.attack_left, self.defense_total) = numbers[_HERO:_HERO + 13]
        self.pos = rules.tile(row, col)
        self.dice = (high, mid, low)
        self.level = 1 + int(np.argmax(o[_LEVEL_FIELDS]))
        self.phase = int(np.argmax(o[_PHASE_FIELDS]))

    def skills(self) -> tuple:
        return self.speed, self.attack, self.defense, self.range


# ---------------------------------------------------------------- the board, by the rules

def _mask_of(monster_pos) -> int:
    bits = 0
    for p in monster_pos:
        if p >= 0:
            bits |= 1 << p
    return bits


@lru_cache(maxsize=1 << 17)
def monster_phase(level: int, hero: int, monster_pos: tuple) -> tuple[tuple, int]:
    """Where the monsters end their move when the adventurer ends the turn on ``hero``, and how many of
    them then strike. Their movement is fixed by the rules and the public table (the dice play no part),
    so the rules' own functions play it out."""
    s = rules.State(level, rules.NO_ROLLS, 1, rules.MAX_HEALTH)
    s.pos = hero
    s.monster_pos[:] = monster_pos
    rules.monster_movement(s)
    return tuple(s.monster_pos.tolist()), len(rules.attackers(s))


@lru_cache(maxsize=1 << 16)
def attack_outcomes(level: int, where: int, reach: int, monster_pos: tuple, monster_hp: tuple, attacks: int) -> dict:
    """Every way up to ``attacks`` blows struck from tile ``where`` can leave the monsters:
    {monster health after: (monster tiles after, the slots hit in order)}. A kill can open a sight line."""
    lay = rules.LAYOUT_OF_LEVEL[level]
    ranges = rules.RANGE[lay][where]
    found = {monster_hp: (monster_pos, ())}
    frontier = [(monster_pos, monster_hp, ())]
    for _ in range(attacks):
        following = []
        for pos, hp, hits in frontier:
            monsters = _mask_of(pos)
            for k, p in enumerate(pos):
                if p < 0 or ranges[p] > reach or not rules.in_sight(lay, where, p, monsters):
                    continue
                new_hp = hp[:k] + (hp[k] - 1,) + hp[k + 1:]
                if new_hp in found:
                    continue
                new_pos = pos if new_hp[k] else pos[:k] + (-1,) + pos[k + 1:]
                found[new_hp] = (new_pos, hits + (k,))
                following.append((new_pos, new_hp, hits + (k,)))
        frontier = following
    return found


@lru_cache(maxsize=None)
def _rates(level: int, attack: int, defense: int) -> tuple[float, tuple]:
    """Blows a turn (the high die on Attack) and the damage a turn from n strikers (the middle die on
    Defense), averaged over the rolls."""
    kind = rules.LEVEL_MONSTER[level]
    high, mid = ROLL_DICE[:, 0, 0], ROLL_DICE[:, 0, 1]
    hits = float(ROLL_CHANCE @ ((attack + high) // kind.defense))
    damage = tuple(float(ROLL_CHANCE @ (n * kind.attack // (defense + mid))) for n in range(_SLOTS + 1))
    return max(hits, 1 / _FACES ** 3), damage  # never zero: a price must stay finite


@lru_cache(maxsize=1 << 12)
def future_damage(level: int, attack: int, defense: int, alive_hp: tuple) -> float:
    """A rough price of the monsters still standing: the damage taken while killing them weakest first,
    all the standing ones striking every turn."""
    hits, damage = _rates(level, attack, defense)
    total, standing = 0.0, len(alive_hp)
    for hp in alive_hp:
        total += hp / hits * damage[standing]
        standing -= 1
    return total


@lru_cache(maxsize=1 << 16)
def _in_reach_next_turn(level: int, hero: int, monster_pos: tuple, reach: int, speed: int) -> bool:
    """Whether some monster can be struck next turn after a walk costing at most ``speed``."""
    lay = rules.LAYOUT_OF_LEVEL[level]
    monsters = _mask_of(monster_pos)
    costs = rules.path_costs(hero, rules.WALLS[lay] | monsters)
    for where, cost in enumerate(costs):
        if cost > speed:
            continue
        ranges = rules.RANGE[lay][where]
        for p in monster_pos:
            if p >= 0 and ranges[p] <= reach and rules.in_sight(lay, where, p, monsters):
                return True
    return False


@lru_cache(maxsize=1 << 16)
def _walk_costs(source: int, blocked: int) -> np.ndarray:
    """``rules.path_costs`` as an array."""
    return np.array(rules.path_costs(source, blocked))


def _undominated(cost, blows, incoming, worth) -> np.ndarray:
    """Which plans no other plan beats or equals on every count (cheaper, fewer blows, less Attack coming
    in, worth more); of equal plans the first is kept."""
    no_worse = ((cost[:, None] <= cost) & (blows[:, None] <= blows) & (incoming[:, None] <= incoming)
                & (worth[:, None] >= worth))  # [a, b]: a is no worse than b
    equal = ((cost[:, None] == cost) & (blows[:, None] == blows) & (incoming[:, None] == incoming)
             & (worth[:, None] == worth))
    earlier = np.tri(len(cost), k=-1, dtype=bool).T  # [a, b]: a < b
    beaten = (no_worse & ~equal) | (equal & earlier)
    return ~beaten.any(axis=0)


class Plans:
    """Every sensible way to play one adventurer phase from a table: walk to a tile, strike, walk on.

    Per plan: the Speed it costs, the blows it strikes, its steps, where the adventurer ends and the
    monsters after the blows and after their move, ``incoming``: the Attack total of the monsters that
    then strike, and ``worth``: the value of everything but the adventurer's health (which depends on the
    dice). With ``prune``, plans that another plan beats on every count are dropped (enough to find the
    best value; not to compare where the plans leave the adventurer).
    """

    def __init__(self, agent, level, pos, monster_pos, monster_hp, skills, max_speed, max_attacks, prune):
        speed, attack, defense, reach = skills
        kind = rules.LEVEL_MONSTER[level]
        walls = rules.WALLS[rules.LAYOUT_OF_LEVEL[level]]
        to_first = rules.path_costs(pos, walls | _mask_of(monster_pos))
        best = {}  # monster health after the blows -> (cost per last tile, first tile per last tile, tiles, blows)
        for first in range(rules.NUM_TILES):
            cost = to_first[first]
            if cost > max_speed:
                continue
            for hp, (mpos, hits) in attack_outcomes(level, first, reach, monster_pos, monster_hp, max_attacks).items():
                if not hits and first != pos:
                    continue  # walking on without a blow on the way is the direct walk
                if hp not in best:
                    best[hp] = (np.full(rules.NUM_TILES, rules.FAR), np.zeros(rules.NUM_TILES, dtype=int), mpos, {})
                known, firsts, _, blows_from = best[hp]
                blows_from[first] = hits  # the order of the blows can depend on where they are struck
                if not any(hp):  # the level ends at once, where the last blow was struck
                    totals = np.full(rules.NUM_TILES, rules.FAR)
                    totals[first] = cost
                else:
                    totals = cost + _walk_costs(first, walls | _mask_of(mpos))
                better = totals < known
                known[better] = totals[better]
                firsts[better] = first
        rows = []
        for hp, (totals, firsts, mpos, blows_from) in best.items():
            done = not any(hp)
            alive = tuple(sorted(h for h in hp if h))
            price = -agent.future_weight * agent.health_weight * future_damage(level, attack, defense, alive)
            for final in np.flatnonzero(totals <= max_speed).tolist():
                first = int(firsts[final])
                hits = blows_from[first]
                if done:
                    moved, striking, worth = mpos, 0, agent.clear_bonus
                else:
                    moved, striking = monster_phase(level, final, mpos)
                    worth = price
                    if agent.reach_weight and _in_reach_next_turn(level, final, moved, reach, speed + 2):
                        worth += agent.reach_weight
                rows.append((int(totals[final]), len(hits), striking * kind.attack, worth, first, hits, final,
                             moved, hp, done))
        cost, blows, incoming, worth = (np.array([row[i] for row in rows]) for i in range(4))
        keep = np.flatnonzero(_undominated(cost, blows, incoming, worth)) if prune else np.arange(len(rows))
        self.cost, self.blows, self.incoming, self.worth = cost[keep], blows[keep], incoming[keep], worth[keep]
        self.steps, self.after, self.cleared = [], [], []
        for i in keep.tolist():
            _, _, _, _, first, hits, final, moved, hp, done = rows[i]
            steps = ([rules.A_MOVE + first] if first != pos else []) + [rules.A_ATTACK + k for k in hits]
            if not done:
                steps += ([rules.A_MOVE + final] if final != first else []) + [_END_TURN]
            self.steps.append(steps)
            self.after.append((final, moved, hp))
            self.cleared.append(done)
        self.defense_of_monster = kind.defense

    def values(self, agent, health, speed_left, attack_left, defense_total):
        """The value of every plan for these points (arrays broadcast over rolls); -inf where unaffordable."""
        speed_left, attack_left, defense_total = (np.asarray(x)[..., None] for x in (speed_left, attack_left,
                                                                                    defense_total))
        left = health - self.incoming // defense_total
        value = np.where(left > 0, agent.health_weight * left + self.worth, agent.dead_value)
        affordable = (self.cost <= speed_left) & (self.blows <= attack_left // self.defense_of_monster)
        return np.where(affordable, value, -np.inf)


def _worked_out(store: dict, key, work, limit: int = 1 << 16):
    """``store[key]``, worked out by ``work()`` the first time; the store is emptied once it holds ``limit``."""
    found = store.get(key)
    if found is None:
        if len(store) >= limit:
            store.clear()
        found = store[key] = work()
    return found


class OneCardDungeonHeuristic:
    """Plan each turn by playing the monsters' answer out, one turn deep; hit and run; heal when low.

    The monsters' movement is deterministic and public, so before committing a turn the player can work
    out where they will stand and who will strike for every way of playing it:

    - **A turn's plan**: walk to a tile, strike every blow the Attack points pay for, walk on with the
      Speed left, end the turn. Every plan is played out against the monsters' movement (the rules' own
      functions on the public table) and the damage follows from the Defense total. A plan is worth the
      health kept, less a rough price of the monsters still standing (the damage they would deal while
      being killed one by one), plus a little for a table where a monster can be struck next turn.
      Hit-and-run and kiting come out of this by themselves: against slow ogres the best plan strikes and
      then steps out of their reach; against several monsters it hides behind walls or behind another
      monster's back.
    - **The dice**: each assignment is tried with its best plan. The few best (assignment, plan) pairs are
      then looked at one turn further: over every roll of the next turn, the best next assignment and
      plan from the table this one leaves. A plan that ends where a bad roll next turn would be fatal is
      avoided; one that leaves the adventurer well placed is preferred.
    - **Level up**: heal when Health is at ``heal_at`` or below (``heal_at_before`` raises that bar before
      a given level: before the three dragons of level 12 anything short of full Health is healed);
      otherwise raise the skills in the order of ``upgrade_order`` (Attack and Defense by turns: Attack
      buys blows against the high Defense of ogres and dragons, Defense turns away the packs of spiders
      and skeletons; then Range, so the monsters standing off at their own range are in reach sooner).

    It reads only the observation (the table it rebuilds is all public: the future dice are never
    shown) and the rules' public tables and functions. It plays deterministically: ``seed`` is taken
    for the common agent interface and changes nothing.
    """

    name = "heuristic"

    def __init__(self, seed=None, health_weight=10.0, future_weight=0.4, reach_weight=2.0, clear_bonus=200.0,
                 dead_value=-1000.0, lookahead=4, heal_at=3, heal_at_before=((12, 5),),
                 upgrade_order=("attack", "defense", "attack", "defense", "attack", "range")):
        self.health_weight = health_weight
        self.future_weight = future_weight
        self.reach_weight = reach_weight
        self.clear_bonus = clear_bonus
        self.dead_value = dead_value
        self.lookahead = lookahead
        self.heal_at = heal_at
        self.heal_at_before = {int(level): at for level, at in dict(heal_at_before).items()}
        self.upgrade_order = tuple(upgrade_order)
        self.reset()

    def reset(self, seed=None):
        self._plan = {}  # the chosen plan: table -> action, for each table it passes through
        # What has been worked out this episode, each a function of its key alone: the plans by table and points,
        # the look-ahead values by the table a plan leaves, the assignments (and their plans) by table and dice.
        # A search's playouts meet the same tables again and again.
        self._plans, self._looks, self._assigns = {}, {}, {}

    def __deepcopy__(self, memo):
        """A copy with its own remembered plan that shares what has been worked out: copying thousands of
        plans for every playout of a search would cost more than the playout."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._plan = dict(self._plan)
        return other

    # ------------------------------------------------------------ acting

    def act(self, observation, action_mask) -> int:
        mask = np.asarray(action_mask, dtype=bool)
        t = Table(np.asarray(observation))
        choice = None
        if t.phase == rules.ASSIGN:
            choice = self._assign(t, mask)
        elif t.phase == rules.ACT:
            choice = self._plan.get(self._key(t))
            if choice is None or not mask[choice]:
                self._replan(t)
                choice = self._plan.get(self._key(t))
        elif t.phase == rules.LEVEL_UP:
            choice = self._level_up(t, mask)
        if choice is None or not mask[choice]:
            choice = _END_TURN if mask[_END_TURN] else int(np.flatnonzero(mask)[0])
        return int(choice)

    def _plans_from(self, level, pos, monster_pos, monster_hp, skills, max_speed, max_attacks, prune=False) -> Plans:
        key = (level, pos, monster_pos, monster_hp, skills, max_speed, max_attacks, prune)
        return _worked_out(self._plans, key, lambda: Plans(self, *key), 4096)

    def _assign(self, t: Table, mask) -> int:
        key = (t.level, t.pos, t.monster_pos, t.monster_hp, t.skills(), t.health, t.dice,
               mask[rules.A_ASSIGN:rules.A_MOVE].tobytes())
        action, self._plan = _worked_out(self._assigns, key, lambda: self._work_out_assignment(t, mask))
        return action

    def _work_out_assignment(self, t: Table, mask) -> tuple[int, dict]:
        """The assignment and the plan for it (the plan by table, as ``_remember`` leaves it)."""
        kind = rules.LEVEL_MONSTER[t.level]
        skills = t.skills()
        high = t.dice[0]
        plans = self._plans_from(t.level, t.pos, t.monster_pos, t.monster_hp, skills, t.speed + high,
                                 (t.attack + high) // kind.defense)
        dice = np.array([[t.dice[i] for i in order] for order in rules.ASSIGN_ORDER])
        points = dice + np.array([t.speed, t.attack, t.defense])
        values = plans.values(self, t.health, points[:, 0], points[:, 1], points[:, 2])  # [assignment, plan]
        values[~mask[rules.A_ASSIGN:rules.A_MOVE]] = -np.inf
        order = np.argsort(-values, axis=None, kind="stable")
        best, best_value, seen = None, -np.inf, set()
        for flat in order[:max(1, 4 * self.lookahead)]:
            k, p = divmod(int(flat), values.shape[1])
            if not np.isfinite(values[k, p]):
                break
            if self.lookahead:
                health = t.health - int(plans.incoming[p]) // int(points[k, 2])
                if (p, health) in seen:
                    continue
                seen.add((p, health))
                value = self._look_ahead(t, plans, p, health)
            else:
                value = values[k, p]
            if best is None or value > best_value:
                best, best_value = (k, p), value
            if not self.lookahead or len(seen) >= self.lookahead:
                break
        k, p = best
        self._remember(t, points[k], plans.steps[p])
        return rules.A_ASSIGN + k, self._plan

    def _look_ahead(self, t: Table, plans: Plans, p: int, health: int) -> float:
        """A plan's value one turn further: the mean over next turn's rolls of the best reply."""
        if plans.cleared[p]:
            return self.health_weight * health + self.clear_bonus
        if health <= 0:
            return self.dead_value
        return _worked_out(self._looks, (t.level, t.skills(), plans.after[p], health),
                           lambda: self._best_replies(t, plans.after[p], health))

    def _best_replies(self, t: Table, after: tuple, health: int) -> float:
        """The mean over next turn's rolls of the best reply from ``after`` (the adventurer's tile and the
        monsters' as a plan leaves them) with ``health`` left."""
        final, moved, hp = after
        kind = rules.LEVEL_MONSTER[t.level]
        replies = self._plans_from(t.level, final, moved, hp, t.skills(), t.speed + _FACES,
                                   (t.attack + _FACES) // kind.defense, prune=True)
        points = ROLL_DICE + np.array([t.speed, t.attack, t.defense])  # [roll, assignment, points]
        values = replies.values(self, health, points[..., 0], points[..., 1], points[..., 2])
        return float(ROLL_CHANCE @ values.max(axis=(1, 2)))

    def _replan(self, t: Table) -> None:
        """A plan for the points already assigned (used when no remembered plan fits the table)."""
        kind = rules.LEVEL_MONSTER[t.level]
        plans = self._plans_from(t.level, t.pos, t.monster_pos, t.monster_hp, t.skills(), t.speed_left,
                                 t.attack_left // kind.defense)
        values = plans.values(self, t.health, t.speed_left, t.attack_left, t.defense_total)
        self._remember(t, (t.speed_left, t.attack_left, t.defense_total), plans.steps[int(np.argmax(values))])

    def _level_up(self, t: Table, mask) -> int:
        if t.health <= self.heal_at_before.get(t.level + 1, self.heal_at):
            return _HEAL
        return self.next_upgrade(t, mask)

    def level_up_choices(self, t: Table, mask) -> list:
        """The two choices the rule for level-ups chooses between: the next upgrade, and the heal (just the heal when
        every skill is at its cap)."""
        upgrade = self.next_upgrade(t, mask)
        return [upgrade] if upgrade == _HEAL else [upgrade, _HEAL]

    def next_upgrade(self, t: Table, mask) -> int:
        """The upgrade ``upgrade_order`` has next (a heal when every skill is at its cap)."""
        # Follow the order of upgrades: the first skill still below what the order has reached there.
        skills = {"speed": t.speed, "attack": t.attack, "defense": t.defense, "range": t.range}
        planned = dict(rules.ADVENTURER_START)
        for name in self.upgrade_order:
            planned[name] += 1
            if skills[name] < planned[name] and mask[_UPGRADE[name]]:
                return _UPGRADE[name]
        for name in self.upgrade_order + rules.UPGRADES:
            if mask[_UPGRADE[name]]:
                return _UPGRADE[name]
        return _HEAL

    # ------------------------------------------------------------ remembering a plan step by step

    @staticmethod
    def _key(t) -> tuple:
        return t.level, t.pos, t.monster_pos, t.monster_hp, t.speed_left, t.attack_left, t.defense_total

    def _remember(self, t: Table, points, steps) -> None:
        """Store the plan's action for each table it passes through, so the later steps need no search."""
        self._plan = {}
        kind = rules.LEVEL_MONSTER[t.level]
        walls = rules.WALLS[rules.LAYOUT_OF_LEVEL[t.level]]
        pos, mpos, mhp = t.pos, t.monster_pos, t.monster_hp
        speed_left, attack_left, defense_total = (int(x) for x in points)
        for action in steps:
            self._plan[t.level, pos, mpos, mhp, speed_left, attack_left, defense_total] = action
            if rules.A_MOVE <= action < rules.A_ATTACK:
                target = action - rules.A_MOVE
                speed_left -= rules.path_costs(pos, walls | _mask_of(mpos))[target]
                pos = target
            elif rules.A_ATTACK <= action < rules.A_END_TURN:
                k = action - rules.A_ATTACK
                attack_left -= kind.defense
                mhp = mhp[:k] + (mhp[k] - 1,) + mhp[k + 1:]
                if not mhp[k]:
                    mpos = mpos[:k] + (-1,) + mpos[k + 1:]


HEALTH_KEPT = 0.02  # of a level, per point of Health kept at a level's end


def level_end(before: dict, now: dict) -> float | None:
    """Where a search's playout from the table ``before`` stops, and what it is worth (``describe()`` tables).

    A playout ends with the level its decision was taken in: at the level-up, the win or the adventurer's
    death. Its value is the levels cleared, plus a small share of a level per point of Health kept when the
    level is cleared (Health kept may buy a skill instead of a heal). Playing the rest of the game out would
    cost several times more and add the noise of every later level's dice to a decision taken in this one.
    A level-up decision ends its playout at once, every choice worth the same, so the prior's choice stands.
    """
    if now["result"] == "playing" and now["level"] == before["level"] and now["phase"] != "level_up":
        return None
    cleared = now["levels_cleared"]
    if before["phase"] != "level_up" and cleared >= before["level"]:
        return cleared + HEALTH_KEPT * now["adventurer"]["health"]
    return float(cleared)


# ---------------------------------------------------------------- a learned value of the levels' starts

SHIPPED_VALUE = MODELS / "value" / "one_card_dungeon.npz"
# What the value reads of a level's start: the level (one-hot), the Health and the four skills, each over 6 (the most
# Health, and the skills' default cap).
START_FIELDS = [f"level_{n}" for n in range(1, rules.NUM_LEVELS + 1)] + ["health", *rules.UPGRADES]
START_FIELD_COUNT = len(START_FIELDS)
_SCALE = 6


def start_fields(level: int, health: int, skills) -> np.ndarray:
    """The value's fields of the start of ``level`` with ``health`` and ``skills`` (speed, attack, defense, range)."""
    fields = np.zeros(START_FIELD_COUNT, dtype=np.float32)
    fields[level - 1] = 1.0
    fields[rules.NUM_LEVELS] = health / _SCALE
    fields[rules.NUM_LEVELS + 1:] = np.asarray(skills, dtype=np.float32) / _SCALE
    return fields


def level_up_fields(t: Table, choice: int) -> np.ndarray:
    """The fields of the next level's start after the level-up action ``choice`` (an upgrade or the heal)."""
    skills = list(t.skills())
    health = t.health
    if choice == _HEAL:
        health = rules.MAX_HEALTH
    else:
        skills[choice - rules.A_UPGRADE] += 1
    return start_fields(t.level + 1, health, skills)


class OneCardDungeonValueAgent(OneCardDungeonHeuristic):
    """The heuristic, but a learned value decides whether a level-up heals or takes the next upgrade.

    At each level-up the agent weighs the two choices the heuristic's rule chooses between, a heal to full Health
    and the next skill of ``upgrade_order``, by a network's judgement of the start each leaves: the levels the
    adventurer will have cleared by the game's end, from the next level's number, the Health and the skills
    (``START_FIELDS``), learned from games (``tabletop-gym train one_card_dungeon --algo value``,
    ``tabletop_gym.benchmarks.training.value``). Everything else is the heuristic's: the turns, the dice and the order of the
    upgrades. (Left to choose among all five level-up actions, a value learned this way wandered to skills the games
    it learned from seldom held, and judged them badly.)

    ``path``: a saved value (``.npz``); by default the one that ships, ``agents/models/value/one_card_dungeon.npz``.
    The agent is deterministic: ``seed`` is accepted for the common interface.
    """

    name = "value"

    def __init__(self, path=None, seed=None, network: ValueNetwork | None = None, **options):
        super().__init__(seed=seed, **options)
        self.path = str(path or SHIPPED_VALUE)
        self.network = saved_value(self.path, network, START_FIELD_COUNT, "One Card Dungeon's levels' starts")
        self.record = self.network.record

    def _level_up(self, t: Table, mask) -> int:
        choices = self.level_up_choices(t, mask)
        worth = self.network(np.stack([level_up_fields(t, choice) for choice in choices]))
        return choices[int(np.argmax(worth))]  # the upgrade on a tie


class OneCardDungeonStarts:
    """What the value trainer (``tabletop_gym.benchmarks.training.value``) keeps of a game: a row for the game's start and for
    each level-up, the fields of the level's start it leads to; a random move is one of the two choices the value
    agent weighs at a level-up (the next upgrade or a heal), with probability 0.3, and the turns are always the
    heuristic's; the outcome is the share of the twelve levels cleared (about 10 minutes on two cores:
    ``tabletop-gym train one_card_dungeon --algo value``)."""

    env_id = "Tabletop/OneCardDungeon-v0"
    field_count = START_FIELD_COUNT
    # The trainer's settings this game changes. A level's start has 17 fields and a game some ten of them: a small
    # network, fitted longer on smaller batches.
    settings = {"games": 6_000, "heuristic_epsilon": (0.3,), "own_epsilon": 0.3, "hidden": 64, "outcome_epochs": 20,
                "td_epochs": 5, "batch_size": 256}

    def value_agent(self, network: ValueNetwork):
        return OneCardDungeonValueAgent("training", network=network)

    def first_row(self, obs):
        t = Table(obs)
        return start_fields(t.level, t.health, t.skills())

    def random_choices(self, agent, obs, mask):
        t = Table(obs)
        return agent.level_up_choices(t, mask) if t.phase == rules.LEVEL_UP else []

    def fill_row(self, obs, action: int, row: np.ndarray) -> bool:
        t = Table(obs)
        if t.phase != rules.LEVEL_UP:
            return False
        row[:] = level_up_fields(t, action)
        return True

    def outcome(self, info: dict) -> float:
        return float(info["score"]) / rules.NUM_LEVELS


# ---------------------------------------------------------------- the agents built on the heuristic

HEURISTIC = OneCardDungeonHeuristic
# The search agent (``SearchAgent``'s settings): about 30 s an episode on one core. Its playouts stop at the end of the
# level (``level_end``), and only decisions with at most six legal actions (the dice, the end of a plan) get the eight
# or more worlds an action needs to be searched; the heuristic's plan plays the rest.
SEARCH = {"simulations": 48, "min_worlds": 8, "horizon": level_end}
# The search agent on the learned policy (search-ppo): the policy clears far fewer levels than the heuristic (4
# against 9), so it only names the actions worth searching, its five likeliest others where a decision has more than
# six legal actions (too many to search otherwise), each searched on 8 of the 48 playouts; the heuristic's choice
# stands among them, and the heuristic finishes the playouts.
LEARNED_SEARCH = {"candidates": 6, "learned_roles": ("proposer",)}
LEADERBOARD_SEARCH_EPISODES = 2  # the search agents' episodes of a leaderboard row, by default
# The search on the value agent (search-value) is the search as ``SEARCH`` has it, the value agent's choice standing
# unless beaten and the heuristic finishing the playouts; a level-up ends its playouts at once, so there the value
# agent's choice stands.
VALUE_AGENT = OneCardDungeonValueAgent
VALUE_JUDGES = ("the level-ups (heal or the next upgrade)", "levels' starts")  # and what the trainer's rows were
VALUE_ROWS = OneCardDungeonStarts
AGENT_NOTES = {"search-ppo": "One Card Dungeon's policy only names them",
               "value": "One Card Dungeon's value of the levels' starts, choosing at each level-up between a heal and "
                        "the next upgrade"}
