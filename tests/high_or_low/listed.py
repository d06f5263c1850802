"""Importing this module lists High or Low with the suite's games and registers its id, as importing
``tabletop_gym.envs`` does for the games of its list. A fresh process makes the env with
``gym.make("high_or_low.listed:Tabletop/HighOrLow-v0")``: Gymnasium imports the module named before the colon."""

from tabletop_gym.envs import GAMES, register

from .line import GAME

GAMES[GAME.name] = GAME
register(GAME)
