"""Dungeon Solitaire's native vector env plays exactly the single env's games, down each of its own paths.

The vector env and N single envs are played side by side (``helpers.SideBySide``, as tests/test_vector.py does for
every game), the full state of every game compared after every step. The batched rules take shortcuts that the
single env does not: a turn's cards up to its encounter, a door's discards and a run of forced draws are turned over
in one go where no ace needs a ruling (the rest go to ``rules.py`` one game at a time), and the last few games of a
long forced run are played on by ``rules.py`` itself (``batch.FEW_GAMES``). Each path is played alone here, and the
rare endings and rulings are counted and required.
"""

from collections import Counter

import numpy as np
import pytest
from helpers import SideBySide, random_actions

from tabletop_gym.envs.dungeon_solitaire import batch, rules

ENV_ID = "Tabletop/DungeonSolitaire-v0"


def play_side_by_side(num_envs, steps, seed, counts, **options):
    """Random legal play in the vector env and num_envs single envs; tallies how the games ended."""
    both = SideBySide(ENV_ID, num_envs, seed, **options)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        for i, info in both.step(random_actions(rng, both.masks)):
            counts["result_" + info["result"]] += 1
            counts["scroll_used"] += bool(both.singles[i].state.scroll_used)


@pytest.fixture
def counts(monkeypatch):
    """Counts the rulings the batched rules leave to ``rules.py`` (one game at a time)."""
    tally = Counter()
    by_the_rules = batch._by_the_rules

    def counted(b, rows, play):
        tally["by_the_rules"] += len(rows)
        by_the_rules(b, rows, play)

    monkeypatch.setattr(batch, "_by_the_rules", counted)
    return tally


@pytest.mark.parametrize("few_games", [0, 16, 10**6], ids=["arrays_only", "as_shipped", "rules_only"])
def test_forced_runs_by_arrays_and_by_the_rules_play_the_same_games(few_games, counts, monkeypatch):
    monkeypatch.setattr(batch, "FEW_GAMES", few_games)
    for seed in (0, 100):
        play_side_by_side(64, 150, seed, counts)
    assert counts["result_escaped"] and counts["result_killed"] and counts["result_lost_in_the_dark"]
    assert counts["scroll_used"]
    if few_games < 10**6:
        assert counts["by_the_rules"]  # aces with no torch left, seen in the arrays' paths


def test_every_decision_returned_plays_the_same_games(counts):
    play_side_by_side(32, 300, 7, counts, skip_forced=False, min_delve_turns_before_retreat=1)
    assert counts["result_escaped"] and counts["result_lost_in_the_dark"]


def test_forced_actions_agree_with_the_legal_masks():
    """``batch._forced_actions`` (what ``play_forced`` asks) is the one legal action where there is one."""
    both = SideBySide(ENV_ID, 256, 3, skip_forced=False)
    rng = np.random.default_rng(3)
    for _ in range(60):
        both.step(random_actions(rng, both.masks))
        b = both.vector.unwrapped.state
        masks = batch.legal_masks(b)
        only = np.where(masks.sum(axis=1) == 1, masks.argmax(axis=1), -1)
        assert np.array_equal(batch._forced_actions(b), only)


def test_drawn_decks_are_the_single_envs_shuffles():
    """A deal shuffles each game's deck in place with its own generator: the single env's deal, card for card."""
    both = SideBySide(ENV_ID, 8, 11)
    for i, single in enumerate(both.singles):
        assert np.array_equal(both.vector.unwrapped.state.deck[i], single.state.deck)
    assert len({tuple(single.state.deck) for single in both.singles}) == 8
    assert rules.DECK_CARDS.tolist() == sorted(rules.DECK_CARDS.tolist())  # the deal shuffles the sorted cards
