"""Dead Center (Wil Su, after Gridcannon)."""

from .env import DeadCenterEnv

__all__ = ["DeadCenterEnv"]
