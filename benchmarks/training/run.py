"""What every trainer shares: the run's folder, the final evaluation on deals it never saw, the learning curve and
the record of the run. Each trainer (``ppo``, ``clone``, ``selfplay``, ``sb3``, ``value``, ``rllib``: a file each,
with its own ``train()``) checks its options, opens its run (``with start_run(...) as run:``), learns in its own
way, and ends with ``Run.finish``, which writes, beside the trainer's model:

- ``learning_curve.png``: the win rate of the training episodes against the steps, the final evaluation marked;
- ``result.json``: the game, its options, the hyperparameters, the seed, the steps, the time and the final
  evaluation (``TrainResult``).

A folder holds one run. ``start_run`` refuses a folder that holds another run's files (``RUN_FILES``) unless asked
to overwrite it (those files are then removed first) or to resume the run there from its checkpoint; while the run
writes it holds the folder's lock (``LOCK``, a file made only if absent, naming the process), so a second run into
the same folder is refused. Every file is written under a temporary name and renamed when whole (``written``),
and ``result.json`` comes last: a folder without it holds a run that did not finish.
"""

from __future__ import annotations

import csv
import json
import os
import pickle
import shutil
import sys
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gymnasium as gym
import numpy as np

from ... import envs
from ...envs import GAMES, BadFileError, Game
from ..evaluation.evaluate import EvalResult, evaluate

EVALUATION_SEEDS = 10_000_000  # + the run's seed: the final evaluation's first deal, away from every training deal
CHECKPOINT = "checkpoint.pt"  # a trainer that resumes keeps the run so far here, until the run is finished
# What the trainers write into a run's folder (RLlib's checkpoint and az's rounds are folders), and the lock held
# while one writes.
RUN_FILES = ("result.json", "learning_curve.png", "learning_curve.csv", "model.pt", "policy.npz", "model.zip",
             "value.npz", CHECKPOINT, "checkpoint", "rounds")
LOCK = "run.lock"
PARTIAL = ".partial"  # before a file's suffix while it is written: result.partial.json


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
        with written(curve_path) as partial:
            plot_curve(learned.curve, evaluation, f"{title} on {self.env_id}", partial)
        options = {key: by_name(value) for key, value in self.training_kwargs.items()}
        result = TrainResult(self.env_id, learned.steps, timesteps_requested, self.seed, str(learned.model_path),
                             str(curve_path), learned.curve, evaluation.as_dict(), options,
                             {"algo": algo, **learned.hyperparameters}, round(learned.seconds, 1), others)
        with written(self.folder / "result.json") as partial:
            partial.write_text(json.dumps(asdict(result), indent=2))
        (self.folder / CHECKPOINT).unlink(missing_ok=True)  # finished: there is nothing left to resume
        return result

    def evaluate(self, agent, env_kwargs: dict) -> EvalResult:
        return evaluate(self.env_id, agent, episodes=self.eval_episodes, seed=EVALUATION_SEEDS + self.seed,
                        workers=self.workers, progress=self.progress, env_kwargs=env_kwargs)


@contextmanager
def start_run(game: str, out, seed: int, env_kwargs: dict | None, eval_episodes: int, workers: int | None,
              progress: bool, seat_drawn: bool = True, overwrite: bool = False, resume: bool = False):
    """``with start_run(...) as run:`` the run, in its folder (``out``, by default ``runs/<Game>-v0``), made now
    that the options are checked and locked until the block ends (``locked``). A folder that holds another run's
    files is refused, unless ``overwrite`` (they are removed first) or ``resume`` (the run there goes on from its
    checkpoint: ``check_run_folder``). A Ctrl-C that leaves a checkpoint says how to go on from it. In a
    multi-player game the evaluation rotates the learner's seat, so with ``seat_drawn`` the learner trains in a
    seat drawn per game."""
    entry = envs.game(game)
    env_kwargs = dict(env_kwargs or {})
    training_kwargs = training_options(entry, env_kwargs) if seat_drawn else env_kwargs
    folder = run_folder(entry, out)
    check_run_folder(folder, overwrite, resume)  # before the folder is made or locked: a refusal leaves no trace
    folder.mkdir(parents=True, exist_ok=True)
    with locked(folder):
        old = check_run_folder(folder, overwrite, resume)  # again, now that no other run can write there
        for name in old if overwrite else ():
            if (folder / name).is_dir():
                shutil.rmtree(folder / name)
            else:
                (folder / name).unlink()
        try:
            yield Run(entry, folder, seed, env_kwargs, training_kwargs, eval_episodes, workers, progress)
        except KeyboardInterrupt:
            if (folder / CHECKPOINT).is_file():
                raise KeyboardInterrupt(f"interrupted: {folder / CHECKPOINT} holds the run so far; go on with the "
                                        f"same command and --resume {folder} (tabletop-gym train ... --resume "
                                        f"{folder})") from None
            raise


def read_checkpoint(path: Path) -> dict:
    """The checkpoint a trainer saved at ``path`` (a dict with its ``update``), read as data (tensors, numbers,
    text, lists, dicts; anything else is refused, never run)."""
    import torch  # a trainer's checkpoint: the trainers need torch, the rest of this file does not

    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise BadFileError(path, "no checkpoint to resume from") from None
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError) as error:
        raise BadFileError(path, f"not a checkpoint tabletop-gym train saved ({str(error).splitlines()[0]})") \
            from None
    if not isinstance(saved, dict) or "update" not in saved:
        raise BadFileError(path, "not a checkpoint tabletop-gym train saved")
    return saved


def run_folder(game: str | Game, out) -> Path:
    """A run's folder: ``out``, by default ``runs/<Game>-v0``."""
    return Path(out or Path("runs") / envs.game(game).label)


def check_run_folder(folder: Path, overwrite: bool = False, resume: bool = False) -> list:
    """The names of the run files (``RUN_FILES``, whole or partly written) in ``folder``; a ValueError when it
    holds another run and neither ``overwrite`` nor ``resume`` is asked, or when ``resume`` finds no unfinished run
    with a checkpoint there."""
    if overwrite and resume:
        raise ValueError("--overwrite starts the run afresh and --resume goes on with it: choose one")
    names = sorted(path.name for path in folder.iterdir()
                   if path.name.replace(PARTIAL, "") in RUN_FILES) if folder.is_dir() else []
    if resume:
        if "result.json" in names:
            raise ValueError(f"{folder} holds a finished run (result.json): there is nothing to resume")
        if CHECKPOINT not in names:
            raise ValueError(f"{folder} holds no {CHECKPOINT} to resume from")
    elif names and not overwrite:
        unfinished = CHECKPOINT in names and "result.json" not in names
        go_on = f", --resume {folder} to go on with it," if unfinished else ""
        raise ValueError(f"{folder} holds another run ({', '.join(names)}): pass --overwrite to replace it{go_on} "
                         f"or another --out")
    return names


@contextmanager
def locked(folder: Path):
    """Hold ``folder``'s lock while the block runs: ``LOCK``, made only if absent (``O_EXCL``) and naming this
    process, removed at the end whatever happens. A lock held by a running process refuses the run; one left by a
    process that is gone (killed, or its machine restarted) is taken over, with a note."""
    path = folder / LOCK
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        holder = path.read_text().strip()
        if not holder.isdigit() or running(int(holder)):
            raise ValueError(f"{folder} is in use by another training run (process {holder or '?'}, {path}): wait "
                             f"for it to end or choose another --out (remove {path} if no run writes there)") \
                from None
        print(f"note: {path} was left by process {holder}, which is no longer running: taking the folder over",
              file=sys.stderr)
        path.unlink()
        try:
            handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise ValueError(f"{folder} was just taken by another training run ({path})") from None
    with os.fdopen(handle, "w") as lock:
        lock.write(str(os.getpid()))
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def running(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


@contextmanager
def written(path: Path):
    """``with written(path) as partial:`` write ``partial`` (``path`` with ``PARTIAL`` before its suffix, which
    the writer may go by); when the block ends without an error it is renamed to ``path`` at once, so that ``path``
    is never seen half written."""
    partial = path.with_name(path.stem + PARTIAL + path.suffix)
    try:
        yield partial
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def write_curve(folder: Path, rows: list[dict]) -> None:
    """``learning_curve.csv`` in ``folder``, a row per update (or rollout, or iteration): the steps so far, the
    episodes finished, the win rate and mean score of the last training episodes; what ``tabletop-gym curves``
    reads, whichever trainer wrote it."""
    with written(folder / "learning_curve.csv") as partial, open(partial, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


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
    # The object API draws without pyplot, so a caller's backend (a notebook's inline one) stays as it was.
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
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
