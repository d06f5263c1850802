"""The API contract of DESIGN.md, checked on every single-agent game."""

import json
import os
import pickle
import re
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from helpers import random_legal, same

from tabletop_gym.envs import GAMES
from tabletop_gym.envs.core.errors import EpisodeOverError, IllegalActionError

GAME_IDS = [game.id for game in GAMES.values()]


def next_game(env_id):
    """The id of the game after ``env_id`` in the list (the first for a game that is not listed at import)."""
    at = GAME_IDS.index(env_id) + 1 if env_id in GAME_IDS else 0
    return GAME_IDS[at % len(GAME_IDS)]


def rollout(env, seed, steps=200, rng_seed=0):
    """Observations, rewards, flags and masks of a random legal rollout (resetting on episode end)."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed)
    trace = [obs.tolist()]
    for _ in range(steps):
        action = random_legal(rng, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs.tolist(), reward, terminated, truncated, info["action_mask"].tolist()))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append(obs.tolist())
    return trace


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_gymnasium_check_env(env_id):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gym_check_env(gym.make(env_id).unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_stable_baselines3_check_env(env_id):
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make(env_id), warn=True)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_spaces_names_and_masks(env_id):
    env = gym.make(env_id)
    names = env.unwrapped.action_names
    assert isinstance(env.action_space, gym.spaces.Discrete) and len(names) == env.action_space.n
    assert len(set(names)) == len(names)
    assert isinstance(env.observation_space, gym.spaces.Box) and len(env.observation_space.shape) == 1
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=3)
    previous = obs
    for _ in range(300):
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.shape == (len(names),) and mask.any()
        assert info["action_mask"].dtype == np.int8 and np.array_equal(info["action_mask"], mask)
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(random_legal(rng, mask))
        assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
        assert obs is not previous
        previous = obs
        if terminated or truncated:  # no action is legal, and every one is offered, so masked samplers survive
            assert info["action_mask"].all() and env.unwrapped.action_masks().all()
            assert env.unwrapped.legal_action_names() == []
            assert {"won", "score"} <= set(info) and type(info["won"]) is np.bool_
            outcome = env.unwrapped.outcome()
            assert outcome["result"] == env.unwrapped.RESULT_NAMES[info["result"]]
            assert set(info) == {"action_mask", "illegal_action", *outcome}
            assert all(np.array_equal(info[k], v) for k, v in outcome.items() if k not in ("result", "winners"))
            assert env.unwrapped.numeric_outcome().keys() == outcome.keys()
            obs, info = env.reset()
        else:
            assert {"won", "score"} <= set(env.unwrapped.outcome()) and not env.unwrapped.outcome()["won"]


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_same_seed_same_trajectory_also_in_a_fresh_process(env_id):
    here = rollout(gym.make(env_id), seed=11)
    assert here == rollout(gym.make(env_id), seed=11)
    assert here != rollout(gym.make(env_id), seed=12)
    script = (
        f"import json, sys; sys.path.insert(0, {os.path.dirname(__file__)!r});"
        "import gymnasium as gym; from test_contract import rollout;"
        f"print(json.dumps(rollout(gym.make({env_id!r}), seed=11)))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == json.loads(json.dumps(here))


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_illegal_action_raises_and_changes_nothing(env_id):
    env = gym.make(env_id, illegal_action="raise").unwrapped
    obs, info = env.reset(seed=5)
    illegal = np.flatnonzero(~env.action_masks())
    before_table, before_state = env.describe(), env.get_state()
    for action in [*illegal[:3], env.action_space.n, -1]:
        with pytest.raises(IllegalActionError, match="legal now: " + env.legal_action_names()[0]):
            env.step(action)
        assert env.describe() == before_table
        assert same(env.get_state(), before_state)
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_illegal_action_loses_by_default(env_id):
    env = gym.make(env_id)
    _, info = env.reset(seed=5)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and info["illegal_action"] and not info["won"]
    assert reward <= 0.0 and env.unwrapped.action_masks().all() and not env.unwrapped.legal_action_names()
    with pytest.raises(EpisodeOverError):
        env.step(0)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_bad_options_are_rejected_with_a_clear_message(env_id):
    with pytest.raises(ValueError, match="reward must be one of"):
        gym.make(env_id, reward="points")
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        gym.make(env_id, illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode must be one of"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gym.make warns about the unknown mode before the env refuses it
        gym.make(env_id, render_mode="svg")
    with pytest.raises(ValueError, match="skip_forced must be True or False"):
        gym.make(env_id, skip_forced="yes")
    env = gym.make(env_id)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"shuffle": True})
    with pytest.raises(gym.error.ResetNeeded):
        gym.make(env_id).unwrapped.step(0)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_clone_get_state_set_state_and_pickle_round_trip(env_id):
    env = gym.make(env_id).unwrapped
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=21)
    for _ in range(3):
        if not env.legal_action_names():  # the game is over
            break
        env.step(random_legal(rng, env.action_masks()))
    saved = env.get_state()
    twin = env.clone()
    restored = pickle.loads(pickle.dumps(env))
    actions = []
    future = []
    while env.legal_action_names():
        action = random_legal(rng, env.action_masks())
        actions.append(action)
        future.append(env.step(action)[0].tolist())
    for other in (twin, restored):
        assert [other.step(a)[0].tolist() for a in actions] == future
    env.set_state(saved)
    assert [env.step(a)[0].tolist() for a in actions] == future
    assert json.loads(json.dumps(env.describe())) == env.describe()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_clone_is_independent(env_id):
    env = gym.make(env_id).unwrapped
    env.reset(seed=2)
    table = env.describe()
    twin = env.clone()
    twin.step(int(np.flatnonzero(twin.action_masks())[0]))
    assert env.describe() == table


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_render_ansi_and_human(env_id, capsys):
    env = gym.make(env_id, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text.strip()
    human = gym.make(env_id, render_mode="human")
    human.reset(seed=0)
    assert capsys.readouterr().out.strip() == text.strip()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_skip_forced_false_offers_every_decision(env_id):
    env = gym.make(env_id, skip_forced=False)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=4)
    singles = 0
    for _ in range(500):
        singles += int(info["action_mask"].sum() == 1)
        _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated or truncated:
            _, info = env.reset()
    assert singles > 0
    env = gym.make(env_id)
    _, info = env.reset(seed=4)
    for _ in range(500):
        _, _, terminated, truncated, info = env.step(random_legal(rng, info["action_mask"]))
        if terminated or truncated:
            _, info = env.reset()
        else:
            assert info["action_mask"].sum() > 1


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_maskable_ppo_trains_on_the_env_unmodified(env_id):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", gym.make(env_id), n_steps=256, batch_size=64, seed=0, device="cpu")
    model.learn(total_timesteps=1024)
    env = gym.make(env_id)
    obs, info = env.reset(seed=0)
    for _ in range(50):
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        assert info["action_mask"][action]
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()


def test_make_with_module_prefix():
    env = gym.make("tabletop_gym.envs:Tabletop/DungeonSolitaire-v0")
    assert env.unwrapped.spec.id == "Tabletop/DungeonSolitaire-v0"


# ------------------------------------------------------------------ refused calls change nothing (issue 17)

@pytest.mark.parametrize("env_id", GAME_IDS)
def test_set_state_checks_the_whole_input_before_changing_anything(env_id):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    other_id = next_game(env_id)
    other = gym.make(other_id).unwrapped
    other.reset(seed=0)
    good = env.get_state()
    state_class = type(good["game"])
    table, saved = env.describe(), env.get_state()
    for bad, error, message in (
            (other.get_state(), TypeError, f"must be a {re.escape(state_class.__module__)}\\.State"),
            ({**good, "rng": "x"}, TypeError, "the saved 'rng' must be a PCG64 bit-generator state"),
            ({**good, "rng": np.random.MT19937(0).state}, ValueError, "got one of 'MT19937'"),
            ({}, ValueError, "no 'game' and no 'rng'"),
            (None, TypeError, "set_state takes what get_state\\(\\) returns"),
    ):
        with pytest.raises(error, match=message):
            env.set_state(bad)
        assert env.describe() == table and same(env.get_state(), saved)
    env.set_state(good)  # and a good one is still taken


@pytest.mark.parametrize("env_id, options, field", [
    ("Tabletop/DeadCenter-v0", {"jokers": 1}, "jokers"),
    ("Tabletop/DungeonSolitaire-v0", {"min_delve_turns_before_retreat": 3}, "min_delve_turns_before_retreat"),
    ("Tabletop/OneCardDungeon-v0", {"skill_cap": 4}, "skill_cap"),
])
def test_set_state_refuses_a_game_played_with_other_options(env_id, options, field):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    other = gym.make(env_id, **options).unwrapped
    other.reset(seed=0)
    with pytest.raises(ValueError, match=f"{field}=.*this env was made with {field}="):
        env.set_state(other.get_state())


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_set_state_refuses_a_field_of_the_wrong_shape_type_or_dtype(env_id):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    table = env.describe()
    game = env.get_state()["game"]
    array = next(name for name, value in vars(game).items() if isinstance(value, np.ndarray))
    # (A compiled game's state may be one array and nothing else: Royal Assassin's.)
    numbers = [name for name, value in vars(game).items() if not isinstance(value, (np.ndarray, bool))][:1]
    broken_numbers = [(number, value) for number in numbers for value in ("x", None)]
    for name, value in ((array, getattr(game, array)[:-1]), (array, getattr(game, array).astype(np.float64)),
                        *broken_numbers):
        broken = game.copy()
        setattr(broken, name, value)
        with pytest.raises(ValueError, match=f"field '{name}' must be"):
            env.set_state({"game": broken, "rng": env.get_state()["rng"]})
        assert env.describe() == table


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_set_state_refuses_values_the_rules_never_hold(env_id):
    # Compiled rules index with the state's numbers unchecked: a saved game holding a number out of its part's
    # range is refused, naming the part, and the env is left as it was.
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    table, saved = env.describe(), env.get_state()
    parts = getattr(saved["game"], "PARTS", None)
    if parts is None:
        pytest.skip("this game's state is not a compiled one")
    for name, shape, low, high in parts:
        if name in env._option_fields:
            continue  # refused as a game of other options (test_set_state_refuses_a_game_played_with_other_options)
        for value in (low - 1, high + 1):
            broken = saved["game"].copy()
            if shape:
                getattr(broken, name).flat[0] = value
            else:
                setattr(broken, name, value)
            with pytest.raises(ValueError, match=f"the saved game's {name} holds {value}, outside {low}..{high}"):
                env.set_state({**saved, "game": broken})
            assert env.describe() == table and same(env.get_state(), saved)


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_refused_reset_with_a_seed_keeps_the_game_and_its_generator(env_id):
    """A bad option with a seed: the game in progress goes on with the dice and shuffles it had coming."""
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    twin = env.clone()
    bad = {"level": 99} if "OneCard" in env_id else {"deck": {"tier1": [99]} if "Splendor" in env_id else ["AS"]}
    with pytest.raises(ValueError):
        env.reset(seed=123, options=bad)
    assert env.np_random_seed == twin.np_random_seed == 0
    rng = np.random.default_rng(0)
    for _ in range(30):
        action = random_legal(rng, env.action_masks())
        mine, theirs = env.step(action), twin.step(action)
        assert np.array_equal(mine[0], theirs[0]) and mine[1:4] == theirs[1:4]
        if mine[2] or mine[3]:
            break
    assert same(env.get_state(), twin.get_state())


@pytest.mark.parametrize("env_id", GAME_IDS)
@pytest.mark.parametrize("options", ["deck", 5, [("deck", None)]])
def test_reset_options_of_the_wrong_type_are_a_clear_error(env_id, options):
    env = gym.make(env_id).unwrapped
    with pytest.raises(TypeError, match="options must be a dict of reset options"):
        env.reset(seed=0, options=options)
    assert env.state is None and env._np_random is None


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_get_state_and_determinize_before_reset_say_reset_is_needed(env_id):
    env = gym.make(env_id).unwrapped
    with pytest.raises(gym.error.ResetNeeded, match=r"call reset\(\) before get_state\(\)"):
        env.get_state()
    with pytest.raises(gym.error.ResetNeeded, match=r"call reset\(\) before determinize\(\)"):
        env.determinize(np.random.default_rng(0))
    assert env.clone().state is None  # a clone of an env not yet reset is one too


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_privileged_copies_say_so_and_point_a_fair_agent_to_determinize(env_id):
    """clone(), get_state() and .state replay the hidden future exactly (the round trip above); their docs say
    they are privileged and that a fair agent plans on determinize(), whose copies agree with what was seen."""
    env = gym.make(env_id).unwrapped
    from tabletop_gym.envs.core.env import TabletopEnv

    for text in (type(env).clone.__doc__, type(env).get_state.__doc__, TabletopEnv.__doc__):  # the last: .state
        assert "privileged" in text.lower() and "determinize" in text, text
    observation, _ = env.reset(seed=5)
    fair = env.determinize(np.random.default_rng(1))
    assert np.array_equal(fair.observe(fair.state), observation)
