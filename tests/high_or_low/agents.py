"""High or Low's agent module (the suite's games have theirs in ``agents/<game>.py``): its heuristic and the
settings of the agents built on it."""

from __future__ import annotations

import numpy as np

from . import rules

_I = rules.OBSERVATION_INDEX
_FACE_UP = slice(_I["face_up_1"], _I["face_up_13"] + 1)
_TURNED = slice(_I["turned_1"], _I["turned_13"] + 1)


class HighOrLowHeuristic:
    """Guess the side of the face-up card where more of the cards not yet turned lie (higher on a tie); turn the
    card when that is the move."""

    name = "heuristic"

    def __init__(self, seed=None):
        pass

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask) -> int:
        if action_mask[rules.TURN]:
            return rules.TURN
        o = np.asarray(observation)
        rank = int(np.argmax(o[_FACE_UP]))  # 0 for the ace
        unturned = 1 - o[_TURNED]
        higher, lower = unturned[rank + 1:].sum(), unturned[:rank].sum()
        return rules.HIGHER if higher >= lower else rules.LOWER


HEURISTIC = HighOrLowHeuristic
SEARCH = {"simulations": 16}  # the search agent's settings: a game is a handful of guesses
LEADERBOARD_SEARCH_EPISODES = 3  # the search agents' episodes of a leaderboard row, by default
