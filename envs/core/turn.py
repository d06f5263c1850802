"""What every game's rules give Python callers on one game, written once over what each game writes: its turn as
compiled functions on one game's array, and its outcome over the rows of many games (``outcomes(data)``, the
arrays a vector env's infos hold)."""

from __future__ import annotations

import numpy as np

PLAYING = 0  # a game's result while it goes on: the first of every game's RESULT_NAMES, "playing"


class CompiledTurn:
    """A game's compiled turn as Python callers (the env, agents, tools) use it, on one game's ``State``, copied first:
    ``s`` is never changed. A rules module makes one of its compiled ``fill_legal_mask(a, mask)``,
    ``end_game(a, result)``, ``take_action(a, action)`` and ``take_turn(a, action, skip_forced, mask)`` and gives
    its methods as its own functions of the same names (a game that rolls dice during play writes its own
    ``apply`` and ``play``, which take the dice from ``rng``, and one cut short by a limit its own ``is_over``)."""

    def __init__(self, num_actions: int, fill_legal_mask, end_game, forfeited: int, take_action=None, take_turn=None):
        self.num_actions = num_actions
        self.fill_legal_mask, self.end_game, self.forfeited = fill_legal_mask, end_game, forfeited
        self.take_action, self.take_turn = take_action, take_turn

    def apply(self, s, action: int, rng: np.random.Generator | None = None):
        """The state after the player to move takes ``action`` (which must be legal). The game has no randomness
        after the deal: ``rng`` is accepted for a signature every game shares."""
        s = s.copy()
        self.take_action(s.data, action)
        return s

    def legal_mask(self, s) -> np.ndarray:
        """Which actions the rules allow now (all False once the game is over or cut short)."""
        mask = np.empty(self.num_actions, dtype=bool)
        self.fill_legal_mask(s.data, mask)
        return mask

    def play(self, s, action: int, rng: np.random.Generator | None, skip_forced: bool):
        """The env's step: ``action``, then (``skip_forced``) every forced move after it; the new state and its
        mask."""
        s = s.copy()
        mask = np.empty(self.num_actions, dtype=bool)
        self.take_turn(s.data, action, skip_forced, mask)
        return s, mask

    def is_over(self, s) -> bool:
        """Whether the game has ended: its result is no longer ``PLAYING``."""
        return s.result != PLAYING

    def forfeit(self, s):
        """The game lost by an illegal action."""
        s = s.copy()
        self.end_game(s.data, self.forfeited)
        return s


def one_game(outcomes: dict, result_names) -> dict:
    """The first game's values of ``outcomes`` (arrays over games) as Python's values (a row as a list), its result
    code by name in ``result_names``: a game's ``outcome``."""
    game = {key: values[0].tolist() for key, values in outcomes.items()}
    game["result"] = result_names[game["result"]]
    return game
