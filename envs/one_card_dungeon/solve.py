"""What the search with every die known (``benchmarks/ceiling/solver.py``, the ``ceiling`` command) needs of One Card
Dungeon beyond its turn. A game runs to hundreds of turns, too long for the exhaustive search: it is searched by
beams only, for the best game they find (the levels its line clears, a lower bound on what the deal allows)."""

from __future__ import annotations

import numpy as np

from ..core.compiled import compiled
from .levels import MAX_MONSTERS, NUM_LEVELS
from .rules import (AT_CLEARED, AT_HEALTH, AT_MONSTER_HP, AT_RESULT, AT_SPEED, PLAYING, determinize, fill_legal_mask,
                    take_turn)

# Parts no move changes (the options, and how many dice are fixed): a search's memo leaves them out. The turn
# count is not among them: it says which dice come next.
HISTORY_PARTS = ()
DEAL_PARTS = ("max_turns", "skill_cap", "fixed_rolls")

# No order of moves is better than another before ``promise`` ranks them.
ACTION_ORDER = []

# Beams of these widths, and no exhaustive search after them: a line clearing every level wins; any other is
# the best game found, never a proven loss.
BEAMS_ONLY = True
BEAM_WIDTHS = (1024, 16384)
WINNING_SCORE = NUM_LEVELS

# How the verdicts and the summary speak of a line's score (``final_score``) and of what the search knew.
SCORE_NAME = "levels"
SCORE_MEANS = "levels cleared by the best line found"
DEAL_KNOWN = "every die known"


def fix_dice(state, rng: np.random.Generator):
    """The deal to search: ``state`` with every die it will roll fixed, drawn from ``rng`` (a copy of the env's
    generator gives the env's own dice, turn by turn)."""
    return determinize(state, rng)


def dice(state) -> np.ndarray:
    """Every die the game from ``state`` will roll, as ``step`` takes them; a ValueError when some are not fixed."""
    if state.fixed_rolls - state.next_roll < 3 * (state.max_turns - state.turn):
        raise ValueError("the dice are not all known: fix them first (rules.determinize with a copy of the env's "
                         "generator gives the env's own)")
    rolls = state.rolls.view()
    rolls.flags.writeable = False
    return rolls


@compiled
def step(a, action, mask, dice):
    """The env's step with ``skip_forced=True``: the action and every forced move after it, paid from ``dice``,
    ``mask`` set to the legal actions reached."""
    no_dice = np.ones(1, dtype=np.int64)  # a bank with no die left: every die is fixed in ``dice``
    take_turn(a, action, True, dice, no_dice)
    fill_legal_mask(a, mask)


@compiled
def final_score(a):
    """The score of a game that has ended (won, lost or truncated): the levels cleared; -1 while it is open."""
    return a[AT_CLEARED] if a[AT_RESULT] != PLAYING else -1


@compiled
def promise(a):
    """Levels cleared; then the health the level's monsters have lost, the adventurer's health and skills."""
    total = 100_000 * a[AT_CLEARED] + 200 * a[AT_HEALTH]
    for k in range(MAX_MONSTERS):
        total -= 1000 * a[AT_MONSTER_HP + k]
    for skill in range(4):
        total += 300 * a[AT_SPEED + skill]
    return total
