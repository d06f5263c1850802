"""Behaviour cloning: a masked policy that starts from what an agent of the project already plays.

    tabletop-gym train <game> --start heuristic --timesteps 2000000

First the teacher (the game's heuristic, or any agent) plays ``episodes`` deals; every decision is kept as
(observation, mask, action) with the return the game paid from there on. The actor learns the teacher's actions by
cross-entropy over the legal ones, the critic the returns, and PPO (``benchmarks/training/ppo.py``) goes on from there, so
that reinforcement learning starts from the teacher's play instead of from a uniform policy.
"""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from ...agents import make_agent
from ...agents.network import MaskedPolicy
from ...envs import game_id
from ...envs.core.env import observation_size, with_features
from ..evaluation.evaluate import in_workers
from . import ppo
from .run import CHECKPOINT, TrainResult, check_run_folder, read_checkpoint, run_folder, training_options

TEACHER_SEEDS = 20_000_000  # + the run's seed: the teacher's first deal, away from the evaluation's


def collect(env_id: str, teacher, episodes: int, seed: int = 0, gamma: float = 0.99, env_kwargs: dict | None = None,
            progress: bool = True, workers: int = 1) -> dict:
    """The teacher's decisions over ``episodes`` deals (seeds ``seed`` to ``seed + episodes - 1``): arrays of
    observations, masks, actions and discounted returns, and the teacher's win rate. With ``workers`` > 1 the deals
    are shared among that many processes (the teacher is sent to each); since every deal resets the teacher with
    its own seed, the arrays are the same, in the same order."""
    if workers > 1 and episodes > 1:
        return _collect_in_workers(env_id, teacher, episodes, seed, gamma, env_kwargs, progress, workers)
    env_kwargs = dict(env_kwargs or {})
    # The teacher plays the plain env, as an agent does; the features are added afterwards, many rows at a time,
    # which is several times faster than one observation a step.
    mode = env_kwargs.pop("observation", "plain")
    env = gym.make(env_id, **env_kwargs, **({"observation": "plain"} if mode != "plain" else {}))
    observations, masks, actions, returns = [], [], [], []
    wins = 0
    for episode in tqdm(range(episodes), desc=f"teacher on {env_id}", unit="ep", disable=not progress):
        if hasattr(teacher, "attach"):
            teacher.attach(env)
        if hasattr(teacher, "reset"):
            teacher.reset(seed=seed + episode)
        obs, info = env.reset(seed=seed + episode)
        start = len(actions)
        while True:
            action = int(teacher.act(obs, info["action_mask"]))
            observations.append(obs)
            masks.append(info["action_mask"].astype(bool))
            actions.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        # The reward is paid at the end: a decision k steps before it is worth gamma ** k of it.
        steps = len(actions) - start
        returns.extend(float(reward) * gamma ** np.arange(steps - 1, -1, -1))
        wins += bool(info.get("won", False))
    env.close()
    return {"observations": shown(env.unwrapped, mode, observations) if mode != "plain"
            else np.array(observations, dtype=np.float32), "masks": np.array(masks), "actions": np.array(actions),
            "returns": np.array(returns, dtype=np.float32), "win_rate": wins / episodes}


def _collect_in_workers(env_id, teacher, episodes, seed, gamma, env_kwargs, progress, workers) -> dict:
    size = -(-episodes // (workers * 4))  # a few chunks a worker, so that one slow chunk does not hold the rest up
    chunks = [(first, min(size, seed + episodes - first)) for first in range(seed, seed + episodes, size)]
    bar = tqdm(total=episodes, desc=f"teacher on {env_id}", unit="ep", disable=not progress)
    parts = in_workers(partial(_collect_chunk, env_id, teacher, gamma, env_kwargs), chunks, workers,
                       lambda chunk, _: bar.update(chunk[1]))
    bar.close()
    wins = sum(round(part["win_rate"] * count) for part, (_, count) in zip(parts, chunks))
    return {**{key: np.concatenate([part[key] for part in parts])
               for key in ("observations", "masks", "actions", "returns")}, "win_rate": wins / episodes}


def _collect_chunk(env_id, teacher, gamma, env_kwargs, chunk) -> dict:
    first, count = chunk
    return collect(env_id, teacher, count, first, gamma, env_kwargs, progress=False)


def shown(env, mode: str, observations: list, rows: int = 256) -> np.ndarray:
    """Plain ``observations`` as ``env`` (unwrapped) shows them in observation ``mode``, ``rows`` at a time."""
    out = np.empty((len(observations), observation_size(env.rules, env.features, mode)), dtype=np.float32)
    for start in range(0, len(observations), rows):
        out[start:start + rows] = with_features(env.features, mode, np.array(observations[start:start + rows]))
    return out


def collect_batched(env_id: str, teacher, episodes: int, seed: int = 0, gamma: float = 0.99,
                    env_kwargs: dict | None = None, num_envs: int = 256, progress: bool = True) -> dict:
    """``collect`` for a teacher that chooses for many games at once (``act_batch``), on the game's native vector
    env of ``num_envs`` games: the first ``episodes`` games to finish (the vector env's games of ``seed``, then
    the ones its rows start next), as arrays of the same kind."""
    envs = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP, **(env_kwargs or {}))
    obs, infos = envs.reset(seed=seed)
    playing = [[] for _ in range(num_envs)]  # each row's game so far: (observation, mask, action)
    observations, masks, actions, returns = [], [], [], []
    wins = finished = 0
    bar = tqdm(total=episodes, desc=f"teacher on {env_id}", unit="ep", disable=not progress)
    while finished < episodes:
        chosen = np.asarray(teacher.act_batch(obs, infos["action_mask"]))
        for i in range(num_envs):
            playing[i].append((obs[i], infos["action_mask"][i].astype(bool), int(chosen[i])))
        obs, rewards, terminated, truncated, infos = envs.step(chosen)
        for i in np.flatnonzero(terminated | truncated):
            if finished < episodes:
                game = playing[i]
                observations += [o for o, _, _ in game]
                masks += [m for _, m, _ in game]
                actions += [a for _, _, a in game]
                returns.extend(float(rewards[i]) * gamma ** np.arange(len(game) - 1, -1, -1))
                wins += bool(infos["final_info"]["won"][i])
                finished += 1
                bar.update()
            playing[i] = []
    bar.close()
    envs.close()
    return {"observations": np.array(observations, dtype=np.float32), "masks": np.array(masks),
            "actions": np.array(actions), "returns": np.array(returns, dtype=np.float32),
            "win_rate": wins / episodes}


def fit(policy: MaskedPolicy, data: dict, epochs: int = 10, minibatch_size: int = 512, learning_rate: float = 1e-3,
        seed: int = 0, progress: bool = True) -> list[float]:
    """Train ``policy``'s actor to the teacher's actions and its critic to the returns; the agreement with the
    teacher (the share of decisions where the policy's most likely action is the teacher's) after each epoch."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # as in benchmarks/training/ppo.py: on two cores, more threads make small products slower
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(data["observations"])
    masks = torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"])
    returns = torch.as_tensor(data["returns"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    agreement = []
    for _ in tqdm(range(epochs), desc="cloning", unit="epoch", disable=not progress):
        order = torch.as_tensor(rng.permutation(len(actions)))
        for start in range(0, len(actions), minibatch_size):
            batch = order[start:start + minibatch_size]
            logits = policy.logits(obs[batch], masks[batch])
            loss = nn.functional.cross_entropy(logits, actions[batch])
            loss = loss + 0.5 * ((policy.value(obs[batch]) - returns[batch]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():  # in pieces: a policy that scores each action holds a row per action
            agreed = sum(int((policy.logits(obs[i:i + 8192], masks[i:i + 8192]).argmax(dim=1)
                              == actions[i:i + 8192]).sum()) for i in range(0, len(actions), 8192))
            agreement.append(agreed / len(actions))
    return agreement


# ---------------------------------------------------------------- the run: tabletop-gym train <game> --start AGENT

def train(game: str, start: str, start_episodes: int = 2000, timesteps: int = 100_000, seed: int = 0,
          n_envs: int | None = None, out=None, eval_episodes: int = 500, env_kwargs: dict | None = None,
          workers: int | None = None, progress: bool = True, settings: dict | None = None,
          teacher: str | None = None, read_plain: bool = True, overwrite: bool = False, resume=None) -> TrainResult:
    """Behaviour cloning, then PPO: the policy first learns to play as the agent ``start`` does from its
    ``start_episodes`` games (shared among ``workers`` processes, as the final evaluation's are; default one per
    CPU), then ``ppo.train`` goes on from it with the rest of the options, which are its own. The run's folder is
    checked first (``overwrite``: see ``run.start_run``), so that a refusal comes before the cloning. ``resume``:
    the run in that folder goes on from its checkpoint, which holds the policy, so nothing is cloned again."""
    learning = ppo.ppo_settings(game, n_envs, env_kwargs or {}, settings or {}, teacher, read_plain)
    env_id = game_id(game)
    check_run_folder(run_folder(env_id, resume or out), overwrite, resume is not None)
    if resume is not None:
        return ppo.train(game, timesteps, seed, n_envs, out, eval_episodes, env_kwargs, workers, progress, settings,
                         teacher, read_plain, cloned=cloning_of(Path(resume) / CHECKPOINT, start, start_episodes),
                         resume=resume)
    started = time.perf_counter()
    policy, cloned = cloned_policy(env_id, start, start_episodes, seed, learning,
                                   training_options(env_id, env_kwargs), progress, workers)
    return ppo.train(game, timesteps, seed, n_envs, out, eval_episodes, env_kwargs, workers, progress, settings,
                     teacher, read_plain, policy=policy, cloned=cloned, spent=time.perf_counter() - started,
                     overwrite=overwrite)


def cloning_of(checkpoint: Path, start: str, episodes: int) -> dict:
    """What the cloning of the run whose ``checkpoint`` this is was, as its record holds it; a ValueError unless it
    cloned ``start``'s ``episodes`` games."""
    record = read_checkpoint(checkpoint)["record"]
    if (record.get("start"), record.get("start_episodes")) != (start, episodes):
        raise ValueError(f"{checkpoint}'s run did not start from {start}'s {episodes} games: resume it with the "
                         f"options it was started with")
    return {key: record[key] for key in ("start", "start_episodes", "teacher_win_rate", "cloned_agreement")}


def cloned_policy(env_id: str, start: str, episodes: int, seed: int, settings, env_kwargs: dict, progress: bool,
                  workers: int | None = None):
    """A policy that plays as the agent ``start`` does, learnt from its games (deals the evaluation never sees),
    played by ``workers`` processes (default: one per CPU); and what the cloning was, for the run's record."""
    teacher = make_agent(start, env_id, seed=seed)
    data = collect(env_id, teacher, episodes, seed=TEACHER_SEEDS + seed, gamma=settings.gamma, env_kwargs=env_kwargs,
                   progress=progress, workers=workers or os.cpu_count() or 1)
    env = gym.make(env_id, **env_kwargs)
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
