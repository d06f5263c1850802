"""Royal Assassin's observation features: what ``observation="features"`` and ``observation="actions"`` append to
the plain observation (``rules.observe``), computed from that observation alone.

``features`` is what a player reads off the table at a glance; ``action_features`` what each action would leave,
played by the rules themselves on the game the observation shows (``fill_seen_game``). The heuristic and the value
agent read a table the same way (``describe_table``). Not rules of the game (``rules.py`` holds those): what a
network learns from more easily than from the plain observation.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import SUIT, SUITS, card, card_code
from ..core.compiled import compiled
from .rules import (A_ASSASSIN, A_PASS, ACE, AT_ATTACK, AT_ATTACK_TOTAL, AT_DECISION, AT_DEFENSE, AT_DEFENSE_TOTAL,
                    AT_FACES, AT_IN_PLAY, AT_JOKER, AT_LOCK, AT_NUM_ATTACK, AT_NUM_DEFENSE, AT_NUM_FACES, AT_RESERVE,
                    AT_RESERVE_SIZE, AT_RESULT, AT_TARGET, AT_TOP, CONTINUE, DRAW, KING, MAX_FACES, MAX_RESERVE,
                    MAX_STACK, NO_CARD, NUM_ACTIONS, NUM_CARDS, NUMBER_CARDS, OBSERVATION_FIELDS, OBSERVATION_SIZE,
                    OVER, RED_SUIT, SUIT_TOTAL, VALUE, WON, State, faces_on_table, take_action)

# Where the observation's blocks start, read off its field names.
_FIELD_AT = {name: i for i, (name, _) in enumerate(OBSERVATION_FIELDS)}
_DEPTH_START = _FIELD_AT[f"card_{card_code(NUMBER_CARDS[0])}_reserve_depth"]
_COLUMNS_START = _FIELD_AT[f"column_{SUITS[0]}_faces"]
_COLUMN_WIDTH = _FIELD_AT[f"column_{SUITS[1]}_faces"] - _COLUMNS_START
_GLOBAL_START = _FIELD_AT["joker_free"]
# The compiled functions read int64 tables.
_VALUE = VALUE.astype(np.int64)
_SUIT = SUIT[:NUM_CARDS].astype(np.int64)


# ---------------------------------------------------------------- features (observation="features")

# What a player reads off the table at a glance, which a network would otherwise work out through several layers
# from the observation's card places and totals: for each column, what attacking it with the card in play would do (kill
# its pretender, or how far short it would fall, or be wiped by the defence waiting on the reserve), and how much
# attack of the card's own suit waits on the reserve to continue. Computed from the observation alone, for any
# leading batch shape.
FEATURE_FIELDS = (
    [(f"column_{t}_{name}", 1) for t in SUITS for name in (
        "kills_now",          # the card in play kills the pretender (attack - defence + card >= value)
        "short_after",        # what the pretender would still need after this card, / 13
        "defence_waiting",    # the value of the run of the column's suit on top of the reserve, / 65
        "wiped_after",        # no kill, and that defence would wipe the attack
        "kills_with_reserve", # the card and the attack run waiting on the reserve together reach the pretender
        "faces_dying",        # face cards the attack would kill now (the whole column with the joker on it), / 3
        "faces_dying_with_joker")]  # the same with the joker put on the column (assassin), / 3
    + [("attack_waiting", 1)]  # the value of the run of the card's suit on top of the reserve (continuations), / 65
)
FEATURE_SIZE = len(FEATURE_FIELDS)
FEATURE_HIGH = np.ones(FEATURE_SIZE, dtype=np.float32)
_NUMBER_VALUES = VALUE[NUMBER_CARDS].astype(np.float32)
_NUMBER_SUITS = np.eye(4, dtype=np.float32)[SUIT[NUMBER_CARDS]]  # (40 number cards, 4 suits)
_DEPTH_LEVELS = np.arange(1, MAX_RESERVE + 1, dtype=np.float32)


def _runs_on_reserve(obs: np.ndarray) -> np.ndarray:
    """(..., 4): per suit, the total value of the unbroken run of that suit on top of the reserve; in a
    continuation the card in play (the reserve's top) is left out: it is the one being played."""
    depth = obs[..., _DEPTH_START:_DEPTH_START + len(NUMBER_CARDS)]
    continuing = obs[..., _GLOBAL_START + 2] > 0
    depth = np.where(continuing[..., None] & (depth > 0), depth - 1, depth)
    at = depth[..., :, None] == _DEPTH_LEVELS  # (..., card, depth k): card c lies k from the top
    suit_at = np.einsum("...ck,cu->...ku", at, _NUMBER_SUITS)
    value_at = np.einsum("...ck,c->...k", at, _NUMBER_VALUES)
    unbroken = np.cumprod(suit_at, axis=-2)  # (..., depth, suit): every card from the top down to here is of it
    return np.einsum("...ku,...k->...u", unbroken, value_at)


def features(obs: np.ndarray) -> np.ndarray:
    """The ``FEATURE_FIELDS`` of observations ``obs`` (..., OBSERVATION_SIZE): float32 (..., FEATURE_SIZE)."""
    obs = np.asarray(obs, dtype=np.float32)
    lead = obs.shape[:-1]
    columns = obs[..., _COLUMNS_START:_GLOBAL_START].reshape(*lead, 4, _COLUMN_WIDTH)
    faces = columns[..., 0]
    pretender = 1 + 3 * MAX_FACES
    attack, defence, short = (columns[..., pretender + k] for k in (1, 2, 3))
    joker_here = columns[..., -1] > 0
    joker_free = obs[..., _GLOBAL_START] > 0
    card = obs[..., _GLOBAL_START + 3][..., None]
    card_suit = obs[..., _GLOBAL_START + 4:_GLOBAL_START + 8]
    runs = _runs_on_reserve(obs)
    attack_waiting = (runs * card_suit).sum(axis=-1, keepdims=True)
    present = (faces > 0) & (card > 0)
    kills_now = present & (card >= short)
    wiped = present & ~kills_now & (defence + runs >= attack + card)
    with_reserve = present & (card + attack_waiting >= short)
    dying = kills_now * np.where(joker_here, faces, 1)
    dying_with_joker = kills_now * joker_free[..., None] * (faces >= 2) * faces
    per_column = np.stack([kills_now, np.clip(short - card, 0, KING) / KING * present, runs / SUIT_TOTAL,
                           wiped, with_reserve, dying / MAX_FACES, dying_with_joker / MAX_FACES], axis=-1)
    return np.concatenate([per_column.reshape(*lead, 4 * 7), attack_waiting / SUIT_TOTAL],
                          axis=-1).astype(np.float32)


# ---------------------------------------------------------------- action fields (observation="actions")

# What each action would leave on the table, played by ``take_action`` itself on a game that looks as the observation
# shows with nothing left to turn (``fill_seen_game``), so up to the next card (which is unseen): per column its face
# cards, the pretender's shortfall, the lock, the joker, the unseen points of the suits still free to attack it, and
# the run of its suit on top of the reserve (the defence its next attack meets, or the attack a card of its suit could
# continue); then the action's kind and column, the kills, a win, a wipe and a continuation offered. A policy can
# score each action with one set of weights, as the heuristic judges each table it would leave. Computed from the
# observation alone, for any leading batch shape.
_COLUMN_AFTER_PARTS = ("faces", "short", "attacked", "buried_attack", "locked", "joker", "supply",
                       "short_per_supply", "run_on_top")
ACTION_FIELDS = ([f"column_{t}_{part}" for t in SUITS for part in _COLUMN_AFTER_PARTS]
                 + ["is_attack", "is_assassin", "is_pass", "to_reserve", "faces_killed", "faces_left", "won",
                    "wiped", "continues", "joker_free"]
                 + [f"attacks_{t}" for t in SUITS])
ACTION_FIELD_COUNT = len(ACTION_FIELDS)
ACTION_FEATURE_SIZE = NUM_ACTIONS * ACTION_FIELD_COUNT
_PART = {part: i for i, part in enumerate(_COLUMN_AFTER_PARTS)}
_FIELD = {name: i for i, name in enumerate(ACTION_FIELDS)}
_COLUMN_PARTS = len(_COLUMN_AFTER_PARTS)
_FACES, _SHORT, _ATTACKED, _BURIED, _LOCKED, _JOKER_HERE, _SUPPLY, _SHORT_PER_SUPPLY, _RUN = (
    _PART[k] for k in _COLUMN_AFTER_PARTS)
_IS_ATTACK, _IS_ASSASSIN, _IS_PASS, _TO_RESERVE, _FACES_KILLED, _FACES_LEFT, _WON, _WIPED, _CONTINUES, \
    _JOKER_FREE = (_FIELD[k] for k in ACTION_FIELDS[4 * _COLUMN_PARTS:-4])
_ATTACKS = _FIELD["attacks_S"]
# The unseen number cards' flags in the observation (their "deck" place), with their suits and values.
_NUMBER_DECK_FIELD = np.array([OBSERVATION_FIELDS.index((f"card_{card_code(c)}_deck", 1)) for c in NUMBER_CARDS])
_NUMBER_SUIT = _SUIT[NUMBER_CARDS]
_NUMBER_VALUE = _VALUE[NUMBER_CARDS]


# Which attack and defence cards lie on a face card the player sees only as totals; the rules read no more of a stack
# than its total and its suit (the column's lock for an attack, the column's own for a defence). So the game an
# observation shows holds one stand-in card of that suit on each stack, carrying the stack's total.
_STAND_IN = np.array([card(2, u) for u in range(4)], dtype=np.int64)
# The card of each rank (1-13) of each suit; a number card's value is its rank, but for the ace (11).
_CARD_OF = np.array([[card(r, u) if r else NO_CARD for r in range(14)] for u in range(4)], dtype=np.int64)
_RANK_OF_VALUE = np.array([0, 0] + list(range(2, 11)) + [ACE], dtype=np.int64)
_BLANK = State(np.zeros(NUM_CARDS, dtype=np.int64)).data


@compiled
def fill_seen_game(obs, a):
    """``a`` set to a game that looks as ``obs`` shows and has nothing left to turn: the columns, the reserve, the
    joker, the card in play and the decision as seen, the draw pile empty. Played on, an action resolves as far as
    the rules go before the next card. Where each card lies (``place``) is not kept: no move reads it."""
    a[:] = _BLANK
    a[AT_TOP] = NUM_CARDS
    for column in range(4):
        at = _COLUMNS_START + column * _COLUMN_WIDTH
        for u in range(4):
            if obs[at + 14 + u] > 0:
                a[AT_LOCK + column] = u
        if obs[at + 18] > 0:
            a[AT_JOKER] = column
        a[AT_NUM_FACES + column] = int(obs[at])
        for level in range(int(obs[at])):
            stack = column * MAX_FACES + level
            a[AT_FACES + stack] = _CARD_OF[column, int(obs[at + 1 + level])]
            attack, defense = int(obs[at + 1 + MAX_FACES + level]), int(obs[at + 1 + 2 * MAX_FACES + level])
            if attack:
                a[AT_ATTACK + stack * MAX_STACK] = _STAND_IN[a[AT_LOCK + column]]
                a[AT_NUM_ATTACK + stack], a[AT_ATTACK_TOTAL + stack] = 1, attack
            if defense:
                a[AT_DEFENSE + stack * MAX_STACK] = _STAND_IN[column]
                a[AT_NUM_DEFENSE + stack], a[AT_DEFENSE_TOTAL + stack] = 1, defense
    size = 0
    for k in range(len(NUMBER_CARDS)):
        size += obs[_DEPTH_START + k] > 0
    for k in range(len(NUMBER_CARDS)):
        depth = int(obs[_DEPTH_START + k])
        if depth > 0:
            a[AT_RESERVE + size - depth] = NUMBER_CARDS[k]  # the top, depth 1, last
    a[AT_RESERVE_SIZE] = size
    a[AT_DECISION] = OVER
    for decision in (DRAW, CONTINUE):
        if obs[_GLOBAL_START + 1 + decision] > 0:
            a[AT_DECISION] = decision
    for u in range(4):
        if obs[_GLOBAL_START + 4 + u] > 0:
            a[AT_IN_PLAY] = _CARD_OF[u, _RANK_OF_VALUE[int(obs[_GLOBAL_START + 3])]]
            if a[AT_DECISION] == CONTINUE:
                for column in range(4):  # the column the continuing suit attacks is the one it locks
                    if a[AT_LOCK + column] == u:
                        a[AT_TARGET] = column


@compiled
def reserve_run(a):
    """The points of the unbroken run of the reserve top's suit, from the top down (0 for an empty reserve)."""
    size = a[AT_RESERVE_SIZE]
    run = 0
    for i in range(size - 1, -1, -1):
        if _SUIT[a[AT_RESERVE + i]] != _SUIT[a[AT_RESERVE + size - 1]]:
            break
        run += _VALUE[a[AT_RESERVE + i]]
    return run


@compiled
def may_attack(lock, column, u):
    """Whether a card of suit ``u`` could attack ``column`` under the locks ``lock`` (as ``fill_legal_mask``)."""
    if RED_SUIT[u] == RED_SUIT[column]:
        return False
    if lock[column] >= 0:
        return lock[column] == u
    return lock[0] != u and lock[1] != u and lock[2] != u and lock[3] != u


@compiled
def describe_table(obs, a, out):
    """Game ``a``'s table, column by column, into ``out`` (the ``ACTION_FIELDS`` of the columns, the faces left and
    the joker); the points still to come for each column are those of the unseen number cards (in ``obs``) that could
    attack it. The action fields, and the value agent's fields of a table, both read it."""
    size = a[AT_RESERVE_SIZE]
    run = reserve_run(a)
    lock = a[AT_LOCK:AT_LOCK + 4]
    for column in range(4):
        at = column * _COLUMN_PARTS
        n = a[AT_NUM_FACES + column]
        stack = column * MAX_FACES + n - 1
        short = _VALUE[a[AT_FACES + stack]] - a[AT_ATTACK_TOTAL + stack] + a[AT_DEFENSE_TOTAL + stack] if n else 0
        points = 0.0
        for k in range(len(NUMBER_CARDS)):
            if obs[_NUMBER_DECK_FIELD[k]] > 0 and may_attack(lock, column, _NUMBER_SUIT[k]):
                points += _NUMBER_VALUE[k]
        out[at + _SUPPLY] = points / (2 * SUIT_TOTAL)
        if size and _SUIT[a[AT_RESERVE + size - 1]] == column:
            out[at + _RUN] = run / SUIT_TOTAL
        if n == 0:
            continue
        out[at + _FACES] = n / MAX_FACES
        out[at + _SHORT] = short / KING
        out[at + _ATTACKED] = a[AT_ATTACK_TOTAL + stack] > 0
        for level in range(n - 1):
            if a[AT_ATTACK_TOTAL + column * MAX_FACES + level] > 0:
                out[at + _BURIED] = 1
        out[at + _LOCKED] = lock[column] >= 0
        out[at + _JOKER_HERE] = a[AT_JOKER] == column
        out[at + _SHORT_PER_SUPPLY] = short / (points + 1) / KING
    out[_FACES_LEFT] = faces_on_table(a) / (4 * MAX_FACES)
    out[_JOKER_FREE] = a[AT_JOKER] < 0


@compiled
def _fill_action(obs, seen, a, action, out):
    """``out`` (ACTION_FIELD_COUNT) set to what ``action`` leaves of the game ``seen`` (``fill_seen_game`` of
    ``obs``), played by ``take_action`` on ``a`` (scratch), before the next card."""
    out[:] = 0
    if seen[AT_DECISION] == OVER:
        return
    if action == A_PASS:
        out[_IS_PASS] = 1
        out[_TO_RESERVE] = seen[AT_DECISION] == DRAW
    else:
        column = action % 4
        assassin = action >= A_ASSASSIN
        if seen[AT_NUM_FACES + column] == 0 or RED_SUIT[_SUIT[seen[AT_IN_PLAY]]] == RED_SUIT[column] or (
                assassin and (seen[AT_JOKER] >= 0 or seen[AT_NUM_FACES + column] < 2)):
            return  # no pretender to attack, a card of its own colour, or no joker to lay: all zeros
        out[_IS_ASSASSIN if assassin else _IS_ATTACK] = 1
        out[_ATTACKS + column] = 1
    a[:] = seen
    out[_WIPED] = take_action(a, action)
    out[_FACES_KILLED] = (faces_on_table(seen) - faces_on_table(a)) / MAX_FACES
    out[_WON] = a[AT_RESULT] == WON
    out[_CONTINUES] = a[AT_DECISION] == CONTINUE
    describe_table(obs, a, out)


@compiled
def _fill_action_rows(obs, out):
    seen, scratch = _BLANK.copy(), _BLANK.copy()
    for i in range(obs.shape[0]):
        fill_seen_game(obs[i], seen)
        for action in range(NUM_ACTIONS):
            _fill_action(obs[i], seen, scratch, action, out[i, action])


def action_features(obs: np.ndarray) -> np.ndarray:
    """The ``ACTION_FIELDS`` of every action for observations ``obs`` (..., OBSERVATION_SIZE): float32
    (..., NUM_ACTIONS * ACTION_FIELD_COUNT), action by action. An attack on a column with no pretender or of the
    card's own colour, or the joker where it cannot go, is all zeros, and so is every action of a finished game;
    an attack the locks forbid is described as if it were played (the mask says which actions are legal)."""
    obs = np.asarray(obs, dtype=np.float32)
    lead = obs.shape[:-1]
    rows = obs.reshape(-1, OBSERVATION_SIZE)
    out = np.zeros((len(rows), NUM_ACTIONS, ACTION_FIELD_COUNT), dtype=np.float32)
    _fill_action_rows(rows, out)
    return out.reshape(*lead, ACTION_FEATURE_SIZE)
