"""Splendor (Marc André), 2-4 players, the rules as pure functions on a ``State``.

Hold this file next to RULES.md: each section there has a function here. The state is numbers
and fixed-shape numpy arrays, padded to four seats whatever the player count; ``apply`` copies it
and returns the next one. No Gymnasium or PettingZoo here: the AEC env, the single-agent view,
the players and the benchmarks only call these functions.

Cards and nobles are ids into the tables of ``cards.py``. Each tier's deck is ``decks[t]`` in
order (the first four went to the board at setup); its draw pile is ``decks[t, deck_top[t]:]``.
A player's turn is one main action, then (if needed) token returns one at a time, then (if
several nobles qualify) the choice of noble: all decisions of the same player.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from tabletop_gym.envs.core.state import ArrayState
from tabletop_gym.envs.splendor.cards import (COLOR, COLORS, COST, GOLD, NOBLE_POINTS, NOBLE_REQUIREMENT, NUM_CARDS, NUM_NOBLES, POINTS,
                    TIER, TIER_CARDS, TIER_SIZE, TOKEN_COLORS)

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

# Lookups padded with one last row so that an empty slot (-1) reads as "nothing".
_COST_OR_NOTHING = np.vstack([COST, np.zeros((1, 5), np.int8)])
_NOBLE_OR_NEVER = np.vstack([NOBLE_REQUIREMENT, np.full((1, 5), 99, np.int8)])
_TIER_SIZE = np.array(TIER_SIZE, dtype=np.int16)


class State(ArrayState):
    """Everything on the table, hidden parts (deck order, blind reservations) included."""

    def __init__(self, num_players: int, max_rounds: int, decks: np.ndarray, nobles: np.ndarray):
        n = num_players
        self.num_players = n
        self.max_rounds = max_rounds
        self.bank = np.zeros(6, dtype=np.int8)
        self.bank[:5] = GEMS_PER_COLOR[n]
        self.bank[GOLD] = GOLD_TOKENS
        self.tokens = np.zeros((MAX_PLAYERS, 6), dtype=np.int8)
        self.bonuses = np.zeros((MAX_PLAYERS, 5), dtype=np.int8)
        self.points = np.zeros(MAX_PLAYERS, dtype=np.int8)
        self.cards_bought = np.zeros(MAX_PLAYERS, dtype=np.int8)
        self.nobles_owned = np.zeros(MAX_PLAYERS, dtype=np.int8)
        self.owner = np.full(NUM_CARDS, -1, dtype=np.int8)  # who bought each card
        self.decks = decks  # (3, 40), each tier in order, padded with -1
        self.deck_top = np.zeros(3, dtype=np.int16)  # cards dealt or drawn from each deck so far
        self.board = np.full((3, BOARD_SLOTS), -1, dtype=np.int8)
        # Reserved cards in order of reservation (-1 = free); blind = taken from the top of a deck.
        self.reserved = np.full((MAX_PLAYERS, MAX_RESERVED), -1, dtype=np.int8)
        self.reserved_blind = np.zeros((MAX_PLAYERS, MAX_RESERVED), dtype=bool)
        self.nobles = np.full(MAX_PLAYERS + 1, -1, dtype=np.int8)  # on the table, in display order
        self.nobles[:n + 1] = nobles
        self.noble_owner = np.full(NUM_NOBLES, -1, dtype=np.int8)
        self.current = 0
        self.phase = MAIN
        self.round = 1
        self.final_round = False
        self.passes = 0  # consecutive passes
        self.result = PLAYING
        self.forfeited_by = -1
        for t in range(3):
            for slot in range(BOARD_SLOTS):
                self.board[t, slot] = _draw(self, t)


# ---------------------------------------------------------------- setup

def new_game(rng: np.random.Generator, num_players: int = 2, max_rounds: int = DEFAULT_MAX_ROUNDS,
             deck: dict | None = None) -> State:
    """A new game: each tier shuffled with ``rng`` and players + 1 nobles revealed, or stacked by ``deck``.

    ``deck`` may fix ``"tier1"``, ``"tier2"``, ``"tier3"`` (card ids, first four to board slots 0-3,
    then the draw pile from the top; a shorter list is the top of the deck and the tier's other
    cards follow shuffled) and ``"nobles"`` (exactly players + 1 noble ids, in display order).
    """
    deck = _check_deck(deck, num_players)
    decks = np.full((3, max(TIER_SIZE)), -1, dtype=np.int8)
    for t in range(3):
        top = deck.get(f"tier{t + 1}", [])
        rest = np.array([c for c in TIER_CARDS[t] if c not in set(top)], dtype=np.int8)
        rng.shuffle(rest)
        decks[t, :TIER_SIZE[t]] = np.concatenate([np.array(top, dtype=np.int8), rest])
    if "nobles" in deck:
        nobles = np.array(deck["nobles"], dtype=np.int8)
    else:
        nobles = rng.permutation(NUM_NOBLES)[:num_players + 1].astype(np.int8)
    return State(num_players, max_rounds, decks, nobles)


def _int_id(value, where: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{where}: expected an integer id, got {value!r}")
    return int(value)


def _check_deck(deck, num_players: int) -> dict:
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

def _draw(s: State, t: int) -> int:
    """The top card of tier ``t``'s deck (0-based tier), or -1 when the deck is empty."""
    top = s.deck_top[t]
    if top >= TIER_SIZE[t]:
        return -1
    s.deck_top[t] = top + 1
    return int(s.decks[t, top])


def deck_size(s: State, t: int) -> int:
    return TIER_SIZE[t] - int(s.deck_top[t])


def draw_pile(s: State, t: int) -> np.ndarray:
    """The cards still in tier ``t``'s deck, top first."""
    return s.decks[t, s.deck_top[t]:TIER_SIZE[t]]


def reserved_count(s: State, seat: int) -> int:
    return int(np.count_nonzero(s.reserved[seat] >= 0))


def qualifying_nobles(s: State, seat: int) -> np.ndarray:
    """For each noble place on the table, whether the seat's bonuses meet that noble's requirement."""
    return (_NOBLE_OR_NEVER[s.nobles] <= s.bonuses[seat]).all(axis=1)


# ---------------------------------------------------------------- legal actions

def legal_mask(s: State) -> np.ndarray:
    """Which actions the current player may take now (all False once the game is over or truncated)."""
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    if s.phase == OVER or s.round > s.max_rounds:
        return mask
    seat = s.current
    if s.phase == MAIN:
        _main_mask(s, seat, mask)
    elif s.phase == RETURN:
        mask[A_RETURN:A_NOBLE] = s.tokens[seat] > 0
    else:
        mask[A_NOBLE:A_PASS] = qualifying_nobles(s, seat)
    return mask


def _take_mask(available: np.ndarray, four_or_more: np.ndarray) -> np.ndarray:
    """Legal take actions (0-29) given which colours the bank has, and which it has 4 or more of."""
    mask = np.zeros(A_RESERVE, dtype=bool)
    mask[A_TAKE3:A_TAKE2] = available[TAKE3_COLORS].all(axis=1)
    if np.count_nonzero(available) < 3:
        # Fewer than 3 colours left: 2 different or 1 gem, of those available.
        mask[A_TAKE2:A_TAKE1] = available[TAKE2_COLORS].all(axis=1)
        mask[A_TAKE1:A_DOUBLE] = available
    mask[A_DOUBLE:A_RESERVE] = four_or_more
    return mask


_BITS = np.array([[(code >> c) & 1 for c in range(5)] for code in range(32)], dtype=bool)
# The take mask for every bank, indexed by two 5-bit codes: colours present, colours with 4 or more.
_TAKE_MASKS = np.array([[_take_mask(_BITS[a], _BITS[f]) for f in range(32)] for a in range(32)])


def _main_mask(s: State, seat: int, mask: np.ndarray) -> None:
    present = four_or_more = 0
    for bit, gems in zip((1, 2, 4, 8, 16), s.bank[:5].tolist()):
        if gems:
            present |= bit
            if gems >= 4:
                four_or_more |= bit
    mask[:A_RESERVE] = _TAKE_MASKS[present, four_or_more]
    if s.reserved[seat, MAX_RESERVED - 1] < 0:  # reservations are packed: the last place is free
        mask[A_RESERVE:A_RESERVE_DECK] = s.board.ravel() >= 0
        mask[A_RESERVE_DECK:A_BUY] = s.deck_top < _TIER_SIZE
    # Buying: the 12 face-up cards then the 3 reserved places, all checked at once.
    candidates = np.concatenate((s.board.ravel(), s.reserved[seat]))
    means = s.bonuses[seat] + s.tokens[seat, :5]
    shortfall = np.maximum(_COST_OR_NOTHING[candidates] - means, 0).sum(axis=1)
    mask[A_BUY:A_RETURN] = (candidates >= 0) & (shortfall <= s.tokens[seat, GOLD])
    if not mask.any():
        mask[A_PASS] = True


# ---------------------------------------------------------------- a turn

def apply(s: State, action: int, rng: np.random.Generator | None = None) -> State:
    """The state after the current player takes ``action`` (which must be legal). ``s`` is not changed.

    The game has no randomness after the shuffle; ``rng`` is accepted for a uniform signature.
    """
    s = s.copy()
    seat = s.current
    if s.phase == RETURN:
        color = action - A_RETURN
        s.tokens[seat, color] -= 1
        s.bank[color] += 1
        if s.tokens[seat].sum() <= TOKEN_LIMIT:
            _nobles_or_end_turn(s, seat)
        return s
    if s.phase == NOBLE:
        _noble_visits(s, seat, action - A_NOBLE)
        _end_turn(s, seat)
        return s
    if action == A_PASS:
        s.passes += 1
    else:
        s.passes = 0
        if action < A_RESERVE:
            gems = TAKE_GEMS[action]
            s.tokens[seat, :5] += gems
            s.bank[:5] -= gems
        elif action < A_BUY:
            _reserve(s, seat, action - A_RESERVE)
        else:
            _buy(s, seat, action - A_BUY)
    # Only a take or a reserve can bring a player over the limit: a purchase pays tokens back.
    if action < A_BUY and s.tokens[seat].sum() > TOKEN_LIMIT:
        s.phase = RETURN
    else:
        _nobles_or_end_turn(s, seat)
    return s


def _reserve(s: State, seat: int, index: int) -> None:
    """Reserve face-up card ``index`` (0-11: tier * 4 + slot) or the top of a deck (12-14); gold if any."""
    if index < 12:
        t, slot = divmod(index, BOARD_SLOTS)
        card = int(s.board[t, slot])
        s.board[t, slot] = _draw(s, t)
        blind = False
    else:
        card = _draw(s, index - 12)
        blind = True
    place = reserved_count(s, seat)
    s.reserved[seat, place] = card
    s.reserved_blind[seat, place] = blind
    if s.bank[GOLD] > 0:
        s.bank[GOLD] -= 1
        s.tokens[seat, GOLD] += 1


def _buy(s: State, seat: int, index: int) -> None:
    """Buy face-up card ``index`` (0-11) or reserved card ``index - 12``; gems of the colour first, then gold."""
    if index < 12:
        t, slot = divmod(index, BOARD_SLOTS)
        card = int(s.board[t, slot])
        s.board[t, slot] = _draw(s, t)
    else:
        place = index - 12
        card = int(s.reserved[seat, place])
        # Keep the reservations packed in order: the later ones move up one place.
        s.reserved[seat, place:-1] = s.reserved[seat, place + 1:].copy()
        s.reserved[seat, -1] = -1
        s.reserved_blind[seat, place:-1] = s.reserved_blind[seat, place + 1:].copy()
        s.reserved_blind[seat, -1] = False
    cost = np.maximum(COST[card] - s.bonuses[seat], 0)
    gems = np.minimum(cost, s.tokens[seat, :5])
    gold = int((cost - gems).sum())
    s.tokens[seat, :5] -= gems
    s.bank[:5] += gems
    s.tokens[seat, GOLD] -= gold
    s.bank[GOLD] += gold
    s.owner[card] = seat
    s.bonuses[seat, COLOR[card]] += 1
    s.points[seat] += POINTS[card]
    s.cards_bought[seat] += 1


_FEWEST_BONUSES_FOR_A_NOBLE = int(NOBLE_REQUIREMENT.sum(axis=1).min())  # 8


def _nobles_or_end_turn(s: State, seat: int) -> None:
    """After the action and any returns: a noble visits (the player chooses if several qualify)."""
    # Fewer cards than any noble asks for cannot qualify: the common case, checked cheaply first.
    if s.cards_bought[seat] >= _FEWEST_BONUSES_FOR_A_NOBLE and qualifying_nobles(s, seat).any():
        s.phase = NOBLE
    else:
        _end_turn(s, seat)


def _noble_visits(s: State, seat: int, place: int) -> None:
    noble = int(s.nobles[place])
    s.noble_owner[noble] = seat
    s.nobles_owned[seat] += 1
    s.points[seat] += NOBLE_POINTS
    # The nobles left on the table close up, so noble_i is always the i-th one shown.
    s.nobles[place:-1] = s.nobles[place + 1:].copy()
    s.nobles[-1] = -1


def _end_turn(s: State, seat: int) -> None:
    """15 points start the last round; the game ends when it is complete, or after n passes in a row."""
    s.phase = MAIN
    if s.points[seat] >= WINNING_POINTS:
        s.final_round = True
    if s.passes >= s.num_players:
        _game_over(s, ALL_PASSED)
    elif seat == s.num_players - 1:
        if s.final_round:
            _game_over(s, FINISHED)
        else:
            s.round += 1
            s.current = 0
    else:
        s.current = seat + 1


def _game_over(s: State, result: int) -> None:
    s.phase = OVER
    s.result = result


# ---------------------------------------------------------------- end and score

def is_over(s: State) -> bool:
    return s.phase == OVER


def is_truncated(s: State) -> bool:
    """``max_rounds`` rounds were played and the game did not end by the rules."""
    return s.phase != OVER and s.round > s.max_rounds


def forfeit(s: State, seat: int | None = None) -> State:
    """The game ended by an illegal action of ``seat`` (the current player by default)."""
    s = s.copy()
    s.forfeited_by = s.current if seat is None else seat
    _game_over(s, FORFEITED)
    return s


def winners(s: State) -> list[int]:
    """Most points; on a tie the fewest purchased cards; still tied, a shared win. Empty while playing."""
    if s.phase != OVER or s.result == FORFEITED:
        return []
    seats = range(s.num_players)
    best = max(int(s.points[k]) for k in seats)
    tied = [k for k in seats if s.points[k] == best]
    fewest = min(int(s.cards_bought[k]) for k in tied)
    return [k for k in tied if s.cards_bought[k] == fewest]


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


def outcome(s: State, seat: int = 0) -> dict:
    """``won`` (the seat is among the winners), ``score`` (its points), and the table's result."""
    result = "truncated" if is_truncated(s) else RESULT_NAMES[s.result]
    return {
        "won": seat in winners(s),
        "score": int(s.points[seat]),
        "points": [int(p) for p in s.points[:s.num_players]],
        "winners": winners(s),
        "result": result,
    }


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
_BOARD_TABLE = np.ascontiguousarray(CARD_TABLE[:, :CARD_SIZE])
_NOBLE_TABLE = np.zeros((NUM_NOBLES + 1, NOBLE_SIZE), dtype=np.float32)
_NOBLE_TABLE[:NUM_NOBLES, 0] = 1
_NOBLE_TABLE[:NUM_NOBLES, 1:] = NOBLE_REQUIREMENT
_SEEN_BY_OTHERS, _SEEN_BY_OWNER = 2 * NUM_CARDS, NUM_CARDS  # row offsets of a blind reservation


def _observation_plan(n: int, seat: int):
    """What observe() copies for ``seat`` in an ``n``-player game: the constant entries (a template)
    and, for the per-seat numbers, where each comes from in ``_seat_numbers`` and where it goes."""
    template = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    order = np.array([(seat + r) % n for r in range(n)])
    source, target = [], []
    for r, k in enumerate(order):
        base = OBS_SEATS + r * SEAT_SIZE
        template[base] = 1  # present
        for i in range(6):
            source.append(k * 6 + i)
            target.append(base + S_TOKENS + i)
        for i in range(5):
            source.append(24 + k * 5 + i)
            target.append(base + S_BONUSES + i)
        for j, column in enumerate((S_POINTS, S_CARDS, S_NOBLES, S_RESERVED)):
            source.append(44 + 4 * j + k)
            target.append(base + column)
    template[OBS_CONTEXT + 7 + n - MIN_PLAYERS] = 1
    template[OBS_CONTEXT + 10 + seat] = 1
    reserved = np.arange(OBS_SEATS, OBS_SEATS + n * SEAT_SIZE).reshape(n, SEAT_SIZE)[:, SEAT_HEAD:]
    return template, order, np.array(source), np.array(target), reserved.ravel()


_PLANS = {(n, seat): _observation_plan(n, seat)
          for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) for seat in range(n)}


def observe(s: State, seat: int = 0) -> np.ndarray:
    """The flat observation of ``seat``: the table, then every seat in turn order starting with its own.

    Another player's blind reservation shows only its tier; no deck order is ever shown.
    """
    n = s.num_players
    template, order, source, target, reserved_target = _PLANS[n, seat]
    obs = template.copy()
    obs[0:6] = s.bank
    obs[6:9] = _TIER_SIZE - s.deck_top
    obs[OBS_BOARD:OBS_NOBLES] = _BOARD_TABLE[s.board].reshape(-1)
    obs[OBS_NOBLES:OBS_SEATS] = _NOBLE_TABLE[s.nobles].reshape(-1)
    held = s.reserved >= 0
    numbers = np.concatenate((s.tokens.reshape(-1), s.bonuses.reshape(-1), s.points, s.cards_bought,
                              s.nobles_owned, held.sum(axis=1)))
    obs[target] = numbers[source]
    # Card-table rows of the reserved cards: others' blind ones as seen by others, the seat's own in full.
    rows = s.reserved + s.reserved_blind * np.int16(_SEEN_BY_OTHERS)
    rows[seat] -= s.reserved_blind[seat] * np.int16(_SEEN_BY_OTHERS - _SEEN_BY_OWNER)
    obs[reserved_target] = CARD_TABLE[rows[order]].reshape(-1)
    i = OBS_CONTEXT
    phase = s.phase
    if phase != OVER:
        obs[i + phase] = 1
        if phase == RETURN:
            obs[i + 3] = s.tokens[s.current].sum() - TOKEN_LIMIT
    obs[i + 4] = s.final_round
    obs[i + 5] = min(s.round, s.max_rounds) / s.max_rounds
    obs[i + 6] = s.passes
    obs[i + 14 + (s.current - seat) % n] = 1
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
