"""High or Low, the rules as pure functions (RULES.md beside this file: each rule names its function here).

The smallest rules module ``TabletopEnv`` plays (see ``envs/core/env.py``): ``ACTION_NAMES``,
``OBSERVATION_LOW`` / ``OBSERVATION_HIGH``, ``legal_mask``, ``apply``, ``play``, ``observe``, ``is_over``,
``outcome``, ``forfeit``, ``describe`` and ``determinize``, in plain Python. The suite's games compile their turn
with numba for speed (and their vector envs); nothing in the env asks for it. A state is a ``FlatState``: one
integer array with a named view per part, and the range of each part, which ``set_state`` checks.
"""

from __future__ import annotations

import numpy as np

from tabletop_gym.envs.core.cards import RANK, card, card_code, parse_deck, shuffled
from tabletop_gym.envs.core.state import FlatState, lay_out

SPADES = 0
DECK_CARDS = np.array([card(rank, SPADES) for rank in range(1, 14)], dtype=np.int8)  # ace low, king high
NUM_CARDS = len(DECK_CARDS)
WIN_AT = 5  # right guesses that win

ACTION_NAMES = ["higher", "lower", "turn"]
HIGHER, LOWER, TURN = range(3)
NUM_ACTIONS = len(ACTION_NAMES)
NO_GUESS = -1

PLAYING, WON, WRONG_GUESS, FORFEITED = range(4)
RESULT_NAMES = ("playing", "won", "wrong_guess", "forfeited")


class State(FlatState):
    """The deck (top first), where its face-up card lies, the guess waiting for its card, the right guesses and
    the result."""

    PARTS = (
        ("deck", NUM_CARDS, int(DECK_CARDS.min()), int(DECK_CARDS.max())),
        ("face_up", 0, 0, WIN_AT),  # the face-up card's place in the deck: every card before it was face up too
        ("guess", 0, NO_GUESS, LOWER),
        ("right", 0, 0, WIN_AT),
        ("result", 0, PLAYING, FORFEITED),
    )

    def __init__(self, deck: np.ndarray):
        self.data = np.zeros(self.SIZE, dtype=np.int64)
        self.deck = deck
        self.guess = NO_GUESS
        self.result = PLAYING


lay_out(State)


def new_game(rng: np.random.Generator, deck=None) -> State:
    """The thirteen spades shuffled with ``rng``, or stacked from ``deck`` (codes, top first); the top card face up."""
    return State(shuffled(DECK_CARDS, rng) if deck is None else parse_deck(deck, DECK_CARDS))


def face_up_card(s: State) -> int:
    return int(s.deck[s.face_up])


def turned_cards(s: State) -> np.ndarray:
    """The cards turned face up so far, the first first."""
    return s.deck[:s.face_up + 1]


# ---------------------------------------------------------------- the turn

def legal_mask(s: State) -> np.ndarray:
    """A guess, or the turn of the card it waits for; nothing once the game is over."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.result == PLAYING:
        mask[[HIGHER, LOWER] if s.guess == NO_GUESS else [TURN]] = True
    return mask


def apply(s: State, action: int, rng: np.random.Generator | None = None) -> State:
    """The state after ``action`` (which must be legal); ``s`` is not changed."""
    s = s.copy()
    if action == TURN:
        turn_card(s)
    else:
        s.guess = action
    return s


def turn_card(s: State) -> None:
    """The next card face up: a right guess counts (five win), a wrong one loses."""
    before, after = RANK[face_up_card(s)], RANK[int(s.deck[s.face_up + 1])]
    right = after > before if s.guess == HIGHER else after < before
    s.face_up, s.guess = s.face_up + 1, NO_GUESS
    if not right:
        s.result = WRONG_GUESS
        return
    s.right = s.right + 1
    if s.right == WIN_AT:
        s.result = WON


def play(s: State, action: int, rng: np.random.Generator | None, skip_forced: bool):
    """The env's step: ``action``, then (``skip_forced``) every forced move after it; the state and its mask."""
    s = apply(s, action, rng)
    mask = legal_mask(s)
    while skip_forced and mask.sum() == 1:
        s = apply(s, int(np.flatnonzero(mask)[0]), rng)
        mask = legal_mask(s)
    return s, mask


def is_over(s: State) -> bool:
    return s.result != PLAYING


def forfeit(s: State) -> State:
    """The game lost by an illegal move."""
    s = s.copy()
    s.result = FORFEITED
    return s


def determinize(s: State, rng: np.random.Generator) -> State:
    """A copy with the cards not yet turned reshuffled."""
    s = s.copy()
    s.deck[s.face_up + 1:] = shuffled(s.deck[s.face_up + 1:], rng)
    return s


def outcome(s: State) -> dict:
    return {"won": s.result == WON, "score": s.right, "result": RESULT_NAMES[s.result]}


# ---------------------------------------------------------------- what the player sees

OBSERVATION_FIELDS = ([(f"face_up_{rank}", 1) for rank in range(1, 14)]
                      + [(f"turned_{rank}", 1) for rank in range(1, 14)]
                      + [("guess_higher", 1), ("guess_lower", 1), ("right_guesses", WIN_AT)])
OBSERVATION_INDEX = {name: i for i, (name, _) in enumerate(OBSERVATION_FIELDS)}
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
OBSERVATION_LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_HIGH = np.array([high for _, high in OBSERVATION_FIELDS], dtype=np.float32)


def observe(s: State) -> np.ndarray:
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    obs[RANK[face_up_card(s)] - 1] = 1
    obs[13 + RANK[turned_cards(s)] - 1] = 1
    obs[OBSERVATION_INDEX["guess_higher"]] = s.guess == HIGHER
    obs[OBSERVATION_INDEX["guess_lower"]] = s.guess == LOWER
    obs[OBSERVATION_INDEX["right_guesses"]] = s.right
    return obs


def describe(s: State) -> dict:
    """The public table as a JSON-serialisable dict."""
    return {"face_up": card_code(face_up_card(s)), "turned": [card_code(int(c)) for c in turned_cards(s)],
            "guess": ACTION_NAMES[s.guess] if s.guess != NO_GUESS else None, "right_guesses": s.right,
            "deck_size": NUM_CARDS - s.face_up - 1, "result": RESULT_NAMES[s.result]}
