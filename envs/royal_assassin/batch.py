"""Royal Assassin's rules over a batch of games: ``rules.py`` with a leading axis of N.

``rules.py`` is the source of truth; each function here does, for every game selected, what the function of the
same name there does for one game, with the same side effects on every field of the state (``tests/test_vector.py``
plays both side by side and compares the full states). The state is a ``Batch`` of ``rules.State`` (see
``envs/core/vector.py``): ``b.place[i, c]`` is where card c of game i lies, ``b.reserve[i, :b.reserve_size[i]]``
game i's reserve bottom first, ``b.attack[i, column, level]`` the attack cards on a face card, and so on.
Functions change ``b`` in place; ``rows`` are arrays of game indices, ``columns`` and ``levels`` one per row.

The only randomness is the shuffle of a new game (``deal``, a game at a time with its own generator, as the scalar
code draws it); play uses no ``rngs``. The only loops are where the rules loop: dealing again a deck that never
ends setup, turning cards until a number card, the automatic defence from the reserve, and the joker's
whole-column kill; each pass advances every game still in it.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import shuffled
from . import rules
from .rules import (A_ASSASSIN, A_ATTACK, A_PASS, ATTACK, COLUMN, CONTINUE, DECK, DEFENSE, DISCARD, DRAW, FACE_CARDS,
                    FORFEITED, IN_PLAY, LOST, MAX_FACES, MAX_RESERVE, NO_CARD, NUM_ACTIONS, NUM_CARDS, OVER, RESERVE,
                    WON)

# Lookups by card id with one entry more, so that NO_CARD (-1) indexes a harmless last entry: no suit, value 0.
_SUIT = np.append(rules.SUIT[:NUM_CARDS].astype(np.int64), NO_CARD)
_VALUE = np.append(rules.VALUE.astype(np.int64), 0)
_IS_FACE = np.append(rules.IS_FACE, False)
_IS_ACE = np.append(rules.RANK[:NUM_CARDS] == rules.ACE, False)
# Row s: the columns a card of suit s may attack (those of the other colour); the last row (no card) none.
_TARGETS = np.zeros((5, 4), dtype=bool)
for _suit, _columns in enumerate(rules.TARGETS):
    _TARGETS[_suit, list(_columns)] = True
_COLUMNS = np.arange(4)
# Index column c: the set of that column alone, as a row of 4 bools; index -1 (none): the empty set.
_COLUMN_SETS = np.vstack([np.eye(4, dtype=bool), np.zeros(4, dtype=bool)])
# Index joker: where the joker may be put, every column while it is free (-1), none while it sits on one.
_ALL_COLUMNS = np.vstack([np.zeros((4, 4), dtype=bool), np.ones(4, dtype=bool)])
_LEVELS = np.arange(MAX_FACES)


# ---------------------------------------------------------------- setup

_CARDS = np.arange(NUM_CARDS, dtype=np.int8)
_POSITIONS = np.arange(NUM_CARDS)
_NEW_TABLE = rules.State(_CARDS)  # a table before setup (its deck is replaced)


def deal(b, rows, rngs, options) -> None:
    """New games in ``rows`` (indices), as ``rules.new_game`` deals them: each deck shuffled with the game's own
    generator, shuffled again (from the same generator) while it never ends setup. A stacked deck is already dealt:
    the env put the one game it gives in every row."""
    if options.get("deck") is not None:
        return
    while len(rows):
        b.put_same(rows, _NEW_TABLE)
        b.deck[rows] = [shuffled(_CARDS, rngs[i]) for i in rows]
        rows = rows[~_set_up(b, rows)]  # about one deal in two million


def _set_up(b, rows) -> np.ndarray:
    """``rules._deal`` on each row's deck: turn cards onto the reserve and the columns until the card that ends
    setup, which comes into play. Which rows it ended in (the others are left untouched)."""
    deck = b.deck[rows]
    face = _IS_FACE[deck]
    faces_out = np.cumsum(face, axis=1) - face  # face cards on the table when each card is turned
    ends = ~face & ~_IS_ACE[deck] & (_VALUE[deck] <= faces_out)
    ended = ends.any(axis=1)
    rows, deck, face, last = rows[ended], deck[ended], face[ended], ends[ended].argmax(axis=1)
    turned = _POSITIONS < last[:, None]
    # Number cards (aces too) onto the reserve, in the order turned.
    kept = turned & ~face
    g, j = np.nonzero(kept)
    b.reserve[rows[g], (np.cumsum(kept, axis=1) - 1)[g, j]] = deck[g, j]
    b.reserve_size[rows] = kept.sum(axis=1)
    b.place[rows[g], deck[g, j]] = RESERVE
    # Face cards into their suit's column, in the order turned: each one's slot is the number of face cards of its
    # column turned before it (a stable sort by column keeps each column's cards in the order turned).
    g, j = np.nonzero(turned & face)
    cards = deck[g, j]
    column = g * 4 + _SUIT[cards]  # the column among all the games' columns
    by_column = np.argsort(column, kind="stable")
    slot = np.empty_like(by_column)
    slot[by_column] = np.arange(len(column)) - np.searchsorted(column[by_column], column[by_column])
    b.faces[rows[g], _SUIT[cards], slot] = cards
    b.num_faces[rows] = np.bincount(column, minlength=4 * len(rows)).reshape(-1, 4)
    b.place[rows[g], cards] = COLUMN
    # Ruling: the card that ends setup is the first card of play.
    in_play = deck[np.arange(len(rows)), last]
    b.in_play[rows] = in_play
    b.place[rows, in_play] = IN_PLAY
    b.top[rows] = last + 1
    return ended


# ---------------------------------------------------------------- moving cards

def _reserve_top(b, rows) -> np.ndarray:
    size = b.reserve_size[rows]
    return np.where(size > 0, b.reserve[rows, size - 1], NO_CARD)


def _push_reserve(b, rows, cards) -> None:
    if not len(rows):
        return
    b.reserve[rows, b.reserve_size[rows]] = cards
    b.reserve_size[rows] += 1
    b.place[rows, cards] = RESERVE


def _pop_reserve(b, rows) -> np.ndarray:
    b.reserve_size[rows] -= 1
    size = b.reserve_size[rows]
    cards = b.reserve[rows, size]
    b.reserve[rows, size] = NO_CARD
    return cards


def _to_discard(b, rows, cards) -> None:
    """Each row's cards (a (k, m) array, NO_CARD where none) go to its discard, in order along the row. (A stack
    holds its cards in its first slots and NO_CARD after them, as the scalar state does, so the cards present are
    the ones the scalar code counts.)"""
    g, j = np.nonzero(cards >= 0)  # row by row, in order along each row
    counts = np.bincount(g, minlength=len(rows))
    order = np.arange(len(g)) - (np.cumsum(counts) - counts)[g]  # each card's rank among its row's
    games, discarded = rows[g], cards[g, j]
    b.discard[games, b.discard_size[games] + order] = discarded
    b.place[games, discarded] = DISCARD
    b.discard_size[rows] += counts


def _join_column(b, rows, cards) -> None:
    """A face card joins its suit's column and becomes the pretender (attacks on older ones stay buried)."""
    if not len(rows):
        return
    columns = _SUIT[cards]
    slots = b.num_faces[rows, columns]
    b.faces[rows, columns, slots] = cards
    b.num_faces[rows, columns] = slots + 1
    b.place[rows, cards] = COLUMN


def _place_attack(b, rows, columns, cards) -> None:
    levels = b.num_faces[rows, columns] - 1
    b.attack[rows, columns, levels, b.num_attack[rows, columns, levels]] = cards
    b.num_attack[rows, columns, levels] += 1
    b.attack_total[rows, columns, levels] += _VALUE[cards]
    b.place[rows, cards] = ATTACK
    b.lock[rows, columns] = _SUIT[cards]


def _place_defense(b, rows, columns, levels, cards) -> None:
    b.defense[rows, columns, levels, b.num_defense[rows, columns, levels]] = cards
    b.num_defense[rows, columns, levels] += 1
    b.defense_total[rows, columns, levels] += _VALUE[cards]
    b.place[rows, cards] = DEFENSE


def _clear_stacks(b, rows, columns, levels) -> None:
    """The attack cards, then the defence cards, lying on one face card go to the discard."""
    if not len(rows):
        return
    _to_discard(b, rows, np.concatenate([b.attack[rows, columns, levels], b.defense[rows, columns, levels]], axis=1))
    _empty_stacks(b, rows, columns, levels)


def _empty_stacks(b, rows, columns, levels) -> None:
    b.attack[rows, columns, levels] = NO_CARD
    b.defense[rows, columns, levels] = NO_CARD
    b.num_attack[rows, columns, levels] = 0
    b.num_defense[rows, columns, levels] = 0
    b.attack_total[rows, columns, levels] = 0
    b.defense_total[rows, columns, levels] = 0


def _update_lock(b, rows, columns) -> None:
    """The lock ends when no attack card is left in the column (buried ones keep it): it is the suit of the
    attack on the newest face card that has one."""
    if not len(rows):
        return
    attacked = (b.num_attack[rows, columns] > 0) & (_LEVELS < b.num_faces[rows, columns][:, None])
    newest = MAX_FACES - 1 - attacked[:, ::-1].argmax(axis=1)
    suit = _SUIT[b.attack[rows, columns, newest, 0]]
    b.lock[rows, columns] = np.where(attacked.any(axis=1), suit, NO_CARD)


def _end(b, rows, result: int) -> None:
    b.result[rows] = result
    b.decision[rows] = OVER
    b.target[rows] = NO_CARD


# ---------------------------------------------------------------- play: turn the top card

def _turn_next_card(b, rows) -> None:
    """The last card is fully resolved: turn cards until a number card (a decision) or lose on an empty deck."""
    if not len(rows):
        return
    b.in_play[rows] = NO_CARD
    b.target[rows] = NO_CARD
    while len(rows):
        top = b.top[rows]
        empty = top >= NUM_CARDS
        if empty.any():
            _end(b, rows[empty], LOST)
            rows, top = rows[~empty], top[~empty]
        cards = b.deck[rows, top]
        b.top[rows] = top + 1
        face = _IS_FACE[cards]
        drawn, number = rows[~face], cards[~face]  # rule 2: a number card, the player decides
        b.in_play[drawn] = number
        b.place[drawn, number] = IN_PLAY
        b.decision[drawn] = DRAW
        rows = rows[face]
        _join_column(b, rows, cards[face])  # rule 1: a face card joins its column, and the next card is turned


# ---------------------------------------------------------------- the player's decisions

def legal_masks(b) -> np.ndarray:
    """Which actions the rules allow in each game (all False once it is over)."""
    decision, lock, num_faces = b.decision, b.lock, b.num_faces  # (each read of a view of some rows is a copy)
    mask = np.zeros((len(decision), NUM_ACTIONS), dtype=bool)
    mask[:, A_PASS] = decision != OVER
    # A continuation attacks the same column again, with the reserve's top card.
    attack = _COLUMN_SETS.take(np.where(decision == CONTINUE, b.target, NO_CARD), axis=0)
    # A drawn card attacks a pretender of the other colour, within the locks.
    suit = np.where(decision == DRAW, _SUIT.take(b.in_play), NO_CARD)
    targets = _TARGETS.take(suit, axis=0)
    own_lock = lock == suit[:, None]
    held = targets & own_lock
    holding = held.view(np.uint32)[:, 0] != 0  # any of the 4 columns (a row of 4 bools read as one word)
    columns = targets & (own_lock | ~holding[:, None])  # a lock held keeps the suit on its column
    attack |= columns & (num_faces > 0) & ((lock == NO_CARD) | own_lock)
    mask[:, A_ATTACK:A_ATTACK + 4] = attack
    mask[:, A_ASSASSIN:A_ASSASSIN + 4] = attack & (num_faces >= 2) & _ALL_COLUMNS.take(b.joker, axis=0)
    return mask


def apply(b, actions, rows, rngs=None) -> None:
    """Every game ``rows`` (a bool mask) selects takes its action, which must be legal. No randomness after the
    deal: ``rngs`` is accepted for the common signature."""
    chosen = np.where(rows, actions, -1)

    passing = np.flatnonzero(chosen == A_PASS)
    drawn = passing[b.decision[passing] == DRAW]
    _push_reserve(b, drawn, b.in_play[drawn])  # the drawn card goes onto the reserve; nothing else happens
    _turn_next_card(b, passing)                # (a stopped continuation leaves the reserve as it is)

    attacking = np.flatnonzero((chosen >= A_ATTACK) & (chosen < A_PASS))
    if not len(attacking):
        return
    action = chosen[attacking]
    assassin = action >= A_ASSASSIN
    columns = np.where(assassin, action - A_ASSASSIN, action - A_ATTACK)
    cards = b.in_play[attacking]
    _pop_reserve(b, attacking[b.decision[attacking] == CONTINUE])
    b.in_play[attacking] = NO_CARD
    _place_attack(b, attacking, columns, cards)
    b.joker[attacking[assassin]] = columns[assassin]
    _resolve(b, attacking, columns, _SUIT[cards])


# ---------------------------------------------------------------- resolving an attack

def _resolve(b, rows, columns, attackers) -> None:
    """Rule 3, after an attack card of suit ``attackers`` was placed on each row's column's pretender."""
    levels = b.num_faces[rows, columns].astype(np.int64) - 1
    over = rows[:0]  # games whose attack is over after a kill: the next card is turned
    # a. Kill check, before any defence.
    killed = (b.attack_total[rows, columns, levels] - b.defense_total[rows, columns, levels]
              >= _VALUE[b.faces[rows, columns, levels]])
    if killed.any():
        dead = np.flatnonzero(killed)
        _kill_pretender(b, rows[dead], columns[dead])
        won = ~b.num_faces[rows[dead]].any(axis=1)
        _end(b, rows[dead[won]], WON)
        levels[dead] = b.num_faces[rows[dead], columns[dead]] - 1
        # The uncovered face card goes on at b if it has a buried attack (of this suit, the column's lock);
        # with no face card uncovered, or one with no attack on it, the attack is over.
        buried = levels[dead] >= 0
        buried[buried] = b.num_attack[rows[dead[buried]], columns[dead[buried]], levels[dead[buried]]] > 0
        over = rows[dead[~won & ~buried]]
        going = ~killed
        going[dead[buried]] = True
        rows, columns, levels, attackers = rows[going], columns[going], levels[going], attackers[going]
    _defend(b, rows, columns, levels)
    # c. Wipe: defence equal to or above the attack clears the pretender's attack and defence.
    wiped = b.defense_total[rows, columns, levels] >= b.attack_total[rows, columns, levels]
    _clear_stacks(b, rows[wiped], columns[wiped], levels[wiped])
    _update_lock(b, rows[wiped], columns[wiped])
    # d. Continue: a reserve top of the attacking suit may attack the pretender again.
    top = _reserve_top(b, rows)
    offered = ~wiped & (_SUIT[top] == attackers)
    continuing = rows[offered]
    b.decision[continuing] = CONTINUE
    b.in_play[continuing] = top[offered]
    b.target[continuing] = columns[offered]
    _turn_next_card(b, np.concatenate([over, rows[~offered]]))


def _defend(b, rows, columns, levels) -> None:
    """b. Defence: the reserve's top card of the pretender's suit defends while defence < attack."""
    while len(rows):
        top = _reserve_top(b, rows)
        defending = ((_SUIT[top] == columns)
                     & (b.defense_total[rows, columns, levels] < b.attack_total[rows, columns, levels]))
        rows, columns, levels = rows[defending], columns[defending], levels[defending]
        if not len(rows):
            return
        _place_defense(b, rows, columns, levels, _pop_reserve(b, rows))


def _kill_pretender(b, rows, columns) -> None:
    """The pretender dies with its attack and defence cards; with the joker there, the whole column dies."""
    whole = b.joker[rows] == columns
    _kill_face(b, rows, columns)
    assassinated, their_columns = rows[whole], columns[whole]
    b.joker[assassinated] = NO_CARD  # the Royal Assassin comes back free
    while len(assassinated):  # the column dies from the pretender down to its oldest face card
        left = b.num_faces[assassinated, their_columns] > 0
        assassinated, their_columns = assassinated[left], their_columns[left]
        _kill_face(b, assassinated, their_columns)
    _update_lock(b, rows, columns)


def _kill_face(b, rows, columns) -> None:
    """The pretender of each row's column, then its attack cards, then its defence cards go to the discard."""
    if not len(rows):
        return
    levels = b.num_faces[rows, columns] - 1
    _to_discard(b, rows, np.concatenate([b.faces[rows, columns, levels][:, None], b.attack[rows, columns, levels],
                                         b.defense[rows, columns, levels]], axis=1))
    _empty_stacks(b, rows, columns, levels)
    b.faces[rows, columns, levels] = NO_CARD
    b.num_faces[rows, columns] -= 1


# ---------------------------------------------------------------- forfeit, end, score

def forfeit(b, rows) -> None:
    """The games lost by an illegal action (the card in play, if any, stays where it was)."""
    _end(b, np.flatnonzero(rows), FORFEITED)


def is_over(b) -> np.ndarray:
    return b.decision == OVER


def outcome(b, rows) -> dict:
    """``rules.outcome`` of each game ``rows`` selects, as arrays."""
    won = b.result[rows] == WON
    return {
        "won": won,
        "score": np.where(won, NUM_CARDS - b.top[rows], 0),
        "kills": np.count_nonzero(b.place[rows][:, FACE_CARDS] == DISCARD, axis=1),
        "result": np.array(rules.RESULT_NAMES)[b.result[rows]],
    }


# ---------------------------------------------------------------- what the player sees

# Speed notes (observe runs on every game at every step): gathers go through ``take`` with intp indices, whose
# output is row-major (a fancy-indexed column gather comes out column-major and stores several times slower), and
# small tables are looked up rather than broadcast-compared along a short last axis (numpy's inner loop runs along
# the last axis, so a last axis of 3 to 6 costs a loop per few elements).
_OBSERVATION_SIZE = rules.OBSERVATION_SIZE
_DEPTH_START = rules._DEPTH_START
_COLUMNS_START = rules._COLUMNS_START
_GLOBAL_START = rules._GLOBAL_START
_UNSEEN_START = rules._UNSEEN_START
_FACES_END = len(FACE_CARDS) * len(rules._FACE_PLACES)  # the place block: face cards' flags, then number cards'
_FACE_IDS = FACE_CARDS.astype(np.intp)
_NUMBER_IDS = rules.NUMBER_CARDS.astype(np.intp)
# Row p: the flags a card lying at place p shows (its kind's places only).
_FACE_FLAGS = (np.arange(len(rules.PLACE_NAMES))[:, None] == rules._FACE_PLACES).astype(np.uint8)
_NUMBER_FLAGS = (np.arange(len(rules.PLACE_NAMES))[:, None] == rules._NUMBER_PLACES).astype(np.uint8)
# Index card + 1: the cell of a number card's reserve depth. An empty reserve slot (NO_CARD) writes its junk into
# the first cell of the columns block, which is written after the depths, so every slot can be written at once.
_DEPTH_CELL = np.append(_COLUMNS_START, np.where(rules._DEPTH_SLOT >= 0, rules._DEPTH_SLOT, _COLUMNS_START))
_SLOT_DEPTHS = np.arange(MAX_RESERVE, dtype=np.float32)
# A card id is suit * 13 + rank - 1, so the deck flags viewed as (suit, rank) give the unseen counts.
assert np.array_equal(rules.card(rules.RANK[:NUM_CARDS], rules.SUIT[:NUM_CARDS]), np.arange(NUM_CARDS))
_ONE_HOT = np.vstack([np.eye(4, dtype=np.float32), np.zeros(4, dtype=np.float32)])  # index -1 (none): all 0


def observe(b) -> np.ndarray:
    """``rules.observe`` of every game: (n, OBSERVATION_SIZE) float32."""
    n = len(b.decision)
    obs = np.zeros((n, _OBSERVATION_SIZE), dtype=np.float32)
    place = b.place.astype(np.intp)
    obs[:, :_FACES_END] = _FACE_FLAGS.take(place.take(_FACE_IDS, axis=1), axis=0).reshape(n, -1)
    obs[:, _FACES_END:_DEPTH_START] = _NUMBER_FLAGS.take(place.take(_NUMBER_IDS, axis=1), axis=0).reshape(n, -1)
    size = b.reserve_size
    cells = (np.arange(0, n * _OBSERVATION_SIZE, _OBSERVATION_SIZE)[:, None]
             + _DEPTH_CELL.take(b.reserve.astype(np.intp) + 1))
    obs.reshape(-1)[cells] = size.astype(np.float32)[:, None] - _SLOT_DEPTHS  # the top is at depth 1
    _column_fields(b, obs[:, _COLUMNS_START:_GLOBAL_START].reshape(n, 4, -1))
    i = _GLOBAL_START
    obs[:, i] = b.joker < 0
    obs[:, i + 1] = b.decision == DRAW
    obs[:, i + 2] = b.decision == CONTINUE
    obs[:, i + 3] = _VALUE.take(b.in_play)
    obs[:, i + 4:i + 8] = _ONE_HOT.take(_SUIT.take(b.in_play), axis=0)
    obs[:, i + 8] = NUM_CARDS - b.top
    obs[:, i + 9] = size
    obs[:, i + 10] = b.discard_size
    obs[:, i + 11] = b.num_faces.sum(axis=1)
    # Unseen cards by rank and by suit: sums over the deck flags laid out (suit, rank, game), along the long games
    # axis. (Not a product with a table: that would call BLAS, whose threads fight other processes for the cores.)
    unseen = np.ascontiguousarray((b.place == DECK).T).view(np.uint8).reshape(4, 13, n)
    obs[:, _UNSEEN_START:_UNSEEN_START + 13] = (unseen[0] + unseen[1] + unseen[2] + unseen[3]).T
    obs[:, _UNSEEN_START + 13:] = unseen.sum(axis=1, dtype=np.uint8).T
    return obs


def _column_fields(b, fields) -> None:
    """Per column, into ``fields`` (n, 4, 19): face count; each face card's value, attack and defence totals;
    the pretender's value, attack, defence and shortfall; the lock (one-hot) and the joker. An empty column's
    pretender fields come out 0 on their own: its slot 0 holds no card and zero totals."""
    num_faces = b.num_faces
    values = _VALUE.take(b.faces.astype(np.intp))
    fields[:, :, 0] = num_faces
    fields[:, :, 1:4] = values
    fields[:, :, 4:7] = b.attack_total
    fields[:, :, 7:10] = b.defense_total
    # The pretender's slot in each (game, column, slot) array, as a flat index.
    pretender = np.arange(0, values.size, MAX_FACES).reshape(num_faces.shape) + np.maximum(num_faces - 1, 0)
    value = values.reshape(-1).take(pretender)
    hit = b.attack_total.reshape(-1).take(pretender)
    held = b.defense_total.reshape(-1).take(pretender)
    fields[:, :, 10] = value
    fields[:, :, 11] = hit
    fields[:, :, 12] = held
    fields[:, :, 13] = value - hit + held
    fields[:, :, 14:18] = _ONE_HOT.take(b.lock.astype(np.intp), axis=0)
    fields[:, :, 18] = _ONE_HOT.take(b.joker, axis=0)
