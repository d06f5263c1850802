"""The envs through Tianshou itself (``pip install tianshou``; `.ci/run`'s clients job): its collector stacks every
step's info into its buffer, which refuses NaN (a key that appears only at the end) and shapes that change (a list
of varying length); its masked policies and its multi-agent manager, through ``tabletop_gym.clients.tianshou``, play
only legal moves (``illegal_action="raise"`` makes any other an error) and learn from what they collected. Skipped,
with the reason, where Tianshou is not installed."""

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("tianshou", reason="Tianshou is not installed (the clients job installs it)")

import torch  # noqa: E402
from tianshou.algorithm import DQN  # noqa: E402
from tianshou.algorithm.algorithm_base import Policy  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Batch, Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402
from tianshou.utils.torch_utils import policy_within_training_step  # noqa: E402

from tabletop_gym.clients.tianshou import make_env, marl_env  # noqa: E402
from tabletop_gym.envs import GAMES  # noqa: E402

torch.set_num_threads(1)  # a small network on two busy cores: more threads only wait on each other
IDS = [entry.id for entry in GAMES.values()]
MULTIPLAYER = next(entry for entry in GAMES.values() if entry.multiplayer)
SOLITAIRE = next(entry for entry in GAMES.values() if not entry.multiplayer)


class MaskedRandomPolicy(Policy):
    """A legal action drawn at random from each game's ``info["action_mask"]``, as a masked policy reads it."""

    def __init__(self, action_space, seed: int = 0):
        super().__init__(action_space=action_space)
        self.rng = np.random.default_rng(seed)

    def forward(self, batch, state=None, **kwargs):
        masks = np.asarray(batch.info["action_mask"], dtype=bool)
        return Batch(act=(self.rng.random(masks.shape) * masks).argmax(axis=1), state=state)


@pytest.mark.parametrize("env_id", IDS)
def test_tianshous_buffer_takes_every_info_across_finished_games(env_id):
    envs = DummyVectorEnv([lambda: gym.make(env_id, illegal_action="raise") for _ in range(2)])
    collector = Collector(MaskedRandomPolicy(envs.action_space[0]), envs, VectorReplayBuffer(4000, 2),
                          raise_on_nan_in_buffer=True)
    collector.reset()
    stats = collector.collect(n_step=1000)
    assert stats.n_collected_episodes >= 1  # games ended, and their final infos went into the same buffer


def dqn(observation_space: gym.spaces.Box, action_space: gym.spaces.Discrete) -> DQN:
    """Tianshou's DQN over a small ``Net``, exploring a third of its moves."""
    net = Net(state_shape=observation_space.shape, action_shape=action_space.n, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(model=net, action_space=action_space, eps_training=0.3)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=10)


def collect_and_update(algorithm, envs, n_step: int):
    """Collect ``n_step`` steps with exploration into a fresh buffer, then one update from it, as Tianshou's
    off-policy trainer does within a training step: the collect stats, the buffer and the update's stats."""
    torch.manual_seed(0)
    np.random.seed(0)  # Tianshou's exploration draws from numpy's global generator
    envs.seed(0)
    buffer = VectorReplayBuffer(4 * n_step, len(envs))
    collector = Collector(algorithm, envs, buffer, exploration_noise=True, raise_on_nan_in_buffer=True)
    collector.reset()
    with policy_within_training_step(algorithm.policy):
        collected = collector.collect(n_step=n_step)
        update = algorithm.update(buffer, sample_size=64)
    return collected, buffer, update


@pytest.mark.parametrize("env_id", IDS)
def test_tianshous_dqn_learns_from_every_game_through_the_masked_observation(env_id):
    """Tianshou's DQN, exploring, on 2 envs: its greedy and random moves both read ``batch.obs.mask``. Without
    ``make_env`` the observation has no mask and the first illegal move raises ``IllegalActionError``."""
    envs = DummyVectorEnv([lambda: make_env(env_id, illegal_action="raise") for _ in range(2)])
    space = make_env(env_id).observation_space  # Tianshou's vector envs report the bare env's spaces
    collected, buffer, update = collect_and_update(dqn(space["obs"], make_env(env_id).action_space), envs, 400)
    assert collected.n_collected_steps == 400 and collected.n_collected_episodes >= 1
    assert np.isfinite(update.loss)
    stored = buffer[buffer.sample_indices(0)]
    assert all(space.contains({"obs": obs, "mask": mask}) for obs, mask in zip(stored.obs.obs, stored.obs.mask))
    assert all(space.contains({"obs": obs, "mask": mask})
               for obs, mask in zip(stored.obs_next.obs, stored.obs_next.mask))


@pytest.mark.parametrize("env_id", IDS)
def test_tianshous_random_policy_reads_the_bool_mask(env_id):
    """Tianshou's masked random policy drops ``logits[~mask]``: with the env's int8 mask ``~mask`` is -2 and -1,
    read as indices, and it plays illegal moves; with no mask at all it fails on ``batch.obs.mask``."""
    envs = DummyVectorEnv([lambda: make_env(env_id, illegal_action="raise") for _ in range(2)])
    envs.seed(0)
    algorithm = MARLRandomDiscreteMaskedOffPolicyAlgorithm(make_env(env_id).action_space)
    collector = Collector(algorithm, envs, VectorReplayBuffer(1200, 2), raise_on_nan_in_buffer=True)
    collector.reset()
    assert collector.collect(n_step=300).n_collected_steps == 300


@pytest.mark.parametrize("players", [n for n in MULTIPLAYER.players if n > 1][:2])
def test_tianshous_multi_agent_dqn_plays_every_seat_of_a_multiplayer_game(players):
    """Tianshou's multi-agent manager, one DQN per seat, on 2 of Tianshou's own ``PettingZooEnv`` over the AEC env:
    each seat's moves read the mask ``PettingZooEnv`` takes from the AEC observation (unmasked, the first illegal
    move raises), the per-seat rewards and numeric infos fill one buffer across finished games, and every seat's
    DQN updates from its own moves."""
    env = marl_env(MULTIPLAYER, players, illegal_action="raise")
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn(env.observation_space["observation"], env.action_space) for _ in env.agents], env=env)
    envs = DummyVectorEnv([lambda: marl_env(MULTIPLAYER, players, illegal_action="raise") for _ in range(2)])
    collected, buffer, update = collect_and_update(algorithm, envs, 400)
    assert collected.n_collected_episodes >= 1
    assert buffer.rew.shape[1] == players and set(buffer.obs.agent_id[:len(buffer)]) >= set(env.agents)
    losses = update.get_loss_stats_dict()
    assert sorted(losses) == sorted(f"{agent}/loss" for agent in env.agents)
    assert all(np.isfinite(loss) for loss in losses.values())


def test_marl_env_takes_only_a_game_of_several_players():
    with pytest.raises(ValueError, match="players"):
        marl_env(SOLITAIRE)
    with pytest.raises(ValueError, match="players"):
        marl_env(MULTIPLAYER, max(MULTIPLAYER.players) + 1)
