"""Royal Assassin (Mark R. Brown), the rules as pure functions.

Hold this file next to RULES.md: each section there has a function here (setup ``set_up``, the
draw ``_turn_next_card``, the decision ``fill_legal_mask`` / ``take_action``, and the resolution loop
``_resolve`` with its steps a-d). A game's state is a ``State``: one flat integer array (``s.data``) with a named
view per part (``s.reserve``, ``s.attack[column, level]``...). The turn is written once, as functions compiled
with numba over that array; the single env calls them on one game, the vector env through the loops at the end
of this file on a row per game. ``apply`` copies the state and returns the next one. No Gymnasium here. With
``NUMBA_DISABLE_JIT=1`` the same functions run as plain Python.

Cards are the suite's card ids (``envs/core/cards.py``); the joker never enters the deck, so it
is not a card id here but ``State.joker``: -1 while free, else the suit of its column.
The draw pile is ``deck[top:]`` (top first); every card's place on the table is ``place[card]``.
"""

from __future__ import annotations

import numba
import numpy as np

from ..core.cards import RANK, SUIT, SUITS, card, card_code, parse_deck, shuffled
from ..core.compiled import compiled, on_threads, only_action
from ..core.state import FlatState, lay_out
from ..core.turn import CompiledTurn, one_game

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
RED_SUIT = (False, True, True, False)
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
NUM_CARDS = 52
NO_CARD = -1

# Values: 2-10 face value, ace 11, J 11, Q 12, K 13.
VALUE = np.array([11 if RANK[c] == ACE else int(RANK[c]) for c in range(NUM_CARDS)], dtype=np.int16)
IS_FACE = RANK[:NUM_CARDS] >= JACK
FACE_CARDS = np.flatnonzero(IS_FACE).astype(np.int8)
NUMBER_CARDS = np.flatnonzero(~IS_FACE).astype(np.int8)
# The two columns a card of each suit may attack: those of the other colour.
TARGETS = tuple(tuple(t for t in range(4) if RED_SUIT[t] != RED_SUIT[s]) for s in range(4))
# The same tables in int64, for the compiled functions (so that plain Python adds offsets in the same integers).
_VALUE = VALUE.astype(np.int64)
_SUIT = SUIT[:NUM_CARDS].astype(np.int64)
_RANK = RANK[:NUM_CARDS].astype(np.int64)
_IS_ACE = RANK[:NUM_CARDS] == ACE
_TARGETS = np.array(TARGETS, dtype=np.int64)

MAX_FACES = 3    # J, Q, K of the column's suit
MAX_STACK = 10   # number cards of one suit: every attack card in a column shares a suit, so do its defence cards
MAX_RESERVE = len(NUMBER_CARDS)
SUIT_TOTAL = sum(int(VALUE[card(r, SPADES)]) for r in range(1, 11))  # 65: all number cards of a suit

# Where a card lies.
DECK, IN_PLAY, RESERVE, COLUMN, ATTACK, DEFENSE, DISCARD = range(7)
PLACE_NAMES = ("deck", "in_play", "reserve", "column", "attack", "defense", "discard")

# The decision the player faces.
DRAW, CONTINUE, OVER = range(3)
DECISION_NAMES = ("draw", "continue", None)

# How the game ended.
PLAYING, WON, LOST, FORFEITED = range(4)
RESULT_NAMES = ("playing", "won", "lost", "forfeited")

ACTION_NAMES = (["attack_" + s for s in SUITS] + ["assassin_" + s for s in SUITS] + ["pass"])
A_ATTACK, A_ASSASSIN, A_PASS = 0, 4, 8
NUM_ACTIONS = len(ACTION_NAMES)


class State(FlatState):
    """Everything on the table, the hidden deck order included. Each part's values run from ``low`` to ``high``."""

    PARTS = (
        ("deck", NUM_CARDS, 0, NUM_CARDS - 1),
        ("top", 0, 0, NUM_CARDS),
        ("place", NUM_CARDS, DECK, DISCARD),
        # The reserve, bottom first; reserve[reserve_size - 1] is its top.
        ("reserve", MAX_RESERVE, NO_CARD, NUM_CARDS - 1),
        ("reserve_size", 0, 0, MAX_RESERVE),
        # Each column: its face cards in arrival order (the last one is the pretender), and on each face card the
        # attack and defence cards lying on it, in the order they were placed.
        ("faces", (4, MAX_FACES), NO_CARD, NUM_CARDS - 1),
        ("num_faces", 4, 0, MAX_FACES),
        ("attack", (4, MAX_FACES, MAX_STACK), NO_CARD, NUM_CARDS - 1),
        ("num_attack", (4, MAX_FACES), 0, MAX_STACK),
        ("attack_total", (4, MAX_FACES), 0, SUIT_TOTAL),
        ("defense", (4, MAX_FACES, MAX_STACK), NO_CARD, NUM_CARDS - 1),
        ("num_defense", (4, MAX_FACES), 0, MAX_STACK),
        ("defense_total", (4, MAX_FACES), 0, SUIT_TOTAL),
        ("lock", 4, NO_CARD, 3),          # the suit whose attack cards lie in a column (-1: none): its lock
        ("discard", NUM_CARDS, NO_CARD, NUM_CARDS - 1),
        ("discard_size", 0, 0, NUM_CARDS),
        ("joker", 0, NO_CARD, 3),         # -1 free, else the suit of the column it sits on
        ("in_play", 0, NO_CARD, NUM_CARDS - 1),  # the card being decided on
        ("decision", 0, DRAW, OVER),
        ("target", 0, NO_CARD, 3),        # during a continuation: the column under attack
        ("result", 0, PLAYING, FORFEITED),
    )

    def __init__(self, deck: np.ndarray):
        self.data = np.full(self.SIZE, NO_CARD, dtype=np.int64)
        self.deck = deck
        self.top = 0
        self.place = DECK
        self.reserve_size = 0
        self.num_faces = 0
        self.num_attack = 0
        self.attack_total = 0
        self.num_defense = 0
        self.defense_total = 0
        self.discard_size = 0
        self.decision = DRAW
        self.result = PLAYING


# Where each part sits in ``data``: the compiled functions read and write the array at these offsets.
_AT = lay_out(State)
AT_DECK, AT_TOP, AT_PLACE, AT_RESERVE, AT_RESERVE_SIZE = (_AT[k] for k in ("deck", "top", "place", "reserve",
                                                                           "reserve_size"))
AT_FACES, AT_NUM_FACES, AT_LOCK = _AT["faces"], _AT["num_faces"], _AT["lock"]
AT_ATTACK, AT_NUM_ATTACK, AT_ATTACK_TOTAL = _AT["attack"], _AT["num_attack"], _AT["attack_total"]
AT_DEFENSE, AT_NUM_DEFENSE, AT_DEFENSE_TOTAL = _AT["defense"], _AT["num_defense"], _AT["defense_total"]
AT_DISCARD, AT_DISCARD_SIZE = _AT["discard"], _AT["discard_size"]
AT_JOKER, AT_IN_PLAY, AT_DECISION, AT_TARGET, AT_RESULT = (_AT[k] for k in ("joker", "in_play", "decision", "target",
                                                                           "result"))


# ---------------------------------------------------------------- moving cards
# Compiled: each function takes ``a``, one game's ``data``, and changes it in place. A face card's pile of attack
# or defence cards is its "stack": stack ``column * MAX_FACES + level`` (``level`` 0 the first face card to come).

def deck_size(s: State) -> int:
    return NUM_CARDS - s.top


def faces_on_table(s: State) -> int:
    return int(s.num_faces.sum())


def reserve_top(s: State) -> int:
    return _reserve_top(s.data)


@compiled
def _reserve_top(a):
    n = a[AT_RESERVE_SIZE]
    return a[AT_RESERVE + n - 1] if n else NO_CARD


@compiled
def faces_on_table(a):
    return a[AT_NUM_FACES] + a[AT_NUM_FACES + 1] + a[AT_NUM_FACES + 2] + a[AT_NUM_FACES + 3]


@compiled
def _draw(a):
    c = a[AT_DECK + a[AT_TOP]]
    a[AT_TOP] += 1
    return c


@compiled
def _push_reserve(a, c):
    a[AT_RESERVE + a[AT_RESERVE_SIZE]] = c
    a[AT_RESERVE_SIZE] += 1
    a[AT_PLACE + c] = RESERVE


@compiled
def _pop_reserve(a):
    a[AT_RESERVE_SIZE] -= 1
    at = AT_RESERVE + a[AT_RESERVE_SIZE]
    c = a[at]
    a[at] = NO_CARD
    return c


@compiled
def _to_discard(a, c):
    a[AT_DISCARD + a[AT_DISCARD_SIZE]] = c
    a[AT_DISCARD_SIZE] += 1
    a[AT_PLACE + c] = DISCARD


@compiled
def _join_column(a, c):
    """A face card joins its suit's column and becomes the pretender (attacks on older ones stay buried)."""
    column = _SUIT[c]
    a[AT_FACES + column * MAX_FACES + a[AT_NUM_FACES + column]] = c
    a[AT_NUM_FACES + column] += 1
    a[AT_PLACE + c] = COLUMN


@compiled
def _place_attack(a, column, c):
    stack = column * MAX_FACES + a[AT_NUM_FACES + column] - 1
    a[AT_ATTACK + stack * MAX_STACK + a[AT_NUM_ATTACK + stack]] = c
    a[AT_NUM_ATTACK + stack] += 1
    a[AT_ATTACK_TOTAL + stack] += _VALUE[c]
    a[AT_PLACE + c] = ATTACK
    a[AT_LOCK + column] = _SUIT[c]


@compiled
def _place_defense(a, column, c):
    stack = column * MAX_FACES + a[AT_NUM_FACES + column] - 1
    a[AT_DEFENSE + stack * MAX_STACK + a[AT_NUM_DEFENSE + stack]] = c
    a[AT_NUM_DEFENSE + stack] += 1
    a[AT_DEFENSE_TOTAL + stack] += _VALUE[c]
    a[AT_PLACE + c] = DEFENSE


@compiled
def _clear_stacks(a, column, level):
    """The attack cards, then the defence cards, lying on one face card go to the discard."""
    stack = column * MAX_FACES + level
    for i in range(a[AT_NUM_ATTACK + stack]):
        _to_discard(a, a[AT_ATTACK + stack * MAX_STACK + i])
    for i in range(a[AT_NUM_DEFENSE + stack]):
        _to_discard(a, a[AT_DEFENSE + stack * MAX_STACK + i])
    for i in range(MAX_STACK):
        a[AT_ATTACK + stack * MAX_STACK + i] = NO_CARD
        a[AT_DEFENSE + stack * MAX_STACK + i] = NO_CARD
    a[AT_NUM_ATTACK + stack] = 0
    a[AT_NUM_DEFENSE + stack] = 0
    a[AT_ATTACK_TOTAL + stack] = 0
    a[AT_DEFENSE_TOTAL + stack] = 0


@compiled
def _update_lock(a, column):
    """The lock ends when no attack card is left in the column (buried ones keep it)."""
    a[AT_LOCK + column] = NO_CARD
    for level in range(a[AT_NUM_FACES + column]):
        stack = column * MAX_FACES + level
        if a[AT_NUM_ATTACK + stack]:
            a[AT_LOCK + column] = _SUIT[a[AT_ATTACK + stack * MAX_STACK]]


@compiled
def end_game(a, result):
    a[AT_RESULT] = result
    a[AT_DECISION] = OVER
    a[AT_TARGET] = NO_CARD


# ---------------------------------------------------------------- setup

def new_game(rng: np.random.Generator, deck=None) -> State:
    """A new game: the 52 cards shuffled with ``rng`` (``deal``), or stacked from ``deck``."""
    if deck is not None:
        s = State(parse_deck(deck, range(NUM_CARDS)))
        if not set_up(s.data):
            raise ValueError("bad deck: it never ends setup (no non-ace number card is turned whose value is "
                             "at most the number of face cards on the table)")
        return s
    s = State(np.arange(NUM_CARDS))
    deal(s.data, rng)
    return s


def deal(a, rng):
    """A new game dealt with ``rng`` into ``a`` (one game's data, or a vector env's row), and set up: the deck
    shuffled, and shuffled again (from the same generator) while it never ends setup (about one deal in two
    million).
    The single env runs it as Python (numpy shuffles a deck faster than numba takes a generator in); ``deal_rows``
    runs it compiled, where numba's ``shuffle`` draws what numpy's does, from the same generator."""
    while True:
        a[:] = _BEFORE_SETUP
        deck = np.arange(NUM_CARDS)  # in card-id order, as ``shuffled`` sorts the cards before it shuffles
        rng.shuffle(deck)
        a[AT_DECK:AT_DECK + NUM_CARDS] = deck
        if set_up(a):
            return


_compiled_deal = compiled(deal)


@compiled
def deal_rows(data, rows, rngs):
    """``deal`` in each row of ``rows`` (indices), with that game's generator (``rngs``, a typed list of every
    game's): a vector env's new games, with no Python per game."""
    for i in rows:
        _compiled_deal(data[i], rngs[i])


_BEFORE_SETUP = State(np.arange(NUM_CARDS)).data  # a table before setup (its deck is replaced)


@compiled
def set_up(a):
    """Setup on a new table holding its deck: turn cards onto the reserve and the columns until the card that ends
    it, which comes into play. False if the deck runs out first (the game must be dealt again)."""
    faces = 0
    while a[AT_TOP] < NUM_CARDS:
        c = _draw(a)
        if IS_FACE[c]:
            _join_column(a, c)
            faces += 1
        elif not _IS_ACE[c] and _VALUE[c] <= faces:
            # Ruling: the card that ends setup is the first card of play.
            a[AT_IN_PLAY] = c
            a[AT_PLACE + c] = IN_PLAY
            return True
        else:
            _push_reserve(a, c)
    return False


# ---------------------------------------------------------------- play: turn the top card

@compiled
def _turn_next_card(a):
    """The last card is fully resolved: turn cards until a number card (a decision) or lose on an empty deck."""
    a[AT_IN_PLAY] = NO_CARD
    a[AT_TARGET] = NO_CARD
    while a[AT_TOP] < NUM_CARDS:
        c = _draw(a)
        if IS_FACE[c]:
            _join_column(a, c)  # rule 1: a face card joins its column and becomes the pretender
        else:
            a[AT_IN_PLAY] = c   # rule 2: a number card, the player decides
            a[AT_PLACE + c] = IN_PLAY
            a[AT_DECISION] = DRAW
            return
    end_game(a, LOST)


@compiled
def turn_card(a, c):
    """Card ``c`` turned as the next card of game ``a``, whose draw pile is empty (``features.fill_seen_game``'s,
    played on): a face card joins its column (and the empty pile then ends the game), a number card comes into play.
    What a player thinking a card ahead pictures for each unseen card."""
    a[AT_RESULT] = PLAYING
    a[AT_TOP] = NUM_CARDS - 1
    a[AT_DECK + NUM_CARDS - 1] = c
    _turn_next_card(a)


# ---------------------------------------------------------------- the player's decisions

@compiled
def fill_legal_mask(a, mask):
    """``mask`` (9 bools) set to the actions the rules allow now (all False once the game is over)."""
    mask[:] = False
    if a[AT_DECISION] == OVER:
        return
    mask[A_PASS] = True
    joker_free = a[AT_JOKER] < 0
    if a[AT_DECISION] == CONTINUE:
        # A continuation attacks the same column again, with the reserve's top card.
        column = a[AT_TARGET]
        mask[A_ATTACK + column] = True
        mask[A_ASSASSIN + column] = joker_free and a[AT_NUM_FACES + column] >= 2
        return
    suit = _SUIT[a[AT_IN_PLAY]]
    held = False  # suit holds a lock on a column: it cannot attack another
    for column in _TARGETS[suit]:
        held = held or a[AT_LOCK + column] == suit
    for column in _TARGETS[suit]:
        lock = a[AT_LOCK + column]
        if a[AT_NUM_FACES + column] and (lock == suit or (lock == NO_CARD and not held)):
            mask[A_ATTACK + column] = True
            mask[A_ASSASSIN + column] = joker_free and a[AT_NUM_FACES + column] >= 2


@compiled
def take_action(a, action):
    """The player's ``action`` (which must be legal) and everything it sets off, up to the next decision. Returns
    whether the defence wiped an attack (the action's fields say so; the table shows only what is left)."""
    if action == A_PASS:
        if a[AT_DECISION] == DRAW:
            _push_reserve(a, a[AT_IN_PLAY])  # the drawn card goes onto the reserve; nothing else happens
        _turn_next_card(a)                   # (a stopped continuation leaves the reserve as it is)
        return False
    column = action - A_ASSASSIN if action >= A_ASSASSIN else action - A_ATTACK
    c = a[AT_IN_PLAY]
    if a[AT_DECISION] == CONTINUE:
        _pop_reserve(a)
    a[AT_IN_PLAY] = NO_CARD
    _place_attack(a, column, c)
    if action >= A_ASSASSIN:
        a[AT_JOKER] = column
    return _resolve(a, column, _SUIT[c])


# ---------------------------------------------------------------- resolving an attack

@compiled
def _resolve(a, column, attacker):
    """Rule 3, after an attack card of suit ``attacker`` was placed on ``column``'s pretender. Returns whether the
    defence wiped the attack."""
    wiped = False
    while True:
        level = a[AT_NUM_FACES + column] - 1
        stack = column * MAX_FACES + level
        # a. Kill check, before any defence.
        pretender = a[AT_FACES + column * MAX_FACES + level]
        if a[AT_ATTACK_TOTAL + stack] - a[AT_DEFENSE_TOTAL + stack] >= _VALUE[pretender]:
            _kill_pretender(a, column)
            if faces_on_table(a) == 0:
                end_game(a, WON)
                return False
            level = a[AT_NUM_FACES + column] - 1
            stack = column * MAX_FACES + level
            if level < 0 or a[AT_NUM_ATTACK + stack] == 0:
                break  # no face card uncovered, or one with no attack on it: the attack is over
            # The uncovered face card has a buried attack (of this suit, the column's lock): go on at b.
        # b. Defence: the reserve's top card of the pretender's suit defends while defence < attack.
        while (a[AT_RESERVE_SIZE] and _SUIT[_reserve_top(a)] == column
               and a[AT_DEFENSE_TOTAL + stack] < a[AT_ATTACK_TOTAL + stack]):
            _place_defense(a, column, _pop_reserve(a))
        # c. Wipe: defence equal to or above the attack clears the pretender's attack and defence.
        if a[AT_DEFENSE_TOTAL + stack] >= a[AT_ATTACK_TOTAL + stack]:
            _clear_stacks(a, column, level)
            _update_lock(a, column)
            wiped = True
            break
        # d. Continue: a reserve top of the attacking suit may attack the pretender again.
        if a[AT_RESERVE_SIZE] and _SUIT[_reserve_top(a)] == attacker:
            a[AT_DECISION] = CONTINUE
            a[AT_IN_PLAY] = _reserve_top(a)
            a[AT_TARGET] = column
            return False
        break
    _turn_next_card(a)
    return wiped


@compiled
def _kill_pretender(a, column):
    """The pretender dies with its attack and defence cards; with the joker there, the whole column dies."""
    if a[AT_JOKER] == column:
        for level in range(a[AT_NUM_FACES + column] - 1, -1, -1):
            _kill_face(a, column, level)
        a[AT_JOKER] = NO_CARD  # the Royal Assassin comes back free
    else:
        _kill_face(a, column, a[AT_NUM_FACES + column] - 1)
    _update_lock(a, column)


@compiled
def _kill_face(a, column, level):
    at = AT_FACES + column * MAX_FACES + level
    _to_discard(a, a[at])
    _clear_stacks(a, column, level)
    a[at] = NO_CARD
    a[AT_NUM_FACES + column] -= 1


@compiled
def play_forced(a, mask):
    """Every move the player has no choice in, until a real decision or the end; ``mask`` holds the state's legal
    actions on the way in and is kept up to date."""
    action = only_action(mask)
    while action >= 0:
        take_action(a, action)
        fill_legal_mask(a, mask)
        action = only_action(mask)


@compiled
def take_turn(a, action, skip_forced, mask):
    """The env's step on game ``a``: ``action``, then (``skip_forced``) every forced move after it; ``mask`` set to
    the legal actions of the state reached."""
    take_action(a, action)
    fill_legal_mask(a, mask)
    if skip_forced:
        play_forced(a, mask)


# The same turn for Python callers, on a State (copied first): written once in ``envs/core/turn.py``.
_TURN = CompiledTurn(NUM_ACTIONS, fill_legal_mask, end_game, FORFEITED, take_action, take_turn)
apply, legal_mask, play, forfeit, is_over = _TURN.apply, _TURN.legal_mask, _TURN.play, _TURN.forfeit, _TURN.is_over


# ---------------------------------------------------------------- hidden information, end

def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy with the deck (the only unseen cards) reshuffled."""
    s = s.copy()
    s.deck[s.top:] = shuffled(s.deck[s.top:], rng)
    return s


def kills(s: State) -> int:
    """Face cards killed so far."""
    return int(np.count_nonzero(s.place[FACE_CARDS] == DISCARD))


_FACE_CARDS_AT = AT_PLACE + FACE_CARDS.astype(np.intp)  # where the face cards' places are in a game's data


def outcomes(data: np.ndarray) -> dict:
    """The outcome of each game, a row of ``data`` each, as arrays (what a vector env's infos hold): ``won`` (no
    face card left on the table), ``score`` (cards left in the deck on a win, else 0), ``kills``, ``result`` (the
    code of a name in ``RESULT_NAMES``)."""
    won, score, kills = scores(data)
    return {"won": won, "score": score, "kills": kills, "result": data[:, AT_RESULT].copy()}


@compiled
def scores(data):
    """Each game's ``won``, ``score`` and ``kills`` (a row of ``data`` each; see ``outcomes``). Compiled: a game's
    outcome is read at every step it ends in, and numpy's calls on one row take five times as long."""
    won = np.zeros(len(data), dtype=np.bool_)
    score = np.zeros(len(data), dtype=np.int64)
    kills = np.zeros(len(data), dtype=np.int64)
    for i in range(len(data)):
        won[i] = data[i, AT_RESULT] == WON
        score[i] = NUM_CARDS - data[i, AT_TOP] if won[i] else 0
        for at in _FACE_CARDS_AT:
            kills[i] += data[i, at] == DISCARD
    return won, score, kills


def outcome(s: State) -> dict:
    """``outcomes`` of the game ``s``, as Python's values."""
    return one_game(outcomes(s.data[None]), RESULT_NAMES)


# ---------------------------------------------------------------- what the player sees

_FACE_PLACES = np.array([DECK, COLUMN, DISCARD], dtype=np.int8)
_NUMBER_PLACES = np.array([DECK, IN_PLAY, RESERVE, ATTACK, DEFENSE, DISCARD], dtype=np.int8)
MAX_DECK_SIZE = NUM_CARDS - 3  # setup turns at least two face cards and the 2 that ends it

OBSERVATION_FIELDS = (
    [(f"card_{card_code(c)}_{PLACE_NAMES[p]}", 1) for c in FACE_CARDS for p in _FACE_PLACES]
    + [(f"card_{card_code(c)}_{PLACE_NAMES[p]}", 1) for c in NUMBER_CARDS for p in _NUMBER_PLACES]
    + [(f"card_{card_code(c)}_reserve_depth", MAX_RESERVE) for c in NUMBER_CARDS]
    + [field for t in SUITS for field in (
        [(f"column_{t}_faces", MAX_FACES)]
        + [(f"column_{t}_{i}_value", KING) for i in range(MAX_FACES)]
        + [(f"column_{t}_{i}_attack_total", SUIT_TOTAL) for i in range(MAX_FACES)]
        + [(f"column_{t}_{i}_defense_total", SUIT_TOTAL) for i in range(MAX_FACES)]
        + [(f"column_{t}_pretender_value", KING), (f"column_{t}_pretender_attack", SUIT_TOTAL),
           (f"column_{t}_pretender_defense", SUIT_TOTAL), (f"column_{t}_pretender_short", KING)]
        + [(f"column_{t}_lock_{u}", 1) for u in SUITS]
        + [(f"column_{t}_joker", 1)])]
    + [("joker_free", 1), ("decision_draw", 1), ("decision_continue", 1), ("in_play_value", 11)]
    + [(f"in_play_suit_{u}", 1) for u in SUITS]
    + [("deck_size", MAX_DECK_SIZE), ("reserve_size", MAX_RESERVE), ("discard_size", NUM_CARDS),
       ("faces_on_table", 4 * MAX_FACES)]
    + [(f"unseen_rank_{r}", 4) for r in range(1, 14)]
    + [(f"unseen_suit_{u}", 13) for u in SUITS]
)
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
OBSERVATION_LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_HIGH = np.array([high for _, high in OBSERVATION_FIELDS], dtype=np.float32)

_PLACE_BLOCK = len(FACE_CARDS) * len(_FACE_PLACES) + len(NUMBER_CARDS) * len(_NUMBER_PLACES)
_DEPTH_START = _PLACE_BLOCK
_COLUMNS_START = _DEPTH_START + len(NUMBER_CARDS)
_COLUMN_WIDTH = 1 + 3 * MAX_FACES + 4 + 4 + 1
_GLOBAL_START = _COLUMNS_START + 4 * _COLUMN_WIDTH
_UNSEEN_START = _GLOBAL_START + 12
assert _UNSEEN_START + 17 == OBSERVATION_SIZE
# The card and the place each entry of the place block asks about.
_FIELD_CARD = np.array([c for c in FACE_CARDS for _ in _FACE_PLACES]
                       + [c for c in NUMBER_CARDS for _ in _NUMBER_PLACES], dtype=np.int64)
_FIELD_PLACE = np.array([p for _ in FACE_CARDS for p in _FACE_PLACES]
                        + [p for _ in NUMBER_CARDS for p in _NUMBER_PLACES], dtype=np.int64)
# The reserve-depth slot of each card id (number cards only; face cards never reach the reserve).
_DEPTH_SLOT = np.full(NUM_CARDS, -1, dtype=np.int64)
_DEPTH_SLOT[NUMBER_CARDS] = _DEPTH_START + np.arange(len(NUMBER_CARDS))


@compiled
def fill_observation(a, obs):
    """``obs`` (``OBSERVATION_SIZE`` float32) set to the observation of game ``a``: every card's place (the deck's
    cards only as unseen), the reserve in order, the columns, the joker, the card in play and the counts of unseen
    cards."""
    for k in range(_PLACE_BLOCK):
        obs[k] = a[AT_PLACE + _FIELD_CARD[k]] == _FIELD_PLACE[k]
    obs[_PLACE_BLOCK:] = 0
    n = a[AT_RESERVE_SIZE]
    for i in range(n):
        obs[_DEPTH_SLOT[a[AT_RESERVE + i]]] = n - i  # the top is at depth 1
    for column in range(4):
        _fill_column(a, column, obs, _COLUMNS_START + column * _COLUMN_WIDTH)
    i = _GLOBAL_START
    obs[i] = a[AT_JOKER] < 0
    if a[AT_DECISION] != OVER:
        obs[i + 1 + a[AT_DECISION]] = 1
    c = a[AT_IN_PLAY]
    if c >= 0:
        obs[i + 3] = _VALUE[c]
        obs[i + 4 + _SUIT[c]] = 1
    obs[i + 8] = NUM_CARDS - a[AT_TOP]
    obs[i + 9] = n
    obs[i + 10] = a[AT_DISCARD_SIZE]
    obs[i + 11] = faces_on_table(a)
    for c in range(NUM_CARDS):
        if a[AT_PLACE + c] == DECK:
            obs[_UNSEEN_START + _RANK[c] - 1] += 1
            obs[_UNSEEN_START + 13 + _SUIT[c]] += 1


@compiled
def _fill_column(a, column, obs, at):
    """A column's fields from ``at``: face count, each face card's value, attack and defence totals, the pretender's
    value, attack, defence and shortfall, the lock (one-hot) and the joker."""
    n = a[AT_NUM_FACES + column]
    obs[at] = n
    for level in range(MAX_FACES):
        face = a[AT_FACES + column * MAX_FACES + level]
        obs[at + 1 + level] = _VALUE[face] if face >= 0 else 0
        obs[at + 1 + MAX_FACES + level] = a[AT_ATTACK_TOTAL + column * MAX_FACES + level]
        obs[at + 1 + 2 * MAX_FACES + level] = a[AT_DEFENSE_TOTAL + column * MAX_FACES + level]
    if n:
        stack = column * MAX_FACES + n - 1
        value = _VALUE[a[AT_FACES + stack]]
        hit, held = a[AT_ATTACK_TOTAL + stack], a[AT_DEFENSE_TOTAL + stack]
        obs[at + 10], obs[at + 11], obs[at + 12], obs[at + 13] = value, hit, held, value - hit + held
    lock = a[AT_LOCK + column]
    if lock >= 0:
        obs[at + 14 + lock] = 1
    obs[at + 18] = a[AT_JOKER] == column


def observe(s: State) -> np.ndarray:
    """The flat observation (``OBSERVATION_FIELDS`` names every entry)."""
    obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    fill_observation(s.data, obs)
    return obs


def _codes(cards) -> list[str]:
    return [card_code(int(c)) for c in cards]


def describe(s: State) -> dict:
    """The public table as a JSON-serialisable dict (the keys RULES.md lists)."""
    columns, attack, defense, lock, buried = {}, {}, {}, {}, {}
    for t, letter in enumerate(SUITS):
        n = int(s.num_faces[t])
        columns[letter] = _codes(s.faces[t, :n])
        top = n - 1
        attack[letter] = _codes(s.attack[t, top, :s.num_attack[t, top]]) if n else []
        defense[letter] = _codes(s.defense[t, top, :s.num_defense[t, top]]) if n else []
        lock[letter] = SUITS[s.lock[t]] if s.lock[t] >= 0 else None
        buried[letter] = [
            {"face": card_code(int(s.faces[t, level])),
             "attack": _codes(s.attack[t, level, :s.num_attack[t, level]]),
             "defense": _codes(s.defense[t, level, :s.num_defense[t, level]])}
            for level in range(n - 1)
        ]
    return {
        "columns": columns,
        "attack": attack,
        "defense": defense,
        "lock": lock,
        "buried": buried,
        "reserve": _codes(s.reserve[:s.reserve_size]),
        "joker": "free" if s.joker < 0 else SUITS[s.joker],
        "in_play": card_code(s.in_play) if s.in_play >= 0 else None,
        "decision": DECISION_NAMES[s.decision],
        "attacking": SUITS[s.target] if s.target >= 0 else None,
        "deck_size": deck_size(s),
        "discard": _codes(s.discard[:s.discard_size]),
        "kills": kills(s),
        "result": RESULT_NAMES[s.result],
    }


# ---------------------------------------------------------------- many games at once (the vector env)
# The same compiled functions over ``data`` (N, State.SIZE), a row per game; ``rows`` (N bools) picks the games.

@compiled
def take_actions(data, actions, rows):
    for i in range(data.shape[0]):
        if rows[i]:
            take_action(data[i], actions[i])


@compiled
def play_forced_rows(data, rows):
    mask = np.empty(NUM_ACTIONS, dtype=np.bool_)
    for i in range(data.shape[0]):
        if rows[i]:
            fill_legal_mask(data[i], mask)
            play_forced(data[i], mask)


@compiled
def fill_legal_masks(data, masks):
    for i in range(data.shape[0]):
        fill_legal_mask(data[i], masks[i])


@compiled
def fill_observations(data, observations):
    for i in range(data.shape[0]):
        fill_observation(data[i], observations[i])


@compiled
def step_rows(data, actions, taking, starting, fresh, rngs, skip_forced, masks, observations):
    """One step of a vector env in one call: each game ``taking`` takes its action (and, with ``skip_forced``, plays
    on while it has one legal action), each game ``starting`` is dealt anew (``fresh``, one new game's table, then
    ``deal`` with its own generator); then every game's legal mask and observation are written in place. A game's
    row depends on nothing but itself and its generator, so ``step_rows_on_threads`` shares the games among
    ``numba.set_num_threads`` threads, and any number of threads gives what one gives."""
    for i in numba.prange(data.shape[0]):
        a = data[i]
        if taking[i]:
            take_action(a, actions[i])
            if skip_forced:
                fill_legal_mask(a, masks[i])
                play_forced(a, masks[i])
        elif starting[i]:
            a[:] = fresh
            _compiled_deal(a, rngs[np.int64(i)])  # (prange counts in unsigned integers)
        fill_legal_mask(a, masks[i])
        fill_observation(a, observations[i])


step_rows_on_threads = on_threads(step_rows)
