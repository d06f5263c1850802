"""Training with RLlib: ``tabletop-gym train <game> --algo rllib [--address ADDR] [--runners N]``.

The envs reach RLlib through ``tabletop_gym.clients.rllib`` (env creators its remote runners can call, registered
here as ``ENV``, and the observation as its action-masking module reads it). Here:

- **A learning curve:** ``on_episode_end`` logs each finished training episode's ``won``.
- **A checkpoint played like any agent:** ``agents/rllib.py``'s ``RLlibAgent`` (``make_agent("rllib:<checkpoint>")``)
  in ``eval``, ``leaderboard`` and ``replay``.

A game of several players trains through its single-agent view (against its scripted opponent, the seat drawn per
game) or by self-play (``--self-play``): its AEC env as RLlib's ``PettingZooEnv`` (``make_multi_agent_env``), the
learner in one seat of each game and a frozen snapshot of it in the others, copied from the learner every
``SNAPSHOT_EVERY`` iterations (``copy_learner_to_snapshot``). The league of the project's own PPO (snapshots mixed
with the random player and the heuristic) is not RLlib's yet.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from ...agents.rllib import LEARNER
from ...clients.rllib import make_env, make_multi_agent_env, observation_scale

ENV = "tabletop"  # the name make_env is registered under with Ray
# PPO's settings here: batches of 4,096 steps in 512-step minibatches, 4 epochs (RLlib's defaults, 30 epochs at a
# learning rate of 5e-5, learn far slower on these games).
SETTINGS = {"train_batch_size_per_learner": 4096, "minibatch_size": 512, "num_epochs": 4, "lr": 3e-4,
            "entropy_coeff": 0.01}
HIDDEN = [256, 256]


def on_episode_end(episode, metrics_logger, **kwargs) -> None:
    """Log whether the training episode just ended was won and its score (windowed means: the learning curve)."""
    info = episode.get_infos(-1)
    metrics_logger.log_value("won", float(bool(info.get("won", False))), reduce="mean", window=100)
    metrics_logger.log_value("score", float(info.get("score", 0)), reduce="mean", window=100)


def ppo_config(env_id: str, env_kwargs: dict, seed: int, runners: int, envs_per_runner: int, batch: int):
    """RLlib's PPO with the masking module on the game's native vector env, ``runners`` remote env runners of
    ``envs_per_runner`` games each (``runners=0``: sampled in the driver)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV, make_env)
    settings = {**SETTINGS, "train_batch_size_per_learner": batch,
                "minibatch_size": min(SETTINGS["minibatch_size"], batch)}
    return (PPOConfig()
            .environment(ENV, env_config={"game": env_id, **env_kwargs})
            .env_runners(num_env_runners=runners, num_envs_per_env_runner=envs_per_runner,
                         gym_env_vectorize_mode=gym.VectorizeMode.VECTOR_ENTRY_POINT)
            .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                                   model_config={"fcnet_hiddens": HIDDEN,
                                                                 "head_fcnet_hiddens": []}))
            .training(**settings)
            .callbacks(on_episode_end=on_episode_end)
            .debugging(seed=seed))


def learn(env_id: str, timesteps: int, seed: int, folder: Path, env_kwargs: dict, progress: bool = True,
          runners: int = 2, envs_per_runner: int = 32, address: str | None = None, self_play: bool = False):
    """Train until ``timesteps`` env steps are sampled; the checkpoint, the steps, the settings, the seconds and
    the curve [(steps, win rate of the last training episodes), ...], as ``train`` records them.
    ``self_play`` (a game of several players): on its AEC env of ``env_kwargs``' ``num_players`` against snapshots
    of the learner (``self_play_config``); the checkpoint's policy is the learner."""
    from tqdm import tqdm

    from ..evaluation.ray_tasks import connect

    connect(address)
    batch = min(SETTINGS["train_batch_size_per_learner"], max(64, timesteps))
    if self_play:
        config = self_play_config(env_id, env_kwargs.get("num_players", 2), seed, runners, batch)
    else:
        config = ppo_config(env_id, env_kwargs, seed, runners, envs_per_runner, batch)
    algo = config.build_algo()
    bar = tqdm(total=timesteps, desc=f"RLlib PPO on {env_id}", unit="step", disable=not progress)
    curve, rows, steps = [], [], 0
    started = time.perf_counter()
    while steps < timesteps:
        result = algo.train()["env_runners"]
        steps = int(result["num_env_steps_sampled_lifetime"])
        # As the other trainers write it: 0 until a training episode has finished.
        rows.append({"step": steps, "episodes": int(result.get("num_episodes_lifetime", 0)),
                     "win_rate": float(result.get("won", 0.0)), "mean_score": float(result.get("score", 0.0))})
        if "won" in result:
            curve.append((steps, float(result["won"])))
            bar.set_postfix(win_rate=f"{100 * curve[-1][1]:.1f}%")
        bar.update(min(steps, timesteps) - bar.n)
    seconds = time.perf_counter() - started
    bar.close()
    from .run import write_curve

    write_curve(folder, rows)  # what tabletop-gym curves reads, as every trainer writes it
    checkpoint = folder / "checkpoint"
    algo.save(str(checkpoint.resolve()))
    algo.stop()
    scale = observation_scale(gym.make(env_id, **env_kwargs).observation_space)  # (self-play: the same as the AEC's)
    np.save(checkpoint / "observation_scale.npy", scale)
    (checkpoint / "tabletop.json").write_text(json.dumps({"game": env_id, "hidden": HIDDEN}))
    settings = {**SETTINGS, "train_batch_size_per_learner": batch, "minibatch_size": min(512, batch),
                "runners": runners, "hidden": HIDDEN,
                **({"self_play": True, "snapshot_every": SNAPSHOT_EVERY} if self_play
                   else {"envs_per_runner": envs_per_runner})}
    return checkpoint, steps, settings, seconds, curve



def train(game: str, timesteps: int = 100_000, seed: int = 0, n_envs: int | None = None, out=None,
          eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, runners: int = 2, address: str | None = None, self_play: bool = False,
          overwrite: bool = False):
    """RLlib's PPO with action masking on ``game``'s native vector env: ``runners`` remote env runners of
    ``n_envs`` games each (default 32), on the Ray cluster at ``address`` (or this process's Ray session, or a new
    local one); or, with ``self_play`` (a game of several players, ``env_kwargs`` its ``num_players`` alone), on
    its AEC env against snapshots of the learner. The checkpoint is then evaluated as ``rllib:<checkpoint>``."""
    from ...agents import make_agent
    from ...envs import game as game_of
    from .run import Learned, start_run

    env_id = game_of(game).id
    if self_play and not game_of(game).multiplayer:
        raise ValueError(f"self-play needs a game of several players; {env_id} is a solitaire")
    if self_play and set(env_kwargs or {}) - {"num_players"}:
        raise ValueError(f"self_play takes the option num_players only (the league plays the other seats), got "
                         f"{', '.join(sorted(env_kwargs))}")
    with start_run(game, out, seed, env_kwargs, eval_episodes, workers, progress, seat_drawn=not self_play,
                   overwrite=overwrite) as run:
        checkpoint, steps, settings, seconds, curve = learn(run.env_id, timesteps, seed, run.folder,
                                                            run.training_kwargs, progress, runners, n_envs or 32,
                                                            address, self_play)
        return run.finish(make_agent(f"rllib:{checkpoint}", run.env_id), "rllib", "RLlib PPO (masked)",
                          Learned(checkpoint, steps, settings, seconds, curve), timesteps)

# ---------------------------------------------------------------- a game of several players by self-play

SNAPSHOT = "snapshot"  # self-play's frozen copy of the LEARNER
SNAPSHOT_EVERY = 5  # iterations between copies of the learner into the snapshot


def seat_policy(num_players: int):
    """Self-play's policy mapping for ``num_players`` seats: the learner in one seat of each game, drawn from the
    game's episode id (so every seat is learned), the snapshot in the others."""
    def policy_of(agent_id, episode, **kwargs) -> str:
        seat = int(hashlib.sha256(str(episode.id_).encode()).hexdigest(), 16) % num_players
        return LEARNER if agent_id == f"player_{seat}" else SNAPSHOT

    return policy_of


def on_multi_agent_episode_end(episode, metrics_logger, **kwargs) -> None:
    """Log whether the learner won the self-play game just ended."""
    for agent_id, played in episode.agent_episodes.items():
        if episode.module_for(agent_id) == LEARNER and len(played):
            won = bool(played.get_infos(-1).get("won", False))
            metrics_logger.log_value("won", float(won), reduce="mean", window=200)


def copy_learner_to_snapshot(algorithm) -> None:
    """The snapshot becomes the learner as it is now, in the learner group and in every env runner. (RLlib's own
    weight sync leaves out a module that is not trained, so the copy is made here, from the learner group's
    state.)"""
    weights = algorithm.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
    algorithm.learner_group.set_state({"learner": {"rl_module": {SNAPSHOT: weights}}})
    algorithm.env_runner_group.foreach_env_runner(lambda runner: runner.module[SNAPSHOT].set_state(weights))


def self_play_config(game: str, num_players: int, seed: int, runners: int, batch: int):
    """RLlib's PPO on ``game``'s AEC env (a short name or an id): the learner against snapshots of itself
    (``SNAPSHOT_EVERY``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV + "_self_play", make_multi_agent_env)
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"fcnet_hiddens": HIDDEN, "head_fcnet_hiddens": []})

    def on_train_result(algorithm, result, **kwargs):
        if algorithm.iteration % SNAPSHOT_EVERY == 0:
            copy_learner_to_snapshot(algorithm)

    settings = {**SETTINGS, "train_batch_size_per_learner": batch,
                "minibatch_size": min(SETTINGS["minibatch_size"], batch)}
    # RLlib's check of a new env steps it with an unmasked random action: an illegal one, here, that would be
    # refused (illegal_action="raise") or forfeit the game; the env is checked by the project's own tests instead.
    return (PPOConfig()
            .environment(ENV + "_self_play", env_config={"game": game, "num_players": num_players},
                         disable_env_checking=True)
            .env_runners(num_env_runners=runners)
            .multi_agent(policies={LEARNER, SNAPSHOT}, policy_mapping_fn=seat_policy(num_players), policies_to_train=[LEARNER])
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: module, SNAPSHOT: module}))
            .training(**settings)
            .callbacks(on_episode_end=on_multi_agent_episode_end, on_train_result=on_train_result)
            .debugging(seed=seed))
