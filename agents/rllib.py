"""An RLlib checkpoint played like any agent: ``make_agent("rllib:<checkpoint>")`` in ``eval``, ``leaderboard`` and
``replay``. Importing this module needs neither Ray nor torch; loading the checkpoint needs both (the ``ray`` extra).
The checkpoint is one that ``tabletop-gym train <game> --algo rllib`` writes (``benchmarks/training/rllib.py``; its
envs are ``tabletop_gym.clients.rllib``'s):
RLlib's masking module reads ``{"observations": the observation scaled, "action_mask": float mask}``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..clients.rllib import ACTION_MASK, OBSERVATIONS
from ..envs.core.errors import BadFileError
from .policy import one_line

LEARNER = "learner"  # self-play's trained policy; a single-agent run's is "default_policy"


class RLlibAgent:
    """Plays an RLlib checkpoint (``learn``'s, or any PPO checkpoint of ``ppo_config``): the most likely legal
    action of its policy, through the mask. Loaded lazily and not pickled, so it goes to evaluation workers by
    path; importing it needs Ray and torch."""

    name = "rllib"

    def __init__(self, path, seed=None):
        # RLlib reads a checkpoint by URI, which a relative path is not; resolved now, not when it loads (in a
        # worker, perhaps, or after the current folder changed).
        self.path = Path(path).resolve()
        modules = self.path / "learner_group" / "learner" / "rl_module"
        # A single-agent run's policy, or self-play's learner.
        self._module_path = modules / (LEARNER if (modules / LEARNER).is_dir() else "default_policy")
        if not self._module_path.is_dir() or not (self.path / "observation_scale.npy").exists():
            raise BadFileError(self.path, "no RLlib checkpoint of tabletop-gym here (as `tabletop-gym train --algo "
                                          "rllib` writes it: <out>/checkpoint)")
        self._module = None
        self._scale = observation_scale(self.path / "observation_scale.npy")  # checked now, not at the first move

    def _load(self):
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        torch.set_num_threads(1)
        self._module = RLModule.from_checkpoint(str(self._module_path))
        self._scale = observation_scale(self.path / "observation_scale.npy")

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations, masks) -> np.ndarray:
        import torch

        if self._module is None:
            self._load()
        masks = np.asarray(masks, dtype=bool)
        batch = {"obs": {OBSERVATIONS: torch.as_tensor(np.asarray(observations) * self._scale, dtype=torch.float32),
                         ACTION_MASK: torch.as_tensor(masks, dtype=torch.float32)}}
        with torch.no_grad():
            logits = self._module.forward_inference(batch)["action_dist_inputs"].numpy()
        return np.where(masks, logits, -np.inf).argmax(axis=1)

    def __getstate__(self):
        return {**self.__dict__, "_module": None, "_scale": None}


def observation_scale(path: Path) -> np.ndarray:
    """The scale of each observation entry that a checkpoint's policy learnt with (``observation_scale.npy``): finite
    numbers in one row; a ``BadFileError`` naming the file otherwise."""
    try:
        scale = np.load(path, allow_pickle=False)
    except Exception as error:  # numpy's reader fails in many ways on a damaged file; with no pickles it ran nothing
        raise BadFileError(path, f"not an observation scale (.npy): {one_line(error)}") from None
    if not isinstance(scale, np.ndarray) or scale.dtype.kind not in "fiu" or scale.ndim != 1:
        raise BadFileError(path, f"not an observation scale: {getattr(scale, 'dtype', type(scale).__name__)} "
                                 f"of shape {getattr(scale, 'shape', ())}, not one row of numbers")
    if not np.isfinite(scale).all():
        raise BadFileError(path, "its scale holds NaN or infinite numbers")
    return scale
