"""Dungeon Solitaire's native vector env plays exactly the single env's games, forced runs included.

The vector env and N single envs are played side by side (``helpers.SideBySide``, as tests/test_vector.py does for
every game), the full state of every game compared after every step. The vector env plays the rules' compiled
functions in loops over its rows, the forced moves included (``rules.play_forced_rows``); the rare endings and the
scroll's ruling are counted and required.
"""

from collections import Counter

import numpy as np
import pytest
from helpers import SideBySide, check_row_loops, random_actions

from tabletop_gym.envs.dungeon_solitaire import rules

ENV_ID = "Tabletop/DungeonSolitaire-v0"


def play_side_by_side(num_envs, steps, seed, counts, **options):
    """Random legal play in the vector env and num_envs single envs; tallies how the games ended."""
    both = SideBySide(ENV_ID, num_envs, seed, **options)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        for i, info in both.step(random_actions(rng, both.masks)):
            counts["result_" + rules.RESULT_NAMES[info["result"]]] += 1
            counts["scroll_used"] += bool(both.singles[i].state.scroll_used)


@pytest.mark.parametrize("seed", [0, 100])
def test_forced_runs_play_the_same_games(seed):
    counts = Counter()
    play_side_by_side(64, 150, seed, counts)
    assert counts["result_escaped"] and counts["result_killed"] and counts["result_lost_in_the_dark"]
    assert counts["scroll_used"]


def test_every_decision_returned_plays_the_same_games():
    counts = Counter()
    play_side_by_side(32, 300, 7, counts, skip_forced=False, min_delve_turns_before_retreat=1)
    assert counts["result_escaped"] and counts["result_lost_in_the_dark"]


def test_forced_moves_leave_every_game_at_a_decision_or_its_end():
    """``rules.play_forced_rows`` (what the vector env plays after each action with ``skip_forced``) stops exactly
    where a game has a choice or is over, and plays only the rows it is given."""
    both = SideBySide(ENV_ID, 256, 3, skip_forced=False)
    rng = np.random.default_rng(3)
    forced_runs = 0
    for _ in range(60):
        both.step(random_actions(rng, both.masks))
        data = both.vector.unwrapped.state.data.copy()
        rows = rng.random(len(data)) < 0.5
        rules.play_forced_rows(data, rows)
        masks = np.empty((len(data), rules.NUM_ACTIONS), dtype=bool)
        rules.fill_legal_masks(data, masks)
        assert not (masks[rows].sum(axis=1) == 1).any()
        assert np.array_equal(data[~rows], both.vector.unwrapped.state.data[~rows])
        forced_runs += int((data[rows] != both.vector.unwrapped.state.data[rows]).any(axis=1).sum())
    assert forced_runs > 100


def test_drawn_decks_are_the_single_envs_shuffles():
    """A deal shuffles each game's deck in place with its own generator: the single env's deal, card for card."""
    both = SideBySide(ENV_ID, 8, 11)
    for i, single in enumerate(both.singles):
        assert np.array_equal(both.vector.unwrapped.take(i).deck, single.state.deck)
    assert len({tuple(single.state.deck) for single in both.singles}) == 8
    assert rules.DECK_CARDS.tolist() == sorted(rules.DECK_CARDS.tolist())  # the deal shuffles the sorted cards


def test_the_vector_loops_are_the_single_game_functions():
    check_row_loops(rules, [{"min_delve_turns_before_retreat": 2}, {"min_delve_turns_before_retreat": 1}])
