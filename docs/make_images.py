"""Draw the pictures under docs/images/: each game's table halfway through an episode of its heuristic agent.

    python docs/make_images.py

needs the render extra (``pip install "tabletop-gym[render]"``). The episodes are seeded, so the pictures
only change when a game's rules, its heuristic or its picture change.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
from PIL import Image

from tabletop_gym.agents import make_agent
from tabletop_gym.envs import GAMES, game  # importing the games registers them

FOLDER = Path(__file__).resolve().parent / "images"


def play(name: str, seed: int, options: dict, stop: int | None = None):
    """The heuristic's episode up to ``stop`` steps (all of it when None): the env and the steps taken."""
    env = gym.make(game(name).id, render_mode="rgb_array", **options)
    agent = make_agent("heuristic", name, seed)
    agent.reset(seed=seed)
    observation, info = env.reset(seed=seed)
    steps = 0
    while stop is None or steps < stop:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info["action_mask"]))
        steps += 1
        if terminated or truncated:
            break
    return env, steps


def main() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name in GAMES:
        seed, options = game(name).module("picture").SAMPLE
        _, length = play(name, seed, options)
        env, _ = play(name, seed, options, stop=length // 2)
        path = FOLDER / f"{name}.png"
        # 256 colours are plenty for these flat pictures and keep each file small.
        Image.fromarray(env.render()).quantize(256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
        print(f"{path.relative_to(FOLDER.parent.parent)}: step {length // 2} of {length}, "
              f"{path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
