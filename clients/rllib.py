"""RLlib: the envs as RLlib's action-masking module reads them, and env creators its remote runners can call.

- **Env creators that import the project themselves.** A remote env runner never ran the driver's
  ``import tabletop_gym.envs``, so the ``Tabletop/...`` ids would be unknown there. ``make_env(config)`` (register it
  with ``ray.tune.registry.register_env``) imports them: a single env, or, asked for ``num_envs`` (RLlib's
  ``gym_env_vectorize_mode=VECTOR_ENTRY_POINT``), the game's native vector env. ``config``: ``game`` (a short name
  or an id) and the env's own options.
- **The observation as RLlib's action-masking module reads it:** a Dict of ``"observations"`` and a float
  ``"action_mask"`` (the envs give the mask in ``info``, as PettingZoo's int8 ``"action_mask"`` key does for the AEC
  env). ``MaskedObservations`` does it for a single env, ``MaskedVectorObservations`` for a vector env; both also
  scale each entry by the observation space's upper bound, so that counts and flags enter the network alike.
- **A game of several players** as RLlib's multi-agent ``PettingZooEnv``: ``make_multi_agent_env(config)`` over
  ``MaskedAEC``.

``tabletop-gym train <game> --algo rllib`` (``tabletop_gym.benchmarks.training.rllib``) trains RLlib's PPO so, and
``make_agent("rllib:<checkpoint>")`` plays its checkpoints. Importing this module needs neither Ray nor torch.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

OBSERVATIONS, ACTION_MASK = "observations", "action_mask"  # the keys of RLlib's masking module


def observation_scale(space: spaces.Box) -> np.ndarray:
    """1 / each entry's upper bound where that is finite and positive, else 1."""
    high = np.asarray(space.high, dtype=np.float32)
    usable = np.isfinite(high) & (high > 0)
    return np.where(usable, 1 / np.where(usable, high, 1), 1).astype(np.float32)


def masked_space(space: spaces.Box, num_actions: int) -> spaces.Dict:
    scale = observation_scale(space)
    return spaces.Dict({OBSERVATIONS: spaces.Box(space.low * scale, space.high * scale, dtype=np.float32),
                        ACTION_MASK: spaces.Box(0.0, 1.0, (num_actions,), dtype=np.float32)})


class MaskedObservations(gym.Wrapper):
    """A single env whose observation is ``{"observations": scaled observation, "action_mask": float mask}``."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.scale = observation_scale(env.observation_space)
        self.observation_space = masked_space(env.observation_space, env.action_space.n)

    def _masked(self, observation, info) -> dict:
        return {OBSERVATIONS: observation * self.scale, ACTION_MASK: info["action_mask"].astype(np.float32)}

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return self._masked(observation, info), info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self._masked(observation, info), reward, terminated, truncated, info


class MaskedVectorObservations(gym.vector.VectorWrapper):
    """A vector env whose observations are ``MaskedObservations``' for every game, batched."""

    def __init__(self, env: gym.vector.VectorEnv):
        super().__init__(env)
        self.scale = observation_scale(env.single_observation_space)
        self.single_observation_space = masked_space(env.single_observation_space, env.single_action_space.n)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, env.num_envs)

    def _masked(self, observations, infos) -> dict:
        return {OBSERVATIONS: observations * self.scale, ACTION_MASK: infos["action_mask"].astype(np.float32)}

    def reset(self, **kwargs):
        observations, infos = self.env.reset(**kwargs)
        return self._masked(observations, infos), infos

    def step(self, actions):
        observations, rewards, terminated, truncated, infos = self.env.step(actions)
        return self._masked(observations, infos), rewards, terminated, truncated, infos


def make_env(config: dict):
    """The env ``config`` names (``game`` and the env's options), masked for RLlib; the native vector env of
    ``config["num_envs"]`` games when RLlib asks for that many."""
    from tabletop_gym.envs import game  # registers the ids in this process

    options = dict(config)
    entry = game(options.pop("game"))
    env_id = entry.id
    num_envs = options.pop("num_envs", None)
    if num_envs is None:
        return MaskedObservations(gym.make(env_id, **options))
    if entry.vector_env is None:
        raise ValueError(f"{env_id} has no native vector env: train it with gym_env_vectorize_mode='SYNC'")
    return MaskedVectorObservations(gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                                                 **options))


class MaskedAEC(BaseWrapper):
    """A game's AEC env with each observation as RLlib's masking module reads it (PettingZoo's
    ``{"observation", "action_mask": int8}`` as ``{"observations", "action_mask": float}``, the observation scaled)."""

    def __init__(self, env):
        super().__init__(env)
        space = env.observation_space(env.possible_agents[0])["observation"]
        self.scale = observation_scale(space)
        self._space = masked_space(space, env.action_space(env.possible_agents[0]).n)

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        seen = self.env.observe(agent)
        return {OBSERVATIONS: seen["observation"] * self.scale, ACTION_MASK: seen["action_mask"].astype(np.float32)}


def make_multi_agent_env(config: dict):
    """The AEC env of the game ``config`` names (``game``: a short name or an id), of its other options
    (``num_players`` seats: default 2), as RLlib's multi-agent env, masked."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from tabletop_gym.envs import game  # (importing the project registers its ids in this process)

    options = dict(config)
    aec = game(options.pop("game")).aec_module()
    return PettingZooEnv(MaskedAEC(aec.raw_env(**options)))
