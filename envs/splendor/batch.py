"""Splendor's rules over a batch of games: ``rules.py`` with a leading axis of N, and the scripted players batched.

``rules.py`` is the source of truth; each function here does, for every game a row mask (or index array)
selects, what the function of the same name there does for one game, and ``tests/test_vector_splendor.py``
plays both side by side. The state is a ``Batch`` of ``rules.State`` (see ``envs/core/vector.py``):
``b.tokens[i, k]`` are seat k's tokens in game i, ``b.board[i, t, slot]`` the face-up card of tier t + 1 in
that slot, and so on. Functions change ``b`` in place; helpers take ``rows``, arrays of game indices, and
``seats``, the seat that acts in each of those games.

What depends on a seat takes the seat per game: the current player's for the rules, an observer's for
``observe`` (the learner of the single-agent view, or an opponent about to choose), the learner's for
``outcome`` and ``forfeit``. The game has no randomness after the shuffle, so nothing here loops over games
except ``random_actions`` (each game's own generator, drawn as ``players.random_action`` draws it) and the
per-game lists of ``outcome``'s points and winners.

``greedy_actions`` is ``players.greedy_action`` over a batch of observations and masks: the same reads of the
observation and the same arithmetic in the same dtypes (float32 where the observation's values are used as
they are, float64 where the scalar code mixes them with float64), so every comparison, ties included, comes
out the same.
"""

from __future__ import annotations

import numpy as np

from . import players, rules
from .cards import COLOR, COST, GOLD, NOBLE_POINTS, NUM_NOBLES, POINTS, TIER_CARDS, TIER_SIZE
from .rules import (A_BUY, A_NOBLE, A_PASS, A_RESERVE, A_RETURN, ALL_PASSED, BOARD_SLOTS, CARD_SIZE, CARD_TABLE,
                    F_BONUS, F_COST, F_POINTS, F_PRESENT, FINISHED, FORFEITED, MAIN, MAX_PLAYERS, MAX_RESERVED,
                    MIN_PLAYERS, NOBLE, NOBLE_SIZE, NUM_ACTIONS, OBS_BOARD, OBS_CONTEXT, OBS_NOBLES, OBS_SEATS,
                    OBSERVATION_SIZE, OVER, RESERVED_SIZE, RETURN, S_BONUSES, S_CARDS, S_NOBLES, S_POINTS,
                    S_RESERVED, S_TOKENS, SEAT_HEAD, SEAT_SIZE, TAKE_GEMS, TOKEN_LIMIT, WINNING_POINTS)

_TIER_SIZE = np.array(TIER_SIZE, dtype=np.int16)
_LAST_IN_DECK = max(TIER_SIZE) - 1  # the last column of ``decks``
_COLOR_BITS = np.array([1, 2, 4, 8, 16])
# Lookups of rules.py, padded with one last row so that an empty slot or place (-1) reads as "nothing".
_COST_OR_NOTHING = rules._COST_OR_NOTHING
_NOBLE_OR_NEVER = rules._NOBLE_OR_NEVER
_TAKE_MASKS = rules._TAKE_MASKS  # [colours present, colours with 4 or more] as 5-bit codes -> the 30 takes
_FEWEST_BONUSES_FOR_A_NOBLE = rules._FEWEST_BONUSES_FOR_A_NOBLE
_BOARD_TABLE = rules._BOARD_TABLE
_NOBLE_TABLE = rules._NOBLE_TABLE
_SEEN_BY_OTHERS, _SEEN_BY_OWNER = rules._SEEN_BY_OTHERS, rules._SEEN_BY_OWNER
_RESULT_NAMES = np.array(rules.RESULT_NAMES + ("truncated",))
_TRUNCATED = len(rules.RESULT_NAMES)


# ---------------------------------------------------------------- setup

def deal(b, rows, rngs) -> None:
    """Shuffle each new game's decks and nobles with its own generator, as ``rules.new_game`` does without a
    stacked deck; the rest of a new game is already in place (one new game was put in every row first)."""
    if not len(rows):
        return
    decks = np.full((len(rows), 3, _LAST_IN_DECK + 1), -1, dtype=np.int8)
    nobles = np.full((len(rows), MAX_PLAYERS + 1), -1, dtype=np.int8)
    for k, (i, num_players) in enumerate(zip(rows.tolist(), b.num_players[rows].tolist())):
        for t, size in enumerate(TIER_SIZE):
            decks[k, t, :size] = TIER_CARDS[t]
            rngs[i].shuffle(decks[k, t, :size])
        nobles[k, :num_players + 1] = rngs[i].permutation(NUM_NOBLES)[:num_players + 1]
    b.decks[rows] = decks
    b.board[rows] = decks[:, :, :BOARD_SLOTS]
    b.deck_top[rows] = BOARD_SLOTS
    b.nobles[rows] = nobles


def _indices(rows) -> np.ndarray:
    rows = np.asarray(rows)
    return np.flatnonzero(rows) if rows.dtype == bool else rows


def _close_up(places: np.ndarray, gone: np.ndarray, empty) -> np.ndarray:
    """Each row of ``places`` without its entry ``gone``: the later ones move up one place, ``empty`` at the end."""
    width = places.shape[1]
    padded = np.concatenate([places, np.full((len(places), 1), empty, dtype=places.dtype)], axis=1)
    source = np.arange(width) + (np.arange(width) >= gone[:, None])
    return np.take_along_axis(padded, source, axis=1)


def _color_sum(x: np.ndarray) -> np.ndarray:
    """The sum over the last axis, the five colours, in order: far cheaper than a reduction over so short an axis,
    and the same numbers (they are small whole numbers, exact in float32)."""
    return x[..., 0] + x[..., 1] + x[..., 2] + x[..., 3] + x[..., 4]


# ---------------------------------------------------------------- the cards on the table

def _draw(b, rows, tiers) -> np.ndarray:
    """The top card of each game's deck of tier ``tiers`` (0-based), or -1 where that deck is empty."""
    top = b.deck_top[rows, tiers]
    left = top < _TIER_SIZE[tiers]
    cards = np.where(left, b.decks[rows, tiers, np.minimum(top, _LAST_IN_DECK)], -1)
    b.deck_top[rows, tiers] = top + left
    return cards


def _qualifying(nobles: np.ndarray, bonuses: np.ndarray) -> np.ndarray:
    """(k, 5): per noble place, whether the bonuses of each game's seat meet that noble's requirement."""
    return (_NOBLE_OR_NEVER[nobles] <= bonuses[:, None, :]).all(axis=2)


# ---------------------------------------------------------------- legal actions

def legal_masks(b) -> np.ndarray:
    """(N, 72): which actions the current player of each game may take (all False once over or truncated)."""
    phase, current = b.phase, b.current
    mask = np.zeros((len(phase), NUM_ACTIONS), dtype=bool)
    playing = (phase != OVER) & (b.round <= b.max_rounds)
    tokens = b.tokens
    main = np.flatnonzero(playing & (phase == MAIN))
    if main.size:
        _main_masks(b, main, current[main], tokens[main, current[main]], mask)
    giving_back = np.flatnonzero(playing & (phase == RETURN))
    mask[giving_back, A_RETURN:A_NOBLE] = tokens[giving_back, current[giving_back]] > 0
    choosing = np.flatnonzero(playing & (phase == NOBLE))
    if choosing.size:
        mask[choosing, A_NOBLE:A_PASS] = _qualifying(b.nobles[choosing], b.bonuses[choosing, current[choosing]])
    return mask


def _main_masks(b, rows, seats, tokens, mask) -> None:
    bank = b.bank[rows, :5]
    present = (bank > 0) @ _COLOR_BITS
    four_or_more = (bank >= 4) @ _COLOR_BITS
    mask[rows, :A_RESERVE] = _TAKE_MASKS[present, four_or_more]
    board = b.board[rows].reshape(len(rows), 12)
    reserved = b.reserved[rows, seats]
    room = (reserved[:, MAX_RESERVED - 1] < 0)[:, None]  # reservations are packed: the last place is free
    mask[rows, A_RESERVE:rules.A_RESERVE_DECK] = (board >= 0) & room
    mask[rows, rules.A_RESERVE_DECK:A_BUY] = (b.deck_top[rows] < _TIER_SIZE) & room
    # Buying: the 12 face-up cards then the 3 reserved places, all checked at once.
    candidates = np.concatenate([board, reserved], axis=1)
    means = b.bonuses[rows, seats] + tokens[:, :5]
    shortfall = _color_sum(np.maximum(_COST_OR_NOTHING[candidates] - means[:, None, :], 0))
    mask[rows, A_BUY:A_RETURN] = (candidates >= 0) & (shortfall <= tokens[:, GOLD, None])
    stuck = rows[~mask[rows].any(axis=1)]
    mask[stuck, A_PASS] = True


# ---------------------------------------------------------------- a turn

def apply(b, actions, rows, rngs=None) -> None:
    """Every game ``rows`` selects (a bool mask or indices) takes its action (legal, by its current player).

    The game has no randomness after the shuffle; ``rngs`` is accepted for the common signature."""
    taking = _indices(rows)
    chosen = np.asarray(actions)[taking]
    seats = b.current[taking]
    phase = b.phase[taking]
    giving_back = phase == RETURN
    _return(b, taking[giving_back], seats[giving_back], chosen[giving_back] - A_RETURN)
    visited = phase == NOBLE
    _noble_visits(b, taking[visited], seats[visited], chosen[visited] - A_NOBLE)
    _end_turn(b, taking[visited], seats[visited])
    main = phase == MAIN
    _main_action(b, taking[main], seats[main], chosen[main])


def _return(b, rows, seats, colors) -> None:
    b.tokens[rows, seats, colors] -= 1
    b.bank[rows, colors] += 1
    done = b.tokens[rows, seats].sum(axis=1) <= TOKEN_LIMIT
    _nobles_or_end_turn(b, rows[done], seats[done])


def _main_action(b, rows, seats, chosen) -> None:
    b.passes[rows] = np.where(chosen == A_PASS, b.passes[rows] + 1, 0)
    take = chosen < A_RESERVE
    gems = TAKE_GEMS[chosen[take]]
    b.tokens[rows[take], seats[take], :5] += gems
    b.bank[rows[take], :5] -= gems
    reserve = (chosen >= A_RESERVE) & (chosen < A_BUY)
    _reserve(b, rows[reserve], seats[reserve], chosen[reserve] - A_RESERVE)
    buy = (chosen >= A_BUY) & (chosen < A_RETURN)
    _buy(b, rows[buy], seats[buy], chosen[buy] - A_BUY)
    # Only a take or a reserve can bring a player over the limit: a purchase pays tokens back.
    over = (chosen < A_BUY) & (b.tokens[rows, seats].sum(axis=1) > TOKEN_LIMIT)
    b.phase[rows[over]] = RETURN
    _nobles_or_end_turn(b, rows[~over], seats[~over])


def _take_face_up(b, rows, index):
    """The cards of the games whose ``index`` is a face-up place (0-11: tier * 4 + slot), each place refilled from
    its tier's deck; the other games' entries are left for the caller. Returns (cards, which games took one)."""
    cards = np.empty(len(rows), dtype=np.int8)
    face_up = index < 12
    up_rows = rows[face_up]
    tiers, slots = np.divmod(index[face_up], BOARD_SLOTS)
    cards[face_up] = b.board[up_rows, tiers, slots]
    b.board[up_rows, tiers, slots] = _draw(b, up_rows, tiers)
    return cards, face_up


def _reserve(b, rows, seats, index) -> None:
    """Reserve face-up card ``index`` (0-11: tier * 4 + slot) or the top of a deck (12-14); gold if any."""
    if not rows.size:
        return
    cards, face_up = _take_face_up(b, rows, index)
    cards[~face_up] = _draw(b, rows[~face_up], index[~face_up] - 12)
    places = (b.reserved[rows, seats] >= 0).sum(axis=1)
    b.reserved[rows, seats, places] = cards
    b.reserved_blind[rows, seats, places] = ~face_up
    gold = b.bank[rows, GOLD] > 0
    b.bank[rows[gold], GOLD] -= 1
    b.tokens[rows[gold], seats[gold], GOLD] += 1


def _buy(b, rows, seats, index) -> None:
    """Buy face-up card ``index`` (0-11) or reserved card ``index - 12``; gems of the colour first, then gold."""
    if not rows.size:
        return
    cards, face_up = _take_face_up(b, rows, index)
    held_rows, held_seats, places = rows[~face_up], seats[~face_up], index[~face_up] - 12
    cards[~face_up] = b.reserved[held_rows, held_seats, places]
    # Keep the reservations packed in order: the later ones move up one place.
    b.reserved[held_rows, held_seats] = _close_up(b.reserved[held_rows, held_seats], places, -1)
    b.reserved_blind[held_rows, held_seats] = _close_up(b.reserved_blind[held_rows, held_seats], places, False)
    cost = np.maximum(COST[cards] - b.bonuses[rows, seats], 0)
    gems = np.minimum(cost, b.tokens[rows, seats, :5])
    gold = (cost - gems).sum(axis=1)
    b.tokens[rows, seats, :5] -= gems
    b.bank[rows, :5] += gems
    b.tokens[rows, seats, GOLD] -= gold
    b.bank[rows, GOLD] += gold
    b.owner[rows, cards] = seats
    b.bonuses[rows, seats, COLOR[cards]] += 1
    b.points[rows, seats] += POINTS[cards]
    b.cards_bought[rows, seats] += 1


def _nobles_or_end_turn(b, rows, seats) -> None:
    """After the action and any returns: a noble visits (the player chooses if several qualify)."""
    # Fewer cards than any noble asks for cannot qualify: the common case, sorted out cheaply first.
    could = b.cards_bought[rows, seats] >= _FEWEST_BONUSES_FOR_A_NOBLE
    qualify = np.zeros(len(rows), dtype=bool)
    if could.any():
        qualify[could] = _qualifying(b.nobles[rows[could]], b.bonuses[rows[could], seats[could]]).any(axis=1)
    b.phase[rows[qualify]] = NOBLE
    _end_turn(b, rows[~qualify], seats[~qualify])


def _noble_visits(b, rows, seats, places) -> None:
    if not rows.size:
        return
    nobles = b.nobles[rows, places]
    b.noble_owner[rows, nobles] = seats
    b.nobles_owned[rows, seats] += 1
    b.points[rows, seats] += NOBLE_POINTS
    # The nobles left on the table close up, so noble_i is always the i-th one shown.
    b.nobles[rows] = _close_up(b.nobles[rows], places, -1)


def _end_turn(b, rows, seats) -> None:
    """15 points start the last round; the game ends when it is complete, or after n passes in a row."""
    if not rows.size:
        return
    b.phase[rows] = MAIN
    b.final_round[rows[b.points[rows, seats] >= WINNING_POINTS]] = True
    num_players = b.num_players[rows]
    all_passed = b.passes[rows] >= num_players
    last_seat = ~all_passed & (seats == num_players - 1)
    final = b.final_round[rows]
    _game_over(b, rows[all_passed], ALL_PASSED)
    _game_over(b, rows[last_seat & final], FINISHED)
    next_round = rows[last_seat & ~final]
    b.round[next_round] += 1
    b.current[next_round] = 0
    passing_on = ~all_passed & ~last_seat
    b.current[rows[passing_on]] = seats[passing_on] + 1


def _game_over(b, rows, result: int) -> None:
    b.phase[rows] = OVER
    b.result[rows] = result


# ---------------------------------------------------------------- end and score

def is_over(b) -> np.ndarray:
    return b.phase == OVER


def is_truncated(b) -> np.ndarray:
    """``max_rounds`` rounds were played and the game did not end by the rules."""
    return (b.phase != OVER) & (b.round > b.max_rounds)


def forfeit(b, rows, seats) -> None:
    """The games ``rows`` selects ended by an illegal action of ``seats`` (per game of the batch)."""
    rows = _indices(rows)
    b.forfeited_by[rows] = np.asarray(seats)[rows]
    _game_over(b, rows, FORFEITED)


def _winners(b, rows) -> np.ndarray:
    """(k, 4) bool: most points; on a tie the fewest purchased cards; still tied, a shared win. No one while
    playing or after a forfeit."""
    points, cards = b.points[rows], b.cards_bought[rows]
    seated = np.arange(MAX_PLAYERS) < b.num_players[rows, None]
    best = np.where(seated, points, -1).max(axis=1)
    tied = seated & (points == best[:, None])
    fewest = np.where(tied, cards, np.iinfo(cards.dtype).max).min(axis=1)
    scored = (b.phase[rows] == OVER) & (b.result[rows] != FORFEITED)
    return tied & (cards == fewest[:, None]) & scored[:, None]


def outcome(b, rows, seats) -> dict:
    """``rules.outcome`` of each game ``rows`` selects, for its seat in ``seats`` (per game of the batch): ``won``,
    ``score`` and ``result`` as arrays, ``points`` and ``winners`` as object arrays of lists (as Gymnasium's
    SyncVectorEnv gathers the single env's lists)."""
    rows = _indices(rows)
    seats = np.asarray(seats)[rows]
    winners = _winners(b, rows)
    every = np.arange(len(rows))
    points = b.points[rows]
    result = np.where(is_truncated(b)[rows], _TRUNCATED, b.result[rows])
    points_lists = np.empty(len(rows), dtype=object)
    winner_lists = np.empty(len(rows), dtype=object)
    for k, n in enumerate(b.num_players[rows].tolist()):
        points_lists[k] = points[k, :n].tolist()
        winner_lists[k] = np.flatnonzero(winners[k]).tolist()
    return {
        "won": winners[every, seats],
        "score": points[every, seats].astype(np.int64),
        "points": points_lists,
        "winners": winner_lists,
        "result": _RESULT_NAMES[result],
    }


# ---------------------------------------------------------------- what a player sees

def observe(b, seats) -> np.ndarray:
    """(N, 493): ``rules.observe`` of every game from its seat in ``seats``: the table, then every seat in turn
    order starting with the observer's. Another player's blind reservation shows only its tier."""
    seats = np.asarray(seats)
    n = len(seats)
    every = np.arange(n)
    num_players = b.num_players
    obs = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
    obs[:, 0:6] = b.bank
    obs[:, 6:9] = _TIER_SIZE - b.deck_top
    obs[:, OBS_BOARD:OBS_NOBLES] = _BOARD_TABLE[b.board].reshape(n, -1)
    obs[:, OBS_NOBLES:OBS_SEATS] = _NOBLE_TABLE[b.nobles].reshape(n, -1)
    tokens, bonuses, points, cards = b.tokens, b.bonuses, b.points, b.cards_bought
    nobles_owned, reserved, blind = b.nobles_owned, b.reserved, b.reserved_blind
    # Card-table rows of the reserved cards: others' blind ones as seen by others, the observer's own in full.
    card_rows = reserved + blind * np.int16(_SEEN_BY_OTHERS)
    card_rows[every, seats] -= blind[every, seats] * np.int16(_SEEN_BY_OTHERS - _SEEN_BY_OWNER)
    held = (reserved >= 0).sum(axis=2)
    # Seat r of the observation is seat (observer + r) mod n of the table; the seats past n stay zeros.
    shown = int(num_players.max()) if n else 0
    order = (seats[:, None] + np.arange(shown)) % num_players[:, None]
    at = (every[:, None], order)
    block = obs[:, OBS_SEATS:OBS_CONTEXT].reshape(n, MAX_PLAYERS, SEAT_SIZE)[:, :shown]  # a view: written in place
    block[:, :, 0] = 1
    block[:, :, S_TOKENS:S_TOKENS + 6] = tokens[at]
    block[:, :, S_BONUSES:S_BONUSES + 5] = bonuses[at]
    block[:, :, S_POINTS] = points[at]
    block[:, :, S_CARDS] = cards[at]
    block[:, :, S_NOBLES] = nobles_owned[at]
    block[:, :, S_RESERVED] = held[at]
    block[:, :, SEAT_HEAD:] = CARD_TABLE[card_rows[at]].reshape(n, shown, MAX_RESERVED * RESERVED_SIZE)
    if n and num_players.min() < shown:  # games of fewer players in the same batch
        block[np.arange(shown) >= num_players[:, None]] = 0
    context = obs[:, OBS_CONTEXT:]  # a view: written in place
    phase, current = b.phase, b.current
    on = phase != OVER
    context[every[on], phase[on]] = 1
    giving_back = np.flatnonzero(phase == RETURN)
    context[giving_back, 3] = tokens[giving_back, current[giving_back]].sum(axis=1) - TOKEN_LIMIT
    context[:, 4] = b.final_round
    max_rounds = b.max_rounds
    context[:, 5] = np.minimum(b.round, max_rounds) / max_rounds
    context[:, 6] = b.passes
    context[every, 7 + num_players - MIN_PLAYERS] = 1
    context[every, 10 + seats] = 1
    context[every, 14 + (current - seats) % num_players] = 1
    return obs


# ---------------------------------------------------------------- the scripted players

def random_actions(masks, rows, rngs) -> np.ndarray:
    """``players.random_action`` for each mask, with the generator of its game ``rows[k]``: the same draw (which
    of the legal actions, by their number), then that legal action found for all games at once."""
    masks = np.asarray(masks).astype(bool)
    counts = np.count_nonzero(masks, axis=1)
    picks = np.array([rngs[i].integers(count) for i, count in zip(rows.tolist(), counts.tolist())], dtype=np.int64)
    place = np.cumsum(masks, axis=1) - 1  # each action's place among its game's legal ones
    return (masks & (place == picks[:, None])).argmax(axis=1)


_OWN = OBS_SEATS
_TAKES = players._TAKES  # (30, 5) float64: gems per take action
_TAKE_SIZES = _TAKES.sum(axis=1)
_COLOR_NUMBERS = np.arange(5, dtype=np.float32)
# What ``3.0 / total`` gives in the scalar player (a float32 over a Python float: float32 under NumPy 2).
_SHARE_DTYPE = (3.0 / np.float32(1)).dtype


def _cards_with(flags: np.ndarray, present: np.ndarray) -> np.ndarray:
    """(k, 5) int64: per colour, how many of the cards in sight have the flag (one product, not a reduction)."""
    return np.matmul(present[:, None, :].astype(np.float32), flags.astype(np.float32))[:, 0].astype(np.int64)


class _Sights:
    """``players._Sight`` of a batch of observations: per game, the 15 cards its player could buy and its means."""

    def __init__(self, obs: np.ndarray):
        n = len(obs)
        board = obs[:, OBS_BOARD:OBS_NOBLES].reshape(n, 12, CARD_SIZE)
        reserved = obs[:, _OWN + SEAT_HEAD:_OWN + SEAT_SIZE].reshape(n, MAX_RESERVED, RESERVED_SIZE)[:, :, :CARD_SIZE]
        cards = np.concatenate([board, reserved], axis=1)
        self.present = cards[:, :, F_PRESENT] > 0
        self.points = cards[:, :, F_POINTS]
        # The bonus colour from its one-hot (0 for an absent card, as argmax of zeros gives).
        self.color = (cards[:, :, F_BONUS:F_BONUS + 5] @ _COLOR_NUMBERS).astype(np.int64)
        self.cost = cards[:, :, F_COST:F_COST + 5]
        self.bank = obs[:, 0:6]
        self.tokens = obs[:, _OWN + S_TOKENS:_OWN + S_BONUSES]
        self.bonuses = obs[:, _OWN + S_BONUSES:_OWN + S_POINTS]
        nobles = obs[:, OBS_NOBLES:OBS_SEATS].reshape(n, MAX_PLAYERS + 1, NOBLE_SIZE)
        self.noble_there = nobles[:, :, 0] > 0
        self.noble_need = np.maximum(nobles[:, :, 1:] - self.bonuses[:, None, :], 0)
        self.need = np.maximum(self.cost - self.bonuses[:, None, :], 0)
        self.short = np.maximum(self.need - self.tokens[:, None, :5], 0)
        self.missing = np.maximum(_color_sum(self.short) - self.tokens[:, GOLD, None], 0)

    def noble_progress(self) -> np.ndarray:
        """Per card: 3 points shared over the bonuses each noble on the table still misses, where it helps."""
        total = _color_sum(self.noble_need)  # per noble place
        counted = self.noble_there & (total > 0)
        share = np.where(counted, 3.0 / np.where(counted, total, 1).astype(_SHARE_DTYPE), 0).astype(np.float64)
        # What a card of each colour brings: the shares of the nobles still missing that colour. The scalar player
        # adds them noble by noble in float64; they are float32 numbers 3/k (k <= 9), whose float64 sums are
        # exact in any order, so one product gives the same numbers.
        per_color = np.matmul(share[:, None, :], (self.noble_need > 0).astype(np.float64))[:, 0]
        return np.take_along_axis(per_color, self.color, axis=1)

    def usefulness(self) -> np.ndarray:
        """Per card: how many of the other cards in sight still need a gem of its bonus colour."""
        return np.take_along_axis(_cards_with(self.need > 0, self.present), self.color, axis=1)

    def value(self) -> np.ndarray:
        return self.points + self.noble_progress() + 0.1 * self.usefulness()

    def target(self, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``players._target`` per game: the card to work towards, and whether there is one at all."""
        scarce = _color_sum(np.maximum(self.short - self.bank[:, None, :5], 0))
        score = (value + 0.5) / (1.0 + self.missing + scarce)
        return np.where(self.present, score, -np.inf).argmax(axis=1), self.present.any(axis=1)


def greedy_actions(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``players.greedy_action`` of every (observation, mask) pair: exactly its choice, ties included."""
    legal = np.asarray(masks).astype(bool)
    actions = np.zeros(len(legal), dtype=np.int64)
    phase = observations[:, OBS_CONTEXT:OBS_CONTEXT + 3]
    noble = np.flatnonzero(phase[:, 2] != 0)
    # A noble visits: any qualifying one is worth the same 3 points, the first is taken.
    actions[noble] = A_NOBLE + legal[noble, A_NOBLE:A_PASS].argmax(axis=1)
    deciding = np.flatnonzero(phase[:, 2] == 0)
    sight = _Sights(observations[deciding])
    legal = legal[deciding]
    value = np.where(sight.present, sight.value(), -np.inf)
    target, has_target = sight.target(value)
    giving_back = phase[deciding, 1] != 0
    buying = ~giving_back & legal[:, A_BUY:A_RETURN].any(axis=1)
    choices = np.empty(len(deciding), dtype=np.int64)
    for rows, choose in ((giving_back, _returns), (buying, _purchases), (~giving_back & ~buying, _takes_or_reserves)):
        rows = np.flatnonzero(rows)
        choices[rows] = choose(sight, rows, legal[rows], value[rows], target[rows], has_target[rows])
    actions[deciding] = choices
    return actions


def _returns(sight: _Sights, rows, legal, value, target, has_target) -> np.ndarray:
    """Give back the colour held most beyond what the target needs; gold only when nothing else is held."""
    need = np.where(has_target[:, None], sight.need[rows, target], 0).astype(np.float64)
    tokens = sight.tokens[rows]
    surplus = np.concatenate([tokens[:, :5] - need, np.full((len(rows), 1), -10.0)], axis=1)
    surplus = np.where(legal[:, A_RETURN:A_NOBLE], surplus + 0.01 * tokens, -np.inf)
    return A_RETURN + surplus.argmax(axis=1)


def _purchases(sight: _Sights, rows, legal, value, target, has_target) -> np.ndarray:
    """The best card by points and noble progress; among equals the cheapest in tokens spent."""
    score = np.where(legal[:, A_BUY:A_RETURN], value - 0.01 * _color_sum(sight.need[rows]), -np.inf)
    return A_BUY + score.argmax(axis=1)


def _takes_or_reserves(sight: _Sights, rows, legal, value, target, has_target) -> np.ndarray:
    """Gems toward the target, or the target reserved when no take helps or none is legal; else the first
    reserve, else the first legal action."""
    choices = legal.argmax(axis=1)
    takes = legal[:, :A_RESERVE]
    can_take = takes.any(axis=1)
    short = np.where(has_target[:, None], sight.short[rows, target], 0)
    gain = _color_sum(np.minimum(_TAKES[None], short[:, None, :]))
    can_reserve = has_target & (target < 12) & legal[np.arange(len(rows)), A_RESERVE + np.minimum(target, 11)]
    no_gain = np.where(takes, gain, -np.inf).max(axis=1) == 0
    reserving = can_reserve & (no_gain | ~can_take)
    choices[reserving] = A_RESERVE + target[reserving]
    taking = np.flatnonzero(can_take & ~reserving)
    # Gems for the target first, then gems most cards in sight still need; fewer tokens over 10.
    demand = _cards_with(sight.short[rows[taking]] > 0, sight.present[rows[taking]])
    over = np.maximum(sight.tokens[rows[taking]].sum(axis=1)[:, None] + _TAKE_SIZES - TOKEN_LIMIT, 0)
    score = np.where(takes[taking], 10 * gain[taking] + 0.1 * (demand @ _TAKES.T) - 0.5 * over, -np.inf)
    choices[taking] = score.argmax(axis=1)
    reserves = legal[:, A_RESERVE:A_BUY]
    first_reserve = ~can_take & ~reserving & reserves.any(axis=1)
    choices[first_reserve] = A_RESERVE + reserves[first_reserve].argmax(axis=1)
    return choices
