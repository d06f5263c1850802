"""Train MaskablePPO (sb3-contrib) on a game, top to bottom: make envs, learn, save, plot, evaluate.

    tabletop-gym train dungeon_solitaire --timesteps 200000

writes ``<out>/model.zip``, ``<out>/learning_curve.png`` (win rate of the training episodes against
timesteps, with the final evaluation marked) and ``<out>/result.json``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np

from ..envs import game_id
from .evaluate import EvalResult, evaluate


@dataclass
class TrainResult:
    game: str
    timesteps: int
    model_path: str
    curve_path: str
    curve: list  # [(timestep, win rate of the training episodes in that window), ...]
    evaluation: dict
    env_kwargs: dict  # the env's options, agents by name


def _episode_recorder():
    """An SB3 callback that keeps (timestep, won, score) for every finished training episode."""
    from stable_baselines3.common.callbacks import BaseCallback

    class EpisodeRecorder(BaseCallback):
        def __init__(self):
            super().__init__()
            self.episodes = []

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done:
                    self.episodes.append((self.num_timesteps, bool(info.get("won", False)),
                                          float(info.get("score", 0.0))))
            return True

    return EpisodeRecorder()


def learning_curve(episodes: list, points: int = 50) -> list:
    """Win rate of the training episodes in ``points`` consecutive windows."""
    if not episodes:
        return []
    steps, won, _ = (np.array(column) for column in zip(*episodes))
    windows = np.array_split(np.arange(len(episodes)), min(points, len(episodes)))
    return [(int(steps[w[-1]]), float(won[w].mean())) for w in windows if len(w)]


def plot_curve(curve: list, evaluation: EvalResult, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    if curve:
        x, y = zip(*curve)
        ax.plot(x, np.array(y) * 100, label="training episodes (windowed)")
    ax.errorbar([curve[-1][0] if curve else 0], [evaluation.win_rate * 100],
                yerr=[[100 * max(0.0, evaluation.win_rate - evaluation.win_low)],
                      [100 * max(0.0, evaluation.win_high - evaluation.win_rate)]],
                fmt="o", color="black", capsize=4, label=f"final evaluation ({evaluation.episodes} episodes)")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("win rate (%)")
    ax.set_title(title)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _by_name(option):
    """An env option as JSON can hold it: agent objects (Splendor's opponents) by their names."""
    if isinstance(option, (list, tuple)):
        return [_by_name(o) for o in option]
    return getattr(option, "name", type(option).__name__) if hasattr(option, "act") else option


def _vector_envs(env_id: str, n_envs: int, seed: int, env_kwargs: dict):
    from ..agents.sb3_vector import SB3VectorEnv
    from ..envs import GAMES, VECTOR_ENTRY_POINTS

    if not any(GAMES[name][0] == env_id for name in VECTOR_ENTRY_POINTS):
        raise ValueError(f"{env_id} has no native vector env; the games that have one: "
                         f"{', '.join(VECTOR_ENTRY_POINTS)}")
    envs = SB3VectorEnv(gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", **env_kwargs))
    envs.seed(seed)
    return envs


def train(game: str, timesteps: int = 100_000, seed: int = 0, n_envs: int = 4, out: str | None = None,
          eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, vector: bool = False) -> TrainResult:
    """Train MaskablePPO on ``game`` and evaluate the result; everything is written under ``out``.

    ``vector`` trains on the game's native vector env (``n_envs`` games stepped as one batch) instead of
    ``n_envs`` single envs: the same games, far fewer Python calls per step.
    """
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from ..agents.ppo import PPOAgent

    env_id = game_id(game)
    env_kwargs = dict(env_kwargs or {})
    folder = Path(out or Path("runs") / env_id.split("/")[-1])
    folder.mkdir(parents=True, exist_ok=True)

    # 1. Environments: the registered env, as it is; MaskablePPO reads env.action_masks().
    if vector:
        envs = _vector_envs(env_id, n_envs, seed, env_kwargs)
    else:
        envs = make_vec_env(lambda: gym.make(env_id, **env_kwargs), n_envs=n_envs, seed=seed)

    # 2. Learn, recording every finished training episode for the curve.
    model = MaskablePPO("MlpPolicy", envs, seed=seed, device="cpu", verbose=0)
    recorder = _episode_recorder()
    model.learn(total_timesteps=timesteps, callback=recorder, progress_bar=False)
    model_path = folder / "model.zip"
    model.save(model_path)

    # 3. Evaluate the saved model like any agent, on deals it never trained on.
    result = evaluate(env_id, PPOAgent(model_path), episodes=eval_episodes, seed=10_000_000 + seed,
                      workers=workers, progress=progress, env_kwargs=env_kwargs)

    # 4. The learning curve and a record of the run.
    curve = learning_curve(recorder.episodes)
    curve_path = folder / "learning_curve.png"
    plot_curve(curve, result, f"MaskablePPO on {env_id}", curve_path)
    options = {name: _by_name(value) for name, value in env_kwargs.items()}
    outcome = TrainResult(env_id, timesteps, str(model_path), str(curve_path), curve, result.as_dict(), options)
    (folder / "result.json").write_text(json.dumps(asdict(outcome), indent=2))
    return outcome
