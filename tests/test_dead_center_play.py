"""Dead Center under random play: invariants after every step, and what the player may see."""

import gymnasium as gym
import numpy as np
import pytest
from helpers import random_legal

from tabletop_gym.envs.dead_center import rules

ENV_ID = "Tabletop/DeadCenter-v0"


# The place a zombie's card has for each slot state.
PLACE_OF_SLOT_STATE = np.array([rules.FACE_DOWN, rules.FACE_UP, rules.KILLED], dtype=np.int8)
PILES = np.arange(rules.NUM_PILES)
ZOMBIES = np.sort(rules.ZOMBIE_CARDS)
NUM_PLACES = len(rules.PLACE_NAMES)


def check_invariants(s: rules.State, info: dict, terminated: bool) -> None:
    top, drawn, phase = int(s.top), int(s.drawn), s.phase
    # Every card of the game is in exactly one place (cards beyond the variant's jokers are out of play),
    # and the draw pile, the piles, the drawn card and the slots agree with the places.
    count = np.bincount(s.place, minlength=NUM_PLACES)
    in_game = 52 + s.jokers
    assert count[rules.OUT_OF_PLAY] == 54 - in_game and (s.place[in_game:] == rules.OUT_OF_PLAY).all()
    # The draw pile holds each card placed in it exactly once.
    assert (np.bincount(s.deck[top:s.end], minlength=54) == (s.place == rules.DECK)).all()
    assert s.end == rules.MAX_DECK - 2 + s.jokers
    assert (count[:rules.NUM_PILES] == s.pile_size).all() and (s.place[s.pile_top] == PILES).all()
    assert count[rules.DRAWN] == (drawn >= 0) and (drawn < 0 or s.place[drawn] == rules.DRAWN)
    # Each turn draws one card and plays it; the zombies stay on their slots.
    assert int(s.pile_size.sum()) == rules.CABIN_SIZE + top - (drawn >= 0)
    assert (np.sort(s.slot_card) == ZOMBIES).all()
    assert (s.place[s.slot_card] == PLACE_OF_SLOT_STATE[s.slot_state]).all()
    assert s.kills == count[rules.KILLED] <= 12 and s.face_down == count[rules.FACE_DOWN]
    # One card drawn per turn, and a reveal before each draw while any zombie is face down.
    drawn_this_turn = phase == rules.PLAY or phase == rules.KILL or s.result in (rules.UNPLAYABLE, rules.WON)
    assert top == s.turn - 1 + drawn_this_turn and 12 - s.face_down == min(top, 12)
    mask = info["action_mask"]
    if phase == rules.OVER:
        assert terminated and mask.all()  # no action is legal; every one is offered to a masked sampler
        assert info["won"] == (s.result == rules.WON) == (s.kills == 12) and info["kills"] == s.kills
        assert info["score"] == (s.end - top if info["won"] else 0)
        if s.result == rules.UNPLAYABLE:
            assert not rules.ACCEPTS[drawn, s.pile_top].any()
        if s.result == rules.DECK_EMPTY:
            assert top == s.end and s.face_down == 0
        return
    assert not terminated and s.result == rules.PLAYING
    legal = np.flatnonzero(mask)
    assert legal.size and (drawn >= 0) == (phase == rules.PLAY) and (s.played >= 0) == (phase == rules.KILL)
    if phase == rules.REVEAL:
        assert legal.tolist() == np.flatnonzero(s.slot_state == rules.DOWN).tolist()
    elif phase == rules.PLAY:
        assert legal.tolist() == (rules.A_PLAY + np.flatnonzero(rules.ACCEPTS[drawn, s.pile_top])).tolist()
    else:
        slots = legal - rules.A_KILL
        assert slots.min() >= 0 and len(slots) <= 2 and (rules.ATTACK_PILE[slots] == s.played).all()
        assert (s.slot_state[slots] == rules.UP).all()


def random_games(env, seeds, rng):
    """Play random legal games, checking the invariants after every step; the final infos."""
    finals = []
    for seed in seeds:
        _, info = env.reset(seed=seed)
        check_invariants(env.state, info, False)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            assert np.array_equal(mask, info["action_mask"].astype(bool))
            _, _, terminated, truncated, info = env.step(random_legal(rng, mask))
            assert not truncated
            check_invariants(env.state, info, terminated)
        finals.append(info)
    return finals


def test_random_play_keeps_the_invariants():
    finals = random_games(gym.make(ENV_ID).unwrapped, range(2000), np.random.default_rng(0))
    results = {rules.RESULT_NAMES[info["result"]] for info in finals}
    assert {"unplayable", "deck_empty"} <= results <= {"unplayable", "deck_empty", "won"}
    # Random play almost never wins, yet it gets well on the way.
    assert sum(info["won"] for info in finals) < 20 and max(info["kills"] for info in finals) >= 8


@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_random_play_with_every_decision_offered_in_each_joker_variant(jokers):
    env = gym.make(ENV_ID, jokers=jokers, skip_forced=False).unwrapped
    finals = random_games(env, range(10_000, 10_300), np.random.default_rng(jokers))
    assert {rules.RESULT_NAMES[info["result"]] for info in finals} >= {"unplayable", "deck_empty"}


def _play_a_little(env, rng, seed):
    _, info = env.reset(seed=seed)
    for _ in range(int(rng.integers(0, 40))):
        _, _, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated:
            break
    return env.state


def test_states_that_differ_only_in_what_is_unseen_look_the_same():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(3)
    hidden_changes = 0
    for seed in range(300):
        s = _play_a_little(env, rng, seed)
        other = s.copy()
        rng.shuffle(other.deck[other.top:other.end])
        down = np.flatnonzero(other.slot_state == rules.DOWN)
        other.slot_card[down] = rng.permutation(other.slot_card[down])
        hidden_changes += not other.equals(s)
        assert np.array_equal(rules.observe(other), rules.observe(s))
        assert rules.describe(other) == rules.describe(s)
        assert np.array_equal(rules.legal_mask(other), rules.legal_mask(s))
        assert env.render_text(other) == env.render_text(s)
    assert hidden_changes > 250


def test_the_observation_changes_when_a_seen_card_changes():
    env = gym.make(ENV_ID).unwrapped
    env.reset(seed=0)
    s = env.state
    other = s.copy()
    other.pile_top[0], other.deck[other.top] = other.deck[other.top], other.pile_top[0]
    assert not np.array_equal(rules.observe(other), rules.observe(s))


def test_determinize_keeps_what_was_seen_and_resamples_the_unseen():
    env = gym.make(ENV_ID).unwrapped
    rng = np.random.default_rng(5)
    deck_changed = zombies_changed = 0
    for seed in range(200):
        s = _play_a_little(env, rng, seed)
        guess = env.determinize(rng).state
        assert np.array_equal(rules.observe(guess), rules.observe(s))
        assert rules.describe(guess) == rules.describe(s)
        assert sorted(guess.deck[guess.top:guess.end]) == sorted(s.deck[s.top:s.end])
        down = s.slot_state == rules.DOWN
        assert np.array_equal(guess.slot_card[~down], s.slot_card[~down])
        assert sorted(guess.slot_card[down]) == sorted(s.slot_card[down])
        deck_changed += not np.array_equal(guess.deck, s.deck)
        zombies_changed += not np.array_equal(guess.slot_card, s.slot_card)
    assert deck_changed > 150 and zombies_changed > 50


def test_observation_fields_name_every_entry_and_bound_it():
    assert len(rules.OBSERVATION_FIELDS) == rules.OBSERVATION_SIZE == 261
    names = [name for name, _ in rules.OBSERVATION_FIELDS]
    assert len(set(names)) == len(names)
    assert names.index("slot_T0_down") == 54 and names.index("drawn_present") == 174
    assert names.index("phase_reveal") == 181 and names.index("played_pile_0") == 185
    assert names.index("deck_size") == 194 and names.index("unseen_AS") == 198
    assert names.index("unseen_jokers") == 250 and names.index("unseen_value_10") == 260
