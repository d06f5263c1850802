"""Scripted Splendor players, used as opponents by the single-agent view (``agents/`` wraps them).

Both play from what their seat sees, its observation and legal-action mask, never from the state:

- ``random_action``: uniform over the legal actions.
- ``greedy_action``: buy the best affordable card (points, then progress towards nobles, then how much
  its bonus helps buy the other cards in sight); otherwise pick the best target card (value for the
  gems still missing) and take the gems it needs, reserving it when no take helps; return the tokens
  the target needs least; any qualifying noble.

The greedy player is compiled (``greedy_choice``), so that the single-agent view and the vector env play it inside
their compiled step (``play_until_learner``); its arithmetic keeps the float32 / float64 steps of the numpy version
it replaced, in the same order, so that ties resolve the same way. The random player draws from the env's numpy
generator, in Python: the compiled step stops where a random opponent must choose.
"""

from __future__ import annotations

import numpy as np

from ..core.compiled import compiled, only_action
from . import rules as r
from .features import card_start
from .rules import (A_BUY, A_NOBLE, A_PASS, A_RESERVE, A_RETURN, AT_CURRENT, F_BONUS, F_COST, F_POINTS, F_PRESENT,
                    GOLD, MAX_PLAYERS, MAX_RESERVED, NOBLE_SIZE, NUM_ACTIONS, OBS_BANK, OBS_CONTEXT, OBS_NOBLES,
                    OBS_SEATS, OBSERVATION_SIZE, S_BONUSES, S_TOKENS, TOKEN_LIMIT, fill_legal_mask, fill_observation,
                    take_action)

_TAKES = r.TAKE_GEMS.astype(np.float64)  # (30, 5) gems per take action
_CARDS = 3 * r.BOARD_SLOTS + MAX_RESERVED  # the 15 cards the greedy player could buy: 12 face-up, 3 reserved
_OWN = OBS_SEATS
_INF = np.inf


def random_action(action_mask, rng: np.random.Generator) -> int:
    """A uniformly random legal action."""
    legal = np.flatnonzero(action_mask)
    return int(legal[rng.integers(legal.size)])


def greedy_action(observation: np.ndarray, action_mask) -> int:
    """The greedy player's choice for the seat whose observation and mask these are."""
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    return int(greedy_choice(obs, np.asarray(action_mask).astype(np.bool_)))


# ---------------------------------------------------------------- what the greedy player reads (compiled)
# The sums below are of small whole numbers in float32 (exact); the fractions (3 / gems missing for a noble,
# 0.01 and 0.1 weights) are rounded where numpy rounded them: float32 where the numpy version had a float32 operand.

@compiled
def _read_sight(obs, present, points, color, need, short, missing):
    """The 15 cards: present, points, bonus colour, gems needed after bonuses (``need``) and after tokens
    (``short``), and gems missing after gold too (``missing``)."""
    zero = np.float32(0.0)
    for i in range(_CARDS):
        at = card_start(i)
        present[i] = obs[at + F_PRESENT] > 0
        points[i] = obs[at + F_POINTS]
        best = 0
        for c in range(1, 5):
            if obs[at + F_BONUS + c] > obs[at + F_BONUS + best]:
                best = c
        color[i] = best
        total = zero
        for c in range(5):
            n = max(obs[at + F_COST + c] - obs[_OWN + S_BONUSES + c], zero)
            need[i, c] = n
            s = max(n - obs[_OWN + S_TOKENS + c], zero)
            short[i, c] = s
            total += s
        missing[i] = max(total - obs[_OWN + S_TOKENS + GOLD], zero)


@compiled
def _values(obs, present, points, color, need):
    """Per card: points, plus progress towards the nobles (3 points shared over the bonuses a noble still misses),
    plus 0.1 per other card in sight that still needs a gem of its colour; -inf for an empty place."""
    zero = np.float32(0.0)
    progress = np.zeros(_CARDS)
    noble_need = np.zeros(5, dtype=np.float32)
    for p in range(MAX_PLAYERS + 1):
        at = OBS_NOBLES + p * NOBLE_SIZE
        if not obs[at] > 0:
            continue
        total = zero
        for c in range(5):
            noble_need[c] = max(obs[at + 1 + c] - obs[_OWN + S_BONUSES + c], zero)
            total += noble_need[c]
        if total > 0:
            share = np.float64(np.float32(3.0) / total)
            for i in range(_CARDS):
                if noble_need[color[i]] > 0:
                    progress[i] += share
                else:
                    progress[i] += 0.0
    demand = np.zeros(5, dtype=np.int64)
    for i in range(_CARDS):
        if present[i]:
            for c in range(5):
                if need[i, c] > 0:
                    demand[c] += 1
    value = np.empty(_CARDS)
    for i in range(_CARDS):
        if present[i]:
            value[i] = (np.float64(points[i]) + progress[i]) + 0.1 * np.float64(demand[color[i]])
        else:
            value[i] = -_INF
    return value


@compiled
def _target(obs, present, value, short, missing):
    """The card to work towards (-1: none in sight): most value per gem still missing, gems the bank cannot supply
    counted twice."""
    zero = np.float32(0.0)
    best, best_score = -1, -_INF
    for i in range(_CARDS):
        if not present[i]:
            continue
        scarce = zero
        for c in range(5):
            scarce += max(short[i, c] - obs[OBS_BANK + c], zero)
        score = (value[i] + 0.5) / np.float64(np.float32(1.0) + missing[i] + scarce)
        if best < 0 or score > best_score:
            best, best_score = i, score
    return best


@compiled
def _can_reserve(target, mask):
    return 0 <= target < 3 * r.BOARD_SLOTS and mask[A_RESERVE + target]


@compiled
def greedy_choice(obs, mask):
    """The greedy player's choice for the seat whose observation (float32) and legal mask (bools) these are."""
    if obs[OBS_CONTEXT + 2]:  # a noble visits: any qualifying one is worth the same 3 points
        for action in range(A_NOBLE, A_PASS):
            if mask[action]:
                return action
    present = np.zeros(_CARDS, dtype=np.bool_)
    points = np.zeros(_CARDS, dtype=np.float32)
    color = np.zeros(_CARDS, dtype=np.int64)
    need = np.zeros((_CARDS, 5), dtype=np.float32)
    short = np.zeros((_CARDS, 5), dtype=np.float32)
    missing = np.zeros(_CARDS, dtype=np.float32)
    _read_sight(obs, present, points, color, need, short, missing)
    value = _values(obs, present, points, color, need)
    target = _target(obs, present, value, short, missing)
    if obs[OBS_CONTEXT + 1]:
        return _return_token(obs, need, target, mask)
    # Buy the best card by points and noble progress; among equals the cheapest in tokens spent.
    best, best_score = -1, -_INF
    for i in range(_CARDS):
        if mask[A_BUY + i]:
            spent = np.float32(0.0)
            for c in range(5):
                spent += need[i, c]
            score = value[i] - np.float64(np.float32(0.01) * spent)
            if best < 0 or score > best_score:
                best, best_score = i, score
    if best >= 0:
        return A_BUY + best
    any_take = False
    for action in range(A_RESERVE):
        any_take = any_take or mask[action]
    if any_take:
        return _take(obs, present, short, target, mask)
    if _can_reserve(target, mask):
        return A_RESERVE + target
    for action in range(A_RESERVE, A_BUY):
        if mask[action]:
            return action
    for action in range(NUM_ACTIONS):
        if mask[action]:
            return action
    return -1


@compiled
def _take(obs, present, short, target, mask):
    """Gems for the target first (reserving it when no take helps), then gems most cards in sight still need;
    fewer tokens over 10."""
    gain = np.zeros(A_RESERVE)
    if target >= 0:
        for action in range(A_RESERVE):
            g = 0.0
            for c in range(5):
                g += min(_TAKES[action, c], np.float64(short[target, c]))
            gain[action] = g
        most = -_INF
        for action in range(A_RESERVE):
            if mask[action] and gain[action] > most:
                most = gain[action]
        if most == 0 and _can_reserve(target, mask):
            return A_RESERVE + target
    demand = np.zeros(5, dtype=np.int64)
    for i in range(_CARDS):
        if present[i]:
            for c in range(5):
                if short[i, c] > 0:
                    demand[c] += 1
    held = np.float32(0.0)
    for c in range(6):
        held += obs[_OWN + S_TOKENS + c]
    best, best_score = -1, -_INF
    for action in range(A_RESERVE):
        if not mask[action]:
            continue
        gems = 0.0
        wanted = 0.0
        for c in range(5):
            gems += _TAKES[action, c]
            wanted += _TAKES[action, c] * demand[c]
        over = max(np.float64(held) + gems - TOKEN_LIMIT, 0.0)
        score = 10 * gain[action] + 0.1 * wanted - 0.5 * over
        if best < 0 or score > best_score:
            best, best_score = action, score
    return best


@compiled
def _return_token(obs, need, target, mask):
    """Give back the colour held most beyond what the target needs; gold only when nothing else is held."""
    best, best_score = -1, -_INF
    for c in range(6):
        if not mask[A_RETURN + c]:
            continue
        held = obs[_OWN + S_TOKENS + c]
        if c == GOLD:
            surplus = -10.0
        elif target >= 0:
            surplus = np.float64(held - need[target, c])
        else:
            surplus = np.float64(held)
        score = surplus + np.float64(np.float32(0.01) * held)
        if best < 0 or score > best_score:
            best, best_score = c, score
    return A_RETURN + best


# ---------------------------------------------------------------- the opponents' moves inside the compiled step

PLAYED, RANDOM_TO_CHOOSE, LOG_FULL = 0, 1, 2  # why play_until_learner stopped


@compiled
def play_until_learner(a, learner, greedy, skip_forced, mask, obs, log):
    """Play the other seats of game ``a`` (and, with ``skip_forced``, the learner's forced moves) until the seat
    ``learner`` has a decision to make or the game is over or truncated (``PLAYED``), or a random opponent must
    choose (``RANDOM_TO_CHOOSE``: Python draws from the env's generator and calls again). ``greedy[k]``: whether
    the greedy player plays seat k; a forced move is played without asking. ``mask`` is left holding the legal
    actions of the state reached; each opponent move is logged as (seat, action) in ``log`` after its count in
    ``log[0, 0]`` (``LOG_FULL`` when there is no room: Python empties it and calls again; a log of no rows: none
    kept)."""
    while True:
        fill_legal_mask(a, mask)
        seat = a[AT_CURRENT]
        action = only_action(mask)
        if seat != learner:
            if action < 0:
                choices = 0
                for k in range(NUM_ACTIONS):
                    if mask[k]:
                        choices += 1
                if choices == 0:
                    return PLAYED
                if not greedy[seat]:
                    return RANDOM_TO_CHOOSE
                fill_observation(a, seat, obs)
                action = greedy_choice(obs, mask)
            if log.shape[0]:
                count = log[0, 0]
                if count + 1 >= log.shape[0]:
                    return LOG_FULL
                log[count + 1, 0] = seat
                log[count + 1, 1] = action
                log[0, 0] = count + 1
            take_action(a, action)
        elif skip_forced and action >= 0:
            take_action(a, action)
        else:
            return PLAYED


@compiled
def play_rows_until_learner(data, rows, learners, greedy, skip_forced, rngs):
    """``play_until_learner`` in each game ``rows`` selects (nothing logged), to the learner's decision: where a
    random opponent must choose, it draws as ``random_action`` does, ``rngs[i].integers(0, number of legal
    actions)`` from game i's own numpy generator (numba's ``Generator.integers`` draws numpy's numbers and moves
    the generator's state as numpy does), takes that legal action, and goes on."""
    mask = np.empty(NUM_ACTIONS, dtype=np.bool_)
    obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    log = np.zeros((0, 2), dtype=np.int64)  # the vector env does not log moves
    for i in range(data.shape[0]):
        if rows[i]:
            while play_until_learner(data[i], learners[i], greedy[i], skip_forced, mask, obs, log) == RANDOM_TO_CHOOSE:
                choices = 0
                for action in range(NUM_ACTIONS):
                    if mask[action]:
                        choices += 1
                take_action(data[i], _nth_legal(mask, rngs[i].integers(0, choices)))


@compiled
def _nth_legal(mask, n):
    for action in range(NUM_ACTIONS):
        if mask[action]:
            if n == 0:
                return action
            n -= 1
    return -1
