"""One Card Dungeon: one test per rule and ruling of RULES.md, each driving fixed rolls through the env.

Where a rule needs pieces on particular tiles, ``place`` sets the table by hand (through get_state /
set_state) before the dice are assigned; everything after that is played through the env.
"""

import heapq
import itertools
import json
import re
import warnings
from fractions import Fraction
from importlib import resources

import gymnasium as gym
import numpy as np
import pytest
from helpers import PLAIN_PYTHON, act, legal, passes_as_plain_python, play, table
from helpers import place_in_dungeon as place

from tabletop_gym.envs.one_card_dungeon import levels, rules

ENV_ID = "Tabletop/OneCardDungeon-v0"


def start(rolls=(), level=1, skip_forced=False, seed=0, **kwargs):
    env = gym.make(ENV_ID, skip_forced=skip_forced, illegal_action="raise", **kwargs).unwrapped
    env.reset(seed=seed, options={"rolls": list(rolls), "level": level})
    return env


def monster_tiles(env):
    return [None if m is None else tuple(m["pos"]) for m in table(env)["monsters"]]


def moves(env):
    return {tuple(int(x) for x in re.findall(r"\d", name)) for name in legal(env) if name.startswith("move_")}


# ------------------------------------------------------------------ the card

def test_every_level_matches_the_card_data_file():
    # The data file as installed with the package: its tile lists must agree with its grids.
    card = json.loads(resources.files("tabletop_gym.envs.one_card_dungeon").joinpath("levels.json").read_text())
    assert card["adventurer_initial"] == levels.ADVENTURER_START
    assert {name: m._asdict() for name, m in levels.MONSTERS.items()} == {
        name: {"name": name, **stats} for name, stats in card["monsters"].items()}
    assert len(levels.LEVELS) == len(card["levels"]) == 12
    for ours, theirs in zip(levels.LEVELS, card["levels"]):
        assert ours.level == theirs["level"]
        assert (ours.card_side, ours.rotation, ours.monster, ours.count) == (
            theirs["card_side"], theirs["rotation"], theirs["monster"], theirs["count"])
        assert list(ours.grid) == theirs["grid"]
        assert [list(t) for t in ours.walls] == sorted(theirs["walls"])
        assert [list(t) for t in ours.monster_starts] == sorted(theirs["monster_starts"])
        assert list(ours.adventurer_start) == theirs["adventurer_start"]
        assert list(ours.other_stair) == theirs["other_stair"]


def test_the_stats_printed_on_the_card():
    assert levels.ADVENTURER_START == {"health": 6, "max_health": 6, "speed": 1, "attack": 1, "defense": 1,
                                       "range": 2}
    assert {name: tuple(m)[1:] for name, m in levels.MONSTERS.items()} == {
        "Spider": (2, 5, 4, 4, 3), "Skeleton": (3, 4, 5, 4, 4), "Ogre": (5, 3, 7, 7, 2), "Dragon": (5, 5, 5, 5, 5)}
    assert [(lv.card_side, lv.rotation, lv.monster, lv.count) for lv in levels.LEVELS[:4]] == [
        ("A", 0, "Spider", 2), ("B", 0, "Skeleton", 2), ("A", 180, "Ogre", 1), ("B", 180, "Dragon", 1)]
    assert [lv.count for lv in levels.LEVELS] == [2, 2, 1, 1, 3, 3, 2, 2, 4, 4, 3, 3]


def test_range_and_sight_from_the_start_stair_to_every_monster_start():
    # The research's computed table: range, and sight with the other monsters blocking.
    expected = {
        1: [(11, True), (10, True)], 2: [(10, True), (11, True)], 3: [(11, True)], 4: [(11, True)],
        5: [(9, True), (11, True), (8, True)], 6: [(12, False), (10, True), (8, True)],
        7: [(8, True), (9, True)], 8: [(9, True), (6, True)],
        9: [(8, True), (7, True), (9, False), (4, True)], 10: [(8, True), (9, False), (8, True), (9, True)],
        11: [(9, True), (11, True), (10, True)], 12: [(12, False), (8, True), (9, True)],
    }
    for level, pairs in expected.items():
        env = start(level=level)
        s = env.state
        monsters = rules.monster_tiles(s)
        got = [(rules.RANGE[rules.layout(s)][s.pos][p], rules.in_sight(rules.layout(s), s.pos, p, monsters))
               for p in s.monster_pos.tolist() if p >= 0]
        assert got == pairs, level


# ------------------------------------------------------------------ setup and options

def test_the_game_starts_on_level_1_with_the_starting_adventurer_and_turn_1_rolled():
    env = start(rolls=[3, 5, 2])
    d = table(env)
    assert d["level"] == 1 and d["phase"] == "assign" and d["turn"] == 1 and d["dice"] == [3, 5, 2]
    assert d["adventurer"] == {"pos": [4, 0], "health": 6, "speed": 1, "attack": 1, "defense": 1, "range": 2}
    assert d["monsters"] == [{"pos": [0, 3], "hp": 2}, {"pos": [2, 4], "hp": 2}]
    assert d["monster_type"] == {"name": "Spider", "hp": 2, "speed": 5, "attack": 4, "defense": 4, "range": 3}
    assert (d["speed_left"], d["attack_left"], d["defense_total"]) == (0, 0, 0)
    assert (d["levels_cleared"], d["result"], d["max_turns"]) == (0, "playing", 400)
    assert json.loads(json.dumps(d)) == d


@pytest.mark.parametrize("level", range(1, 13))
def test_the_level_option_starts_there_with_the_starting_adventurer(level):
    env = start(rolls=[1, 2, 3], level=level)
    d = table(env)
    card = levels.LEVELS[level - 1]
    assert d["level"] == level and d["levels_cleared"] == level - 1
    assert d["adventurer"] == {"pos": list(card.adventurer_start), "health": 6, "speed": 1, "attack": 1,
                               "defense": 1, "range": 2}
    assert d["monsters"] == [{"pos": list(t), "hp": levels.MONSTERS[card.monster].hp} for t in card.monster_starts]
    assert d["monster_type"]["name"] == card.monster


@pytest.mark.parametrize("options, message", [
    ({"rolls": [1, 2, 7]}, "rolls[2] must be a die result, an integer 1-6, got 7"),
    ({"rolls": [0]}, "rolls[0] must be a die result, an integer 1-6, got 0"),
    ({"rolls": [1, "3"]}, "rolls[1] must be a die result, an integer 1-6, got '3'"),
    ({"rolls": [2.5]}, "rolls[0] must be a die result, an integer 1-6, got 2.5"),
    ({"rolls": [True]}, "rolls[0] must be a die result, an integer 1-6, got True"),
    ({"rolls": "352"}, "rolls must be a list of die results 1-6"),
    ({"rolls": 3}, "rolls must be a list of die results 1-6"),
    ({"level": 0}, "level must be an integer 1-12, got 0"),
    ({"level": 13}, "level must be an integer 1-12, got 13"),
    ({"level": "2"}, "level must be an integer 1-12, got '2'"),
    ({"level": True}, "level must be an integer 1-12, got True"),
    ({"deck": ["AS"]}, "unknown reset option(s) 'deck'"),
])
def test_bad_reset_options_are_rejected_with_the_reason(options, message):
    env = gym.make(ENV_ID).unwrapped
    with pytest.raises(ValueError, match=re.escape(message)):
        env.reset(options=options)


@pytest.mark.parametrize("kwargs, message", [
    ({"max_turns": 0}, "max_turns must be an integer >= 1, got 0"),
    ({"max_turns": 10.0}, "max_turns must be an integer >= 1, got 10.0"),
    ({"max_turns": True}, "max_turns must be an integer >= 1, got True"),
    ({"skill_cap": 1}, "skill_cap must be an integer >= 2"),
    ({"skill_cap": "6"}, "skill_cap must be an integer >= 2"),
])
def test_bad_constructor_options_are_rejected_with_the_reason(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        gym.make(ENV_ID, **kwargs)


def test_numpy_rolls_and_level_are_accepted():
    env = gym.make(ENV_ID).unwrapped
    env.reset(options={"rolls": np.array([6, 6, 1]), "level": np.int64(3)})
    assert table(env)["dice"] == [6, 6, 1] and table(env)["level"] == 3


# ------------------------------------------------------------------ dice

def test_fixed_rolls_are_used_in_order_three_per_turn():
    env = start(rolls=[1, 2, 3, 4, 5, 6])
    assert table(env)["dice"] == [1, 2, 3]
    play(env, "assign_HML", "end_turn")
    assert table(env)["dice"] == [4, 5, 6] and table(env)["turn"] == 2


def test_when_the_fixed_rolls_run_out_the_seeded_generator_rolls():
    def turns_2_and_3(seed):
        env = start(rolls=[1, 2, 3, 4], seed=seed)
        play(env, "assign_HML", "end_turn")
        second = table(env)["dice"]
        play(env, legal_assign(env), "end_turn")
        return second, table(env)["dice"]

    second, third = turns_2_and_3(7)
    assert second[0] == 4 and all(1 <= d <= 6 for d in second + third)
    assert turns_2_and_3(7) == (second, third)
    assert len({tuple(turns_2_and_3(seed)[1]) for seed in range(10)}) > 1


def legal_assign(env):
    return sorted(n for n in legal(env) if n.startswith("assign_"))[0]


def test_each_assignment_gives_its_totals():
    # Dice 6, 3, 1 sorted: H=6, M=3, L=1; the letters go to Speed, Attack, Defense.
    expected = {"HML": (7, 4, 2), "HLM": (7, 2, 4), "MHL": (4, 7, 2), "MLH": (4, 2, 7), "LHM": (2, 7, 4),
                "LMH": (2, 4, 7)}
    for perm, totals in expected.items():
        env = start(rolls=[3, 6, 1])
        assert legal(env) == {"assign_" + p for p in expected}
        act(env, "assign_" + perm)
        d = table(env)
        assert (d["speed_left"], d["attack_left"], d["defense_total"]) == totals
        assert d["phase"] == "act" and d["dice"] == [3, 6, 1]


def test_tied_dice_mask_the_permutations_that_repeat_totals():
    assert legal(start(rolls=[5, 2, 5])) == {"assign_HML", "assign_HLM", "assign_LHM"}
    assert legal(start(rolls=[2, 5, 2])) == {"assign_HML", "assign_MHL", "assign_MLH"}
    assert legal(start(rolls=[4, 4, 4])) == {"assign_HML"}


def test_all_equal_dice_are_assigned_by_themselves_with_skip_forced():
    env = start(rolls=[3, 5, 2, 4, 4, 4], skip_forced=True)
    assert table(env)["phase"] == "assign"
    play(env, "assign_MHL", "end_turn")
    d = table(env)
    assert d["turn"] == 2 and d["phase"] == "act" and d["dice"] == [4, 4, 4]
    assert (d["speed_left"], d["attack_left"], d["defense_total"]) == (5, 5, 5)


def test_reset_stops_at_a_single_action_assign():
    env = start(rolls=[2, 2, 2], skip_forced=True)
    assert table(env)["phase"] == "assign" and legal(env) == {"assign_HML"}


# ------------------------------------------------------------------ geometry: moves and range

def test_rulebook_figure_range_5_with_sight_from_4_0_to_3_2():
    a, b = rules.tile(4, 0), rules.tile(3, 2)
    assert rules.RANGE[0][a][b] == rules.RANGE[0][b][a] == 5
    assert rules.in_sight(0, a, b, 0) and rules.in_sight(0, b, a, 0)
    # Through the env: Speed total 5 reaches (3,2) by (4,1) and a diagonal past the wall (3,1)'s corner.
    env = start(rolls=[4, 1, 1])
    act(env, "assign_HML")
    assert table(env)["speed_left"] == 5 and (3, 2) in moves(env)
    act(env, "move_r3c2")
    assert table(env)["adventurer"]["pos"] == [3, 2] and table(env)["speed_left"] == 0
    env = start(rolls=[3, 1, 1])
    act(env, "assign_HML")
    assert (3, 2) not in moves(env)
    # A monster on (3,2) is attackable with Range 5, not with Range 4.
    for reach, allowed in ((5, True), (4, False)):
        env = start(rolls=[1, 6, 1])
        place(env, monsters=[(3, 2), (0, 4)], range=reach)
        act(env, "assign_MHL")
        assert ("attack_0" in legal(env)) is allowed


def test_step_costs_are_2_orthogonal_and_3_diagonal():
    orthogonal = {(1, 2), (2, 1), (2, 3), (3, 2)}
    for die, reachable in ((1, orthogonal), (2, orthogonal | {(1, 1)}),
                           (3, orthogonal | {(1, 1), (0, 2), (2, 0), (2, 4), (4, 2)})):
        env = start(rolls=[die, 1, 1])
        place(env, adventurer=(2, 2), monsters=[(0, 4), (4, 4)])
        act(env, "assign_HML")
        assert moves(env) == reachable, die  # (1,3), (3,1), (3,3) are walls
    act(env, "move_r1c1")
    assert table(env)["speed_left"] == 1 and moves(env) == set()


def test_a_diagonal_step_between_two_blocked_neighbours_is_allowed():
    env = start(rolls=[2, 1, 1])
    place(env, adventurer=(2, 2), monsters=[(1, 2), (2, 1)])
    act(env, "assign_HML")
    assert (1, 1) in moves(env)
    act(env, "move_r1c1")
    assert table(env)["speed_left"] == 0 and table(env)["adventurer"]["pos"] == [1, 1]


def test_the_adventurer_cannot_pass_or_enter_monsters_or_walls():
    env = start(rolls=[6, 6, 1])
    place(env, monsters=[(3, 0), (4, 1)])  # with the wall (3,1) the start stair is shut in
    act(env, "assign_HLM")
    assert table(env)["speed_left"] == 7 and moves(env) == set()
    env = start(rolls=[3, 1, 1])
    place(env, monsters=[(4, 1), (0, 4)])  # (4,2) costs 4 through (4,1), 10 around it
    act(env, "assign_HML")
    assert moves(env) == {(3, 0), (2, 0)}
    env = start(rolls=[6, 1, 1])
    place(env, adventurer=(2, 2), monsters=[(0, 4), (4, 4)])
    act(env, "assign_HML")
    assert not moves(env) & {(1, 3), (3, 1), (3, 3), (0, 4), (4, 4), (2, 2)}


def test_range_ignores_pieces_and_goes_around_walls():
    # Level 1: (3,0) to (3,2) is 4 in open floor but the wall (3,1) makes it 6.
    assert rules.RANGE[0][rules.tile(3, 0)][rules.tile(3, 2)] == 6
    # A monster in between changes no range (only sight): see the monster-between test, at range 4.
    assert rules.RANGE[0][rules.tile(4, 0)][rules.tile(4, 2)] == 4
    for level in range(1, 13):  # open-floor formula wherever no wall is in the way
        s = start(level=level).state
        walls = rules.WALLS[rules.layout(s)]
        for a, b in itertools.product(range(25), repeat=2):
            (ra, ca), (rb, cb) = rules.row_col(a), rules.row_col(b)
            box = {rules.tile(r, c) for r in range(min(ra, rb), max(ra, rb) + 1)
                   for c in range(min(ca, cb), max(ca, cb) + 1)}
            if not any((walls >> t) & 1 for t in box):
                dr, dc = abs(ra - rb), abs(ca - cb)
                assert rules.RANGE[rules.layout(s)][a][b] == 3 * min(dr, dc) + 2 * (max(dr, dc) - min(dr, dc))


# ------------------------------------------------------------------ geometry: line of sight

def _touches(p, q, t):
    """Brute force: does segment p-q share a positive length with tile t's closed square? (Fractions)"""
    (x0, y0), (x1, y1) = p, q
    r, c = divmod(t, 5)
    # Points of the segment inside the square form an interval of the parameter; find it exactly.
    lo, hi = Fraction(0), Fraction(1)
    for d, k in ((x1 - x0, (c - x0, c + 1 - x0)), (y1 - y0, (r - y0, r + 1 - y0))):
        if d == 0:
            if not k[0] <= 0 <= k[1]:
                return False
        else:
            a, b = sorted((Fraction(k[0], d), Fraction(k[1], d)))
            lo, hi = max(lo, a), min(hi, b)
    return hi > lo and p != q


def _sees(a, b, blockers):
    corners = lambda t: [(t % 5 + dx, t // 5 + dy) for dx in (0, 1) for dy in (0, 1)]  # noqa: E731
    others = [t for t in blockers if t not in (a, b)]
    return any(not any(_touches(p, q, t) for t in others) for p in corners(a) for q in corners(b))


def test_line_of_sight_agrees_with_brute_force_on_every_pair_and_random_monsters():
    rng = np.random.default_rng(0)
    for layout in range(4):
        walls = [t for t in range(25) if (rules.WALLS[layout] >> t) & 1]
        floor = [t for t in range(25) if t not in walls]
        for a, b in itertools.combinations(floor, 2):
            monsters = rng.choice(floor, size=int(rng.integers(0, 5)), replace=False).tolist()
            bits = sum(1 << m for m in monsters)
            for blockers, mask in ((walls, 0), (walls + monsters, bits)):
                expected = _sees(a, b, blockers)
                assert rules.in_sight(layout, a, b, mask) == expected, (layout, a, b, monsters)
                assert rules.in_sight(layout, b, a, mask) == expected


def test_adjacent_tiles_always_see_each_other():
    for layout in range(4):
        for a, b in itertools.product(range(25), repeat=2):
            (ra, ca), (rb, cb) = rules.row_col(a), rules.row_col(b)
            if max(abs(ra - rb), abs(ca - cb)) == 1:
                assert rules.in_sight(layout, a, b, (1 << 25) - 1)


def test_walls_block_sight_including_a_line_along_a_wall_edge():
    # Level 1: (3,0) and (3,2) are at range 6 with the wall (3,1) between them.
    env = start(rolls=[1, 6, 1])
    place(env, adventurer=(3, 0), monsters=[(3, 2), (0, 4)], range=6)
    act(env, "assign_MHL")
    assert "attack_0" not in legal(env)
    # Level 1: (0,1) and (4,1): every line either crosses the wall (3,1) or runs along its edge.
    assert not rules.in_sight(0, rules.tile(0, 1), rules.tile(4, 1), 0)


def test_a_monster_between_blocks_sight_until_it_dies():
    env = start(rolls=[1, 6, 1], skill_cap=9)
    place(env, adventurer=(4, 0), monsters=[(4, 1), (4, 2)], range=4, attack=6)
    act(env, "assign_MHL")  # Attack 12: three spider hits
    assert legal(env) >= {"attack_0"} and "attack_1" not in legal(env)
    play(env, "attack_0", "attack_0")
    assert table(env)["monsters"][0] is None and "attack_1" in legal(env)
    act(env, "attack_1")
    assert table(env)["monsters"][1] == {"pos": [4, 2], "hp": 1} and table(env)["attack_left"] == 0


def test_a_corner_touch_does_not_block_sight():
    # Level 2: from (1,2) the only clear line to (3,4) runs through the corner point of the wall (2,3).
    a, b = rules.tile(1, 2), rules.tile(3, 4)
    assert rules.in_sight(1, a, b, 0) and rules.RANGE[1][a][b] == 7
    env = start(rolls=[1, 6, 1], level=2, skill_cap=9)
    place(env, adventurer=(1, 2), monsters=[(3, 4), (0, 0)], range=7)
    act(env, "assign_MHL")
    assert "attack_0" in legal(env)


# ------------------------------------------------------------------ attacks and damage

def test_an_attack_costs_the_monster_defense_and_removes_one_health():
    env = start(rolls=[1, 6, 1], skill_cap=9)
    place(env, monsters=[(3, 0), (0, 4)], attack=3)
    act(env, "assign_MHL")  # Attack 9 against Defense 4
    act(env, "attack_0")
    assert table(env)["attack_left"] == 5 and table(env)["monsters"][0]["hp"] == 1
    act(env, "attack_0")
    assert table(env)["attack_left"] == 1 and table(env)["monsters"][0] is None
    assert not any(n.startswith("attack") for n in legal(env))


def test_an_ogre_costs_7_attack_per_hit():
    for die, allowed in ((6, True), (5, False)):
        env = start(rolls=[1, die, 1], level=3)
        place(env, adventurer=(2, 4), monsters=[(1, 4)])
        act(env, "assign_MHL")
        assert ("attack_0" in legal(env)) is allowed
    env = start(rolls=[1, 6, 1], level=3)
    place(env, adventurer=(2, 4), monsters=[(1, 4)])
    play(env, "assign_MHL", "attack_0")
    assert table(env)["attack_left"] == 0 and table(env)["monsters"] == [{"pos": [1, 4], "hp": 4}]


def test_attack_needs_range_and_the_starting_range_2_reaches_only_orthogonal_neighbours():
    env = start(rolls=[1, 6, 1])
    place(env, adventurer=(2, 2), monsters=[(1, 1), (2, 3)])
    act(env, "assign_MHL")
    assert {n for n in legal(env) if n.startswith("attack")} == {"attack_1"}


@pytest.mark.parametrize("defense_skill, die, damage", [
    (1, 2, 2),  # 8 // 3
    (1, 3, 2),  # 8 // 4
    (1, 4, 1),  # 8 // 5
    (1, 6, 1),  # 8 // 7
    (2, 6, 1),  # 8 // 8
    (3, 6, 0),  # 8 // 9
])
def test_damage_is_the_floor_of_the_summed_attack_over_the_defense_total(defense_skill, die, damage):
    # Two spiders stay in range 3 and sight of (2,0): (1,1) at range 3, (1,0) at range 2 ((1,1) is taken).
    env = start(rolls=[1, 1, die])
    place(env, adventurer=(2, 0), monsters=[(1, 1), (1, 0)], defense=defense_skill)
    play(env, "assign_MLH", "end_turn")  # the high die to Defense
    d = table(env)
    assert monster_tiles(env) == [(1, 1), (1, 0)]
    assert d["adventurer"]["health"] == 6 - damage


def test_one_monster_attack_equal_to_the_defense_deals_1():
    env = start(rolls=[1, 1, 3])
    place(env, adventurer=(2, 0), monsters=[(1, 1), None])
    play(env, "assign_MLH", "end_turn")  # Defense 4 against one spider's Attack 4
    assert table(env)["adventurer"]["health"] == 5


def test_monsters_out_of_range_or_sight_do_not_attack():
    # Figure check: the spider at (2,2) is at range 4 > 3; it adds nothing.
    env = start(rolls=[3, 5, 2])
    play(env, "assign_MHL", "move_r2c0", "end_turn")
    assert table(env)["adventurer"]["health"] == 5
    s = env.state
    assert rules.attackers(s) == [0]


def test_monster_damage_persists_within_the_level():
    env = start(rolls=[1, 5, 1, 1, 1, 1])
    place(env, adventurer=(2, 0), monsters=[(1, 0), None])
    play(env, "assign_MHL", "attack_0", "end_turn")
    assert table(env)["monsters"][0]["hp"] == 1
    play(env, "assign_HML", "end_turn")
    assert table(env)["monsters"][0]["hp"] == 1


def test_unspent_points_are_lost_when_the_phase_ends():
    env = start(rolls=[6, 6, 6, 1, 2, 3])
    play(env, "assign_HML")
    assert table(env)["speed_left"] == 7
    act(env, "end_turn")
    d = table(env)
    assert d["phase"] == "assign" and (d["speed_left"], d["attack_left"], d["defense_total"]) == (0, 0, 0)
    act(env, "assign_HML")
    assert (table(env)["speed_left"], table(env)["attack_left"], table(env)["defense_total"]) == (4, 3, 2)


# ------------------------------------------------------------------ monster movement

def test_rulebook_figures_spiders_move_to_1_1_and_2_2_and_deal_exactly_1_damage():
    env = start(rolls=[3, 5, 2, 6, 6, 6])
    act(env, "assign_MHL")  # energy 3, 5, 2: Speed 4, Attack 6, Defense 3
    act(env, "move_r2c0")
    assert table(env)["speed_left"] == 0
    act(env, "end_turn")
    d = table(env)
    assert monster_tiles(env) == [(1, 1), (2, 2)]
    assert d["adventurer"]["health"] == 5  # floor(4 / 3): only the spider at (1,1) is in range 3
    assert d["turn"] == 2 and d["dice"] == [6, 6, 6]
    # The movement figure itself draws the adventurer at (3,0): the same end tiles, and no one in range.
    env = start(rolls=[3, 5, 2])
    play(env, "assign_MHL", "move_r3c0", "end_turn")
    assert monster_tiles(env) == [(1, 1), (2, 2)] and table(env)["adventurer"]["health"] == 6


def test_monsters_move_closest_first_not_in_slot_order():
    # Adventurer (2,0); slot 1 at (2,3) (range 6) moves before slot 0 at (0,3) (range 8) and takes (1,1).
    env = start(rolls=[1, 1, 1])
    place(env, adventurer=(2, 0), monsters=[(0, 3), (2, 3)])
    play(env, "assign_HML", "end_turn")
    assert monster_tiles(env) == [(2, 2), (1, 1)]


def test_monsters_at_equal_range_move_in_row_then_column_order():
    # The figure: both spiders at range 8 from (2,0); the upper one, (0,3), moves first and takes (1,1).
    s = start().state
    place_state = s.copy()
    place_state.pos = rules.tile(2, 0)
    assert [rules.RANGE[0][p][place_state.pos] for p in place_state.monster_pos[:2].tolist()] == [8, 8]
    assert rules.monster_order(place_state) == [0, 1]
    place_state.monster_pos[:2] = (rules.tile(2, 4), rules.tile(0, 3))
    assert rules.monster_order(place_state) == [1, 0]


def test_tier_1_a_monster_in_range_backs_off_to_its_maximum_range_ties_by_row_and_column():
    # Adventurer (0,1), spider (1,1) at range 2: (1,0) and (1,2) are at range 3, both cost 2: row-major.
    env = start(rolls=[1, 1, 1])
    place(env, adventurer=(0, 1), monsters=[(1, 1), None])
    play(env, "assign_HML", "end_turn")
    assert monster_tiles(env) == [(1, 0), None]


def test_tier_1_prefers_the_lower_path_cost_among_equal_ranges():
    # Spider (2,2): (1,2) costs 2, (1,0) costs 5; both at range 3 from (0,1).
    env = start(rolls=[1, 1, 1])
    place(env, adventurer=(0, 1), monsters=[(2, 2), None])
    play(env, "assign_HML", "end_turn")
    assert monster_tiles(env) == [(1, 2), None]


def test_monsters_may_pass_other_monsters():
    # Adventurer (4,2). Slot 0 at (3,2) is in range and stays (no range-3 tile exists: walls).
    # Slot 1 at (2,2) reaches (4,1) and (4,3) (range 2) only through slot 0's tile; tie: row-major.
    env = start(rolls=[1, 1, 1])
    place(env, adventurer=(4, 2), monsters=[(3, 2), (2, 2)])
    play(env, "assign_HML", "end_turn")
    assert monster_tiles(env) == [(3, 2), (4, 1)]


def test_tier_2_goal_path_is_blocked_by_the_adventurer():
    # Level 2, adventurer (2,4). Slot 1 (0,4) is at range 4 and stays. Slot 0 (0,0) cannot get in range:
    # its goal is (4,4); around the adventurer the way by (1,1) (10 left) beats (0,2) (11 left).
    env = start(rolls=[1, 1, 1], level=2)
    place(env, adventurer=(2, 4), monsters=[(0, 0), (0, 4)])
    play(env, "assign_HML", "end_turn")
    assert monster_tiles(env) == [(1, 1), (0, 4)]


def test_tier_3_with_no_goal_a_monster_just_closes_in():
    # Level 11, adventurer (0,0): its only range-2 tiles (0,1), (1,0) hold ogres; the third ogre has no
    # goal and ends on the reachable tile nearest the adventurer: (3,3), range 10.
    env = start(rolls=[1, 1, 6], level=11)
    place(env, adventurer=(0, 0), monsters=[(0, 1), (1, 0), (4, 4)])
    play(env, "assign_MLH", "end_turn")
    assert monster_tiles(env) == [(0, 1), (1, 0), (3, 3)]
    assert table(env)["adventurer"]["health"] == 6 - 14 // 7


def _reference_destination(s, k):
    """The page's monster movement, read literally: dict Dijkstra and brute-force sight (no tables)."""
    walls = [t for t in range(25) if (rules.WALLS[rules.layout(s)] >> t) & 1]
    kind = rules.LEVEL_MONSTER[s.level]
    hero = s.pos
    me = int(s.monster_pos[k])
    others = [int(p) for j, p in enumerate(s.monster_pos) if p >= 0 and j != k]

    def costs(src, blocked):
        best, queue = {src: 0}, [(0, src)]
        while queue:
            d, t = heapq.heappop(queue)
            r, c = divmod(t, 5)
            for dr, dc in itertools.product((-1, 0, 1), repeat=2):
                u = (r + dr) * 5 + c + dc
                if (dr or dc) and 0 <= r + dr < 5 and 0 <= c + dc < 5 and u not in blocked:
                    nd = d + (3 if dr and dc else 2)
                    if nd < best.get(u, 99):
                        best[u] = nd
                        heapq.heappush(queue, (nd, u))
        return best

    rng = lambda t: costs(t, walls).get(hero, 99)  # noqa: E731
    spent = costs(me, walls + [hero])
    reach = [t for t, c in spent.items() if c <= kind.speed and t not in others]
    good = lambda t: rng(t) <= kind.range and _sees(t, hero, walls + others)  # noqa: E731
    spots = [t for t in reach if good(t)]
    if spots:
        return min(spots, key=lambda t: (-rng(t), spent[t], t)), 1
    goals = [t for t in spent if t not in others and good(t)]
    if goals:
        goal = min(goals, key=lambda t: (-rng(t), spent[t], t))
        left = costs(goal, walls + [hero])
        return min(reach, key=lambda t: (left.get(t, 99), rng(t), spent[t], t)), 2
    return min(reach, key=lambda t: (rng(t), spent[t], t)), 3


def test_monster_movement_agrees_with_a_literal_reading_of_the_page_on_random_tables():
    rng = np.random.default_rng(1)
    tiers = set()
    for trial in range(300):
        level = int(rng.integers(1, 13))
        s = start(level=level).state
        floor = [t for t in range(25) if not (rules.WALLS[rules.layout(s)] >> t) & 1]
        count = rules.LEVEL_COUNT[level]
        tiles = rng.choice(floor, size=count + 1, replace=False).tolist()
        s.pos = tiles[0]
        s.monster_pos[:count] = tiles[1:]
        for k in rules.monster_order(s):
            expected, tier = _reference_destination(s, k)
            assert rules.monster_destination(s, k) == expected, (level, trial, k)
            s.monster_pos[k] = expected
            tiers.add(tier)
    assert tiers >= {1, 2}


def test_ruling_walls_and_the_adventurer_never_enclose_a_tile():
    for layout in range(4):
        walls = rules.WALLS[layout]
        floor = [t for t in range(25) if not (walls >> t) & 1]
        for hero in floor:
            costs = rules.path_costs(next(t for t in floor if t != hero), walls | (1 << hero))
            assert all(costs[t] < rules.FAR for t in floor if t != hero)


# ------------------------------------------------------------------ levels, win, score

def clear_level_1(rolls_after=(), **kwargs):
    """Level 1 with one spider left at 1 health next to the adventurer: one attack clears it."""
    env = start(rolls=[1, 6, 1, *rolls_after], **kwargs)
    place(env, monsters=[None, (3, 0)], hp=[0, 1])
    play(env, "assign_MHL", "attack_1")
    return env


def test_the_level_ends_at_once_when_the_last_monster_dies():
    env = clear_level_1()
    d = table(env)
    assert d["phase"] == "level_up" and d["level"] == 1 and d["levels_cleared"] == 1
    assert d["monsters"] == [None, None] and d["adventurer"]["pos"] == [4, 0] and d["adventurer"]["health"] == 6
    assert d["speed_left"] == 0 and d["attack_left"] == 0 and d["turn"] == 1
    assert legal(env) == {"upgrade_speed", "upgrade_attack", "upgrade_defense", "upgrade_range", "heal"}


@pytest.mark.parametrize("choice, changed", [
    ("upgrade_speed", {"speed": 2}), ("upgrade_attack", {"attack": 2}), ("upgrade_defense", {"defense": 2}),
    ("upgrade_range", {"range": 3}), ("heal", {"health": 6}),
])
def test_level_up_choices_then_the_next_level_is_set_up_and_a_turn_begins(choice, changed):
    env = clear_level_1(rolls_after=[2, 3, 4])
    place(env, health=2)
    act(env, choice)
    d = table(env)
    adventurer = {"pos": [4, 4], "health": 2, "speed": 1, "attack": 1, "defense": 1, "range": 2, **changed}
    assert d["adventurer"] == adventurer
    assert d["level"] == 2 and d["phase"] == "assign" and d["turn"] == 2 and d["dice"] == [2, 3, 4]
    assert d["monsters"] == [{"pos": [0, 2], "hp": 3}, {"pos": [1, 0], "hp": 3}]
    assert d["levels_cleared"] == 1


@pytest.mark.filterwarnings("ignore:.*maximum and minimum values are equal")  # Range's bounds at cap 2
def test_upgrades_are_masked_at_the_skill_cap():
    env = clear_level_1(skill_cap=2)
    assert legal(env) == {"upgrade_speed", "upgrade_attack", "upgrade_defense", "heal"}  # Range starts at 2
    env = clear_level_1()
    place(env, speed=6, range=6, attack=5)
    assert legal(env) == {"upgrade_attack", "upgrade_defense", "heal"}


def test_heal_is_legal_at_full_health():
    env = clear_level_1()
    assert table(env)["adventurer"]["health"] == 6 and "heal" in legal(env)


@pytest.mark.parametrize("reward, value", [("win", 1.0), ("score", 12.0)])
def test_killing_the_last_monster_of_level_12_wins(reward, value):
    env = start(rolls=[1, 4, 1], level=12, reward=reward)
    place(env, monsters=[None, (3, 4), None], hp=[0, 1, 0])
    act(env, "assign_MHL")
    _, r, terminated, truncated, info = act(env, "attack_1")
    assert terminated and not truncated and r == value
    assert info["won"] and info["score"] == 12 and rules.RESULT_NAMES[info["result"]] == "won"
    d = table(env)
    assert d["phase"] == "over" and d["result"] == "won" and d["levels_cleared"] == 12 and not legal(env)


def test_health_0_loses_and_reads_0_after_an_overkill():
    env = start(rolls=[1, 1, 1], level=11, reward="score")
    place(env, adventurer=(0, 0), monsters=[(0, 1), (1, 0), (4, 4)])
    act(env, "assign_HML")
    _, r, terminated, truncated, info = act(env, "end_turn")  # 14 // 2 = 7 damage
    assert terminated and not truncated and not info["won"] and rules.RESULT_NAMES[info["result"]] == "lost"
    assert info["score"] == 10 and r == 10.0
    assert table(env)["adventurer"]["health"] == 0 and table(env)["phase"] == "over" and not legal(env)


def test_score_is_the_last_level_completed():
    env = clear_level_1(rolls_after=[1, 1, 1], reward="score")
    act(env, "upgrade_attack")
    assert table(env)["levels_cleared"] == 1
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=0, options={"level": 5})
    _, _, terminated, _, info = env.step(rules.A_END_TURN)  # not legal while assigning: a forfeit
    assert terminated and info["illegal_action"] and info["score"] == 4
    assert rules.RESULT_NAMES[info["result"]] == "forfeited"


def test_truncation_when_turn_max_turns_plus_1_would_begin():
    env = start(rolls=[1, 1, 1] * 3, max_turns=2)
    _, _, terminated, truncated, _ = play(env, "assign_HML", "end_turn")
    assert not terminated and not truncated
    _, r, terminated, truncated, info = play(env, "assign_HML", "end_turn")
    assert truncated and not terminated and r == 0.0
    assert info["score"] == 0 and rules.RESULT_NAMES[info["result"]] == "truncated" and not info["won"]
    d = table(env)
    assert d["turn"] == 2 and d["phase"] == "over" and d["result"] == "truncated" and not legal(env)
    assert env.state.next_roll == 6  # turn 3's dice were never rolled


def test_the_level_up_choice_is_not_a_turn():
    env = clear_level_1(max_turns=1)
    assert table(env)["phase"] == "level_up"
    _, _, terminated, truncated, info = act(env, "upgrade_range")
    assert truncated and not terminated and info["score"] == 1
    d = table(env)
    assert d["level"] == 2 and d["turn"] == 1 and d["adventurer"]["range"] == 3


# ------------------------------------------------------------------ actions, observation, rendering

def test_action_names_are_the_pages():
    names = gym.make(ENV_ID).unwrapped.action_names
    assert names[:6] == ["assign_HML", "assign_HLM", "assign_MHL", "assign_MLH", "assign_LHM", "assign_LMH"]
    assert names[6] == "move_r0c0" and names[30] == "move_r4c4" and names[13] == "move_r1c2"
    assert names[31:] == ["attack_0", "attack_1", "attack_2", "attack_3", "end_turn", "upgrade_speed",
                          "upgrade_attack", "upgrade_defense", "upgrade_range", "heal"]


def test_attacks_on_slots_the_level_lacks_are_never_legal():
    env = start(rolls=[1, 6, 1], level=3, skill_cap=9)
    place(env, range=9)
    act(env, "assign_MHL")
    assert not legal(env) & {"attack_1", "attack_2", "attack_3"}
    assert len(table(env)["monsters"]) == 1


def test_the_observation_shows_the_table():
    env = start(rolls=[3, 5, 2])
    obs = rules.observe(env.state)
    fields = [name for name, _ in rules.OBSERVATION_FIELDS]
    value = lambda name: obs[fields.index(name)]  # noqa: E731
    assert obs.shape == (201,) and len(fields) == 201 and len(set(fields)) == 201
    assert value("wall_r1c3") == value("wall_r3c1") == value("wall_r3c3") == 1 and obs[:25].sum() == 3
    assert value("start_stair_r4c0") == value("other_stair_r0c4") == value("adventurer_r4c0") == 1
    assert value("monster_r0c3") == 1 and value("monster_hp_r2c4") == 2
    assert value("level_1") == 1 and value("monster_speed") == 5 and value("monster_defense") == 4
    assert (value("slot1_alive"), value("slot1_row"), value("slot1_col"), value("slot1_hp")) == (1, 2, 4, 2)
    assert (value("die_high"), value("die_mid"), value("die_low")) == (5, 3, 2)
    assert value("health") == 6 and value("range") == 2 and value("phase_assign") == 1
    assert value("turn_fraction") == pytest.approx(1 / 400)
    act(env, "assign_MHL")
    obs = rules.observe(env.state)
    assert (obs[fields.index("speed_left")], obs[fields.index("attack_left")],
            obs[fields.index("defense_total")]) == (4, 6, 3)
    assert gym.make(ENV_ID, skill_cap=9).observation_space.high[fields.index("speed")] == 9


def test_render_draws_the_grid_pieces_and_skill_line():
    env = gym.make(ENV_ID, render_mode="ansi").unwrapped
    env.reset(seed=0, options={"rolls": [3, 5, 2]})
    text = env.render()
    assert "level 1" in text and "0s2" in text and "1s2" in text and "##" in text and "@" in text
    assert "health 6/6  speed 1  attack 1  defense 1  range 2" in text and "dice 3 5 2" in text


@pytest.mark.skipif(PLAIN_PYTHON, reason="this is the run as plain Python")
def test_the_rules_pass_as_plain_python():
    passes_as_plain_python(__file__)


def test_the_lowest_skill_cap_passes_gymnasiums_checker_and_its_observations_stay_in_the_space():
    # With skill_cap=2 Range can never rise above its start: its Box entry must still span a range.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(ENV_ID, skill_cap=2)
        obs, info = env.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(300):
            assert env.observation_space.contains(obs)
            obs, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(info["action_mask"])))
            if terminated or truncated:
                obs, info = env.reset()
