"""What the exact search with the whole deck known (``benchmarks/ceiling/solver.py``, the ``ceiling`` command) needs of
Dead Center beyond its turn: when a game is decided, what the memo may leave out, the moves to try first and how
promising a table is. Its values: 1 a win, 0 a loss, -1 a game still open."""

from __future__ import annotations

import numpy as np

from ..core.cards import NUM_CARD_IDS, RANK
from ..core.compiled import compiled
from .rules import (ACCEPTS, AT_DECK, AT_DRAWN, AT_END, AT_KILLS, AT_PHASE, AT_PILE_TOP, AT_PLAYED, AT_RESULT,
                    AT_SLOT_CARD, AT_SLOT_STATE, AT_TOP, ATTACK_PILE, CAN_KILL, DEAD, DOWN, KILL, KING, NUM_SLOTS,
                    OVER, PLAY, SUPPORT_PILES, UP, WON, take_turn)

# These parts record the past and decide nothing that follows (the pile heights, the turn count and where each
# card lies, which only the display and the observation read): the solver's memo leaves them out, and the deal's
# parts too, which no move changes (the draw pile's order and the zombie on each slot).
HISTORY_PARTS = ("pile_size", "place", "turn")
DEAL_PARTS = ("deck", "slot_card")

# Kills first (a kill is never worse), then plays on the piles, then reveals.
ACTION_ORDER = ([f"kill_{slot}" for slot in ("T0", "T1", "T2", "R0", "R1", "R2", "B0", "B1", "B2", "L0", "L1", "L2")]
                + [f"play_{p}" for p in (4, 1, 3, 5, 7, 0, 2, 6, 8)])

# Beam searches of these widths look for a quick win before the exhaustive search.
BEAMS_ONLY = False
BEAM_WIDTHS = (16, 256, 4096, 32768)

_SUPPORT = SUPPORT_PILES.astype(np.int64)
_ATTACK = ATTACK_PILE.astype(np.int64)
_WEIGHT = np.where(RANK[np.arange(NUM_CARD_IDS)] == KING, 3, 1).astype(np.int64)


@compiled
def step(a, action, mask, dice):
    """The env's step with ``skip_forced=True``: the action and every forced move after it, ``mask`` set to the
    legal actions reached (a card game: no ``dice``)."""
    take_turn(a, action, True, mask)


@compiled
def verdict(a):
    """1 won, 0 lost, -1 open. Lost includes a live game with more zombies standing than kills it can still make:
    a kill needs a played card, at most one a turn."""
    phase = a[AT_PHASE]
    if phase == OVER:
        return 1 if a[AT_RESULT] == WON else 0
    chances = a[AT_END] - a[AT_TOP] + (1 if phase == PLAY or phase == KILL else 0)
    if NUM_SLOTS - a[AT_KILLS] > chances:
        return 0
    return -1


@compiled
def promise(a):
    """The heuristic player's judgement, with the deck seen: each zombie killed counts 65, a standing one 40 when its
    supports would kill it (20 more when the next card fits its attack pile) or 20 when one card still to come on a
    support pile would make it so; kings three times as much (they are the ones left standing at the end), a
    face-down zombie half."""
    top, end = a[AT_TOP], a[AT_END]
    upcoming = a[AT_DRAWN] if a[AT_DRAWN] >= 0 else (a[AT_DECK + top] if top < end else -1)
    total = 0
    for slot in range(NUM_SLOTS):
        state = a[AT_SLOT_STATE + slot]
        zombie = a[AT_SLOT_CARD + slot]
        support_a = a[AT_PILE_TOP + _SUPPORT[slot, 0]]
        support_b = a[AT_PILE_TOP + _SUPPORT[slot, 1]]
        ready = CAN_KILL[zombie, support_a, support_b]
        waiting = a[AT_PHASE] == KILL and a[AT_PLAYED] == _ATTACK[slot] and state == UP
        if state == DEAD or (waiting and ready):
            total += 65 * _WEIGHT[zombie]
            continue
        worth = 0
        if ready:
            worth = 40
            if upcoming >= 0 and ACCEPTS[upcoming, a[AT_PILE_TOP + _ATTACK[slot]]]:
                worth += 20
        else:
            for k in range(top, end):
                c = a[AT_DECK + k]
                if CAN_KILL[zombie, c, support_b] or CAN_KILL[zombie, support_a, c]:
                    worth = 20
                    break
        total += worth * _WEIGHT[zombie] // (2 if state == DOWN else 1)
    return total
