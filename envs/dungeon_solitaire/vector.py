"""Dungeon Solitaire's native vector env: ``gym.make_vec("Tabletop/DungeonSolitaire-v0", num_envs=N)``."""

from __future__ import annotations

from ..core.vector import TabletopVectorEnv
from . import batch
from .env import DungeonSolitaireEnv


class DungeonSolitaireVectorEnv(TabletopVectorEnv):
    """N games of Dungeon Solitaire stepped together; the options are the single env's (see
    ``DungeonSolitaireEnv``), and game i of ``reset(seed=s)`` is the single env's game of seed s + i."""

    single_env = DungeonSolitaireEnv
    batch = batch
