"""Play many episodes of an agent on a game and report its win rate with a Wilson 95% interval.

Episode ``i`` is dealt with seed ``seed + i`` and the agent is reset with the same seed, so a
result depends only on (game, agent, episodes, seed), never on how many workers ran it.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass

import gymnasium as gym
import numpy as np
from tqdm.auto import tqdm

from ..agents import make_agent
from ..envs import game_id

Z_95 = 1.959963984540054


def wilson_interval(wins: int, episodes: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    if episodes <= 0:
        return 0.0, 1.0
    p = wins / episodes
    denominator = 1 + z * z / episodes
    centre = (p + z * z / (2 * episodes)) / denominator
    half = z * math.sqrt(p * (1 - p) / episodes + z * z / (4 * episodes * episodes)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class EvalResult:
    game: str
    agent: str
    episodes: int
    wins: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    mean_length: float

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return (f"{self.agent} on {self.game}: win rate {100 * self.win_rate:.2f}% "
                f"(95% CI {100 * self.win_low:.2f}-{100 * self.win_high:.2f}%) over {self.episodes} episodes, "
                f"mean score {self.mean_score:.2f}, mean length {self.mean_length:.1f} steps")


def play_episode(env: gym.Env, agent, seed: int) -> tuple[bool, float, int]:
    """One episode from ``reset(seed=seed)``; returns (won, score, steps taken by the agent)."""
    if hasattr(agent, "reset"):
        agent.reset(seed=seed)
    observation, info = env.reset(seed=seed)
    steps = 0
    while True:
        action = agent.act(observation, info["action_mask"])
        observation, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            return bool(info.get("won", False)), float(info.get("score", 0.0)), steps


def _play_chunk(env_id: str, env_kwargs: dict, agent, seeds: list[int]) -> list[tuple[int, bool, float, int]]:
    env = gym.make(env_id, **env_kwargs)
    if isinstance(agent, str):
        agent = make_agent(agent, env_id)
    results = [(seed, *play_episode(env, agent, seed)) for seed in seeds]
    env.close()
    return results


def _agent_name(agent) -> str:
    return agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)


def evaluate(game: str, agent="random", episodes: int = 100, seed: int = 0, workers: int | None = None,
             progress: bool = True, env_kwargs: dict | None = None) -> EvalResult:
    """Win rate, mean score and mean length of ``agent`` over ``episodes`` deals of ``game``.

    ``agent`` is a name known to ``make_agent`` or an agent object (picklable when ``workers`` > 1).
    ``workers`` defaults to the number of CPUs; 1 plays in this process.
    """
    env_id = game_id(game)
    env_kwargs = dict(env_kwargs or {})
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    workers = workers or os.cpu_count() or 1
    seeds = [seed + i for i in range(episodes)]
    size = max(1, episodes // (workers * 8))
    chunks = [seeds[i:i + size] for i in range(0, episodes, size)]
    results = []
    bar = tqdm(total=episodes, desc=f"{_agent_name(agent)} on {env_id}", disable=not progress, unit="ep")
    if workers == 1 or len(chunks) == 1:
        for chunk in chunks:
            results.extend(_play_chunk(env_id, env_kwargs, agent, chunk))
            bar.update(len(chunk))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_play_chunk, env_id, env_kwargs, agent, chunk): len(chunk) for chunk in chunks}
            for future in as_completed(futures):
                results.extend(future.result())
                bar.update(futures[future])
    bar.close()
    results.sort()  # by seed, so sums do not depend on which worker finished first
    _, won, score, length = (np.array(column, dtype=float) for column in zip(*results))
    wins = int(won.sum())
    low, high = wilson_interval(wins, episodes)
    return EvalResult(game=env_id, agent=_agent_name(agent), episodes=episodes, wins=wins,
                      win_rate=wins / episodes, win_low=low, win_high=high,
                      mean_score=float(score.mean()), mean_length=float(length.mean()))
