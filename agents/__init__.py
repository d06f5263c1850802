"""Agents: anything with ``act(observation, action_mask) -> int``, plus optional ``reset(seed=...)`` and
``attach(env)`` (called with the env before an episode, by agents that plan on its ``determinize`` clones).

``make_agent(name, game, seed)`` builds the agents the CLI and the leaderboard know by name.
"""

from __future__ import annotations

import inspect
import json
from importlib import import_module
from pathlib import Path

from .. import envs
from ..envs import GAMES
from ..envs.core.errors import BadFileError
from .base import Agent, RandomAgent
from .policy import PolicyAgent, committed_model, one_line

# What each agent is; where a game's own agent module has a word on one (its ``AGENT_NOTES``), it follows in
# parentheses, and the other names a game gives its heuristic (its ``HEURISTIC_NAMES``) come after the heuristic.
DESCRIPTIONS = {
    "random": "uniform over the legal actions",
    "heuristic": "the game's documented heuristic",
    "search": "flat Monte Carlo over determinized deals, with the heuristic finishing each playout",
    "ppo": "the game's learned policy that ships in agents/models/ (numpy only; how it was trained is in its record)",
    "ppo-scratch": "the game's policy learned by PPO alone from random weights, with no cloning: pure reinforcement "
                   "learning, in agents/models/scratch/",
    "search-ppo": "the search agent on the game's learned policy: its prior and playout policy, or the namer of the "
                  "actions worth searching",
    "value": "the heuristic with a learned value where it had a rule of thumb, in agents/models/value/",
    "ppo:<path>": "a saved policy: policy.npz or model.pt (tabletop-gym train), or a MaskablePPO model.zip "
                  "(--algo sb3: a pickle, so a model file from elsewhere is code: load only your own)",
    "search-ppo:<path>": "the search agent on a saved policy (policy.npz or model.pt), in the roles search-ppo gives it",
    "search-value": "the search agent with the value agent's choice standing unless beaten",
    "value:<path>": "a saved value (value.npz of tabletop-gym train <game> --algo value)",
    "search-value:<path>": "the search agent on a saved value (value.npz), as search-value has it",
    "az": "tree search (PUCT) over determinized deals, every seat's moves searched, with the learned policy's prior "
          "and a value learned from self-play judging the positions reached, as AlphaZero plans",
    "az:<simulations>": "the az agent with that many simulations a move",
    "az:<folder>": "the az agent on the networks of a round of its training (policy.npz and value.npz)",
}


def agent_module(name: str):
    """The game's agent module (its ``Game``'s ``agents``, ``agents/<short name>.py`` by default): its heuristic
    (``HEURISTIC``) and the settings of the agents built on it (``SEARCH``, ``LEARNED_SEARCH``, ``VALUE_AGENT``...)."""
    return import_module(envs.game(name).agents)


def games_with(constant: str) -> dict:
    """Each game listed now whose agent module defines ``constant``, with its value there."""
    modules = {name: agent_module(name) for name in GAMES}
    return {name: getattr(module, constant) for name, module in modules.items() if hasattr(module, constant)}


def agent_descriptions() -> dict:
    """The agents by name: ``DESCRIPTIONS`` with the games' ``AGENT_NOTES`` on each, and the other names the games
    give their heuristics after the heuristic."""
    notes, heuristic_names = games_with("AGENT_NOTES"), games_with("HEURISTIC_NAMES")
    agents = {}
    for name, description in DESCRIPTIONS.items():
        said = [game_notes[name] for game_notes in notes.values() if name in game_notes]
        agents[name] = description + (f" ({'; '.join(said)})" if said else "")
        if name == "heuristic":
            for names in heuristic_names.values():
                agents.update(names)
    return agents


def named_heuristics() -> dict:
    """The other names the games give their heuristics (``greedy``...), each with the games that give it."""
    named = {}
    for game, names in games_with("HEURISTIC_NAMES").items():
        for name in names:
            named[name] = named.get(name, ()) + (game,)
    return named


def value_games() -> tuple:
    """The games whose agent module has a value agent (``VALUE_AGENT``)."""
    return tuple(games_with("VALUE_AGENT"))


# What other modules import by these names is read from the games listed at the time they look it up, so that a
# game listed after this module was imported counts too.
_FROM_THE_LISTED_GAMES = {"AGENTS": agent_descriptions, "NAMED_HEURISTICS": named_heuristics,
                          "VALUE_GAMES": value_games}


def __getattr__(name: str):
    if name in _FROM_THE_LISTED_GAMES:
        return _FROM_THE_LISTED_GAMES[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def heuristic(game: str, seed: int | None = None, **options):
    """The game's heuristic (its agent module's ``HEURISTIC``); ``options`` go to its constructor."""
    return agent_module(game).HEURISTIC(seed=seed, **options)


def make_agent(name: str, game: str | None = None, seed: int | None = None) -> Agent:
    """An agent by name (see ``AGENTS``) for a game (short name or Gymnasium id)."""
    key = name.strip()
    lowered = key.lower()
    if lowered == "random":
        return RandomAgent(seed)
    if lowered.startswith("ppo:"):
        return saved_policy(key[4:], seed, game)
    if lowered.startswith("search-ppo:"):
        if game is None:
            raise ValueError("the search agent depends on the game: name one")
        return search_agent(game, seed, saved_policy(key[len("search-ppo:"):], game=game))
    if lowered.startswith("value:") or lowered == "value":
        return value_agent(game, key[6:] or None)
    if lowered.startswith("search-value:") or lowered == "search-value":
        return search_on_value(game, seed, key[13:] or None)
    if lowered == "az" or lowered.startswith("az:"):
        return planning_agent(game, seed, key[3:] or None)
    if lowered.startswith("rllib:"):
        from .rllib import RLlibAgent  # loading the checkpoint needs the ray extra

        return RLlibAgent(key[6:], seed)
    agents = agent_descriptions()
    if lowered not in agents:
        raise ValueError(f"unknown agent {name!r}; the agents are: {', '.join(agents)}")
    if game is None:
        raise ValueError(f"the {lowered} agent depends on the game: name one")
    game = envs.game(game).name
    named = named_heuristics()
    if lowered in named and game not in named[lowered]:
        raise ValueError(f"the {lowered} agent plays {' and '.join(named[lowered])} only; {game} has the "
                         f"'heuristic' agent")
    if lowered == "heuristic" or lowered in named:
        return heuristic(game, seed)
    if lowered in ("ppo", "ppo-scratch"):
        return PolicyAgent(committed_model(game, from_scratch=lowered == "ppo-scratch"), seed=seed)
    learned = PolicyAgent(committed_model(game)) if lowered == "search-ppo" else None
    return search_agent(game, seed, learned)


def planning_agent(game: str | None, seed: int | None = None, spec: str | None = None):
    """The game's planning agent (``agents/az.py``): its agent module's ``PLANNING`` settings and the networks that
    ship (``agents/models/az/<game>.npz``: the policy's prior, ``<game>_value.npz``: the value, and
    ``<game>_value_<n>p.npz``: the value at a table of n players, where one ships). ``spec``: a number
    of simulations a move in place of the settings', seconds a move (``1.5s``), or a folder holding a
    ``policy.npz`` and a ``value.npz`` (a run or a round of ``tabletop-gym train <game> --algo az``) in place of the
    networks."""
    from .az import Networks, PlanningAgent
    from .policy import MODELS, ValueNetwork

    name = planning_game(game)
    settings = dict(games_with("PLANNING")[name])
    policy, value = MODELS / "az" / f"{name}.npz", MODELS / "az" / f"{name}_value.npz"
    tables = {int(path.stem.rsplit("_", 1)[1][:-1]): path for path in (MODELS / "az").glob(f"{name}_value_*p.npz")}
    if spec is not None and spec.isdigit():
        if int(spec) < 1:
            raise ValueError(f"az:<simulations> takes at least 1 simulation, got {spec}")
        settings["simulations"] = int(spec)
    elif spec is not None and spec.endswith("s") and _is_number(spec[:-1]):
        settings["seconds"] = float(spec[:-1])  # the agent refuses a budget of no time
    elif spec is not None:
        folder = Path(spec)
        policy, value, tables = folder / "policy.npz", folder / "value.npz", {}
        if not (folder.is_dir() and policy.is_file() and value.is_file()):
            raise ValueError(f"az:{spec}: neither a number of simulations, nor seconds (2s), nor a folder holding "
                             "policy.npz and value.npz (a run or a round of tabletop-gym train --algo az)")
    networks = Networks(PolicyAgent(policy, game=name), ValueNetwork(value),
                        {players: ValueNetwork(path) for players, path in tables.items()})
    return PlanningAgent(envs.game(name).module("rules"), networks, seed=seed, **settings)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def planning_game(game: str | None) -> str:
    """The short name of ``game``, if the planning agent plays it (its agent module has ``PLANNING``); else a
    ValueError naming those it plays."""
    games = games_with("PLANNING")
    name = None if game is None else envs.game(game).name
    if name not in games:
        raise ValueError(f"the az agent plays {' and '.join(games)} only"
                         f"{f', not {game}' if game else ': name the game'}")
    return name


def value_game(game: str | None) -> str:
    """The short name of ``game``, if a value agent plays it (``value_games``); else a ValueError naming those that
    do."""
    games = value_games()
    name = None if game is None else envs.game(game).name
    if name not in games:
        raise ValueError(f"the value agent plays {' and '.join(games)} only"
                         f"{f', not {game}' if game else ': name the game'}")
    return name


def value_agent(game: str | None, path: str | None = None, **options):
    """The game's value agent (its agent module's ``VALUE_AGENT``): the value that ships, or the one saved at
    ``path``; ``options`` go to its constructor."""
    return agent_module(value_game(game)).VALUE_AGENT(path and run_model(path), **options)


def search_on_value(game: str | None, seed: int | None = None, path: str | None = None):
    """The search agent on the game's value agent (the value that ships, or the one saved at ``path``), its choice
    standing unless beaten. Where the game's ``VALUE_SEARCH`` has ``rollout_options``, the value agent built with
    them finishes the playouts and judges where they stop (its ``chances``), and the rest of ``VALUE_SEARCH``
    changes the search's settings; otherwise the search is as ``SEARCH`` has it."""
    settings = dict(getattr(agent_module(value_game(game)), "VALUE_SEARCH", {}))
    if "rollout_options" not in settings:
        return search_agent(game, seed, value_agent(game, path), roles=("prior",))
    quick = value_agent(game, path, **settings.pop("rollout_options"))  # judges all the playouts' positions at once
    return search_agent(game, seed, value_agent(game, path), roles=("prior",), rollout=quick,
                        leaf_value=quick.chances, **settings)


# The roles a learned policy takes in the search agent on it (search-ppo) where the game's LEARNED_SEARCH does not say.
LEARNED_ROLES = ("prior", "rollout")


def search_agent(game: str, seed: int | None = None, learned=None, roles: tuple | None = None, rollout=None,
                 **changes):
    """The game's search agent (its agent module's ``SEARCH``: ``SearchAgent``'s settings, and the
    ``rollout_options`` of the heuristic that finishes the playouts, where the full heuristic's choice stands unless
    beaten); with ``learned`` (a policy agent that has ``act_batch`` and ``probabilities``), the search agent on
    that policy: the roles it takes and the settings it changes are the game's ``LEARNED_SEARCH``, or the ``roles``
    given (``prior``, ``rollout``, ``proposer``) with ``SEARCH``'s settings. ``rollout``: the player that finishes
    the playouts, where neither the heuristic nor ``learned`` should. ``changes``: ``SearchAgent`` settings in place
    of those. Each game's budget (``search_settings_table()`` lists them all) is chosen so that a leaderboard row of
    its search episodes takes minutes, not hours, on two cores."""
    from .search import SearchAgent

    module = agent_module(game)
    settings = dict(getattr(module, "SEARCH", {}))
    rollout_options = settings.pop("rollout_options", {})
    if learned is None:
        roles = ()
    elif roles is None:
        settings.update(getattr(module, "LEARNED_SEARCH", {}))
        roles = settings.pop("learned_roles", LEARNED_ROLES)
    if rollout is None:
        rollout = learned if "rollout" in roles else heuristic(game, **rollout_options)
    prior = None  # the rollout policy's choice stands
    if "prior" in roles:
        prior = learned
    elif rollout_options:  # a quicker heuristic plays out: the full one's choice stands
        prior = heuristic(game)
    proposer = learned if "proposer" in roles else None  # None: the prior names any candidates
    return SearchAgent(rollout=rollout, prior=prior, proposer=proposer, seed=seed, **{**settings, **changes})


def search_settings_table() -> str:
    """The search agents' settings of every game listed, as a Markdown table read from the games' agent modules
    (``SEARCH``, ``LEARNED_SEARCH``, ``VALUE_SEARCH``): the one account of them, for the documentation."""
    from .search import SearchAgent

    defaults = {name: parameter.default for name, parameter in inspect.signature(SearchAgent).parameters.items()
                if parameter.default not in (None, inspect.Parameter.empty)}
    lines = [
        "Each game's search agents, as its agent module (`agents/<game>.py`) sets them: `search` plays with `SEARCH`; "
        "`search-ppo` with `SEARCH` changed by `LEARNED_SEARCH` (`learned_roles`: the roles the policy takes, "
        f"{' and '.join(LEARNED_ROLES)} where it does not say); `search-value` with `SEARCH` changed by "
        "`VALUE_SEARCH` (its `rollout_options`: those of the value agent that finishes the playouts and judges where "
        f"they stop). A setting a game does not name is `SearchAgent`'s default: {settings_text(defaults)}.",
        "",
        "| game | search (`SEARCH`) | search-ppo (`LEARNED_SEARCH`) | search-value (`VALUE_SEARCH`) |",
        "| --- | --- | --- | --- |",
    ]
    for name, entry in GAMES.items():
        module = agent_module(name)
        search = settings_text(getattr(module, "SEARCH", {})) or "the defaults"
        learned_search = settings_text(getattr(module, "LEARNED_SEARCH", {})) or "as search"
        value_search = "no value agent"
        if hasattr(module, "VALUE_AGENT"):
            value_search = settings_text(getattr(module, "VALUE_SEARCH", {})) or "as search"
        lines.append(f"| {entry.label} | {search} | {learned_search} | {value_search} |")
    return "\n".join(lines) + "\n"


def settings_text(settings: dict) -> str:
    """``simulations=256``, ``horizon=level_end``...: each setting as the agent module writes it (a function by its
    name), in code marks."""
    return ", ".join(f"`{key}={getattr(value, '__name__', None) if callable(value) else repr(value)}`"
                     for key, value in settings.items())


def saved_policy(path: str, seed: int | None = None, game: str | None = None):
    """The agent that plays a saved policy: a ``.npz`` with numpy, a ``model.pt`` or ``.zip`` with torch, or a run
    folder's model (``run_model``). Given a ``game``, a policy whose record names another game is refused (a
    ``BadFileError`` naming both)."""
    path = run_model(path)
    if path.endswith(".npz"):
        return PolicyAgent(path, seed=seed, game=game)
    from .network import PPOAgent

    return PPOAgent(path, seed=seed, game=game)


def run_model(path: str) -> str:
    """``path``, or where it is a folder ``tabletop-gym train`` wrote, the model its ``result.json`` names, in that
    folder (the run may have moved since). A ``BadFileError`` if the folder holds no ``result.json``, one that
    names no model, or not the model it names."""
    folder = Path(path)
    if not folder.is_dir():
        return path
    result = folder / "result.json"
    if not result.is_file():
        raise BadFileError(folder, "a folder with no result.json: not a training run (name its model file)")
    try:
        model_path = json.loads(result.read_bytes())["model_path"]
    except (ValueError, KeyError, TypeError) as error:
        raise BadFileError(result, f"not a run's result.json: no model_path ({type(error).__name__}: "
                                   f"{one_line(error)})") from None
    if not isinstance(model_path, str) or not model_path:
        raise BadFileError(result, f"its model_path is {model_path!r}, not a file name")
    model = folder / Path(model_path).name
    if not model.exists():
        raise BadFileError(folder, f"its result.json names the model {model.name}, which the folder does not hold")
    return str(model)


__all__ = ["Agent", "RandomAgent", "PolicyAgent", "AGENTS", "NAMED_HEURISTICS", "VALUE_GAMES", "make_agent",
           "heuristic", "agent_module", "games_with", "agent_descriptions", "named_heuristics",
           "value_games", "committed_model", "saved_policy", "search_agent", "run_model",
           "value_agent", "value_game", "search_on_value", "search_settings_table", "planning_agent", "planning_game"]
