"""Train a masked policy on a game: make envs, learn, save, evaluate, plot, record.

    tabletop-gym train dungeon_solitaire --timesteps 2000000              # the project's own masked PPO
    tabletop-gym train dungeon_solitaire --algo sb3 --timesteps 200000    # sb3-contrib's MaskablePPO
    tabletop-gym train royal_assassin --algo value                       # a learned value, one card ahead

writes ``<out>/model.pt`` and ``<out>/policy.npz`` (the actor, which numpy alone plays; sb3: ``model.zip``; value:
``value.npz``), ``<out>/learning_curve.png`` (win rate of the training episodes against timesteps, with the final
evaluation marked), ``<out>/learning_curve.csv`` (the own PPO's curve, update by update; the value trainer's,
every 1,000 games) and ``<out>/result.json`` (the game, its options, the hyperparameters, the seed,
the steps, the time and the final evaluation).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gymnasium as gym
import numpy as np

from ...agents import VALUE_GAMES
from ...envs import GAMES, game_id, game_name
from ...envs.core.env import observation_modes, observation_size
from ..evaluation.evaluate import BUILT_IN_OPPONENTS, MULTIPLAYER, EvalResult, evaluate


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
    other_evaluations: dict = field(default_factory=dict)  # Splendor: against the other built-in opponents too


def _episode_recorder(total: int, progress: bool, desc: str):
    """An SB3 callback that keeps (timestep, won, score) for every finished training episode and shows a
    progress bar with the win rate of the last ``WINDOW`` of them."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class EpisodeRecorder(BaseCallback):
        def __init__(self):
            super().__init__()
            self.episodes = []
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

        def _on_training_end(self) -> None:
            self.bar.close()

    return EpisodeRecorder()


WINDOW = 100  # training episodes in the progress bar's running win rate
N_STEPS = 2048  # MaskablePPO's rollout length per env, shortened for a small budget


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


def _native_vector_env(env_id: str, n_envs: int, env_kwargs: dict):
    from ...envs import GAMES, VECTOR_ENTRY_POINTS

    if not any(GAMES[name][0] == env_id for name in VECTOR_ENTRY_POINTS):
        raise ValueError(f"{env_id} has no native vector env; the games that have one: "
                         f"{', '.join(VECTOR_ENTRY_POINTS)}")
    return gym.make_vec(env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", **env_kwargs)


ALGOS = ("ppo", "sb3", "rllib", "value")


def train(game: str, timesteps: int = 100_000, seed: int = 0, n_envs: int | None = None, out: str | None = None,
          eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, vector: bool = True, algo: str = "ppo", start: str | None = None,
          start_episodes: int = 2000, self_play: bool = False, ppo_settings: dict | None = None,
          runners: int = 2, address: str | None = None, teacher: str | None = None,
          read_plain: bool = True, games: int | None = None, value_settings: dict | None = None) -> TrainResult:
    """Train a masked policy on ``game`` and evaluate it on deals it never saw; everything is written under ``out``.

    ``algo="ppo"`` (the default) is the project's own masked PPO (``tabletop_gym.benchmarks.training.ppo``) on the game's
    native vector env of ``n_envs`` games (default 64). ``algo="sb3"`` is sb3-contrib's MaskablePPO, by default on
    the native vector env of ``n_envs`` games at the configuration that trains fast (``SB3_FAST``: 256 games,
    64-step rollouts, 2,048-sample minibatches, 4 epochs); with ``vector=False`` on ``n_envs`` single envs (default
    4) at SB3's own defaults.
    ``start`` (own PPO only): an agent's name (``heuristic``, ``search``...) whose play over ``start_episodes``
    deals the policy first learns by behaviour cloning (``tabletop_gym.benchmarks.training.clone``), before PPO; its games
    are shared among ``workers`` processes, as the final evaluation's are (default: one per CPU).
    Splendor without ``self_play`` trains against ``env_kwargs``' opponent (the env's default: greedy) with the
    learner's seat drawn per game, since the evaluation rotates it.
    ``algo="rllib"`` is RLlib's PPO with action masking (``tabletop_gym.benchmarks.training.rllib``, the ray extra) on the
    native vector env, ``runners`` remote env runners of ``n_envs`` games each (default 32), on the Ray cluster at
    ``address`` (or this process's Ray session, or a new local one); it writes an RLlib checkpoint.
    ``teacher`` (own PPO only): an agent's name whose move on every position the policy reaches in training
    kickstarts it (``tabletop_gym.benchmarks.training.ppo.learn``'s ``teacher``; its weight ``teacher_coef``, by default
    ``TEACHER_COEF``, falls to 0 over ``teacher_decay`` of the training, by default ``TEACHER_DECAY``).
    ``ppo_settings``: fields of ``tabletop_gym.benchmarks.training.ppo.Settings`` to change (``learning_rate``...).
    ``read_plain=False`` (own PPO, ``env_kwargs`` with ``observation="features"`` or ``"actions"``): the policy
    reads the features alone, not the plain observation before them (``MaskedPolicy``'s ``read_from``).
    ``algo="value"`` (Royal Assassin, One Card Dungeon): a learned value the game's value agent plays
    (``tabletop_gym.benchmarks.training.value``): of the tables, judged one card ahead (Royal Assassin), or of the levels'
    starts, judging each level-up (One Card Dungeon); ``games`` deals a phase (default 80,000 and 6,000),
    ``timesteps`` unused; ``value_settings``: fields of ``tabletop_gym.benchmarks.training.value.Settings`` to change. It
    writes ``value.npz``.
    ``self_play`` (Splendor, own PPO): train on the AEC env against a league of the learner's snapshots and the
    random and greedy players (``tabletop_gym.benchmarks.training.selfplay``); the final evaluation is against the greedy
    player. For Splendor ``other_evaluations`` holds the evaluations against the other built-in opponents
    (seats rotated in every one).
    """
    if algo not in ALGOS:
        raise ValueError(f"algo must be one of {', '.join(ALGOS)}, got {algo!r}")
    if (runners != 2 or address is not None) and algo != "rllib":
        raise ValueError("runners and address are RLlib's: they go with algo='rllib'")
    if start is not None and algo != "ppo":
        raise ValueError("start (behaviour cloning first) goes with the project's own PPO, algo='ppo'")
    if teacher is not None and (algo != "ppo" or self_play):
        raise ValueError("teacher (kickstarting) goes with the project's own PPO on the native vector env: "
                         "algo='ppo', without self_play")
    if teacher is None and {"teacher_coef", "teacher_decay"} & set(ppo_settings or {}):
        raise ValueError("teacher_coef and teacher_decay go with a teacher")
    env_id = game_id(game)
    if algo == "value":
        _check_value_options(env_id, env_kwargs, self_play, read_plain, ppo_settings)
    elif games is not None or value_settings is not None:
        raise ValueError("games and value_settings go with the value trainer, algo='value'")
    if not read_plain:
        ppo_settings = {**(ppo_settings or {}), "read_from": _plain_size(env_id, env_kwargs or {}, algo)}
    if self_play and (algo == "sb3" or env_id != GAMES["splendor"][0]):
        raise ValueError("self_play trains Splendor with the project's own PPO (algo='ppo') or RLlib's")
    if self_play and set(env_kwargs or {}) - {"num_players"}:
        raise ValueError(f"self_play takes the option num_players only (the league plays the other seats), got "
                         f"{', '.join(sorted(env_kwargs))}")
    env_kwargs = dict(env_kwargs or {})
    training_kwargs = env_kwargs
    if env_id in MULTIPLAYER and not self_play:
        # The evaluation rotates the learner's seat, so it learns every seat: one drawn per game.
        if "seat" in env_kwargs:
            raise ValueError("train seats the learner at random in every game (the evaluation rotates the seat); "
                             "do not fix it in env_kwargs")
        training_kwargs = {**env_kwargs, "seat": "random"}
    folder = Path(out or Path("runs") / env_id.split("/")[-1])
    folder.mkdir(parents=True, exist_ok=True)
    if algo == "ppo":
        model_path, trained, hyperparameters, seconds, curve = _train_own(
            env_id, timesteps, seed, n_envs, folder, training_kwargs, progress, start, start_episodes, self_play,
            ppo_settings or {}, teacher, workers)
    elif algo == "sb3":
        model_path, trained, hyperparameters, seconds, curve = _train_sb3(
            env_id, timesteps, seed, n_envs, folder, training_kwargs, progress, vector)
    elif algo == "value":
        from .value import learn as learn_value

        run = learn_value(game_name(env_id), games, seed, folder, workers or os.cpu_count() or 1, progress,
                          value_settings)
        model_path, trained, seconds = run["model_path"], run["decisions"], run["seconds"]
        timesteps = trained  # its budget is games, not steps: the steps are the decisions it learned from
        hyperparameters = run["settings"]
        curve = run["curve"]
    else:
        from . import rllib

        model_path, trained, hyperparameters, seconds, curve = rllib.learn(
            env_id, timesteps, seed, folder, training_kwargs, progress, runners, n_envs or 32, address, self_play)

    # Evaluate the saved model like any agent, on deals it never trained on: the own PPO's numpy export (the file
    # a shipped policy is a copy of), MaskablePPO's zip through torch.
    from ...agents import make_agent, saved_policy

    played = folder / "policy.npz" if algo == "ppo" else model_path
    if algo in ("rllib", "value"):
        agent = make_agent(f"{algo}:{model_path}", env_id)
    else:
        agent = saved_policy(str(played))
    result = evaluate(env_id, agent, episodes=eval_episodes, seed=10_000_000 + seed,
                      workers=workers, progress=progress, env_kwargs=env_kwargs)
    others = {}
    if env_id in MULTIPLAYER:
        # Splendor: against the other built-in opponents too (the env's default one is greedy).
        for opponent in BUILT_IN_OPPONENTS:
            if opponent != env_kwargs.get("opponent", "greedy"):
                others[opponent] = evaluate(env_id, agent, episodes=eval_episodes,
                                            seed=10_000_000 + seed, workers=workers, progress=progress,
                                            env_kwargs={**env_kwargs, "opponent": opponent}).as_dict()

    # The learning curve and a record of the run.
    curve_path = folder / "learning_curve.png"
    name = {"ppo": "masked PPO", "sb3": "MaskablePPO (sb3-contrib)", "rllib": "RLlib PPO (masked)",
            "value": "learned value"}[algo]
    plot_curve(curve, result, f"{name} on {env_id}", curve_path)
    options = {key: _by_name(value) for key, value in training_kwargs.items()}
    outcome = TrainResult(env_id, trained, timesteps, seed, str(model_path), str(curve_path), curve,
                          result.as_dict(), options, {"algo": algo, **hyperparameters}, round(seconds, 1), others)
    (folder / "result.json").write_text(json.dumps(asdict(outcome), indent=2))
    return outcome


def _check_value_options(env_id, env_kwargs, self_play, read_plain, ppo_settings) -> None:
    if game_name(env_id) not in VALUE_GAMES:
        raise ValueError(f"the value trainer (algo='value') learns Royal Assassin's tables and One Card Dungeon's "
                         f"levels' starts; {env_id} has the other algorithms "
                         f"({', '.join(a for a in ALGOS if a != 'value')})")
    if env_kwargs or self_play or not read_plain or ppo_settings:
        raise ValueError("the value trainer takes no env options, self_play, read_plain or ppo_settings: its agent "
                         "plays the plain env, and its settings are value_settings")


TEACHER_COEF = 1.0   # kickstarting: the teacher's cross-entropy weighs as much as the policy loss at first
TEACHER_DECAY = 0.5  # and falls to 0 by half the training, which PPO then has to itself


def _train_own(env_id, timesteps, seed, n_envs, folder, env_kwargs, progress, start, start_episodes, self_play,
               ppo_settings, teacher=None, workers=None):
    from ...agents import make_agent
    from .ppo import Settings, learn

    if teacher is not None:
        ppo_settings = {"teacher_coef": TEACHER_COEF, "teacher_decay": TEACHER_DECAY, **ppo_settings}
    fields = _action_fields(env_id, env_kwargs)
    settings = Settings(**{"num_envs": n_envs or Settings.num_envs, "action_fields": fields,
                           **({"hidden": SUMMARY_HIDDEN} if fields else {}), **ppo_settings})
    started = time.perf_counter()
    policy, cloned = None, {}
    if start is not None:
        # For self-play the teacher plays every seat in turn (against the greedy player), as the learner will.
        teaching = {**env_kwargs, "seat": "random"} if self_play else env_kwargs
        space = gym.make(env_id, **teaching)
        policy, cloned = _cloned_policy(env_id, space, start, start_episodes, seed, settings, teaching, progress,
                                        workers)
    if self_play:
        from .selfplay import learn_by_self_play

        run = learn_by_self_play(timesteps, settings, seed=seed, out=folder, policy=policy, progress=progress,
                                 record=cloned, **env_kwargs)
    else:
        record = {"game": env_id, "env_kwargs": {k: _by_name(v) for k, v in env_kwargs.items()}, **cloned,
                  **({"teacher": teacher} if teacher else {})}
        envs = _native_vector_env(env_id, settings.num_envs, env_kwargs)
        run = learn(envs, timesteps, settings, seed=seed, out=folder, progress=progress, record=record,
                    policy=policy, teacher=None if teacher is None else make_agent(teacher, env_id, seed=seed))
        envs.close()
    curve = [(row["step"], row["win_rate"]) for row in run["curve"]]
    hyperparameters = {**run["settings"], **cloned, **({"self_play": True} if self_play else {}),
                       **({"teacher": teacher} if teacher else {})}
    return run["model_path"], run["timesteps"], hyperparameters, time.perf_counter() - started, curve


# A policy that scores each action reads the table into a summary of the last width, beside each action's fields:
# kept small, since the scorer runs once per action.
SUMMARY_HIDDEN = (256, 64)


def _action_fields(env_id, env_kwargs) -> int:
    """The fields per action an observation="actions" env ends with (the policy scores each action), else 0."""
    if env_kwargs.get("observation") != "actions":
        return 0
    env = gym.make(env_id)
    features = env.unwrapped.features
    env.close()
    if "actions" not in observation_modes(features):
        raise ValueError(f"{env_id} has no observation='actions': its observations are {observation_modes(features)}")
    return features.ACTION_FIELD_COUNT


def _plain_size(env_id, env_kwargs, algo) -> int:
    """The plain observation's size, which a policy that reads the features alone skips."""
    if algo != "ppo" or env_kwargs.get("observation", "plain") == "plain":
        raise ValueError("read_plain=False goes with the project's own PPO (algo='ppo') on observation='features' "
                         "or 'actions': with the plain observation alone there would be nothing to read")
    env = gym.make(env_id)
    game = env.unwrapped
    env.close()
    return observation_size(game.rules, game.features, "plain")


def _cloned_policy(env_id, env, start, episodes, seed, settings, env_kwargs, progress, workers=None):
    """A policy that plays as the agent ``start`` does, learnt from its games (deals the evaluation never sees),
    played by ``workers`` processes (default: one per CPU)."""
    import torch

    from ...agents import make_agent
    from ...agents.network import MaskedPolicy
    from .clone import collect, fit

    teacher = make_agent(start, env_id, seed=seed)
    data = collect(env_id, teacher, episodes, seed=20_000_000 + seed, gamma=settings.gamma, env_kwargs=env_kwargs,
                   progress=progress, workers=workers or os.cpu_count() or 1)
    space = env.observation_space
    # The first weights come from the seed too, and on one thread as the fit and PPO run (the orthogonal
    # initialisation's factorisation differs in its last bits with the thread count): one seed, one policy.
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    policy = MaskedPolicy(int(np.prod(space.shape)), int(env.action_space.n), settings.hidden, space.high,
                          settings.action_fields, read_from=settings.read_from)
    env.close()
    agreement = fit(policy, data, seed=seed, progress=progress)
    return policy, {"start": start, "start_episodes": episodes, "teacher_win_rate": data["win_rate"],
                    "cloned_agreement": round(agreement[-1], 4)}


# MaskablePPO on a native vector env: many games a step, short rollouts, large minibatches, few epochs. At SB3's
# defaults (4 envs, 2,048-step rollouts, minibatches of 64, 10 epochs) the updates take two thirds of the time.
SB3_FAST = {"n_envs": 256, "n_steps": 64, "batch_size": 2048, "n_epochs": 4}


def _train_sb3(env_id, timesteps, seed, n_envs, folder, env_kwargs, progress, vector):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from .sb3 import SB3VectorEnv

    import torch

    torch.set_num_threads(1)  # see benchmarks/training/ppo.py's Settings.torch_threads
    fast = SB3_FAST if vector else {"n_envs": 4, "n_steps": N_STEPS, "batch_size": 64, "n_epochs": 10}
    n_envs = n_envs or fast["n_envs"]
    n_steps, rollouts = rollout_length(timesteps, n_envs, fast["n_steps"])
    trained = n_steps * n_envs * rollouts
    # 1. Environments: the registered env, as it is; MaskablePPO reads env.action_masks().
    if vector:
        envs = SB3VectorEnv(_native_vector_env(env_id, n_envs, env_kwargs))
        envs.seed(seed)
    else:
        envs = make_vec_env(lambda: gym.make(env_id, **env_kwargs), n_envs=n_envs, seed=seed)

    # 2. Learn, recording every finished training episode for the curve. The rollout length is fitted to the
    #    budget (SB3's default 2048 steps per env would train 8,192 steps for a budget of 3,000 on 4 envs), and
    #    the minibatch to the rollout.
    hyperparameters = {"n_envs": n_envs, "n_steps": n_steps, "n_epochs": fast["n_epochs"],
                       "batch_size": minibatch_size(n_steps * n_envs, fast["batch_size"])}
    model = MaskablePPO("MlpPolicy", envs, seed=seed, device="cpu", verbose=0, n_steps=n_steps,
                        batch_size=hyperparameters["batch_size"], n_epochs=fast["n_epochs"])
    recorder = _episode_recorder(trained, progress, f"MaskablePPO on {env_id}")
    started = time.perf_counter()
    model.learn(total_timesteps=trained, callback=recorder, progress_bar=False)
    seconds = time.perf_counter() - started
    model_path = folder / "model.zip"
    model.save(model_path)
    return model_path, int(model.num_timesteps), hyperparameters, seconds, learning_curve(recorder.episodes)
