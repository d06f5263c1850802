"""What the exact search with the whole deck known (``benchmarks/ceiling/solver.py``, the ``ceiling`` command) needs of
Dungeon Solitaire beyond its turn: when a game is decided, what the memo may leave out, the moves to try first, and
the best escape's score to search for. Its values: 1 a win, 0 a loss, -1 a game still open."""

from __future__ import annotations


from ..core.compiled import compiled
from .rules import (AT_PLACE, AT_RESULT, AT_STAGE, DECK, DISCARDS, ESCAPED, HAND, KING_CARDS, NUM_CARD_IDS, OVER,
                    TREASURE_POINTS, TURN, USED, take_turn)

# These parts record how the table came to be and decide nothing that follows: two states that differ only there
# have the same future, so the solver's memo leaves them out. (The deck changes in play: the scroll puts an ace
# under it, so no part is the deal's alone.)
HISTORY_PARTS = ("arrival", "clock")
DEAL_PARTS = ()

# Skills and a dodge before a draw, a draw before giving up a fight or a turn.
ACTION_ORDER = ["berserk", "disarm", "pick_lock", "dodge", "draw", "delve", "take_damage", "retreat", "discard"]

# The exhaustive search alone: its trees are small, and no beam goes first.
BEAMS_ONLY = False
BEAM_WIDTHS = ()

@compiled
def step(a, action, mask, dice):
    """The env's step with ``skip_forced=True``: the action and every forced move after it, ``mask`` set to the
    legal actions reached (a card game: no ``dice``)."""
    take_turn(a, action, True, mask)


@compiled
def verdict(a):
    """1 won, 0 lost, -1 open. Lost includes a game still live with a king in the used pile or the discards: the
    win needs all four in hand, and no card ever comes back from there."""
    if a[AT_STAGE] == OVER:
        if a[AT_RESULT] != ESCAPED:
            return 0
        for king in KING_CARDS:
            if a[AT_PLACE + king] != HAND:
                return 0
        return 1
    for king in KING_CARDS:
        if a[AT_PLACE + king] == USED or a[AT_PLACE + king] == DISCARDS:
            return 0
    return -1


@compiled
def promise(a):
    """Every state alike: the search tries the moves in ``ACTION_ORDER``'s order."""
    return 0


@compiled
def score_bound(a):
    """At most the score this game can still reach: the points in hand and every treasure still to come (in the
    deck or the turn); a card in the used pile, the discards or the torch row never returns."""
    points = 0
    for c in range(NUM_CARD_IDS):
        place = a[AT_PLACE + c]
        if place == HAND or place == DECK or place == TURN:
            points += TREASURE_POINTS[c]
    return points


@compiled
def final_score(a):
    """The score of a finished game (the hand's points on an escape, 0 on a loss), -1 while it is open."""
    if a[AT_STAGE] != OVER:
        return -1
    if a[AT_RESULT] != ESCAPED:
        return 0
    points = 0
    for c in range(NUM_CARD_IDS):
        if a[AT_PLACE + c] == HAND:
            points += TREASURE_POINTS[c]
    return points
