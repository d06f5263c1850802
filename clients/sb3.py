"""Stable-Baselines3: a native vector env as its ``VecEnv``, so that sb3-contrib's MaskablePPO trains on it.

Stable-Baselines3 resets a finished game within the same step (its ``terminal_observation`` info carries the last
observation), where Gymnasium's vector envs start the new game at the next step by default. The adapter resets the
games that ended at once, through the env's ``reset_mask`` (an env made with ``autoreset_mode="SameStep"`` has
already done so: its ``final_obs`` is the terminal observation): each row's own generator deals its next game, so
the games played are the same ones either way. Each game's info is the single env's, its mask left out.
MaskablePPO reads the masks through ``env_method("action_masks")``.

    from sb3_contrib import MaskablePPO
    envs = SB3VectorEnv(gym.make_vec(env_id, num_envs=64))
    MaskablePPO("MlpPolicy", envs).learn(100_000)

(``env_id``: any id of ``tabletop_gym.envs.GAMES``.) ``tabletop-gym train <game> --algo sb3`` trains so.
A script of your own that trains a small torch network should call ``torch.set_num_threads(1)``: on a few
busy cores torch's default threads run MaskablePPO many times slower.
"""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv


class SB3VectorEnv(VecEnv):
    """Stable-Baselines3's view of a ``TabletopVectorEnv`` (``gym.make_vec(id, num_envs=N)``)."""

    def __init__(self, vector_env):
        self.vector_env = vector_env
        self._actions = None
        self._seed_next = None
        super().__init__(vector_env.num_envs, vector_env.single_observation_space, vector_env.single_action_space)

    def reset(self):
        observations, _ = self.vector_env.reset(seed=self._seed_next)
        self._seed_next = None
        return observations

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        observations, rewards, terminated, truncated, infos = self.vector_env.step(self._actions)
        ended = terminated | truncated
        at_once = self.vector_env.autoreset_mode == AutoresetMode.SAME_STEP
        ends = infos.get("final_info", {}) if at_once else infos  # final_info only where a game ended
        records = [{} for _ in range(self.num_envs)]  # a game's outcome in the step that ended it
        if ended.any():
            for i in np.flatnonzero(ended):
                records[i] = self.vector_env.info_of(ends, i)
                records[i].pop("action_mask")
                last = infos["final_obs"][i] if at_once else observations[i]
                records[i]["terminal_observation"] = np.array(last, copy=True)
                records[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if not at_once:
                fresh, _ = self.vector_env.reset(options={"reset_mask": ended})
                observations = np.where(ended[:, None], fresh, observations)
        return observations, rewards.astype(np.float32), ended, records

    def action_masks(self) -> np.ndarray:
        return self.vector_env.action_masks()

    def seed(self, seed=None):
        self._seed_next = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def close(self) -> None:
        self.vector_env.close()

    # Stable-Baselines3 asks for attributes and methods by sub-env index; all games share one object here.

    def _indices(self, indices) -> list:
        return list(range(self.num_envs)) if indices is None else list(np.atleast_1d(np.arange(self.num_envs)[indices]))

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self.vector_env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self.vector_env, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name) or hasattr(self.vector_env, attr_name)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        rows = self._indices(indices)
        if method_name == "action_masks":
            return list(self.vector_env.action_masks()[rows])
        result = getattr(self.vector_env, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        return [False for _ in self._indices(indices)]

    def get_images(self):
        raise NotImplementedError("the vector env does not render; use a single env with render_mode='rgb_array'")
