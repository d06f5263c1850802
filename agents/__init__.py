"""Agents: anything with ``act(observation, action_mask) -> int`` (plus optional ``reset(seed=...)``).

``make_agent(name, game, seed)`` builds the agents the CLI and the leaderboard know by name.
"""

from __future__ import annotations

from .base import Agent, RandomAgent

AGENTS = {
    "random": "uniform over the legal actions",
}


def make_agent(name: str, game: str | None = None, seed: int | None = None) -> Agent:
    """An agent by name (see ``AGENTS``) for a game (short name or Gymnasium id)."""
    key = name.strip().lower()
    if key == "random":
        return RandomAgent(seed)
    raise ValueError(f"unknown agent {name!r}; the agents are: {', '.join(AGENTS)}")


__all__ = ["Agent", "RandomAgent", "AGENTS", "make_agent"]
