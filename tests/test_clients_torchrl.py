"""The envs through TorchRL itself, as its users write it (``pip install torchrl``; `.ci/run`'s clients job): the
single env's infos read into specs, the vector env through Gymnasium's async mode. Skipped, with the reason,
where TorchRL is not installed."""

import pytest

torchrl = pytest.importorskip("torchrl", reason="TorchRL is not installed (the clients job installs it)")

import torch  # noqa: E402
from torchrl.envs import GymEnv, check_env_specs  # noqa: E402

from tabletop_gym.clients.torchrl import make_env, pettingzoo_env  # noqa: E402
from tabletop_gym.envs import GAMES, IllegalActionError  # noqa: E402

GAME_IDS = [entry.id for entry in GAMES.values()]
MULTIPLAYER = [entry.name for entry in GAMES.values() if entry.multiplayer]

torch.set_num_threads(1)  # two busy cores run torch's default threads many times slower


def played_legally(rollout) -> bool:
    """Every action of a rollout was legal under the mask it was drawn from."""
    return bool(rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1)).all())


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



@pytest.mark.parametrize("num_envs", [None, 8])
@pytest.mark.parametrize("env_id", GAME_IDS)
def test_make_env_masks_the_action_spec_from_the_infos_and_rolls_out(env_id, num_envs):
    """The glue's env: every info key has a spec (the mask int8), TorchRL's ``ActionMask`` masks the action spec
    from ``info["action_mask"]``, so its random policy plays only legal moves (an illegal one raises here), across
    finished games, in one game and in the native vector env alike. Without the mask transform the first random
    action of a game is illegal; before finished games' masks were all ones, ``check_env_specs`` with the mask failed
    on 11 of 20 seeds of one solitaire."""
    env = make_env(env_id, num_envs=num_envs, illegal_action="raise")
    env.set_seed(3)
    check_env_specs(env)
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout["next", "done"].any()
    assert rollout["next", "action_mask"].dtype == torch.bool  # the info's int8, cast for TorchRL's masks
    assert played_legally(rollout)


def test_an_illegal_action_crosses_torchrls_async_env_as_the_projects_error():
    """``GymEnv(id, num_envs=N)`` steps Gymnasium's async workers; TorchRL checks the env with random, unmasked
    actions, and the first illegal one comes back as ``IllegalActionError`` (a ``TypeError`` while the error could
    not be rebuilt from its message alone)."""
    with pytest.raises(IllegalActionError, match="illegal action"):
        GymEnv("tabletop_gym.envs:Tabletop/DeadCenter-v0", num_envs=2, illegal_action="raise")


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("num_players", [2, 3])
@pytest.mark.parametrize("game_name", MULTIPLAYER)
def test_a_game_of_players_rolls_out_through_torchrls_pettingzoo_wrapper(game_name, num_players, parallel):
    """TorchRL's PettingZoo wrapper with the mask, on the AEC env and on the turn-based parallel view: every seat's
    random action is drawn from its mask and the one on turn is played (an illegal one raises here). The parallel
    view failed twice before: agents not on turn had all-zero masks (``invalid multinomial distribution``), and
    PettingZoo's string ``active_agent`` info cannot be stacked (``invalid data type 'str'``)."""
    env = pettingzoo_env(game_name, num_players=num_players, parallel=parallel, illegal_action="raise")
    env.set_seed(num_players)
    check_env_specs(env)
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout["next", "done"].any()
    if parallel:  # exactly one seat on turn at each step of a running game
        on_turn = torch.cat([rollout[agent, "info", "on_turn"] for agent in env.group_map], dim=-1)
        running = ~rollout["done"].squeeze(-1)
        assert (on_turn.sum(-1)[running] == 1).all()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_torchrls_spec_check_with_the_mask_passes_on_every_seed(env_id):
    """TorchRL's own check (a short random rollout under the mask, then each spec against the data) on 20 seeds;
    while a finished game's mask was all zeros it failed on 11 of 20 seeds of one solitaire."""
    env = make_env(env_id, illegal_action="raise")
    for seed in range(20):
        env.set_seed(seed)
        check_env_specs(env, seed=seed)
