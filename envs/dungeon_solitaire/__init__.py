"""Dungeon Solitaire: Tomb of Four Kings."""

from .env import DungeonSolitaireEnv

__all__ = ["DungeonSolitaireEnv"]
