"""Royal Assassin's rules as they were written in plain numpy before they were compiled: the oracle that
``tests/test_compiled_rules.py`` plays beside ``envs/royal_assassin/rules.py`` over thousands of seeds.

The rules as pure functions.

Hold this file next to RULES.md: each section there has a function here (setup ``_deal``, the
draw ``_turn_next_card``, the decision ``legal_mask`` / ``apply``, and the resolution loop
``_resolve`` with its steps a-d). The state is a ``State`` of numbers and fixed-shape numpy
arrays; ``apply`` copies it and returns the next one. No Gymnasium here.

Cards are the suite's card ids (``envs/core/cards.py``); the joker never enters the deck, so it
is not a card id here but ``State.joker``: -1 while free, else the suit of its column.
The draw pile is ``deck[top:]`` (top first); every card's place on the table is ``place[card]``.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.envs.core.cards import RANK, SUIT, SUITS, card, card_code, parse_deck, shuffled
from tabletop_gym.envs.core.state import ArrayState

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
# Plain Python tuples for the hot paths (indexing a tuple is cheaper than a numpy scalar).
_VALUE = tuple(int(v) for v in VALUE)
_SUIT = tuple(int(SUIT[c]) for c in range(NUM_CARDS))
_IS_FACE = tuple(bool(f) for f in IS_FACE)
_IS_ACE = tuple(RANK[c] == ACE for c in range(NUM_CARDS))
# The two columns a card of each suit may attack: those of the other colour.
TARGETS = tuple(tuple(t for t in range(4) if RED_SUIT[t] != RED_SUIT[s]) for s in range(4))

MAX_FACES = 3    # J, Q, K of the column's suit
MAX_STACK = 10   # number cards of one suit: every attack card in a column shares a suit, so do its defence cards
MAX_RESERVE = len(NUMBER_CARDS)
SUIT_TOTAL = sum(_VALUE[card(r, SPADES)] for r in range(1, 11))  # 65: all number cards of a suit

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


class State(ArrayState):
    """Everything on the table, the hidden deck order included."""

    def __init__(self, deck: np.ndarray):
        self.deck = np.asarray(deck, dtype=np.int8).copy()
        self.top = 0
        self.place = np.full(NUM_CARDS, DECK, dtype=np.int8)
        # The reserve, bottom first; reserve[reserve_size - 1] is its top.
        self.reserve = np.full(MAX_RESERVE, NO_CARD, dtype=np.int8)
        self.reserve_size = 0
        # Each column: its face cards in arrival order (the last one is the pretender), and on each
        # face card the attack and defence cards lying on it, in the order they were placed.
        self.faces = np.full((4, MAX_FACES), NO_CARD, dtype=np.int8)
        self.num_faces = np.zeros(4, dtype=np.int8)
        self.attack = np.full((4, MAX_FACES, MAX_STACK), NO_CARD, dtype=np.int8)
        self.num_attack = np.zeros((4, MAX_FACES), dtype=np.int8)
        self.attack_total = np.zeros((4, MAX_FACES), dtype=np.int16)
        self.defense = np.full((4, MAX_FACES, MAX_STACK), NO_CARD, dtype=np.int8)
        self.num_defense = np.zeros((4, MAX_FACES), dtype=np.int8)
        self.defense_total = np.zeros((4, MAX_FACES), dtype=np.int16)
        # The suit whose attack cards lie in a column (-1: none), i.e. the column's lock.
        self.lock = np.full(4, NO_CARD, dtype=np.int8)
        self.discard = np.full(NUM_CARDS, NO_CARD, dtype=np.int8)
        self.discard_size = 0
        self.joker = NO_CARD          # -1 free, else the suit of the column it sits on
        self.in_play = NO_CARD        # the card being decided on
        self.decision = DRAW
        self.target = NO_CARD         # during a continuation: the column under attack
        self.result = PLAYING


# ---------------------------------------------------------------- moving cards

def deck_size(s: State) -> int:
    return NUM_CARDS - s.top


def faces_on_table(s: State) -> int:
    return int(s.num_faces.sum())


def reserve_top(s: State) -> int:
    return int(s.reserve[s.reserve_size - 1]) if s.reserve_size else NO_CARD


def _draw(s: State) -> int:
    c = int(s.deck[s.top])
    s.top += 1
    return c


def _push_reserve(s: State, c: int) -> None:
    s.reserve[s.reserve_size] = c
    s.reserve_size += 1
    s.place[c] = RESERVE


def _pop_reserve(s: State) -> int:
    s.reserve_size -= 1
    c = int(s.reserve[s.reserve_size])
    s.reserve[s.reserve_size] = NO_CARD
    return c


def _to_discard(s: State, c: int) -> None:
    s.discard[s.discard_size] = c
    s.discard_size += 1
    s.place[c] = DISCARD


def _join_column(s: State, c: int) -> None:
    """A face card joins its suit's column and becomes the pretender (attacks on older ones stay buried)."""
    column = _SUIT[c]
    s.faces[column, s.num_faces[column]] = c
    s.num_faces[column] += 1
    s.place[c] = COLUMN


def _place_attack(s: State, column: int, c: int) -> None:
    level = s.num_faces[column] - 1
    s.attack[column, level, s.num_attack[column, level]] = c
    s.num_attack[column, level] += 1
    s.attack_total[column, level] += _VALUE[c]
    s.place[c] = ATTACK
    s.lock[column] = _SUIT[c]


def _place_defense(s: State, column: int, c: int) -> None:
    level = s.num_faces[column] - 1
    s.defense[column, level, s.num_defense[column, level]] = c
    s.num_defense[column, level] += 1
    s.defense_total[column, level] += _VALUE[c]
    s.place[c] = DEFENSE


def _clear_stacks(s: State, column: int, level: int) -> None:
    """The attack cards, then the defence cards, lying on one face card go to the discard."""
    for i in range(s.num_attack[column, level]):
        _to_discard(s, int(s.attack[column, level, i]))
    for i in range(s.num_defense[column, level]):
        _to_discard(s, int(s.defense[column, level, i]))
    s.attack[column, level] = NO_CARD
    s.defense[column, level] = NO_CARD
    s.num_attack[column, level] = 0
    s.num_defense[column, level] = 0
    s.attack_total[column, level] = 0
    s.defense_total[column, level] = 0


def _update_lock(s: State, column: int) -> None:
    """The lock ends when no attack card is left in the column (buried ones keep it)."""
    s.lock[column] = NO_CARD
    for level in range(s.num_faces[column]):
        if s.num_attack[column, level]:
            s.lock[column] = _SUIT[int(s.attack[column, level, 0])]


def _end(s: State, result: int) -> None:
    s.result = result
    s.decision = OVER
    s.target = NO_CARD


# ---------------------------------------------------------------- setup

def new_game(rng: np.random.Generator, deck=None) -> State:
    """A new game: the 52 cards shuffled with ``rng`` (redealt until setup ends), or stacked from ``deck``."""
    if deck is not None:
        s = _deal(parse_deck(deck, range(NUM_CARDS)))
        if s is None:
            raise ValueError("bad deck: it never ends setup (no non-ace number card is turned whose value is "
                             "at most the number of face cards on the table)")
        return s
    while True:
        s = _deal(shuffled(range(NUM_CARDS), rng))
        if s is not None:
            return s


def _deal(order: np.ndarray) -> State | None:
    """Setup: turn cards onto the reserve and the columns until the card that ends it, which comes into play.

    None if the deck runs out first.
    """
    s = State(order)
    faces = 0
    while s.top < NUM_CARDS:
        c = _draw(s)
        if _IS_FACE[c]:
            _join_column(s, c)
            faces += 1
        elif not _IS_ACE[c] and _VALUE[c] <= faces:
            # Ruling: the card that ends setup is the first card of play.
            s.in_play = c
            s.place[c] = IN_PLAY
            return s
        else:
            _push_reserve(s, c)
    return None


# ---------------------------------------------------------------- play: turn the top card

def _turn_next_card(s: State) -> None:
    """The last card is fully resolved: turn cards until a number card (a decision) or lose on an empty deck."""
    s.in_play = NO_CARD
    s.target = NO_CARD
    while s.top < NUM_CARDS:
        c = _draw(s)
        if _IS_FACE[c]:
            _join_column(s, c)  # rule 1: a face card joins its column and becomes the pretender
        else:
            s.in_play = c       # rule 2: a number card, the player decides
            s.place[c] = IN_PLAY
            s.decision = DRAW
            return
    _end(s, LOST)


# ---------------------------------------------------------------- the player's decisions

def legal_mask(s: State) -> np.ndarray:
    """Which actions the rules allow now (all False once the game is over)."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.decision == OVER:
        return mask
    mask[A_PASS] = True
    joker_free = s.joker < 0
    num_faces = s.num_faces.tolist()
    if s.decision == CONTINUE:
        # A continuation attacks the same column again, with the reserve's top card.
        column = s.target
        mask[A_ATTACK + column] = True
        mask[A_ASSASSIN + column] = joker_free and num_faces[column] >= 2
        return mask
    suit = _SUIT[s.in_play]
    lock = s.lock.tolist()
    columns = TARGETS[suit]
    held = [t for t in columns if lock[t] == suit]
    if held:
        columns = held  # suit holds a lock on a column: it cannot attack another
    for column in columns:
        if num_faces[column] and lock[column] in (NO_CARD, suit):
            mask[A_ATTACK + column] = True
            mask[A_ASSASSIN + column] = joker_free and num_faces[column] >= 2
    return mask


def apply(s: State, action: int, rng: np.random.Generator | None = None) -> State:
    """The state after the player takes ``action`` (which must be legal). ``s`` is not changed.

    The game has no randomness after the deal; ``rng`` is accepted for a uniform signature.
    """
    s = s.copy()
    if action == A_PASS:
        if s.decision == DRAW:
            _push_reserve(s, s.in_play)  # the drawn card goes onto the reserve; nothing else happens
        _turn_next_card(s)               # (a stopped continuation leaves the reserve as it is)
        return s
    column = action - A_ASSASSIN if action >= A_ASSASSIN else action - A_ATTACK
    c = s.in_play
    if s.decision == CONTINUE:
        _pop_reserve(s)
    s.in_play = NO_CARD
    _place_attack(s, column, c)
    if action >= A_ASSASSIN:
        s.joker = column
    _resolve(s, column, _SUIT[c])
    return s


# ---------------------------------------------------------------- resolving an attack

def _resolve(s: State, column: int, attacker: int) -> None:
    """Rule 3, after an attack card of suit ``attacker`` was placed on ``column``'s pretender."""
    while True:
        level = s.num_faces[column] - 1
        # a. Kill check, before any defence.
        if s.attack_total[column, level] - s.defense_total[column, level] >= _VALUE[int(s.faces[column, level])]:
            _kill_pretender(s, column)
            if faces_on_table(s) == 0:
                _end(s, WON)
                return
            level = s.num_faces[column] - 1
            if level < 0 or s.num_attack[column, level] == 0:
                break  # no face card uncovered, or one with no attack on it: the attack is over
            # The uncovered face card has a buried attack (of this suit, the column's lock): go on at b.
        # b. Defence: the reserve's top card of the pretender's suit defends while defence < attack.
        while (s.reserve_size and _SUIT[reserve_top(s)] == column
               and s.defense_total[column, level] < s.attack_total[column, level]):
            _place_defense(s, column, _pop_reserve(s))
        # c. Wipe: defence equal to or above the attack clears the pretender's attack and defence.
        if s.defense_total[column, level] >= s.attack_total[column, level]:
            _clear_stacks(s, column, level)
            _update_lock(s, column)
            break
        # d. Continue: a reserve top of the attacking suit may attack the pretender again.
        if s.reserve_size and _SUIT[reserve_top(s)] == attacker:
            s.decision = CONTINUE
            s.in_play = reserve_top(s)
            s.target = column
            return
        break
    _turn_next_card(s)


def _kill_pretender(s: State, column: int) -> None:
    """The pretender dies with its attack and defence cards; with the joker there, the whole column dies."""
    if s.joker == column:
        for level in range(s.num_faces[column] - 1, -1, -1):
            _kill_face(s, column, level)
        s.joker = NO_CARD  # the Royal Assassin comes back free
    else:
        _kill_face(s, column, s.num_faces[column] - 1)
    _update_lock(s, column)


def _kill_face(s: State, column: int, level: int) -> None:
    _to_discard(s, int(s.faces[column, level]))
    _clear_stacks(s, column, level)
    s.faces[column, level] = NO_CARD
    s.num_faces[column] -= 1


# ---------------------------------------------------------------- hidden information, forfeit, end

def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy with the deck (the only unseen cards) reshuffled."""
    s = s.copy()
    s.deck[s.top:] = shuffled(s.deck[s.top:], rng)
    return s


def forfeit(s: State) -> State:
    """The game lost by an illegal action (the card in play, if any, stays where it was)."""
    s = s.copy()
    _end(s, FORFEITED)
    return s


def is_over(s: State) -> bool:
    return s.decision == OVER


def kills(s: State) -> int:
    """Face cards killed so far."""
    return int(np.count_nonzero(s.place[FACE_CARDS] == DISCARD))


def outcome(s: State) -> dict:
    """``won`` (no face card left on the table), ``score`` (cards left in the deck on a win, else 0)."""
    won = s.result == WON
    return {
        "won": bool(won),
        "score": deck_size(s) if won else 0,
        "kills": kills(s),
        "result": RESULT_NAMES[s.result],
    }


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
# The card and the place each entry of the place block asks about, so one comparison fills it.
_FIELD_CARD = np.array([c for c in FACE_CARDS for _ in _FACE_PLACES]
                       + [c for c in NUMBER_CARDS for _ in _NUMBER_PLACES], dtype=np.int64)
_FIELD_PLACE = np.array([p for _ in FACE_CARDS for p in _FACE_PLACES]
                        + [p for _ in NUMBER_CARDS for p in _NUMBER_PLACES], dtype=np.int8)
# The reserve-depth slot of each card id (number cards only; face cards never reach the reserve).
_DEPTH_SLOT = np.full(NUM_CARDS, -1, dtype=np.int64)
_DEPTH_SLOT[NUMBER_CARDS] = _DEPTH_START + np.arange(len(NUMBER_CARDS))
_DEPTHS = np.arange(MAX_RESERVE, 0, -1, dtype=np.float32)
# Row c: card c's rank (13 entries) and suit (4 entries), one-hot; unseen counts = deck flags @ this.
_RANK_AND_SUIT = np.zeros((NUM_CARDS, 17), dtype=np.float32)
_RANK_AND_SUIT[np.arange(NUM_CARDS), RANK[:NUM_CARDS] - 1] = 1
_RANK_AND_SUIT[np.arange(NUM_CARDS), 13 + SUIT[:NUM_CARDS]] = 1
_LOCK_ONE_HOT = {NO_CARD: (0, 0, 0, 0), 0: (1, 0, 0, 0), 1: (0, 1, 0, 0), 2: (0, 0, 1, 0), 3: (0, 0, 0, 1)}


def _column_fields(s: State) -> list:
    """Per column: face count, each face card's value, attack and defence totals, the pretender's value,
    attack, defence and shortfall, the lock (one-hot) and the joker. Plain Python: 76 small numbers."""
    fields = []
    num_faces, faces = s.num_faces.tolist(), s.faces.tolist()
    attack, defense, lock = s.attack_total.tolist(), s.defense_total.tolist(), s.lock.tolist()
    for t in range(4):
        n = num_faces[t]
        values = [_VALUE[c] if c >= 0 else 0 for c in faces[t]]
        fields.append(n)
        fields += values
        fields += attack[t]
        fields += defense[t]
        if n:
            value, hit, held = values[n - 1], attack[t][n - 1], defense[t][n - 1]
            fields += (value, hit, held, value - hit + held)
        else:
            fields += (0, 0, 0, 0)
        fields += _LOCK_ONE_HOT[lock[t]]
        fields.append(s.joker == t)
    return fields


def observe(s: State) -> np.ndarray:
    """The flat observation: every card's place (the deck's cards only as unseen), the reserve in order,
    the columns, the joker, the card in play and the counts of unseen cards."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    obs[:_PLACE_BLOCK] = s.place[_FIELD_CARD] == _FIELD_PLACE
    n = s.reserve_size
    if n:
        obs[_DEPTH_SLOT[s.reserve[:n]]] = _DEPTHS[MAX_RESERVE - n:]  # the top is at depth 1

    obs[_COLUMNS_START:_GLOBAL_START] = _column_fields(s)
    i = _GLOBAL_START
    obs[i] = s.joker < 0
    if s.decision != OVER:
        obs[i + 1 + s.decision] = 1
    if s.in_play >= 0:
        obs[i + 3] = _VALUE[s.in_play]
        obs[i + 4 + _SUIT[s.in_play]] = 1
    obs[i + 8] = NUM_CARDS - s.top
    obs[i + 9] = n
    obs[i + 10] = s.discard_size
    obs[i + 11] = sum(s.num_faces.tolist())
    obs[_UNSEEN_START:] = (s.place == DECK).astype(np.float32) @ _RANK_AND_SUIT
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
