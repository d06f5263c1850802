"""One Card Dungeon (Barny Skinner): a solo dice dungeon crawl on a 5x5 card."""

from .env import OneCardDungeonEnv

__all__ = ["OneCardDungeonEnv"]
