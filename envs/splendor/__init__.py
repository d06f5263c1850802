"""Splendor: the PettingZoo AEC env (``splendor_v0``) and its Gymnasium single-agent view."""

from .aec import env, parallel_env, raw_env
from .single import SplendorEnv

__all__ = ["SplendorEnv", "env", "raw_env", "parallel_env"]
