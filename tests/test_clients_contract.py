"""What the RL libraries users bring rely on, checked as they use the envs: a masked sampler survives every mask
(a finished game's, a parallel agent's not on turn), the spellings of ``gym.make`` / ``gym.make_vec`` that work in
each vectorization mode and process, and Gymnasium's ``call`` / ``get_attr`` / ``set_attr`` on the native vector
env."""

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from tabletop_gym.envs import GAMES, EpisodeOverError, IllegalActionError, splendor_v0

GAME_IDS = [game.id for game in GAMES.values()]


def masked_sample(rng, masks) -> np.ndarray:
    """One action per row as a policy with masked logits draws it: ``-inf`` where the mask is 0, then a softmax.
    A row of zeros would give NaN probabilities: that is what must never happen."""
    masks = np.atleast_2d(np.asarray(masks)).astype(bool)
    logits = np.where(masks, rng.normal(size=masks.shape), -np.inf)
    with np.errstate(invalid="ignore"):
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = weights / weights.sum(axis=1, keepdims=True)
    assert not np.isnan(probabilities).any(), "a mask with no action offered"
    return np.array([rng.choice(len(p), p=p) for p in probabilities])


# ------------------------------------------------------------------ a finished game's mask

@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_masked_sampler_survives_finished_games_in_gymnasiums_sync_vector_env(env_id):
    """A finished single env offers every action (none is taken: Gymnasium's vector env resets it), so a masked
    policy stepping ``make_vec(id, vectorization_mode="sync")`` over several finished games never meets a row of
    zeros, and every action it draws in a running game is legal."""
    envs = gym.make_vec(env_id, num_envs=3, vectorization_mode="sync", illegal_action="raise")
    rng = np.random.default_rng(0)
    _, infos = envs.reset(seed=0)
    finished = 0
    while finished < 6:
        _, _, terminated, truncated, infos = envs.step(masked_sample(rng, infos["action_mask"]))
        ended = terminated | truncated
        assert infos["action_mask"][ended].all()  # the finished games' masks, before the next step resets them
        finished += int(ended.sum())
    envs.close()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_finished_single_env_offers_every_action_and_still_refuses_a_step(env_id):
    env = gym.make(env_id, illegal_action="raise").unwrapped
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(int(masked_sample(rng, info["action_mask"])[0]))
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].all() and env.action_masks().all()
    assert env.legal_action_names() == []  # offered, not legal
    with pytest.raises(EpisodeOverError, match="episode is over"):
        env.step(0)


# ------------------------------------------------------------------ the parallel view's agents not on turn

@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_masked_sampler_plays_a_whole_game_of_the_parallel_env(num_players):
    """Every agent of the turn-based parallel view sends an action at every step; those not on turn are shown all
    ones (their action is ignored), so a masked policy for every agent plays a whole game, each step accepted."""
    env = splendor_v0.parallel_env(num_players=num_players, illegal_action="raise")
    rng = np.random.default_rng(num_players)
    observations, _ = env.reset(seed=num_players)
    steps = 0
    while env.agents:
        on_turn = env.unwrapped.agent_selection
        for agent, seen in observations.items():
            if agent != on_turn:
                assert seen["action_mask"].all()
            assert seen["action_mask"].any()
        actions = {agent: int(masked_sample(rng, observations[agent]["action_mask"])[0]) for agent in env.agents}
        observations, _, terminations, truncations, _ = env.step(actions)
        steps += 1
    assert all(terminations.values()) or all(truncations.values())
    assert steps > 2 * num_players
    # The AEC env keeps PettingZoo's classic convention: an agent not on turn sees no legal action.
    aec = splendor_v0.env(num_players=num_players)
    aec.reset(seed=0)
    assert all(not aec.observe(agent)["action_mask"].any() for agent in aec.agents if agent != aec.agent_selection)


# ------------------------------------------------------------------ make, make_vec, autoreset_mode

@pytest.mark.parametrize("mode", ["vector_entry_point", "sync", "async"])
def test_autoreset_mode_has_one_spelling_per_vectorization_mode(mode):
    """The native vector env takes ``autoreset_mode`` as a keyword (Gymnasium's ``make_vec`` refuses any
    ``vector_kwargs`` for it); Gymnasium's own sync and async vector envs take it in ``vector_kwargs``."""
    env_id = GAME_IDS[0]
    if mode == "vector_entry_point":
        envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, autoreset_mode="SameStep")
        with pytest.raises(gym.error.Error, match="vector_kwargs"):
            gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, vector_kwargs={"autoreset_mode": "SameStep"})
    else:
        envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode,
                            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})
        with pytest.raises(TypeError, match="autoreset_mode"):
            gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, autoreset_mode="SameStep")
    try:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    finally:
        envs.close()


def test_a_fresh_process_makes_an_env_by_the_prefixed_id_without_importing_the_package():
    """A process that has not imported ``tabletop_gym.envs`` (a spawned worker) has no ids registered: Gymnasium
    1.x loads no plugins, so the prefixed id (``tabletop_gym.envs:Tabletop/...``) is the spelling that works there;
    the plain id is refused with Gymnasium's own message."""
    script = ("import gymnasium as gym\n"
              "try:\n"
              "    gym.make({plain!r})\n"
              "except gym.error.Error as error:\n"
              "    print('refused')\n"
              "env = gym.make({prefixed!r})\n"
              "print(env.unwrapped.spec.id)\n")
    plain = GAME_IDS[0]
    # A fresh interpreter with the package on the path but not imported.
    out = subprocess.run([sys.executable, "-c", script.format(prefixed="tabletop_gym.envs:" + plain, plain=plain)],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["refused", plain]


# ------------------------------------------------------------------ call, get_attr, set_attr of the native env

@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_native_vector_env_answers_call_get_attr_and_set_attr_as_sync_does(env_id):
    native = gym.make_vec(env_id, num_envs=3, reward="score")
    sync = gym.make_vec(env_id, num_envs=3, vectorization_mode="sync", reward="score")
    _, infos = native.reset(seed=4)
    sync.reset(seed=4)
    masks = native.call("action_masks")
    assert isinstance(masks, tuple) and len(masks) == 3
    assert all(np.array_equal(mine, theirs) for mine, theirs in zip(masks, sync.call("action_masks")))
    assert all(np.array_equal(mask, row.astype(bool)) for mask, row in zip(masks, infos["action_mask"]))
    for name in ("action_names", "spec", "observation_space", "action_space", "reward_mode", "illegal_action"):
        assert native.get_attr(name) == sync.get_attr(name), name
        assert native.call(name) == sync.call(name), name
    assert gym.make(native.get_attr("spec")[0]).unwrapped.reward_mode == "score"
    native.set_attr("illegal_action", "raise")
    assert native.get_attr("illegal_action") == ("raise",) * 3
    illegal = [int(np.flatnonzero(~mask)[0]) if not mask.all() else -1 for mask in masks]
    with pytest.raises(IllegalActionError):
        native.step(np.array(illegal))
    native.set_attr("illegal_action", ["terminate"] * 3)
    assert native.illegal_action == "terminate"
    for refused in (lambda: native.call("describe"), lambda: native.get_attr("state"),
                    lambda: native.set_attr("reward_mode", "win")):
        with pytest.raises(AttributeError, match="supports"):
            refused()
    with pytest.raises(ValueError, match="equal"):
        native.set_attr("illegal_action", ["raise", "terminate", "raise"])
    native.close()
    sync.close()


# ------------------------------------------------------------------ numeric infos with one set of keys

def info_signature(info: dict) -> dict:
    """Each key of an info with its value's dtype and shape; every value must be a number (numpy's or Python's
    bool, int or float) or a numeric numpy array, what the buffers that stack infos (Tianshou's, TorchRL's) take."""
    signature = {}
    for key, value in info.items():
        assert isinstance(value, (bool, int, float, np.generic, np.ndarray)), (key, value)
        value = np.asarray(value)
        assert value.dtype.kind in "biuf", (key, value.dtype)
        signature[key] = (value.dtype, value.shape)
    return signature


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_single_envs_infos_are_numeric_with_one_set_of_keys_from_reset_on(env_id):
    """At reset and at every step of several whole games (the default opponent, where a game has one): the same
    keys, each value of the same dtype and shape; the result as its code in ``RESULT_NAMES``."""
    env = gym.make(env_id)
    rng = np.random.default_rng(3)
    _, info = env.reset(seed=3)
    signature = info_signature(info)
    assert {"action_mask", "won", "score", "result", "illegal_action"} <= set(signature)
    games = 0
    while games < 4:
        _, _, terminated, truncated, info = env.step(int(masked_sample(rng, info["action_mask"])[0]))
        assert info_signature(info) == signature
        if terminated or truncated:
            assert env.unwrapped.RESULT_NAMES[info["result"]] == env.unwrapped.outcome()["result"] != "playing"
            games += 1
            _, info = env.reset()
            assert info_signature(info) == signature and info["result"] == 0 and not info["won"]


@pytest.mark.parametrize("num_players", [2, 4])
def test_the_aec_envs_infos_are_numeric_with_one_set_of_keys_for_every_agent_from_reset_on(num_players):
    env = splendor_v0.env(num_players=num_players, max_rounds=30)
    rng = np.random.default_rng(num_players)
    signature = None
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            seen = {name: info_signature(info) for name, info in env.infos.items()}
            signature = signature or seen[agent]
            assert all(one == signature for one in seen.values())
            assert signature["points"][1] == signature["winners"][1] == (num_players,)
            observation, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                assert env.unwrapped.RESULT_NAMES[info["result"]] != "playing"
                env.step(None)
            else:
                env.step(int(masked_sample(rng, observation["action_mask"])[0]))


def test_the_opponents_moves_are_the_envs_to_ask_not_the_infos():
    env = gym.make("Tabletop/Splendor-v0", num_players=3, seat=2, opponent="random")
    _, info = env.reset(seed=0)
    assert "opponent_moves" not in info and [seat for seat, _ in env.unwrapped.opponent_moves()] == [0, 1]
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert all(name in env.unwrapped.action_names for _, name in env.unwrapped.opponent_moves())


@pytest.mark.parametrize("num_players", [2, 4])
def test_the_parallel_views_infos_are_numeric_with_one_set_of_keys_and_say_who_is_on_turn(num_players):
    """PettingZoo's own conversion adds the string ``active_agent`` from the first step on, which TorchRL's
    PettingZoo wrapper cannot stack; the view's infos say ``on_turn`` (a bool) from reset on instead."""
    env = splendor_v0.parallel_env(num_players=num_players, illegal_action="raise")
    rng = np.random.default_rng(num_players)
    observations, infos = env.reset(seed=num_players)
    keys = {agent: set(info) for agent, info in infos.items()}
    while env.agents:
        on_turn = env.unwrapped.agent_selection
        assert [agent for agent in env.agents if infos[agent]["on_turn"]] == [on_turn]
        for agent, info in infos.items():
            assert set(info) == keys[agent] and "active_agent" not in info
            assert all(np.asarray(value).dtype.kind in "biuf" for value in info.values())
        actions = {agent: int(masked_sample(rng, observations[agent]["action_mask"])[0]) for agent in env.agents}
        observations, _, _, _, infos = env.step(actions)
    assert not any(info["on_turn"] for info in infos.values())
