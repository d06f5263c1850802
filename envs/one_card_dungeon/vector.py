"""One Card Dungeon's native vector env: N games stepped together on batched state (``batch.py``)."""

from __future__ import annotations

from ..core.vector import TabletopVectorEnv
from . import batch
from .env import OneCardDungeonEnv


class OneCardDungeonVectorEnv(TabletopVectorEnv):
    """N games of One Card Dungeon stepped together; the options are the single env's (see
    ``OneCardDungeonEnv``), and game i of ``reset(seed=s)`` is the single env's game of seed s + i."""

    single_env = OneCardDungeonEnv
    batch = batch
