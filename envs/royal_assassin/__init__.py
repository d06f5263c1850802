"""Royal Assassin (Mark R. Brown)."""

from .env import RoyalAssassinEnv

__all__ = ["RoyalAssassinEnv"]
