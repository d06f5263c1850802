"""Dead Center's native vector env: ``DeadCenterVectorEnv(num_envs=N, jokers=2, ...)``, or
``gym.make_vec("Tabletop/DeadCenter-v0", num_envs=N)``."""

from __future__ import annotations

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import DeadCenterEnv


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for Dead Center (see ``CompiledGames``)."""

    rules = rules


class DeadCenterVectorEnv(TabletopVectorEnv):
    """N games of Dead Center stepped together; the options are the single env's (see ``DeadCenterEnv``, ``jokers``
    included), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = DeadCenterEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
