"""Dungeon Solitaire's native vector env: ``gym.make_vec("Tabletop/DungeonSolitaire-v0", num_envs=N)``."""

from __future__ import annotations

import numpy as np

from ..core.vector import TabletopVectorEnv
from . import rules
from .env import DungeonSolitaireEnv
from .rules import AT_DECK, AT_PLACE, AT_RESULT, AT_STAGE, HAND

_RESULT_NAMES = np.array(rules.RESULT_NAMES)
_KINGS = np.array([rules.card(rules.KING, suit) for suit in range(4)])
_POINTS = np.array([rules.treasure_points_of(c) for c in range(rules.NUM_CARD_IDS)], dtype=np.float64)


class Games:
    """The batched side of ``TabletopVectorEnv`` for Dungeon Solitaire: a ``Batch`` of ``rules.State`` holds
    ``data`` (N, State.SIZE), a game per row; each call runs the rules' compiled loop over its rows."""

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
    def apply(b, actions, rows, rngs=None) -> None:
        rules.take_actions(b.data, actions, rows)

    @staticmethod
    def play_forced(b, rows, rngs=None) -> None:
        rules.play_forced_rows(b.data, rows)

    @staticmethod
    def legal_masks(b) -> np.ndarray:
        masks = np.empty((len(b.data), rules.NUM_ACTIONS), dtype=bool)
        rules.fill_legal_masks(b.data, masks)
        return masks

    @staticmethod
    def observe(b) -> np.ndarray:
        observations = np.empty((len(b.data), rules.OBSERVATION_SIZE), dtype=np.float32)
        rules.fill_observations(b.data, observations)
        return observations

    @staticmethod
    def is_over(b) -> np.ndarray:
        return b.data[:, AT_STAGE] == rules.OVER

    @staticmethod
    def forfeit(b, rows) -> None:
        for i in np.flatnonzero(rows):
            rules.lose(b.data[i], rules.FORFEITED)

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
