"""The planning agent's networks by expert iteration: the search plays itself, and learns from its own games.

    python -m tabletop_gym.benchmarks.training.az --rounds 10 --out runs/az-splendor

The planning agent (``agents/az.py``, ``make_agent("az", "splendor")``) searches with a policy's prior and a value's
judgement of the positions it reaches. This file trains both, top to bottom, writing each round to ``out`` as it
ends (a run stopped at any point goes on with ``--resume`` from its last whole round):

0. **Round 0.** The prior is the game's shipped policy (``agents/models/<game>.npz``). It plays every seat of
   ``value_games`` deals, each move drawn from its probabilities (so that the positions are varied, as the search
   will meet them), ``batch`` games at a time in lockstep so that it chooses for all of them in one call; each
   decision keeps the observation of the seat to move and whether that seat won in the end (a shared win counts; a
   game cut short has no winner). A value MLP (the observation -> 256 -> 64 -> 1, tanh between, a sigmoid after) is
   fitted to those outcomes.
1. **Each later round.** The planning agent on the last round's networks (``simulations`` a move over ``worlds``
   resampled deals, Dirichlet noise on the root's prior, moves drawn in proportion to the visits for the first
   ``explore_moves`` decisions of a game, then the most visited) plays ``games`` deals against itself, or, in a
   ``league_share`` of them, against the search on an earlier round's networks (a league of past selves, so that it
   does not forget how to beat them). Each of its decisions keeps the observation, the legal moves, the visits (the
   policy's target: what the search would play) and whether its seat won (the value's target).
2. **The fit.** The policy (started from the last round's) learns the visits by cross-entropy and the value the
   outcomes, on the last ``window`` rounds' decisions, one game in ``held_out`` kept out for the validation losses
   (whole games: a game's decisions share its outcome); each keeps the weights of its best epoch on those.
3. **The round's files**: ``round_<k>/policy.npz`` and ``round_<k>/value.npz`` (small: float16 weights, played with
   numpy), the round's record in each, and ``learning_curve.csv``, a row per round: the decisions, the losses and
   the search's wins in its games against the league.

The deals are 50,000,000 + 1,000,000 x seed onwards, away from the evaluations'. The networks that ship
(``agents/models/az/<game>.npz`` and ``<game>_value.npz``) are a round's ``policy.npz`` and ``value.npz``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ... import envs
from ...agents import PolicyAgent, committed_model
from ...agents.az import Networks, PlanningAgent
from ...agents.network import MaskedPolicy
from ...agents.policy import PolicyNetwork, ValueNetwork, layer_arrays, policy_arrays
from ...envs.core.env import with_features
from .run import write_curve, written

TRAINING_DEALS = 50_000_000  # + 1,000,000 x seed


@dataclass
class Settings:
    value_games: int = 16_384  # round 0: the prior's games against itself
    batch: int = 256  # round 0: games played in lockstep
    games: int = 200  # each later round: the search's games
    simulations: int = 64  # the search's, in self-play
    worlds: int = 4
    noise: float = 0.25
    explore_moves: int = 8
    league_share: float = 0.3
    window: int = 3  # rounds of decisions each fit reads
    num_players: int = 2
    hidden: tuple = (256, 64)  # the value's
    value_epochs: int = 8
    epochs: int = 4  # each later round's fit of the policy
    value_epochs_later: int = 1  # and of the value: a round's few hundred games are soon learnt by heart
    batch_size: int = 512
    learning_rate: float = 1e-3
    policy_learning_rate: float = 3e-4
    held_out: int = 20
    torch_threads: int = 2


# ---------------------------------------------------------------- 0. the prior's games

def self_play(rules, policy, first_deal: int, count: int, num_players: int, rng) -> tuple[np.ndarray, np.ndarray,
                                                                                        np.ndarray]:
    """``count`` deals from ``first_deal``, the policy drawing every seat's moves: each decision's observation (of
    the seat to move), whether that seat won, and its deal."""
    games = [rules.new_game(np.random.default_rng(first_deal + g), num_players) for g in range(count)]
    seen = [[] for _ in games]
    playing = list(range(count))
    while playing:
        observations = np.stack([rules.observe(games[g], int(games[g].current)) for g in playing])
        masks = np.stack([rules.legal_mask(games[g]) for g in playing])
        cumulative = policy.probabilities(observations, masks).cumsum(axis=1)
        picks = (cumulative <= rng.random(len(playing))[:, None] * cumulative[:, -1:]).sum(axis=1)
        for g, observation, action in zip(playing, observations, np.minimum(picks, rules.NUM_ACTIONS - 1)):
            seen[g].append((observation, int(games[g].current)))
            games[g] = rules.apply(games[g], int(action))
        playing = [g for g in playing if not (rules.is_over(games[g]) or rules.is_truncated(games[g]))]
    observations, won, deals = [], [], []
    for g, (game, decisions) in enumerate(zip(games, seen)):
        winners = set(rules.winners(game))
        observations += [observation for observation, _ in decisions]
        won += [seat in winners for _, seat in decisions]
        deals += [first_deal + g] * len(decisions)
    return np.array(observations, dtype=np.float32), np.array(won, dtype=np.float32), np.array(deals)


# ---------------------------------------------------------------- 1. the search's games

def search_game(rules, players: list, learner: int, deal: int, settings: Settings, rng) -> tuple[list, bool]:
    """One deal, the planning agent ``players[k]`` at seat k: the learner's decisions (observation, legal mask,
    visits as shares) and whether the learner's seat won."""
    state = rules.new_game(np.random.default_rng(deal), settings.num_players)
    decisions, moves = [], 0
    while not (rules.is_over(state) or rules.is_truncated(state)):
        mask = rules.legal_mask(state)
        seat = int(state.current)
        if mask.sum() == 1:
            state = rules.apply(state, int(np.flatnonzero(mask)[0]))
            continue
        visits = players[seat].search([rules.determinize(state, rng, seat) for _ in range(settings.worlds)])
        shares = visits / visits.sum()
        if seat == learner:
            decisions.append((rules.observe(state, seat), mask, shares.astype(np.float32)))
        action = rng.choice(len(shares), p=shares) if moves < settings.explore_moves else int(np.argmax(visits))
        state = rules.apply(state, int(action))
        moves += 1
    return decisions, learner in rules.winners(state)


def league_games(rules, networks: Networks, past: list, first_deal: int, settings: Settings, rng) -> dict:
    """``settings.games`` deals: the search on ``networks`` at a seat that rotates deal by deal, the search on
    ``networks`` or (``league_share``) on a past round's at the others. Every learner decision, with its target."""
    def searcher(judges):
        return PlanningAgent(rules, judges, simulations=settings.simulations, worlds=settings.worlds,
                             noise=settings.noise, seed=int(rng.integers(2**31)))

    observations, masks, visits, won, deals, wins = [], [], [], [], [], 0
    for g in range(settings.games):
        learner = g % settings.num_players
        opponents = past[int(rng.integers(len(past)))] if past and rng.random() < settings.league_share else networks
        players = [searcher(networks if k == learner else opponents) for k in range(settings.num_players)]
        decisions, learner_won = search_game(rules, players, learner, first_deal + g, settings, rng)
        wins += learner_won
        for observation, mask, shares in decisions:
            observations.append(observation)
            masks.append(mask)
            visits.append(shares)
            won.append(float(learner_won))
            deals.append(first_deal + g)
    return {"observations": np.array(observations, dtype=np.float32), "masks": np.array(masks, dtype=bool),
            "visits": np.array(visits, dtype=np.float32), "won": np.array(won, dtype=np.float32),
            "deal": np.array(deals, dtype=np.int64), "win_rate": wins / settings.games}


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
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    x, y = torch.as_tensor(observations * scale), torch.as_tensor(won)
    train, check = held_out_split(deals, settings)
    loss_of = nn.BCEWithLogitsLoss()
    losses, best = [], None
    for _ in range(epochs):
        order = train[torch.randperm(len(train))]
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
    return losses


def _kept_if_best(net, losses: list, best: dict | None) -> dict:
    """The weights of the epoch with the lowest validation loss so far: a value fitted to a few thousand games'
    outcomes soon learns them by heart, and the epochs after its best only judge worse."""
    if best is None or losses[-1] <= min(losses):
        return {key: value.clone() for key, value in net.state_dict().items()}
    return best


def fit_policy(policy: MaskedPolicy, features, observation_mode: str, data: dict, settings: Settings,
               seed: int) -> list:
    """``policy`` fitted to the visits by cross-entropy, in place; each epoch's validation loss."""
    torch.manual_seed(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.policy_learning_rate)
    train, check = held_out_split(data["deal"], settings)

    def loss_on(rows) -> torch.Tensor:
        rows = rows.numpy()
        x = torch.as_tensor(with_features(features, observation_mode, data["observations"][rows]))
        logits = policy.logits(x, torch.as_tensor(data["masks"][rows]))
        return -(torch.as_tensor(data["visits"][rows]) * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()

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
    return losses


def value_arrays(net, scale: np.ndarray, record: dict) -> dict:
    """The network as ``ValueNetwork`` reads it, the observation's ``scale`` folded into its first layer."""
    arrays = layer_arrays(net, weight_dtype=np.float32)
    arrays["weight_0"] = arrays["weight_0"] * scale[None, :]
    for key in [key for key in arrays if key.startswith("weight_")]:
        arrays[key] = arrays[key].astype(np.float16)
    arrays["record"] = np.array(json.dumps(record))
    return arrays


# ---------------------------------------------------------------- 3. the run

def round_folder(out: Path, k: int) -> Path:
    return out / f"round_{k}"


def rounds_done(out: Path) -> int:
    """How many whole rounds ``out`` holds (a round's folder appears whole, renamed into place)."""
    k = 0
    while (round_folder(out, k) / "value.npz").exists() and (round_folder(out, k) / "policy.npz").exists():
        k += 1
    return k


def save_round(out: Path, k: int, policy_files: dict, value_net, scale, record: dict) -> None:
    """``round_<k>/`` with its policy (a file to copy, or a torch policy) and value: written aside, then renamed."""
    partial = out / f"round_{k}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    if "copy" in policy_files:
        shutil.copyfile(policy_files["copy"], partial / "policy.npz")
    else:
        np.savez_compressed(partial / "policy.npz", **policy_arrays(policy_files["policy"], policy_files["record"]))
    np.savez_compressed(partial / "value.npz", **value_arrays(value_net, scale, record))
    partial.rename(round_folder(out, k))


def networks_of(out: Path, k: int) -> Networks:
    folder = round_folder(out, k)
    return Networks(PolicyAgent(folder / "policy.npz"), ValueNetwork(folder / "value.npz"))


def train(game: str = "splendor", out="runs/az", rounds: int = 1, settings: Settings | None = None, seed: int = 0,
          resume: bool = False, progress: bool = True) -> list:
    """Round 0 and then rounds 1 to ``rounds`` into ``out`` (on with ``resume`` from the rounds it holds); the
    learning curve's rows."""
    settings = settings or Settings()
    out = Path(out)
    done = rounds_done(out) if out.exists() else 0
    if done and not resume:
        raise ValueError(f"{out} holds {done} rounds of a run: --resume to go on from them, or name another folder")
    entry = envs.game(game)
    rules, features = entry.module("rules"), entry.module("features", required=False)
    prior_path = committed_model(entry.name)
    prior = PolicyAgent(prior_path)
    torch.set_num_threads(settings.torch_threads)
    rng = np.random.default_rng([seed, done])
    first = TRAINING_DEALS + 1_000_000 * seed
    scale = prior.network.obs_scale[:rules.OBSERVATION_SIZE]
    curve = json.loads((out / "curve.json").read_text()) if done else []
    about = {"game": entry.id, "settings": {**asdict(settings), "hidden": list(settings.hidden)}, "seed": seed}
    if done == 0:
        started = time.time()
        parts = [self_play(rules, prior, first + start, min(settings.batch, settings.value_games - start),
                           settings.num_players, rng) for start in range(0, settings.value_games, settings.batch)]
        observations, won, deals = (np.concatenate([p[i] for p in parts]) for i in range(3))
        torch.manual_seed(seed)
        net = value_mlp(observations.shape[1], settings.hidden)
        losses = fit_value(net, observations, won, deals, scale, settings, settings.value_epochs, seed)
        record = {**about, "round": 0, "prior": f"agents/models/{entry.name}.npz", "positions": int(len(won)),
                  "validation_losses": losses, "seconds": round(time.time() - started, 1)}
        save_round(out, 0, {"copy": prior_path}, net, scale, record)
        curve.append({"round": 0, "decisions": int(len(won)), "value_loss": min(losses), "policy_loss": "",
                      "win_rate": ""})
        done = 1
        _write_curve(out, curve)
    for k in range(done, rounds + 1):
        started = time.time()
        networks = networks_of(out, k - 1)
        past = [networks_of(out, j) for j in range(k - 1)]
        data = league_games(rules, networks, past, first + 100_000 * k, settings, rng)
        saved = dict(data)
        win_rate = saved.pop("win_rate")
        with written(out / f"decisions_{k}.npz") as partial:  # the round's games, read by the next rounds' fits
            np.savez_compressed(partial, **saved)
        window = [np.load(out / f"decisions_{j}.npz") for j in range(max(1, k - settings.window + 1), k + 1)]
        fit = {key: np.concatenate([w[key] for w in window]) for key in saved}
        policy = policy_from_file(round_folder(out, k - 1) / "policy.npz")
        policy_losses = fit_policy(policy, features, prior.record["env_kwargs"].get("observation", "plain"), fit,
                                   settings, seed + k)
        value_net = value_from_file(round_folder(out, k - 1) / "value.npz", scale)
        value_losses = fit_value(value_net, fit["observations"], fit["won"], fit["deal"], scale, settings,
                                 settings.value_epochs_later, seed + k)
        record = {**about, "round": k, "decisions": int(len(data["won"])), "fitted_on": int(len(fit["won"])),
                  "policy_losses": policy_losses, "validation_losses": value_losses, "win_rate": win_rate,
                  "positions": int(len(fit["won"])), "seconds": round(time.time() - started, 1)}
        save_round(out, k, {"policy": policy, "record": {**prior.record, "az": record}}, value_net, scale, record)
        curve.append({"round": k, "decisions": record["decisions"], "value_loss": min(value_losses),
                      "policy_loss": min(policy_losses), "win_rate": round(win_rate, 4)})
        _write_curve(out, curve)
        if progress:
            print(json.dumps({"round": k, "win_rate": win_rate, "policy_loss": min(policy_losses),
                              "value_loss": min(value_losses), "seconds": record["seconds"]}), flush=True)
    return curve


def _write_curve(out: Path, curve: list) -> None:
    with written(out / "curve.json") as partial:
        partial.write_text(json.dumps(curve))
    write_curve(out, curve)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description="the planning agent's networks by expert iteration")
    parser.add_argument("--game", default="splendor")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the search's self-play after round 0")
    parser.add_argument("--games", type=int, default=Settings.games, help="the search's games a round")
    parser.add_argument("--value-games", type=int, default=Settings.value_games, help="round 0's games")
    parser.add_argument("--simulations", type=int, default=Settings.simulations)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    settings = Settings(games=args.games, value_games=args.value_games, simulations=args.simulations)
    return train(args.game, args.out, args.rounds, settings, args.seed, args.resume)


if __name__ == "__main__":
    main()
