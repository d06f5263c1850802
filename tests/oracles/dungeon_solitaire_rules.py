"""Dungeon Solitaire's rules as they were written in plain numpy before they were compiled: the oracle that
``tests/test_compiled_rules.py`` plays beside ``envs/dungeon_solitaire/rules.py`` over thousands of seeds.

The rules as pure functions.

Hold this file next to RULES.md: each section there has a function here. The state is a
``State`` of numbers and fixed-shape numpy arrays; ``apply`` copies it and returns the next one.
No Gymnasium here: the env, agents and benchmarks only call these functions.

Cards are the suite's card ids (``envs/core/cards.py``). The draw pile is ``deck[top:end]``
(top first); every card's place on the table is ``place[card]``.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.envs.core.cards import JOKERS, RANK, SUIT, card, card_code, parse_deck, shuffled
from tabletop_gym.envs.core.state import ArrayState

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


class State(ArrayState):
    """Everything on the table, hidden deck order included."""

    def __init__(self, deck: np.ndarray, min_delve_turns_before_retreat: int):
        # One spare slot: the scroll sends the fourth ace back under the deck once per game.
        self.deck = np.full(NUM_DECK_CARDS + 1, -1, dtype=np.int8)
        self.deck[:NUM_DECK_CARDS] = deck
        self.top = 0
        self.end = NUM_DECK_CARDS
        self.place = np.full(len(RANK), OUT_OF_PLAY, dtype=np.int8)
        self.place[DECK_CARDS] = DECK
        # When each card reached its place: orders the turn and the hand for display.
        self.arrival = np.zeros(len(RANK), dtype=np.int16)
        self.clock = 0
        self.hp = MAX_HP
        self.torches = 0
        self.scroll_used = False
        self.stage = DELVE
        self.step = START
        self.delve_turns = 0
        self.retreat_turns = 0
        self.encounter = -1
        self.pending_damage = 0
        self.pending_discards = 0
        self.result = PLAYING
        self.min_delve_turns_before_retreat = min_delve_turns_before_retreat


# ---------------------------------------------------------------- setup

def new_game(rng: np.random.Generator, deck=None, min_delve_turns_before_retreat: int = 2) -> State:
    """A new game: the 44 cards shuffled with ``rng``, or stacked from ``deck`` (codes, top first)."""
    if deck is None:
        order = shuffled(DECK_CARDS, rng)
    else:
        order = parse_deck(deck, DECK_CARDS)
    return State(order, min_delve_turns_before_retreat)


# ---------------------------------------------------------------- moving cards

def _move(s: State, c: int, place: int) -> None:
    s.place[c] = place
    s.arrival[c] = s.clock
    s.clock += 1


def cards_in(s: State, place: int) -> np.ndarray:
    """The cards in a place, in the order they arrived."""
    cards = np.flatnonzero(s.place == place)
    return cards[np.argsort(s.arrival[cards], kind="stable")]


def in_hand(s: State, c: int) -> bool:
    return s.place[c] == HAND


def deck_size(s: State) -> int:
    return s.end - s.top


def _draw(s: State) -> int:
    """Take the top card of the deck; -1 and lost in the dark if it is empty (never while the game is live)."""
    if s.top == s.end:
        s.torches = MAX_TORCHES
        _lose(s, LOST_IN_THE_DARK)
        return -1
    c = int(s.deck[s.top])
    s.top += 1
    return c


def _lose(s: State, result: int) -> None:
    s.result = result
    s.stage = OVER
    s.pending_damage = 0
    s.pending_discards = 0


# ---------------------------------------------------------------- torches and the scroll

def _torch_goes_out(s: State, ace: int) -> None:
    """An ace was revealed (drawn or discarded). The fourth one loses, unless the scroll is in hand."""
    if s.torches < MAX_TORCHES - 1:
        s.torches += 1
        _move(s, ace, TORCH_ROW)
    elif in_hand(s, JOKER):
        # The scroll takes the ace's place in the torch row; the ace goes under the deck.
        _move(s, JOKER, TORCH_ROW)
        s.scroll_used = True
        s.deck[s.end] = ace
        s.end += 1
        _move(s, ace, DECK)
    else:
        s.torches = MAX_TORCHES
        _move(s, ace, TORCH_ROW)
        _lose(s, LOST_IN_THE_DARK)


# ---------------------------------------------------------------- a turn

def _reveal(s: State) -> int:
    """Turn the top card and put it where the rules send it: an ace goes out as a torch, a jack to the
    hand, anything else into the turn. Returns the card, or -1 if the game ended."""
    c = _draw(s)
    if c < 0:
        return -1
    rank = RANK[c]
    if rank == ACE:
        _torch_goes_out(s, c)
    elif rank == JACK:
        _move(s, c, HAND)
    else:
        _move(s, c, TURN)
    return c if s.stage != OVER else -1


def _start_turn(s: State) -> None:
    """Reveal cards until the turn's encounter (the first 2-10 of spades, diamonds or clubs)."""
    s.step = ENCOUNTER
    favor = False
    while True:
        c = _reveal(s)
        if c < 0:
            return
        if RANK[c] == QUEEN:
            favor = True
        elif is_encounter_card(c):
            s.encounter = c
            if favor:
                _end_turn(s, won=True)
            return


def _reveal_in_encounter(s: State) -> None:
    """The player reveals one card against the showing encounter."""
    c = _reveal(s)
    if c < 0:
        return
    if RANK[c] == QUEEN:
        _end_turn(s, won=True)
    elif is_encounter_card(c):
        _action_card(s, int(RANK[c]))


def _action_card(s: State, value: int) -> None:
    """An action card of ``value`` against the encounter: it wins if it is at least the encounter's value."""
    encounter_value = int(RANK[s.encounter])
    if value >= encounter_value:
        _end_turn(s, won=True)
    elif SUIT[s.encounter] == CLUBS:
        s.pending_discards = encounter_value - value
        s.step = DOOR_FAILED
    else:
        # Monster: a hit, and the fight goes on. Trap: a hit, and the turn is lost.
        s.pending_damage = encounter_value - value
        s.step = DAMAGE


def _after_damage(s: State) -> None:
    if SUIT[s.encounter] == DIAMONDS:
        _end_turn(s, won=False)
    else:
        s.step = ENCOUNTER


def _discard_from_deck(s: State, count: int) -> None:
    """A shut door's discards: each is looked at; aces still go out as torches, the rest leave the game."""
    for _ in range(count):
        c = _draw(s)
        if c < 0:
            return
        if RANK[c] == ACE:
            _torch_goes_out(s, c)
            if s.stage == OVER:
                return
        else:
            _move(s, c, DISCARDS)


def _end_turn(s: State, won: bool) -> None:
    """Collect the treasure of a won turn (one card must stay as the marker), then the turn is done."""
    turn = np.flatnonzero(s.place == TURN)
    if won:
        treasure = [int(c) for c in turn if is_treasure(c)]
        if len(treasure) == len(turn):
            # Ruling: the lowest diamond stays as the turn's marker.
            treasure.remove(min((c for c in treasure if SUIT[c] == DIAMONDS), key=lambda c: RANK[c]))
        for c in treasure:
            _move(s, c, HAND)
    for c in np.flatnonzero(s.place == TURN):
        _move(s, int(c), USED)
    s.encounter = -1
    s.pending_damage = 0
    s.pending_discards = 0
    s.step = BETWEEN_TURNS
    if s.stage == RETREAT and s.retreat_turns == s.delve_turns - 1:
        _escape(s)


def _escape(s: State) -> None:
    s.result = ESCAPED
    s.stage = OVER


# ---------------------------------------------------------------- the player's decisions

def legal_mask(s: State) -> np.ndarray:
    """Which actions the rules allow now (all False once the game is over)."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.stage == OVER:
        return mask
    if s.step == START:
        mask[A_DRAW] = True
    elif s.step == BETWEEN_TURNS:
        if s.stage == DELVE:
            mask[A_DELVE] = True
            mask[A_RETREAT] = s.delve_turns >= s.min_delve_turns_before_retreat
        else:
            mask[A_DRAW] = True
    elif s.step == ENCOUNTER:
        mask[A_DRAW] = True
        suit = SUIT[s.encounter]
        if suit == SPADES:
            mask[A_BERSERK] = in_hand(s, BERSERK_JACK)
            mask[A_FIRST_DROP:] = (s.place[DROP_CARDS] == HAND) & (DROP_VALUES >= RANK[s.encounter])
        elif suit == DIAMONDS:
            mask[A_DISARM] = in_hand(s, DISARM_JACK)
        else:
            mask[A_PICK_LOCK] = in_hand(s, PICK_LOCK_JACK)
    elif s.step == DOOR_FAILED:
        mask[A_DISCARD] = True
        mask[A_PICK_LOCK] = in_hand(s, PICK_LOCK_JACK)
    elif s.step == DAMAGE:
        mask[A_TAKE_DAMAGE] = True
        mask[A_DODGE] = in_hand(s, DODGE_JACK)
    return mask


def apply(s: State, action: int, rng: np.random.Generator | None = None) -> State:
    """The state after the player takes ``action`` (which must be legal). ``s`` is not changed.

    The game has no randomness after the shuffle; ``rng`` is accepted for a uniform signature.
    """
    s = s.copy()
    if action == A_DELVE:
        s.delve_turns += 1
        _start_turn(s)
    elif action == A_RETREAT:
        s.stage = RETREAT
        if s.delve_turns == 1:  # possible only when retreat is allowed after one turn
            _escape(s)
        else:
            s.retreat_turns += 1
            _start_turn(s)
    elif action == A_DRAW:
        if s.step == START:
            s.delve_turns = 1
            _start_turn(s)
        elif s.step == BETWEEN_TURNS:
            s.retreat_turns += 1
            _start_turn(s)
        else:
            _reveal_in_encounter(s)
    elif action in (A_BERSERK, A_DISARM, A_PICK_LOCK):
        _move(s, SKILL_FOR_ENCOUNTER[SUIT[s.encounter]], TURN)
        _end_turn(s, won=True)
    elif action == A_DISCARD:
        _discard_from_deck(s, s.pending_discards)
        if s.stage != OVER:
            _end_turn(s, won=False)
    elif action == A_DODGE:
        _move(s, DODGE_JACK, USED)
        s.pending_damage = 0
        _after_damage(s)
    elif action == A_TAKE_DAMAGE:
        s.hp = max(0, s.hp - s.pending_damage)
        s.pending_damage = 0
        if s.hp == 0:
            _lose(s, KILLED)
        else:
            _after_damage(s)
    else:
        # A treasure drop buys off the monster: the fight ends, not won.
        _move(s, int(DROP_CARDS[action - A_FIRST_DROP]), TURN)
        _end_turn(s, won=False)
    return s


def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy with the unseen cards of the deck reshuffled (the ace the scroll sent under it stays)."""
    s = s.copy()
    last = s.end - 1 if s.scroll_used and s.top < s.end else s.end
    s.deck[s.top:last] = shuffled(s.deck[s.top:last], rng)
    return s


def forfeit(s: State) -> State:
    """The game lost by an illegal action."""
    s = s.copy()
    _lose(s, FORFEITED)
    return s


# ---------------------------------------------------------------- end and score

def is_over(s: State) -> bool:
    return s.stage == OVER


def kings_in_hand(s: State) -> int:
    return int(np.sum(s.place[[card(KING, suit) for suit in range(4)]] == HAND))


def treasure_points(s: State) -> int:
    """10 per king, face value per diamond, 6 for the joker, counting the hand."""
    points = 0
    for c in np.flatnonzero(s.place == HAND):
        if c == JOKER:
            points += 6
        elif RANK[c] == KING:
            points += 10
        elif SUIT[c] == DIAMONDS and RANK[c] <= 10:
            points += int(RANK[c])
    return points


def outcome(s: State) -> dict:
    """``won`` (escaped with all four kings), ``score`` (points on an escape, 0 on a loss), ``kings``."""
    escaped = s.result == ESCAPED
    kings = kings_in_hand(s)
    return {
        "won": bool(escaped and kings == 4),
        "score": treasure_points(s) if escaped else 0,
        "kings": kings,
        "result": RESULT_NAMES[s.result],
    }


# ---------------------------------------------------------------- what the player sees

# Per-card places as the player sees them; a card in the deck is unseen (all zeros) unless
# it is the ace the scroll sent under the deck.
_SEEN_PLACES = (HAND, TURN, TORCH_ROW, DISCARDS, USED)
_RANKS_SEEN = np.arange(1, 14)
OBSERVATION_FIELDS = (
    [("card_" + card_code(c) + "_" + PLACE_NAMES[p], 1) for c in DECK_CARDS for p in _SEEN_PLACES]
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
# Row p of this table is the five seen-place flags of a card in place p.
_PLACE_FLAGS = np.array([[p == seen for seen in _SEEN_PLACES] for p in range(len(PLACE_NAMES))], dtype=np.float32)
_DECK_RANKS = RANK[DECK_CARDS]
_DECK_ACES = _DECK_RANKS == ACE
# Column r-1 marks the deck cards of rank r; the joker's column is last.
_RANK_COLUMNS = np.array([[rank == r for r in range(1, 14)] + [c == JOKER] for c, rank in zip(DECK_CARDS, _DECK_RANKS)],
                         dtype=np.float32)


def observe(s: State) -> np.ndarray:
    """The flat observation: where every seen card is, the counters, and the counts of unseen cards."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    places = s.place[DECK_CARDS]
    obs[:_CARD_BLOCK] = _PLACE_FLAGS[places].ravel()
    in_deck = places == DECK
    # After the scroll the only ace left in the deck is the one the player saw go under it.
    known_ace = s.scroll_used and bool(np.any(in_deck & _DECK_ACES))
    unseen = in_deck & ~_DECK_ACES if s.scroll_used else in_deck
    i = _CARD_BLOCK
    obs[i] = known_ace
    obs[i + 1 + s.stage] = 1
    obs[i + 4 + s.step] = 1
    i += 9
    retreat_left = s.delve_turns - 1 - s.retreat_turns if s.stage == RETREAT else 0
    encounter_suit = SUIT[s.encounter] if s.encounter >= 0 else -1
    obs[i:i + 13] = (
        s.hp, s.torches, s.scroll_used, s.delve_turns, s.retreat_turns, max(0, retreat_left),
        encounter_suit == SPADES, encounter_suit == DIAMONDS, encounter_suit == CLUBS,
        RANK[s.encounter] if s.encounter >= 0 else 0,
        s.pending_damage, s.pending_discards, deck_size(s),
    )
    i += 13
    obs[i:i + 14] = unseen @ _RANK_COLUMNS
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
