"""Splendor's scripted greedy player (``envs/splendor/players.py``) as an agent."""

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
