"""What every game's rules give Python callers on one game, written once over what each game writes: its compiled
turn on one game's array, and its outcome over the rows of many games (``outcomes(data)``, the arrays a vector
env's infos hold)."""

from __future__ import annotations

import numpy as np


def one_game(outcomes: dict) -> dict:
    """The first game's values of ``outcomes`` (arrays over games, or lists of a list per game) as Python's values:
    a game's ``outcome``."""
    return {key: values[0].item() if isinstance(values, np.ndarray) else values[0] for key, values in outcomes.items()}
