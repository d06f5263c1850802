"""Dead Center (Wil Su, after Tom Francis's Gridcannon), the rules as pure functions.

Hold this file next to RULES.md: each section there has a function or a table here. A game's state is a
``State``: one flat integer array (``s.data``) with a named view per part (``s.pile_top``, ``s.top``...). The
turn itself (``take_action``, ``fill_legal_mask``, ``fill_observation``) is written once, as functions compiled
with numba over that array; the single env calls them on one game, the vector env through the loops at the end of
this file on a row per game. ``apply`` copies the state and returns the next. No Gymnasium here: the env, agents
and benchmarks only call these functions. With ``NUMBA_DISABLE_JIT=1`` the same functions run as plain Python.

Cards are the suite's card ids (``envs/core/cards.py``). The cabin is nine piles, ``p = 3*row + col``
with row 0 at the top; only each pile's top card matters to the rules. The twelve zombie slots
are numbered in the stacked-deck order T0 T1 T2 R0 R1 R2 B0 B1 B2 L0 L1 L2 (clockwise from the
top left). The draw pile is ``deck[top:end]``, top first; every card's place is ``place[card]``.
"""

from __future__ import annotations

import numba
import numpy as np

from ..core.cards import IS_RED, JOKERS, NUM_CARD_IDS, RANK, SUIT, card_code, parse_deck, shuffled
from ..core.compiled import compiled, on_threads, only_action
from ..core.state import FlatState, lay_out
from ..core.turn import CompiledTurn, one_game

JACK, QUEEN, KING = 11, 12, 13
MAX_JOKERS = 2
JOKER_OPTIONS = (0, 1, 2)

# The 40 number cards and the 12 zombies (J, Q, K), in card-id order.
NUMBER_CARDS = np.array([c for c in range(52) if RANK[c] <= 10], dtype=np.int8)
ZOMBIE_CARDS = np.array([c for c in range(52) if RANK[c] >= JACK], dtype=np.int8)
NUM_PILES = 9
NUM_SLOTS = 12
CABIN_SIZE = NUM_PILES
MAX_DECK = len(NUMBER_CARDS) + MAX_JOKERS - CABIN_SIZE  # 33 with both jokers

# ---------------------------------------------------------------- geometry

SLOT_NAMES = ("T0", "T1", "T2", "R0", "R1", "R2", "B0", "B1", "B2", "L0", "L1", "L2")
# The pile a slot is attacked from, and the two support piles: the rest of that line.
ATTACK_PILE = np.array([0, 1, 2, 2, 5, 8, 6, 7, 8, 0, 3, 6], dtype=np.int8)
SUPPORT_PILES = np.array([(3, 6), (4, 7), (5, 8),      # Tc: the column below
                          (0, 1), (3, 4), (6, 7),      # Rr: the row to the left
                          (0, 3), (1, 4), (2, 5),      # Bc: the column above
                          (1, 2), (4, 5), (7, 8)],     # Lr: the row to the right
                         dtype=np.int8)
# The slots a pile attacks: two for a corner, one for an edge pile, none for the centre.
SLOTS_OF_PILE = tuple(tuple(int(s) for s in np.flatnonzero(ATTACK_PILE == p)) for p in range(NUM_PILES))

# ---------------------------------------------------------------- places, phases, results

# place[card]: a pile index 0-8, or one of these.
DECK, DRAWN, FACE_DOWN, FACE_UP, KILLED, OUT_OF_PLAY = range(9, 15)
PLACE_NAMES = tuple(f"pile_{p}" for p in range(NUM_PILES)) + (
    "deck", "drawn", "face_down", "face_up", "killed", "out_of_play")
# slot_state[slot]
DOWN, UP, DEAD = range(3)
SLOT_STATE_NAMES = ("down", "up", "killed")

REVEAL, PLAY, KILL, OVER = range(4)
PHASE_NAMES = ("reveal", "play", "kill", "over")

PLAYING, WON, UNPLAYABLE, DECK_EMPTY, FORFEITED = range(5)
RESULT_NAMES = ("playing", "won", "unplayable", "deck_empty", "forfeited")

# ---------------------------------------------------------------- actions

ACTION_NAMES = (["reveal_" + n for n in SLOT_NAMES]
                + [f"play_{p}" for p in range(NUM_PILES)]
                + ["kill_" + n for n in SLOT_NAMES])
A_REVEAL, A_PLAY, A_KILL = 0, NUM_SLOTS, NUM_SLOTS + NUM_PILES
NUM_ACTIONS = len(ACTION_NAMES)  # 33

# ---------------------------------------------------------------- card tables (built once at import)

_IDS = np.arange(NUM_CARD_IDS)
_IS_JOKER = _IDS >= 52
# A number card's value; a joker is worth 0 as a support.
VALUE = np.where(_IS_JOKER, 0, RANK).astype(np.int8)


def _accepts_table() -> np.ndarray:
    """ACCEPTS[x, t]: may card x be played on a pile whose top card is t?

    Equal value (any colours), or the same colour and t higher, or the opposite colour and t lower;
    a joker on either side always fits.
    """
    x, t = _IDS[:, None], _IDS[None, :]
    vx, vt = VALUE[x], VALUE[t]
    same_colour = IS_RED[x] == IS_RED[t]
    fits = (vx == vt) | (same_colour & (vt > vx)) | (~same_colour & (vt < vx))
    return fits | _IS_JOKER[x] | _IS_JOKER[t]


def _matches_table() -> np.ndarray:
    """MATCHES[z, c]: is support card c of what zombie z asks? A king asks for its suit, a queen for her colour, a
    jack for nothing; a joker matches every suit and colour."""
    z, c = _IDS[:, None], _IDS[None, :]
    rank = RANK[z]
    asked = np.where(rank == KING, SUIT[c] == SUIT[z], np.where(rank == QUEEN, IS_RED[c] == IS_RED[z], True))
    return asked | _IS_JOKER[c]


def _kill_table() -> np.ndarray:
    """CAN_KILL[z, a, b]: do support top cards a and b kill zombie z?

    They must sum to at least 10 (a joker is worth 0), and both be of what the zombie asks (``MATCHES``).
    """
    z, a, b = _IDS[:, None, None], _IDS[None, :, None], _IDS[None, None, :]
    strong = VALUE[a].astype(int) + VALUE[b] >= 10
    table = strong & MATCHES[z, a] & MATCHES[z, b]
    return table & (RANK[z] >= JACK) & ~_IS_JOKER[z]


ACCEPTS = _accepts_table()
MATCHES = _matches_table()
CAN_KILL = _kill_table()


# ---------------------------------------------------------------- the state

class State(FlatState):
    """Everything on the table, the draw pile's order and the face-down zombies included, and the game's option
    ``jokers``. Each part's values run from ``low`` to ``high``."""

    PARTS = (
        ("deck", MAX_DECK, -1, NUM_CARD_IDS - 1),       # the draw pile is deck[top:end]; -1 past the cards dealt
        ("pile_top", NUM_PILES, 0, NUM_CARD_IDS - 1),
        ("pile_size", NUM_PILES, 1, MAX_DECK + 1),
        ("slot_card", NUM_SLOTS, 0, NUM_CARD_IDS - 1),
        ("slot_state", NUM_SLOTS, DOWN, DEAD),
        ("place", NUM_CARD_IDS, 0, OUT_OF_PLAY),
        ("top", 0, 0, MAX_DECK),
        ("end", 0, 0, MAX_DECK),
        ("face_down", 0, 0, NUM_SLOTS),
        ("drawn", 0, -1, NUM_CARD_IDS - 1),   # the card waiting to be played (and the one that fit nowhere on such a loss)
        ("played", 0, -1, NUM_PILES - 1),     # the pile just played on, during the kill step
        ("phase", 0, REVEAL, OVER),
        ("turn", 0, 1, MAX_DECK + 1),
        ("kills", 0, 0, NUM_SLOTS),
        ("result", 0, PLAYING, FORFEITED),
        ("jokers", 0, 0, MAX_JOKERS),  # the env's option, kept with the game (the observation shows it)
    )

    def __init__(self, cabin: np.ndarray, zombies: np.ndarray, draw_pile: np.ndarray, jokers: int):
        self.data = np.zeros(self.SIZE, dtype=np.int64)
        self.jokers = jokers
        self.deck = -1
        self.deck[:len(draw_pile)] = draw_pile
        self.end = len(draw_pile)
        self.pile_top = cabin
        self.pile_size = 1
        self.slot_card = zombies
        self.slot_state = DOWN
        self.place = OUT_OF_PLAY
        self.place[self.pile_top] = np.arange(NUM_PILES)
        self.place[self.slot_card] = FACE_DOWN
        self.place[draw_pile] = DECK
        self.face_down = NUM_SLOTS
        self.drawn = -1
        self.played = -1
        self.phase = REVEAL
        self.turn = 1
        self.result = PLAYING


# Where each part sits in ``data``: the compiled functions read and write the array at these offsets.
_AT = lay_out(State)
AT_DECK, AT_PILE_TOP, AT_PILE_SIZE = _AT["deck"], _AT["pile_top"], _AT["pile_size"]
AT_SLOT_CARD, AT_SLOT_STATE, AT_PLACE = _AT["slot_card"], _AT["slot_state"], _AT["place"]
AT_TOP, AT_END, AT_FACE_DOWN, AT_DRAWN, AT_PLAYED = _AT["top"], _AT["end"], _AT["face_down"], _AT["drawn"], _AT["played"]
AT_PHASE, AT_TURN, AT_KILLS, AT_RESULT = _AT["phase"], _AT["turn"], _AT["kills"], _AT["result"]
AT_JOKERS = _AT["jokers"]


# ---------------------------------------------------------------- setup

def game_cards(jokers: int) -> list[int]:
    """Every card a game with this many jokers uses: the 52, then the jokers."""
    return list(range(52)) + list(JOKERS[:jokers])


def new_game(rng: np.random.Generator, deck=None, jokers: int = 2) -> State:
    """A new game. Random: the game's cards dealt with ``rng`` (``deal``). Stacked: ``deck`` codes in the order of
    RULES.md."""
    if deck is None:
        numbers = _NUMBERS_AND_JOKERS[:len(NUMBER_CARDS) + jokers]
        s = State(numbers[:CABIN_SIZE], _ZOMBIES_IN_ORDER, numbers[CABIN_SIZE:], jokers)
        deal(s.data, rng)
        return s
    cards = parse_deck(deck, game_cards(jokers))
    cabin, zombies = cards[:CABIN_SIZE], cards[CABIN_SIZE:CABIN_SIZE + NUM_SLOTS]
    draw_pile = cards[CABIN_SIZE + NUM_SLOTS:]
    problems = [f"cabin card deck[{i}] is {card_code(c)}, a face card"
                for i, c in enumerate(cabin) if RANK[c] >= JACK]
    problems += [f"zombie deck[{CABIN_SIZE + i}] (slot {SLOT_NAMES[i]}) is {card_code(c)}, not a face card"
                 for i, c in enumerate(zombies) if c >= 52 or RANK[c] < JACK]
    if problems:
        raise ValueError("bad deck: " + "; ".join(problems)
                         + " (the order is 9 cabin number cards or jokers, then the 12 zombies J Q K, "
                           "then the draw pile)")
    return State(cabin, zombies, draw_pile, jokers)


# A new game's cards in card-id order, as ``shuffled`` sorts them before it shuffles (so that a deal depends only on
# the cards and the generator): the number cards, then the jokers of the option (the first ``jokers`` of JOKERS), and
# the zombies. Where the shuffled number cards go: the first nine to piles 0-8, the rest to the draw pile.
_NUMBERS_AND_JOKERS = np.array([*NUMBER_CARDS, *JOKERS], dtype=np.int64)
_ZOMBIES_IN_ORDER = np.sort(ZOMBIE_CARDS).astype(np.int64)
_DEALT_PLACES = np.array([*range(NUM_PILES)] + [DECK] * MAX_DECK, dtype=np.int64)


def deal(a, rng):
    """The shuffle of a new game, with ``rng``, on ``a`` (one game's data, or a vector env's row) holding a new
    game's table: its number cards and jokers shuffled (9 to the cabin, the rest the draw pile), then its zombies
    shuffled onto the slots.
    The single env runs it as Python (numpy shuffles a deck faster than numba takes a generator in); ``deal_rows``
    runs it compiled, where numba's ``shuffle`` draws what numpy's does, from the same generator."""
    count = len(NUMBER_CARDS) + a[AT_JOKERS]
    numbers = _NUMBERS_AND_JOKERS[:count].copy()
    rng.shuffle(numbers)
    zombies = _ZOMBIES_IN_ORDER.copy()
    rng.shuffle(zombies)
    a[AT_PILE_TOP:AT_PILE_TOP + NUM_PILES] = numbers[:CABIN_SIZE]
    a[AT_SLOT_CARD:AT_SLOT_CARD + NUM_SLOTS] = zombies
    a[AT_DECK:AT_DECK + count - CABIN_SIZE] = numbers[CABIN_SIZE:]
    a[AT_PLACE + numbers] = _DEALT_PLACES[:count]


_compiled_deal = compiled(deal)


@compiled
def deal_rows(data, rows, rngs):
    """``deal`` in each row of ``rows`` (indices), with that game's generator (``rngs``, a typed list of every
    game's): a vector env's new games, with no Python per game."""
    for i in rows:
        _compiled_deal(data[i], rngs[i])


# ---------------------------------------------------------------- a turn
# Compiled: each function takes ``a``, one game's ``data``, and changes it in place. The tables they index with are
# int64, so that plain Python (NUMBA_DISABLE_JIT=1) adds offsets in the same integers as the compiled code.

_SUPPORT_AT = SUPPORT_PILES.astype(np.int64)


@compiled
def _kills(a, slot):
    """Is the zombie on ``slot`` face up, and do its two support piles' top cards kill it?"""
    support_a = a[AT_PILE_TOP + _SUPPORT_AT[slot, 0]]
    support_b = a[AT_PILE_TOP + _SUPPORT_AT[slot, 1]]
    return a[AT_SLOT_STATE + slot] == UP and CAN_KILL[a[AT_SLOT_CARD + slot], support_a, support_b]


@compiled
def _kill_offered(a, pile):
    """May a zombie be killed from ``pile``: one of the slots it attacks holds a zombie its supports kill?"""
    for slot in range(NUM_SLOTS):
        if ATTACK_PILE[slot] == pile and _kills(a, slot):
            return True
    return False


@compiled
def end_game(a, result):
    a[AT_RESULT] = result
    a[AT_PHASE] = OVER


@compiled
def _draw(a):
    """Step 2 begins: the top card is drawn and shown. An empty pile, or a card no pile takes, loses."""
    top = a[AT_TOP]
    if top == a[AT_END]:
        end_game(a, DECK_EMPTY)
        return
    card = a[AT_DECK + top]
    a[AT_TOP] = top + 1
    a[AT_DRAWN] = card
    a[AT_PLACE + card] = DRAWN
    for pile in range(NUM_PILES):
        if ACCEPTS[card, a[AT_PILE_TOP + pile]]:
            a[AT_PHASE] = PLAY
            return
    end_game(a, UNPLAYABLE)


@compiled
def _start_turn(a):
    """Step 1 waits for the player while a zombie is face down; otherwise straight to the draw."""
    a[AT_PLAYED] = -1
    if a[AT_FACE_DOWN]:
        a[AT_PHASE] = REVEAL
    else:
        _draw(a)


@compiled
def _reveal(a, slot):
    a[AT_SLOT_STATE + slot] = UP
    a[AT_PLACE + a[AT_SLOT_CARD + slot]] = FACE_UP
    a[AT_FACE_DOWN] -= 1
    _draw(a)


@compiled
def _play(a, pile):
    card = a[AT_DRAWN]
    a[AT_PILE_TOP + pile] = card
    a[AT_PILE_SIZE + pile] += 1
    a[AT_PLACE + card] = pile
    a[AT_DRAWN] = -1
    a[AT_PLAYED] = pile
    if _kill_offered(a, pile):
        a[AT_PHASE] = KILL  # the kill is the player's choice of zombie, in the same turn
    else:
        a[AT_TURN] += 1
        _start_turn(a)


@compiled
def _kill(a, slot):
    a[AT_SLOT_STATE + slot] = DEAD
    a[AT_PLACE + a[AT_SLOT_CARD + slot]] = KILLED
    a[AT_KILLS] += 1
    if a[AT_KILLS] == NUM_SLOTS:
        a[AT_PLAYED] = -1
        end_game(a, WON)
    else:
        a[AT_TURN] += 1
        _start_turn(a)


@compiled
def take_action(a, action):
    """The player's ``action`` (which must be legal) and what follows it up to the next decision."""
    if action < A_PLAY:
        _reveal(a, action - A_REVEAL)
    elif action < A_KILL:
        _play(a, action - A_PLAY)
    else:
        _kill(a, action - A_KILL)


@compiled
def fill_legal_mask(a, mask):
    """``mask`` (33 bools) set to the actions the rules allow now (all False once the game is over)."""
    mask[:] = False
    phase = a[AT_PHASE]
    if phase == REVEAL:
        for slot in range(NUM_SLOTS):
            mask[A_REVEAL + slot] = a[AT_SLOT_STATE + slot] == DOWN
    elif phase == PLAY:
        card = a[AT_DRAWN]
        for pile in range(NUM_PILES):
            mask[A_PLAY + pile] = ACCEPTS[card, a[AT_PILE_TOP + pile]]
    elif phase == KILL:
        played = a[AT_PLAYED]
        for slot in range(NUM_SLOTS):
            mask[A_KILL + slot] = ATTACK_PILE[slot] == played and _kills(a, slot)


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


def deck_size(s: State) -> int:
    return s.end - s.top


def killable(s: State, pile: int) -> list[int]:
    """The face-up zombies adjacent to ``pile`` that its support piles' top cards kill."""
    return [slot for slot in SLOTS_OF_PILE[pile] if _kills(s.data, slot)]


def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy with the unseen cards resampled: the draw pile reshuffled, and the face-down zombies
    shuffled among the face-down slots (number cards and zombies never trade places)."""
    s = s.copy()
    s.deck[s.top:s.end] = shuffled(s.deck[s.top:s.end], rng)
    hidden = np.flatnonzero(s.slot_state == DOWN)
    s.slot_card[hidden] = shuffled(s.slot_card[hidden], rng)
    return s


# ---------------------------------------------------------------- end and score



def outcomes(data: np.ndarray) -> dict:
    """The outcome of each game, a row of ``data`` each, as arrays (what a vector env's infos hold): ``won`` (all
    12 zombies killed), ``score`` (cards left in the draw pile on a win, else 0), ``kills``, ``result`` (the code
    of a name in ``RESULT_NAMES``), ``turn``."""
    won = data[:, AT_RESULT] == WON
    return {
        "won": won,
        "score": np.where(won, data[:, AT_END] - data[:, AT_TOP], 0),
        "kills": data[:, AT_KILLS],
        "result": data[:, AT_RESULT].copy(),
        "turn": data[:, AT_TURN],
    }


def outcome(s: State) -> dict:
    """``outcomes`` of the game ``s``, as Python's values."""
    return one_game(outcomes(s.data[None]), RESULT_NAMES)


# ---------------------------------------------------------------- what the player sees

_SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
_CARD_PARTS = [("value", 10), ("joker", 1)] + [(name, 1) for name in _SUIT_NAMES]
_ZOMBIE_PARTS = ([(name, 1) for name in SLOT_STATE_NAMES] + [("jack", 1), ("queen", 1), ("king", 1)]
                 + [(name, 1) for name in _SUIT_NAMES])
_VALUES = range(1, 11)
OBSERVATION_FIELDS = (
    [(f"pile_{p}_top_{part}", high) for p in range(NUM_PILES) for part, high in _CARD_PARTS]
    + [(f"slot_{name}_{part}", high) for name in SLOT_NAMES for part, high in _ZOMBIE_PARTS]
    + [("drawn_present", 1)] + [(f"drawn_{part}", high) for part, high in _CARD_PARTS]
    + [("phase_" + name, 1) for name in PHASE_NAMES]
    + [(f"played_pile_{p}", 1) for p in range(NUM_PILES)]
    + [("deck_size", MAX_DECK), ("kills", NUM_SLOTS), ("face_down", NUM_SLOTS), ("jokers_in_game", MAX_JOKERS)]
    + [("unseen_" + card_code(c), 1) for c in range(52)]
    + [("unseen_jokers", MAX_JOKERS)]
    + [(f"unseen_value_{v}", 4) for v in _VALUES]
)
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
OBSERVATION_LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_HIGH = np.array([high for _, high in OBSERVATION_FIELDS], dtype=np.float32)

# Feature rows indexed by card id; the extra last row (index -1) is "no card".
_CARD_FEATURES = np.zeros((NUM_CARD_IDS + 1, len(_CARD_PARTS)), dtype=np.float32)
for _c in range(NUM_CARD_IDS):
    _CARD_FEATURES[_c, 0] = VALUE[_c] if _c >= 52 or RANK[_c] <= 10 else 0
    _CARD_FEATURES[_c, 1] = _c >= 52
    if _c < 52:
        _CARD_FEATURES[_c, 2 + SUIT[_c]] = 1
# A slot's features by (slot state, card): the card shows only when face up, so every face-down row
# (and every killed row) is the same whatever the card.
_ZOMBIE_FEATURES = np.zeros((3, NUM_CARD_IDS, len(_ZOMBIE_PARTS)), dtype=np.float32)
for _state in range(3):
    _ZOMBIE_FEATURES[_state, :, _state] = 1
for _c in ZOMBIE_CARDS:
    _ZOMBIE_FEATURES[UP, _c, 3 + RANK[_c] - JACK] = 1
    _ZOMBIE_FEATURES[UP, _c, 6 + SUIT[_c]] = 1
_IS_NUMBER = np.zeros(NUM_CARD_IDS, dtype=bool)
_IS_NUMBER[NUMBER_CARDS] = True
_NUMBER_VALUE = VALUE.astype(np.int64)
_CARD_PARTS_SIZE, _ZOMBIE_PARTS_SIZE = len(_CARD_PARTS), len(_ZOMBIE_PARTS)

_PILES_END = NUM_PILES * len(_CARD_PARTS)
_SLOTS_END = _PILES_END + NUM_SLOTS * len(_ZOMBIE_PARTS)
_DRAWN_END = _SLOTS_END + 1 + len(_CARD_PARTS)
_PHASE_AT = _DRAWN_END
_PLAYED_AT = _PHASE_AT + len(PHASE_NAMES)
_COUNTERS_AT = _PLAYED_AT + NUM_PILES
_UNSEEN_AT = _COUNTERS_AT + 4
_UNSEEN_PLACE = np.zeros(len(PLACE_NAMES), dtype=bool)
_UNSEEN_PLACE[[DECK, FACE_DOWN]] = True


def unseen_cards(s: State) -> np.ndarray:
    """Per card id: is it unseen (in the draw pile or a face-down zombie)?"""
    return _UNSEEN_PLACE[s.place]


@compiled
def fill_observation(a, obs):
    """``obs`` (``OBSERVATION_SIZE`` float32) set to the observation of game ``a``."""
    for pile in range(NUM_PILES):
        card = a[AT_PILE_TOP + pile]
        for k in range(_CARD_PARTS_SIZE):
            obs[pile * _CARD_PARTS_SIZE + k] = _CARD_FEATURES[card, k]
    for slot in range(NUM_SLOTS):
        state, card = a[AT_SLOT_STATE + slot], a[AT_SLOT_CARD + slot]
        for k in range(_ZOMBIE_PARTS_SIZE):
            obs[_PILES_END + slot * _ZOMBIE_PARTS_SIZE + k] = _ZOMBIE_FEATURES[state, card, k]
    drawn = a[AT_DRAWN]
    obs[_SLOTS_END] = drawn >= 0
    for k in range(_CARD_PARTS_SIZE):
        obs[_SLOTS_END + 1 + k] = _CARD_FEATURES[drawn if drawn >= 0 else NUM_CARD_IDS, k]
    obs[_PHASE_AT:_COUNTERS_AT] = 0
    obs[_PHASE_AT + a[AT_PHASE]] = 1
    if a[AT_PLAYED] >= 0:
        obs[_PLAYED_AT + a[AT_PLAYED]] = 1
    obs[_COUNTERS_AT] = a[AT_END] - a[AT_TOP]
    obs[_COUNTERS_AT + 1] = a[AT_KILLS]
    obs[_COUNTERS_AT + 2] = a[AT_FACE_DOWN]
    obs[_COUNTERS_AT + 3] = a[AT_JOKERS]
    obs[_UNSEEN_AT:] = 0
    for card in range(NUM_CARD_IDS):
        if _UNSEEN_PLACE[a[AT_PLACE + card]]:
            if card >= 52:
                obs[_UNSEEN_AT + 52] += 1
            else:
                obs[_UNSEEN_AT + card] = 1
                if _IS_NUMBER[card]:
                    obs[_UNSEEN_AT + 52 + _NUMBER_VALUE[card]] += 1  # unseen_value_1 ... unseen_value_10


def observe(s: State) -> np.ndarray:
    """The flat observation (``OBSERVATION_FIELDS`` names every entry): the nine top cards, every slot's
    state and its card when face up, the drawn card, the phase, the pile just played on, the counters,
    and which cards are unseen. Never the draw pile's order nor a face-down zombie."""
    obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    fill_observation(s.data, obs)
    return obs


def slot_view(s: State, slot: int) -> str | None:
    """A slot as the player sees it: the zombie's code when face up, ``"down"``, or None once killed."""
    state = s.slot_state[slot]
    if state == DOWN:
        return "down"
    return card_code(int(s.slot_card[slot])) if state == UP else None


def describe(s: State) -> dict:
    """The public table as a JSON-serialisable dict (the keys RULES.md lists)."""
    return {
        "phase": PHASE_NAMES[s.phase],
        "turn": int(s.turn),
        "cabin": [card_code(int(c)) for c in s.pile_top],
        "pile_sizes": [int(n) for n in s.pile_size],
        "slots": {name: slot_view(s, i) for i, name in enumerate(SLOT_NAMES)},
        "drawn": card_code(s.drawn) if s.drawn >= 0 else None,
        "played_pile": int(s.played) if s.played >= 0 else None,
        "deck_size": int(deck_size(s)),
        "kills": int(s.kills),
        "jokers": int(s.jokers),
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
