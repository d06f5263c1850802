"""Dungeon Solitaire's native vector env: ``gym.make_vec("Tabletop/DungeonSolitaire-v0", num_envs=N)``."""

from __future__ import annotations

import numpy as np

from ..core.vector import CompiledGames, TabletopVectorEnv
from . import rules
from .env import DungeonSolitaireEnv
from .rules import AT_DECK, AT_PLACE, AT_RESULT, AT_STAGE, HAND

_RESULT_NAMES = np.array(rules.RESULT_NAMES)
_KINGS = np.array([rules.card(rules.KING, suit) for suit in range(4)])
_POINTS = np.array([rules.treasure_points_of(c) for c in range(rules.NUM_CARD_IDS)], dtype=np.float64)


class Games(CompiledGames):
    """The batched side of ``TabletopVectorEnv`` for Dungeon Solitaire (see ``CompiledGames``)."""

    rules = rules
    over_at = AT_STAGE
    end_game = staticmethod(rules.lose)

    @staticmethod
    def deal(b, rows, rngs, options) -> None:
        """Shuffle each new game's deck with its own generator, as ``rules.new_game`` does (the rest of a new game,
        and a stacked deck, are already in place)."""
        if options.get("deck") is not None:
            return
        for i in rows.tolist():
            deck = rules.DECK_CARDS.astype(np.int64)  # sorted, as ``shuffled`` sorts before the shuffle
            rngs[i].shuffle(deck)
            b.data[i, AT_DECK:AT_DECK + rules.NUM_DECK_CARDS] = deck

    @staticmethod
    def outcome(b, rows) -> dict:
        """``rules.outcome`` of each game ``rows`` selects, as arrays."""
        data = b.data[rows]
        hand = data[:, AT_PLACE:AT_PLACE + rules.NUM_CARD_IDS] == HAND
        escaped = data[:, AT_RESULT] == rules.ESCAPED
        kings = hand[:, _KINGS].sum(axis=1)
        return {
            "won": escaped & (kings == 4),
            "score": np.where(escaped, (hand * _POINTS).sum(axis=1), 0.0),
            "kings": kings,
            "result": _RESULT_NAMES[data[:, AT_RESULT]],
        }


class DungeonSolitaireVectorEnv(TabletopVectorEnv):
    """N games of Dungeon Solitaire stepped together; the options are the single env's (see
    ``DungeonSolitaireEnv``), and game i of ``reset(seed=s)`` is the single env's game of seed s + i.
    ``autoreset_mode`` (NEXT_STEP, SAME_STEP, DISABLED), the all-ones mask of a finished game's row and the numeric
    infos (``result`` a code into ``RESULT_NAMES``) are ``TabletopVectorEnv``'s."""

    single_env = DungeonSolitaireEnv
    batch = Games
    RESULT_NAMES = rules.RESULT_NAMES  # infos["result"] holds the index of the name
