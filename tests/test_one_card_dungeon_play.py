"""One Card Dungeon under random play: invariants after every step, and what the player may see."""

import gymnasium as gym
import numpy as np
import pytest
from helpers import random_legal
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop_gym.envs.one_card_dungeon import levels, rules

ENV_ID = "Tabletop/OneCardDungeon-v0"


def check_invariants(env, info: dict, terminated: bool, truncated: bool) -> None:
    s = env.state
    kind = rules.LEVEL_MONSTER[s.level]
    count = rules.LEVEL_COUNT[s.level]
    walls = rules.WALLS[rules.layout(s)]
    # Health and skills in range.
    assert 0 <= s.health <= rules.MAX_HEALTH
    for name, (low, high) in rules.skill_bounds(s.skill_cap).items():
        assert low <= getattr(s, name) <= high, name
    assert 0 <= s.speed_left <= s.speed + 6 and 0 <= s.attack_left <= s.attack + 6
    assert s.defense_total == 0 or s.defense + 1 <= s.defense_total <= s.defense + 6
    assert all(1 <= d <= 6 for d in s.dice.tolist()) and 1 <= s.turn <= s.max_turns
    # Pieces: no two on a tile, none on a wall, dead and unused slots empty.
    tiles = [s.pos]
    for k in range(levels.MAX_MONSTERS):
        p, hp = int(s.monster_pos[k]), int(s.monster_hp[k])
        if k >= count or hp == 0:
            assert p == -1 and hp == 0
        else:
            assert 0 <= p < 25 and 1 <= hp <= kind.hp
            tiles.append(p)
    assert len(set(tiles)) == len(tiles)
    assert not any((walls >> t) & 1 for t in tiles)
    # Phase, result, score and the mask agree.
    mask = env.action_masks()
    assert np.array_equal(mask, info["action_mask"].astype(bool))
    assert env.observation_space.contains(rules.observe(s))
    running = s.result == rules.PLAYING
    assert running == (s.phase != rules.OVER) == bool(env.legal_action_names())
    assert running or mask.all()  # a finished game offers every action to a masked sampler (none is taken)
    assert terminated == (s.result in (rules.WON, rules.LOST, rules.FORFEITED))
    assert truncated == (s.result == rules.TRUNCATED)
    assert (s.health == 0) == (s.result == rules.LOST)
    assert (s.phase == rules.LEVEL_UP) == (running and not s.monster_hp.any())
    cleared = {rules.LEVEL_UP: s.level, rules.OVER: 12 if s.result == rules.WON else None}.get(s.phase, s.level - 1)
    if cleared is not None:
        assert s.cleared == cleared
    if s.phase == rules.ACT:
        assert mask[rules.A_END_TURN]
    if terminated or truncated:
        assert info["score"] == s.cleared and info["won"] == (s.result == rules.WON)


def _boost(env) -> np.ndarray:
    """Raise every skill to one below the cap (a table set by hand) so that random play also clears levels."""
    saved = env.get_state()
    s = saved["game"]
    s.speed = s.attack = s.defense = s.range = s.skill_cap - 1
    env.set_state(saved)
    return env.action_masks().astype(np.int8)


def _attack_first(rng, mask) -> int:
    """Random play that takes an attack nine times in ten when one is legal."""
    attacks = np.flatnonzero(mask[rules.A_ATTACK:rules.A_END_TURN])
    if attacks.size and rng.random() < 0.9:
        return rules.A_ATTACK + int(attacks[0])
    return random_legal(rng, mask)


@pytest.mark.parametrize("skip_forced", [True, False])
def test_random_play_keeps_the_invariants(skip_forced):
    envs = {max_turns: gym.make(ENV_ID, skip_forced=skip_forced, max_turns=max_turns).unwrapped
            for max_turns in (400, 4)}
    rng = np.random.default_rng(0)
    results, phases = set(), set()
    for seed in range(2000):
        env = envs[4 if seed % 5 == 1 else 400]
        _, info = env.reset(seed=seed, options={"level": seed % 12 + 1})
        check_invariants(env, info, False, False)
        boosted = seed % 50 == 0
        if boosted:
            info["action_mask"] = _boost(env)
        terminated = truncated = False
        while not (terminated or truncated):
            action = _attack_first(rng, info["action_mask"]) if boosted else random_legal(rng, info["action_mask"])
            _, _, terminated, truncated, info = env.step(action)
            check_invariants(env, info, terminated, truncated)
            phases.add(env.state.phase)
            if skip_forced and not (terminated or truncated):
                assert info["action_mask"].sum() > 1
        results.add(rules.RESULT_NAMES[info["result"]])
    assert results == {"lost", "truncated", "won"}
    assert phases == {rules.ASSIGN, rules.ACT, rules.LEVEL_UP, rules.OVER}


def _random_states(count, seed):
    """States met in random play (no fixed rolls), at every kind of decision."""
    env = gym.make(ENV_ID, skip_forced=False).unwrapped
    rng = np.random.default_rng(seed)
    states = []
    for episode in range(count):
        _, info = env.reset(seed=episode, options={"level": int(rng.integers(1, 13))})
        for _ in range(int(rng.integers(0, 30))):
            _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
            if terminated or truncated:
                break
        states.append(env.clone())
    return states, rng


def test_states_that_differ_only_in_future_dice_look_the_same():
    states, rng = _random_states(200, 3)
    for env in states:
        s = env.state
        other = s.copy()
        unseen = rng.integers(1, 7, size=int(rng.integers(0, 30))).astype(np.int8)
        other.rolls, other.fixed_rolls = rules.room_for_every_roll(unseen, other.max_turns), len(unseen)
        other.next_roll = 0
        assert np.array_equal(rules.observe(other), rules.observe(s))
        assert rules.describe(other) == rules.describe(s)
        assert np.array_equal(rules.legal_mask(other), rules.legal_mask(s))


def test_the_observation_never_shows_a_future_die():
    # Two games with the same first turn and different later rolls: the same observations until turn 2.
    first = [3, 5, 2]
    a = gym.make(ENV_ID, skip_forced=False).unwrapped
    b = gym.make(ENV_ID, skip_forced=False).unwrapped
    obs_a, _ = a.reset(seed=0, options={"rolls": first + [6, 6, 6]})
    obs_b, _ = b.reset(seed=0, options={"rolls": first + [1, 2, 1]})
    assert np.array_equal(obs_a, obs_b)
    for name in ("assign_MHL", "move_r2c0"):
        obs_a = a.step(a.action_names.index(name))[0]
        obs_b = b.step(b.action_names.index(name))[0]
        assert np.array_equal(obs_a, obs_b)
    obs_a = a.step(rules.A_END_TURN)[0]
    obs_b = b.step(rules.A_END_TURN)[0]
    assert not np.array_equal(obs_a, obs_b)  # now the new dice are on the table


def test_determinize_keeps_what_is_seen_and_redraws_the_future_dice():
    states, rng = _random_states(120, 5)
    redrawn = tried = 0
    for env in states:
        guess = env.determinize(rng)
        assert np.array_equal(rules.observe(guess.state), rules.observe(env.state))
        assert rules.describe(guess.state) == rules.describe(env.state)
        assert np.array_equal(guess.action_masks(), env.action_masks())
        assert guess.state.next_roll == 0 and guess.state.fixed_rolls == 3 * (env.max_turns - env.state.turn)
        if env.state.phase == rules.ACT:
            # A plain clone replays the real future dice; the determinized one does not.
            real, twin = env.clone(), env.clone()
            real.step(rules.A_END_TURN)
            twin.step(rules.A_END_TURN)
            guess.step(rules.A_END_TURN)
            if real.state.phase == rules.ASSIGN:
                tried += 1
                assert np.array_equal(twin.state.dice, real.state.dice)
                redrawn += not np.array_equal(guess.state.dice, real.state.dice)
    assert tried > 30 and redrawn >= tried - 2


def test_determinize_drops_unused_fixed_rolls():
    env = gym.make(ENV_ID, skip_forced=False).unwrapped
    env.reset(seed=0, options={"rolls": [3, 5, 2] + [6] * 30})
    guess = env.determinize(np.random.default_rng(0))
    assert guess.state.fixed_rolls == 3 * 399 and not np.all(guess.state.rolls[:30] == 6)


@settings(max_examples=40, deadline=None)
@given(rolls=st.lists(st.integers(1, 6), min_size=60, max_size=60), level=st.integers(1, 12),
       choices=st.lists(st.integers(0, 10_000), min_size=40, max_size=40))
def test_fixed_rolls_make_the_game_independent_of_the_seed(rolls, level, choices):
    """While the fixed rolls last, the seed changes nothing: the dice are the only randomness."""
    tables = []
    for seed in (1, 2):
        env = gym.make(ENV_ID, skip_forced=False).unwrapped
        _, info = env.reset(seed=seed, options={"rolls": rolls, "level": level})
        trace = [env.describe()]
        for choice in choices:
            if env.state.turn >= 20 or not env.legal_action_names():
                break
            legal_now = np.flatnonzero(info["action_mask"])
            _, _, _, _, info = env.step(int(legal_now[choice % legal_now.size]))
            trace.append(env.describe())
        tables.append(trace)
    assert tables[0] == tables[1]
