"""Monte Carlo search over determinized deals: works on every game through the public API.

At each decision the agent asks the env for ``determinize(rng)``: a clone that agrees with everything
the player has seen, with the unseen cards (and future dice) resampled. From each such world it plays
every legal action and finishes the game with a rollout policy, then picks the action with the best
average outcome. It never reads the env's hidden state: only the clones' own, invented, futures.

Every action is tried on the same sampled worlds (common random numbers), so the comparison between
two actions is paired and far less noisy than independent playouts. When the rollout policy is a
good player, this is one step of policy improvement over it: the agent keeps the policy's own choice
unless another action does better on the sampled worlds by a clear margin.

The policy whose choice is kept (``prior``) need not be the one that finishes the playouts: a game
whose heuristic thinks a card ahead (and is ten times slower for it) can keep that heuristic's choices
while a faster player finishes the playouts, buying many more sampled worlds for the same time.
"""

from __future__ import annotations

import copy

import numpy as np

from .base import RandomAgent


def outcome_value(info: dict, reward: float, score_weight: float) -> float:
    """How good a finished playout was: the reward, plus a small share of the score to break ties."""
    return reward + score_weight * float(info.get("score", 0.0))


class SearchAgent:
    """Paired flat Monte Carlo: ``simulations`` playouts per decision, on shared sampled worlds.

    ``rollout`` is the policy that finishes each playout (random by default; a game's heuristic makes
    a much stronger search). ``prior`` is the policy whose choice stands unless another action beats it
    (the rollout policy when None). ``score_weight`` adds that share of the game's score to each playout's
    value, so that among actions that win equally often the one that scores more is preferred.
    ``margin`` (in standard errors of the paired difference) is how much better than the prior's
    choice another action must look to be preferred.
    ``max_rollout_steps`` cuts long playouts; a cut playout is valued by the score as it stands.
    Call ``attach(env)`` with the env the agent plays in before the episode (``evaluate`` does).
    """

    name = "search"

    def __init__(self, simulations: int = 64, rollout=None, score_weight: float = 0.001, margin: float = 1.0,
                 seed=None, max_rollout_steps: int = 10_000, prior=None):
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        self.simulations = simulations
        self.rollout = rollout if rollout is not None else RandomAgent()
        self.prior = prior if prior is not None else self.rollout
        self.score_weight = score_weight
        self.margin = margin
        self.max_rollout_steps = max_rollout_steps
        self.rng = np.random.default_rng(seed)
        self.env = None

    def attach(self, env) -> None:
        self.env = env.unwrapped

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
        worlds = max(2, self.simulations // legal.size)
        values = np.empty((worlds, legal.size))
        for w in range(worlds):
            world = self.env.determinize(self.rng)
            policy_state = copy.deepcopy(self.rollout)  # every action's playout starts from the same policy
            for k, action in enumerate(legal):
                values[w, k] = self._playout(world.clone(), int(action), copy.deepcopy(policy_state))
        return self._choose(legal, values, default)

    def _choose(self, legal: np.ndarray, values: np.ndarray, default: int) -> int:
        """The best action by mean value, if it beats the default by ``margin`` standard errors."""
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        if default not in legal:
            return int(legal[best])
        base = int(np.flatnonzero(legal == default)[0])
        difference = values[:, best] - values[:, base]
        spread = difference.std(ddof=1) / np.sqrt(len(difference))
        return int(legal[best]) if difference.mean() > self.margin * spread else default

    def _playout(self, world, action: int, policy) -> float:
        observation, reward, terminated, truncated, info = world.step(action)
        total = reward
        steps = 0
        while not (terminated or truncated) and steps < self.max_rollout_steps:
            choice = policy.act(observation, info["action_mask"])
            observation, reward, terminated, truncated, info = world.step(choice)
            total += reward
            steps += 1
        if not (terminated or truncated):
            info = world.outcome()  # cut short: the score as it stands
        return outcome_value(info, total, self.score_weight)
