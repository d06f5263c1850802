"""Dungeon Solitaire: Tomb of Four Kings (Matthew Lowes), the rules as pure functions.

Hold this file next to RULES.md: each section there has a function here. A game's state is a ``State``: one flat
integer array (``s.data``) with a named view per part (``s.place``, ``s.hp``...). The turn is written once, as
functions compiled with numba over that array; the single env calls them on one game, the vector env through the
loops at the end of this file on a row per game. ``apply`` copies the state and returns the next one. No
Gymnasium here: the env, agents and benchmarks only call these functions. With ``NUMBA_DISABLE_JIT=1`` the same
functions run as plain Python.

Cards are the suite's card ids (``envs/core/cards.py``). The draw pile is ``deck[top:end]``
(top first); every card's place on the table is ``place[card]``.
"""

from __future__ import annotations

import numba
import numpy as np

from ..core.cards import JOKERS, RANK, SUIT, card, card_code, parse_deck, shuffled
from ..core.compiled import compiled, on_threads, only_action
from ..core.state import FlatState, lay_out
from ..core.turn import CompiledTurn, one_game

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
JOKER = JOKERS[0]
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

# The 44-card draw deck: 2-10 of spades, diamonds and clubs, every A J Q K, one joker.
# 2-10 of hearts are the hit-point track and never enter play.
DECK_CARDS = np.array(
    sorted([card(r, s) for s in (SPADES, DIAMONDS, CLUBS) for r in range(2, 11)]
           + [card(r, s) for s in range(4) for r in (ACE, JACK, QUEEN, KING)] + [JOKER]),
    dtype=np.int8,
)
NUM_DECK_CARDS = len(DECK_CARDS)  # 44
MAX_HP = 9
MAX_TORCHES = 4

BERSERK_JACK, DISARM_JACK, PICK_LOCK_JACK, DODGE_JACK = (
    card(JACK, SPADES), card(JACK, DIAMONDS), card(JACK, CLUBS), card(JACK, HEARTS))
SKILL_FOR_ENCOUNTER = {SPADES: BERSERK_JACK, DIAMONDS: DISARM_JACK, CLUBS: PICK_LOCK_JACK}

# Where a card lies.
DECK, HAND, TURN, TORCH_ROW, DISCARDS, USED, OUT_OF_PLAY = range(7)
PLACE_NAMES = ("deck", "hand", "turn", "torch_row", "discards", "used", "out_of_play")

# Stage of the game, and the kind of decision the player faces.
DELVE, RETREAT, OVER = range(3)
STAGE_NAMES = ("delve", "retreat", "over")
START, ENCOUNTER, DOOR_FAILED, DAMAGE, BETWEEN_TURNS = range(5)
STEP_NAMES = ("start", "encounter", "door_failed", "damage", "between_turns")

# How the game ended.
PLAYING, ESCAPED, KILLED, LOST_IN_THE_DARK, FORFEITED = range(5)
RESULT_NAMES = ("playing", "escaped", "killed", "lost_in_the_dark", "forfeited")

# Treasure a monster can be bought off with, and what each is worth for a drop.
DROP_CARDS = np.array([card(r, DIAMONDS) for r in range(2, 11)]
                      + [card(KING, s) for s in range(4)] + [JOKER], dtype=np.int8)
DROP_VALUES = np.array(list(range(2, 11)) + [10, 10, 10, 10, 6], dtype=np.int8)

ACTION_NAMES = (
    ["delve", "retreat", "draw", "berserk", "disarm", "pick_lock", "discard", "dodge", "take_damage"]
    + ["drop_" + card_code(c) for c in DROP_CARDS]
)
(A_DELVE, A_RETREAT, A_DRAW, A_BERSERK, A_DISARM, A_PICK_LOCK, A_DISCARD, A_DODGE,
 A_TAKE_DAMAGE) = range(9)
A_FIRST_DROP = 9
NUM_ACTIONS = len(ACTION_NAMES)


def is_encounter_card(c: int) -> bool:
    """2-10 of spades, diamonds or clubs: a monster, trap or door, or later an action card."""
    return 2 <= RANK[c] <= 10


def is_treasure(c: int) -> bool:
    """Collected from a won turn: any 2-10 of diamonds, every king, the joker."""
    return c == JOKER or RANK[c] == KING or (SUIT[c] == DIAMONDS and 2 <= RANK[c] <= 10)


NUM_CARD_IDS = len(RANK)
# Tables for the compiled functions, in int64 (so that plain Python adds offsets in the same integers).
_RANK = RANK.astype(np.int64)
_SUIT = SUIT.astype(np.int64)
_IS_TREASURE = np.array([is_treasure(c) for c in range(NUM_CARD_IDS)])
_SKILL_JACK = np.full(4, -1, dtype=np.int64)  # the skill each encounter suit calls for (hearts: never one)
for _suit, _jack in SKILL_FOR_ENCOUNTER.items():
    _SKILL_JACK[_suit] = _jack
_DROP_CARDS = DROP_CARDS.astype(np.int64)
_DROP_VALUES = DROP_VALUES.astype(np.int64)


class State(FlatState):
    """Everything on the table, hidden deck order included. Each part's values run from ``low`` to ``high``."""

    PARTS = (
        # One spare slot in the deck: the scroll sends the fourth ace back under the deck once per game.
        ("deck", NUM_DECK_CARDS + 1, -1, NUM_CARD_IDS - 1),
        ("top", 0, 0, NUM_DECK_CARDS + 1),
        ("end", 0, NUM_DECK_CARDS, NUM_DECK_CARDS + 1),
        ("place", NUM_CARD_IDS, DECK, OUT_OF_PLAY),
        # When each card reached its place: orders the turn and the hand for display.
        ("arrival", NUM_CARD_IDS, 0, 4 * NUM_CARD_IDS),
        ("clock", 0, 0, 4 * NUM_CARD_IDS),
        ("hp", 0, 0, MAX_HP),
        ("torches", 0, 0, MAX_TORCHES),
        ("scroll_used", 0, 0, 1),
        ("stage", 0, DELVE, OVER),
        ("step", 0, START, BETWEEN_TURNS),
        ("delve_turns", 0, 0, NUM_DECK_CARDS),
        ("retreat_turns", 0, 0, NUM_DECK_CARDS),
        ("encounter", 0, -1, NUM_CARD_IDS - 1),
        ("pending_damage", 0, 0, 10),
        ("pending_discards", 0, 0, 10),
        ("result", 0, PLAYING, FORFEITED),
        ("min_delve_turns_before_retreat", 0, 1, 2**62),  # the env's option, kept with the game
    )

    def __init__(self, deck: np.ndarray, min_delve_turns_before_retreat: int):
        self.data = np.zeros(self.SIZE, dtype=np.int64)
        self.deck = -1
        self.deck[:NUM_DECK_CARDS] = deck
        self.end = NUM_DECK_CARDS
        self.place = OUT_OF_PLAY
        self.place[DECK_CARDS] = DECK
        self.hp = MAX_HP
        self.stage = DELVE
        self.step = START
        self.encounter = -1
        self.result = PLAYING
        self.min_delve_turns_before_retreat = min_delve_turns_before_retreat


# Where each part sits in ``data``: the compiled functions read and write the array at these offsets.
_AT = lay_out(State)
AT_DECK, AT_TOP, AT_END, AT_PLACE, AT_ARRIVAL, AT_CLOCK = (_AT[k] for k in ("deck", "top", "end", "place",
                                                                            "arrival", "clock"))
AT_HP, AT_TORCHES, AT_SCROLL_USED, AT_STAGE, AT_STEP = (_AT[k] for k in ("hp", "torches", "scroll_used", "stage",
                                                                         "step"))
AT_DELVE_TURNS, AT_RETREAT_TURNS, AT_ENCOUNTER = _AT["delve_turns"], _AT["retreat_turns"], _AT["encounter"]
AT_PENDING_DAMAGE, AT_PENDING_DISCARDS, AT_RESULT = _AT["pending_damage"], _AT["pending_discards"], _AT["result"]
AT_MIN_DELVE = _AT["min_delve_turns_before_retreat"]


# ---------------------------------------------------------------- setup

def new_game(rng: np.random.Generator, deck=None, min_delve_turns_before_retreat: int = 2) -> State:
    """A new game: the 44 cards shuffled with ``rng`` (``deal``), or stacked from ``deck`` (codes, top first)."""
    s = State(DECK_CARDS if deck is None else parse_deck(deck, DECK_CARDS), min_delve_turns_before_retreat)
    if deck is None:
        deal(s.data, rng)
    return s


_DECK_IN_ORDER = np.sort(DECK_CARDS).astype(np.int64)  # as ``shuffled`` sorts the cards before it shuffles


def deal(a, rng):
    """The shuffle of a new game, with ``rng``, on ``a`` (one game's data, or a vector env's row) holding a new
    game's table: its deck.
    The single env runs it as Python (numpy shuffles a deck faster than numba takes a generator in); ``deal_rows``
    runs it compiled, where numba's ``shuffle`` draws what numpy's does, from the same generator."""
    deck = _DECK_IN_ORDER.copy()
    rng.shuffle(deck)
    a[AT_DECK:AT_DECK + NUM_DECK_CARDS] = deck


_compiled_deal = compiled(deal)


@compiled
def deal_rows(data, rows, rngs):
    """``deal`` in each row of ``rows`` (indices), with that game's generator (``rngs``, a typed list of every
    game's): a vector env's new games, with no Python per game."""
    for i in rows:
        _compiled_deal(data[i], rngs[i])


# ---------------------------------------------------------------- moving cards
# Compiled: each function takes ``a``, one game's ``data``, and changes it in place.

@compiled
def _move(a, c, place):
    a[AT_PLACE + c] = place
    a[AT_ARRIVAL + c] = a[AT_CLOCK]
    a[AT_CLOCK] += 1


def cards_in(s: State, place: int) -> np.ndarray:
    """The cards in a place, in the order they arrived."""
    cards = np.flatnonzero(s.place == place)
    return cards[np.argsort(s.arrival[cards], kind="stable")]


def in_hand(s: State, c: int) -> bool:
    return s.place[c] == HAND


def deck_size(s: State) -> int:
    return s.end - s.top


@compiled
def _draw(a):
    """Take the top card of the deck; -1 and lost in the dark if it is empty (never while the game is live)."""
    if a[AT_TOP] == a[AT_END]:
        a[AT_TORCHES] = MAX_TORCHES
        end_game(a, LOST_IN_THE_DARK)
        return -1
    c = a[AT_DECK + a[AT_TOP]]
    a[AT_TOP] += 1
    return c


@compiled
def end_game(a, result):
    a[AT_RESULT] = result
    a[AT_STAGE] = OVER
    a[AT_PENDING_DAMAGE] = 0
    a[AT_PENDING_DISCARDS] = 0


# ---------------------------------------------------------------- torches and the scroll

@compiled
def _torch_goes_out(a, ace):
    """An ace was revealed (drawn or discarded). The fourth one loses, unless the scroll is in hand."""
    if a[AT_TORCHES] < MAX_TORCHES - 1:
        a[AT_TORCHES] += 1
        _move(a, ace, TORCH_ROW)
    elif a[AT_PLACE + JOKER] == HAND:
        # The scroll takes the ace's place in the torch row; the ace goes under the deck.
        _move(a, JOKER, TORCH_ROW)
        a[AT_SCROLL_USED] = 1
        a[AT_DECK + a[AT_END]] = ace
        a[AT_END] += 1
        _move(a, ace, DECK)
    else:
        a[AT_TORCHES] = MAX_TORCHES
        _move(a, ace, TORCH_ROW)
        end_game(a, LOST_IN_THE_DARK)


# ---------------------------------------------------------------- a turn

@compiled
def _reveal(a):
    """Turn the top card and put it where the rules send it: an ace goes out as a torch, a jack to the
    hand, anything else into the turn. Returns the card, or -1 if the game ended."""
    c = _draw(a)
    if c < 0:
        return -1
    rank = _RANK[c]
    if rank == ACE:
        _torch_goes_out(a, c)
    elif rank == JACK:
        _move(a, c, HAND)
    else:
        _move(a, c, TURN)
    return c if a[AT_STAGE] != OVER else -1


@compiled
def _start_turn(a):
    """Reveal cards until the turn's encounter (the first 2-10 of spades, diamonds or clubs)."""
    a[AT_STEP] = ENCOUNTER
    favor = False
    while True:
        c = _reveal(a)
        if c < 0:
            return
        if _RANK[c] == QUEEN:
            favor = True
        elif 2 <= _RANK[c] <= 10:
            a[AT_ENCOUNTER] = c
            if favor:
                _end_turn(a, True)
            return


@compiled
def _reveal_in_encounter(a):
    """The player reveals one card against the showing encounter."""
    c = _reveal(a)
    if c < 0:
        return
    if _RANK[c] == QUEEN:
        _end_turn(a, True)
    elif 2 <= _RANK[c] <= 10:
        _action_card(a, _RANK[c])


@compiled
def _action_card(a, value):
    """An action card of ``value`` against the encounter: it wins if it is at least the encounter's value."""
    encounter = a[AT_ENCOUNTER]
    encounter_value = _RANK[encounter]
    if value >= encounter_value:
        _end_turn(a, True)
    elif _SUIT[encounter] == CLUBS:
        a[AT_PENDING_DISCARDS] = encounter_value - value
        a[AT_STEP] = DOOR_FAILED
    else:
        # Monster: a hit, and the fight goes on. Trap: a hit, and the turn is lost.
        a[AT_PENDING_DAMAGE] = encounter_value - value
        a[AT_STEP] = DAMAGE


@compiled
def _after_damage(a):
    if _SUIT[a[AT_ENCOUNTER]] == DIAMONDS:
        _end_turn(a, False)
    else:
        a[AT_STEP] = ENCOUNTER


@compiled
def _discard_from_deck(a, count):
    """A shut door's discards: each is looked at; aces still go out as torches, the rest leave the game."""
    for _ in range(count):
        c = _draw(a)
        if c < 0:
            return
        if _RANK[c] == ACE:
            _torch_goes_out(a, c)
            if a[AT_STAGE] == OVER:
                return
        else:
            _move(a, c, DISCARDS)


@compiled
def _end_turn(a, won):
    """Collect the treasure of a won turn (one card must stay as the marker), then the turn is done."""
    if won:
        all_treasure, marker = True, -1
        for c in range(NUM_CARD_IDS):
            if a[AT_PLACE + c] == TURN:
                if not _IS_TREASURE[c]:
                    all_treasure = False
                elif _SUIT[c] == DIAMONDS and (marker < 0 or _RANK[c] < _RANK[marker]):
                    marker = c
        if not all_treasure:
            marker = -1
        # Ruling: when every card of the turn is treasure, the lowest diamond stays as the turn's marker.
        for c in range(NUM_CARD_IDS):
            if a[AT_PLACE + c] == TURN and _IS_TREASURE[c] and c != marker:
                _move(a, c, HAND)
    for c in range(NUM_CARD_IDS):
        if a[AT_PLACE + c] == TURN:
            _move(a, c, USED)
    a[AT_ENCOUNTER] = -1
    a[AT_PENDING_DAMAGE] = 0
    a[AT_PENDING_DISCARDS] = 0
    a[AT_STEP] = BETWEEN_TURNS
    if a[AT_STAGE] == RETREAT and a[AT_RETREAT_TURNS] == a[AT_DELVE_TURNS] - 1:
        _escape(a)


@compiled
def _escape(a):
    a[AT_RESULT] = ESCAPED
    a[AT_STAGE] = OVER


# ---------------------------------------------------------------- the player's decisions

@compiled
def fill_legal_mask(a, mask):
    """``mask`` set to the actions the rules allow now (all False once the game is over)."""
    mask[:] = False
    if a[AT_STAGE] == OVER:
        return
    step = a[AT_STEP]
    if step == START:
        mask[A_DRAW] = True
    elif step == BETWEEN_TURNS:
        if a[AT_STAGE] == DELVE:
            mask[A_DELVE] = True
            mask[A_RETREAT] = a[AT_DELVE_TURNS] >= a[AT_MIN_DELVE]
        else:
            mask[A_DRAW] = True
    elif step == ENCOUNTER:
        mask[A_DRAW] = True
        encounter = a[AT_ENCOUNTER]
        suit = _SUIT[encounter]
        if suit == SPADES:
            mask[A_BERSERK] = a[AT_PLACE + BERSERK_JACK] == HAND
            for k in range(len(_DROP_CARDS)):
                mask[A_FIRST_DROP + k] = (a[AT_PLACE + _DROP_CARDS[k]] == HAND
                                          and _DROP_VALUES[k] >= _RANK[encounter])
        elif suit == DIAMONDS:
            mask[A_DISARM] = a[AT_PLACE + DISARM_JACK] == HAND
        else:
            mask[A_PICK_LOCK] = a[AT_PLACE + PICK_LOCK_JACK] == HAND
    elif step == DOOR_FAILED:
        mask[A_DISCARD] = True
        mask[A_PICK_LOCK] = a[AT_PLACE + PICK_LOCK_JACK] == HAND
    elif step == DAMAGE:
        mask[A_TAKE_DAMAGE] = True
        mask[A_DODGE] = a[AT_PLACE + DODGE_JACK] == HAND


@compiled
def take_action(a, action):
    """The player's ``action`` (which must be legal) and what follows it up to the next decision."""
    if action == A_DELVE:
        a[AT_DELVE_TURNS] += 1
        _start_turn(a)
    elif action == A_RETREAT:
        a[AT_STAGE] = RETREAT
        if a[AT_DELVE_TURNS] == 1:  # possible only when retreat is allowed after one turn
            _escape(a)
        else:
            a[AT_RETREAT_TURNS] += 1
            _start_turn(a)
    elif action == A_DRAW:
        if a[AT_STEP] == START:
            a[AT_DELVE_TURNS] = 1
            _start_turn(a)
        elif a[AT_STEP] == BETWEEN_TURNS:
            a[AT_RETREAT_TURNS] += 1
            _start_turn(a)
        else:
            _reveal_in_encounter(a)
    elif action == A_BERSERK or action == A_DISARM or action == A_PICK_LOCK:
        _move(a, _SKILL_JACK[_SUIT[a[AT_ENCOUNTER]]], TURN)
        _end_turn(a, True)
    elif action == A_DISCARD:
        _discard_from_deck(a, a[AT_PENDING_DISCARDS])
        if a[AT_STAGE] != OVER:
            _end_turn(a, False)
    elif action == A_DODGE:
        _move(a, DODGE_JACK, USED)
        a[AT_PENDING_DAMAGE] = 0
        _after_damage(a)
    elif action == A_TAKE_DAMAGE:
        a[AT_HP] = max(0, a[AT_HP] - a[AT_PENDING_DAMAGE])
        a[AT_PENDING_DAMAGE] = 0
        if a[AT_HP] == 0:
            end_game(a, KILLED)
        else:
            _after_damage(a)
    else:
        # A treasure drop buys off the monster: the fight ends, not won.
        _move(a, _DROP_CARDS[action - A_FIRST_DROP], TURN)
        _end_turn(a, False)


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


def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy with the unseen cards of the deck reshuffled (the ace the scroll sent under it stays)."""
    s = s.copy()
    last = s.end - 1 if s.scroll_used and s.top < s.end else s.end
    s.deck[s.top:last] = shuffled(s.deck[s.top:last], rng)
    return s


# ---------------------------------------------------------------- end and score

def kings_in_hand(s: State) -> int:
    return int(np.sum(s.place[[card(KING, suit) for suit in range(4)]] == HAND))


def treasure_points_of(c: int) -> int:
    """What a card in hand is worth at the end: 10 for a king, face value for a diamond, 6 for the joker."""
    if c == JOKER:
        return 6
    if RANK[c] == KING:
        return 10
    if SUIT[c] == DIAMONDS and RANK[c] <= 10:
        return int(RANK[c])
    return 0


def treasure_points(s: State) -> int:
    """The points of the hand."""
    return sum(treasure_points_of(int(c)) for c in np.flatnonzero(s.place == HAND))


KING_CARDS = np.array([card(KING, suit) for suit in range(4)], dtype=np.int64)
IS_KING = np.array([c != JOKER and RANK[c] == KING for c in range(NUM_CARD_IDS)], dtype=np.int64)  # per card id
TREASURE_POINTS = np.array([treasure_points_of(c) for c in range(NUM_CARD_IDS)], dtype=np.int64)  # per card id


@compiled
def scores(data):
    """Each game's ``won``, ``score`` and ``kings`` (a row of ``data`` each; see ``outcomes``). Compiled: a game's
    outcome is read at every step it ends in, and numpy's calls on one row take five times as long."""
    won = np.zeros(len(data), dtype=np.bool_)
    score = np.zeros(len(data), dtype=np.int64)
    kings = np.zeros(len(data), dtype=np.int64)
    for i in range(len(data)):
        points = 0
        for c in range(NUM_CARD_IDS):
            if data[i, AT_PLACE + c] == HAND:
                kings[i] += IS_KING[c]
                points += TREASURE_POINTS[c]
        escaped = data[i, AT_RESULT] == ESCAPED
        won[i] = escaped and kings[i] == 4
        score[i] = points if escaped else 0
    return won, score, kings


def outcomes(data: np.ndarray) -> dict:
    """The outcome of each game, a row of ``data`` each, as arrays (what a vector env's infos hold): ``won``
    (escaped with all four kings), ``score`` (points on an escape, 0 on a loss), ``kings``, ``result`` (the code of a
    name in ``RESULT_NAMES``)."""
    won, score, kings = scores(data)
    return {
        "won": won,
        "score": score,
        "kings": kings,
        "result": data[:, AT_RESULT].copy(),
    }


def outcome(s: State) -> dict:
    """``outcomes`` of the game ``s``, as Python's values."""
    return one_game(outcomes(s.data[None]), RESULT_NAMES)


# ---------------------------------------------------------------- what the player sees

# Per-card places as the player sees them; a card in the deck is unseen (all zeros) unless
# it is the ace the scroll sent under the deck.
_SEEN_PLACES = np.array([HAND, TURN, TORCH_ROW, DISCARDS, USED], dtype=np.int64)
_RANKS_SEEN = np.arange(1, 14)
OBSERVATION_FIELDS = (
    [("card_" + card_code(c) + "_" + PLACE_NAMES[int(p)], 1) for c in DECK_CARDS for p in _SEEN_PLACES]
    + [("known_ace_under_deck", 1)]
    + [("stage_" + n, 1) for n in STAGE_NAMES]
    + [("step_" + n, 1) for n in STEP_NAMES]
    + [("hp", MAX_HP), ("torches", MAX_TORCHES), ("scroll_used", 1),
       ("delve_turns", NUM_DECK_CARDS), ("retreat_turns", NUM_DECK_CARDS),
       ("retreat_turns_left", NUM_DECK_CARDS),
       ("encounter_monster", 1), ("encounter_trap", 1), ("encounter_door", 1), ("encounter_value", 10),
       ("pending_damage", 8), ("pending_discards", 8), ("deck_size", NUM_DECK_CARDS)]
    + [(f"unseen_rank_{r}", 12 if 2 <= r <= 10 else 4) for r in _RANKS_SEEN]
    + [("unseen_joker", 1)]
)
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
OBSERVATION_LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_HIGH = np.array([high for _, high in OBSERVATION_FIELDS], dtype=np.float32)
_CARD_BLOCK = len(DECK_CARDS) * len(_SEEN_PLACES)
_UNSEEN_AT = _CARD_BLOCK + 9 + 13  # unseen_rank_1 ... unseen_rank_13, then unseen_joker


_DECK_CARDS = DECK_CARDS.astype(np.int64)


@compiled
def fill_observation(a, obs):
    """``obs`` set to the observation of game ``a``: where every seen card is, the counters, and the counts of
    unseen cards."""
    obs[:] = 0
    scroll_used = a[AT_SCROLL_USED]
    known_ace = False
    for k in range(NUM_DECK_CARDS):
        c = _DECK_CARDS[k]
        place = a[AT_PLACE + c]
        if place == DECK:
            if scroll_used and _RANK[c] == ACE:
                known_ace = True  # after the scroll the only ace left in the deck is the one the player saw go under
            else:
                obs[_UNSEEN_AT + (13 if c == JOKER else _RANK[c] - 1)] += 1
        else:
            for flag in range(len(_SEEN_PLACES)):
                obs[k * len(_SEEN_PLACES) + flag] = place == _SEEN_PLACES[flag]
    i = _CARD_BLOCK
    obs[i] = known_ace
    obs[i + 1 + a[AT_STAGE]] = 1
    obs[i + 4 + a[AT_STEP]] = 1
    i += 9
    retreat_left = a[AT_DELVE_TURNS] - 1 - a[AT_RETREAT_TURNS] if a[AT_STAGE] == RETREAT else 0
    encounter = a[AT_ENCOUNTER]
    suit = _SUIT[encounter] if encounter >= 0 else -1
    obs[i] = a[AT_HP]
    obs[i + 1] = a[AT_TORCHES]
    obs[i + 2] = scroll_used
    obs[i + 3] = a[AT_DELVE_TURNS]
    obs[i + 4] = a[AT_RETREAT_TURNS]
    obs[i + 5] = max(0, retreat_left)
    obs[i + 6] = suit == SPADES
    obs[i + 7] = suit == DIAMONDS
    obs[i + 8] = suit == CLUBS
    obs[i + 9] = _RANK[encounter] if encounter >= 0 else 0
    obs[i + 10] = a[AT_PENDING_DAMAGE]
    obs[i + 11] = a[AT_PENDING_DISCARDS]
    obs[i + 12] = a[AT_END] - a[AT_TOP]


def observe(s: State) -> np.ndarray:
    """The flat observation (``OBSERVATION_FIELDS`` names every entry)."""
    obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    fill_observation(s.data, obs)
    return obs


def describe(s: State) -> dict:
    """The public table as a JSON-serialisable dict (the keys RULES.md lists)."""
    codes = lambda place: [card_code(int(c)) for c in cards_in(s, place)]  # noqa: E731
    return {
        "phase": STAGE_NAMES[s.stage],
        "decision": STEP_NAMES[s.step] if s.stage != OVER else None,
        "delve_turns": s.delve_turns,
        "retreat_turns": s.retreat_turns,
        "hp": s.hp,
        "torches": s.torches,
        "scroll_used": bool(s.scroll_used),
        "hand": codes(HAND),
        "turn": codes(TURN),
        "encounter": card_code(s.encounter) if s.encounter >= 0 else None,
        "pending_damage": s.pending_damage,
        "pending_discards": s.pending_discards,
        "deck_size": deck_size(s),
        "torch_row": codes(TORCH_ROW),
        "discards": codes(DISCARDS),
        "result": RESULT_NAMES[s.result],
    }
OBSERVATION_INDEX = {name: i for i, (name, _) in enumerate(OBSERVATION_FIELDS)}


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
