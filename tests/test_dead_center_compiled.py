"""Dead Center's compiled rules play exactly the games the plain-numpy rules played before them.

``tests/oracles/dead_center_rules.py`` is the rules module as it stood before the move to numba. Both deal the game
of each seed and take the same random legal actions; after every action every part of the state, the legal mask,
the observation, the table and the outcome must be equal. The env's step (an action and the forced moves after it,
compiled in one call) is held to the oracle's one move at a time, and so are ``determinize`` and ``forfeit``.
With ``NUMBA_DISABLE_JIT=1`` the same compiled functions run as plain Python: the rules tests pass that way too.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracles import dead_center_rules as oracle

from tabletop_gym.envs.dead_center import rules

FIELDS = [name for name, *_ in rules.State.PARTS] + ["jokers"]


def assert_same_game(new, old, where):
    for name in FIELDS:
        assert np.array_equal(getattr(new, name), getattr(old, name)), f"{where}: {name}"
    assert np.array_equal(rules.legal_mask(new), oracle.legal_mask(old)), f"{where}: mask"
    assert np.array_equal(rules.observe(new), oracle.observe(old)), f"{where}: observation"
    assert rules.describe(new) == oracle.describe(old), f"{where}: table"
    assert rules.outcome(new) == oracle.outcome(old), f"{where}: outcome"
    assert rules.is_over(new) == oracle.is_over(old)
    for pile in range(rules.NUM_PILES):
        assert rules.killable(new, pile) == oracle.killable(old, pile), f"{where}: killable {pile}"


def oracle_step(old, action, skip_forced):
    """The env's step as the oracle's env took it: the action, then one forced move at a time."""
    old = oracle.apply(old, action)
    mask = oracle.legal_mask(old)
    while skip_forced and mask.sum() == 1:
        old = oracle.apply(old, int(mask.argmax()))
        mask = oracle.legal_mask(old)
    return old, mask


@pytest.mark.parametrize("jokers", [2, 1, 0])
def test_every_move_of_a_thousand_deals_matches_the_plain_rules(jokers):
    choices = np.random.default_rng(jokers)
    moves = 0
    for seed in range(1000):
        new = rules.new_game(np.random.default_rng(seed), jokers=jokers)
        old = oracle.new_game(np.random.default_rng(seed), jokers=jokers)
        assert_same_game(new, old, f"seed {seed} dealt")
        while not oracle.is_over(old):
            legal = np.flatnonzero(oracle.legal_mask(old))
            action = int(legal[choices.integers(len(legal))])
            if seed % 5 == 0:  # a world sampled for search, from the same generator
                new = rules.determinize(new, np.random.default_rng(moves))
                old = oracle.determinize(old, np.random.default_rng(moves))
            if seed % 2:
                new, new_mask = rules.play(new, action, None, skip_forced=True)
                old, old_mask = oracle_step(old, action, skip_forced=True)
                assert np.array_equal(new_mask, old_mask)
            else:
                new, old = rules.apply(new, action), oracle.apply(old, action)
            moves += 1
            assert_same_game(new, old, f"seed {seed} move {moves}")
        assert_same_game(rules.forfeit(new), oracle.forfeit(old), f"seed {seed} forfeited")
    assert moves > 20_000


def test_the_vector_loops_are_the_single_game_functions():
    # Rows of games in every phase: the compiled loops over rows give what the functions give on each game alone.
    rng = np.random.default_rng(7)
    games = []
    for seed in range(300):
        s = rules.new_game(np.random.default_rng(seed), jokers=int(seed % 3))
        for _ in range(rng.integers(0, 40)):
            legal = np.flatnonzero(rules.legal_mask(s))
            if not len(legal):
                break
            s = rules.apply(s, int(rng.choice(legal)))
        games.append(s)
    data = np.stack([s.data for s in games])
    jokers = np.array([s.jokers for s in games])
    masks = np.empty((len(games), rules.NUM_ACTIONS), dtype=bool)
    rules.fill_legal_masks(data, masks)
    observations = np.empty((len(games), rules.OBSERVATION_SIZE), dtype=np.float32)
    rules.fill_observations(data, jokers, observations)
    for k, s in enumerate(games):
        assert np.array_equal(masks[k], rules.legal_mask(s)) and np.array_equal(observations[k], rules.observe(s))
    playing = ~(data[:, rules.AT_PHASE] == rules.OVER)
    actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
    rules.take_actions(data, actions, playing)
    rules.play_forced_rows(data, playing)
    for k, s in enumerate(games):
        expected = rules.play(s, int(actions[k]), None, skip_forced=True)[0] if playing[k] else s
        assert np.array_equal(data[k], expected.data)


def test_the_rules_pass_as_plain_python():
    # What coverage and a debugger see: the same functions, not compiled.
    here = Path(__file__).parent
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                             str(here / "test_dead_center_rules.py")],
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in result.stdout
