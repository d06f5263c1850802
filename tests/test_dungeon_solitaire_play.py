"""Dungeon Solitaire under random play: invariants after every step, and what the player may see."""

import gymnasium as gym
import numpy as np
import pytest
from helpers import random_legal

from tabletop_gym.envs.dungeon_solitaire import rules

ENV_ID = "Tabletop/DungeonSolitaire-v0"
PLACES = (rules.DECK, rules.HAND, rules.TURN, rules.TORCH_ROW, rules.DISCARDS, rules.USED)


def check_invariants(s: rules.State, info: dict, terminated: bool) -> None:
    draw_pile = s.deck[s.top:s.end]
    # Every one of the 44 cards is in exactly one place, and the deck order agrees with the places.
    assert sorted(np.flatnonzero(s.place == rules.DECK)) == sorted(draw_pile.tolist())
    assert len(set(draw_pile.tolist())) == len(draw_pile)
    assert sum(int(np.sum(s.place == p)) for p in PLACES) == 44
    assert np.all(s.place[rules.DECK_CARDS] != rules.OUT_OF_PLAY)
    assert 0 <= s.hp <= rules.MAX_HP and 0 <= s.torches <= rules.MAX_TORCHES
    aces_out = sum(s.place[rules.card(rules.ACE, suit)] == rules.TORCH_ROW for suit in range(4))
    assert aces_out == s.torches
    assert (s.place[rules.JOKER] == rules.TORCH_ROW) == s.scroll_used
    if s.stage == rules.OVER:
        assert terminated
        assert (s.hp == 0) == (s.result == rules.KILLED)
        assert (s.torches == 4) == (s.result == rules.LOST_IN_THE_DARK)
    else:
        assert not terminated and info["action_mask"].any()
        assert s.result == rules.PLAYING
        # While the game lives the deck always holds an ace (RULES.md: it cannot run out).
        assert any(rules.RANK[c] == rules.ACE for c in draw_pile)
        assert (s.encounter >= 0) == (s.step in (rules.ENCOUNTER, rules.DOOR_FAILED, rules.DAMAGE))
        assert (s.pending_damage > 0) == (s.step == rules.DAMAGE)
        assert (s.pending_discards > 0) == (s.step == rules.DOOR_FAILED)
        if s.stage == rules.RETREAT:
            assert 1 <= s.retreat_turns <= s.delve_turns - 1


@pytest.mark.parametrize("skip_forced", [True, False])
def test_random_play_keeps_the_invariants(skip_forced):
    env = gym.make(ENV_ID, skip_forced=skip_forced).unwrapped
    rng = np.random.default_rng(0)
    results = set()
    for seed in range(2000):
        _, info = env.reset(seed=seed)
        check_invariants(env.state, info, False)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            assert np.array_equal(mask, info["action_mask"].astype(bool))
            _, _, terminated, truncated, info = env.step(random_legal(rng, mask))
            assert not truncated
            check_invariants(env.state, info, terminated)
        result = rules.RESULT_NAMES[info["result"]]
        results.add(result)
        assert info["score"] == (rules.treasure_points(env.state) if result == "escaped" else 0)
    assert results == {"escaped", "killed", "lost_in_the_dark"}


def test_decks_that_differ_only_in_unseen_order_look_the_same():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(3)
    for seed in range(200):
        _, info = env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 8))):
            _, _, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
            if terminated:
                break
        s = env.state
        other = s.copy()
        unseen = other.deck[other.top:other.end]
        if s.scroll_used:
            unseen = unseen[:-1]  # the ace the player saw go under the deck stays where it is
        rng.shuffle(unseen)
        assert np.array_equal(rules.observe(other), rules.observe(s))
        assert rules.describe(other) == rules.describe(s)
        assert np.array_equal(rules.legal_mask(other), rules.legal_mask(s))


def test_the_observation_counts_unseen_cards_by_rank():
    env = gym.make(ENV_ID).unwrapped
    obs, _ = env.reset(seed=0)
    fields = [name for name, _ in rules.OBSERVATION_FIELDS]
    counts = {f"unseen_rank_{r}": obs[fields.index(f"unseen_rank_{r}")] for r in range(1, 14)}
    assert counts["unseen_rank_1"] == 4 and counts["unseen_rank_5"] == 3 and counts["unseen_rank_13"] == 4
    assert obs[fields.index("unseen_joker")] == 1 and obs[fields.index("deck_size")] == 44
    assert obs[fields.index("hp")] == 9 and obs[fields.index("step_start")] == 1


def test_determinize_resamples_only_what_is_unseen():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(5)
    changed = 0
    for seed in range(100):
        _, info = env.reset(seed=seed)
        for _ in range(int(rng.integers(0, 6))):
            _, _, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
            if terminated:
                break
        guess = env.determinize(rng)
        assert np.array_equal(rules.observe(guess.state), rules.observe(env.state))
        assert sorted(guess.state.deck[guess.state.top:guess.state.end]) == sorted(
            env.state.deck[env.state.top:env.state.end])
        changed += not np.array_equal(guess.state.deck, env.state.deck)
    assert changed > 90
