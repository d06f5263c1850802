"""Masked PPO on a vector env, in one file to read top to bottom (after CleanRL's ``ppo.py``).

    tabletop-gym train <game> --timesteps 2000000

It trains on any Gymnasium vector env whose infos carry ``action_mask`` (N, n) on every step, with next-step
autoreset: the native vector envs of every game here (``gym.make_vec(id, num_envs=N)``). The policy's logits are
masked by the batched masks; a finished game's row carries an all-ones mask, and the step that resets it is left
out of the loss. It writes, under ``out``:

- ``model.pt``: the policy (``tabletop_gym.agents.network.MaskedPolicy``, actor and critic) with what it was trained
  on, to train on from (``policy=``); the agent ``ppo:<out>/model.pt`` plays it with torch;
- ``policy.npz``: the actor alone, which ``ppo:<out>/policy.npz`` plays with numpy alone (the file a game's
  shipped policy, ``agents/models/<game>.npz``, is a copy of);
- ``learning_curve.csv``: per update, the steps so far, the episodes finished, the win rate and mean score of
  the last ``WINDOW`` training episodes, steps per second, the losses and the teacher's weight (kickstarting);
- ``learning_curve.png`` and ``result.json``, written by ``train`` at the end of this file (the run's front door:
  the game's native vector env, then ``learn``, then the final evaluation of the saved policy on deals it never
  trained on, as every trainer of ``benchmarks/training/`` ends, through ``run.py``);
- ``checkpoint.pt``, while the run is not finished: every ``checkpoint_every`` seconds, after the last update and on
  a Ctrl-C, the run as it stood after its last whole update (the model, the optimizer, every random generator, the
  curve so far and the actions played), from which
  ``train(resume=...)`` (``tabletop-gym train ... --resume <out>``) goes on exactly as if the run had never
  stopped. It is read back as data (``torch.load(weights_only=True)``), never run.
"""

from __future__ import annotations

import copy
import json
import time
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from ...agents import make_agent, saved_policy
from ...agents.network import MaskedPolicy, save_policy
from ...agents.policy import export_policy
from ...envs import game_id
from ...envs.core.env import observation_modes, observation_size
from .run import (CHECKPOINT, Learned, TrainResult, by_name, native_vector_env, read_checkpoint, start_run,
                  write_curve, written)

WINDOW = 100  # training episodes in the running win rate
CHECKPOINT_EVERY = 300.0  # seconds between checkpoints of a run (train's default)


@dataclass
class Settings:
    """PPO's hyperparameters. The defaults suit the native vector envs on a two-core machine."""

    num_envs: int = 64
    num_steps: int = 128         # steps per env in a rollout (shortened for a small budget)
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    minibatch_size: int = 1024
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple = (256, 256)
    # Fields per action at the observation's end (observation="actions", where a game has it): the actor
    # then scores each action with one shared MLP (``MaskedPolicy``'s ``action_fields``); 0 for a flat observation.
    action_fields: int = 0
    # Entries at the observation's start the policy does not read (``MaskedPolicy``'s ``read_from``): the plain
    # observation under the features, with ``train(read_plain=False)``.
    read_from: int = 0
    # torch's threads: with the env stepping in the same process, more than one thread on two cores makes the
    # small matrix products several times slower (measured: 4 s against 34 s for the same 16k steps).
    torch_threads: int = 1
    # Kickstarting (``learn(teacher=...)``): the weight of the cross-entropy between the policy and the teacher's
    # action on the rollout's own positions, falling linearly to 0 over the first ``teacher_decay`` of the updates.
    teacher_coef: float = 0.0
    teacher_decay: float = 1.0

    def fitted(self, timesteps: int) -> tuple["Settings", int]:
        """These settings with the rollout shortened so that whole rollouts just cover ``timesteps``; the updates."""
        if timesteps < 1:
            raise ValueError(f"timesteps must be at least 1, got {timesteps}")
        updates = -(-timesteps // (self.num_envs * self.num_steps))
        steps = -(-timesteps // (updates * self.num_envs))
        batch = steps * self.num_envs
        return Settings(**{**asdict(self), "num_steps": steps, "minibatch_size": min(self.minibatch_size, batch)}), \
            updates


def teacher_actions(teacher, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The teacher's action in each row: all at once where it chooses for many games (``act_batch``)."""
    if hasattr(teacher, "act_batch"):
        return np.asarray(teacher.act_batch(observations, masks), dtype=np.int64)
    return np.array([teacher.act(o, m) for o, m in zip(observations, masks)], dtype=np.int64)


def learn(envs: gym.vector.VectorEnv, timesteps: int, settings: Settings = Settings(), seed: int = 0,
          out: str | Path = "runs/ppo", progress: bool = True, record: dict | None = None,
          policy: MaskedPolicy | None = None, on_update=None, teacher=None, checkpoint_every: float | None = None,
          resume: bool = False) -> dict:
    """Train a masked policy on ``envs`` for ``timesteps`` env steps (whole rollouts); save it under ``out``.

    ``policy`` is where to start (a policy trained before, against other opponents, or cloned from a heuristic);
    by default a new one. Returns what happened: the steps trained, the seconds, the learning curve (a list of
    dicts, the CSV's rows) and the fitted settings. ``record`` is saved with the policy (the game, its options).
    ``on_update(update, updates, policy)``, if given, is called after each update (self-play takes snapshots so).
    ``teacher`` (any agent, asked through ``act_batch`` where it has one; with ``settings.teacher_coef`` above 0)
    kickstarts the policy: it names its action on every position of the rollout, and the loss adds the policy's
    cross-entropy to it, with a weight that falls to 0. Unlike cloning the teacher's own games, this teaches on the positions the policy
    itself reaches, where its mistakes took it.

    ``checkpoint_every`` (seconds; None: never) saves the run so far to ``out/checkpoint.pt`` that often, after
    the last update, and on a Ctrl-C (the run as it stood after its last whole update). ``resume=True`` goes on from that checkpoint, on ``envs`` made afresh with the same options
    and the same ``timesteps``, ``settings``, ``seed`` and ``record`` (a difference is refused): the envs replay the
    actions played since their reset, and the run continues bit for bit as if it had never stopped. That holds for
    envs whose games follow from the reset's seed and the actions (every native vector env's do), and with a
    ``teacher`` that chooses without chance or by its own generator ``rng``, which is saved too.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if envs.num_envs != settings.num_envs:
        raise ValueError(f"settings.num_envs is {settings.num_envs} but the vector env has {envs.num_envs} games")
    if (teacher is None) != (settings.teacher_coef <= 0):
        raise ValueError("a teacher goes with settings.teacher_coef above 0, and teacher_coef with a teacher")
    if not 0 < settings.teacher_decay <= 1:
        raise ValueError(f"teacher_decay is a share of the updates in (0, 1], got {settings.teacher_decay}")
    settings, updates = settings.fitted(timesteps)
    n, steps = settings.num_envs, settings.num_steps
    torch.manual_seed(seed)
    torch.set_num_threads(settings.torch_threads)
    rng = np.random.default_rng(seed)
    saved = load_checkpoint(out / CHECKPOINT, seed, settings, updates, record) if resume else None

    # 1. The policy: an MLP actor and critic over the flat observation, scaled by its bounds.
    obs_size = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    if saved is not None:
        policy = MaskedPolicy(**saved["shape"])
        policy.load_state_dict(saved["model"])
    elif policy is None:
        policy = MaskedPolicy(obs_size, num_actions, settings.hidden, envs.single_observation_space.high,
                              settings.action_fields, read_from=settings.read_from)
    elif (policy.shape["obs_size"], policy.shape["num_actions"]) != (obs_size, num_actions):
        raise ValueError(f"the policy takes {policy.shape['obs_size']} observations and {policy.shape['num_actions']} "
                         f"actions; the env has {obs_size} and {num_actions}")
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate, eps=1e-5)

    # 2. Rollout storage: one row per step, one column per game.
    observations = torch.zeros((steps, n, obs_size))
    masks = torch.zeros((steps, n, num_actions), dtype=torch.bool)
    actions = torch.zeros((steps, n), dtype=torch.long)
    logprobs = torch.zeros((steps, n))
    rewards = torch.zeros((steps, n))
    terminated = torch.zeros((steps, n))
    ended = torch.zeros((steps, n))      # terminated or truncated: the advantage does not flow back past it
    valid = torch.zeros((steps, n))      # 0 on the step that only resets a finished game (next-step autoreset)
    values = torch.zeros((steps, n))
    taught = torch.zeros((steps, n), dtype=torch.long)  # the teacher's action (kickstarting)

    obs, infos = envs.reset(seed=seed)
    obs = torch.as_tensor(obs, dtype=torch.float32)
    mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    resetting = torch.zeros(n, dtype=torch.bool)
    finished = deque(maxlen=WINDOW)  # (won, score) of the last training episodes
    episodes = 0
    curve = []
    played = []  # each rollout's actions: a checkpoint's envs replay them
    first, spent = 1, 0.0
    if saved is not None:  # where the checkpoint stood: the envs brought there, every generator as it was
        optimizer.load_state_dict(saved["optimizer"])
        if saved["update"] < updates:
            obs, mask, resetting = replayed(envs, seed, saved)
        finished.extend(saved["finished"])
        episodes, curve, played = saved["episodes"], saved["curve"], [saved["actions"]]
        first, spent = saved["update"] + 1, saved["seconds"]
        torch.set_rng_state(saved["torch_rng"])
        rng.bit_generator.state = saved["numpy_rng"]
        if saved["teacher_rng"] is not None:
            teacher.rng.bit_generator.state = saved["teacher_rng"]
    bar = tqdm(total=updates * steps * n, initial=(first - 1) * steps * n,
               desc=f"PPO on {record.get('game', 'env') if record else 'env'}", unit="step", disable=not progress)
    started = time.perf_counter() - spent
    checkpointed = time.perf_counter()

    last, kept = None, first - 1  # the run after its last whole update (step 7), and the update saved last
    try:
        for update in range(first, updates + 1):
            if settings.anneal_lr:
                optimizer.param_groups[0]["lr"] = settings.learning_rate * (1 - (update - 1) / updates)
            teaching = settings.teacher_coef * max(0.0, 1 - (update - 1) / (settings.teacher_decay * updates))

            # 3. Collect a rollout with the current policy.
            for t in range(steps):
                observations[t], masks[t], valid[t] = obs, mask, (~resetting).float()
                with torch.no_grad():
                    action, logprob, _, value = policy.act(obs, mask)
                actions[t], logprobs[t], values[t] = action, logprob, value
                if teaching > 0:
                    playing = np.flatnonzero(~resetting.numpy())  # a finished game's row has no position to teach
                    if playing.size:
                        taught[t, playing] = torch.as_tensor(teacher_actions(teacher, obs[playing].numpy(),
                                                                             mask[playing].numpy()))
                obs, reward, term, trunc, infos = envs.step(action.numpy())
                rewards[t] = torch.as_tensor(reward, dtype=torch.float32) * valid[t]
                terminated[t] = torch.as_tensor(term, dtype=torch.float32)
                resetting = torch.as_tensor(term | trunc)
                ended[t] = resetting.float()
                obs = torch.as_tensor(obs, dtype=torch.float32)
                mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
                for i in np.flatnonzero(term | trunc):
                    won = bool(infos["won"][i]) if "won" in infos else False
                    finished.append((won, float(infos["score"][i]) if "score" in infos else float(won)))
                    episodes += 1
            bar.update(steps * n)
            if checkpoint_every is not None:
                played.append(actions.to(torch.int16 if num_actions <= 2**15 else torch.int32))

            # 4. Advantages by GAE. For a game that ended at t the next value is that of its last observation (the
            #    one step t returned): zero when it was won or lost, the critic's guess when it was cut short.
            with torch.no_grad():
                next_value = policy.value(obs)
                advantages = torch.zeros_like(rewards)
                gae = torch.zeros(n)
                for t in reversed(range(steps)):
                    following = next_value if t == steps - 1 else values[t + 1]
                    delta = rewards[t] + settings.gamma * following * (1 - terminated[t]) - values[t]
                    gae = delta + settings.gamma * settings.gae_lambda * (1 - ended[t]) * gae
                    advantages[t] = gae
                returns = advantages + values

            # 5. Update: clipped surrogate, value loss and entropy, over shuffled minibatches of the valid steps.
            keep = valid.reshape(-1).bool()
            b_obs = observations.reshape(-1, obs_size)[keep]
            b_masks = masks.reshape(-1, num_actions)[keep]
            b_actions, b_logprobs = actions.reshape(-1)[keep], logprobs.reshape(-1)[keep]
            b_advantages, b_returns = advantages.reshape(-1)[keep], returns.reshape(-1)[keep]
            b_taught = taught.reshape(-1)[keep]
            size = len(b_obs)
            for _ in range(settings.update_epochs):
                order = torch.as_tensor(rng.permutation(size))
                for start in range(0, size, settings.minibatch_size):
                    batch = order[start:start + settings.minibatch_size]
                    distribution = torch.distributions.Categorical(logits=policy.logits(b_obs[batch], b_masks[batch]))
                    new_logprob, entropy = distribution.log_prob(b_actions[batch]), distribution.entropy()
                    new_value = policy.value(b_obs[batch])
                    ratio = (new_logprob - b_logprobs[batch]).exp()
                    advantage = b_advantages[batch]
                    if len(batch) > 1:
                        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                    clipped = ratio.clamp(1 - settings.clip_coef, 1 + settings.clip_coef)
                    policy_loss = torch.max(-advantage * ratio, -advantage * clipped).mean()
                    value_loss = 0.5 * ((new_value - b_returns[batch]) ** 2).mean()
                    loss = policy_loss + settings.vf_coef * value_loss - settings.ent_coef * entropy.mean()
                    if teaching > 0:
                        loss = loss - teaching * distribution.log_prob(b_taught[batch]).mean()  # the same forward pass
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(policy.parameters(), settings.max_grad_norm)
                    optimizer.step()

            # 6. The learning curve.
            seconds = time.perf_counter() - started
            win_rate = float(np.mean([won for won, _ in finished])) if finished else 0.0
            curve.append({"step": update * steps * n, "episodes": episodes, "win_rate": win_rate,
                          "mean_score": float(np.mean([s for _, s in finished])) if finished else 0.0,
                          "steps_per_second": update * steps * n / seconds,
                          "policy_loss": policy_loss.item(), "value_loss": value_loss.item(),
                          "entropy": entropy.mean().item(), "teacher_weight": teaching})
            if finished:
                bar.set_postfix_str(f"win rate {100 * win_rate:.1f}% (last {len(finished)} episodes)", refresh=False)
            if on_update is not None:
                on_update(update, updates, policy)

            # 7. A checkpoint of the run as it stands, all that the rest depends on: kept after every update, and
            #    saved every checkpoint_every seconds, after the last update and on a Ctrl-C (at whatever point of the
            #    next update it comes).
            if checkpoint_every is not None:
                last = {"update": update, "updates": updates, "seed": seed, "settings": asdict(settings),
                        "record": plain(record or {}), "shape": policy.shape,
                        "model": copy.deepcopy(policy.state_dict()),
                        "optimizer": copy.deepcopy(optimizer.state_dict()), "torch_rng": torch.get_rng_state(),
                        "numpy_rng": rng.bit_generator.state, "teacher_rng": teacher_generator_state(teacher),
                        "actions": list(played), "obs": obs, "mask": mask, "resetting": resetting,
                        "finished": list(finished), "episodes": episodes, "curve": list(curve),
                        "seconds": time.perf_counter() - started}
                if update == updates or time.perf_counter() - checkpointed >= checkpoint_every:
                    save_checkpoint(out / CHECKPOINT, last)
                    checkpointed, kept = time.perf_counter(), update
    except KeyboardInterrupt:
        if last is not None and last["update"] > kept:
            save_checkpoint(out / CHECKPOINT, last)
        raise
    bar.close()

    seconds = time.perf_counter() - started
    record = {**(record or {}), "settings": asdict(settings), "seed": seed, "timesteps": updates * steps * n,
              "seconds": round(seconds, 1)}
    with written(out / "model.pt") as partial:
        save_policy(policy, partial, record)
    with written(out / "policy.npz") as partial:
        export_policy(policy, partial, record)
    write_curve(out, curve)
    return {"timesteps": updates * steps * n, "seconds": seconds, "curve": curve, "settings": asdict(settings),
            "model_path": str(out / "model.pt"), "policy_path": str(out / "policy.npz")}


def plain(value):
    """``value`` as JSON holds it (tuples as lists, objects by name): how a checkpoint's record is kept and
    compared."""
    return json.loads(json.dumps(value, default=str))


def teacher_generator_state(teacher):
    """The state of the teacher's own generator (``rng``), if it has one."""
    generator = getattr(teacher, "rng", None)
    return generator.bit_generator.state if isinstance(generator, np.random.Generator) else None


def save_checkpoint(path: Path, checkpoint: dict) -> None:
    """``checkpoint`` (step 7 of ``learn``: tensors and plain values, its actions a list of rollouts) saved to
    ``path``, renamed into place when whole."""
    with written(path) as partial:
        torch.save({**checkpoint, "actions": torch.cat(checkpoint["actions"])}, partial)


def load_checkpoint(path: Path, seed: int, settings: Settings, updates: int, record: dict | None) -> dict:
    """The checkpoint ``learn`` saved at ``path`` (``read_checkpoint``), checked to be of the run asked for: the
    same seed, fitted settings, updates and record (the game and its options)."""
    saved = read_checkpoint(path)
    asked = plain({"seed": seed, "settings": asdict(settings), "updates": updates, "record": record or {}})
    differ = [key for key in asked if plain(saved.get(key)) != asked[key]]
    if differ:
        raise ValueError(f"{path} is a checkpoint of another run: its {' and '.join(differ)} differ from this "
                         f"one's; resume with the options the run was started with")
    return saved


def replayed(envs: gym.vector.VectorEnv, seed: int, saved: dict):
    """``envs`` brought to where the checkpoint ``saved`` left its games: reset with the run's seed, then every
    action played since. The observation, mask and finished rows they reach, checked against the checkpoint's."""
    obs, infos = envs.reset(seed=seed)
    ended = np.zeros(envs.num_envs, dtype=bool)
    for actions in saved["actions"]:
        obs, _, term, trunc, infos = envs.step(actions.long().numpy())
        ended = term | trunc
    obs = torch.as_tensor(obs, dtype=torch.float32)
    mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    resetting = torch.as_tensor(ended)
    if not (torch.equal(obs, saved["obs"]) and torch.equal(mask, saved["mask"])
            and torch.equal(resetting, saved["resetting"])):
        raise ValueError("the envs did not replay to the checkpoint's games: resuming needs envs whose games follow "
                         "from the reset's seed and the actions, made with the run's own options")
    return obs, mask, resetting


# ---------------------------------------------------------------- the run: tabletop-gym train <game>

TEACHER_COEF = 1.0   # kickstarting: the teacher's cross-entropy weighs as much as the policy loss at first
TEACHER_DECAY = 0.5  # and falls to 0 by half the training, which PPO then has to itself
# A policy that scores each action reads the table into a summary of the last width, beside each action's fields:
# kept small, since the scorer runs once per action.
SUMMARY_HIDDEN = (256, 64)


def train(game: str, timesteps: int = 100_000, seed: int = 0, n_envs: int | None = None, out=None,
          eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, settings: dict | None = None, teacher: str | None = None,
          read_plain: bool = True, policy: MaskedPolicy | None = None, cloned: dict | None = None,
          spent: float = 0.0, overwrite: bool = False, resume=None,
          checkpoint_every: float = CHECKPOINT_EVERY) -> TrainResult:
    """Masked PPO on ``game``'s native vector env of ``n_envs`` games (default 64), then the saved policy
    evaluated on ``eval_episodes`` deals it never saw (by ``workers`` processes; default one per CPU); everything
    is written under ``out`` (default ``runs/<Game>-v0``).

    ``settings``: fields of ``Settings`` to change (``learning_rate``...). ``teacher``: an agent's name whose move
    on every position the policy reaches kickstarts it (``learn``'s ``teacher``; its weight ``teacher_coef``, by
    default ``TEACHER_COEF``, falls to 0 over ``teacher_decay`` of the training, by default ``TEACHER_DECAY``).
    ``read_plain=False`` (with ``env_kwargs``' ``observation="features"`` or ``"actions"``): the policy reads the
    features alone, not the plain observation before them. ``policy``: where to start (``clone.train`` hands its
    cloned policy here, with ``cloned``, what the cloning was, for the record, and ``spent``, its seconds). In a
    multi-player game the learner plays ``env_kwargs``' opponent (the env's default) from a seat drawn per game,
    since the evaluation rotates it.

    A folder that holds another run is refused unless ``overwrite``. The run saves a checkpoint every
    ``checkpoint_every`` seconds; ``resume`` (the folder of a run that did not finish, with the options it was
    started with, but no ``policy``: the checkpoint holds it) goes on from there exactly as if it had never
    stopped (``learn``).
    """
    settings = ppo_settings(game, n_envs, env_kwargs or {}, settings or {}, teacher, read_plain)
    if resume is not None and out is not None and Path(out).resolve() != Path(resume).resolve():
        raise ValueError(f"--resume {resume} goes on in that folder: leave --out out")
    if resume is not None and policy is not None:
        raise ValueError("a resumed run goes on from its checkpoint's policy, not from another one")
    with start_run(game, resume or out, seed, env_kwargs, eval_episodes, workers, progress, overwrite=overwrite,
                   resume=resume is not None) as run:
        record = {"game": run.env_id, "env_kwargs": {k: by_name(v) for k, v in run.training_kwargs.items()},
                  **(cloned or {}), **({"teacher": teacher} if teacher else {})}
        envs = native_vector_env(run.env_id, settings.num_envs, run.training_kwargs)
        learned = learn(envs, timesteps, settings, seed=seed, out=run.folder, progress=progress, record=record,
                        policy=policy, teacher=None if teacher is None else make_agent(teacher, run.env_id, seed=seed),
                        checkpoint_every=checkpoint_every, resume=resume is not None)
        envs.close()
        hyperparameters = {**learned["settings"], **(cloned or {}), **({"teacher": teacher} if teacher else {})}
        return run.finish(saved_policy(learned["policy_path"]), "ppo", "masked PPO",
                          ran(learned, hyperparameters, spent + learned["seconds"]), timesteps)


def ppo_settings(game: str, n_envs: int | None, env_kwargs: dict, changes: dict, teacher: str | None = None,
                 read_plain: bool = True) -> Settings:
    """The ``Settings`` a run of ``game`` trains with: ``changes`` on the defaults, the per-action scorer for
    ``observation="actions"``, kickstarting's weights with a ``teacher``; a ValueError for options that do not
    go together."""
    if teacher is None and {"teacher_coef", "teacher_decay"} & set(changes):
        raise ValueError("teacher_coef and teacher_decay go with a teacher")
    if teacher is not None:
        changes = {"teacher_coef": TEACHER_COEF, "teacher_decay": TEACHER_DECAY, **changes}
    env_id = game_id(game)
    if not read_plain:
        changes = {**changes, "read_from": plain_size(env_id, env_kwargs)}
    fields = action_fields(env_id, env_kwargs)
    return Settings(**{"num_envs": n_envs or Settings.num_envs, "action_fields": fields,
                       **({"hidden": SUMMARY_HIDDEN} if fields else {}), **changes})


def ran(learned: dict, hyperparameters: dict, seconds: float) -> Learned:
    """What ``learn`` did, as the run records it."""
    curve = [(row["step"], row["win_rate"]) for row in learned["curve"]]
    return Learned(Path(learned["model_path"]), learned["timesteps"], hyperparameters, seconds, curve)


def action_fields(env_id: str, env_kwargs: dict) -> int:
    """The fields per action an observation="actions" env ends with (the policy scores each action), else 0."""
    if env_kwargs.get("observation") != "actions":
        return 0
    env = gym.make(env_id)
    features = env.unwrapped.features
    env.close()
    if "actions" not in observation_modes(features):
        raise ValueError(f"{env_id} has no observation='actions': its observations are "
                         f"{observation_modes(features)}")
    return features.ACTION_FIELD_COUNT


def plain_size(env_id: str, env_kwargs: dict) -> int:
    """The plain observation's size, which a policy that reads the features alone skips."""
    if env_kwargs.get("observation", "plain") == "plain":
        raise ValueError("read_plain=False goes with the project's own PPO on observation='features' or "
                         "'actions': with the plain observation alone there would be nothing to read")
    env = gym.make(env_id).unwrapped
    size = observation_size(env.rules, env.features, "plain")
    env.close()
    return size

