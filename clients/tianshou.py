"""Tianshou: the masked observation its policies read, and MARL on a game of several players.

Tianshou's masked policies (DQN and its relatives, the random policy, the multi-agent manager) take the legal
actions from the observation: ``batch.obs.mask``, a bool per action, beside ``batch.obs.obs``. ``make_env`` gives a
game's env so: its observation is the dict ``{"obs": <the env's observation>, "mask": <the legal actions>}`` (the
mask read from ``info["action_mask"]`` as bools, all True once a game is over), and its ``observation_space``
describes that dict. Take a network's input shape from ``make_env(...).observation_space["obs"]``: Tianshou's
vector envs report the spaces of the bare env inside.

    import torch
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams
    from tianshou.utils.net.common import Net
    from tabletop_gym.clients.tianshou import make_env, marl_env

    torch.set_num_threads(1)  # a small network on a few busy cores runs faster so

    def dqn(observation_space, action_space):
        net = Net(state_shape=observation_space.shape, action_shape=action_space.n, hidden_sizes=[128, 128])
        policy = DiscreteQLearningPolicy(model=net, action_space=action_space, eps_training=0.1)
        return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=100)

    env_id = ...  # any id of tabletop_gym.envs.GAMES
    env = make_env(env_id)
    algorithm = dqn(env.observation_space["obs"], env.action_space)
    envs = DummyVectorEnv([lambda: make_env(env_id) for _ in range(4)])
    collector = Collector(algorithm, envs, VectorReplayBuffer(20000, len(envs)), exploration_noise=True)
    algorithm.run_training(OffPolicyTrainerParams(training_collector=collector, max_epochs=10,
                                                  epoch_num_steps=5000, collection_step_num_env_steps=100))

A game of several players (``game`` below) goes through Tianshou's own ``PettingZooEnv``, which reads the AEC env's
``observation["action_mask"]`` into the same ``mask``: ``marl_env(game, players)`` builds it, and one DQN per seat
makes Tianshou's multi-agent algorithm (the observation inside is ``env.observation_space["observation"]``):

    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm

    env = marl_env(game, players=3)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn(env.observation_space["observation"], env.action_space) for _ in env.agents], env=env)
    envs = DummyVectorEnv([lambda: marl_env(game, players=3) for _ in range(4)])
    collector = Collector(algorithm, envs, VectorReplayBuffer(20000, len(envs)), exploration_noise=True)

and on to ``run_training`` as above. The rewards come one per seat (``rew[:, seat]``), every seat's +1 or -1 on the
step that ends the game; Tianshou's multi-agent algorithm credits each seat with the rewards of its own steps only,
so the end reaches the seat that moved last (as with PettingZoo's classic games). Keyword arguments of ``make_env``
and ``marl_env`` pass on to the env: ``illegal_action="raise"`` makes an unmasked move an error, not a lost game.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from tianshou.env import PettingZooEnv

from tabletop_gym.envs import Game, game, game_id


class MaskedObservation(gym.Wrapper):
    """A game's env whose observation is ``{"obs": <its observation>, "mask": <a bool per action, True where
    legal>}``, the dict Tianshou's masked policies read; rewards, ends and infos pass through as they are."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.observation_space = spaces.Dict({
            "obs": env.observation_space,
            "mask": spaces.Box(0, 1, (int(env.action_space.n),), dtype=bool),
        })

    def reset(self, *, seed=None, options=None):
        observation, info = self.env.reset(seed=seed, options=options)
        return self.masked(observation, info), info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self.masked(observation, info), reward, terminated, truncated, info

    @staticmethod
    def masked(observation, info: dict) -> dict:
        # bools, not the info's int8: the random policy drops ``logits[~mask]``, and ~ of an int8 mask is -2 and -1,
        # which numpy reads as indices
        return {"obs": observation, "mask": np.asarray(info["action_mask"], dtype=bool)}


def make_env(game_or_id: str | Game, **make_kwargs) -> MaskedObservation:
    """``gym.make`` of the game (its id, short name or ``Game``) with ``make_kwargs``, its observation masked for
    Tianshou."""
    return MaskedObservation(gym.make(game_id(game_or_id), **make_kwargs))


def marl_env(game_or_name: str | Game, players: int = 2, **kwargs) -> PettingZooEnv:
    """Tianshou's ``PettingZooEnv`` over the AEC env of a game of several players, for ``players`` seats; ``kwargs``
    pass on to the AEC env (``illegal_action``, ``max_rounds``...)."""
    entry = game(game_or_name)
    if players not in entry.players or not entry.multiplayer:
        raise ValueError(f"{entry.name} is not a game of {players} players (its numbers of players: {entry.players})")
    return PettingZooEnv(entry.aec_module().env(num_players=players, **kwargs))  # the AEC env's name for it
