"""Dead Center's native vector env: ``DeadCenterVectorEnv(num_envs=N, jokers=2, ...)``, or
``gym.make_vec("Tabletop/DeadCenter-v0", num_envs=N)``."""

from __future__ import annotations

import numpy as np

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import DeadCenterEnv
from .rules import AT_PHASE


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for Dead Center (see ``CompiledGames``); a ``Batch`` of its states
    also holds ``jokers`` (N,), which the observation shows."""

    rules = rules
    over_at = AT_PHASE
    end_game = staticmethod(rules.end_game)

    @classmethod
    def observe(cls, b) -> np.ndarray:
        observations = np.empty((len(b.data), rules.OBSERVATION_SIZE), dtype=np.float32)
        rules.fill_observations(b.data, b.jokers, observations)
        return observations


class DeadCenterVectorEnv(TabletopVectorEnv):
    """N games of Dead Center stepped together; the options are the single env's (see ``DeadCenterEnv``, ``jokers``
    included), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = DeadCenterEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
