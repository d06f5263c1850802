"""Random-play throughput of the games, measured in the same run as well-known reference environments.

Absolute steps per second depend on the machine and its load, so the table reports each
environment as a ratio to PettingZoo's ``connect_four_v3.env()`` timed in the same run.
Every loop is the same: pick a uniformly random legal action, step, reset when the episode ends.

Splendor adds its PettingZoo AEC env (agent actions per second of ``splendor_v0.env()`` and
``raw_env()``, 2 players) beside PettingZoo's ``texas_holdem_v4``, and its single-agent view
against random opponents (learner steps per second, the opponents' moves played inside each step).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from ..envs import GAMES

REFERENCE = "connect_four_v3.env()"


@dataclass
class Row:
    name: str
    steps_per_second: float
    spread: float  # (max - min) / median over the repeats


def _time_gym(env: gym.Env, duration: float, seed: int, masked: bool) -> float:
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + duration
    while True:
        for _ in range(100):
            if masked:
                legal = np.flatnonzero(info["action_mask"])
                action = legal[rng.integers(legal.size)]
            else:
                action = rng.integers(env.action_space.n)
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            if terminated or truncated:
                _, info = env.reset()
        now = time.perf_counter()
        if now >= deadline:
            return steps / (now - start)


def _time_aec(env, duration: float, seed: int) -> float:
    """Agent actions per second of a PettingZoo AEC env (``step(None)`` for finished agents not counted)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    actions = 0
    start = time.perf_counter()
    deadline = start + duration
    while True:
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            actions += 1
        now = time.perf_counter()
        if now >= deadline:
            return actions / (now - start)
        env.reset()


def _subjects(games):
    from pettingzoo.classic import connect_four_v3

    subjects = {
        REFERENCE: lambda d, s: _time_aec(connect_four_v3.env(), d, s),
        "connect_four_v3.raw_env()": lambda d, s: _time_aec(connect_four_v3.raw_env(), d, s),
        "gym Blackjack-v1": lambda d, s: _time_gym(gym.make("Blackjack-v1"), d, s, masked=False),
    }
    for name in games:
        env_id = GAMES[name][0]
        if name == "splendor":
            subjects.update(_splendor_subjects(env_id))
            continue
        subjects[env_id] = lambda d, s, i=env_id: _time_gym(gym.make(i), d, s, masked=True)
        subjects[env_id + " (unwrapped)"] = lambda d, s, i=env_id: _time_gym(gym.make(i).unwrapped, d, s, masked=True)
    return subjects


def _splendor_subjects(env_id: str) -> dict:
    from pettingzoo.classic import texas_holdem_v4

    from ..envs import splendor_v0

    view = env_id + " (random opponent)"
    return {
        "texas_holdem_v4.env()": lambda d, s: _time_aec(texas_holdem_v4.env(), d, s),
        "texas_holdem_v4.raw_env()": lambda d, s: _time_aec(texas_holdem_v4.raw_env(), d, s),
        "splendor_v0.env()": lambda d, s: _time_aec(splendor_v0.env(), d, s),
        "splendor_v0.raw_env()": lambda d, s: _time_aec(splendor_v0.raw_env(), d, s),
        view: lambda d, s: _time_gym(gym.make(env_id, opponent="random"), d, s, masked=True),
        view + " (unwrapped)": lambda d, s: _time_gym(gym.make(env_id, opponent="random").unwrapped, d, s,
                                                      masked=True),
    }


def measure(duration: float = 2.0, repeats: int = 3, games=None, seed: int = 0) -> list[Row]:
    """Median steps per second of every subject; repeats are interleaved so load affects all alike."""
    subjects = _subjects(list(games or GAMES))
    samples = {name: [] for name in subjects}
    for repeat in range(repeats):
        for name, run in subjects.items():
            samples[name].append(run(duration, seed + repeat))
    rows = []
    for name, values in samples.items():
        median = statistics.median(values)
        rows.append(Row(name, median, (max(values) - min(values)) / median))
    return rows


def markdown_table(rows: list[Row]) -> str:
    reference = next(r.steps_per_second for r in rows if r.name == REFERENCE)
    lines = [f"| environment | steps/s | spread | vs {REFERENCE} |", "| --- | ---: | ---: | ---: |"]
    for row in rows:
        lines.append(f"| {row.name} | {row.steps_per_second:,.0f} | {100 * row.spread:.0f}% "
                     f"| {row.steps_per_second / reference:.2f}× |")
    return "\n".join(lines)


def main(duration: float = 2.0, repeats: int = 3, games=None, out: str | None = None) -> str:
    table = markdown_table(measure(duration, repeats, games))
    print(table)
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(table + "\n")
    return table
