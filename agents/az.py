"""Tree search with a learned policy and value, AlphaZero's way, over determinized deals.

At each decision the agent asks the env it is attached to for ``determinize(rng)`` clones: tables that agree with
everything its seat has seen, the hidden cards (the decks' order, the other players' blind reservations) resampled.
Never the live game's hidden state. On each such world it grows a tree by PUCT:

* **Select:** from the root, each node takes the action with the highest ``Q + c_puct * P * sqrt(N) / (1 + n)``:
  ``Q`` the mean value of the action's simulations for the player to move there (its network value before the
  first), ``P`` the policy's prior, ``N`` the node's simulations and ``n`` the action's. Every seat is a player:
  each node is valued for whoever moves there, so the opponents' moves are searched as the agent's own are.
* **Expand and judge:** a new position gets the policy's prior over its legal moves and every seat's chance of a
  win: the value judges the position from each seat's own observation of it, and the chances are scaled to sum to
  one; a finished game is judged by its winners. Forced moves are played through, not branched on.
* **Back up:** each seat's chance goes up the path, and every node adds the chance of its own mover. (Were the
  others' chances the remainder of the mover's, shared evenly, a move's gain for its player would be judged only
  as a loss for the next player, split among the rest: at four players, against three seats of its own prior's
  policy, it then won 16% of the deals, below a seat's fair 25%.)

The worlds' trees are grown side by side, one simulation each per round, and the positions they reach are judged
in one batch by the networks. The move played is the one most simulated over all the worlds together, and those
visit counts are what self-play training teaches the policy.

The rules are the game's own compiled functions on a game's state: ``apply``, ``legal_mask``, ``is_over``,
``is_truncated``, ``winners``, ``observe(s, seat)``, the seat to move in ``s.current`` (a game of several players).
"""

from __future__ import annotations

import math
import time
from importlib import import_module

import numpy as np


class Node:
    """A position of one world's tree: its state, the seat to move, its legal actions with the policy's prior, and
    per action the simulations and their summed value for that seat."""

    __slots__ = ("state", "seat", "actions", "prior", "visits", "value_sum", "children", "value", "chances")

    def __init__(self, state, seat: int, actions: np.ndarray):
        self.state = state
        self.seat = seat
        self.actions = actions
        self.prior = None  # set when the networks have judged the position
        self.visits = np.zeros(len(actions), dtype=np.float64)
        self.value_sum = np.zeros(len(actions), dtype=np.float64)
        self.children = [None] * len(actions)
        self.chances = None  # each seat's chance of a win, by the value network
        self.value = 0.5  # ``seat``'s chance: an unvisited action's Q

    def select(self, c_puct: float) -> int:
        """The index (into ``actions``) of the action PUCT picks."""
        total = self.visits.sum()
        q = np.where(self.visits > 0, self.value_sum / np.maximum(self.visits, 1), self.value)
        return int(np.argmax(q + c_puct * self.prior * math.sqrt(total + 1) / (1 + self.visits)))


class PlanningAgent:
    """PUCT over ``worlds`` determinized deals, ``simulations`` simulations a decision shared among them, or as
    many as ``seconds`` a decision allow (then the worlds' trees grow in turn until the time is up). One world, the
    default, grows one deep tree: at equal simulations it beat several shallower ones (``PLANNING`` in the game's
    agent module gives the measurements).

    ``network`` judges positions: ``judge(observations, movers, masks) -> (priors, chances)``, batched
    (``Networks`` below).
    ``rules``: the game's rules module. ``c_puct``: how far the prior leads the search. ``noise``: the share of the
    root's prior replaced by Dirichlet noise (``noise_alpha``), for self-play's exploration; 0 when playing to win.
    Call ``attach(env)`` with the env the agent plays in before the episode (``evaluate`` does).
    """

    name = "az"

    def __init__(self, rules, network, simulations: int = 200, worlds: int = 1, c_puct: float = 1.5,
                 noise: float = 0.0, noise_alpha: float = 0.3, seed=None, seconds: float | None = None):
        if simulations < 1 or worlds < 1:
            raise ValueError(f"simulations and worlds must be at least 1, got {simulations} and {worlds}")
        if seconds is not None and not 0 < seconds < math.inf:
            raise ValueError(f"seconds a move must be more than 0 and finite, got {seconds}")
        self.rules = rules
        self.network = network
        self.simulations = simulations
        self.seconds = seconds
        self.worlds = worlds
        self.c_puct = c_puct
        self.noise = noise
        self.noise_alpha = noise_alpha
        self.rng = np.random.default_rng(seed)
        self.env = None
        # The last decision's search, for training: its visits per action (all the worlds'), the policy it improves
        # on the prior (``improved_policy``) and its root's value for the seat to move.
        self.last_visits = self.last_policy = self.last_value = None

    def __getstate__(self):
        # A module does not pickle: the rules go by name (to the worker processes of an evaluation), and the env is
        # the one the worker attaches.
        return {**self.__dict__, "rules": self.rules.__name__, "env": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update({**state, "rules": import_module(state["rules"])})

    def attach(self, env) -> None:
        self.env = env.unwrapped

    def reset(self, seed=None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask) -> int:
        if self.env is None:
            raise RuntimeError("PlanningAgent needs attach(env) before it can act")
        legal = np.flatnonzero(action_mask)
        if legal.size == 1:
            self.last_visits = np.asarray(action_mask, dtype=np.float64)
            return int(legal[0])
        visits = self.search([self.env.determinize(self.rng).state for _ in range(self.worlds)])
        return int(np.argmax(visits))

    def search(self, states: list) -> np.ndarray:
        """The root's visits per action (summed over the worlds ``states``, each a determinized table at the same
        decision) after ``simulations`` simulations, or ``seconds``."""
        roots = [self._node(s) for s in states]
        self._judge(roots)
        prior, value = roots[0].prior.copy(), roots[0].value  # the worlds' roots look alike to the seat to move
        if self.noise:
            for root in roots:
                noise = self.rng.dirichlet([self.noise_alpha] * len(root.actions))
                root.prior = (1 - self.noise) * root.prior + self.noise * noise
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while self._going_on(done, deadline):
            paths = [self._descend(root) for root in (roots if deadline else roots[:self.simulations - done])]
            done += len(paths)
            leaves = [path[-1][0] for path in paths]
            fresh = [leaf for leaf in leaves if isinstance(leaf, Node) and leaf.prior is None]
            self._judge(fresh)
            for path, leaf in zip(paths, leaves):
                self._back_up(path, self._values(leaf))
        visits = np.zeros(self.rules.NUM_ACTIONS, dtype=np.float64)
        value_sum = np.zeros(self.rules.NUM_ACTIONS, dtype=np.float64)
        for root in roots:
            visits[root.actions] += root.visits
            value_sum[root.actions] += root.value_sum
        actions = roots[0].actions
        self.last_visits = visits
        self.last_policy = np.zeros(self.rules.NUM_ACTIONS, dtype=np.float64)
        self.last_policy[actions] = improved_policy(prior, visits[actions], value_sum[actions], value)
        self.last_value = float(value_sum.sum() / visits.sum())
        return visits

    def _going_on(self, done: int, deadline: float | None) -> bool:
        """Whether the search runs another round: simulations left, or with ``seconds`` time left (one round at
        least)."""
        if deadline is None:
            return done < self.simulations
        return done == 0 or time.perf_counter() < deadline

    def _node(self, state):
        """The node of ``state`` after its forced moves, or the seats' values where the game is over."""
        rules = self.rules
        mask = rules.legal_mask(state)
        while not rules.is_over(state) and not rules.is_truncated(state) and mask.sum() == 1:
            state = rules.apply(state, int(np.flatnonzero(mask)[0]))
            mask = rules.legal_mask(state)
        if rules.is_over(state) or rules.is_truncated(state):
            return self._final_values(state)
        return Node(state, int(state.current), np.flatnonzero(mask))

    def _final_values(self, state) -> np.ndarray:
        """Each seat's value of a finished game: 1 for a winner (a shared win too), 0 otherwise (a game cut short
        has no winner)."""
        values = np.zeros(int(state.num_players), dtype=np.float64)
        values[self.rules.winners(state)] = 1.0
        return values

    def _descend(self, root: Node) -> list:
        """The path of one simulation: (node, index of the action taken) pairs from the root, the last one the new
        or finished position reached (its index None)."""
        path, node = [], root
        while isinstance(node, Node) and node.prior is not None:
            k = node.select(self.c_puct)
            path.append((node, k))
            if node.children[k] is None:
                node.children[k] = self._node(self.rules.apply(node.state, int(node.actions[k])))
                path.append((node.children[k], None))
                return path
            node = node.children[k]
        path.append((node, None))
        return path

    @staticmethod
    def _values(leaf) -> np.ndarray:
        """Each seat's value of a simulation's last position: a finished game's, or the seats' chances of a win."""
        return leaf.chances if isinstance(leaf, Node) else leaf

    @staticmethod
    def _back_up(path: list, values: np.ndarray) -> None:
        for node, k in path:
            if k is not None:
                node.visits[k] += 1
                node.value_sum[k] += values[node.seat]

    def _judge(self, nodes: list) -> None:
        """The networks' prior and the seats' chances of each new node, in one batch."""
        if not nodes:
            return
        players = int(nodes[0].state.num_players)
        observations = np.stack([[self.rules.observe(node.state, k) for k in range(players)] for node in nodes])
        masks = np.zeros((len(nodes), self.rules.NUM_ACTIONS), dtype=bool)
        for i, node in enumerate(nodes):
            masks[i, node.actions] = True
        priors, chances = self.network.judge(observations, np.array([node.seat for node in nodes]), masks)
        for node, prior, seats in zip(nodes, priors, chances):
            node.prior = prior[node.actions] / prior[node.actions].sum()
            node.chances = np.asarray(seats, dtype=np.float64)
            node.value = float(node.chances[node.seat])


C_VISIT, C_SCALE = 50.0, 0.1  # the Gumbel MuZero paper's sigma: (C_VISIT + the most visits) * C_SCALE * q


def improved_policy(prior: np.ndarray, visits: np.ndarray, value_sum: np.ndarray, value: float) -> np.ndarray:
    """The search's policy over a root's actions, as Gumbel MuZero (Danihelka et al., 2022) trains its policy:
    ``softmax(log prior + sigma(completed q))``. An action searched has its mean value ``q``; one never searched
    the root's mixed value (the network's ``value``, with the searched actions' ``q`` weighed by their prior). At a
    few simulations a move the visits follow the prior, and would teach the policy what it knows; the values the
    search found move it on."""
    searched = visits > 0
    q = np.where(searched, value_sum / np.maximum(visits, 1), 0.0)
    total = visits.sum()
    if searched.any():
        mixed = (value + total * (prior[searched] * q[searched]).sum() / prior[searched].sum()) / (1 + total)
    else:
        mixed = value
    completed = np.where(searched, q, mixed)
    logits = np.log(np.maximum(prior, 1e-12)) + (C_VISIT + visits.max()) * C_SCALE * completed
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


class Networks:
    """A policy (a ``PolicyAgent``: its ``probabilities``) and a value (a ``ValueNetwork``, on the plain
    observation) as the search asks for them; ``tables``: a value of its own for a table of that many players (a
    win is worth another chance at a table of three than at a table of two), ``value`` for the others."""

    def __init__(self, policy, value, tables: dict | None = None):
        self.policy = policy
        self.value = value
        self.tables = dict(tables or {})

    def judge(self, observations: np.ndarray, movers: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions seen by every seat (``observations``: positions x seats x the observation): the prior of the
        seat to move (``movers``) over its legal moves (``masks``), and each seat's chance of a win, the value's
        judgement from that seat's observation, scaled so that a position's chances sum to one."""
        count, players = observations.shape[:2]
        value = self.tables.get(players, self.value)
        chances = np.asarray(value(observations.reshape(count * players, -1)), dtype=np.float64)
        chances = chances.reshape(count, players)
        chances /= np.maximum(chances.sum(axis=1, keepdims=True), 1e-12)
        return self.policy.probabilities(observations[np.arange(count), movers], masks), chances
