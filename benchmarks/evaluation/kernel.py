"""A native vector env's ceiling: its game's compiled step alone, N games stepped with random legal actions chosen
inside compiled code, each game that ended dealt again at the next step with an all-ones mask until then, as the
vector env does it (``rules.step_rows``, the very call the vector env makes). No Python runs between two steps, so
the vector env's steps per second over this loop's is the share of its time spent in its compiled rules.

A game has this row where its rules step every game in one compiled call (``rules.step_rows``)."""

from __future__ import annotations

import numba
import numpy as np

from ...envs.core.compiled import compiled


@compiled
def random_legal_actions(masks, chooser, actions):
    """A uniformly random legal action of each row of ``masks`` (none all zeros), drawn with ``chooser`` (a numpy
    generator): the random player of every vector row of the bench and of this loop."""
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
def play_steps(step_rows, arguments, data, masks, actions, taking, starting, chooser, steps, at_result, playing):
    """``steps`` steps of every game in ``data`` with the game's ``step_rows(*arguments)`` (``arguments`` holds
    ``data``, ``masks``, ``actions``, and ``taking`` and ``starting``: which games play on and which are dealt at
    the next step)."""
    for _ in range(steps):
        random_legal_actions(masks, chooser, actions)
        step_rows(*arguments)
        for i in range(data.shape[0]):
            starting[i] = data[i, at_result] != playing
            taking[i] = not starting[i]
            if starting[i]:
                masks[i, :] = True  # the finished game's row waits for its next deal


class CompiledLoop:
    """The compiled loop of the games of the native vector env ``vector`` (reset with ``seed``; the loop plays its
    games on from there), ready to play ``steps`` steps at a time."""

    def __init__(self, vector, seed: int = 0):
        vector.reset(seed=seed)
        self.rules = vector.batch.rules
        self.data = vector.state.data
        self.masks = vector.action_masks()
        self.observations = np.zeros((len(self.data), self.rules.OBSERVATION_SIZE), dtype=np.float32)
        self.actions = np.zeros(len(self.data), dtype=np.int64)
        self.taking = np.ones(len(self.data), dtype=bool)
        self.starting = np.zeros(len(self.data), dtype=bool)
        self.rngs = [np.random.default_rng([seed, i]) for i in range(len(self.data))]  # the loop's own deals
        self.arguments = vector.batch.step_arguments(vector.state, vector.fresh_game({}), self.actions, self.taking,
                                                     self.starting, self.rngs, vector.skip_forced, self.masks,
                                                     self.observations)
        self.chooser = np.random.default_rng(seed)

    def play(self, steps: int) -> int:
        """Play ``steps`` steps of every game; the env-steps played."""
        play_steps(self.rules.step_rows, self.arguments, self.data, self.masks, self.actions, self.taking,
                   self.starting, self.chooser, steps, self.rules.AT_RESULT, self.rules.PLAYING)
        return steps * len(self.data)
