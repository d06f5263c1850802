"""Splendor's PettingZoo AEC env: PettingZoo's own API tests, seeding, illegal actions, cloning and saving."""

import json
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from helpers import random_legal, same
from pettingzoo.test import api_test, parallel_api_test, seed_test

from tabletop_gym.envs import splendor_v0
from tabletop_gym.envs.core.errors import IllegalActionError
from tabletop_gym.envs.splendor import rules

PLAYERS = [2, 3, 4]


# Warnings PettingZoo's tests give every env with a dict observation whose name is not on their list of
# classic games, and the env's own warning for the option api_test passes on purpose.
EXPECTED_WARNINGS = ("Observation space for each agent probably should be gymnasium.spaces.box",
                     "Observation is not a NumPy array",
                     "unknown reset option(s) 'options' ignored")


def checked(test, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        test(*args, **kwargs)
    unexpected = [str(w.message) for w in caught if not str(w.message).startswith(EXPECTED_WARNINGS)]
    assert unexpected == []


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_api_test(num_players):
    checked(api_test, splendor_v0.env(num_players=num_players), num_cycles=300)
    checked(api_test, splendor_v0.raw_env(num_players=num_players, skip_forced=False), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_seed_test(num_players):
    checked(seed_test, lambda: splendor_v0.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_parallel_api_test(num_players):
    checked(parallel_api_test, splendor_v0.parallel_env(num_players=num_players), num_cycles=300)


def test_max_cycles_test_does_not_apply_and_max_rounds_truncates_instead():
    """pettingzoo.test.max_cycles_test samples unmasked actions for every agent, which in a game with
    masked actions ends the game by an illegal move at once (PettingZoo's classic games do not run it).
    Its property holds for max_rounds: after exactly that many rounds every agent is truncated."""
    rng = np.random.default_rng(0)
    for num_players in PLAYERS:
        env = splendor_v0.env(num_players=num_players, max_rounds=4)
        env.reset(seed=1)
        main_actions = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                assert truncated and not terminated
                env.step(None)
                continue
            main_actions[agent] += env.unwrapped.state_.phase == rules.MAIN
            env.step(random_legal(rng, obs["action_mask"]))
        assert set(main_actions.values()) == {4}
        assert env.unwrapped.describe()["result"] == "truncated"


def test_agents_spaces_and_metadata():
    env = splendor_v0.env(num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    space = env.observation_space("player_1")
    assert space is env.observation_space("player_1") and env.action_space("player_1") is env.action_space("player_1")
    assert space["observation"].shape == (rules.OBSERVATION_SIZE,) and space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8 and env.action_space("player_0").n == 72
    assert env.unwrapped.metadata["name"] == "splendor_v0" and str(env) == "splendor_v0"
    assert len(env.unwrapped.action_names) == 72 and env.unwrapped.action_names[-1] == "pass"


def test_the_observation_is_from_the_agents_own_seat():
    env = splendor_v0.raw_env(num_players=3)
    env.reset(seed=0)
    env.step(rules.ACTION_NAMES.index("take_WUG"))  # player 0 now holds W U G
    fields = [name for name, _ in rules.OBSERVATION_FIELDS]
    for agent, relative in (("player_0", "seat0"), ("player_1", "seat2"), ("player_2", "seat1")):
        obs = dict(zip(fields, env.observe(agent)["observation"]))
        assert obs[f"{relative}_tokens_W"] == 1 and obs[f"{relative}_tokens_R"] == 0
        assert obs[f"my_seat_{agent[-1]}"] == 1
    assert dict(zip(fields, env.observe("player_1")["observation"]))["to_play_seat0"] == 1


def trace_for(seed, num_players=2):
    """Agents, observations, masks and rewards of a random legal game."""
    env = splendor_v0.env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    out = []
    for agent in env.agent_iter(300):
        obs, reward, terminated, truncated, _ = env.last()
        out.append([agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward])
        env.step(None if terminated or truncated else random_legal(rng, obs["action_mask"]))
    return out


def test_same_seed_same_game_also_in_a_fresh_process():
    here = trace_for(5, num_players=3)
    assert here == trace_for(5, num_players=3) and here != trace_for(6, num_players=3)
    script = (f"import json, sys; sys.path.insert(0, {os.path.dirname(__file__)!r});"
              "from test_splendor_aec import trace_for; print(json.dumps(trace_for(5, num_players=3)))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == json.loads(json.dumps(here))


def test_an_illegal_action_raises_in_raise_mode_and_changes_nothing():
    env = splendor_v0.env(illegal_action="raise")
    env.reset(seed=3)
    mask = env.last()[0]["action_mask"]
    before_table, before_state = env.unwrapped.describe(), env.unwrapped.get_state()
    for action in [*np.flatnonzero(mask == 0)[:3], 72, -1, None, 2.0]:
        with pytest.raises(IllegalActionError, match="legal now: take_WUG"):
            env.step(action)
        assert env.unwrapped.describe() == before_table and same(env.unwrapped.get_state(), before_state)
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("action", ["illegal", 72, None])
def test_an_illegal_action_ends_the_game_with_minus_one_for_the_offender(action):
    env = splendor_v0.env(num_players=3)
    env.reset(seed=3)
    env.step(rules.ACTION_NAMES.index("take_WUG"))
    if action == "illegal":
        action = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    env.step(action)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert env.infos["player_1"]["illegal_action"] and "illegal_action" not in env.infos["player_0"]
    assert env.unwrapped.describe()["result"] == "forfeited" and env.unwrapped.describe()["winners"] == []
    rewards = {}
    for agent in env.agent_iter():
        rewards[agent] = env.last()[1]
        assert not env.last()[0]["action_mask"].any()
        env.step(None)
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0} and env.agents == []


def test_numpy_actions_are_accepted():
    env = splendor_v0.env()
    env.reset(seed=0)
    env.step(np.int32(0))
    env.step(np.array(1))
    assert env.unwrapped.describe()["round"] == 2


def test_unknown_reset_options_are_ignored_with_a_warning():
    env = splendor_v0.raw_env()
    with pytest.warns(UserWarning, match="unknown reset option\\(s\\) 'shuffle' ignored; this game takes: deck"):
        env.reset(seed=0, options={"shuffle": True})


def test_clone_get_state_set_state_and_pickle_round_trip():
    for make in (splendor_v0.raw_env, splendor_v0.env):
        env = make(num_players=3)
        env.reset(seed=21)
        rng = np.random.default_rng(0)
        for _ in range(10):
            env.step(random_legal(rng, env.last()[0]["action_mask"]))
        raw = env.unwrapped
        saved = raw.get_state()
        twin = raw.clone()
        restored = pickle.loads(pickle.dumps(env)).unwrapped
        actions, future = [], []
        while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            action = random_legal(rng, raw.observe(raw.agent_selection)["action_mask"])
            actions.append(action)
            raw.step(action)
            future.append((raw.agent_selection, raw.observe(raw.agent_selection)["observation"].tolist()))
        final = raw.describe()
        for other in (twin, restored):
            replay = []
            for action in actions:
                other.step(action)
                replay.append((other.agent_selection, other.observe(other.agent_selection)["observation"].tolist()))
            assert replay == future and other.describe() == final and other.rewards == raw.rewards
        raw.set_state(saved)
        for action in actions:
            raw.step(action)
        assert raw.describe() == final


def test_clone_is_independent():
    env = splendor_v0.raw_env()
    env.reset(seed=2)
    table = env.describe()
    twin = env.clone()
    twin.step(0)
    assert env.describe() == table and twin.describe() != table
    assert env.agent_selection == "player_0" and twin.agent_selection == "player_1"
    copy = env.state_.copy()
    arrays = [name for name, value in vars(env.state_).items() if isinstance(value, np.ndarray)]
    assert len(arrays) == 14 and not any(np.shares_memory(getattr(copy, a), getattr(env.state_, a)) for a in arrays)


def test_determinize_hides_nothing_the_agent_saw():
    env = splendor_v0.raw_env()
    env.reset(seed=0, options={"deck": {"tier2": [40, 41, 42, 43, 50]}})
    env.step(rules.ACTION_NAMES.index("reserve_t2_deck"))  # player 0 reserves card 50 blind
    rng = np.random.default_rng(0)
    for _ in range(20):
        guess = env.determinize(rng)  # as player 1 (to act) sees it: card 50 may be anything unseen
        assert np.array_equal(guess.observe("player_1")["observation"], env.observe("player_1")["observation"])
    assert {int(env.determinize(rng).state_.reserved[0, 0]) for _ in range(30)} != {50}
    assert {int(env.determinize(rng, seat=0).state_.reserved[0, 0]) for _ in range(10)} == {50}


def test_render_ansi_and_human(capsys):
    env = splendor_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "bank: W4 U4 G4 R4 K4 Y5" in text and "player_1" in text and "tier 3 (deck 16)" in text
    human = splendor_v0.env(num_players=2, render_mode="human")
    human.reset(seed=0)
    assert capsys.readouterr().out.strip() == text.strip()
    human.step(0)
    assert "player_0: 0 points" in capsys.readouterr().out


def test_the_wrapper_stack_is_thin():
    env = splendor_v0.env()
    assert type(env).__name__ == "OrderEnforcingWrapper" and type(env.env) is splendor_v0.raw_env
