"""Splendor's PettingZoo AEC env: PettingZoo's own API tests, seeding, illegal actions, cloning and saving."""

import json
import os
import pickle
import re
import subprocess
import sys
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from gymnasium import spaces
from helpers import random_legal, same
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test

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


def test_max_rounds_truncates_after_exactly_that_many_rounds():
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


class LegalSamples(spaces.Discrete):
    """The action space of an agent whose ``sample()`` is one of its legal actions (none: 0, ignored). PettingZoo's
    ``max_cycles_test`` plays ``action_space(agent).sample()``, which in a game with masked actions would end the
    game by an illegal move at once; with this space its random play is legal, as a masked game's is."""

    def __init__(self, env, agent, seed):
        super().__init__(rules.NUM_ACTIONS, seed=seed)
        self.env, self.agent = env, agent

    def sample(self, mask=None, probability=None):
        return super().sample(mask=self.env.observe(self.agent)["action_mask"])


def legal_sampling(env, seed):
    """``env`` (AEC or parallel) with legal-sampling action spaces, its generator seeded with ``seed`` (the test
    resets without a seed, which goes on from it)."""
    raw = env.unwrapped
    raw.action_spaces = {agent: LegalSamples(raw, agent, seed + k) for k, agent in enumerate(raw.possible_agents)}
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_max_cycles_test(num_players):
    """PettingZoo's own test: ``parallel_env(max_cycles=4)`` ends after 4 of its steps, and in ``env(max_cycles=4)``
    every agent takes 4 steps. Its count takes one decision per turn; a turn with token returns (further decisions
    of the same agent) in the first cycles would break that count, which the seeded deals here do not have
    (the next test holds max_cycles in every game)."""
    module = SimpleNamespace(
        env=lambda **kwargs: legal_sampling(splendor_v0.env(num_players=num_players, **kwargs), seed=num_players),
        parallel_env=lambda **kwargs: legal_sampling(splendor_v0.parallel_env(num_players=num_players, **kwargs),
                                                     seed=num_players))
    checked(max_cycles_test, module)


@pytest.mark.parametrize("make, steps_per_cycle", [(splendor_v0.env, None), (splendor_v0.raw_env, None),
                                                   (splendor_v0.parallel_env, 1)])
def test_max_cycles_truncates_after_that_many_cycles_of_agent_steps(make, steps_per_cycle):
    """A cycle is one step of every agent (one step of the parallel view): the game is truncated after exactly
    max_cycles cycles of steps, token returns and noble choices counted, unless it ended first."""
    rng = np.random.default_rng(3)
    lengths = set()
    for game in range(24):
        num_players, max_cycles = PLAYERS[game % 3], 1 + game % 8
        env = make(num_players=num_players, max_cycles=max_cycles)
        raw = env.unwrapped
        raw.reset(seed=game)
        limit = max_cycles * (steps_per_cycle or num_players)
        steps, later = 0, []
        while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            if steps == limit // 2:  # the count goes with the saved state and with a clone
                saved, twin = raw.get_state(), raw.clone()
            action = random_legal(rng, raw.action_mask())
            if steps >= limit // 2:
                later.append(action)
            raw.step(action)
            steps += 1
        assert steps == limit and all(raw.truncations.values()) and not any(raw.terminations.values())
        assert raw.describe()["result"] == "truncated" and not raw.action_mask().any()
        assert all(raw.RESULT_NAMES[info["result"]] == "truncated" and not info["won"] for info in raw.infos.values())
        # No legal action is left: all zeros in the AEC env, all ones (every action ignored) in the parallel view.
        idle = 1 if make is splendor_v0.parallel_env else 0
        assert all((raw.observe(agent)["action_mask"] == idle).all() for agent in raw.agents)
        assert raw.rewards == dict.fromkeys(raw.agents, 0.0)
        restored = make(num_players=num_players, max_cycles=max_cycles).unwrapped
        restored.set_state(saved)
        for other in (twin, restored):
            for action in later:
                assert not other.truncations[other.agent_selection]
                other.step(action)
            assert all(other.truncations.values()) and other.describe() == raw.describe()
        lengths.add(steps)
    assert len(lengths) > 5


def test_max_cycles_leaves_a_shorter_game_alone_and_must_be_a_positive_integer():
    env = splendor_v0.raw_env(max_cycles=1000)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(random_legal(rng, env.action_mask()))
    assert all(env.terminations.values()) and env.describe()["result"] == "finished"
    for bad in (0, -1, 2.0, "4", True):
        for make in (splendor_v0.env, splendor_v0.raw_env, splendor_v0.parallel_env):
            with pytest.raises(ValueError, match=re.escape(f"max_cycles must be None or an integer >= 1, got {bad!r}")):
                make(max_cycles=bad)


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
    assert env.infos["player_1"]["illegal_action"] and not env.infos["player_0"]["illegal_action"]
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
    # The state's arrays: its parts of more than one number (views of the one flat array it holds).
    arrays = [name for name, shape, *_ in type(env.state_).PARTS if shape]
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


# ------------------------------------------------------------------ refused calls change nothing


def snapshot(raw):
    return raw.get_state(), raw.describe(), raw.np_random.bit_generator.state, raw.action_mask()


def unchanged(raw, before) -> bool:
    state, table, generator, mask = before
    return (same(raw.get_state(), state) and raw.describe() == table and raw.np_random.bit_generator.state == generator
            and np.array_equal(raw.action_mask(), mask))


def bad_saved_states(raw):
    """(description, saved, error type, message) for inputs set_state must refuse, made from ``raw``'s own."""
    import gymnasium as gym

    import tabletop_gym.envs  # noqa: F401  (registers the games)

    good = raw.get_state()
    size = rules.State.SIZE

    def changed(**changes):
        saved = {**good, "game": good["game"].copy()}
        for key, value in changes.items():
            if key.startswith("game."):
                setattr(saved["game"], key[5:], value)
            elif value is KeyError:
                del saved[key]
            else:
                saved[key] = value
        return saved

    two = splendor_v0.raw_env(num_players=2)
    two.reset(seed=0)
    royal = gym.make("Tabletop/RoyalAssassin-v0").unwrapped
    royal.reset(seed=0)
    mt = np.random.Generator(np.random.MT19937(0)).bit_generator.state
    return [
        ("None", None, TypeError, "set_state takes the dict get_state() returns, got NoneType"),
        ("a list", [good], TypeError, "set_state takes the dict get_state() returns, got list"),
        ("{}", {}, ValueError, "set_state's dict lacks 'game' and 'rng'"),
        ("no agents", changed(agents=KeyError), ValueError, "set_state's dict lacks the agents' bookkeeping 'agents'"),
        ("no rng", changed(rng=KeyError), ValueError, "set_state's dict lacks 'rng'"),
        ("another game", royal.get_state(), TypeError, "the saved 'game' must be a tabletop_gym.envs.splendor"),
        ("two players", two.get_state(), ValueError, "the saved game has num_players=2, but this env was made "
                                                     "with num_players=3"),
        ("max_rounds", changed(**{"game.max_rounds": 50}), ValueError, "the saved game has max_rounds=50"),
        # The game is one flat int64 array (its parts are views of it): a short one, and one of floats.
        ("a short array", changed(**{"game.data": np.zeros(size - 1, np.int64)}), ValueError,
         f"'data' must be an array of shape ({size},) and dtype int64"),
        ("a float array", changed(**{"game.data": good["game"].data.astype(float)}), ValueError,
         f"'data' must be an array of shape ({size},) and dtype int64, got an array of shape ({size},) and dtype "
         "float64"),
        ("seat 3 to play", changed(**{"game.current": 3}), ValueError, "has current=3; in a 3-player game it is 0-2"),
        ("rng 'x'", changed(rng="x"), TypeError, "the saved 'rng' must be a PCG64 bit-generator state"),
        ("rng MT19937", changed(rng=mt), ValueError, "the saved 'rng' must be a PCG64 bit-generator state, "
                                                     "got one of 'MT19937'"),
        ("unknown agent", changed(agents=["player_0", "player_7"]), ValueError, "saved['agents'] must be a list"),
        ("rewards", changed(rewards={"player_0": 0.0}), ValueError, "saved['rewards'] must be a dict over the agents"),
        ("selection", changed(agent_selection="player_9"), ValueError, "saved['agent_selection'] must be one of"),
        ("out of turn", changed(agent_selection="player_2"), ValueError, "but the game is at player_1's decision"),
        ("steps", changed(_steps=-1), ValueError, "saved['_steps'] must be an integer >= 0"),
    ]


def test_set_state_checks_the_whole_input_and_a_refused_one_changes_nothing():
    raw = splendor_v0.raw_env(num_players=3)
    raw.reset(seed=4)
    raw.step(rules.ACTION_NAMES.index("take_WUG"))
    before = snapshot(raw)
    for description, saved, error, message in bad_saved_states(raw):
        with pytest.raises(error, match=re.escape(message)):
            raw.set_state(saved)
        assert unchanged(raw, before), description
        assert [raw.observe(agent)["observation"].shape for agent in raw.possible_agents] == [(493,)] * 3
    fresh = splendor_v0.raw_env(num_players=3)
    fresh.set_state(before[0])  # a good one goes into a fresh env too
    assert fresh.describe() == raw.describe() and fresh.agent_selection == "player_1"


def test_a_refused_reset_changes_nothing_not_even_the_generator_when_seeded():
    raw = splendor_v0.raw_env(num_players=2)
    raw.reset(seed=4)
    raw.step(rules.ACTION_NAMES.index("take_WUG"))
    twin = raw.clone()
    before = snapshot(raw)
    for kwargs, error, message in [
        ({"seed": 7, "options": {"deck": {"tier1": [99]}}}, ValueError, "card 99 is not a tier-1 card"),
        ({"options": {"deck": {"tier1": [99]}}}, ValueError, "card 99 is not a tier-1 card"),
        ({"seed": 7, "options": "deck"}, TypeError, "options must be a dict of reset options (this game takes: "
                                                    "deck), got 'deck'"),
        ({"options": 5}, TypeError, "options must be a dict of reset options"),
        ({"seed": "x"}, Exception, "Seed must be"),
    ]:
        with pytest.raises(error, match=re.escape(message)):
            raw.reset(**kwargs)
        assert unchanged(raw, before), kwargs
    # The generator is where it was: the next unseeded deal is the one the clone taken before deals.
    raw.reset()
    twin.reset()
    assert raw.describe() == twin.describe()


def test_calls_before_reset_say_to_call_reset_first():
    from gymnasium.error import ResetNeeded

    raw = splendor_v0.raw_env()
    for name, args in [("step", (0,)), ("observe", ("player_0",)), ("describe", ()), ("action_mask", ()),
                       ("get_state", ()), ("legal_action_names", ()), ("determinize", (np.random.default_rng(0),))]:
        with pytest.raises(ResetNeeded, match=re.escape(f"call reset() before {name}()")):
            getattr(raw, name)(*args)
    assert raw.render() is None and raw.state_ is None


def test_unknown_agents_and_seats_are_named():
    raw = splendor_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    for call in (raw.observe, raw.action_mask, raw.observation_space, raw.action_space):
        with pytest.raises(ValueError, match=re.escape("agent must be one of player_0, player_1, got 'player_2'")):
            call("player_2")
    for seat in (2, -1, "0", 1.0):
        with pytest.raises(ValueError, match=re.escape(f"seat must be a seat 0-1 or None, got {seat!r}")):
            raw.describe(seat)
        with pytest.raises(ValueError, match=re.escape(f"seat must be a seat 0-1 or None, got {seat!r}")):
            raw.determinize(np.random.default_rng(0), seat=seat)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator, got int"):
        raw.determinize(0)


def test_the_aec_envs_privileged_copies_say_so():
    from tabletop_gym.envs.splendor.aec import raw_env

    for member in (raw_env.clone, raw_env.get_state):
        assert "privileged" in member.__doc__.lower() and "determinize" in member.__doc__, member
