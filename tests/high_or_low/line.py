"""High or Low's line in the one list of games: what a game of the suite adds to ``GAMES`` in
``envs/__init__.py``. This throwaway game lives under tests/, so its folder and agent module are named here."""

from tabletop_gym.envs import Game

GAME = Game("high_or_low", "Tabletop/HighOrLow-v0", "HighOrLowEnv", package="high_or_low",
            agents="high_or_low.agents")
