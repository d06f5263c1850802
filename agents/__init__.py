"""Agents: anything with ``act(observation, action_mask) -> int`` (plus optional ``reset(seed=...)``).

``make_agent(name, game, seed)`` builds the agents the CLI and the leaderboard know by name.
"""

from __future__ import annotations

from .base import Agent, RandomAgent

AGENTS = {
    "random": "uniform over the legal actions",
    "greedy": "a heuristic player (Splendor: buy the best card, else take gems for the best target)",
}

# The games that have a greedy agent so far (short names); the others get theirs later.
GREEDY_GAMES = ("splendor",)


def _short_name(game: str | None) -> str | None:
    if game is None:
        return None
    from ..envs import GAMES, game_id

    env_id = game_id(game)
    return next(name for name, (i, _) in GAMES.items() if i == env_id)


def make_agent(name: str, game: str | None = None, seed: int | None = None) -> Agent:
    """An agent by name (see ``AGENTS``) for a game (short name or Gymnasium id)."""
    key = name.strip().lower()
    if key == "random":
        return RandomAgent(seed)
    if key == "greedy":
        if game is None:
            raise ValueError(f"the greedy agent depends on the game; it plays: {', '.join(GREEDY_GAMES)}")
        if _short_name(game) == "splendor":
            from .splendor import GreedyAgent

            return GreedyAgent(seed)
        raise ValueError(f"there is no greedy agent for {game!r} yet; "
                         f"greedy plays: {', '.join(GREEDY_GAMES)}")
    raise ValueError(f"unknown agent {name!r}; the agents are: {', '.join(AGENTS)}")


__all__ = ["Agent", "RandomAgent", "AGENTS", "make_agent"]
