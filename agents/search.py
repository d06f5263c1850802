"""Monte Carlo search over determinized deals: works on every game through the public API.

At each decision the agent asks the env for ``determinize(rng)``: a clone that agrees with everything
the player has seen, with the unseen cards (and future dice) resampled. From each such world it plays
every legal action and finishes the game with a rollout policy, then picks the action with the best
average outcome. It never reads the env's hidden state: only the clones' own, invented, futures.

Every action is tried on the same sampled worlds (common random numbers), so the comparison between
two actions is paired and far less noisy than independent playouts. When the rollout policy is a
good player, this is one step of policy improvement over it: the agent keeps the policy's own choice
unless another action does better on the sampled worlds by a clear margin.

When the rollout policy can choose for many games at once (``act_batch(observations, masks)``) and the game has
a native vector env, all the playouts of a decision are played together on one batch of games: the sampled
worlds are loaded into a vector env (``TabletopVectorEnv.load``) and played out side by side, the policy choosing
for every unfinished game in one call (so ``act_batch`` must choose from the observation alone, with no memory of
earlier calls). The sampled worlds are the same as one playout at a time would use, and a policy that does not draw
random numbers gives the same values too; only the time is not.

The policy whose choice is kept (``prior``) need not be the one that finishes the playouts: a game
whose heuristic thinks a card ahead (and is ten times slower for it) can keep that heuristic's choices
while a faster player finishes the playouts, buying many more sampled worlds for the same time.

A playout need not run to the end: cut after ``max_rollout_steps`` choices, it can be judged by ``leaf_value``
(a learned value's chance of a win from where it stopped). A game played to its end says only won or lost; a judge
says how likely, so the paired differences between actions are less noisy, at the price of the judge's errors.

A policy that rates every action (a learned policy's ``probabilities``) can also name the few worth searching
(``candidates``): where a decision has many legal actions, a budget spread over all of them gives each too few
worlds to tell them apart, and the differences found are mostly noise. That policy (``proposer``) is the prior by
default, but need not be: a learned policy can name the candidates while the heuristic's choice stands among them
and the heuristic finishes the playouts.
"""

from __future__ import annotations

import copy
from importlib import import_module

import numpy as np

from ..envs import GAMES
from .base import RandomAgent


def outcome_value(info: dict, reward: float, score_weight: float) -> float:
    """How good a finished playout was: the reward, plus a small share of the score to break ties."""
    return reward + score_weight * float(info.get("score", 0.0))


def copies(generator: np.random.Generator, n: int) -> list:
    """``n`` independent generators in the state ``generator`` is in (quicker than deep copies)."""
    state = generator.bit_generator.state
    twins = [np.random.Generator(type(generator.bit_generator)()) for _ in range(n)]
    for twin in twins:
        twin.bit_generator.state = state
    return twins


def vector_class(env):
    """The native vector env class of a single env's game, if it has one that can load single states (else None)."""
    for entry_point in (game.vector_entry_point for game in GAMES.values() if game.vector_env):
        module, name = entry_point.split(":")
        cls = getattr(import_module(module), name)
        if cls.single_env is type(env):
            try:
                cls.like(env, 1)
            except NotImplementedError:
                return None
            return cls
    return None


class SearchAgent:
    """Paired flat Monte Carlo: ``simulations`` playouts per decision, on shared sampled worlds.

    ``rollout`` is the policy that finishes each playout (random by default; a game's heuristic makes
    a much stronger search). ``prior`` is the policy whose choice stands unless another action beats it
    (the rollout policy when None). ``score_weight`` adds that share of the game's score to each playout's
    value, so that among actions that win equally often the one that scores more is preferred.
    ``margin`` (in standard errors of the paired difference) is how much better than the prior's
    choice another action must look to be preferred.
    ``max_rollout_steps`` cuts long playouts; a cut playout is valued by the score as it stands, plus
    ``leaf_value(observations, masks)`` of where it stopped when given: a judge of the rest of the game (one value
    per row, on the reward's scale), such as a learned value, so that short playouts can stand for whole ones.
    ``horizon(before, now)``, given the decision's table and the playout's table (both ``describe()``), may
    end a playout early: it returns the playout's value where it should stop, else None (the batched playouts
    have no horizon, so a search with one plays its worlds one at a time).
    ``min_worlds``: a decision whose budget gives each action fewer sampled worlds than this keeps the
    prior's choice (two worlds cannot tell actions apart); None searches every decision, on 2 worlds or more.
    ``candidates``: search only this many actions, the prior's choice and those ``proposer`` (the prior when None)
    finds likeliest, so that each gets more of the budget's worlds; the proposer must have
    ``probabilities(observations, masks)`` (a learned policy does). None searches every legal action.
    Call ``attach(env)`` with the env the agent plays in before the episode (``evaluate`` does).
    """

    name = "search"

    def __init__(self, simulations: int = 64, rollout=None, score_weight: float = 0.001, margin: float = 1.0,
                 seed=None, max_rollout_steps: int = 10_000, prior=None, horizon=None, min_worlds: int | None = None,
                 candidates: int | None = None, proposer=None, leaf_value=None):
        rollout = rollout if rollout is not None else RandomAgent()
        prior = prior if prior is not None else rollout
        proposer = proposer if proposer is not None else prior
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if candidates is not None and candidates < 2:
            raise ValueError(f"candidates must be at least 2 (one action is no search), got {candidates}")
        if candidates is not None and not callable(getattr(proposer, "probabilities", None)):
            raise ValueError("candidates needs a proposer (or else a prior) with probabilities(observations, masks), "
                             "such as a PolicyAgent")
        self.simulations = simulations
        self.rollout = rollout
        self.prior = prior
        self.score_weight = score_weight
        self.margin = margin
        self.max_rollout_steps = max_rollout_steps
        self.leaf_value = leaf_value
        self.horizon = horizon
        self.min_worlds = min_worlds
        self.candidates = candidates
        self.proposer = proposer
        self.rng = np.random.default_rng(seed)
        self.env = None
        self._vector_class = None

    def attach(self, env) -> None:
        self.env = env.unwrapped
        self._vectors = {}  # the batches of playouts, by size
        self._vector_class = None
        if self.horizon is None and callable(getattr(self.rollout, "act_batch", None)):
            self._vector_class = vector_class(self.env)

    def reset(self, seed=None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        for policy in {id(self.rollout): self.rollout, id(self.prior): self.prior}.values():
            if hasattr(policy, "reset"):
                policy.reset(seed=int(self.rng.integers(2**31)))

    def act(self, observation, action_mask) -> int:
        if self.env is None:
            raise RuntimeError("SearchAgent needs attach(env) before it can act")
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            return int(legal[0])
        default = int(self.prior.act(observation, action_mask))
        if self.candidates is not None and legal.size > self.candidates:
            legal = self._likeliest(observation, action_mask, legal, default)
        count = self.simulations // legal.size
        if self.min_worlds is not None and count < self.min_worlds:
            return default
        worlds = [self.env.determinize(self.rng) for _ in range(max(2, count))]
        if self._vector_class is not None:
            values = self._batched_values(legal, worlds)
        else:
            before = self.env.describe() if self.horizon is not None else None
            values = np.empty((len(worlds), legal.size))
            for w, world in enumerate(worlds):
                policy_state = copy.deepcopy(self.rollout)  # every action's playout starts from the same policy
                for k, action in enumerate(legal):
                    values[w, k] = self._playout(world.clone(), int(action), copy.deepcopy(policy_state), before)
        return self._choose(legal, values, default)

    def _likeliest(self, observation, action_mask, legal: np.ndarray, default: int) -> np.ndarray:
        """The proposer's ``candidates`` most likely legal actions, in action order, the prior's choice among them."""
        probabilities = self.proposer.probabilities(np.asarray(observation)[None], np.asarray(action_mask)[None])[0]
        ranked = [int(a) for a in legal[np.argsort(-probabilities[legal], kind="stable")] if a != default]
        chosen = [default] if default in legal else []
        return np.sort(np.array(chosen + ranked[: self.candidates - len(chosen)]))

    def _batched_values(self, legal: np.ndarray, worlds: list) -> np.ndarray:
        """Every (world, action) playout at once, on a vector env; (worlds, actions) values."""
        n = len(worlds) * legal.size
        if n not in self._vectors:
            self._vectors[n] = self._vector_class.like(self.env, n)
        vector = self._vectors[n]
        # Each action's playout in a world gets its own copy of that world's generator: the same future dice.
        vector.load([world.state for world in worlds for _ in legal],
                    [twin for world in worlds for twin in copies(world.np_random, legal.size)])
        rewards, outcome = vector.play_out(np.tile(legal, len(worlds)), self.rollout, self.max_rollout_steps)
        values = rewards + self.score_weight * outcome["score"].astype(np.float64)
        if self.leaf_value is not None:
            cut, observations, masks = vector.unfinished()
            if cut.size:
                values[cut] += self.leaf_value(observations, masks)
        return values.reshape(len(worlds), legal.size)

    def _choose(self, legal: np.ndarray, values: np.ndarray, default: int) -> int:
        """The best action by mean value, if it beats the default by ``margin`` standard errors."""
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        if default not in legal:
            return int(legal[best])
        if self.margin == np.inf:  # nothing overrules the default (and inf times a zero spread is no number)
            return default
        base = int(np.flatnonzero(legal == default)[0])
        difference = values[:, best] - values[:, base]
        spread = difference.std(ddof=1) / np.sqrt(len(difference))
        return int(legal[best]) if difference.mean() > self.margin * spread else default

    def _playout(self, world, action: int, policy, before: dict | None = None) -> float:
        observation, reward, terminated, truncated, info = world.step(action)
        total = reward
        steps = 0
        while steps < self.max_rollout_steps:
            if before is not None:
                value = self.horizon(before, world.describe())
                if value is not None:
                    return value
            if terminated or truncated:
                break
            choice = policy.act(observation, info["action_mask"])
            observation, reward, terminated, truncated, info = world.step(choice)
            total += reward
            steps += 1
        if not (terminated or truncated):  # cut short: the score as it stands, and the judge's view of the rest
            if self.leaf_value is not None:
                mask = np.asarray(info["action_mask"])
                total += float(self.leaf_value(np.asarray(observation)[None], mask[None])[0])
            info = world.outcome()
        return outcome_value(info, total, self.score_weight)
