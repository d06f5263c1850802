"""Golden playthroughs: seeded episodes written out as text (table, action, table ...) and diffed.

A change of behaviour shows up here as a diff. When the change is intended, regenerate on purpose:

    python tests/test_playthroughs.py
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from helpers import random_legal  # noqa: E402

from tabletop_gym.envs import GAMES  # noqa: E402

FOLDER = HERE / "playthroughs"
SEEDS = (0, 1)
MAX_STEPS = 60  # long games are cut here: the first 60 choices already pin the behaviour down


def playthrough(env_id: str, seed: int) -> str:
    """The text of a seeded random-legal episode: every table the player sees and every action taken."""
    env = gym.make(env_id, render_mode="ansi")
    names = env.unwrapped.action_names
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    lines = [f"# {env_id}, reset(seed={seed}), random legal actions drawn with seed {seed}", "", env.render()]
    for step in range(1, MAX_STEPS + 1):
        action = random_legal(rng, info["action_mask"])
        _, reward, terminated, truncated, info = env.step(action)
        lines += ["", f"> step {step}: {names[action]}", "", env.render()]
        if terminated or truncated:
            outcome = {key: info[key].item() for key in ("won", "score")}
            lines += ["", f"= terminated={terminated} truncated={truncated} reward={reward} {outcome}"]
            break
    else:
        lines += ["", f"= cut after {MAX_STEPS} steps"]
    return "\n".join(lines) + "\n"


def path_of(name: str, seed: int) -> Path:
    return FOLDER / f"{name}_seed{seed}.txt"


CASES = [(game.name, game.id, seed) for game in GAMES.values() for seed in SEEDS]


@pytest.mark.parametrize("name, env_id, seed", CASES)
def test_playthrough_matches_its_golden_file(name, env_id, seed):
    golden = path_of(name, seed)
    assert golden.exists(), f"{golden} is missing: run `python tests/test_playthroughs.py` to write it"
    expected = golden.read_text(encoding="utf-8")
    actual = playthrough(env_id, seed)
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            str(golden), "now", n=2))
        pytest.fail(f"{name} seed {seed} plays differently from its golden file:\n{diff[:4000]}")


if __name__ == "__main__":
    FOLDER.mkdir(exist_ok=True)
    wanted = set(sys.argv[1:])
    for name, env_id, seed in CASES:
        if not wanted or name in wanted:
            path_of(name, seed).write_text(playthrough(env_id, seed), encoding="utf-8")
            print("wrote", path_of(name, seed))
