"""One Card Dungeon's native vector env: N games stepped together on batched state (``batch.py``)."""

from __future__ import annotations

from ..core.vector import TabletopVectorEnv
from . import batch, rules
from .env import OneCardDungeonEnv


class OneCardDungeonVectorEnv(TabletopVectorEnv):
    """N games of One Card Dungeon stepped together; the options are the single env's (see
    ``OneCardDungeonEnv``), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = OneCardDungeonEnv
    batch = batch
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
