"""A native vector env's ceiling: its game's compiled loops alone, N games stepped with random legal actions inside
compiled code, every finished game dealt again at once (``rules.deal_rows``, the vector env's own deal), the masks
and observations filled every step, as the vector env fills them. No Python runs between two steps, so the vector
env's steps per second over this loop's is the share of its time spent in its compiled rules.

A game has this row where its rules deal in compiled code (``rules.deal_rows``)."""

from __future__ import annotations

import numba
import numpy as np
from numba.typed import List


@numba.njit
def random_legal_actions(masks, chooser, actions):
    """A uniformly random legal action of each row of ``masks``, drawn with ``chooser`` (a numpy generator)."""
    for i in range(masks.shape[0]):
        legal = 0
        for action in range(masks.shape[1]):
            legal += masks[i, action]
        pick = chooser.integers(0, legal)
        for action in range(masks.shape[1]):
            if masks[i, action]:
                if pick == 0:
                    actions[i] = action
                    break
                pick -= 1


@numba.njit
def play_steps(fill_legal_masks, take_actions, play_forced_rows, fill_observations, deal_rows, data, fresh, masks,
               observations, actions, rngs, chooser, steps, at_result, playing):
    """``steps`` steps of every game in ``data``, with the game's compiled loops (the first five arguments)."""
    everyone = np.ones(data.shape[0], dtype=np.bool_)
    ended = np.empty(data.shape[0], dtype=np.int64)
    for _ in range(steps):
        random_legal_actions(masks, chooser, actions)
        take_actions(data, actions, everyone)
        play_forced_rows(data, everyone)
        count = 0
        for i in range(data.shape[0]):
            if data[i, at_result] != playing:
                data[i, :] = fresh
                ended[count] = i
                count += 1
        deal_rows(data, ended[:count], rngs)
        fill_legal_masks(data, masks)
        fill_observations(data, observations)


class CompiledLoop:
    """The compiled loop of ``num_envs`` games of the native vector env ``vector`` (reset with ``seed``), ready to
    play ``steps`` steps at a time."""

    def __init__(self, vector, seed: int = 0):
        vector.reset(seed=seed)
        self.rules = vector.batch.rules
        self.data = vector.state.data.copy()
        self.fresh = vector.fresh_game({}).data.copy()
        self.masks = vector.action_masks()
        self.observations = np.zeros((len(self.data), self.rules.OBSERVATION_SIZE), dtype=np.float32)
        self.actions = np.zeros(len(self.data), dtype=np.int64)
        self.rngs = List([np.random.default_rng([seed, i]) for i in range(len(self.data))])
        self.chooser = np.random.default_rng(seed)
        self.loops = (self.rules.fill_legal_masks, self.rules.take_actions, self.rules.play_forced_rows,
                      self.rules.fill_observations, self.rules.deal_rows)

    def play(self, steps: int) -> int:
        """Play ``steps`` steps of every game; the env-steps played."""
        play_steps(*self.loops, self.data, self.fresh, self.masks, self.observations, self.actions, self.rngs,
                   self.chooser, steps, self.rules.AT_RESULT, self.rules.PLAYING)
        return steps * len(self.data)
