"""What every trainer shares: the run's folder, the final evaluation on deals it never saw, the learning curve and
the record of the run. Each trainer (``ppo``, ``clone``, ``selfplay``, ``sb3``, ``value``, ``rllib``: a file each,
with its own ``train()``) checks its options, opens a ``Run``, learns in its own way, and ends with
``Run.finish``, which writes, beside the trainer's model:

- ``learning_curve.png``: the win rate of the training episodes against the steps, the final evaluation marked;
- ``result.json``: the game, its options, the hyperparameters, the seed, the steps, the time and the final
  evaluation (``TrainResult``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gymnasium as gym
import numpy as np

from ... import envs
from ...envs import GAMES, Game
from ..evaluation.evaluate import EvalResult, evaluate

EVALUATION_SEEDS = 10_000_000  # + the run's seed: the final evaluation's first deal, away from every training deal


@dataclass
class TrainResult:
    game: str
    timesteps: int  # steps trained: whole rollouts, at least the budget asked for
    timesteps_requested: int
    seed: int
    model_path: str
    curve_path: str
    curve: list  # [(timestep, win rate of the training episodes in that window), ...]
    evaluation: dict
    env_kwargs: dict  # the env's options, agents by name
    hyperparameters: dict  # the algorithm and its settings (for sb3, those that differ from its defaults)
    seconds: float  # wall-clock time of the learning (not of the final evaluation)
    other_evaluations: dict = field(default_factory=dict)  # a multi-player game: the other built-in opponents too


@dataclass
class Learned:
    """What a trainer hands back to its run: the model written, the steps it learned from, its settings, the
    seconds it took and the curve [(step, win rate of the training episodes), ...]."""
    model_path: Path
    steps: int
    hyperparameters: dict
    seconds: float
    curve: list


@dataclass
class Run:
    """One training run: its game, its folder, the env the learner trains on, the env the final evaluation plays."""
    game: Game
    folder: Path
    seed: int
    env_kwargs: dict  # the evaluation's env
    training_kwargs: dict  # the learner's env: in a multi-player game, its seat drawn per game
    eval_episodes: int
    workers: int | None
    progress: bool

    @property
    def env_id(self) -> str:
        """The game's Gymnasium id: the envs are made, and the records written, with it."""
        return self.game.id

    def finish(self, agent, algo: str, title: str, learned: Learned, timesteps_requested: int) -> TrainResult:
        """Evaluate ``agent`` (the saved model, played as any agent) on deals the training never saw; in a
        multi-player game against every built-in opponent; draw the curve and write the record."""
        evaluation = self.evaluate(agent, self.env_kwargs)
        others = {opponent: self.evaluate(agent, {**self.env_kwargs, "opponent": opponent}).as_dict()
                  for opponent in self.game.built_in_opponents if opponent != evaluation.opponent}
        curve_path = self.folder / "learning_curve.png"
        plot_curve(learned.curve, evaluation, f"{title} on {self.env_id}", curve_path)
        options = {key: by_name(value) for key, value in self.training_kwargs.items()}
        result = TrainResult(self.env_id, learned.steps, timesteps_requested, self.seed, str(learned.model_path),
                             str(curve_path), learned.curve, evaluation.as_dict(), options,
                             {"algo": algo, **learned.hyperparameters}, round(learned.seconds, 1), others)
        (self.folder / "result.json").write_text(json.dumps(asdict(result), indent=2))
        return result

    def evaluate(self, agent, env_kwargs: dict) -> EvalResult:
        return evaluate(self.env_id, agent, episodes=self.eval_episodes, seed=EVALUATION_SEEDS + self.seed,
                        workers=self.workers, progress=self.progress, env_kwargs=env_kwargs)


def start_run(game: str, out, seed: int, env_kwargs: dict | None, eval_episodes: int, workers: int | None,
              progress: bool, seat_drawn: bool = True) -> Run:
    """The run's folder (``out``, by default ``runs/<Game>-v0``), made now that the options are checked. In a
    multi-player game the evaluation rotates the learner's seat, so with ``seat_drawn`` the learner trains in a
    seat drawn per game."""
    entry = envs.game(game)
    env_kwargs = dict(env_kwargs or {})
    training_kwargs = training_options(entry, env_kwargs) if seat_drawn else env_kwargs
    folder = Path(out or Path("runs") / entry.label)
    folder.mkdir(parents=True, exist_ok=True)
    return Run(entry, folder, seed, env_kwargs, training_kwargs, eval_episodes, workers, progress)


def training_options(game: str | Game, env_kwargs: dict | None) -> dict:
    """The env options the learner trains on in ``game`` (any of its names, or its ``Game``): ``env_kwargs``, and
    in a multi-player game a seat drawn per game."""
    env_kwargs = dict(env_kwargs or {})
    if not envs.game(game).multiplayer:
        return env_kwargs
    if "seat" in env_kwargs:
        raise ValueError("train seats the learner at random in every game (the evaluation rotates the seat); "
                         "do not fix it in env_kwargs")
    return {**env_kwargs, "seat": "random"}


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


def by_name(option):
    """An env option as JSON can hold it: agent objects (a multi-player game's opponents) by their names."""
    if isinstance(option, (list, tuple)):
        return [by_name(o) for o in option]
    return getattr(option, "name", type(option).__name__) if hasattr(option, "act") else option


def native_vector_env(env_id: str, n_envs: int, env_kwargs: dict):
    """The game's native vector env of ``n_envs`` games, or a ValueError naming the games that have one."""
    if envs.game(env_id).vector_env is None:
        raise ValueError(f"{env_id} has no native vector env; the games that have one: "
                         f"{', '.join(g.name for g in GAMES.values() if g.vector_env)}")
    return gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", **env_kwargs)
