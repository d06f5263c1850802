"""Dead Center's rules over a batch of games: ``rules.py`` with a leading axis of N.

``rules.py`` is the source of truth; each function here does, for every game a row mask selects, what the
function of the same name there does for one game, and ``tests/test_vector.py`` plays both side by side. The
state is a ``Batch`` of ``rules.State`` (see ``envs/core/vector.py``): ``b.pile_top[i, p]`` is the top card of
pile p in game i, ``b.slot_state[i, s]`` the state of slot s, ``b.place[i, c]`` where card c lies, and so on.
Functions change ``b`` in place; helpers take ``rows``, arrays of game indices.

A turn draws at most one card and the game has no randomness after the deal, so nothing here loops over
games or draws from their generators. The geometry (which piles attack and support which slot) is held in
arrays built at import, so that the killable zombies of every game are a few table lookups.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import JOKERS
from . import rules
from .rules import (A_KILL, A_PLAY, DEAD, DECK, DECK_EMPTY, DOWN, DRAWN, FACE_DOWN, FACE_UP, FORFEITED, KILL,
                    KILLED, NUM_CARD_IDS, NUM_PILES, NUM_SLOTS, OVER, PLAY, REVEAL, UNPLAYABLE, UP, WON)

# ---------------------------------------------------------------- geometry and card tables

# The two support piles of each slot, as separate columns for fancy indexing.
_SUPPORT_A = rules.SUPPORT_PILES[:, 0].astype(np.intp)
_SUPPORT_B = rules.SUPPORT_PILES[:, 1].astype(np.intp)
# _ATTACKS[p, s]: pile p attacks slot s (two slots for a corner, one for an edge pile, none for the centre).
_ATTACKS = np.zeros((NUM_PILES, NUM_SLOTS), dtype=bool)
_ATTACKS[rules.ATTACK_PILE, np.arange(NUM_SLOTS)] = True

# CAN_KILL flattened, so that one lookup takes one index array: (zombie, a, b) -> zombie * 54² + a * 54 + b.
_CAN_KILL = rules.CAN_KILL.ravel()
_ZOMBIE_STRIDE = NUM_CARD_IDS * NUM_CARD_IDS
# A slot's kill index for each (card, support) part; adding the three parts gives the flat index.
_ZOMBIE_PART = np.arange(NUM_CARD_IDS, dtype=np.intp) * _ZOMBIE_STRIDE
_SUPPORT_A_PART = np.arange(NUM_CARD_IDS, dtype=np.intp) * NUM_CARD_IDS
_ACCEPTS = rules.ACCEPTS

_RESULT_NAMES = np.array(rules.RESULT_NAMES)
# Where a new game's shuffled number cards go: the first nine to piles 0-8, the rest to the draw pile.
_DEALT_PLACES = np.array([*range(NUM_PILES)] + [DECK] * (rules.MAX_DECK), dtype=np.int8)


# ---------------------------------------------------------------- setup

def deal(b, rows, rngs, options) -> None:
    """Shuffle each new game's cards with its own generator, as ``rules.new_game`` does: the number cards and the
    game's jokers (sorted, then shuffled), then the zombies. The rest of a new game, and a stacked deck, are
    already in place (``TabletopVectorEnv._deal`` puts one new game in every row first)."""
    if options.get("deck") is not None or not len(rows):
        return
    # Every row of a batch has the same jokers option; ``shuffled`` sorts, then shuffles with the row's generator.
    cards = np.sort(np.concatenate([rules.NUMBER_CARDS, np.array(JOKERS[:b.jokers[rows[0]]], dtype=np.int8)]))
    numbers = np.tile(cards, (len(rows), 1))
    zombies = np.tile(np.sort(rules.ZOMBIE_CARDS), (len(rows), 1))
    for k, i in enumerate(rows):
        rngs[i].shuffle(numbers[k])
        rngs[i].shuffle(zombies[k])
    b.pile_top[rows] = numbers[:, :NUM_PILES]
    b.slot_card[rows] = zombies
    b.deck[rows, :cards.size - NUM_PILES] = numbers[:, NUM_PILES:]
    b.place[rows[:, None], numbers] = _DEALT_PLACES[:cards.size]


# ---------------------------------------------------------------- a turn

def _killable(b, rows) -> np.ndarray:
    """(len(rows), 12): the face-up zombies of each game whose support piles' top cards kill them (from whichever
    pile; ``_ATTACKS`` narrows it to the pile played)."""
    tops = b.pile_top[rows]
    at = (_ZOMBIE_PART[b.slot_card[rows]] + _SUPPORT_A_PART[tops[:, _SUPPORT_A]] + tops[:, _SUPPORT_B])
    return _CAN_KILL[at] & (b.slot_state[rows] == UP)


def _start_turn(b, rows) -> None:
    """Step 1 waits for the player while a zombie is face down; otherwise straight to the draw."""
    if not len(rows):
        return
    b.played[rows] = -1
    waiting = b.face_down[rows] > 0
    b.phase[rows[waiting]] = REVEAL
    _draw(b, rows[~waiting])


def _draw(b, rows) -> None:
    """Step 2 begins: the top card is drawn and shown. An empty pile, or a card no pile takes, loses."""
    if not len(rows):
        return
    top = b.top[rows]
    empty = top == b.end[rows]
    if empty.any():  # rare, like the unplayable card below: looked for before any work is done on it
        _end(b, rows[empty], DECK_EMPTY)
        rows, top = rows[~empty], top[~empty]
    cards = b.deck[rows, top]
    b.top[rows] = top + 1
    b.drawn[rows] = cards
    b.place[rows, cards] = DRAWN
    fits = _ACCEPTS[cards[:, None], b.pile_top[rows]].any(axis=1)
    b.phase[rows] = PLAY
    if not fits.all():
        _end(b, rows[~fits], UNPLAYABLE)


def _end(b, rows, result: int) -> None:
    b.result[rows] = result
    b.phase[rows] = OVER


def _reveal(b, rows, slots) -> None:
    if not len(rows):
        return
    b.slot_state[rows, slots] = UP
    b.place[rows, b.slot_card[rows, slots]] = FACE_UP
    b.face_down[rows] -= 1
    _draw(b, rows)


def _play(b, rows, piles) -> None:
    if not len(rows):
        return
    cards = b.drawn[rows]
    b.pile_top[rows, piles] = cards
    b.pile_size[rows, piles] += 1
    b.place[rows, cards] = piles
    b.drawn[rows] = -1
    b.played[rows] = piles
    kill = (_killable(b, rows) & _ATTACKS[piles]).any(axis=1)
    b.phase[rows[kill]] = KILL
    rows = rows[~kill]
    b.turn[rows] += 1
    _start_turn(b, rows)


def _kill(b, rows, slots) -> None:
    if not len(rows):
        return
    b.slot_state[rows, slots] = DEAD
    b.place[rows, b.slot_card[rows, slots]] = KILLED
    b.kills[rows] += 1
    won = b.kills[rows] == NUM_SLOTS
    if won.any():
        b.played[rows[won]] = -1
        _end(b, rows[won], WON)
        rows = rows[~won]
    b.turn[rows] += 1
    _start_turn(b, rows)


def apply(b, actions, rows, rngs=None) -> None:
    """Every game ``rows`` (a bool mask) selects takes its action, which must be legal. No randomness after the
    deal: ``rngs`` is accepted for the common signature."""
    taking = np.flatnonzero(rows)
    chosen = actions[taking]
    reveal = chosen < A_PLAY
    _reveal(b, taking[reveal], chosen[reveal])
    play = ~reveal & (chosen < A_KILL)
    _play(b, taking[play], chosen[play] - A_PLAY)
    kill = chosen >= A_KILL
    _kill(b, taking[kill], chosen[kill] - A_KILL)


# ---------------------------------------------------------------- the player's decisions

def legal_masks(b) -> np.ndarray:
    """(N, 33): which actions the rules allow in each game (all False once it is over)."""
    n = b.phase.shape[0]
    mask = np.zeros((n, rules.NUM_ACTIONS), dtype=bool)
    phase = b.phase
    reveal = np.flatnonzero(phase == REVEAL)
    mask[reveal, :A_PLAY] = b.slot_state[reveal] == DOWN
    play = np.flatnonzero(phase == PLAY)
    mask[play, A_PLAY:A_KILL] = _ACCEPTS[b.drawn[play, None], b.pile_top[play]]
    kill = np.flatnonzero(phase == KILL)
    if len(kill):
        mask[kill, A_KILL:] = _killable(b, kill) & _ATTACKS[b.played[kill]]
    return mask


def forfeit(b, rows) -> None:
    _end(b, np.flatnonzero(rows), FORFEITED)


# ---------------------------------------------------------------- end and score

def is_over(b) -> np.ndarray:
    return b.phase == OVER


def outcome(b, rows) -> dict:
    """``rules.outcome`` of each game ``rows`` selects, as arrays."""
    won = b.result[rows] == WON
    return {
        "won": won,
        "score": np.where(won, b.end[rows] - b.top[rows], 0),
        "kills": b.kills[rows],
        "result": _RESULT_NAMES[b.result[rows]],
        "turn": b.turn[rows],
    }


# ---------------------------------------------------------------- what the player sees

_CARD_FEATURES = rules._CARD_FEATURES      # row -1: no card
# A slot's features by slot state * 54 + card, so that one index array looks them up.
_ZOMBIE_FEATURES = rules._ZOMBIE_FEATURES.reshape(3 * NUM_CARD_IDS, -1)
_SLOT_STATE_PART = np.arange(3, dtype=np.intp) * NUM_CARD_IDS  # (the int8 product would overflow)
_PILES_END, _SLOTS_END, _DRAWN_END = rules._PILES_END, rules._SLOTS_END, rules._DRAWN_END
_PHASE_AT, _PLAYED_AT, _COUNTERS_AT, _UNSEEN_AT = (rules._PHASE_AT, rules._PLAYED_AT, rules._COUNTERS_AT,
                                                   rules._UNSEEN_AT)
_VALUES_AT = _UNSEEN_AT + 53
# The unseen number cards of each value, counted by adding the four suits' runs A-10 of the card ids: a sum of
# slices rather than rules.py's product with a one-hot table (a BLAS call that is slow on a busy machine).
_SUIT_RUNS = [slice(13 * suit, 13 * suit + 10) for suit in range(4)]
assert all((rules._VALUE_ONE_HOT[run] == np.eye(10)).all() for run in _SUIT_RUNS)


def observe(b) -> np.ndarray:
    """(N, 261): ``rules.observe`` of every game."""
    n = b.phase.shape[0]
    everyone = np.arange(n)
    obs = np.zeros((n, rules.OBSERVATION_SIZE), dtype=np.float32)
    obs[:, :_PILES_END] = _CARD_FEATURES.take(b.pile_top, axis=0).reshape(n, -1)
    slots = _SLOT_STATE_PART.take(b.slot_state) + b.slot_card
    obs[:, _PILES_END:_SLOTS_END] = _ZOMBIE_FEATURES.take(slots, axis=0).reshape(n, -1)
    obs[:, _SLOTS_END] = b.drawn >= 0
    obs[:, _SLOTS_END + 1:_DRAWN_END] = _CARD_FEATURES.take(b.drawn, axis=0)
    obs[everyone, _PHASE_AT + b.phase] = 1
    played = np.flatnonzero(b.played >= 0)
    obs[played, _PLAYED_AT + b.played[played]] = 1
    obs[:, _COUNTERS_AT] = b.end - b.top
    obs[:, _COUNTERS_AT + 1] = b.kills
    obs[:, _COUNTERS_AT + 2] = b.face_down
    obs[:, _COUNTERS_AT + 3] = b.jokers
    unseen = (b.place == DECK) | (b.place == FACE_DOWN)
    obs[:, _UNSEEN_AT:_UNSEEN_AT + 52] = unseen[:, :52]
    obs[:, _UNSEEN_AT + 52] = unseen[:, 52:].sum(axis=1)
    counts = obs[:, _UNSEEN_AT:_UNSEEN_AT + 52]
    obs[:, _VALUES_AT:] = counts[:, _SUIT_RUNS[0]] + counts[:, _SUIT_RUNS[1]] + counts[:, _SUIT_RUNS[2]] \
        + counts[:, _SUIT_RUNS[3]]
    return obs
