"""Agents: anything with ``act(observation, action_mask) -> int``, plus optional ``reset(seed=...)`` and
``attach(env)`` (called with the env before an episode, by agents that plan on its ``determinize`` clones).

``make_agent(name, game, seed)`` builds the agents the CLI and the leaderboard know by name.
"""

from __future__ import annotations

from importlib import import_module

from .base import Agent, RandomAgent
from .policy import PolicyAgent, committed_model

AGENTS = {
    "random": "uniform over the legal actions",
    "heuristic": "the game's documented heuristic (Splendor's is the greedy player)",
    "greedy": "Splendor's greedy player (the same as its heuristic)",
    "search": "flat Monte Carlo over determinized deals, with the heuristic finishing each playout",
    "ppo": "the game's learned policy that ships in agents/models/ (numpy only; how it was trained is in its record)",
    "ppo-scratch": "the game's policy learned by PPO alone from random weights, with no cloning: pure reinforcement "
                   "learning (agents/models/scratch/; Splendor's by self-play against a league)",
    "search-ppo": "the search agent on the game's learned policy: its prior and playout policy, or (Dead Center, "
                  "One Card Dungeon) the namer of the actions worth searching",
    "value": "the heuristic with a learned value where it had a rule of thumb (agents/models/value/): Royal "
             "Assassin's value of the tables, judged one card ahead; One Card Dungeon's value of the levels' starts, "
             "choosing at each level-up between a heal and the next upgrade",
    "ppo:<path>": "a saved policy: policy.npz or model.pt (tabletop-gym train), or a MaskablePPO model.zip (--algo sb3)",
    "search-ppo:<path>": "the search agent on a saved policy (policy.npz or model.pt), in the roles search-ppo gives it",
    "search-value": "the search agent with the value agent's choice standing unless beaten; Royal Assassin's playouts "
                    "are the value's without its look-ahead, two choices on, judged by the value where they stop",
    "value:<path>": "a saved value (value.npz of tabletop-gym train <game> --algo value)",
    "search-value:<path>": "the search agent on a saved value (value.npz), as search-value has it",
}

# Each game's heuristic: (module in agents/, class).
HEURISTICS = {
    "dungeon_solitaire": ("dungeon_solitaire", "DungeonSolitaireHeuristic"),
    "royal_assassin": ("royal_assassin", "RoyalAssassinHeuristic"),
    "dead_center": ("dead_center", "DeadCenterHeuristic"),
    "one_card_dungeon": ("one_card_dungeon", "OneCardDungeonHeuristic"),
    "splendor": ("splendor", "GreedyAgent"),
}

# The search agent on each game: SearchAgent's settings, and the options of the heuristic that finishes its
# playouts (the full heuristic's choice is the one that stands unless beaten). Budgets are chosen so that a
# leaderboard row of 50 episodes takes minutes, not hours, on two cores (seconds per episode on this project's
# machines, one core each: about 1 for Dungeon Solitaire, 3 for Dead Center, a third for Royal Assassin, half for
# Splendor, 30 for One Card Dungeon). Royal Assassin's and Dead Center's heuristics think one card ahead; without that
# they are much faster and only somewhat weaker, so their playouts go without. Both quick heuristics choose for many
# games at once, so all of a decision's playouts run together on the game's vector env (Dead Center: 256 a decision
# in ~70 ms).
# One Card Dungeon's playouts stop at the end of the level (``level_end``), and only decisions with at most six
# legal actions (the dice, the end of a plan) get the eight or more worlds an action needs to be searched; the
# heuristic's plan plays the rest.
SEARCH = {
    "dungeon_solitaire": {"simulations": 256},
    "royal_assassin": {"simulations": 256, "margin": 1.5, "rollout_options": {"lookahead": False}},
    "dead_center": {"simulations": 256, "rollout_options": {"lookahead": False}},
    "one_card_dungeon": {"simulations": 48, "min_worlds": 8, "horizon": "level_end"},
    "splendor": {"simulations": 16},
}

# What the search agent on a learned policy (search-ppo) changes of those settings, and the roles the policy takes
# (``learned_roles``: by default the prior and the playout policy, in place of the heuristic). Splendor has some 25
# legal actions a decision, so 16 playouts give each only 2 sampled worlds, too few to overrule a strong policy
# without adding noise; its policy names the few actions worth searching instead, each searched on 8 worlds.
# Dead Center's and One Card Dungeon's policies play far worse than their heuristics (a fifth of Dead Center's deals
# against three fifths; 4 levels against 9), so there the policy only names the actions worth searching, the
# heuristic's choice among them, and the heuristic finishes the playouts: on Dead Center the policy's two likeliest
# others, each searched on a third of the 256 playouts; on One Card Dungeon its five likeliest others where a
# decision has more than six legal actions (too many to search otherwise), each searched on 8 of the 48.
LEARNED_SEARCH = {
    "splendor": {"simulations": 32, "candidates": 4},
    "dead_center": {"candidates": 3, "learned_roles": ("proposer",)},
    "one_card_dungeon": {"candidates": 6, "learned_roles": ("proposer",)},
}

# The search on a value agent (search-value): the value agent's choice stands unless beaten. Royal Assassin: the value
# agent without look-ahead plays each playout on for two choices, and the value then judges where it stopped (its
# chance of a win from there, ``leaf_value``): less noisy than one game played to its end. One Card Dungeon: the search
# as ``SEARCH`` has it, the heuristic finishing the playouts; a level-up ends its playouts at once, so there the value
# agent's choice stands.
VALUE_SEARCH = {"max_rollout_steps": 2}
VALUE_GAMES = ("royal_assassin", "one_card_dungeon")


def short_name(game: str) -> str:
    """The short name (``dungeon_solitaire``) of a game given by short name or Gymnasium id."""
    from ..envs import game_name

    return game_name(game)


def heuristic(game: str, seed: int | None = None, **options):
    """The game's heuristic; ``options`` go to its constructor."""
    module, cls = HEURISTICS[short_name(game)]
    return getattr(import_module(f".{module}", __name__), cls)(seed=seed, **options)


def make_agent(name: str, game: str | None = None, seed: int | None = None) -> Agent:
    """An agent by name (see ``AGENTS``) for a game (short name or Gymnasium id)."""
    key = name.strip()
    lowered = key.lower()
    if lowered == "random":
        return RandomAgent(seed)
    if lowered.startswith("ppo:"):
        return saved_policy(key[4:], seed)
    if lowered.startswith("search-ppo:"):
        if game is None:
            raise ValueError("the search agent depends on the game: name one")
        return search_agent(game, seed, saved_policy(key[len("search-ppo:"):]))
    if lowered.startswith("value:") or lowered == "value":
        return value_agent(game, key[6:] or None)
    if lowered.startswith("search-value:") or lowered == "search-value":
        return search_on_value(game, seed, key[13:] or None)
    if lowered.startswith("rllib:"):
        from .rllib import RLlibAgent  # loading the checkpoint needs the ray extra

        return RLlibAgent(key[6:], seed)
    if lowered not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; the agents are: {', '.join(AGENTS)}")
    if game is None:
        raise ValueError(f"the {lowered} agent depends on the game: name one")
    game = short_name(game)
    if lowered == "greedy" and game != "splendor":
        raise ValueError(f"the greedy agent plays splendor only; {game} has the 'heuristic' agent")
    if lowered in ("heuristic", "greedy"):
        return heuristic(game, seed)
    if lowered in ("ppo", "ppo-scratch"):
        return PolicyAgent(committed_model(game, from_scratch=lowered == "ppo-scratch"), seed=seed)
    learned = PolicyAgent(committed_model(game)) if lowered == "search-ppo" else None
    return search_agent(game, seed, learned)


def value_game(game: str | None) -> str:
    """The short name of ``game``, if a value agent plays it (``VALUE_GAMES``); else a ValueError naming those that
    do."""
    if game is None or short_name(game) not in VALUE_GAMES:
        raise ValueError(f"the value agent plays {' and '.join(VALUE_GAMES)} only"
                         f"{f', not {game}' if game else ': name the game'}")
    return short_name(game)


def value_agent(game: str | None, path: str | None = None, lookahead: bool = True):
    """The game's value agent: the value that ships, or the one saved at ``path``; Royal Assassin's with its
    look-ahead or without."""
    if value_game(game) == "one_card_dungeon":
        from .one_card_dungeon import OneCardDungeonValueAgent

        return OneCardDungeonValueAgent(path)
    from .royal_assassin import RoyalAssassinValueAgent

    return RoyalAssassinValueAgent(path, lookahead=lookahead)


def search_on_value(game: str | None, seed: int | None = None, path: str | None = None):
    """The search agent on the game's value agent (the value that ships, or the one saved at ``path``), as
    ``VALUE_SEARCH`` has it."""
    if value_game(game) == "one_card_dungeon":
        return search_agent(game, seed, value_agent(game, path), roles=("prior",))
    quick = value_agent(game, path, lookahead=False)  # judges all the playouts' tables in one pass
    return search_agent(game, seed, value_agent(game, path), roles=("prior",), rollout=quick,
                        leaf_value=quick.chances, **VALUE_SEARCH)


def search_agent(game: str, seed: int | None = None, learned=None, roles: tuple | None = None, rollout=None,
                 **changes):
    """The game's search agent (``SEARCH``); with ``learned`` (a policy agent that has ``act_batch`` and
    ``probabilities``), the search agent on that policy: the roles it takes and the settings it changes are the
    game's ``LEARNED_SEARCH``, or the ``roles`` given (``prior``, ``rollout``, ``proposer``) with ``SEARCH``'s
    settings. ``rollout``: the player that finishes the playouts, where neither the heuristic nor ``learned``
    should. ``changes``: ``SearchAgent`` settings in place of those."""
    from .search import SearchAgent

    settings = dict(SEARCH[short_name(game)])
    rollout_options = settings.pop("rollout_options", {})
    settings = _named_horizon(short_name(game), settings)
    if learned is None:
        roles = ()
    elif roles is None:
        settings.update(LEARNED_SEARCH.get(short_name(game), {}))
        roles = settings.pop("learned_roles", ("prior", "rollout"))
    if rollout is None:
        rollout = learned if "rollout" in roles else heuristic(game, **rollout_options)
    prior = None  # the rollout policy's choice stands
    if "prior" in roles:
        prior = learned
    elif rollout_options:  # a quicker heuristic plays out: the full one's choice stands
        prior = heuristic(game)
    proposer = learned if "proposer" in roles else None  # None: the prior names any candidates
    return SearchAgent(rollout=rollout, prior=prior, proposer=proposer, seed=seed, **{**settings, **changes})


def _named_horizon(game: str, settings: dict) -> dict:
    """``settings`` with a horizon given by name replaced by the function of that name in the game's module."""
    if "horizon" in settings:
        settings = {**settings, "horizon": getattr(import_module(f".{HEURISTICS[game][0]}", __name__),
                                                   settings["horizon"])}
    return settings


def saved_policy(path: str, seed: int | None = None):
    """The agent that plays a saved policy: a ``.npz`` with numpy, a ``model.pt`` or ``.zip`` with torch."""
    if path.endswith(".npz"):
        return PolicyAgent(path, seed=seed)
    from .network import PPOAgent

    return PPOAgent(path, seed=seed)


__all__ = ["Agent", "RandomAgent", "PolicyAgent", "AGENTS", "HEURISTICS", "SEARCH", "LEARNED_SEARCH", "VALUE_SEARCH",
           "VALUE_GAMES", "make_agent", "heuristic", "short_name", "committed_model", "saved_policy", "search_agent",
           "value_agent", "value_game", "search_on_value"]
