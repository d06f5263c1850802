"""Splendor as a PettingZoo AEC environment, versioned the way PettingZoo's classic games are.

    from tabletop_gym.envs import splendor_v0
    env = splendor_v0.env(num_players=3)
"""

from .splendor.aec import env, parallel_env, raw_env

__all__ = ["env", "raw_env", "parallel_env"]
