"""The planning agent's networks by expert iteration: the search plays itself and learns from its own games.

    tabletop-gym train splendor --algo az --rounds 10 --games 400 --workers 2

The planning agent (``agents/az.py``, ``make_agent("az", "splendor")``) searches with a policy's prior and a value's
judgement of the positions it reaches. This file trains both, top to bottom:

0. **Round 0.** The prior is the game's shipped policy (``agents/models/<game>.npz``). It plays every seat of
   ``value_games`` deals, each move drawn from its probabilities (so that the positions are varied, as the search
   will meet them), ``batch`` games at a time in lockstep so that it chooses for all of them in one call; each
   decision keeps the position as a seat drawn at random sees it (the search asks every seat's chance, the seat to
   move or not) and whether that seat won in the end (a shared win counts; a game cut short has no winner). A value MLP (the observation -> 256 -> 64 -> 1, tanh between, a sigmoid after) is
   fitted to those outcomes.
1. **Each later round.** The planning agent on the last round's networks (``simulations`` a move, the game's
   ``PLANNING`` settings otherwise, Dirichlet noise on the root's prior, moves drawn in proportion to the visits for the first
   ``explore_moves`` decisions of a game, then the most visited) plays ``games`` deals against itself, or, in a
   ``league_share`` of them, against the search on an earlier round's networks (a league of past selves, so that it
   does not forget how to beat them). Each of its decisions keeps the observation, the legal moves, the search's
   improved policy (``agents/az.py``'s ``improved_policy``: the prior moved by the values the search found, as
   Gumbel MuZero trains its policy; at a few simulations a move the visits alone would follow the prior), the
   search's value of the position and whether its seat won.
2. **The fit.** The policy (started from the last round's) learns the improved policy by cross-entropy, and the
   value a target that is ``bootstrap`` the search's value and the rest the outcome (a game's end is far off and
   chancy; the search's value of the position is its own less noisy guess), on the last ``window`` rounds'
   decisions, one game in ``held_out`` kept out for the validation losses (whole games: a game's decisions share
   its outcome); each keeps the weights of its best epoch on those. The fits run on ``device`` (a GPU where there
   is one); the games are played on the CPUs.
3. **The round's files**: ``rounds/round_<k>/policy.npz`` and ``value.npz`` (small: float16 weights, played with
   numpy), the round's record in each, and a row of ``learning_curve.csv``: the decisions, the losses, the
   search's wins in its games against the league, and the round's seconds (its wall time, and its games' time in
   the workers summed, which counts the games played before a stop too).

The games of a round are played by ``workers`` processes, ``chunk`` deals a task, each task's generator seeded by
the run's seed, the round and the task (the same games whatever the number of workers). Each task's games are
written as soon as they are played (``rounds/games_<k>/``), so a run stopped at any point loses at most the tasks
under way: ``--resume <folder>`` goes on from there. At the end the last round's networks are the run's
``policy.npz`` and ``value.npz``, played as ``az:<folder>``, and ``Run.finish`` evaluates them and writes the record.
The deals are 50,000,000 + 1,000,000 x seed onwards, away from the evaluations'. The networks that ship
(``agents/models/az/<game>.npz`` and ``<game>_value.npz``) are a run's ``policy.npz`` and ``value.npz``; a value
trained at a table of n players (``--players n``) ships as ``<game>_value_<n>p.npz``, which the agent asks at such
a table.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from ... import envs
from ...agents import PolicyAgent, committed_model, games_with, planning_agent, planning_game
from ...agents.az import Networks, PlanningAgent
from ...agents.network import MaskedPolicy
from ...agents.policy import PolicyNetwork, ValueNetwork, layer_arrays, policy_arrays
from ...envs.core.env import with_features
from ..evaluation.evaluate import in_workers
from .run import CHECKPOINT, Learned, read_checkpoint, start_run, write_curve, written

TRAINING_DEALS = 50_000_000  # + 1,000,000 x seed
ROUNDS = "rounds"  # the run's folder of rounds (one of run.RUN_FILES)


@dataclass(frozen=True)
class Settings:
    value_games: int = 16_384  # round 0: the prior's games against itself
    batch: int = 256  # round 0: games played in lockstep, a task each
    games: int = 200  # each later round: the search's games
    chunk: int = 8  # each later round: the games of a task
    simulations: int = 64  # the search's a move in self-play (its other settings: the game's PLANNING)
    noise: float = 0.25
    explore_moves: int = 8
    league_share: float = 0.3
    window: int = 3  # rounds of decisions each fit reads
    bootstrap: float = 0.5  # the value's target: this share of the search's root value, the rest the outcome
    hidden: tuple = (256, 64)  # the value's
    value_epochs: int = 8
    epochs: int = 4  # each later round's fit of the policy
    value_epochs_later: int = 1  # and of the value: a round's few hundred games are soon learnt by heart
    batch_size: int = 512
    learning_rate: float = 1e-3
    policy_learning_rate: float = 3e-4
    held_out: int = 20
    device: str = "cpu"  # the fits': "cuda" on a GPU
    torch_threads: int = 1  # the fits' on the CPU: beside other work on the cores, more threads wait on each other


@dataclass(frozen=True)
class Task:
    """A worker's share of a round: ``count`` deals from ``first_deal`` at a table of ``num_players``, its
    generator seeded by ``seed``; ``rounds`` the folders of the networks that play (the learner's first, then the
    league's past rounds)."""
    game: str
    index: int
    first_deal: int
    count: int
    num_players: int
    seed: tuple
    rounds: tuple = ()


# ---------------------------------------------------------------- 0. the prior's games

def self_play(rules, policy, first_deal: int, count: int, num_players: int, rng) -> dict:
    """``count`` deals from ``first_deal``, the policy drawing every seat's moves: each decision's position as a
    seat drawn at random sees it (the seat to move or another: the search asks the value each seat's chance, from
    its own view, whoever is to move), whether that seat won, and its deal."""
    games = [rules.new_game(np.random.default_rng(first_deal + g), num_players) for g in range(count)]
    seen = [[] for _ in games]
    playing = list(range(count))
    while playing:
        observations = np.stack([rules.observe(games[g], int(games[g].current)) for g in playing])
        masks = np.stack([rules.legal_mask(games[g]) for g in playing])
        cumulative = policy.probabilities(observations, masks).cumsum(axis=1)
        picks = (cumulative <= rng.random(len(playing))[:, None] * cumulative[:, -1:]).sum(axis=1)
        viewers = rng.integers(num_players, size=len(playing))
        for g, viewer, action in zip(playing, viewers, np.minimum(picks, rules.NUM_ACTIONS - 1)):
            seen[g].append((rules.observe(games[g], int(viewer)), int(viewer)))
            games[g] = rules.apply(games[g], int(action))
        playing = [g for g in playing if not (rules.is_over(games[g]) or rules.is_truncated(games[g]))]
    observations, won, deals = [], [], []
    for g, (game, decisions) in enumerate(zip(games, seen)):
        winners = set(rules.winners(game))
        observations += [observation for observation, _ in decisions]
        won += [seat in winners for _, seat in decisions]
        deals += [first_deal + g] * len(decisions)
    return {"observations": np.array(observations, dtype=np.float32), "won": np.array(won, dtype=np.float32),
            "deal": np.array(deals, dtype=np.int64)}


def prior_games(task: Task) -> dict:
    """A task of round 0, in a worker: the shipped policy's games, and the seconds they took."""
    started = time.perf_counter()
    entry = envs.game(task.game)
    games = self_play(entry.module("rules"), PolicyAgent(committed_model(entry.name)), task.first_deal, task.count,
                      task.num_players, np.random.default_rng(task.seed))
    return {**games, "seconds": np.array([time.perf_counter() - started])}


# ---------------------------------------------------------------- 1. the search's games

def search_game(rules, players: list, learner: int, deal: int, num_players: int, settings: Settings,
                rng) -> tuple[list, bool]:
    """One deal, the planning agent ``players[k]`` at seat k: the learner's decisions (observation, legal mask, the
    search's improved policy, its root's value) and whether the learner's seat won."""
    state = rules.new_game(np.random.default_rng(deal), num_players)
    decisions, moves = [], 0
    while not (rules.is_over(state) or rules.is_truncated(state)):
        mask = rules.legal_mask(state)
        seat = int(state.current)
        if mask.sum() == 1:
            state = rules.apply(state, int(np.flatnonzero(mask)[0]))
            continue
        search = players[seat]
        visits = search.search([rules.determinize(state, rng, seat) for _ in range(search.worlds)])
        shares = visits / visits.sum()
        if seat == learner:
            decisions.append((rules.observe(state, seat), mask, search.last_policy.astype(np.float32),
                              search.last_value))
        action = rng.choice(len(shares), p=shares) if moves < settings.explore_moves else int(np.argmax(visits))
        state = rules.apply(state, int(action))
        moves += 1
    return decisions, learner in rules.winners(state)


def league_games(task: Task, settings: Settings) -> dict:
    """A task of a later round, in a worker: its deals, the search on the learner's networks (``task.rounds[0]``)
    at a seat that rotates deal by deal, the search on the same networks or (``league_share``) on a past round's at
    the others. Every learner decision, with its targets, the learner's wins and the seconds the games took."""
    started = time.perf_counter()
    rules = envs.game(task.game).module("rules")
    rng = np.random.default_rng(task.seed)
    networks = [networks_of(Path(folder)) for folder in task.rounds]
    planning = {**games_with("PLANNING")[task.game], "simulations": settings.simulations}

    def searcher(judges):
        return PlanningAgent(rules, judges, **planning, noise=settings.noise, seed=int(rng.integers(2**31)))

    observations, masks, policies, values, won, deals, wins = [], [], [], [], [], [], 0
    for g in range(task.count):
        deal = task.first_deal + g
        learner = deal % task.num_players
        past = networks[1:]
        opponents = past[int(rng.integers(len(past)))] if past and rng.random() < settings.league_share \
            else networks[0]
        players = [searcher(networks[0] if k == learner else opponents) for k in range(task.num_players)]
        decisions, learner_won = search_game(rules, players, learner, deal, task.num_players, settings, rng)
        wins += learner_won
        for observation, mask, policy, value in decisions:
            observations.append(observation)
            masks.append(mask)
            policies.append(policy)
            values.append(value)
            won.append(float(learner_won))
            deals.append(deal)
    return {"observations": np.array(observations, dtype=np.float32).reshape(-1, rules.OBSERVATION_SIZE),
            "masks": np.array(masks, dtype=bool).reshape(-1, rules.NUM_ACTIONS),
            "policy": np.array(policies, dtype=np.float32).reshape(-1, rules.NUM_ACTIONS),
            "value": np.array(values, dtype=np.float32), "won": np.array(won, dtype=np.float32),
            "deal": np.array(deals, dtype=np.int64),
            "wins": np.array([wins]), "games": np.array([task.count]),
            "seconds": np.array([time.perf_counter() - started])}


def networks_of(folder: Path) -> Networks:
    """A round's networks, as the search asks for them."""
    return Networks(PolicyAgent(folder / "policy.npz"), ValueNetwork(folder / "value.npz"))


# ---------------------------------------------------------------- 2. the fit

def value_mlp(size: int, hidden) -> nn.Sequential:
    sizes = [size, *hidden]
    layers = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), nn.Tanh()]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], 1))


def value_from_file(path, scale: np.ndarray) -> nn.Sequential:
    """A saved value (``value_arrays``) as a torch MLP on scaled observations again."""
    layers = ValueNetwork(path).layers
    net = value_mlp(layers[0][0].shape[1], [w.shape[0] for w, _ in layers[:-1]])
    for linear, (weight, bias) in zip([m for m in net if isinstance(m, nn.Linear)], layers):
        if linear is net[0]:
            weight = weight / scale[None, :]  # the scale folded in, taken out
        linear.weight.data = torch.as_tensor(np.asarray(weight, dtype=np.float32))
        linear.bias.data = torch.as_tensor(np.asarray(bias, dtype=np.float32))
    return net


def policy_from_file(path) -> MaskedPolicy:
    """A saved ``.npz`` policy (one that scores each action) as a torch ``MaskedPolicy`` to go on training."""
    network = PolicyNetwork(path)
    policy = MaskedPolicy(network.obs_size, network.num_actions, hidden=[w.shape[0] for w, _ in network.layers],
                          action_fields=network.action_fields,
                          scorer_hidden=[w.shape[0] for w, _ in network.scorer[:-1]], read_from=network.read_from)
    policy.obs_scale.copy_(torch.as_tensor(network.obs_scale))
    for mlp, layers in ((policy.actor, network.layers), (policy.scorer, network.scorer)):
        for linear, (weight, bias) in zip([m for m in mlp if isinstance(m, nn.Linear)], layers):
            linear.weight.data = torch.as_tensor(np.asarray(weight, dtype=np.float32))
            linear.bias.data = torch.as_tensor(np.asarray(bias, dtype=np.float32))
    return policy


def held_out_split(deals: np.ndarray, settings: Settings) -> tuple[torch.Tensor, torch.Tensor]:
    """The decisions fitted and those kept out: whole games kept out (a game's decisions share its outcome, so a
    decision kept out beside its game's others would be judged on what the fit has seen)."""
    held = deals % settings.held_out == 0
    return torch.as_tensor(np.flatnonzero(~held)), torch.as_tensor(np.flatnonzero(held))


def fit_value(net, observations, won, deals, scale, settings: Settings, epochs: int, seed: int) -> list:
    """``net`` fitted to ``won`` from ``observations`` (scaled by ``scale``) of the games ``deals``, in place; each
    epoch's validation loss."""
    torch.manual_seed(seed)
    device = torch.device(settings.device)
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    x, y = torch.as_tensor(observations * scale, device=device), torch.as_tensor(won, device=device)
    train, check = (rows.to(device) for rows in held_out_split(deals, settings))
    loss_of = nn.BCEWithLogitsLoss()
    losses, best = [], None
    for _ in range(epochs):
        order = train[torch.randperm(len(train), device=device)]
        for start in range(0, len(order), settings.batch_size):
            rows = order[start:start + settings.batch_size]
            loss = loss_of(net(x[rows])[:, 0], y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            losses.append(round(float(loss_of(net(x[check])[:, 0], y[check])), 4))
        best = _kept_if_best(net, losses, best)
    net.load_state_dict(best)
    net.to("cpu")
    return losses


def _kept_if_best(net, losses: list, best: dict | None) -> dict:
    """The weights of the epoch with the lowest validation loss so far: a value fitted to a few thousand games'
    outcomes soon learns them by heart, and the epochs after its best only judge worse."""
    if best is None or losses[-1] <= min(losses):
        return {key: value.clone() for key, value in net.state_dict().items()}
    return best


def fit_policy(policy: MaskedPolicy, features, observation_mode: str, data: dict, settings: Settings,
               seed: int) -> list:
    """``policy`` fitted to the search's improved policy by cross-entropy, in place; each epoch's validation
    loss."""
    torch.manual_seed(seed)
    device = torch.device(settings.device)
    policy.to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.policy_learning_rate)
    train, check = held_out_split(data["deal"], settings)

    def loss_on(rows) -> torch.Tensor:
        rows = rows.numpy()
        x = torch.as_tensor(with_features(features, observation_mode, data["observations"][rows]), device=device)
        logits = policy.logits(x, torch.as_tensor(data["masks"][rows], device=device))
        target = torch.as_tensor(data["policy"][rows], device=device)
        return -(target * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()

    losses, best = [], None
    for _ in range(settings.epochs):
        order = train[torch.randperm(len(train))]
        for start in range(0, len(order), settings.batch_size):
            loss = loss_on(order[start:start + settings.batch_size])
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
        with torch.no_grad():
            losses.append(round(float(loss_on(check)), 4))
        best = _kept_if_best(policy, losses, best)
    policy.load_state_dict(best)
    policy.to("cpu")
    return losses


def value_arrays(net, scale: np.ndarray, record: dict) -> dict:
    """The network as ``ValueNetwork`` reads it, the observation's ``scale`` folded into its first layer."""
    arrays = layer_arrays(net, weight_dtype=np.float32)
    arrays["weight_0"] = arrays["weight_0"] * scale[None, :]
    for key in [key for key in arrays if key.startswith("weight_")]:
        arrays[key] = arrays[key].astype(np.float16)
    arrays["record"] = np.array(json.dumps(record))
    return arrays


# ---------------------------------------------------------------- 3. the run: tabletop-gym train <game> --algo az

def train(game: str, rounds: int = 1, games: int | None = None, simulations: int | None = None, seed: int = 0,
          out=None, eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, settings: dict | None = None, overwrite: bool = False, resume=None):
    """Round 0, then rounds 1 to ``rounds`` of ``games`` search games each (``simulations`` a move), at a table of
    ``env_kwargs``' ``num_players`` (the game's default otherwise), the games played by ``workers`` processes (one
    per CPU by default); then the last round's networks evaluated on ``eval_episodes`` deals against each built-in
    opponent, and the record written (``TrainResult``). ``settings``: fields of ``Settings`` to change.

    A folder that holds another run is refused unless ``overwrite``; ``resume`` (the folder of a run that did not
    finish, started with the same options; ``rounds`` may be more) goes on from its last tasks written."""
    entry = envs.game(planning_game(game))
    settings = replace(Settings(), **{**(settings or {}), **({"games": games} if games else {}),
                                      **({"simulations": simulations} if simulations else {})})
    table = table_options(entry, env_kwargs)
    if rounds < 0 or settings.games < 1 or settings.simulations < 1:
        raise ValueError(f"--rounds must be 0 or more, --games and --simulations 1 or more; got {rounds}, "
                         f"{settings.games} and {settings.simulations}")
    if resume is not None and out is not None and Path(out).resolve() != Path(resume).resolve():
        raise ValueError(f"--resume {resume} goes on in that folder: leave --out out")
    with start_run(entry.name, resume or out, seed, table, eval_episodes, workers, progress, seat_drawn=False,
                   overwrite=overwrite, resume=resume is not None) as run:
        identity = {"update": 0, "seed": seed, "settings": plain(settings, machine=False), "env_kwargs": table}
        if resume is not None:
            check_identity(run.folder / CHECKPOINT, identity)
        else:
            save_checkpoint(run.folder, identity)  # from now on the run can be resumed, whatever stops it
        learned = expert_iteration(run, entry, rounds, settings, table["num_players"], workers or os.cpu_count() or 1,
                                   identity)
        return run.finish(planning_agent(entry.name, seed, str(run.folder)), "az", "expert iteration", learned,
                          settings.value_games + rounds * settings.games)


def table_options(entry, env_kwargs: dict | None) -> dict:
    """The table the run plays: its number of players (the others search as the learner does, so there is no
    opponent to choose and no seat to fix)."""
    env_kwargs = dict(env_kwargs or {})
    others = sorted(set(env_kwargs) - {"num_players"})
    if others:
        raise ValueError(f"{', '.join(others)}: not options of --algo az, which plays every seat by its own search "
                         f"(--players sets the table)")
    env = gym.make(entry.id, **env_kwargs)  # the env checks the number, and knows its default
    num_players = int(env.unwrapped.num_players)
    env.close()
    return {"num_players": num_players}


def expert_iteration(run, entry, rounds: int, settings: Settings, num_players: int, workers: int,
                     identity: dict) -> Learned:
    """The rounds, each written into ``run.folder/rounds`` as it ends; what the run learned."""
    folder = run.folder / ROUNDS
    folder.mkdir(exist_ok=True)
    torch.set_num_threads(settings.torch_threads)
    rules, features = entry.module("rules"), entry.module("features", required=False)
    prior = PolicyAgent(committed_model(entry.name))
    scale = prior.network.obs_scale[:rules.OBSERVATION_SIZE]
    first = TRAINING_DEALS + 1_000_000 * run.seed
    curve = json.loads((folder / "curve.json").read_text()) if (folder / "curve.json").exists() else []
    about = {"game": entry.id, "num_players": num_players, "settings": plain(settings), "seed": run.seed}
    started = time.time()
    if not round_done(folder, 0):
        tasks = [Task(entry.name, i, first + start, min(settings.batch, settings.value_games - start), num_players,
                      (run.seed, 0, i)) for i, start in enumerate(range(0, settings.value_games, settings.batch))]
        data = played(folder, 0, tasks, prior_games, workers, run.progress)
        torch.manual_seed(run.seed)
        net = value_mlp(rules.OBSERVATION_SIZE, settings.hidden)
        losses = fit_value(net, data["observations"], data["won"], data["deal"], scale, settings,
                           settings.value_epochs, run.seed)
        record = {**about, "round": 0, "prior": f"agents/models/{entry.name}.npz", "positions": int(len(data["won"])),
                  "validation_losses": losses}
        save_round(folder, 0, {"copy": committed_model(entry.name)}, net, scale, record)
        curve = ended(run, folder, curve, {"round": 0, "games": settings.value_games, "decisions": len(data["won"]),
                                           "value_loss": min(losses), "policy_loss": "", "win_rate": ""}, started,
                      identity, data["seconds"])
    for k in range(rounds_done(folder), rounds + 1):
        started = time.time()
        networks = [str(folder / f"round_{k - 1}")] + [str(folder / f"round_{j}") for j in range(k - 1)]
        deals = first + settings.value_games + (k - 1) * settings.games  # each round's deals, after the last's
        tasks = [Task(entry.name, i, deals + start, min(settings.chunk, settings.games - start),
                      num_players, (run.seed, k, i), tuple(networks))
                 for i, start in enumerate(range(0, settings.games, settings.chunk))]
        data = played(folder, k, tasks, partial(league_games, settings=settings), workers, run.progress)
        window = [np.load(folder / f"decisions_{j}.npz") for j in range(max(1, k - settings.window + 1), k + 1)]
        fit = {key: np.concatenate([w[key] for w in window])
               for key in ("observations", "masks", "policy", "value", "won", "deal")}
        targets = (1 - settings.bootstrap) * fit["won"] + settings.bootstrap * fit["value"]
        policy = policy_from_file(folder / f"round_{k - 1}" / "policy.npz")
        policy_losses = fit_policy(policy, features, prior.record["env_kwargs"].get("observation", "plain"), fit,
                                   settings, run.seed + k)
        value_net = value_from_file(folder / f"round_{k - 1}" / "value.npz", scale)
        value_losses = fit_value(value_net, fit["observations"], targets, fit["deal"], scale, settings,
                                 settings.value_epochs_later, run.seed + k)
        win_rate = float(data["wins"].sum() / data["games"].sum())
        record = {**about, "round": k, "decisions": int(len(data["won"])), "fitted_on": int(len(fit["won"])),
                  "policy_losses": policy_losses, "validation_losses": value_losses, "win_rate": win_rate}
        save_round(folder, k, {"policy": policy, "record": {**prior.record, "az": record}}, value_net, scale, record)
        curve = ended(run, folder, curve, {"round": k, "games": settings.games, "decisions": len(data["won"]),
                                           "value_loss": min(value_losses), "policy_loss": min(policy_losses),
                                           "win_rate": round(win_rate, 4)}, started, identity, data["seconds"])
    last = folder / f"round_{rounds}"
    for name in ("policy.npz", "value.npz"):
        with written(run.folder / name) as partial_file:
            shutil.copyfile(last / name, partial_file)
    decisions = np.cumsum([row["decisions"] for row in curve])
    return Learned(run.folder / "policy.npz", int(decisions[-1]), {"rounds": rounds, **plain(settings)},
                   sum(row["seconds"] for row in curve),
                   [(int(d), row["win_rate"]) for d, row in zip(decisions, curve) if row["win_rate"] != ""])


def played(folder: Path, k: int, tasks: list, play, workers: int, progress: bool) -> dict:
    """Round ``k``'s ``tasks`` played by ``play`` on ``workers`` processes, each task's games written as it ends
    (``games_<k>/task_<i>.npz``; those already there, from a run stopped midway, are not played again); then the
    round's decisions, ``decisions_<k>.npz``, which the next rounds' fits read too."""
    if (folder / f"decisions_{k}.npz").exists():  # played before a stop during the round's fit
        return dict(np.load(folder / f"decisions_{k}.npz"))
    parts = folder / f"games_{k}"
    parts.mkdir(exist_ok=True)

    def part(task: Task) -> Path:
        return parts / f"task_{task.index}.npz"

    def keep(task: Task, games: dict) -> None:
        with written(part(task)) as partial_file:
            np.savez(partial_file, **games)
        if progress:
            print(f"round {k}: task {task.index + 1} of {len(tasks)} played", flush=True)

    in_workers(play, [task for task in tasks if not part(task).exists()], workers, keep)
    pieces = [dict(np.load(part(task))) for task in tasks]
    data = {key: np.concatenate([piece[key] for piece in pieces]) for key in pieces[0]}
    with written(folder / f"decisions_{k}.npz") as partial_file:
        np.savez_compressed(partial_file, **data)
    shutil.rmtree(parts)
    return data


def ended(run, folder: Path, curve: list, row: dict, started: float, identity: dict, game_seconds) -> list:
    """The curve with round ``row`` added, written with the checkpoint that says how far the run has come. Its
    ``seconds``: the round's wall time in the process that finished it; ``game_seconds``: its tasks' seconds in
    their workers, summed (the tasks played before a stop too, so that a run stopped and resumed counts its
    games' cost whole)."""
    curve = [*curve, {**row, "decisions": int(row["decisions"]), "seconds": round(time.time() - started, 1),
                      "game_seconds": round(float(np.sum(game_seconds)), 1)}]
    with written(folder / "curve.json") as partial_file:
        partial_file.write_text(json.dumps(curve))
    write_curve(run.folder, curve)
    save_checkpoint(run.folder, {**identity, "update": len(curve)})
    if run.progress:
        print(json.dumps(curve[-1]), flush=True)
    return curve


MACHINE = ("device", "torch_threads")  # settings of where the run computes, not of what it learns: a run may go on
# elsewhere


def plain(settings: Settings, machine: bool = True) -> dict:
    """The settings as JSON holds them (``machine=False``: without ``MACHINE``'s)."""
    return {key: list(value) if isinstance(value, tuple) else value for key, value in asdict(settings).items()
            if machine or key not in MACHINE}


def save_checkpoint(folder: Path, identity: dict) -> None:
    """The checkpoint: what the run is (its seed, settings and table) and the rounds it has done; the rounds'
    networks and games are in ``rounds/``. Plain data, read with ``weights_only``."""
    with written(folder / CHECKPOINT) as partial_file:
        torch.save(identity, partial_file)


def check_identity(path: Path, identity: dict) -> None:
    saved = read_checkpoint(path)
    differ = [key for key in ("seed", "settings", "env_kwargs") if saved.get(key) != identity[key]]
    if differ:
        raise ValueError(f"{path} is a checkpoint of another run: its {' and '.join(differ)} differ from this "
                         f"one's; resume with the options the run was started with")


def round_done(folder: Path, k: int) -> bool:
    return (folder / f"round_{k}" / "value.npz").exists() and (folder / f"round_{k}" / "policy.npz").exists()


def rounds_done(folder: Path) -> int:
    """How many whole rounds ``folder`` holds (a round's folder appears whole, renamed into place)."""
    k = 0
    while round_done(folder, k):
        k += 1
    return k


def save_round(folder: Path, k: int, policy_files: dict, value_net, scale, record: dict) -> None:
    """``round_<k>/`` with its policy (a file to copy, or a torch policy) and value: written aside, then renamed."""
    partial_folder = folder / f"round_{k}.partial"
    shutil.rmtree(partial_folder, ignore_errors=True)
    partial_folder.mkdir(parents=True)
    if "copy" in policy_files:
        shutil.copyfile(policy_files["copy"], partial_folder / "policy.npz")
    else:
        np.savez_compressed(partial_folder / "policy.npz",
                            **policy_arrays(policy_files["policy"], policy_files["record"]))
    np.savez_compressed(partial_folder / "value.npz", **value_arrays(value_net, scale, record))
    partial_folder.rename(folder / f"round_{k}")
