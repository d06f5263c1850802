"""The envs through Tianshou itself (``pip install tianshou``; `.ci/run`'s clients job): its collector stacks every
step's info into its buffer, which refuses NaN (a key that appears only at the end) and shapes that change (a list
of varying length). Skipped, with the reason, where Tianshou is not installed."""

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("tianshou", reason="Tianshou is not installed (the clients job installs it)")

from tianshou.algorithm.algorithm_base import Policy  # noqa: E402
from tianshou.data import Batch, Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402

from tabletop_gym.envs import GAMES  # noqa: E402


class MaskedRandomPolicy(Policy):
    """A legal action drawn at random from each game's ``info["action_mask"]``, as a masked policy reads it."""

    def __init__(self, action_space, seed: int = 0):
        super().__init__(action_space=action_space)
        self.rng = np.random.default_rng(seed)

    def forward(self, batch, state=None, **kwargs):
        masks = np.asarray(batch.info["action_mask"], dtype=bool)
        return Batch(act=(self.rng.random(masks.shape) * masks).argmax(axis=1), state=state)


@pytest.mark.parametrize("env_id", [entry.id for entry in GAMES.values()])
def test_tianshous_buffer_takes_every_info_across_finished_games(env_id):
    envs = DummyVectorEnv([lambda: gym.make(env_id, illegal_action="raise") for _ in range(2)])
    collector = Collector(MaskedRandomPolicy(envs.action_space[0]), envs, VectorReplayBuffer(4000, 2),
                          raise_on_nan_in_buffer=True)
    collector.reset()
    stats = collector.collect(n_step=1000)
    assert stats.n_collected_episodes >= 1  # games ended, and their final infos went into the same buffer
