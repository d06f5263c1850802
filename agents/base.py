"""The agent protocol and the random agent."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses an action index from what the player sees and the legal-action mask."""

    def act(self, observation, action_mask) -> int: ...


class RandomAgent:
    """Plays a uniformly random legal action."""

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
