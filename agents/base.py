"""The agent protocol and the random agent."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses an action index from what the player sees and the legal-action mask."""

    def act(self, observation, action_mask) -> int:
        """The index of the action to play, one that ``action_mask`` marks legal."""


class RandomAgent:
    """Plays a uniformly random legal action."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action to choose from")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations, masks) -> np.ndarray:
        """One uniformly random legal action per row of ``masks`` (N, n)."""
        masks = np.asarray(masks, dtype=bool)
        counts = masks.sum(axis=1)
        if (counts == 0).any():
            raise ValueError(f"no legal action to choose from in row {int(np.argmin(counts))}")
        picks = (self.rng.random(len(masks)) * counts).astype(np.int64)  # the picks-th legal action of each row
        return (masks.cumsum(axis=1) > picks[:, None]).argmax(axis=1)
