"""Dead Center's native vector env: ``DeadCenterVectorEnv(num_envs=N, jokers=2, ...)``, or
``gym.make_vec("Tabletop/DeadCenter-v0", num_envs=N)``."""

from __future__ import annotations

import numpy as np

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import DeadCenterEnv
from .rules import AT_DECK, AT_END, AT_KILLS, AT_PHASE, AT_PILE_TOP, AT_PLACE, AT_RESULT, AT_SLOT_CARD, AT_TOP, AT_TURN

_RESULT_NAMES = np.array(rules.RESULT_NAMES)
# Where a new game's shuffled number cards go: the first nine to piles 0-8, the rest to the draw pile.
_DEALT_PLACES = np.array([*range(rules.NUM_PILES)] + [rules.DECK] * rules.MAX_DECK)


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for Dead Center (see ``CompiledGames``); a ``Batch`` of its states
    also holds ``jokers`` (N,), which the observation shows."""

    rules = rules
    over_at = AT_PHASE
    end_game = staticmethod(rules.end_game)

    @staticmethod
    def deal(b, rows, rngs, options) -> None:
        """Shuffle each new game's cards with its own generator, as ``rules.new_game`` does: the number cards and
        the game's jokers (sorted, then shuffled), then the zombies. The rest of a new game, and a stacked deck,
        are already in place (``TabletopVectorEnv._deal`` puts one new game in every row first)."""
        if options.get("deck") is not None or not len(rows):
            return
        jokers = rules.JOKERS[:b.jokers[rows[0]]]  # every row of a batch has the same jokers option
        numbers = np.tile(np.sort(np.concatenate([rules.NUMBER_CARDS, jokers])).astype(np.int64), (len(rows), 1))
        zombies = np.tile(np.sort(rules.ZOMBIE_CARDS).astype(np.int64), (len(rows), 1))
        for k, i in enumerate(rows):
            rngs[i].shuffle(numbers[k])
            rngs[i].shuffle(zombies[k])
        dealt = numbers.shape[1]
        data = b.data
        data[rows, AT_PILE_TOP:AT_PILE_TOP + rules.NUM_PILES] = numbers[:, :rules.NUM_PILES]
        data[rows, AT_SLOT_CARD:AT_SLOT_CARD + rules.NUM_SLOTS] = zombies
        data[rows, AT_DECK:AT_DECK + dealt - rules.NUM_PILES] = numbers[:, rules.NUM_PILES:]
        data[rows[:, None], AT_PLACE + numbers] = _DEALT_PLACES[:dealt]

    @classmethod
    def observe(cls, b) -> np.ndarray:
        observations = np.empty((len(b.data), rules.OBSERVATION_SIZE), dtype=np.float32)
        rules.fill_observations(b.data, b.jokers, observations)
        return observations

    @staticmethod
    def outcome(b, rows) -> dict:
        """``rules.outcome`` of each game ``rows`` selects, as arrays."""
        data = b.data[rows]
        won = data[:, AT_RESULT] == rules.WON
        return {
            "won": won,
            "score": np.where(won, data[:, AT_END] - data[:, AT_TOP], 0),
            "kills": data[:, AT_KILLS],
            "result": _RESULT_NAMES[data[:, AT_RESULT]],
            "turn": data[:, AT_TURN],
        }


class DeadCenterVectorEnv(TabletopVectorEnv):
    """N games of Dead Center stepped together; the options are the single env's (see ``DeadCenterEnv``, ``jokers``
    included), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = DeadCenterEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
