"""Dungeon Solitaire's native vector env: ``gym.make_vec("Tabletop/DungeonSolitaire-v0", num_envs=N)``."""

from __future__ import annotations

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import DungeonSolitaireEnv


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for Dungeon Solitaire (see ``CompiledGames``)."""

    rules = rules


class DungeonSolitaireVectorEnv(TabletopVectorEnv):
    """N games of Dungeon Solitaire stepped together; the options are the single env's (see
    ``DungeonSolitaireEnv``), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = DungeonSolitaireEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
