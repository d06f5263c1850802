"""The envs through PufferLib itself: the native ``PufferEnv`` of ``tabletop_gym.clients.pufferlib`` under PufferLib's
own vectorisation (``Serial`` and ``Multiprocessing``), a masked policy reading the mask from the observation.

PufferLib 3.0 does not install beside this package (it pins gymnasium 0.29 and numpy below 2, and its build
downloads C libraries), so `.ci/run`'s clients job puts its Python modules, from its published source archive, on
the path. Skipped, with the reason, where PufferLib cannot be imported."""

import os
import tempfile

import gymnasium as gym
import numpy as np
import pytest


def import_pufferlib():
    """PufferLib links a ``resources`` folder into the current folder when imported: import it from a scratch one."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            return pytest.importorskip("pufferlib.vector", reason="PufferLib cannot be imported (the clients job "
                                       "puts its Python source on the path)")
        finally:
            os.chdir(here)


vector = import_pufferlib()

from tabletop_gym.clients.pufferlib import TabletopPufferEnv, split_observation  # noqa: E402
from tabletop_gym.envs import GAMES  # noqa: E402

BACKENDS = {"Serial": {}, "Multiprocessing": {"num_workers": 2}}


def masked_actions(rng, observations, num_actions):
    """A legal action per row, drawn from the mask carried in the observation."""
    _, mask = split_observation(observations, num_actions)
    assert mask.any(axis=1).all()
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("game", list(GAMES))
def test_pufferlibs_vectorisation_steps_every_game_with_the_mask_in_the_observation(game, backend):
    """Two PufferEnvs of 8 games each under PufferLib's ``Serial`` and ``Multiprocessing``: a policy that reads only
    the observation plays legal moves (an illegal one raises here) across finished games, whose summaries come back
    in the infos."""
    envs = vector.make(TabletopPufferEnv, env_kwargs={"game": game, "num_envs": 8, "illegal_action": "raise"},
                       backend=getattr(vector, backend), num_envs=2, seed=0, **BACKENDS[backend])
    try:
        observations, _ = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        space, n = envs.single_observation_space, envs.single_action_space.n
        finished = []
        for _ in range(300):
            observations, rewards, terminals, truncations, infos = envs.step(masked_actions(rng, observations, n))
            assert observations.shape == (16, *space.shape) and np.isfinite(rewards).all()
            assert space.contains(observations[rng.integers(16)])
            finished += infos
        assert sum(info["n"] for info in finished) >= 2
        assert all(0 <= info["won"] <= 1 and info["episode_length"] >= 1 for info in finished)
    finally:
        envs.close()


@pytest.mark.parametrize("game", list(GAMES))
def test_each_row_is_the_native_vector_envs_game(game):
    """The PufferEnv's rows are the native vector env's games, seed for seed: the same observations, masks, rewards
    and ends as ``gym.make_vec`` in SAME_STEP mode under the same actions."""
    env = TabletopPufferEnv(game, num_envs=4, seed=5)
    reference = gym.make_vec(GAMES[game].id, num_envs=4, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    observations, _ = env.reset()
    expected, info = reference.reset(seed=5)
    rng = np.random.default_rng(1)
    n = env.single_action_space.n
    for _ in range(200):
        features, mask = split_observation(observations, n)
        np.testing.assert_array_equal(features, expected.reshape(4, -1))
        np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
        actions = masked_actions(rng, observations, n)
        observations, rewards, terminals, truncations, _ = env.step(actions)
        expected, expected_rewards, expected_terminals, expected_truncations, info = reference.step(actions)
        np.testing.assert_array_equal(rewards, expected_rewards.astype(np.float32))
        np.testing.assert_array_equal(terminals, expected_terminals)
        np.testing.assert_array_equal(truncations, expected_truncations)
