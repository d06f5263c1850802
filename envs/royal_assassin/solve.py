"""What the exact search with the whole deck known (``benchmarks/ceiling/solver.py``, the ``ceiling`` command) needs of
Royal Assassin beyond its turn: when a game is decided, what the memo may leave out, the moves to try first and
how promising a table is. Its values: 1 a win, 0 a loss, -1 a game still open."""

from __future__ import annotations

import numpy as np

from ..core.compiled import compiled
from .rules import AT_DECISION, AT_PLACE, AT_RESULT, DISCARD, FACE_CARDS, OVER, WON, take_turn

# These parts record the past and decide nothing that follows (the discard's order, and where each card lies,
# which the stacks, the reserve and ``top`` already say): the solver's memo leaves them out, and the deal's parts
# too, which no move changes (the deck's order; ``top`` says how far play has gone into it).
HISTORY_PARTS = ("place", "discard", "discard_size")
DEAL_PARTS = ("deck",)

# The assassin first (it takes a whole column), then plain attacks, then the reserve.
ACTION_ORDER = [f"assassin_{s}" for s in "SHDC"] + [f"attack_{s}" for s in "SHDC"] + ["pass"]

# Beam searches of these widths look for a quick win before the exhaustive search.
BEAMS_ONLY = False
BEAM_WIDTHS = (16, 256, 4096)

_FACES = FACE_CARDS.astype(np.int64)


@compiled
def step(a, action, mask, dice):
    """The env's step with ``skip_forced=True``: the action and every forced move after it, ``mask`` set to the
    legal actions reached (a card game: no ``dice``)."""
    take_turn(a, action, True, mask)


@compiled
def verdict(a):
    """1 won, 0 lost, -1 open."""
    if a[AT_DECISION] != OVER:
        return -1
    return 1 if a[AT_RESULT] == WON else 0


@compiled
def promise(a):
    """Face cards killed."""
    killed = 0
    for face in _FACES:
        killed += a[AT_PLACE + face] == DISCARD
    return killed
