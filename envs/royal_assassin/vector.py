"""Royal Assassin's native vector env: ``gym.make_vec("Tabletop/RoyalAssassin-v0", num_envs=N)``."""

from __future__ import annotations

import numpy as np

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import RoyalAssassinEnv
from .rules import AT_DECISION, AT_DECK, AT_PLACE, AT_RESULT, AT_TOP

_RESULT_NAMES = np.array(rules.RESULT_NAMES)
_FACE_PLACES = AT_PLACE + rules.FACE_CARDS.astype(np.intp)  # where the face cards' places are in a row
_CARDS = np.arange(rules.NUM_CARDS)


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for Royal Assassin (see ``CompiledGames``)."""

    rules = rules
    over_at = AT_DECISION
    end_game = staticmethod(rules.end_game)

    @staticmethod
    def deal(b, rows, rngs, options) -> None:
        """New games in ``rows``, as ``rules.new_game`` deals them: each deck shuffled with the game's own generator,
        shuffled again (from the same generator) while it never ends setup. A stacked deck is already dealt: the
        env put the one game it gives in every row."""
        if options.get("deck") is not None:
            return
        table = rules.State(_CARDS).data  # a table before setup (its deck is replaced)
        for i in rows:
            row = b.data[i]
            while True:  # about one deal in two million never ends setup
                row[:] = table
                deck = _CARDS.copy()  # already in card-id order, as ``shuffled`` sorts it before the shuffle
                rngs[i].shuffle(deck)
                row[AT_DECK:AT_DECK + rules.NUM_CARDS] = deck
                if rules.set_up(row):
                    break

    @staticmethod
    def outcome(b, rows) -> dict:
        """``rules.outcome`` of each game ``rows`` selects, as arrays."""
        data = b.data[rows]
        won = data[:, AT_RESULT] == rules.WON
        return {
            "won": won,
            "score": np.where(won, rules.NUM_CARDS - data[:, AT_TOP], 0),
            "kills": np.count_nonzero(data[:, _FACE_PLACES] == rules.DISCARD, axis=1),
            "result": _RESULT_NAMES[data[:, AT_RESULT]],
        }


class RoyalAssassinVectorEnv(TabletopVectorEnv):
    """N games of Royal Assassin stepped together; the options are the single env's (see ``RoyalAssassinEnv``),
    and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = RoyalAssassinEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
