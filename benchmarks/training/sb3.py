"""sb3-contrib's MaskablePPO on a game's native vector env (through ``tabletop_gym.clients.sb3.SB3VectorEnv``).

``train`` (``tabletop-gym train <game> --algo sb3``) trains MaskablePPO so, at a configuration that trains fast
(``SB3_FAST``), or on single envs at SB3's own defaults, and writes ``model.zip`` and ``learning_curve.csv`` (per
rollout, as the project's PPO writes it per update: the steps so far, the episodes finished, the win rate and mean
score of the last ``WINDOW`` training episodes, which ``tabletop-gym curves`` reads) beside the run's chart and
record.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

from ...agents import saved_policy
from ...clients.sb3 import SB3VectorEnv
from .run import Learned, TrainResult, native_vector_env, start_run, write_curve, written


# ---------------------------------------------------------------- the run: tabletop-gym train <game> --algo sb3

WINDOW = 100  # training episodes in the progress bar's running win rate
N_STEPS = 2048  # MaskablePPO's rollout length per env, shortened for a small budget
# MaskablePPO on a native vector env: many games a step, short rollouts, large minibatches, few epochs. At SB3's
# defaults (4 envs, 2,048-step rollouts, minibatches of 64, 10 epochs) the updates take two thirds of the time.
SB3_FAST = {"n_envs": 256, "n_steps": 64, "batch_size": 2048, "n_epochs": 4}


def train(game: str, timesteps: int = 100_000, seed: int = 0, n_envs: int | None = None, out=None,
          eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, vector: bool = True, overwrite: bool = False) -> TrainResult:
    """sb3-contrib's MaskablePPO on ``game``: by default on the native vector env of ``n_envs`` games at
    ``SB3_FAST`` (256 games, 64-step rollouts, 2,048-sample minibatches, 4 epochs); with ``vector=False`` on
    ``n_envs`` single envs (default 4) at SB3's own defaults. The saved ``model.zip`` is then evaluated on
    ``eval_episodes`` deals it never saw."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    import torch

    with start_run(game, out, seed, env_kwargs, eval_episodes, workers, progress, overwrite=overwrite) as run:
        torch.set_num_threads(1)  # see benchmarks/training/ppo.py's Settings.torch_threads
        fast = SB3_FAST if vector else {"n_envs": 4, "n_steps": N_STEPS, "batch_size": 64, "n_epochs": 10}
        n_envs = n_envs or fast["n_envs"]
        n_steps, rollouts = rollout_length(timesteps, n_envs, fast["n_steps"])
        trained = n_steps * n_envs * rollouts
        # 1. Environments: the registered env, as it is; MaskablePPO reads env.action_masks().
        if vector:
            envs = SB3VectorEnv(native_vector_env(run.env_id, n_envs, run.training_kwargs))
            envs.seed(seed)
        else:
            envs = make_vec_env(lambda: gym.make(run.env_id, **run.training_kwargs), n_envs=n_envs, seed=seed)

        # 2. Learn, recording every finished training episode for the curve. The rollout length is fitted to the
        #    budget (SB3's default 2048 steps per env would train 8,192 steps for a budget of 3,000 on 4 envs), and
        #    the minibatch to the rollout.
        hyperparameters = {"n_envs": n_envs, "n_steps": n_steps, "n_epochs": fast["n_epochs"],
                           "batch_size": minibatch_size(n_steps * n_envs, fast["batch_size"])}
        model = MaskablePPO("MlpPolicy", envs, seed=seed, device="cpu", verbose=0, n_steps=n_steps,
                            batch_size=hyperparameters["batch_size"], n_epochs=fast["n_epochs"])
        recorder = episode_recorder(trained, progress, f"MaskablePPO on {run.env_id}")
        started = time.perf_counter()
        model.learn(total_timesteps=trained, callback=recorder, progress_bar=False)
        seconds = time.perf_counter() - started
        model_path = run.folder / "model.zip"
        with written(model_path) as partial:
            model.save(partial)
        write_curve(run.folder, recorder.rollouts)
        learned = Learned(model_path, int(model.num_timesteps), hyperparameters, seconds,
                          learning_curve(recorder.episodes))
        return run.finish(saved_policy(str(model_path)), "sb3", "MaskablePPO (sb3-contrib)", learned, timesteps)


def rollout_length(timesteps: int, n_envs: int, longest: int = N_STEPS) -> tuple[int, int]:
    """(steps per env in a rollout, rollouts) for ``timesteps`` on ``n_envs`` envs: as few rollouts as the
    longest rollout allows, each as short as covers the budget in a multiple of 8 steps (so that minibatches
    divide it), so that at most ``8 * n_envs`` steps a rollout are trained beyond what was asked (PPO learns
    from whole rollouts only)."""
    if timesteps < 1:
        raise ValueError(f"timesteps must be at least 1, got {timesteps}")
    if n_envs < 1:
        raise ValueError(f"n_envs must be at least 1, got {n_envs}")
    rollouts = -(-timesteps // (longest * n_envs))
    n_steps = -(-timesteps // (rollouts * n_envs))
    return -(-n_steps // 8) * 8, rollouts


def minibatch_size(rollout: int, largest: int = 64) -> int:
    """The largest minibatch of at most ``largest`` samples that divides a rollout of ``rollout`` samples."""
    return next(size for size in range(min(largest, rollout), 0, -1) if rollout % size == 0)


def learning_curve(episodes: list, points: int = 50) -> list:
    """Win rate of the training episodes in ``points`` consecutive windows."""
    if not episodes:
        return []
    steps, won, _ = (np.array(column) for column in zip(*episodes))
    windows = np.array_split(np.arange(len(episodes)), min(points, len(episodes)))
    return [(int(steps[w[-1]]), float(won[w].mean())) for w in windows if len(w)]


def episode_recorder(total: int, progress: bool, desc: str):
    """An SB3 callback that keeps (timestep, won, score) for every finished training episode, a row of the learning
    curve at the end of every rollout (``rollouts``), and shows a progress bar with the win rate of the last
    ``WINDOW`` episodes."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class EpisodeRecorder(BaseCallback):
        def __init__(self):
            super().__init__()
            self.episodes = []
            self.rollouts = []
            self.bar = None

        def _on_training_start(self) -> None:
            self.bar = tqdm(total=total, desc=desc, unit="step", disable=not progress)

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done:
                    self.episodes.append((self.num_timesteps, bool(info.get("won", False)),
                                          float(info.get("score", 0.0))))
            self.bar.update(self.training_env.num_envs)
            if self.episodes and self.n_calls % 16 == 0:
                recent = self.episodes[-WINDOW:]
                self.bar.set_postfix_str(f"win rate {100 * np.mean([won for _, won, _ in recent]):.1f}% "
                                         f"(last {len(recent)} episodes)", refresh=False)
            return True

        def _on_rollout_end(self) -> None:
            recent = self.episodes[-WINDOW:]
            self.rollouts.append({"step": self.num_timesteps, "episodes": len(self.episodes),
                                  "win_rate": float(np.mean([won for _, won, _ in recent])) if recent else 0.0,
                                  "mean_score": float(np.mean([score for _, _, score in recent])) if recent else 0.0})

        def _on_training_end(self) -> None:
            self.bar.close()

    return EpisodeRecorder()
