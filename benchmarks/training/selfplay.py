"""A game of several players by self-play on its PettingZoo AEC env: the learner against a league of its own
snapshots, mixed with the random player and the game's heuristic (the league's "greedy" player).

    tabletop-gym train <game> --self-play --timesteps 3000000

``SelfPlayVectorEnv`` runs N games of the game's AEC env (``Game.aec_module()``, as any PettingZoo user plays it)
and shows only the learner's decisions, as a Gymnasium vector env with next-step autoreset and the batched action
masks in ``infos["action_mask"]``: so ``benchmarks/training/ppo.py`` trains on it unchanged. In each game the learner
takes one seat, rotating game by game, and every other seat is played by an opponent the ``League`` draws when the
game starts. The league follows a curriculum over the training (``CURRICULUM``): random players first, then the
heuristic, then, as snapshots of the learner accumulate (one every ``snapshot_every`` updates, the last
``keep_snapshots`` kept), mostly the learner's own past selves beside the heuristic.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

from ...agents import heuristic, saved_policy
from ...agents.base import RandomAgent
from ...agents.policy import snapshot
from ...envs import Game, game as game_of
from . import ppo
from .clone import cloned_policy
from .run import TrainResult, start_run

# (share of the training done, the league's weights from then on: random, greedy (the game's heuristic), the
# learner's snapshots)
CURRICULUM = ((0.0, {"random": 1.0, "greedy": 0.0, "self": 0.0}),
              (0.1, {"random": 0.2, "greedy": 0.8, "self": 0.0}),
              (0.3, {"random": 0.1, "greedy": 0.5, "self": 0.4}))


class League:
    """Who plays the learner's opponents in ``game``: the random player, the game's heuristic (``"greedy"``) and
    the learner's snapshots, drawn with the curriculum's weights at the current ``progress`` (0 to 1, set by the
    trainer). While there is no snapshot yet, the snapshots' weight goes to the heuristic."""

    def __init__(self, game: str | Game, seed: int = 0, curriculum=CURRICULUM, keep_snapshots: int = 10):
        self.rng = np.random.default_rng(seed)
        self.curriculum = curriculum
        self.keep_snapshots = keep_snapshots
        self.fixed = {"random": RandomAgent(seed), "greedy": heuristic(game, seed)}
        self.snapshots: list = []
        self.progress = 0.0
        self.drawn = {"random": 0, "greedy": 0, "self": 0}  # how often each kind was drawn

    def weights(self) -> dict:
        weights = dict(next(w for start, w in reversed(self.curriculum) if self.progress >= start))
        if not self.snapshots:
            weights["greedy"] += weights.pop("self")
            weights["self"] = 0.0
        return weights

    def add(self, agent) -> None:
        self.snapshots = (self.snapshots + [agent])[-self.keep_snapshots:]

    def draw(self):
        weights = self.weights()
        kinds = list(weights)
        p = np.array([weights[k] for k in kinds])
        kind = kinds[self.rng.choice(len(kinds), p=p / p.sum())]
        self.drawn[kind] += 1
        if kind == "self":
            return self.snapshots[self.rng.integers(len(self.snapshots))]
        return self.fixed[kind]


class SelfPlayVectorEnv(gym.vector.VectorEnv):
    """N games of ``game``'s AEC env, seen from the learner's seat in each (a Gymnasium vector env).

    A step plays each game's learner action, then the opponents' moves (``league``'s, drawn per game) until the
    learner is to move again or the game is over. Rewards are the AEC env's, the learner's: +1 for a win (a shared
    one too), -1 otherwise, 0 on truncation, at the end. Next-step autoreset: the step after a game ends starts the
    next in its row (reward 0), and that row's mask is all ones until then. ``infos`` hold ``action_mask`` on every
    step and ``won``, ``score`` (with their ``_won``, ``_score`` masks) where games ended. Game i's k-th episode
    seats the learner at ``(i + k) % num_players``.
    """

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, game: str | Game, num_envs: int, league: League, num_players: int = 2,
                 illegal_action: str = "terminate"):
        self.num_envs = num_envs
        self.league = league
        self.num_players = num_players
        aec = game_of(game).aec_module()
        self.games = [aec.env(num_players=num_players, illegal_action=illegal_action) for _ in range(num_envs)]
        space = self.games[0].observation_space("player_0")
        self.single_observation_space = space["observation"]
        self.single_action_space = self.games[0].action_space("player_0")
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.episodes = np.zeros(num_envs, dtype=np.int64)
        self.opponents = [None] * num_envs
        self._seeds = np.zeros(num_envs, dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=bool)
        self._obs = np.zeros((num_envs, *self.single_observation_space.shape), dtype=np.float32)
        self._mask = np.ones((num_envs, self.single_action_space.n), dtype=np.int8)

    def reset(self, *, seed: int | None = None, options=None):
        base = int(np.random.SeedSequence().entropy % 2**31) if seed is None else int(seed)
        self._seeds = base + np.arange(self.num_envs) * 1_000_003  # game i's episodes: its own run of seeds
        self.episodes[:] = 0
        for i in range(self.num_envs):
            self._start(i)
        return self._obs.copy(), {"action_mask": self._mask.copy()}

    def step(self, actions):
        actions = np.asarray(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        ended = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        won = np.zeros(self.num_envs, dtype=bool)
        score = np.zeros(self.num_envs, dtype=np.float32)
        for i, game in enumerate(self.games):
            if self._done[i]:
                self._start(i)
                continue
            learner = f"player_{self.seats[i]}"
            game.step(int(actions[i]))
            self._play_opponents(i)
            if game.terminations[learner] or game.truncations[learner]:
                info = game.infos[learner]
                rewards[i] = game.rewards[learner]
                ended[i], truncated[i] = True, game.truncations[learner] and not game.terminations[learner]
                won[i], score[i] = bool(info.get("won", False)), float(info.get("score", 0.0))
                self._done[i] = True
                self._mask[i] = 1
            else:
                self._observe(i)
        infos = {"action_mask": self._mask.copy(), "won": won, "_won": ended.copy(), "score": score,
                 "_score": ended.copy()}
        return self._obs.copy(), rewards, ended & ~truncated, truncated, infos

    def _start(self, i: int) -> None:
        game = self.games[i]
        game.reset(seed=int(self._seeds[i] + self.episodes[i]))
        self.seats[i] = (i + self.episodes[i]) % self.num_players
        self.episodes[i] += 1
        self.opponents[i] = {seat: self.league.draw() for seat in range(self.num_players) if seat != self.seats[i]}
        for opponent in self.opponents[i].values():
            if hasattr(opponent, "reset"):
                opponent.reset(seed=int(self.league.rng.integers(2**31)))
        self._done[i] = False
        self._play_opponents(i)
        self._observe(i)

    def _play_opponents(self, i: int) -> None:
        """The opponents' moves until the learner is to move or the game is over."""
        game = self.games[i]
        learner = f"player_{self.seats[i]}"
        while not (game.terminations[learner] or game.truncations[learner]) and game.agent_selection != learner:
            seen = game.observe(game.agent_selection)
            opponent = self.opponents[i][int(game.agent_selection.split("_")[1])]
            game.step(int(opponent.act(seen["observation"], seen["action_mask"])))

    def _observe(self, i: int) -> None:
        seen = self.games[i].observe(f"player_{self.seats[i]}")
        self._obs[i], self._mask[i] = seen["observation"], seen["action_mask"]

    def close(self, **kwargs):
        for game in self.games:
            game.close()


def learn_by_self_play(game: str | Game, timesteps: int, settings=None, seed: int = 0, out=None,
                       num_players: int = 2, snapshot_every: int = 10, keep_snapshots: int = 10, policy=None,
                       progress: bool = True, illegal_action: str = "terminate", record: dict | None = None) -> dict:
    """Masked PPO (``benchmarks/training/ppo.py``) on ``SelfPlayVectorEnv`` of ``game``: the league's curriculum moves
    on with the training, and every ``snapshot_every`` updates a frozen copy of the policy joins it. ``out``: the
    run's folder (default: runs/<game>_self_play). Returns ``learn``'s result with the league's draws."""
    from .ppo import Settings, learn

    game = game_of(game)
    settings = settings or Settings()
    league = League(game, seed, keep_snapshots=keep_snapshots)
    envs = SelfPlayVectorEnv(game, settings.num_envs, league, num_players, illegal_action)

    def on_update(update: int, updates: int, learner) -> None:
        league.progress = update / updates
        if update % snapshot_every == 0:
            league.add(snapshot(learner, f"snapshot_{update}"))

    record = {"game": game.id, "env_kwargs": {"num_players": num_players}, "self_play": True,
              "snapshot_every": snapshot_every, "keep_snapshots": keep_snapshots,
              "curriculum": [[start, weights] for start, weights in CURRICULUM], **(record or {})}
    run = learn(envs, timesteps, settings, seed=seed, out=out or f"runs/{game.name}_self_play", progress=progress,
                record=record, policy=policy, on_update=on_update)
    envs.close()
    return {**run, "league_draws": dict(league.drawn)}


# ---------------------------------------------------------------- the run: tabletop-gym train <game> --self-play

def train(name: str, timesteps: int = 100_000, seed: int = 0, n_envs: int | None = None, out=None,
          eval_episodes: int = 500, env_kwargs: dict | None = None, workers: int | None = None,
          progress: bool = True, settings: dict | None = None, start: str | None = None,
          start_episodes: int = 2000, overwrite: bool = False) -> TrainResult:
    """Masked PPO by self-play (``learn_by_self_play``) on a game of several players: ``env_kwargs`` holds its
    ``num_players`` alone (the league plays the other seats); ``start``: an agent's name whose games, every seat
    in turn, the policy first learns to play as (``clone.cloned_policy``). The final evaluation plays the saved
    policy against the env's default opponent, seats rotated, and against the other built-in opponents."""
    env_id = game_of(name).id
    if not game_of(name).multiplayer:
        raise ValueError(f"self-play needs a game of several players; {env_id} is a solitaire")
    env_kwargs = dict(env_kwargs or {})
    if set(env_kwargs) - {"num_players"}:
        raise ValueError(f"self_play takes the option num_players only (the league plays the other seats), got "
                         f"{', '.join(sorted(env_kwargs))}")
    learning = ppo.ppo_settings(name, n_envs, env_kwargs, settings or {})
    with start_run(name, out, seed, env_kwargs, eval_episodes, workers, progress, seat_drawn=False,
                   overwrite=overwrite) as run:
        started = time.perf_counter()
        policy, cloned = None, {}
        if start is not None:  # the teacher plays every seat in turn (against its usual opponent), as the learner will
            policy, cloned = cloned_policy(env_id, start, start_episodes, seed, learning,
                                           {**env_kwargs, "seat": "random"}, progress, workers)
        learned = learn_by_self_play(name, timesteps, learning, seed=seed, out=run.folder, policy=policy,
                                     progress=progress, record=cloned, **env_kwargs)
        hyperparameters = {**learned["settings"], **cloned, "self_play": True}
        return run.finish(saved_policy(learned["policy_path"]), "ppo", "masked PPO",
                          ppo.ran(learned, hyperparameters, time.perf_counter() - started), timesteps)
