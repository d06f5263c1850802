"""High or Low: a throwaway solitaire, listed as a sixth game by the tests (``tests/test_sixth_game.py``)."""

from .env import HighOrLowEnv

__all__ = ["HighOrLowEnv"]
