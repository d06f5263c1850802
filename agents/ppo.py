"""A MaskablePPO policy (sb3-contrib) played like any other agent."""

from __future__ import annotations

from pathlib import Path

import numpy as np


class PPOAgent:
    """Plays a saved MaskablePPO model, always through the action mask.

    The model is loaded lazily and not pickled, so the agent can be sent to evaluation workers by path.
    """

    name = "ppo"

    def __init__(self, path, deterministic: bool = True, seed=None):
        self.path = str(path)
        if not Path(self.path).exists() and not Path(self.path + ".zip").exists():
            raise ValueError(f"no saved model at {self.path}")
        self.deterministic = deterministic
        self._model = None

    @property
    def model(self):
        if self._model is None:
            from sb3_contrib import MaskablePPO

            self._model = MaskablePPO.load(self.path, device="cpu")
        return self._model

    def reset(self, seed=None) -> None:
        if seed is not None:
            self.model.set_random_seed(seed)

    def act(self, observation, action_mask) -> int:
        action, _ = self.model.predict(np.asarray(observation), action_masks=np.asarray(action_mask, dtype=bool),
                                       deterministic=self.deterministic)
        return int(action)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_model"] = None
        return state
