"""Splendor (Marc André), 2-4 players, the rules written once and compiled with numba.

Hold this file next to RULES.md: each section there has a function here. The state is one flat int64 array
(``State.data``, a ``FlatState`` with a named view per part), padded to four seats whatever the player count. The
compiled functions take ``a``, one game's array, and change it in place: ``take_action``, ``fill_legal_mask``,
``fill_observation``, ``play_forced``, ``take_turn``; the vector env runs the same functions in compiled loops over
a row per game. The Python wrappers (``apply``, ``legal_mask``, ``observe``, ``play``, ``describe``, ``outcome``)
copy a ``State`` and call them. No Gymnasium or PettingZoo here: the AEC env, the single-agent view, the players
and the benchmarks only call these functions.

Cards and nobles are ids into the tables of ``cards.py``. Each tier's deck is ``decks[t]`` in
order (the first four went to the board at setup); its draw pile is ``decks[t, deck_top[t]:]``.
A player's turn is one main action, then (if needed) token returns one at a time, then (if
several nobles qualify) the choice of noble: all decisions of the same player.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..core.compiled import compiled, generator_list, only_action
from ..core.state import FlatState, lay_out
from ..core.turn import CompiledTurn, one_game
from .cards import (COLOR, COLORS, COST, GOLD, NOBLE_POINTS, NOBLE_REQUIREMENT, NUM_CARDS, NUM_NOBLES, POINTS,
                    TIER, TIER_CARDS, TIER_FIRST, TIER_SIZE, TOKEN_COLORS)

MAX_PLAYERS = 4
MIN_PLAYERS = 2
BOARD_SLOTS = 4
MAX_RESERVED = 3
TOKEN_LIMIT = 10
WINNING_POINTS = 15
GEMS_PER_COLOR = {2: 4, 3: 5, 4: 7}
GOLD_TOKENS = 5
DEFAULT_MAX_ROUNDS = 100

# Phase of the current player's turn.
MAIN, RETURN, NOBLE, OVER = range(4)
PHASE_NAMES = ("main", "return", "noble", "over")

# How the game ended.
PLAYING, FINISHED, ALL_PASSED, FORFEITED = range(4)
RESULT_NAMES = ("playing", "finished", "all_passed", "forfeited")

# ---------------------------------------------------------------- action names (RULES.md order)

TAKE3_COLORS = np.array(list(combinations(range(5), 3)), dtype=np.int8)  # WUG, WUR, ... GRK
TAKE2_COLORS = np.array(list(combinations(range(5), 2)), dtype=np.int8)  # WU, WG, ... RK

ACTION_NAMES = (
    ["take_" + "".join(COLORS[c] for c in combo) for combo in TAKE3_COLORS]
    + ["take_" + "".join(COLORS[c] for c in combo) for combo in TAKE2_COLORS]
    + ["take_" + c for c in COLORS]
    + ["take_" + c + c for c in COLORS]
    + [f"reserve_t{t}_{slot}" for t in (1, 2, 3) for slot in range(BOARD_SLOTS)]
    + [f"reserve_t{t}_deck" for t in (1, 2, 3)]
    + [f"buy_t{t}_{slot}" for t in (1, 2, 3) for slot in range(BOARD_SLOTS)]
    + [f"buy_reserved_{i}" for i in range(MAX_RESERVED)]
    + ["return_" + c for c in TOKEN_COLORS]
    + [f"noble_{i}" for i in range(MAX_PLAYERS + 1)]
    + ["pass"]
)
NUM_ACTIONS = len(ACTION_NAMES)  # 72
A_TAKE3, A_TAKE2, A_TAKE1, A_DOUBLE = 0, 10, 20, 25
A_RESERVE, A_RESERVE_DECK, A_BUY, A_BUY_RESERVED = 30, 42, 45, 57
A_RETURN, A_NOBLE, A_PASS = 60, 66, 71

# Gems each take action (0-29) moves from the bank to the player, per colour.
TAKE_GEMS = np.zeros((A_RESERVE, 5), dtype=np.int8)
for _i, _combo in enumerate(TAKE3_COLORS):
    TAKE_GEMS[A_TAKE3 + _i, _combo] = 1
for _i, _combo in enumerate(TAKE2_COLORS):
    TAKE_GEMS[A_TAKE2 + _i, _combo] = 1
for _c in range(5):
    TAKE_GEMS[A_TAKE1 + _c, _c] = 1
    TAKE_GEMS[A_DOUBLE + _c, _c] = 2

TAKE_GEMS.setflags(write=False)
_TAKE_GEMS = TAKE_GEMS.astype(np.int64)  # the compiled code reads int64 tables (the same integers unjitted)
_COST = COST.astype(np.int64)
_COLOR = COLOR.astype(np.int64)
_POINTS = POINTS.astype(np.int64)
_TIER = TIER.astype(np.int64)
_NOBLE_NEEDS = NOBLE_REQUIREMENT.astype(np.int64)
_TIER_SIZE = np.array(TIER_SIZE, dtype=np.int64)
_DECK_LENGTH = max(TIER_SIZE)  # 40: each tier's deck row, padded with -1
_MAX_ROUNDS_LIMIT = 2 ** 62  # max_rounds has no upper bound but an int64's


# ---------------------------------------------------------------- the state

class State(FlatState):
    """Everything on the table, hidden parts (deck order, blind reservations) included, in one int64 array; the
    player count and ``max_rounds`` (the game's options) are parts of it too. Each part's values run from ``low``
    to ``high``."""

    PARTS = (
        ("num_players", 0, MIN_PLAYERS, MAX_PLAYERS),
        ("max_rounds", 0, 1, _MAX_ROUNDS_LIMIT),
        ("bank", 6, 0, 7),
        ("tokens", (MAX_PLAYERS, 6), 0, 10 + 3),
        ("bonuses", (MAX_PLAYERS, 5), 0, NUM_CARDS),
        ("points", MAX_PLAYERS, 0, 200),
        ("cards_bought", MAX_PLAYERS, 0, NUM_CARDS),
        ("nobles_owned", MAX_PLAYERS, 0, MAX_PLAYERS + 1),
        ("owner", NUM_CARDS, -1, MAX_PLAYERS - 1),             # who bought each card
        ("decks", (3, _DECK_LENGTH), -1, NUM_CARDS - 1),      # each tier in order, padded with -1
        ("deck_top", 3, BOARD_SLOTS, _DECK_LENGTH),           # cards dealt or drawn from each deck so far
        ("board", (3, BOARD_SLOTS), -1, NUM_CARDS - 1),
        # Reserved cards in order of reservation (-1 = free); blind = taken from the top of a deck.
        ("reserved", (MAX_PLAYERS, MAX_RESERVED), -1, NUM_CARDS - 1),
        ("reserved_blind", (MAX_PLAYERS, MAX_RESERVED), 0, 1),
        ("nobles", MAX_PLAYERS + 1, -1, NUM_NOBLES - 1),      # on the table, in display order
        ("noble_owner", NUM_NOBLES, -1, MAX_PLAYERS - 1),
        ("current", 0, 0, MAX_PLAYERS - 1),
        ("phase", 0, MAIN, OVER),
        ("round", 0, 1, _MAX_ROUNDS_LIMIT),
        ("final_round", 0, 0, 1),
        ("passes", 0, 0, MAX_PLAYERS),                         # consecutive passes
        ("result", 0, PLAYING, FORFEITED),
        ("forfeited_by", 0, -1, MAX_PLAYERS - 1),
    )

    def __init__(self, num_players: int, max_rounds: int, decks: np.ndarray, nobles: np.ndarray):
        n = num_players
        self.data = _fresh_table(n).copy()
        self.max_rounds = max_rounds
        data = self.data
        data[AT_DECKS:AT_DECKS + decks.size] = decks.ravel()
        # The first four cards of each deck go face up to slots 0-3.
        data[AT_BOARD:AT_BOARD + 3 * BOARD_SLOTS] = decks[:, :BOARD_SLOTS].ravel()
        data[AT_NOBLES:AT_NOBLES + n + 1] = nobles


# Where each part sits in ``data``: the compiled functions read and write the array at these offsets.
_AT = lay_out(State)
AT_NUM_PLAYERS, AT_MAX_ROUNDS, AT_BANK, AT_TOKENS = _AT["num_players"], _AT["max_rounds"], _AT["bank"], _AT["tokens"]
AT_BONUSES, AT_POINTS, AT_CARDS, AT_NOBLES_OWNED = _AT["bonuses"], _AT["points"], _AT["cards_bought"], _AT["nobles_owned"]
AT_OWNER, AT_DECKS, AT_DECK_TOP, AT_BOARD = _AT["owner"], _AT["decks"], _AT["deck_top"], _AT["board"]
AT_RESERVED, AT_BLIND, AT_NOBLES, AT_NOBLE_OWNER = _AT["reserved"], _AT["reserved_blind"], _AT["nobles"], _AT["noble_owner"]
AT_CURRENT, AT_PHASE, AT_ROUND, AT_FINAL_ROUND = _AT["current"], _AT["phase"], _AT["round"], _AT["final_round"]
AT_PASSES, AT_RESULT, AT_FORFEITED_BY = _AT["passes"], _AT["result"], _AT["forfeited_by"]


_FRESH = {}


def _fresh_table(n: int) -> np.ndarray:
    """A new ``n``-player game's array before its cards are dealt: the bank, no cards bought or reserved, no
    owners, player 0 to play in round 1."""
    if n not in _FRESH:
        s = object.__new__(State)
        s.data = np.zeros(State.SIZE, dtype=np.int64)
        s.num_players = n
        s.bank[:5] = GEMS_PER_COLOR[n]
        s.bank[GOLD] = GOLD_TOKENS
        s.owner = -1
        s.decks = -1
        s.deck_top = BOARD_SLOTS
        s.board = -1
        s.reserved = -1
        s.nobles = -1
        s.noble_owner = -1
        s.phase = MAIN
        s.round = 1
        s.result = PLAYING
        s.forfeited_by = -1
        s.data.setflags(write=False)
        _FRESH[n] = s.data
    return _FRESH[n]


def new_table(num_players: int, max_rounds: int) -> np.ndarray:
    """A new game's array before its cards are dealt (``_fresh_table``), with its ``max_rounds``."""
    table = _fresh_table(num_players).copy()
    table[AT_MAX_ROUNDS] = max_rounds
    return table


# ---------------------------------------------------------------- setup

def new_game(rng: np.random.Generator, num_players: int = 2, max_rounds: int = DEFAULT_MAX_ROUNDS,
             deck: dict | None = None) -> State:
    """A new game: each tier shuffled with ``rng`` and players + 1 nobles revealed, or stacked by ``deck``.

    ``deck`` may fix ``"tier1"``, ``"tier2"``, ``"tier3"`` (card ids, first four to board slots 0-3,
    then the draw pile from the top; a shorter list is the top of the deck and the tier's other
    cards follow shuffled) and ``"nobles"`` (exactly players + 1 noble ids, in display order).
    """
    deck = check_deck(deck, num_players)
    s = object.__new__(State)
    s.data = np.empty(State.SIZE, dtype=np.int64)
    deal(s.data, rng, num_players, max_rounds, deck)
    return s


def deal(a: np.ndarray, rng: np.random.Generator, num_players: int, max_rounds: int, deck: dict) -> None:
    """``new_game`` into ``a`` (one game's array, a vector env's row), ``deck`` already checked: the same draws
    from ``rng``, in the same order (each tier's shuffle, then the nobles). An unstacked deal is ``deal_rows``'s."""
    if not deck:
        deal_rows(a[None, :], _FIRST_ROW, generator_list(rng), new_table(num_players, max_rounds))
        return
    a[:] = new_table(num_players, max_rounds)
    for t in range(3):
        top = deck.get(f"tier{t + 1}", [])
        stacked = set(top)
        rest = np.array([c for c in TIER_CARDS[t] if c not in stacked], dtype=np.int8)
        rng.shuffle(rest)
        at = AT_DECKS + t * _DECK_LENGTH
        a[at:at + len(top)] = top
        a[at + len(top):at + TIER_SIZE[t]] = rest
        # The first four cards of each deck go face up to slots 0-3.
        a[AT_BOARD + t * BOARD_SLOTS:AT_BOARD + (t + 1) * BOARD_SLOTS] = a[at:at + BOARD_SLOTS]
    nobles = deck["nobles"] if "nobles" in deck else rng.permutation(NUM_NOBLES)[:num_players + 1]
    a[AT_NOBLES:AT_NOBLES + num_players + 1] = nobles


_FIRST_ROW = np.zeros(1, dtype=np.int64)


@compiled
def deal_rows(data, rows, rngs, fresh):
    """``deal`` without a stacked deck in each row of ``rows`` (indices), with that game's generator (``rngs``, a
    typed list of every game's), on ``fresh`` (``new_table``): a vector env's new games, with no Python per game.
    numba's ``shuffle`` and ``permutation`` draw what numpy's do."""
    for i in rows:
        a, rng = data[i], rngs[i]
        a[:] = fresh
        for t in range(3):
            rest = np.arange(TIER_FIRST[t], TIER_FIRST[t] + TIER_SIZE[t]).astype(np.int8)  # TIER_CARDS[t]
            rng.shuffle(rest)
            at = AT_DECKS + t * _DECK_LENGTH
            a[at:at + TIER_SIZE[t]] = rest
            a[AT_BOARD + t * BOARD_SLOTS:AT_BOARD + (t + 1) * BOARD_SLOTS] = rest[:BOARD_SLOTS]
        num_players = a[AT_NUM_PLAYERS]
        a[AT_NOBLES:AT_NOBLES + num_players + 1] = rng.permutation(NUM_NOBLES)[:num_players + 1]


def _int_id(value, where: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{where}: expected an integer id, got {value!r}")
    return int(value)


def check_deck(deck, num_players: int) -> dict:
    """The stacking option, validated: a dict of tier lists and nobles with clear errors."""
    if deck is None:
        return {}
    if not isinstance(deck, dict):
        raise ValueError("the deck option must be a dict with keys tier1, tier2, tier3, nobles "
                         f"(lists of ids), got {type(deck).__name__}")
    unknown = sorted(str(k) for k in deck if k not in ("tier1", "tier2", "tier3", "nobles"))
    if unknown:
        raise ValueError(f"unknown deck key(s) {', '.join(map(repr, unknown))}; "
                         "the keys are tier1, tier2, tier3, nobles")
    checked = {}
    for key, ids in deck.items():
        if isinstance(ids, (str, bytes, dict)) or not hasattr(ids, "__len__"):
            raise ValueError(f"deck[{key!r}] must be a list of ids, got {ids!r}")
        values = [_int_id(v, f"deck[{key!r}][{i}]") for i, v in enumerate(ids)]
        seen = set()
        for v in values:
            if v in seen:
                raise ValueError(f"deck[{key!r}]: id {v} is repeated")
            seen.add(v)
        if key == "nobles":
            for i, v in enumerate(values):
                if not 0 <= v < NUM_NOBLES:
                    raise ValueError(f"deck['nobles'][{i}]: no noble {v} (nobles are 0-{NUM_NOBLES - 1})")
            if len(values) != num_players + 1:
                raise ValueError(f"deck['nobles'] must list exactly {num_players + 1} nobles for "
                                 f"{num_players} players, got {len(values)}")
        else:
            t = int(key[-1]) - 1
            first, last = int(TIER_CARDS[t][0]), int(TIER_CARDS[t][-1])
            for i, v in enumerate(values):
                if not first <= v <= last:
                    raise ValueError(f"deck[{key!r}][{i}]: card {v} is not a tier-{t + 1} card "
                                     f"(tier-{t + 1} ids are {first}-{last})")
        checked[key] = values
    return checked


# ---------------------------------------------------------------- the cards on the table
# Compiled: each function takes ``a``, one game's ``data``, and changes it in place. Tables are int64, so that plain
# Python (NUMBA_DISABLE_JIT=1) computes in the same integers as the compiled code.

@compiled
def draw_card(a, t):
    """The top card of tier ``t``'s deck (0-based tier), or -1 when the deck is empty."""
    top = a[AT_DECK_TOP + t]
    if top >= _TIER_SIZE[t]:
        return -1
    a[AT_DECK_TOP + t] = top + 1
    return a[AT_DECKS + t * _DECK_LENGTH + top]


@compiled
def _reserved_count(a, seat):
    count = 0
    for j in range(MAX_RESERVED):
        if a[AT_RESERVED + seat * MAX_RESERVED + j] >= 0:
            count += 1
    return count


@compiled
def _qualifies(a, seat, place):
    """Whether the seat's bonuses meet the requirement of the noble at ``place`` on the table (none: False)."""
    noble = a[AT_NOBLES + place]
    if noble < 0:
        return False
    for c in range(5):
        if a[AT_BONUSES + seat * 5 + c] < _NOBLE_NEEDS[noble, c]:
            return False
    return True


@compiled
def _token_count(a, seat):
    total = 0
    for c in range(6):
        total += a[AT_TOKENS + seat * 6 + c]
    return total


@compiled
def _truncated(a):
    return a[AT_PHASE] != OVER and a[AT_ROUND] > a[AT_MAX_ROUNDS]


def _draw(s: State, t: int) -> int:
    """The top card of tier ``t``'s deck (0-based tier), or -1 when the deck is empty (on a ``State``)."""
    return int(draw_card(s.data, t))


def deck_size(s: State, t: int) -> int:
    return TIER_SIZE[t] - int(s.deck_top[t])


def draw_pile(s: State, t: int) -> np.ndarray:
    """The cards still in tier ``t``'s deck, top first."""
    return s.decks[t, s.deck_top[t]:TIER_SIZE[t]]


def reserved_count(s: State, seat: int) -> int:
    return int(np.count_nonzero(s.reserved[seat] >= 0))


def qualifying_nobles(s: State, seat: int) -> np.ndarray:
    """For each noble place on the table, whether the seat's bonuses meet that noble's requirement."""
    return np.array([_qualifies(s.data, seat, place) for place in range(MAX_PLAYERS + 1)])


# ---------------------------------------------------------------- legal actions

@compiled
def fill_legal_mask(a, mask):
    """``mask`` (72 bools) set to the actions the current player may take now (all False once the game is over or
    truncated)."""
    mask[:] = False
    if a[AT_PHASE] == OVER or a[AT_ROUND] > a[AT_MAX_ROUNDS]:
        return
    seat = a[AT_CURRENT]
    phase = a[AT_PHASE]
    if phase == MAIN:
        _main_mask(a, seat, mask)
    elif phase == RETURN:
        for c in range(6):
            mask[A_RETURN + c] = a[AT_TOKENS + seat * 6 + c] > 0
    else:
        for place in range(MAX_PLAYERS + 1):
            mask[A_NOBLE + place] = _qualifies(a, seat, place)


@compiled
def _main_mask(a, seat, mask):
    colors = 0
    for c in range(5):
        if a[AT_BANK + c] > 0:
            colors += 1
    for action in range(A_RESERVE):
        if action < A_DOUBLE:
            # 3 different colours; 2 different or 1 gem only when fewer than 3 colours are left.
            if action >= A_TAKE2 and colors >= 3:
                continue
            ok = True
            for c in range(5):
                if _TAKE_GEMS[action, c] > 0 and a[AT_BANK + c] == 0:
                    ok = False
            mask[action] = ok
        else:
            mask[action] = a[AT_BANK + action - A_DOUBLE] >= 4  # 2 of a colour the bank has 4 or more of
    if a[AT_RESERVED + seat * MAX_RESERVED + MAX_RESERVED - 1] < 0:  # reservations are packed: the last is free
        for index in range(3 * BOARD_SLOTS):
            mask[A_RESERVE + index] = a[AT_BOARD + index] >= 0
        for t in range(3):
            mask[A_RESERVE_DECK + t] = a[AT_DECK_TOP + t] < _TIER_SIZE[t]
    # Buying: the 12 face-up cards then the 3 reserved places.
    gold = a[AT_TOKENS + seat * 6 + GOLD]
    for index in range(3 * BOARD_SLOTS + MAX_RESERVED):
        if index < 3 * BOARD_SLOTS:
            card = a[AT_BOARD + index]
        else:
            card = a[AT_RESERVED + seat * MAX_RESERVED + index - 3 * BOARD_SLOTS]
        if card < 0:
            continue
        shortfall = 0
        for c in range(5):
            short = _COST[card, c] - a[AT_BONUSES + seat * 5 + c] - a[AT_TOKENS + seat * 6 + c]
            if short > 0:
                shortfall += short
        mask[A_BUY + index] = shortfall <= gold
    for action in range(NUM_ACTIONS):
        if mask[action]:
            return
    mask[A_PASS] = True


# ---------------------------------------------------------------- a turn

@compiled
def take_action(a, action):
    """The current player takes ``action`` (which must be legal)."""
    seat = a[AT_CURRENT]
    phase = a[AT_PHASE]
    if phase == RETURN:
        color = action - A_RETURN
        a[AT_TOKENS + seat * 6 + color] -= 1
        a[AT_BANK + color] += 1
        if _token_count(a, seat) <= TOKEN_LIMIT:
            _nobles_or_end_turn(a, seat)
        return
    if phase == NOBLE:
        _noble_visits(a, seat, action - A_NOBLE)
        _end_turn(a, seat)
        return
    if action == A_PASS:
        a[AT_PASSES] += 1
    else:
        a[AT_PASSES] = 0
        if action < A_RESERVE:
            for c in range(5):
                gems = _TAKE_GEMS[action, c]
                a[AT_TOKENS + seat * 6 + c] += gems
                a[AT_BANK + c] -= gems
        elif action < A_BUY:
            _reserve(a, seat, action - A_RESERVE)
        else:
            _buy(a, seat, action - A_BUY)
    # Only a take or a reserve can bring a player over the limit: a purchase pays tokens back.
    if action < A_BUY and _token_count(a, seat) > TOKEN_LIMIT:
        a[AT_PHASE] = RETURN
    else:
        _nobles_or_end_turn(a, seat)


@compiled
def _reserve(a, seat, index):
    """Reserve face-up card ``index`` (0-11: tier * 4 + slot) or the top of a deck (12-14); gold if any."""
    if index < 3 * BOARD_SLOTS:
        t = index // BOARD_SLOTS
        card = a[AT_BOARD + index]
        a[AT_BOARD + index] = draw_card(a, t)
        blind = 0
    else:
        card = draw_card(a, index - 3 * BOARD_SLOTS)
        blind = 1
    place = _reserved_count(a, seat)
    a[AT_RESERVED + seat * MAX_RESERVED + place] = card
    a[AT_BLIND + seat * MAX_RESERVED + place] = blind
    if a[AT_BANK + GOLD] > 0:
        a[AT_BANK + GOLD] -= 1
        a[AT_TOKENS + seat * 6 + GOLD] += 1


@compiled
def _buy(a, seat, index):
    """Buy face-up card ``index`` (0-11) or reserved card ``index - 12``; gems of the colour first, then gold."""
    if index < 3 * BOARD_SLOTS:
        card = a[AT_BOARD + index]
        a[AT_BOARD + index] = draw_card(a, index // BOARD_SLOTS)
    else:
        at = seat * MAX_RESERVED
        card = a[AT_RESERVED + at + index - 3 * BOARD_SLOTS]
        # Keep the reservations packed in order: the later ones move up one place.
        for j in range(index - 3 * BOARD_SLOTS, MAX_RESERVED - 1):
            a[AT_RESERVED + at + j] = a[AT_RESERVED + at + j + 1]
            a[AT_BLIND + at + j] = a[AT_BLIND + at + j + 1]
        a[AT_RESERVED + at + MAX_RESERVED - 1] = -1
        a[AT_BLIND + at + MAX_RESERVED - 1] = 0
    gold = 0
    for c in range(5):
        cost = _COST[card, c] - a[AT_BONUSES + seat * 5 + c]
        if cost > 0:
            gems = min(cost, a[AT_TOKENS + seat * 6 + c])
            a[AT_TOKENS + seat * 6 + c] -= gems
            a[AT_BANK + c] += gems
            gold += cost - gems
    a[AT_TOKENS + seat * 6 + GOLD] -= gold
    a[AT_BANK + GOLD] += gold
    a[AT_OWNER + card] = seat
    a[AT_BONUSES + seat * 5 + _COLOR[card]] += 1
    a[AT_POINTS + seat] += _POINTS[card]
    a[AT_CARDS + seat] += 1


_FEWEST_BONUSES_FOR_A_NOBLE = int(NOBLE_REQUIREMENT.sum(axis=1).min())  # 8


@compiled
def _nobles_or_end_turn(a, seat):
    """After the action and any returns: a noble visits (the player chooses if several qualify)."""
    # Fewer cards than any noble asks for cannot qualify: the common case, checked cheaply first.
    if a[AT_CARDS + seat] >= _FEWEST_BONUSES_FOR_A_NOBLE:
        for place in range(MAX_PLAYERS + 1):
            if _qualifies(a, seat, place):
                a[AT_PHASE] = NOBLE
                return
    _end_turn(a, seat)


@compiled
def _noble_visits(a, seat, place):
    noble = a[AT_NOBLES + place]
    a[AT_NOBLE_OWNER + noble] = seat
    a[AT_NOBLES_OWNED + seat] += 1
    a[AT_POINTS + seat] += NOBLE_POINTS
    # The nobles left on the table close up, so noble_i is always the i-th one shown.
    for p in range(place, MAX_PLAYERS):
        a[AT_NOBLES + p] = a[AT_NOBLES + p + 1]
    a[AT_NOBLES + MAX_PLAYERS] = -1


@compiled
def _end_turn(a, seat):
    """15 points start the last round; the game ends when it is complete, or after n passes in a row."""
    a[AT_PHASE] = MAIN
    n = a[AT_NUM_PLAYERS]
    if a[AT_POINTS + seat] >= WINNING_POINTS:
        a[AT_FINAL_ROUND] = 1
    if a[AT_PASSES] >= n:
        end_game(a, ALL_PASSED)
    elif seat == n - 1:
        if a[AT_FINAL_ROUND]:
            end_game(a, FINISHED)
        else:
            a[AT_ROUND] += 1
            a[AT_CURRENT] = 0
    else:
        a[AT_CURRENT] = seat + 1


@compiled
def end_game(a, result):
    a[AT_PHASE] = OVER
    a[AT_RESULT] = result


@compiled
def forfeit_game(a, seat):
    """The game ended by an illegal action of ``seat``."""
    a[AT_FORFEITED_BY] = seat
    end_game(a, FORFEITED)


@compiled
def play_forced(a, mask):
    """Every move the player to decide has no choice in, until a real decision or the end; ``mask`` holds the
    state's legal actions on the way in and is kept up to date."""
    action = only_action(mask)
    while action >= 0:
        take_action(a, action)
        fill_legal_mask(a, mask)
        action = only_action(mask)


@compiled
def take_turn(a, action, skip_forced, mask):
    """``action``, then (``skip_forced``) every forced move after it, whoever's; ``mask`` set to the legal actions of
    the state reached."""
    take_action(a, action)
    fill_legal_mask(a, mask)
    if skip_forced:
        play_forced(a, mask)


# The same turn for Python callers, on a State (copied first): written once in ``envs/core/turn.py``.
_TURN = CompiledTurn(NUM_ACTIONS, fill_legal_mask, end_game, FORFEITED, take_action)
apply, legal_mask, is_over = _TURN.apply, _TURN.legal_mask, _TURN.is_over


# ---------------------------------------------------------------- end and score

def is_truncated(s: State) -> bool:
    """``max_rounds`` rounds were played and the game did not end by the rules."""
    return s.phase != OVER and s.round > s.max_rounds


def forfeit(s: State, seat: int | None = None) -> State:
    """The game ended by an illegal action of ``seat`` (the current player by default)."""
    s = s.copy()
    forfeit_game(s.data, s.current if seat is None else seat)
    return s


def winners(s: State) -> list[int]:
    """Most points; on a tie the fewest purchased cards; still tied, a shared win. Empty while playing."""
    return outcome(s)["winners"]


def rewards(s: State) -> list[float]:
    """Per seat: +1 to each winner and -1 to the others at the end; -1 to a forfeiter and 0 to the rest;
    0 to everyone while playing or on truncation."""
    n = s.num_players
    if s.phase != OVER:
        return [0.0] * n
    if s.result == FORFEITED:
        return [-1.0 if k == s.forfeited_by else 0.0 for k in range(n)]
    won = winners(s)
    return [1.0 if k in won else -1.0 for k in range(n)]


# The results an outcome reads: the table's, and "truncated" for a game cut short (the code of each in the infos).
OUTCOME_RESULT_NAMES = RESULT_NAMES + ("truncated",)
_MOST = np.iinfo(np.int64).max


def outcomes(data: np.ndarray, seats: np.ndarray) -> dict:
    """The outcome of each game (a row of ``data`` each, all of one number of players) for the player at its seat
    in ``seats``, as arrays (what a vector env's infos hold): ``won`` (the seat is among the winners), ``score``
    (its points), every seat's ``points`` (games, players), the ``winners`` (games, players: whether each seat is
    one; most points, on a tie the fewest purchased cards, still tied a shared win; none while playing or after a
    forfeit) and the table's ``result`` (the code of a name in ``OUTCOME_RESULT_NAMES``, "truncated" for a game cut
    short)."""
    n = int(data[0, AT_NUM_PLAYERS]) if len(data) else MIN_PLAYERS
    points = data[:, AT_POINTS:AT_POINTS + n]
    cards = data[:, AT_CARDS:AT_CARDS + n]
    over = data[:, AT_PHASE] == OVER
    scored = over & (data[:, AT_RESULT] != FORFEITED)
    tied = points == points.max(axis=1, initial=0)[:, None]
    fewest = np.where(tied, cards, _MOST).min(axis=1, initial=_MOST)[:, None]
    won = tied & (cards == fewest) & scored[:, None]
    truncated = ~over & (data[:, AT_ROUND] > data[:, AT_MAX_ROUNDS])
    games = np.arange(len(data))
    return {
        "won": won[games, seats],
        "score": points[games, seats],
        "points": points.copy(),
        "winners": won,
        "result": np.where(truncated, len(RESULT_NAMES), data[:, AT_RESULT]),
    }


def outcome(s: State, seat: int = 0) -> dict:
    """``outcomes`` of the game ``s`` for ``seat``, as Python's values: the ``winners`` as a list of seats."""
    game = one_game(outcomes(s.data[None], np.array([seat], dtype=np.int64)), OUTCOME_RESULT_NAMES)
    game["winners"] = [k for k, won in enumerate(game["winners"]) if won]
    return game


# ---------------------------------------------------------------- what a player sees

_CARD_FEATURES = ["present", "tier1", "tier2", "tier3"] + [f"bonus_{c}" for c in COLORS] + ["points"] + [
    f"cost_{c}" for c in COLORS]
_CARD_HIGH = [1, 1, 1, 1] + [1] * 5 + [5] + [7] * 5
_SEAT_FIELDS = (["present"] + [f"tokens_{c}" for c in TOKEN_COLORS] + [f"bonus_{c}" for c in COLORS]
                + ["points", "cards", "nobles", "reserved"])
# Points stay under 15 until a player's last turn, which adds at most a 5-point card and a noble: 22.
_SEAT_HIGH = [1] + [7] * 5 + [5] + [18] * 5 + [22, 90, MAX_PLAYERS + 1, 3]


def _observation_fields() -> list[tuple[str, float]]:
    fields = [(f"bank_{c}", 7) for c in COLORS] + [("bank_Y", 5)]
    fields += [(f"deck_size_t{t + 1}", TIER_SIZE[t] - BOARD_SLOTS) for t in range(3)]
    for t in range(3):
        for slot in range(BOARD_SLOTS):
            fields += [(f"board_t{t + 1}_{slot}_{f}", h) for f, h in zip(_CARD_FEATURES, _CARD_HIGH)]
    for i in range(MAX_PLAYERS + 1):
        fields += [(f"noble_{i}_present", 1)] + [(f"noble_{i}_needs_{c}", 4) for c in COLORS]
    for r in range(MAX_PLAYERS):  # seats in turn order starting with the observer
        fields += [(f"seat{r}_{f}", h) for f, h in zip(_SEAT_FIELDS, _SEAT_HIGH)]
        for j in range(MAX_RESERVED):
            fields += [(f"seat{r}_reserved_{j}_{f}", h) for f, h in zip(_CARD_FEATURES, _CARD_HIGH)]
            fields += [(f"seat{r}_reserved_{j}_blind", 1)]
    fields += [("phase_main", 1), ("phase_return", 1), ("phase_noble", 1), ("tokens_to_return", 3),
               ("final_round", 1), ("round_progress", 1), ("consecutive_passes", MAX_PLAYERS)]
    fields += [(f"players_{n}", 1) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
    fields += [(f"my_seat_{k}", 1) for k in range(MAX_PLAYERS)]
    fields += [(f"to_play_seat{r}", 1) for r in range(MAX_PLAYERS)]
    return fields


OBSERVATION_FIELDS = _observation_fields()
OBSERVATION_SIZE = len(OBSERVATION_FIELDS)
OBSERVATION_LOW = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
OBSERVATION_HIGH = np.array([h for _, h in OBSERVATION_FIELDS], dtype=np.float32)

# Where each block starts (players.py reads the observation with these).
CARD_SIZE = len(_CARD_FEATURES)  # 15
RESERVED_SIZE = CARD_SIZE + 1
SEAT_HEAD = len(_SEAT_FIELDS)  # 16
SEAT_SIZE = SEAT_HEAD + MAX_RESERVED * RESERVED_SIZE  # 64
OBS_BANK = 0
OBS_DECKS = 6
OBS_BOARD = 9
OBS_NOBLES = OBS_BOARD + 12 * CARD_SIZE
NOBLE_SIZE = 6
OBS_SEATS = OBS_NOBLES + (MAX_PLAYERS + 1) * NOBLE_SIZE
OBS_CONTEXT = OBS_SEATS + MAX_PLAYERS * SEAT_SIZE
# Offsets inside a card's features and a seat's head.
F_PRESENT, F_TIER, F_BONUS, F_POINTS, F_COST = 0, 1, 4, 9, 10
S_TOKENS, S_BONUSES, S_POINTS, S_CARDS, S_NOBLES, S_RESERVED = 1, 7, 12, 13, 14, 15
assert OBSERVATION_FIELDS[OBS_CONTEXT][0] == "phase_main"


def _card_feature_table() -> np.ndarray:
    """Rows 0-89: a card as seen; 90-179: a blind reservation seen by its owner (card and blind flag);
    180-269: a blind reservation seen by others (its tier and the flag only); last row: nothing."""
    table = np.zeros((3 * NUM_CARDS + 1, RESERVED_SIZE), dtype=np.float32)
    for c in range(NUM_CARDS):
        row = table[c]
        row[F_PRESENT] = 1
        row[F_TIER + TIER[c] - 1] = 1
        row[F_BONUS + COLOR[c]] = 1
        row[F_POINTS] = POINTS[c]
        row[F_COST:F_COST + 5] = COST[c]
        table[NUM_CARDS + c] = row
        table[NUM_CARDS + c, -1] = 1
        hidden = table[2 * NUM_CARDS + c]
        hidden[F_PRESENT] = 1
        hidden[F_TIER + TIER[c] - 1] = 1
        hidden[-1] = 1
    return table


CARD_TABLE = _card_feature_table()
_NOBLE_TABLE = np.zeros((NUM_NOBLES + 1, NOBLE_SIZE), dtype=np.float32)
_NOBLE_TABLE[:NUM_NOBLES, 0] = 1
_NOBLE_TABLE[:NUM_NOBLES, 1:] = NOBLE_REQUIREMENT
_SEEN_BY_OTHERS, _SEEN_BY_OWNER = 2 * NUM_CARDS, NUM_CARDS  # row offsets of a blind reservation



@compiled
def fill_observation(a, seat, obs):
    """``obs`` set to the flat observation of ``seat``: the table, then every seat in turn order starting with its
    own. Another player's blind reservation shows only its tier; no deck order is ever shown."""
    obs[:] = 0
    n = a[AT_NUM_PLAYERS]
    for c in range(6):
        obs[OBS_BANK + c] = a[AT_BANK + c]
    for t in range(3):
        obs[OBS_DECKS + t] = _TIER_SIZE[t] - a[AT_DECK_TOP + t]
    for index in range(3 * BOARD_SLOTS):
        card = a[AT_BOARD + index]
        if card >= 0:
            for f in range(CARD_SIZE):
                obs[OBS_BOARD + index * CARD_SIZE + f] = CARD_TABLE[card, f]
    for place in range(MAX_PLAYERS + 1):
        noble = a[AT_NOBLES + place]
        if noble >= 0:
            for f in range(NOBLE_SIZE):
                obs[OBS_NOBLES + place * NOBLE_SIZE + f] = _NOBLE_TABLE[noble, f]
    for r in range(n):
        k = (seat + r) % n
        base = OBS_SEATS + r * SEAT_SIZE
        obs[base] = 1  # present
        for c in range(6):
            obs[base + S_TOKENS + c] = a[AT_TOKENS + k * 6 + c]
        for c in range(5):
            obs[base + S_BONUSES + c] = a[AT_BONUSES + k * 5 + c]
        obs[base + S_POINTS] = a[AT_POINTS + k]
        obs[base + S_CARDS] = a[AT_CARDS + k]
        obs[base + S_NOBLES] = a[AT_NOBLES_OWNED + k]
        obs[base + S_RESERVED] = _reserved_count(a, k)
        for j in range(MAX_RESERVED):
            card = a[AT_RESERVED + k * MAX_RESERVED + j]
            if card < 0:
                continue
            row = card
            if a[AT_BLIND + k * MAX_RESERVED + j]:
                # Others see a blind reservation's tier only; its owner sees the card and the flag.
                row = card + (_SEEN_BY_OWNER if k == seat else _SEEN_BY_OTHERS)
            at = base + SEAT_HEAD + j * RESERVED_SIZE
            for f in range(RESERVED_SIZE):
                obs[at + f] = CARD_TABLE[row, f]
    i = OBS_CONTEXT
    phase = a[AT_PHASE]
    if phase != OVER:
        obs[i + phase] = 1
        if phase == RETURN:
            obs[i + 3] = _token_count(a, a[AT_CURRENT]) - TOKEN_LIMIT
    obs[i + 4] = a[AT_FINAL_ROUND]
    obs[i + 5] = min(a[AT_ROUND], a[AT_MAX_ROUNDS]) / a[AT_MAX_ROUNDS]
    obs[i + 6] = a[AT_PASSES]
    obs[i + 7 + n - MIN_PLAYERS] = 1
    obs[i + 10 + seat] = 1
    obs[i + 14 + (a[AT_CURRENT] - seat) % n] = 1


def observe(s: State, seat: int = 0) -> np.ndarray:
    """The flat observation of ``seat`` (see ``fill_observation``)."""
    obs = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    fill_observation(s.data, seat, obs)
    return obs


def _tokens(row) -> dict:
    return {c: int(v) for c, v in zip(TOKEN_COLORS, row)}


def describe(s: State, seat: int | None = None) -> dict:
    """The table as a JSON-serialisable dict; blind reservations show only their tier, except to ``seat``."""
    players = []
    for k in range(s.num_players):
        reserved = []
        for card, blind in zip(s.reserved[k], s.reserved_blind[k]):
            if card < 0:
                continue
            reserved.append(f"hidden_t{TIER[card]}" if blind and k != seat else int(card))
        players.append({
            "seat": k,
            "tokens": _tokens(s.tokens[k]),
            "bonuses": {c: int(v) for c, v in zip(COLORS, s.bonuses[k])},
            "points": int(s.points[k]),
            "cards": int(s.cards_bought[k]),
            "purchased": [int(c) for c in np.flatnonzero(s.owner == k)],
            "reserved": reserved,
            "nobles": [int(n) for n in np.flatnonzero(s.noble_owner == k)],
        })
    over = s.phase == OVER
    return {
        "num_players": s.num_players,
        "bank": _tokens(s.bank),
        "board": {f"tier{t + 1}": [int(c) if c >= 0 else None for c in s.board[t]] for t in range(3)},
        "deck_sizes": {f"tier{t + 1}": deck_size(s, t) for t in range(3)},
        "nobles": [int(n) for n in s.nobles if n >= 0],
        "players": players,
        "current": s.current,
        "phase": PHASE_NAMES[s.phase],
        "round": s.round,
        "max_rounds": s.max_rounds,
        "final_round": bool(s.final_round),
        "consecutive_passes": s.passes,
        "tokens_to_return": max(0, int(s.tokens[s.current].sum()) - TOKEN_LIMIT) if not over else 0,
        "result": "truncated" if is_truncated(s) else RESULT_NAMES[s.result],
        "winners": winners(s),
        "viewer": seat,
    }


def determinize(s: State, rng: np.random.Generator, seat: int = 0) -> State:
    """A copy in which what ``seat`` has not seen is resampled: per tier, the draw pile and the other
    players' blind reservations of that tier are shuffled together and dealt back to the same places."""
    s = s.copy()
    for t in range(3):
        places = [(k, j) for k in range(s.num_players) if k != seat for j in range(MAX_RESERVED)
                  if s.reserved_blind[k, j] and s.reserved[k, j] >= 0 and TIER[s.reserved[k, j]] == t + 1]
        top = int(s.deck_top[t])
        pile = s.decks[t, top:TIER_SIZE[t]]
        blind = np.array([s.reserved[k, j] for k, j in places], dtype=np.int8)
        # Where each blind card was drawn from the deck, so the deck's record stays a full tier.
        drawn_at = [int(np.flatnonzero(s.decks[t, :top] == card)[0]) for card in blind]
        # Sorted first, so the result depends on which cards are unseen and on rng, never on their order.
        pool = np.sort(np.concatenate([pile, blind]))
        rng.shuffle(pool)
        s.decks[t, top:TIER_SIZE[t]] = pool[:len(pile)]
        for (k, j), at, card in zip(places, drawn_at, pool[len(pile):]):
            s.reserved[k, j] = card
            s.decks[t, at] = card
    return s


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
def fill_observations(data, seats, observations):
    """Row i's observation as seat ``seats[i]`` sees it."""
    for i in range(data.shape[0]):
        fill_observation(data[i], seats[i], observations[i])


@compiled
def forfeit_rows(data, rows, seats):
    for i in range(data.shape[0]):
        if rows[i]:
            forfeit_game(data[i], seats[i])
