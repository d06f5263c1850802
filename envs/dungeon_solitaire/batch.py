"""Dungeon Solitaire's rules over a batch of games: ``rules.py`` with a leading axis of N.

Each function here does, for every game a row mask selects, what the function of the same name in ``rules.py``
does for one game; ``tests/test_vector.py`` plays both side by side. The state is a ``Batch`` of ``rules.State``
(see ``envs/core/vector.py``): ``b.place[i, c]`` is where card c of game i lies, ``b.hp[i]`` game i's hit
points, and so on. Functions change ``b`` in place; ``rows`` are arrays of game indices.
A turn reveals a varying number of cards, so the loops below run until the last of their games is done, each
pass advancing every game still in it.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import RANK, SUIT, shuffled
from . import rules
from .rules import (A_BERSERK, A_DELVE, A_DISARM, A_DISCARD, A_DODGE, A_DRAW, A_FIRST_DROP, A_PICK_LOCK,
                    A_RETREAT, A_TAKE_DAMAGE, ACE, BETWEEN_TURNS, CLUBS, DAMAGE, DECK, DELVE, DIAMONDS, DISCARDS,
                    DODGE_JACK, DOOR_FAILED, DROP_CARDS, DROP_VALUES, ENCOUNTER, ESCAPED, FORFEITED, HAND, JACK,
                    JOKER, KILLED, LOST_IN_THE_DARK, MAX_TORCHES, OVER, QUEEN, RETREAT, SPADES, START, TORCH_ROW,
                    TURN, USED)

_RANK = RANK.astype(np.int64)
_SUIT = SUIT.astype(np.int64)
_NUM_CARD_IDS = len(RANK)
_IS_ENCOUNTER = (_RANK >= 2) & (_RANK <= 10)
_IS_TREASURE = np.array([rules.is_treasure(c) for c in range(_NUM_CARD_IDS)])
_IS_DIAMOND = _SUIT == DIAMONDS
# The skill jack each encounter suit calls for (-1 for hearts, never an encounter).
_SKILL_JACK = np.full(4, -1)
for _suit, _jack in rules.SKILL_FOR_ENCOUNTER.items():
    _SKILL_JACK[_suit] = _jack
_KINGS = np.array([rules.card(rules.KING, suit) for suit in range(4)])
_POINTS = np.zeros(_NUM_CARD_IDS)  # what each card in hand is worth at the end (rules.treasure_points)
_POINTS[_IS_DIAMOND & (_RANK <= 10)] = _RANK[_IS_DIAMOND & (_RANK <= 10)]
_POINTS[_KINGS] = 10
_POINTS[JOKER] = 6


# ---------------------------------------------------------------- setup

def deal(b, rows, rngs, options) -> None:
    """Shuffle each new game's deck with its own generator, as ``rules.new_game`` does (the rest of a new game,
    and a stacked deck, are already in place)."""
    if options.get("deck") is None:
        b.deck[rows, :rules.NUM_DECK_CARDS] = [shuffled(rules.DECK_CARDS, rngs[i]) for i in rows]


# ---------------------------------------------------------------- moving cards

def _move(b, rows, cards, place: int) -> None:
    if not len(rows):
        return
    b.place[rows, cards] = place
    b.arrival[rows, cards] = b.clock[rows]
    b.clock[rows] += 1


def _move_all(b, rows, moving, place: int) -> None:
    """Move the cards ``moving`` (k, cards) marks in each of ``rows`` to ``place``, in card order."""
    if not len(rows):
        return
    order = np.cumsum(moving, axis=1) - 1
    r, c = np.nonzero(moving)
    b.place[rows[r], c] = place
    b.arrival[rows[r], c] = b.clock[rows[r]] + order[r, c]
    b.clock[rows] += moving.sum(axis=1)


def _draw(b, rows) -> np.ndarray:
    """The top card of each game's deck; -1, and lost in the dark, where the deck is empty."""
    empty = b.top[rows] == b.end[rows]
    if empty.any():
        b.torches[rows[empty]] = MAX_TORCHES
        _lose(b, rows[empty], LOST_IN_THE_DARK)
    full = rows[~empty]
    cards = np.full(len(rows), -1)
    cards[~empty] = b.deck[full, b.top[full]]
    b.top[full] += 1
    return cards


def _lose(b, rows, result: int) -> None:
    b.result[rows] = result
    b.stage[rows] = OVER
    b.pending_damage[rows] = 0
    b.pending_discards[rows] = 0


# ---------------------------------------------------------------- torches and the scroll

def _torch_goes_out(b, rows, aces) -> None:
    if not len(rows):
        return
    lit = b.torches[rows] < MAX_TORCHES - 1
    b.torches[rows[lit]] += 1
    _move(b, rows[lit], aces[lit], TORCH_ROW)
    scroll = ~lit & (b.place[rows, JOKER] == HAND)
    saved, under = rows[scroll], aces[scroll]
    _move(b, saved, JOKER, TORCH_ROW)
    b.scroll_used[saved] = True
    b.deck[saved, b.end[saved]] = under
    b.end[saved] += 1
    _move(b, saved, under, DECK)
    dark = ~lit & ~scroll
    b.torches[rows[dark]] = MAX_TORCHES
    _move(b, rows[dark], aces[dark], TORCH_ROW)
    _lose(b, rows[dark], LOST_IN_THE_DARK)


# ---------------------------------------------------------------- a turn

def _reveal(b, rows) -> np.ndarray:
    cards = _draw(b, rows)
    drawn = cards >= 0
    rank = np.where(drawn, _RANK[cards], 0)
    ace, jack = drawn & (rank == ACE), drawn & (rank == JACK)
    other = drawn & ~ace & ~jack
    _torch_goes_out(b, rows[ace], cards[ace])
    _move(b, rows[jack], cards[jack], HAND)
    _move(b, rows[other], cards[other], TURN)
    return np.where(b.stage[rows] != OVER, cards, -1)


class _Turn:
    """What one ``apply`` leaves to be done together: the games whose new turn starts, and those whose turn ends,
    won or not. Starting a turn may end it (a queen's favour); ending one is the last thing that happens to a game
    in an action. So each is done once for all its games, after the actions' other effects."""

    def __init__(self):
        self.starting, self.won, self.lost = [], [], []

    def settle(self, b) -> None:
        if self.starting:
            _start_turn(b, np.concatenate(self.starting), self)
        for found, won in ((self.won, True), (self.lost, False)):
            if found:
                _end_turn(b, np.concatenate(found), won)


def _start_turn(b, rows, turn: _Turn) -> None:
    if not len(rows):
        return
    b.step[rows] = ENCOUNTER
    favor = np.zeros(len(rows), dtype=bool)
    while len(rows):
        cards = _reveal(b, rows)
        going = cards >= 0
        favor |= going & (_RANK[cards] == QUEEN)
        met = going & _IS_ENCOUNTER[cards]
        b.encounter[rows[met]] = cards[met]
        turn.won.append(rows[met & favor])
        going &= ~met
        rows, favor = rows[going], favor[going]


def _reveal_in_encounter(b, rows, turn: _Turn) -> None:
    if not len(rows):
        return
    cards = _reveal(b, rows)
    going = cards >= 0
    turn.won.append(rows[going & (_RANK[cards] == QUEEN)])
    action = going & _IS_ENCOUNTER[cards]
    _action_card(b, rows[action], _RANK[cards[action]], turn)


def _action_card(b, rows, values, turn: _Turn) -> None:
    if not len(rows):
        return
    encounter_value = _RANK[b.encounter[rows]]
    beaten = values >= encounter_value
    turn.won.append(rows[beaten])
    short = encounter_value - values
    door = ~beaten & (_SUIT[b.encounter[rows]] == CLUBS)
    b.pending_discards[rows[door]] = short[door]
    b.step[rows[door]] = DOOR_FAILED
    hit = ~beaten & ~door
    b.pending_damage[rows[hit]] = short[hit]
    b.step[rows[hit]] = DAMAGE


def _after_damage(b, rows, turn: _Turn) -> None:
    if not len(rows):
        return
    trap = _SUIT[b.encounter[rows]] == DIAMONDS
    turn.lost.append(rows[trap])
    b.step[rows[~trap]] = ENCOUNTER


def _discard_from_deck(b, rows, counts) -> None:
    for k in range(int(counts.max(initial=0))):
        going = (counts > k) & (b.stage[rows] != OVER)
        cards = _draw(b, rows[going])
        drawn = cards >= 0
        ace = drawn & (_RANK[np.maximum(cards, 0)] == ACE)
        _torch_goes_out(b, rows[going][ace], cards[ace])
        rest = drawn & ~ace
        _move(b, rows[going][rest], cards[rest], DISCARDS)


def _end_turn(b, rows, won: bool) -> None:
    if not len(rows):
        return
    turn = b.place[rows] == TURN
    if won:
        treasure = turn & _IS_TREASURE
        marker_needed = treasure.sum(axis=1) == turn.sum(axis=1)
        # Ruling: the lowest diamond stays as the turn's marker (card ids rise with rank within a suit).
        diamonds = treasure & _IS_DIAMOND
        marker = diamonds.argmax(axis=1)
        treasure[np.flatnonzero(marker_needed), marker[marker_needed]] = False
        _move_all(b, rows, treasure, HAND)
    _move_all(b, rows, b.place[rows] == TURN, USED)
    b.encounter[rows] = -1
    b.pending_damage[rows] = 0
    b.pending_discards[rows] = 0
    b.step[rows] = BETWEEN_TURNS
    home = (b.stage[rows] == RETREAT) & (b.retreat_turns[rows] == b.delve_turns[rows] - 1)
    _escape(b, rows[home])


def _escape(b, rows) -> None:
    b.result[rows] = ESCAPED
    b.stage[rows] = OVER


# ---------------------------------------------------------------- the player's decisions

def legal_masks(b) -> np.ndarray:
    n = b.stage.shape[0]
    mask = np.zeros((n, rules.NUM_ACTIONS), dtype=bool)
    live = b.stage != OVER
    step = np.where(live, b.step, -1)
    between = step == BETWEEN_TURNS
    mask[:, A_DELVE] = between & (b.stage == DELVE)
    mask[:, A_RETREAT] = mask[:, A_DELVE] & (b.delve_turns >= b.min_delve_turns_before_retreat)
    encounter = step == ENCOUNTER
    mask[:, A_DRAW] = (step == START) | (between & (b.stage == RETREAT)) | encounter
    suit = np.where(encounter, _SUIT[np.maximum(b.encounter, 0)], -1)
    in_hand = b.place == HAND
    mask[:, A_BERSERK] = (suit == SPADES) & in_hand[:, rules.BERSERK_JACK]
    mask[:, A_FIRST_DROP:] = ((suit == SPADES)[:, None] & in_hand[:, DROP_CARDS]
                              & (DROP_VALUES[None, :] >= _RANK[np.maximum(b.encounter, 0)][:, None]))
    mask[:, A_DISARM] = (suit == DIAMONDS) & in_hand[:, rules.DISARM_JACK]
    door_failed = step == DOOR_FAILED
    mask[:, A_PICK_LOCK] = ((suit == CLUBS) | door_failed) & in_hand[:, rules.PICK_LOCK_JACK]
    mask[:, A_DISCARD] = door_failed
    damage = step == DAMAGE
    mask[:, A_TAKE_DAMAGE] = damage
    mask[:, A_DODGE] = damage & in_hand[:, DODGE_JACK]
    return mask


def _delve(b, games, chosen, turn: _Turn) -> None:
    b.delve_turns[games] += 1
    turn.starting.append(games)


def _retreat(b, games, chosen, turn: _Turn) -> None:
    b.stage[games] = RETREAT
    at_once = b.delve_turns[games] == 1  # possible only when retreat is allowed after one turn
    _escape(b, games[at_once])
    b.retreat_turns[games[~at_once]] += 1
    turn.starting.append(games[~at_once])


def _draw_action(b, games, chosen, turn: _Turn) -> None:
    step = b.step[games]
    first, back = games[step == START], games[step == BETWEEN_TURNS]
    b.delve_turns[first] = 1
    b.retreat_turns[back] += 1
    turn.starting += [first, back]
    _reveal_in_encounter(b, games[(step != START) & (step != BETWEEN_TURNS)], turn)


def _use_skill(b, games, chosen, turn: _Turn) -> None:
    _move(b, games, _SKILL_JACK[_SUIT[b.encounter[games]]], TURN)
    turn.won.append(games)


def _discard(b, games, chosen, turn: _Turn) -> None:
    _discard_from_deck(b, games, b.pending_discards[games])
    turn.lost.append(games[b.stage[games] != OVER])


def _dodge(b, games, chosen, turn: _Turn) -> None:
    _move(b, games, DODGE_JACK, USED)
    b.pending_damage[games] = 0
    _after_damage(b, games, turn)


def _take_damage(b, games, chosen, turn: _Turn) -> None:
    b.hp[games] = np.maximum(0, b.hp[games] - b.pending_damage[games])
    b.pending_damage[games] = 0
    killed = b.hp[games] == 0
    _lose(b, games[killed], KILLED)
    _after_damage(b, games[~killed], turn)


def _drop(b, games, chosen, turn: _Turn) -> None:
    # A treasure drop buys off the monster: the fight ends, not won.
    _move(b, games, DROP_CARDS[chosen - A_FIRST_DROP], TURN)
    turn.lost.append(games)


# Each action's handler, by action index (every drop shares one).
_HANDLERS = [_delve, _retreat, _draw_action, _use_skill, _use_skill, _use_skill, _discard, _dodge, _take_damage,
             _drop]
_HANDLER_OF_ACTION = np.array([min(a, len(_HANDLERS) - 1) for a in range(rules.NUM_ACTIONS)])


def apply(b, actions, rows, rngs=None) -> None:
    """Every game ``rows`` (a bool mask) selects takes its action, which must be legal. Each kind of action is
    handled once for all the games taking it. No randomness after the shuffle: ``rngs`` is accepted for the
    common signature."""
    games = np.flatnonzero(rows)
    chosen = actions[games]
    handler = _HANDLER_OF_ACTION[chosen]
    turn = _Turn()
    for kind in np.unique(handler):
        taking = handler == kind
        _HANDLERS[kind](b, games[taking], chosen[taking], turn)
    turn.settle(b)


def forfeit(b, rows) -> None:
    _lose(b, np.flatnonzero(rows), FORFEITED)


# ---------------------------------------------------------------- end and score

def is_over(b) -> np.ndarray:
    return b.stage == OVER


def outcome(b, rows) -> dict:
    """``rules.outcome`` of each game ``rows`` selects, as arrays."""
    hand = b.place[rows] == HAND
    escaped = b.result[rows] == ESCAPED
    kings = hand[:, _KINGS].sum(axis=1)
    return {
        "won": escaped & (kings == 4),
        "score": np.where(escaped, (hand * _POINTS).sum(axis=1), 0.0),
        "kings": kings,
        "result": np.array(rules.RESULT_NAMES)[b.result[rows]],
    }


# ---------------------------------------------------------------- what the player sees

_PLACE_FLAGS = rules._PLACE_FLAGS
_CARD_BLOCK = rules._CARD_BLOCK
_DECK_ACES = rules._DECK_ACES
_RANK_COLUMNS = rules._RANK_COLUMNS


def observe(b) -> np.ndarray:
    n = b.stage.shape[0]
    obs = np.zeros((n, rules.OBSERVATION_SIZE), dtype=np.float32)
    places = b.place[:, rules.DECK_CARDS]
    obs[:, :_CARD_BLOCK] = _PLACE_FLAGS[places].reshape(n, -1)
    in_deck = places == DECK
    scroll = b.scroll_used.astype(bool)
    i = _CARD_BLOCK
    obs[:, i] = scroll & np.any(in_deck & _DECK_ACES, axis=1)
    obs[np.arange(n), i + 1 + b.stage] = 1
    obs[np.arange(n), i + 4 + b.step] = 1
    i += 9
    retreat_left = np.where(b.stage == RETREAT, b.delve_turns - 1 - b.retreat_turns, 0)
    met = b.encounter >= 0
    suit = np.where(met, _SUIT[np.maximum(b.encounter, 0)], -1)
    obs[:, i:i + 13] = np.stack([
        b.hp, b.torches, scroll, b.delve_turns, b.retreat_turns, np.maximum(0, retreat_left),
        suit == SPADES, suit == DIAMONDS, suit == CLUBS, np.where(met, _RANK[np.maximum(b.encounter, 0)], 0),
        b.pending_damage, b.pending_discards, b.end - b.top,
    ], axis=1)
    i += 13
    unseen = in_deck & ~(scroll[:, None] & _DECK_ACES)
    # einsum, not @: a matrix product would call BLAS, whose threads fight the other processes for the cores
    obs[:, i:i + 14] = np.einsum("nc,cr->nr", unseen.astype(np.float32), _RANK_COLUMNS)
    return obs
