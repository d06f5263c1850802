"""PufferLib: a game's native vector env as a native ``PufferEnv``, the action mask in the observation.

PufferLib's native envs step many games in one object and write into buffers PufferLib hands them; its
vectorisation (``pufferlib.vector.make``: ``Serial``, ``Multiprocessing``) stacks such envs. A PufferLib observation
is one ``Box``, so the mask travels in it: each row is the game's observation followed by its action mask (0/1 as
float32), and a policy splits it with ``split_observation``::

    import pufferlib.vector
    from tabletop_gym.clients.pufferlib import TabletopPufferEnv, split_observation

    envs = pufferlib.vector.make(TabletopPufferEnv, env_kwargs={"game": game, "num_envs": 256},
                                 backend=pufferlib.vector.Serial, num_envs=2, seed=0)
    observations, infos = envs.reset(seed=0)
    features, mask = split_observation(observations, envs.single_action_space.n)

Games reset in the step that ends them (Gymnasium's ``SAME_STEP``), as PufferLib's native envs do: the reward and
terminal flag of a finished game come with the next game's first observation. Each step that ends games adds one info
to the list: the mean ``won``, ``score``, ``episode_return`` and ``episode_length`` of the games it ended, and how many.

PufferLib 3.0 pins gymnasium 0.29 and numpy below 2, and its build downloads C libraries, so ``pip install
pufferlib`` does not install beside this package (which needs gymnasium 1.1 or later); its Python modules run on
gymnasium 1.x, which is how the project tests this env.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pufferlib

from tabletop_gym.envs import game as find_game


class TabletopPufferEnv(pufferlib.PufferEnv):
    """``num_envs`` games of ``game`` stepped together by its native vector env, one PufferLib agent per game.
    ``kwargs`` go to ``gym.make_vec`` (the env's own arguments: ``illegal_action``, a game's options)."""

    def __init__(self, game: str, num_envs: int = 1, buf=None, seed: int | None = 0, **kwargs):
        self.vector = gym.make_vec(find_game(game).id, num_envs=num_envs,
                                   autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, **kwargs)
        observation_space = self.vector.single_observation_space
        self.single_action_space = self.vector.single_action_space
        n = self.single_action_space.n
        self.single_observation_space = gym.spaces.Box(
            low=np.concatenate([observation_space.low.ravel(), np.zeros(n)]).astype(np.float32),
            high=np.concatenate([observation_space.high.ravel(), np.ones(n)]).astype(np.float32),
            dtype=np.float32)
        self.num_agents = num_envs
        self.seed = seed
        super().__init__(buf)
        self.episode_returns = np.zeros(num_envs)
        self.episode_lengths = np.zeros(num_envs, dtype=np.int64)

    def reset(self, seed: int | None = None):
        observations, infos = self.vector.reset(seed=self.seed if seed is None else seed)
        self.write_observations(observations, infos)
        self.episode_returns[:] = 0
        self.episode_lengths[:] = 0
        return self.observations, []

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = self.vector.step(np.asarray(actions))
        self.write_observations(observations, infos)
        self.rewards[:] = rewards
        self.terminals[:] = terminations
        self.truncations[:] = truncations
        self.episode_returns += rewards
        self.episode_lengths += 1
        return self.observations, self.rewards, self.terminals, self.truncations, self.finished_games(infos)

    def write_observations(self, observations, infos) -> None:
        """Each row: the observation, then the mask (of the next game's first position where a game just ended)."""
        width = observations.reshape(self.num_agents, -1).shape[1]
        self.observations[:, :width] = observations.reshape(self.num_agents, -1)
        self.observations[:, width:] = infos["action_mask"]

    def finished_games(self, infos) -> list[dict]:
        """One info for the games this step ended (none where it ended none), then their counters start over."""
        ended = self.terminals | self.truncations
        if not ended.any():
            return []
        outcome = infos["final_info"]
        summary = {"won": float(np.mean(outcome["won"][ended])), "score": float(np.mean(outcome["score"][ended])),
                   "episode_return": float(self.episode_returns[ended].mean()),
                   "episode_length": float(self.episode_lengths[ended].mean()), "n": int(ended.sum())}
        self.episode_returns[ended] = 0
        self.episode_lengths[ended] = 0
        return [summary]

    def close(self):
        self.vector.close()


def split_observation(observations: np.ndarray, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """A batch of observations as a policy reads it: the game's features and the bool mask of legal actions."""
    return observations[..., :-num_actions], observations[..., -num_actions:] > 0.5
