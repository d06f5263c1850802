"""One Card Dungeon's native vector env plays exactly the single env's games.

The vector env and N single envs are played side by side (``helpers.SideBySide``, as tests/test_vector.py does for
every game) with the game's own options: fixed rolls and a start level (reset options), ``max_turns`` and
``skill_cap``; with and without forced moves; in both reward modes. Observations, rewards, ends, masks, outcomes and
the full state of every game must agree after every step. Random play rarely clears a level, so some runs raise the
adventurer's skills at the start of every game (in both envs alike) and attack whenever they can; the rare branches
(tiers of monster movement, level-ups, wins, truncations, dice running out mid-turn...) are counted and required.
A second test sets random tables by hand and checks every legal action of each, played by the vector env's compiled
loops, against ``rules.apply`` on one game.
"""

import copy

from collections import Counter

import numpy as np
import pytest
from helpers import SideBySide, random_actions

from tabletop_gym.envs.core.vector import Batch
from tabletop_gym.envs.one_card_dungeon import rules
from tabletop_gym.envs.one_card_dungeon.levels import MAX_MONSTERS, NUM_LEVELS
from tabletop_gym.envs.one_card_dungeon.vector import BANK_SIZE, Games, OneCardDungeonVectorEnv


def attack_first(rng, masks):
    """Random play that takes the first legal attack nine times in ten."""
    actions = random_actions(rng, masks)
    attacks = masks[:, rules.A_ATTACK:rules.A_END_TURN].astype(bool)
    eager = attacks.any(axis=1) & (rng.random(len(masks)) < 0.9)
    actions[eager] = rules.A_ATTACK + attacks[eager].argmax(axis=1)
    return actions


def now_and_then_illegal(rng, masks):
    """Random play that takes an illegal action (forfeiting the game) one time in fifty."""
    actions = random_actions(rng, masks)
    wrong = rng.random(len(masks)) < 0.02
    actions[wrong] = random_actions(rng, ~masks[wrong].astype(bool))
    return actions


def boost(vector, single, i):
    """Raise game i's skills to one below the cap (at least their start) in both envs. Only done on a game's first
    decision, the assignment of turn 1's dice, whose mask the skills do not change."""
    s = single.state.copy()
    assert s.phase == rules.ASSIGN and s.turn == 1
    for name in rules.UPGRADES:
        setattr(s, name, max(getattr(s, name), s.skill_cap - 1))
    single.state = s
    vector.state.put_same(np.array([i]), s)


def play_side_by_side(num_envs, steps, seed, policy=random_actions, boosted=False, reset_options=None,
                      counts=None, until_an_end=False, **options):
    """Step the vector env and num_envs single envs with the same legal actions; they must agree (``SideBySide``).
    ``boosted``: every game starts with raised skills. ``until_an_end``: stop once some game has ended (before any
    game starts over). The number of games ended."""
    counts = Counter() if counts is None else counts
    both = SideBySide("Tabletop/OneCardDungeon-v0", num_envs, seed, reset_options or {}, **options)
    if boosted:
        for i, single in enumerate(both.singles):
            boost(both.vector, single, i)
    rng = np.random.default_rng(seed)
    endings = 0
    for _ in range(steps):
        starting = both.starting_over.copy()
        ended = both.step(policy(rng, both.masks), before=lambda i, single, action: count_decision(counts, single,
                                                                                                     action))
        for i, info in ended:
            counts["result_" + rules.RESULT_NAMES[info["result"]]] += 1
        endings += len(ended)
        if boosted:
            for i in np.flatnonzero(starting):
                boost(both.vector, both.singles[i], i)
        if until_an_end and ended:
            break
    return endings


def count_decision(counts, single, action):
    """Tally the rare decisions met (before ``action`` is played)."""
    s, mask = single.state, single.action_masks()
    if s.phase == rules.ASSIGN and mask.sum() < len(rules.PERMUTATIONS):
        counts["tied_dice"] += 1
    if s.phase == rules.LEVEL_UP:
        counts["level_up_" + rules.ACTION_NAMES[action]] += 1
        if not mask[rules.A_UPGRADE:rules.A_HEAL].all():
            counts["upgrade_masked_at_cap"] += 1
    if rules.A_ATTACK <= action < rules.A_END_TURN and s.monster_hp[action - rules.A_ATTACK] == 1:
        counts["monster_killed"] += 1


@pytest.fixture
def counts(monkeypatch):
    """Counts the rare branches the single envs' games take (the vector env must take the same ones). Each step of
    a single env (``rules.play``: an action and the forced moves after it, one compiled call) is replayed first one
    action at a time on a copy, with a copy of its generator, to see which tier moves each monster and where each
    turn's dice come from. The vector env's own deals (one game dealt by the rules with a stand-in generator) are
    not counted."""
    tally = Counter()
    play, new_game, deal = rules.play, rules.new_game, OneCardDungeonVectorEnv._deal
    dealing = []

    def flagged_deal(self, *args):
        dealing.append(True)
        try:
            return deal(self, *args)
        finally:
            dealing.pop()

    def counted_new_game(rng, *args, **kwargs):
        s = new_game(rng, *args, **kwargs)
        if not dealing:
            count_roll(tally, s.fixed_rolls)
        return s

    def counted_play(s, action, rng, skip_forced):
        replay, dice, move = s, copy.deepcopy(rng), action
        while True:
            replay = count_action(tally, replay, move, dice)
            mask = rules.legal_mask(replay)
            if not skip_forced or mask.sum() != 1:
                break
            move = int(mask.argmax())
        return play(s, action, rng, skip_forced)

    monkeypatch.setattr(rules, "play", counted_play)
    monkeypatch.setattr(rules, "new_game", counted_new_game)
    monkeypatch.setattr(OneCardDungeonVectorEnv, "_deal", flagged_deal)
    return tally


def count_roll(tally, left):
    """Tally a turn's dice by the fixed rolls ``left`` when it began."""
    tally["fixed_rolls_run_out_mid_turn" if 0 < left < 3 else "fixed_roll" if left else "generator_roll"] += 1


def count_action(tally, s, action, rng):
    """Tally the monsters' tiers of an end of turn and the dice of a turn begun; the state after ``action``."""
    if action == rules.A_END_TURN:
        moved = s.copy()
        for k in rules.monster_order(moved):
            tally["monster_tier_%d" % monster_tier(moved, k)] += 1
            moved.monster_pos[k] = rules.monster_destination(moved, k)
    after = rules.apply(s, action, rng)
    if after.turn > s.turn:
        count_roll(tally, s.fixed_rolls - s.next_roll)
    return after


def monster_tier(s, k):
    """Which tier of RULES.md's monster movement decides monster k's move (1, 2 or 3)."""
    lay, hero, kind = rules.layout(s), s.pos, rules.LEVEL_MONSTER[s.level]
    here = int(s.monster_pos[k])
    others = rules.monster_tiles(s) & ~(1 << here)
    spent = rules.path_costs(here, rules.WALLS[lay] | (1 << hero))

    def attacks_from(t):
        return rules.RANGE[lay][t][hero] <= kind.range and rules.in_sight(lay, t, hero, others)

    if any(spent[t] <= kind.speed and not (others >> t) & 1 and attacks_from(t) for t in range(rules.NUM_TILES)):
        return 1
    blocked = rules.WALLS[lay] | others | (1 << hero)
    return 2 if any(not (blocked >> t) & 1 and spent[t] < rules.FAR and attacks_from(t)
                    for t in range(rules.NUM_TILES)) else 3


# ------------------------------------------------------------------ random play, many seeds

@pytest.mark.parametrize("seed", [0, 1000, 2000])
def test_vector_env_plays_the_single_envs_games(seed, counts):
    assert play_side_by_side(64, 300, seed, counts=counts) > 64
    assert counts["result_lost"] and counts["monster_tier_1"] and counts["monster_tier_2"]
    assert counts["tied_dice"] and counts["monster_killed"] and counts["generator_roll"]


def test_illegal_actions_forfeit_the_game_alike(counts):
    play_side_by_side(64, 200, 3000, policy=now_and_then_illegal, counts=counts)
    assert counts["result_forfeited"]


@pytest.mark.parametrize("level, seed", [(1, 10), (4, 40), (7, 70), (12, 120), (12, 1200)])
def test_boosted_attacking_play_clears_levels_and_wins(level, seed, counts):
    play_side_by_side(64, 300, seed, policy=attack_first, boosted=True, reset_options={"level": level},
                      counts=counts, skip_forced=False, reward="score")
    assert counts["monster_killed"]
    if level < NUM_LEVELS:
        assert any(name.startswith("level_up_") for name in counts)
    else:
        assert counts["result_won"]


def test_skill_cap_masks_upgrades_and_every_level_up_choice_is_played(counts):
    for seed, cap in ((0, 2), (100, 3), (200, 4)):
        play_side_by_side(64, 300, seed, policy=attack_first, boosted=True, counts=counts, skill_cap=cap)
    assert counts["upgrade_masked_at_cap"]
    assert all(counts["level_up_" + name] for name in rules.ACTION_NAMES[rules.A_UPGRADE:])


@pytest.mark.parametrize("skip_forced", [True, False])
def test_truncation_at_max_turns(skip_forced, counts):
    for seed, max_turns in ((0, 1), (300, 3), (600, 8)):
        play_side_by_side(64, 200, seed, policy=attack_first, boosted=True, counts=counts, max_turns=max_turns,
                          skip_forced=skip_forced, reset_options={"level": 3})
    assert counts["result_truncated"] > 50


@pytest.mark.parametrize("length", [0, 3, 20, 40, 100])
def test_fixed_rolls_then_the_generator(length, counts):
    rolls = np.random.default_rng(length).integers(1, 7, size=length).tolist()
    for seed, level in ((0, 2), (500, 9), (900, 5)):
        play_side_by_side(64, 300, seed, reset_options={"rolls": rolls, "level": level}, counts=counts,
                          skip_forced=seed == 0, policy=attack_first, boosted=True, until_an_end=length > 0)
    assert counts["generator_roll"] or length == 100
    assert bool(counts["fixed_roll"]) == (length >= 3)
    assert bool(counts["fixed_rolls_run_out_mid_turn"]) == (length % 3 != 0 and length < 100)


def test_games_started_over_after_fixed_rolls():
    """The fixed rolls of a reset, then games started over without them (every game holds room for every die)."""
    play_side_by_side(8, 100, 0, reset_options={"rolls": [6, 5, 4, 3]})
    vector = OneCardDungeonVectorEnv(num_envs=4)
    vector.reset(seed=1, options={"rolls": [6] * 7})
    vector.reset(seed=2, options={"rolls": [1, 2], "reset_mask": np.array([True, False, True, False])})
    assert [vector.take(i).fixed_rolls for i in range(4)] == [2, 7, 2, 7]


def test_all_sixes_are_forced_assignments():
    play_side_by_side(16, 100, 4, reset_options={"rolls": [6] * 30}, until_an_end=True)


# ------------------------------------------------------------------ hand-set tables, every legal action

def random_table(rng):
    """A state with pieces and points set at random (distinct floor tiles, skills within bounds), mid-turn."""
    s = rules.new_game(rng, level=int(rng.integers(1, NUM_LEVELS + 1)), max_turns=50, skill_cap=int(rng.integers(2, 9)))
    walls = rules.WALLS[rules.layout(s)]
    floor = [t for t in range(rules.NUM_TILES) if not (walls >> t) & 1]
    tiles = rng.choice(floor, size=1 + MAX_MONSTERS, replace=False)
    s.pos = int(tiles[0])
    kind = rules.LEVEL_MONSTER[s.level]
    for k in range(rules.LEVEL_COUNT[s.level]):
        alive = rng.random() < 0.8
        s.monster_pos[k] = tiles[1 + k] if alive else -1
        s.monster_hp[k] = rng.integers(1, kind.hp + 1) if alive else 0
    if not s.monster_hp.any():
        s.monster_pos[0], s.monster_hp[0] = tiles[1], 1
    for name, (low, high) in rules.skill_bounds(s.skill_cap).items():
        setattr(s, name, int(rng.integers(low, high + 1)))
    s.health = int(rng.integers(1, rules.MAX_HEALTH + 1))
    s.phase = rules.ACT
    s.speed_left = int(rng.integers(0, s.speed + 7))
    s.attack_left = int(rng.integers(0, s.attack + 7))
    s.defense_total = s.defense + int(rng.integers(1, 7))
    s.turn = int(rng.integers(1, 51))
    return s


def test_every_legal_action_on_random_tables_agrees_with_the_rules():
    rng = np.random.default_rng(0)
    tables = [random_table(rng) for _ in range(600)]
    b = Batch(tables[0], len(tables))
    b.put_many(np.arange(len(tables)), tables)
    masks = Games.legal_masks(b)
    assert np.array_equal(masks, [rules.legal_mask(s) for s in tables])
    assert np.array_equal(Games.observe(b), [rules.observe(s) for s in tables])
    # Every legal action of every table, each from a copy of its table with its own generator.
    table, action = np.nonzero(masks)
    plays = Batch(tables[0], len(table))
    plays.put_many(np.arange(len(table)), [tables[t] for t in table])
    rngs = [np.random.default_rng(int(t)) for t in table]
    Games.apply(plays, action, np.ones(len(table), dtype=bool), rngs)
    for i, (t, a) in enumerate(zip(table.tolist(), action.tolist())):
        expected = rules.apply(tables[t], a, np.random.default_rng(t))
        assert plays.take(i).equals(expected), (rules.ACTION_NAMES[a], tables[t])
    assert np.array_equal(Games.legal_masks(plays), [rules.legal_mask(plays.take(i)) for i in range(len(table))])
    tiers = Counter(monster_tier(s, k) for s in tables for k in range(MAX_MONSTERS) if s.monster_pos[k] >= 0)
    assert all(tiers[tier] for tier in (1, 2, 3)), tiers


# ------------------------------------------------------------------ dice drawn ahead

def test_dice_drawn_ahead_are_each_games_own_through_long_games_reseeds_and_refused_resets():
    """The vector env asks each game's generator for many turns of dice at once (``vector.DiceBank``): the
    dice must still be the single env's, turn after turn (past one batch of dice), after some games are reseeded,
    and after a reset refused for a bad option (which keeps the generators)."""
    both = SideBySide("Tabletop/OneCardDungeon-v0", 8, 5, max_turns=400)
    for i, single in enumerate(both.singles):
        boost(both.vector, single, i)
    rng = np.random.default_rng(5)
    longest = 0
    for step in range(400):
        starting = both.starting_over.copy()
        both.step(attack_first(rng, both.masks))
        for i in np.flatnonzero(starting):
            boost(both.vector, both.singles[i], i)
        longest = max(longest, max(single.state.turn for single in both.singles))
        if step == 150:
            with pytest.raises(ValueError, match="rolls"):
                both.vector.reset(seed=99, options={"rolls": [7]})
        if step == 250:
            again = np.array([True, False] * 4)
            both.observations, both.infos = both.vector.reset(seed=50, options={"reset_mask": again})
            for i in np.flatnonzero(again):
                both._agree(i, *both.singles[i].reset(seed=50 + int(i)))
                both.starting_over[i] = False
    assert longest > BANK_SIZE // 3  # some game rolled more turns than one batch of dice holds


def test_forced_moves_leave_every_game_at_a_decision_or_its_end():
    """``rules.forced_action`` (what the env plays on with ``skip_forced``, told without the whole mask) is the one
    legal action where there is one; ``rules.continue_rows`` (the vector env's forced moves) stops exactly where a
    game has a choice or is over, pays the dice of the turns it begins from each game's bank, and plays only the
    rows it is given: on random tables, and through boosted play (every decision returned) at low and high skill
    caps."""
    forced = Counter()

    def check(b, rngs):
        data = b.data.copy()
        rows = np.random.default_rng(len(forced)).random(len(data)) < 0.7
        masks = Games.legal_masks(b)
        only = np.where(masks.sum(axis=1) == 1, masks.argmax(axis=1), -1)
        assert [rules.forced_action(row) for row in b.data] == only.tolist()
        played = Batch(b.take(0), len(data))
        played.put_many(np.arange(len(data)), [b.take(i) for i in range(len(data))])
        Games.play_forced(played, rows, [copy.deepcopy(rng) for rng in rngs])
        after = Games.legal_masks(played)
        assert not (after[rows].sum(axis=1) == 1).any()
        assert np.array_equal(played.data[~rows], data[~rows])
        for i in np.flatnonzero(rows):
            if masks[i].sum() == 1:  # the forced moves of one game, played one at a time by the rules
                forced[int(masks[i].argmax())] += 1
                s, rng = b.take(i), copy.deepcopy(rngs[i])
                while rules.legal_mask(s).sum() == 1:
                    s = rules.apply(s, int(rules.legal_mask(s).argmax()), rng)
                assert np.array_equal(played.data[i], s.data)

    rng = np.random.default_rng(1)
    tables = [random_table(rng) for _ in range(600)]
    b = Batch(tables[0], len(tables))
    b.put_many(np.arange(len(tables)), tables)
    check(b, [np.random.default_rng(i) for i in range(len(tables))])
    for seed, cap in ((0, 2), (1, 6)):
        both = SideBySide("Tabletop/OneCardDungeon-v0", 64, seed, skip_forced=False, skill_cap=cap)
        for i, single in enumerate(both.singles):
            boost(both.vector, single, i)
        for _ in range(100):
            both.step(attack_first(rng, both.masks))
            check(both.vector.unwrapped.state, both.vector.unwrapped._rngs)
    assert forced[rules.A_ASSIGN] and forced[rules.A_END_TURN] and forced[rules.A_HEAL]


def test_a_games_dice_are_numpys_draw_through_its_generators_typed_list():
    """``dice_from`` throws in compiled code from ``generator_list(rng)``, kept for the generator: the dice numpy's
    ``integers(1, 7, size=k)`` throws, one throw after another, and the generator left where numpy leaves it."""
    from tabletop_gym.envs.core.compiled import generator_list

    ours, numpys = np.random.default_rng(7), np.random.default_rng(7)
    for count in [1, 3, 2, 6, 1, 9] * 20:
        bank = rules.dice_from(ours, count)
        assert bank[0] == 1 and bank[1:].tolist() == numpys.integers(1, 7, size=count).tolist()
    assert ours.bit_generator.state == numpys.bit_generator.state
    assert generator_list(ours) is generator_list(ours) and generator_list(numpys) is not generator_list(ours)
    with pytest.raises(ValueError, match="need a random generator"):
        rules.dice_from(None, 3)
