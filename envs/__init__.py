"""tabletop-gym environments. Importing this package registers every game with Gymnasium.

    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/DungeonSolitaire-v0")
"""

from __future__ import annotations

import gymnasium as gym

from .core.errors import EpisodeOverError, IllegalActionError

# Short name -> Gymnasium id and entry point, in the order the games are listed everywhere.
GAMES = {
    "dungeon_solitaire": ("Tabletop/DungeonSolitaire-v0", "tabletop_gym.envs.dungeon_solitaire:DungeonSolitaireEnv"),
    "royal_assassin": ("Tabletop/RoyalAssassin-v0", "tabletop_gym.envs.royal_assassin:RoyalAssassinEnv"),
    "dead_center": ("Tabletop/DeadCenter-v0", "tabletop_gym.envs.dead_center:DeadCenterEnv"),
    "one_card_dungeon": ("Tabletop/OneCardDungeon-v0", "tabletop_gym.envs.one_card_dungeon:OneCardDungeonEnv"),
    "splendor": ("Tabletop/Splendor-v0", "tabletop_gym.envs.splendor:SplendorEnv"),
}

# The games with a native batched env: gym.make_vec(id, num_envs=N) returns it.
VECTOR_ENTRY_POINTS = {
    "dungeon_solitaire": "tabletop_gym.envs.dungeon_solitaire.vector:DungeonSolitaireVectorEnv",
    "royal_assassin": "tabletop_gym.envs.royal_assassin.vector:RoyalAssassinVectorEnv",
    "dead_center": "tabletop_gym.envs.dead_center.vector:DeadCenterVectorEnv",
    "one_card_dungeon": "tabletop_gym.envs.one_card_dungeon.vector:OneCardDungeonVectorEnv",
    "splendor": "tabletop_gym.envs.splendor.vector:SplendorVectorEnv",
}


def game_id(name: str) -> str:
    """The Gymnasium id of a game given by short name (``dungeon_solitaire``, ``dungeon-solitaire``) or id."""
    key = name.strip().lower().replace("-", "_")
    if key in GAMES:
        return GAMES[key][0]
    for env_id, _ in GAMES.values():
        if name in (env_id, env_id.split("/")[-1]):
            return env_id
    raise ValueError(f"unknown game {name!r}; the games are: {', '.join(GAMES)}")


def game_name(name: str) -> str:
    """The short name of a game (its folder: ``dungeon_solitaire``) given by any name ``game_id`` takes."""
    env_id = game_id(name)
    return next(short for short, (known, _) in GAMES.items() if known == env_id)


def game_module(name: str, part: str, required: bool = True):
    """The module ``part`` of a game's folder (``narrate``, ``solve``, ``features``...), imported at the first call;
    None where the game has no such module and ``required`` is False. Tools find what a game knows this way, by its
    folder, never by branching on its name."""
    from importlib import import_module
    from importlib.util import find_spec

    qualified = f"{__name__}.{game_name(name)}.{part}"
    if not required and find_spec(qualified) is None:
        return None
    return import_module(qualified)


for _name, (_env_id, _entry_point) in GAMES.items():
    if _env_id not in gym.registry:
        gym.register(id=_env_id, entry_point=_entry_point, vector_entry_point=VECTOR_ENTRY_POINTS.get(_name))

__all__ = ["GAMES", "VECTOR_ENTRY_POINTS", "game_id", "game_name", "game_module", "IllegalActionError", "EpisodeOverError"]
