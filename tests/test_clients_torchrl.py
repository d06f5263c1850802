"""The envs through TorchRL itself, as its users write it (``pip install torchrl``; `.ci/run`'s clients job): the
single env's infos read into specs, the vector env through Gymnasium's async mode. Skipped, with the reason,
where TorchRL is not installed."""

import pytest

torchrl = pytest.importorskip("torchrl", reason="TorchRL is not installed (the clients job installs it)")

import torch  # noqa: E402
from torchrl.envs import GymEnv, check_env_specs  # noqa: E402

from tabletop_gym.envs import GAMES  # noqa: E402

GAME_IDS = [entry.id for entry in GAMES.values()]


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_torchrl_reads_every_info_into_specs_and_rolls_out(env_id):
    """The infos are numeric with one set of keys, so TorchRL's info reader finds their specs and a rollout across
    finished games keeps them (it failed on Splendor-v0's list-valued info before)."""
    env = GymEnv(env_id)
    env.auto_register_info_dict()
    check_env_specs(env)
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout.shape == (300,)
    assert rollout["next", "done"].any()  # games ended, and their infos went into the same specs
    assert rollout["next", "action_mask"].dtype == torch.int8


def test_torchrl_steps_the_vector_env_through_gymnasiums_async_mode():
    """Each of Gymnasium's async workers makes its env by the id with the module that registers it (a spawned
    process has not imported the package)."""
    env = GymEnv("tabletop_gym.envs:Tabletop/DeadCenter-v0", num_envs=4)
    rollout = env.rollout(200, break_when_any_done=False)
    assert rollout.shape == (4, 200)
    env.close()

