"""Agents: anything with ``act(observation, action_mask) -> int``, plus optional ``reset(seed=...)`` and
``attach(env)`` (called with the env before an episode, by agents that plan on its ``determinize`` clones).

``make_agent(name, game, seed)`` builds the agents the CLI and the leaderboard know by name.
"""

from __future__ import annotations

from importlib import import_module

from .base import Agent, RandomAgent

AGENTS = {
    "random": "uniform over the legal actions",
    "heuristic": "the game's documented heuristic (Splendor's is the greedy player)",
    "greedy": "Splendor's greedy player (the same as its heuristic)",
    "search": "flat Monte Carlo over determinized deals, with the heuristic finishing each playout",
    "ppo:<path>": "a saved MaskablePPO model (tabletop-gym train writes one)",
}

# Each game's heuristic: (module in agents/, class).
HEURISTICS = {
    "dungeon_solitaire": ("dungeon_solitaire", "DungeonSolitaireHeuristic"),
    "royal_assassin": ("royal_assassin", "RoyalAssassinHeuristic"),
    "dead_center": ("dead_center", "DeadCenterHeuristic"),
    "one_card_dungeon": ("one_card_dungeon", "OneCardDungeonHeuristic"),
    "splendor": ("splendor", "GreedyAgent"),
}

# The search agent's budget on each game: playouts per decision, and the steps after which a playout is
# cut and valued by the score as it stands. Chosen so that a leaderboard row of 100 episodes takes minutes,
# not hours, on two cores (seconds per episode measured on this project's machines: about 1 for Dungeon
# Solitaire and Royal Assassin, 5 for Splendor, 10 for Dead Center and One Card Dungeon).
SEARCH_BUDGET = {
    "dungeon_solitaire": (256, 10_000),
    "royal_assassin": (16, 10_000),
    "dead_center": (8, 10_000),
    "one_card_dungeon": (4, 20),
    "splendor": (16, 10_000),
}


def short_name(game: str) -> str:
    """The short name (``dungeon_solitaire``) of a game given by short name or Gymnasium id."""
    from ..envs import GAMES, game_id

    env_id = game_id(game)
    return next(name for name, (known, _) in GAMES.items() if known == env_id)


def heuristic(game: str, seed: int | None = None):
    module, cls = HEURISTICS[short_name(game)]
    return getattr(import_module(f".{module}", __name__), cls)(seed=seed)


def make_agent(name: str, game: str | None = None, seed: int | None = None) -> Agent:
    """An agent by name (see ``AGENTS``) for a game (short name or Gymnasium id)."""
    key = name.strip()
    lowered = key.lower()
    if lowered == "random":
        return RandomAgent(seed)
    if lowered.startswith("ppo:"):
        from .ppo import PPOAgent

        return PPOAgent(key[4:], seed=seed)
    if lowered not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; the agents are: {', '.join(AGENTS)}")
    if game is None:
        raise ValueError(f"the {lowered} agent depends on the game: name one")
    game = short_name(game)
    if lowered == "greedy" and game != "splendor":
        raise ValueError(f"the greedy agent plays splendor only; {game} has the 'heuristic' agent")
    if lowered in ("heuristic", "greedy"):
        return heuristic(game, seed)
    from .search import SearchAgent

    simulations, rollout_steps = SEARCH_BUDGET[game]
    return SearchAgent(simulations=simulations, rollout=heuristic(game), seed=seed, max_rollout_steps=rollout_steps)


__all__ = ["Agent", "RandomAgent", "AGENTS", "HEURISTICS", "make_agent", "heuristic", "short_name"]
