"""Learn a value of a game's positions from games, for the game's value agent.

    tabletop-gym train <game> --algo value

A game's value agent (``VALUE_AGENT`` in its agent module, ``agents/<game>.py``) plays its heuristic's way, but with
a learned judge where the heuristic has a rule of thumb. What the trainer keeps of a decision, which moves are tried
at random and how a game's outcome is counted are the game's rows class (``VALUE_ROWS`` in the same module, found in
``GAME_ROWS`` below), with the ``Settings`` it changes. This file learns the judge, top to bottom:

1. The heuristic plays ``games`` deals with random moves mixed in: a share of the games with each chance of a random
   move in ``heuristic_epsilon``, the random move one of the rows class's ``random_choices``. Each row keeps the fields
   its class fills, and how the game ended (its class's ``outcome``: won, or a share of the game cleared). Without
   the random moves the value would only see the positions the heuristic chose, and could not rank the others.
2. An MLP (the fields -> hidden -> hidden -> 1, tanh between, a sigmoid after) is fitted to those games: to the games'
   outcomes first (Monte Carlo), then in rounds to TD(lambda) targets made from its own values of the positions that
   followed, which average out the luck of the cards (or dice) still to come.
3. One round of policy iteration: the value agent with that network plays ``games`` more deals (random moves with
   probability ``own_epsilon``), and a new network is fitted to all the games, as in 2.
4. It is saved as ``value.npz`` (the layers as a policy's are, and the run's record), which ``make_agent("value:<path>",
   game)`` plays; ``train``, the run's front door at the end of this file, then evaluates it on deals it never saw.

The deals are 40,000,000 + 1,000,000 x seed onwards; the random moves of a deal come from a generator of its seed, so
that a run gives the same games however many workers play them.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from ...agents import VALUE_GAMES, agent_module, heuristic, make_agent
from ...agents.policy import ValueNetwork, layer_arrays
from ...envs.core.compiled import compiled
from ... import envs
from ..evaluation.evaluate import in_workers
from .run import Learned, TrainResult, start_run, write_curve, written

TRAINING_DEALS = 40_000_000  # + 1,000,000 x seed: away from the evaluations' deals (from 0, 10,000,000 + seed...)


@dataclass
class Settings:
    games: int = 80_000  # deals of each phase: the heuristic's, then the value agent's own
    heuristic_epsilon: tuple = (0.3, 0.15)  # the heuristic's games: a share with each chance of a random move
    own_epsilon: float = 0.15  # the value agent's games
    hidden: int = 256
    td_lambda: float = 0.5
    outcome_epochs: int = 6  # epochs fitted to the games' outcomes first
    td_rounds: int = 5  # then rounds of TD(lambda) targets from the network's own values
    td_epochs: int = 3  # epochs of each round
    batch_size: int = 1024
    learning_rate: float = 1e-3
    held_out: int = 20  # one game in this many is kept out of the fit, for the validation loss
    torch_threads: int = 2


# Each value game's rows class (its agent module's ``VALUE_ROWS``): what the trainer keeps of its games.
GAME_ROWS = {game: agent_module(game).VALUE_ROWS() for game in VALUE_GAMES}


# ---------------------------------------------------------------- 1. games

def play_games(game, agent, epsilon: float, chunk) -> dict:
    """``agent`` plays the deals of ``chunk`` (first seed, count) of ``game`` (a ``GAME_ROWS`` entry), with
    probability ``epsilon`` a random one of the game's ``random_choices`` instead of its own move where there are two
    or more. The rows: the game's first, then those of the decisions that keep one, each with its deal and (filled in
    at the end) the game's outcome, whether it was won and its score."""
    first, count = chunk
    env = gym.make(game.env_id, illegal_action="raise")  # a bad move fails loudly
    fields, deals, outcomes, won, scores = [], [], [], [], []
    row = np.empty(game.field_count, dtype=np.float32)
    for deal in range(first, first + count):
        rng = np.random.default_rng(deal)
        obs, info = env.reset(seed=deal)
        agent.reset(seed=deal)
        rows = 0
        start = game.first_row(obs)
        if start is not None:
            fields.append(start)
            rows = 1
        done = False
        while not done:
            action = agent.act(obs, info["action_mask"])
            choices = game.random_choices(agent, obs, info["action_mask"])
            if len(choices) > 1 and rng.random() < epsilon:
                action = int(rng.choice(choices))
            if game.fill_row(obs, action, row):
                fields.append(row.copy())
                rows += 1
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        deals += [deal] * rows
        outcomes += [game.outcome(info)] * rows
        won += [bool(info["won"])] * rows
        scores += [float(info["score"])] * rows
    env.close()
    return {"fields": np.array(fields, dtype=np.float32).reshape(-1, game.field_count),
            "deal": np.array(deals, dtype=np.int64), "outcome": np.array(outcomes, dtype=np.float32),
            "won": np.array(won, dtype=bool), "score": np.array(scores, dtype=np.float32)}


def games_of(game, agent, first: int, count: int, epsilon: float, workers: int, progress: bool, desc: str) -> dict:
    """``play_games`` over ``count`` deals from ``first``, shared among ``workers`` processes, in deal order."""
    size = max(1, -(-count // (workers * 8)))
    chunks = [(start, min(size, first + count - start)) for start in range(first, first + count, size)]
    bar = tqdm(total=count, desc=desc, unit="game", disable=not progress)
    wins = [0, 0]

    def done(chunk, part):
        wins[0] += int(part["won"][game_ends(part)].sum())
        wins[1] += chunk[1]
        bar.update(chunk[1])
        bar.set_postfix_str(f"win rate {100 * wins[0] / wins[1]:.1f}%", refresh=False)

    parts = in_workers(partial(play_games, game, agent, epsilon), chunks, workers, done)
    bar.close()
    return joined(*parts)


def joined(*data: dict) -> dict:
    return {key: np.concatenate([d[key] for d in data]) for key in ("fields", "deal", "outcome", "won", "score")}


def game_ends(data: dict) -> np.ndarray:
    """The row of each game's last decision."""
    return np.flatnonzero(np.r_[data["deal"][1:] != data["deal"][:-1], True])


def win_rate(data: dict) -> float:
    return float(data["won"][game_ends(data)].mean())


def training_curve(data: dict, every: int = 1000, window: int = 100) -> list:
    """Every ``every`` games: the decisions so far, and the win rate and mean score of the last ``window`` games."""
    ends = game_ends(data)
    rows = []
    for count in [*range(every, len(ends), every), len(ends)]:
        recent = ends[max(0, count - window):count]
        rows.append({"step": int(ends[count - 1]) + 1, "win_rate": round(float(data["won"][recent].mean()), 4),
                     "mean_score": round(float(data["score"][recent].mean()), 4)})
    return rows


# ---------------------------------------------------------------- 2. the fit

@compiled
def td_targets(values, outcome, last, td_lambda):
    """TD(lambda) targets of a game's rows, in order: at a game's last row its outcome, before it
    ``(1 - lambda) * value(next row) + lambda * target(next row)``."""
    targets = np.empty(len(values), dtype=np.float32)
    following = 0.0
    for t in range(len(values) - 1, -1, -1):
        following = outcome[t] if last[t] else (1 - td_lambda) * values[t + 1] + td_lambda * following
        targets[t] = following
    return targets


def value_network(field_count: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(field_count, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, 1))


def fit_value(data: dict, settings: Settings, seed: int, log: list, phase: str) -> nn.Sequential:
    """A new network fitted to ``data``: the outcomes, then ``td_rounds`` rounds of TD(lambda) targets. Each
    round's validation loss (against the outcomes of the held-out games) goes to ``log``."""
    torch.manual_seed(seed)
    net = value_network(data["fields"].shape[1], settings.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    fields = torch.as_tensor(data["fields"])
    outcome = data["outcome"]
    last = np.zeros(len(outcome), dtype=bool)
    last[game_ends(data)] = True
    held_out = torch.as_tensor(data["deal"] % settings.held_out == 0)
    train_fields = fields[~held_out]
    generator = torch.Generator().manual_seed(seed)

    def values() -> np.ndarray:
        with torch.no_grad():
            return torch.cat([torch.sigmoid(net(fields[i:i + 65536])[:, 0])
                              for i in range(0, len(fields), 65536)]).numpy()

    def train(targets: np.ndarray, epochs: int, kind: str, round_: int) -> None:
        targets = torch.as_tensor(targets)[~held_out]
        for _ in range(epochs):
            order = torch.randperm(len(train_fields), generator=generator)
            for start in range(0, len(order), settings.batch_size):
                batch = order[start:start + settings.batch_size]
                loss = nn.functional.binary_cross_entropy_with_logits(net(train_fields[batch])[:, 0], targets[batch])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        loss = None
        if held_out.any():
            with torch.no_grad():
                loss = round(float(nn.functional.binary_cross_entropy_with_logits(
                    net(fields[held_out])[:, 0], torch.as_tensor(outcome)[held_out])), 5)
        log.append({"phase": phase, "round": round_, "targets": kind, "epochs": epochs, "validation_loss": loss})

    train(outcome, settings.outcome_epochs, "outcomes", 0)
    for round_ in range(1, settings.td_rounds + 1):
        train(td_targets(values(), outcome, last, settings.td_lambda), settings.td_epochs, f"td({settings.td_lambda})",
              round_)
    return net


def value_agent(game, net: nn.Sequential, record: dict):
    return game.value_agent(ValueNetwork(value_arrays(net, record)))


def value_arrays(net: nn.Sequential, record: dict) -> dict:
    # float32 weights: the agent compares values that differ in the third decimal
    return {**layer_arrays(net, weight_dtype=np.float32), "record": np.array(json.dumps(record))}


# ---------------------------------------------------------------- the run

def learn(game: str, games: int | None = None, seed: int = 0, out: str | Path = "runs/value",
          workers: int = 1, progress: bool = True, changes: dict | None = None) -> dict:
    """The whole recipe (the module's docstring) for ``game`` (a key of ``GAME_ROWS``), with its ``Settings``
    but ``changes`` (and ``games``, when given); writes ``value.npz`` (its record holds each fit's validation
    losses) and ``learning_curve.csv`` (the training games: win rate and mean score of the last 100, every 1,000
    games, against the rows kept, as the PPO trainer's against its steps) under ``out``.
    Returns the model's path, the rows learned from (``decisions``: the rows its ``GAME_ROWS`` entry keeps), the
    settings, the seconds and the curve's (step, win rate) points."""
    if game not in GAME_ROWS:
        raise ValueError(f"the value trainer learns {' and '.join(GAME_ROWS)}, not {game}")
    spec = GAME_ROWS[game]
    settings = Settings(**{**spec.settings, **(changes or {})})
    if games is not None:
        settings = replace(settings, games=games)
    if settings.games < len(settings.heuristic_epsilon):
        raise ValueError(f"games must be at least {len(settings.heuristic_epsilon)}, got {settings.games}")
    if not 0 <= seed < 10:
        raise ValueError(f"the value trainer's seed is 0 to 9 (each seed has its own million deals), got {seed}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(settings.torch_threads)
    started = time.perf_counter()
    first = TRAINING_DEALS + 1_000_000 * seed
    log = []

    # 1. The heuristic's games, with random moves.
    shares = np.array_split(np.arange(settings.games), len(settings.heuristic_epsilon))
    teacher = heuristic(game)
    taught = [games_of(spec, teacher, first + int(share[0]), len(share), epsilon, workers, progress,
                       f"heuristic, epsilon {epsilon}") for share, epsilon in zip(shares, settings.heuristic_epsilon)]
    data = joined(*taught)

    # 2. The value fitted to them.
    record = {"game": spec.env_id, "algo": "value", "seed": seed, "settings": asdict(settings)}
    net = fit_value(data, settings, seed, log, "heuristic's games")

    # 3. The value agent's own games, and the value fitted again to all.
    own = games_of(spec, value_agent(spec, net, record), first + settings.games, settings.games,
                   settings.own_epsilon, workers, progress, f"value agent, epsilon {settings.own_epsilon}")
    data = joined(data, own)
    net = fit_value(data, settings, seed, log, "all games")
    seconds = time.perf_counter() - started

    # 4. Saved, with the run's record.
    record.update({"deals": [first, first + 2 * settings.games - 1], "decisions": len(data["won"]),
                   "training_win_rates": {"heuristic": [round(win_rate(d), 4) for d in taught],
                                          "value agent": round(win_rate(own), 4)},
                   "validation": log, "seconds": round(seconds, 1),
                   "command": f"tabletop-gym train {game} --algo value --games {settings.games} "
                              f"--seed {seed}"})
    model_path = folder / "value.npz"
    with written(model_path) as writing:
        np.savez_compressed(writing, **value_arrays(net, record))
    curve = training_curve(data)
    write_curve(folder, curve)
    return {"model_path": model_path, "decisions": len(data["won"]), "settings": asdict(settings),
            "seconds": seconds, "curve": [(row["step"], row["win_rate"]) for row in curve]}


def train(game: str, games: int | None = None, seed: int = 0, out=None, eval_episodes: int = 500,
          workers: int | None = None, progress: bool = True, value_settings: dict | None = None,
          overwrite: bool = False) -> TrainResult:
    """``learn`` for ``game`` (``games`` deals a phase, by default its rows class's; ``value_settings``: fields of
    ``Settings`` to change), by ``workers`` processes (default one per CPU); then the value agent on the saved
    ``value.npz`` evaluated on ``eval_episodes`` deals it never saw. The value agent plays the plain env, so the
    trainer takes no env options."""
    entry = envs.game(game)
    if entry.name not in VALUE_GAMES:
        raise ValueError(f"the value trainer learns the values of {' and '.join(VALUE_GAMES)}; {entry.id} has "
                         f"the other trainers")
    with start_run(entry, out, seed, {}, eval_episodes, workers, progress, overwrite=overwrite) as run:
        learned = learn(entry.name, games, seed, run.folder, workers or os.cpu_count() or 1, progress,
                        value_settings)
        # Its budget is games, not steps: the steps are the decisions it learned from.
        steps = learned["decisions"]
        return run.finish(make_agent(f"value:{learned['model_path']}", run.env_id), "value", "learned value",
                          Learned(learned["model_path"], steps, learned["settings"], learned["seconds"],
                                  learned["curve"]), steps)
