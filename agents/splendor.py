"""Splendor's scripted greedy player (``envs/splendor/players.py``) as an agent: the game's heuristic, and the settings
of the agents built on it."""

from __future__ import annotations

import numpy as np

from ..envs.splendor.players import greedy_action


class GreedyAgent:
    """Buys the best affordable card (points, then progress towards the nobles, then how much its bonus
    helps buy the cards in sight); otherwise takes the gems its best target card still needs, reserving
    the target when no take helps; returns the tokens the target needs least; takes any noble.

    It plays from what its seat sees: the observation of ``Tabletop/Splendor-v0`` or of ``splendor_v0``
    (the array, or the AEC dict with its ``action_mask``) and the legal-action mask. It has no randomness.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.seed = seed

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed

    def act(self, observation, action_mask=None) -> int:
        if isinstance(observation, dict):
            action_mask = observation["action_mask"] if action_mask is None else action_mask
            observation = observation["observation"]
        if action_mask is None or not np.any(action_mask):
            raise ValueError("no legal action to choose from")
        return greedy_action(np.asarray(observation), np.asarray(action_mask))


HEURISTIC = GreedyAgent
HEURISTIC_NAMES = {"greedy": "Splendor's greedy player (the same as its heuristic)"}
# The search agent (``SearchAgent``'s settings): about half a second an episode on one core.
SEARCH = {"simulations": 16}
# The search agent on the learned policy (search-ppo): some 25 legal actions a decision leave 16 playouts only 2
# sampled worlds each, too few to overrule a strong policy without adding noise; so the policy (the prior and the
# playout policy) names the few actions worth searching instead, each searched on 8 worlds.
LEARNED_SEARCH = {"simulations": 32, "candidates": 4}
# The planning agent (az, ``agents/az.py``): PUCT on one determinized deal a move. Against search-ppo, on the same
# 100 deals: 8 worlds 44%, 2 worlds 51%, 1 world 64% at 200 simulations, and 51%, 75%, 75% at 800: one deep tree
# beats several shallow ones (1 world against 8: 34 deals won by 1 alone, 9 by 8 alone at 800). c_puct stays at
# 1.5 (values are chances, 0 to 1): on one world at 800 simulations 0.4 won 66% and 0.75 79%, against 75% for
# 1.5; at 200 simulations 0.4, 0.75 and 3.0 won 70%, 68% and 59%, against 64%; none beyond chance (sign tests on
# the deals one of the two won alone, p > 0.1).
# Each new position is judged for every seat from that seat's own view (the values trained on the view of a seat
# drawn at random at each decision). Judging the mover's chance alone and sharing the remainder evenly among the
# others, a move's gain for its player showed only as the next player's loss, split among the rest: at 4 players
# against three ppo seats az won 16% of 100 deals, below a seat's fair 25%; judged by every seat it wins 35%
# (26.4-44.8%), 29 deals won alone against 10 (p = 0.003). At 3 players against two ppo seats
# 43.3% and 44.4% of 90 (14 against 15), at 2 against search-ppo 64% and 61% of 100 (20 against 17): the same.
PLANNING = {"simulations": 200, "worlds": 1}
LEADERBOARD_SEARCH_EPISODES = 10  # the search agents' episodes of a leaderboard row, by default
LEADERBOARD_OPPONENTS = ("random", "greedy")  # the leaderboard plays every agent against each, seats rotated
AGENT_NOTES = {"heuristic": "Splendor's is the greedy player",
               "ppo-scratch": "Splendor's by self-play against a league"}
