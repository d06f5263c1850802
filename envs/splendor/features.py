"""Splendor's observation features: what ``observation="actions"`` appends to the plain observation
(``rules.observe``), read off the observer's own observation. Not rules of the game (``rules.py`` holds those):
what a network learns from more easily than from the plain observation.
"""

from __future__ import annotations

import numpy as np

from ..core.compiled import compiled
from .cards import COLORS, GOLD, NOBLE_POINTS, NUM_CARDS, TOKEN_COLORS
from .rules import (A_BUY, A_BUY_RESERVED, A_DOUBLE, A_NOBLE, A_PASS, A_RESERVE, A_RESERVE_DECK, A_RETURN, A_TAKE1,
                    A_TAKE2, A_TAKE3, CARD_SIZE, F_BONUS, F_COST, F_POINTS, F_PRESENT, F_TIER, MAX_PLAYERS,
                    MAX_RESERVED, NOBLE_SIZE, NUM_ACTIONS, OBS_BANK, OBS_BOARD, OBS_NOBLES, OBS_SEATS,
                    OBSERVATION_HIGH, OBSERVATION_SIZE, RESERVED_SIZE, S_BONUSES, S_POINTS, S_TOKENS, SEAT_HEAD,
                    SEAT_SIZE, TAKE_GEMS, TOKEN_LIMIT, WINNING_POINTS)

_TAKE_GEMS = TAKE_GEMS.astype(np.int64)  # the compiled code reads int64 tables


# ---------------------------------------------------------------- observation="actions": what each action leaves

# For every action, read off the observer's own observation (nothing hidden): what kind of move it is, the tokens
# it gains or pays, the card it concerns, and the observer's position after it (points, tokens, bonuses, nobles,
# the cards in sight it could then buy). A network otherwise has to work out each card's price against its
# tokens and bonuses through several layers, for all 15 cards in sight, for each of 72 actions.
_ACTION_KINDS = ["take3", "take2", "take1", "double", "reserve", "reserve_deck", "buy", "buy_reserved", "return",
                 "noble", "pass"]
ACTION_FIELDS = ([f"is_{kind}" for kind in _ACTION_KINDS]
                 + [f"tokens_{c}_change" for c in TOKEN_COLORS]  # in threes: -7/3 (a card paid) to 2/3
                 + ["card_tier1", "card_tier2", "card_tier3"]  # a reservation from a deck: the deck's tier
                 + [f"card_bonus_{c}" for c in COLORS]
                 + ["card_points", "card_cost",  # the card bought or reserved: its points (/5), its cost (/14)
                    "points_after", "tokens_after", "tokens_over_limit", "bonuses_after", "noble_now",
                    "nobles_need_after",  # the bonuses all the nobles in sight still need (/25)
                    "affordable_after", "best_affordable_points", "nearest_point_card", "point_card_reach",
                    "opponent_could_buy",  # the next seat could buy the face-up card this action takes
                    "reaches_winning_points", "next_seat_points"])
ACTION_FIELD_COUNT = len(ACTION_FIELDS)  # 40
ACTION_FEATURE_SIZE = NUM_ACTIONS * ACTION_FIELD_COUNT


def _action_field_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Each field's least and greatest value, tiled over the actions (observation="actions"'s Box)."""
    low = np.zeros(ACTION_FIELD_COUNT, dtype=np.float32)
    high = np.ones(ACTION_FIELD_COUNT, dtype=np.float32)
    field = ACTION_FIELDS.index
    # A card of 5 and a noble on top of the most points a seat can show; a return phase's 13 tokens, then 3 more.
    points_high = (OBSERVATION_HIGH[OBS_SEATS + S_POINTS] + 5 + NOBLE_POINTS) / WINNING_POINTS
    for c in TOKEN_COLORS:
        low[field(f"tokens_{c}_change")] = -7 / 3
    high[field("points_after")] = high[field("next_seat_points")] = points_high
    high[field("tokens_after")] = (TOKEN_LIMIT + 6) / TOKEN_LIMIT
    high[field("tokens_over_limit")] = 2
    high[field("bonuses_after")] = NUM_CARDS / 20
    high[field("nobles_need_after")] = (MAX_PLAYERS + 1) * 9 / 25  # a noble needs at most 9 bonuses
    high[field("nearest_point_card")] = 14 / 10  # the dearest card costs 14 tokens
    high[field("point_card_reach")] = _SIGHT * 5 / 20
    return np.tile(low, NUM_ACTIONS), np.tile(high, NUM_ACTIONS)


_SIGHT = 12 + MAX_RESERVED  # the face-up cards, then the observer's reserved ones
_NEXT_SEAT = OBS_SEATS + SEAT_SIZE  # the seats are in turn order from the observer's
_KIND_FIRST = np.array([A_TAKE3, A_TAKE2, A_TAKE1, A_DOUBLE, A_RESERVE, A_RESERVE_DECK, A_BUY, A_BUY_RESERVED,
                        A_RETURN, A_NOBLE, A_PASS])
_ACTION_KIND = np.searchsorted(_KIND_FIRST, np.arange(NUM_ACTIONS), side="right") - 1
(_TOKENS_CHANGE, _CARD_TIER, _CARD_BONUS, _CARD_POINTS, _CARD_COST, _POINTS_AFTER, _TOKENS_AFTER, _OVER_LIMIT,
 _BONUSES_AFTER, _NOBLE_NOW, _NOBLES_NEED, _AFFORDABLE, _BEST_AFFORDABLE, _NEAREST, _REACH, _OPPONENT_COULD_BUY,
 _REACHES_WIN, _NEXT_SEAT_POINTS) = [ACTION_FIELDS.index(name) for name in (
    "tokens_W_change", "card_tier1", "card_bonus_W", "card_points", "card_cost", "points_after", "tokens_after",
    "tokens_over_limit", "bonuses_after", "noble_now", "nobles_need_after", "affordable_after",
    "best_affordable_points", "nearest_point_card", "point_card_reach", "opponent_could_buy",
    "reaches_winning_points", "next_seat_points")]
ACTION_FEATURE_LOW, ACTION_FEATURE_HIGH = _action_field_bounds()


@compiled
def card_start(i):
    """Where card ``i`` of the observer's 15 in sight (12 face-up, then its 3 reserved) starts in the observation
    (the greedy player reads its cards with it too)."""
    if i < 12:
        return OBS_BOARD + i * CARD_SIZE
    return OBS_SEATS + SEAT_HEAD + (i - 12) * RESERVED_SIZE


@compiled
def _tokens_missing(obs, at, bonuses, tokens):
    """The tokens short of buying the card at ``at`` with these bonuses and tokens, after gold is spent."""
    short = 0.0
    for c in range(5):
        short += max(obs[at + F_COST + c] - bonuses[c] - tokens[c], 0.0)
    return max(short - tokens[GOLD], 0.0)


@compiled
def _gains_noble(obs, bonuses):
    """Whether a noble in sight that the observer's bonuses did not satisfy, these bonuses do."""
    for n in range(MAX_PLAYERS + 1):
        at = OBS_NOBLES + n * NOBLE_SIZE
        if obs[at] <= 0:
            continue
        now = True
        before = True
        for c in range(5):
            need = obs[at + 1 + c]
            now = now and need <= bonuses[c]
            before = before and need <= obs[OBS_SEATS + S_BONUSES + c]
        if now and not before:
            return True
    return False


@compiled
def _fill_action_fields(obs, action, out):
    """``out`` (zeros, ACTION_FIELD_COUNT) set to the fields of ``action`` in the position ``obs`` shows."""
    tokens = np.zeros(6)
    bonuses = np.zeros(5)
    for c in range(6):
        tokens[c] = obs[OBS_SEATS + S_TOKENS + c]
    for c in range(5):
        bonuses[c] = obs[OBS_SEATS + S_BONUSES + c]
    before = tokens.copy()
    points = obs[OBS_SEATS + S_POINTS]
    kind = _ACTION_KIND[action]
    out[kind] = 1
    card = -1  # the card in sight the action buys or reserves
    bought = False
    noble_points = 0.0
    if action < A_RESERVE:
        for c in range(5):
            tokens[c] += _TAKE_GEMS[action, c]
    elif action < A_BUY:
        if obs[OBS_BANK + GOLD] > 0:
            tokens[GOLD] += 1
        if action < A_RESERVE_DECK:
            card = action - A_RESERVE
        else:
            out[_CARD_TIER + action - A_RESERVE_DECK] = 1
    elif action < A_RETURN:
        card = action - A_BUY if action < A_BUY_RESERVED else 12 + action - A_BUY_RESERVED
        bought = True
        at = card_start(card)
        gold = 0.0
        for c in range(5):
            price = max(obs[at + F_COST + c] - bonuses[c], 0.0)
            own = min(price, tokens[c])
            tokens[c] -= own
            gold += price - own
        tokens[GOLD] = max(tokens[GOLD] - gold, 0.0)  # short only on an illegal buy
        points += obs[at + F_POINTS]
        for c in range(5):
            if obs[at + F_BONUS + c] > 0:
                bonuses[c] += 1
        if _gains_noble(obs, bonuses):
            noble_points = NOBLE_POINTS
    elif action < A_NOBLE:
        tokens[action - A_RETURN] = max(tokens[action - A_RETURN] - 1, 0.0)  # none to return: an illegal one
    elif action < A_PASS:
        noble_points = NOBLE_POINTS
    points += noble_points
    for c in range(6):
        out[_TOKENS_CHANGE + c] = (tokens[c] - before[c]) / 3
    if card >= 0:
        _fill_card(obs, card, out)
    held = tokens.sum()
    out[_POINTS_AFTER] = points / WINNING_POINTS
    out[_TOKENS_AFTER] = held / TOKEN_LIMIT
    out[_OVER_LIMIT] = max(held - TOKEN_LIMIT, 0.0) / 3
    out[_BONUSES_AFTER] = bonuses.sum() / 20
    out[_NOBLE_NOW] = noble_points / NOBLE_POINTS
    out[_NOBLES_NEED] = _nobles_need(obs, bonuses) / 25
    _fill_cards_in_reach(obs, card if bought else -1, bonuses, tokens, out)
    out[_REACHES_WIN] = points >= WINNING_POINTS
    out[_NEXT_SEAT_POINTS] = obs[_NEXT_SEAT + S_POINTS] / WINNING_POINTS


@compiled
def _fill_card(obs, card, out):
    """The fields of the card bought or reserved, and whether the next seat could have bought it."""
    at = card_start(card)
    for t in range(3):
        out[_CARD_TIER + t] = obs[at + F_TIER + t]
    for c in range(5):
        out[_CARD_BONUS + c] = obs[at + F_BONUS + c]
    out[_CARD_POINTS] = obs[at + F_POINTS] / 5
    cost = 0.0
    for c in range(5):
        cost += obs[at + F_COST + c]
    out[_CARD_COST] = cost / 14
    if card < 12:
        out[_OPPONENT_COULD_BUY] = _tokens_missing(obs, at, obs[_NEXT_SEAT + S_BONUSES:_NEXT_SEAT + S_BONUSES + 5],
                                                   obs[_NEXT_SEAT + S_TOKENS:_NEXT_SEAT + S_TOKENS + 6]) == 0


@compiled
def _nobles_need(obs, bonuses):
    """The bonuses the nobles in sight still need, summed over them."""
    need = 0.0
    for n in range(MAX_PLAYERS + 1):
        at = OBS_NOBLES + n * NOBLE_SIZE
        if obs[at] > 0:
            for c in range(5):
                need += max(obs[at + 1 + c] - bonuses[c], 0.0)
    return need


@compiled
def _fill_cards_in_reach(obs, bought, bonuses, tokens, out):
    """What the cards still in sight cost after the action: how many it could buy, the most points among those,
    the fewest tokens short of a card with points, and the points in sight each weighed by 1 / (1 + tokens short)."""
    affordable = 0
    best = 0.0
    nearest = 10.0
    reach = 0.0
    for i in range(_SIGHT):
        at = card_start(i)
        if i == bought or obs[at + F_PRESENT] <= 0:
            continue
        short = _tokens_missing(obs, at, bonuses, tokens)
        worth = obs[at + F_POINTS]
        if short == 0:
            affordable += 1
            best = max(best, worth)
        if worth > 0:
            nearest = min(nearest, short)
        reach += worth / (short + 1)
    out[_AFFORDABLE] = affordable / _SIGHT
    out[_BEST_AFFORDABLE] = best / 5
    out[_NEAREST] = nearest / 10
    out[_REACH] = reach / 20


@compiled
def _fill_all_action_fields(rows, out):
    for i in range(rows.shape[0]):
        for action in range(NUM_ACTIONS):
            _fill_action_fields(rows[i], action, out[i, action])


def action_features(obs: np.ndarray) -> np.ndarray:
    """The ``ACTION_FIELDS`` of every action for observations ``obs`` (..., OBSERVATION_SIZE): float32
    (..., NUM_ACTIONS * ACTION_FIELD_COUNT), action by action. Illegal actions get their fields too (a buy the
    observer cannot afford shows negative gold): the mask says which count."""
    obs = np.asarray(obs, dtype=np.float32)
    rows = np.ascontiguousarray(obs.reshape(-1, OBSERVATION_SIZE))
    out = np.zeros((len(rows), NUM_ACTIONS, ACTION_FIELD_COUNT), dtype=np.float32)
    _fill_all_action_fields(rows, out)
    return out.reshape(*obs.shape[:-1], ACTION_FEATURE_SIZE)
