"""tabletop-gym environments. Importing this package registers every game with Gymnasium.

    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/DungeonSolitaire-v0")

``GAMES`` is the one list of the games. A game is its folder: a new game adds its line here, and the tools find
everything else through its ``Game`` (its env, its vector env, what it tells a person, its solver hooks, its
agents), never by its name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from importlib.util import find_spec

import gymnasium as gym

from .core.errors import BadFileError, EpisodeOverError, IllegalActionError


@dataclass(frozen=True)
class Game:
    """A game of the suite. ``name`` is its folder (``dungeon_solitaire``) and the name the code uses; ``id`` its
    Gymnasium id, met only at Gymnasium's door; ``env`` the env class its package exports; ``vector_env`` its native
    vector env's class in the package's ``vector`` module (None: Gymnasium's own vector envs serve). ``package``: the
    folder as a package (by default ``tabletop_gym.envs.<name>``); ``agents``: the module of its heuristic and agent
    settings (by default ``tabletop_gym.agents.<name>``); ``aec``: a game of several players, the versioned name
    (``<name>_v0``, as PettingZoo's classic games are named) under which this package offers its folder's ``aec``
    module (``env``, ``raw_env``, ``parallel_env``): ``from tabletop_gym.envs import <name>_v0``."""

    name: str
    id: str
    env: str
    vector_env: str | None = None
    package: str = field(default="")
    agents: str = field(default="")
    aec: str | None = None

    def __post_init__(self):
        if not self.package:
            object.__setattr__(self, "package", f"{__name__}.{self.name}")
        if not self.agents:
            object.__setattr__(self, "agents", f"tabletop_gym.agents.{self.name}")

    @property
    def entry_point(self) -> str:
        return f"{self.package}:{self.env}"

    @property
    def vector_entry_point(self) -> str | None:
        return None if self.vector_env is None else f"{self.package}.vector:{self.vector_env}"

    @property
    def label(self) -> str:
        """The id without its namespace (``DungeonSolitaire-v0``), as tables and file names show it."""
        return self.id.split("/")[-1]

    def module(self, part: str, required: bool = True):
        """The module ``part`` of the game's folder (``narrate``, ``solve``, ``features``...), imported at the
        first call; None where the folder has none and ``required`` is False."""
        qualified = f"{self.package}.{part}"
        if not required and find_spec(qualified) is None:
            return None
        return import_module(qualified)

    @property
    def players(self) -> tuple[int, ...]:
        """The numbers of players the game is played by: (1,) for a solitaire."""
        return getattr(self.env_class, "players", (1,))

    @property
    def multiplayer(self) -> bool:
        return max(self.players) > 1

    @property
    def built_in_opponents(self) -> tuple[str, ...]:
        """The opponents a game of several players plays itself, by name (``opponent="greedy"``)."""
        return getattr(self.env_class, "built_in_opponents", ())

    def aec_module(self):
        """A game of several players: its PettingZoo AEC module, the ``aec`` module of its folder."""
        return import_module(f"{self.package}.aec")

    @property
    def env_class(self) -> type:
        """The env class (its package imported)."""
        return getattr(import_module(self.package), self.env)


# The games, in the order they are listed everywhere.
GAMES = {game.name: game for game in (
    Game("dungeon_solitaire", "Tabletop/DungeonSolitaire-v0", "DungeonSolitaireEnv", "DungeonSolitaireVectorEnv"),
    Game("royal_assassin", "Tabletop/RoyalAssassin-v0", "RoyalAssassinEnv", "RoyalAssassinVectorEnv"),
    Game("dead_center", "Tabletop/DeadCenter-v0", "DeadCenterEnv", "DeadCenterVectorEnv"),
    Game("one_card_dungeon", "Tabletop/OneCardDungeon-v0", "OneCardDungeonEnv", "OneCardDungeonVectorEnv"),
    Game("splendor", "Tabletop/Splendor-v0", "SplendorEnv", "SplendorVectorEnv", aec="splendor_v0"),
)}


def game(name: str | Game) -> Game:
    """The game given by short name (``dungeon_solitaire``, ``dungeon-solitaire``), Gymnasium id (with or without
    its namespace), or its ``Game``: every door of the project takes any of these."""
    if isinstance(name, Game):
        return name
    key = name.strip().lower().replace("-", "_")
    if key in GAMES:
        return GAMES[key]
    for known in GAMES.values():
        if name in (known.id, known.label):
            return known
    raise ValueError(f"unknown game {name!r}; the games are: {', '.join(GAMES)}")


def game_id(name: str | Game) -> str:
    """The Gymnasium id of a game given by any name ``game`` takes."""
    return game(name).id


def game_module(name: str | Game, part: str, required: bool = True):
    """``Game.module`` of the game given by any name ``game`` takes."""
    return game(name).module(part, required)


def register(entry: Game) -> None:
    """Register a game's id (and its native vector env) with Gymnasium."""
    if entry.id not in gym.registry:
        gym.register(id=entry.id, entry_point=entry.entry_point, vector_entry_point=entry.vector_entry_point)


for _game in GAMES.values():
    register(_game)


def __getattr__(name: str):
    """A game's PettingZoo module by its versioned name (``Game.aec``), imported when first asked for (``from
    tabletop_gym.envs import <name>_v0``), so that importing the package loads no PettingZoo env."""
    for entry in GAMES.values():
        if entry.aec is not None and entry.aec == name:
            return entry.aec_module()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["GAMES", "Game", "game", "game_id", "game_module", "register", "IllegalActionError",
           "EpisodeOverError", "BadFileError"]
