"""Dungeon Solitaire's rules over a batch of games: ``rules.py`` with a leading axis of N.

Each function here does, for every game a row mask selects, what the function of the same name in ``rules.py``
does for one game; ``tests/test_vector.py`` plays both side by side. The state is a ``Batch`` of ``rules.State``
(see ``envs/core/vector.py``): ``b.place[i, c]`` is where card c of game i lies, ``b.hp[i]`` game i's hit
points, and so on. Functions change ``b`` in place; ``rows`` are arrays of game indices.

Cards are turned over a run at a time: a turn's cards up to its encounter, a door's discards, a run of forced draws
are read ahead from each deck and moved in one go (``_turn_over``), in every game where that needs no ruling. The
few games where it does (an ace with no torch left for it, an empty deck) are handed to the function of the same
name in ``rules.py``, one game at a time (``_by_the_rules``). With ``skip_forced`` the vector env calls
``play_forced``, which plays the forced moves in passes over the games still forced, and leaves the last few games
of the longest runs to ``rules.py`` as well.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import RANK, SUIT
from . import rules
from .rules import (A_BERSERK, A_DELVE, A_DISARM, A_DISCARD, A_DODGE, A_DRAW, A_FIRST_DROP, A_PICK_LOCK,
                    A_RETREAT, A_TAKE_DAMAGE, ACE, BETWEEN_TURNS, CLUBS, DAMAGE, DECK, DELVE, DIAMONDS, DISCARDS,
                    DODGE_JACK, DOOR_FAILED, DROP_CARDS, DROP_VALUES, ENCOUNTER, ESCAPED, FORFEITED, HAND, JACK,
                    JOKER, KILLED, MAX_TORCHES, OVER, QUEEN, RETREAT, SPADES, START, TORCH_ROW,
                    TURN, USED)

_RANK = RANK.astype(np.int64)
_SUIT = SUIT.astype(np.int64)
_NUM_CARD_IDS = len(RANK)
_IS_ENCOUNTER = (_RANK >= 2) & (_RANK <= 10)
_IS_TREASURE = np.array([rules.is_treasure(c) for c in range(_NUM_CARD_IDS)])
_IS_DIAMOND = _SUIT == DIAMONDS
# The skill jack each encounter suit calls for (-1 for hearts, never an encounter).
_SKILL_JACK = np.full(4, -1)
for _suit, _jack in rules.SKILL_FOR_ENCOUNTER.items():
    _SKILL_JACK[_suit] = _jack
_KINGS = np.array([rules.card(rules.KING, suit) for suit in range(4)])
_POINTS = np.zeros(_NUM_CARD_IDS)  # what each card in hand is worth at the end (rules.treasure_points)
_POINTS[_IS_DIAMOND & (_RANK <= 10)] = _RANK[_IS_DIAMOND & (_RANK <= 10)]
_POINTS[_KINGS] = 10
_POINTS[JOKER] = 6


# ---------------------------------------------------------------- setup

def deal(b, rows, rngs, options) -> None:
    """Shuffle each new game's deck with its own generator, as ``rules.new_game`` does (the rest of a new game,
    and a stacked deck, are already in place)."""
    if options.get("deck") is None:
        # rules.new_game shuffles the sorted cards (DECK_CARDS is sorted): the same shuffle, done in place.
        b.deck[rows, :rules.NUM_DECK_CARDS] = rules.DECK_CARDS
        for i in rows.tolist():
            rngs[i].shuffle(b.deck[i, :rules.NUM_DECK_CARDS])


# ---------------------------------------------------------------- moving cards

def _move(b, rows, cards, place) -> None:
    """Card ``cards[k]`` of game ``rows[k]`` goes to ``place``."""
    if not len(rows):
        return
    b.place[rows, cards] = place
    b.arrival[rows, cards] = b.clock[rows]
    b.clock[rows] += 1


def _lose(b, rows, result: int) -> None:
    b.result[rows] = result
    b.stage[rows] = OVER
    b.pending_damage[rows] = 0
    b.pending_discards[rows] = 0


def _by_the_rules(b, rows, play) -> None:
    """``play(s)``, a function of ``rules.py`` that changes one game, on each game of ``rows`` in turn: for the few
    games that need a ruling the array code leaves to the rules (an ace with no torch left for it, an empty deck)."""
    for i in rows.tolist():
        s = b.take(i)
        play(s)
        b.put(i, s)


# ---------------------------------------------------------------- turning cards over

# Indexed by card, where -1 (no card: past the end of a deck) reads the last entry.
_NO_CARD = -1
_RANK_OF = np.append(_RANK, 0)
_IS_ACE = _RANK_OF == ACE
_IS_QUEEN = _RANK_OF == QUEEN
_IS_ENCOUNTER_CARD = np.append(_IS_ENCOUNTER, False)
# Where a revealed card goes (an ace as a torch that is lit), and where a door's discard goes.
_REVEALED_TO = np.where(_IS_ACE, TORCH_ROW, np.where(_RANK_OF == JACK, HAND, TURN))
_DISCARDED_TO = np.where(_IS_ACE, TORCH_ROW, DISCARDS)
_LOOK_AHEAD = 8  # cards: a shut door discards at most 8; a turn's first encounter card is nearly always among them
_AHEAD = np.arange(_LOOK_AHEAD)


def _top_cards(b, rows) -> np.ndarray:
    """The next _LOOK_AHEAD cards of each game's deck, top first, -1 past its end, (k, _LOOK_AHEAD)."""
    top = b.top[rows]
    # Read from the flat decks (faster than a 2-d index): what is read past a deck's end is not used.
    cards = b.deck.ravel().take((rows * b.deck.shape[1] + top)[:, None] + _AHEAD, mode="clip").astype(np.intp)
    return np.where(_AHEAD < (b.end[rows] - top)[:, None], cards, _NO_CARD)


def _turn_over(b, rows, cards, counts, places) -> np.ndarray:
    """Reveal the first ``counts[k]`` of ``cards[k]`` (game ``rows[k]``'s top cards) and put each where ``places``
    (by card) sends it, in the games where that needs no ruling: every card is there and each ace among them lights
    a torch (the fourth one never comes). Which games were done; the others are left as they were."""
    turned = _AHEAD < counts[:, None]
    aces = np.bincount((turned & _IS_ACE[cards]).ravel().nonzero()[0] // _LOOK_AHEAD, minlength=len(rows))
    torches = b.torches[rows] + aces
    done = (counts <= b.end[rows] - b.top[rows]) & (torches < MAX_TORCHES)
    if not done.all():
        rows, cards, turned, counts, torches = rows[done], cards[done], turned[done], counts[done], torches[done]
    k, j = np.divmod(turned.ravel().nonzero()[0], _LOOK_AHEAD)
    games, moved = rows[k], cards[k, j]
    b.place[games, moved] = places[moved]
    b.arrival[games, moved] = b.clock[games] + j  # one after another, top card first
    b.clock[rows] += counts
    b.top[rows] += counts
    b.torches[rows] = torches
    return done


# ---------------------------------------------------------------- a turn

class _Turn:
    """What one ``apply`` leaves to be done together: the games whose new turn starts, and those whose turn ends,
    won or not. Starting a turn may end it (a queen's favour); ending one is the last thing that happens to a game
    in an action. So each is done once for all its games, after the actions' other effects. ``forced``: the actions
    are forced ones, played on by ``play_forced``."""

    def __init__(self, forced: bool = False):
        self.starting, self.won, self.lost = [], [], []
        self.forced = forced

    def settle(self, b) -> None:
        if self.starting:
            _start_turn(b, np.concatenate(self.starting), self)
        if self.won or self.lost:
            won, lost = self.won or [np.zeros(0, dtype=np.int64)], self.lost or [np.zeros(0, dtype=np.int64)]
            ending = np.concatenate(won + lost)
            _end_turn(b, ending, np.arange(len(ending)) < sum(map(len, won)))


def _start_turn(b, rows, turn: _Turn) -> None:
    """Reveal cards until the turn's encounter (the first 2-10 of spades, diamonds or clubs): all at once, where it
    is among the top cards and no ace before it needs a ruling; elsewhere by the rules."""
    if not len(rows):
        return
    b.step[rows] = ENCOUNTER
    cards = _top_cards(b, rows)
    meets = _IS_ENCOUNTER_CARD[cards]
    first = meets.argmax(axis=1)
    done = meets.any(axis=1)
    done[done] = _turn_over(b, rows[done], cards[done], first[done] + 1, _REVEALED_TO)
    b.encounter[rows[done]] = cards[done, first[done]]
    favor = (_IS_QUEEN[cards] & (_AHEAD < first[:, None])).any(axis=1)
    turn.won.append(rows[done & favor])
    _by_the_rules(b, rows[~done], rules._start_turn)


def _reveal_in_encounter(b, rows, turn: _Turn) -> None:
    """The player reveals one card against the showing encounter; by the rules where the deck is empty or the card
    is an ace with no torch left for it.

    A forced draw (``turn.forced``) goes on at once while what follows stays forced: a card that neither decides the
    fight (a queen, an encounter card) nor may give a choice (a jack, to the hand) leaves the player nothing to do
    but draw again; so does a monster's hit that does not kill, taken at once when no dodge is in hand. So the cards
    up to the first that stops this are all revealed in one go, and the hits before it taken."""
    if not len(rows):
        return
    cards = _top_cards(b, rows)
    if turn.forced:
        encounter = b.encounter[rows]
        value = _RANK[encounter][:, None]
        short = value - _RANK_OF[cards]
        taken = (_SUIT[encounter] == SPADES) & (b.place[rows, DODGE_JACK] != HAND)
        hits = _IS_ENCOUNTER_CARD[cards] & (short > 0) & taken[:, None]
        stops = _IS_QUEEN[cards] | (_IS_ENCOUNTER_CARD[cards] & ~hits) | (_RANK_OF[cards] == JACK) \
            | (hits & (np.cumsum(np.where(hits, short, 0), axis=1) >= b.hp[rows, None]))
        counts = np.where(stops.any(axis=1), stops.argmax(axis=1) + 1, _LOOK_AHEAD)
    else:
        counts = np.ones(len(rows), dtype=np.intp)
    done = _turn_over(b, rows, cards, counts, _REVEALED_TO)
    _by_the_rules(b, rows[~done], rules._reveal_in_encounter)
    if turn.forced:  # the hits before the last card revealed
        b.hp[rows[done]] -= np.where(hits & (_AHEAD < counts[:, None] - 1), short, 0).sum(axis=1)[done]
    rows, last = rows[done], cards[done, counts[done] - 1]
    turn.won.append(rows[_IS_QUEEN[last]])
    action = _IS_ENCOUNTER_CARD[last]
    _action_card(b, rows[action], _RANK[last[action]], turn)
    if turn.forced:
        # What a failed action card leaves is forced too unless the jack that answers it is in hand: play it now.
        rows = rows[action]
        step = b.step[rows]
        hit = rows[(step == DAMAGE) & (b.place[rows, DODGE_JACK] != HAND)]
        if len(hit):
            _take_damage(b, hit, None, turn)
        shut = rows[(step == DOOR_FAILED) & (b.place[rows, rules.PICK_LOCK_JACK] != HAND)]
        if len(shut):
            _discard(b, shut, None, turn)


def _action_card(b, rows, values, turn: _Turn) -> None:
    if not len(rows):
        return
    encounter_value = _RANK[b.encounter[rows]]
    beaten = values >= encounter_value
    turn.won.append(rows[beaten])
    short = encounter_value - values
    door = ~beaten & (_SUIT[b.encounter[rows]] == CLUBS)
    b.pending_discards[rows[door]] = short[door]
    b.step[rows[door]] = DOOR_FAILED
    hit = ~beaten & ~door
    b.pending_damage[rows[hit]] = short[hit]
    b.step[rows[hit]] = DAMAGE


def _after_damage(b, rows, turn: _Turn) -> None:
    if not len(rows):
        return
    trap = _SUIT[b.encounter[rows]] == DIAMONDS
    turn.lost.append(rows[trap])
    b.step[rows[~trap]] = ENCOUNTER


def _discard_from_deck(b, rows, counts) -> None:
    """A shut door's discards: all at once where no ace among them needs a ruling; elsewhere by the rules."""
    done = _turn_over(b, rows, _top_cards(b, rows), counts, _DISCARDED_TO)
    _by_the_rules(b, rows[~done], lambda s: rules._discard_from_deck(s, s.pending_discards))


def _end_turn(b, rows, won) -> None:
    """The turns of ``rows`` end, won where ``won``: a won turn's treasure goes to the hand (in card order), but
    for its marker, then the rest of the turn is used (in card order)."""
    if not len(rows):
        return
    # The turns' cards as one list, game after game, each game's in card order (flat indices cost less than 2-d).
    turn = b.place[rows] == TURN
    at = turn.ravel().nonzero()[0]
    game, cards = np.divmod(at, turn.shape[1])
    to_hand = won[game] & _IS_TREASURE[cards]
    in_turn = np.bincount(game, minlength=len(rows))
    treasure = np.bincount(game, weights=to_hand, minlength=len(rows)).astype(np.intp)
    marked = np.flatnonzero(won & (treasure == in_turn))
    if len(marked):
        # Ruling: the lowest diamond stays as the turn's marker (card ids rise with rank within a suit).
        marker = (turn[marked] & _IS_DIAMOND).argmax(axis=1)
        to_hand[np.searchsorted(at, marked * turn.shape[1] + marker)] = False
        treasure[marked] -= 1
    hand_before = np.cumsum(to_hand) - to_hand  # the treasure before each card in the list
    used_before = np.arange(len(at)) - hand_before
    first = (np.cumsum(in_turn) - in_turn)[game]  # where each card's game starts in the list
    after = np.where(to_hand, hand_before - hand_before[first], treasure[game] + used_before - used_before[first])
    b.place[rows[game], cards] = np.where(to_hand, HAND, USED)
    b.arrival[rows[game], cards] = b.clock[rows][game] + after
    b.clock[rows] += in_turn
    b.encounter[rows] = -1
    b.pending_damage[rows] = 0
    b.pending_discards[rows] = 0
    b.step[rows] = BETWEEN_TURNS
    home = (b.stage[rows] == RETREAT) & (b.retreat_turns[rows] == b.delve_turns[rows] - 1)
    _escape(b, rows[home])


def _escape(b, rows) -> None:
    b.result[rows] = ESCAPED
    b.stage[rows] = OVER


# ---------------------------------------------------------------- the player's decisions

# What is legal depends on a game's situation: its stage, step, whether retreat is allowed yet, and the suit of the
# showing encounter (0 for none, else suit + 1); and, in some situations, on a jack in hand, or on treasure in hand
# to drop. Per situation: the actions legal whatever the hand, the jack that adds an action and that action (-1:
# none), and whether treasure may be dropped.
_SITUATIONS = (len(rules.STAGE_NAMES), len(rules.STEP_NAMES), 2, 5)
_ALWAYS = np.zeros(_SITUATIONS + (rules.NUM_ACTIONS,), dtype=bool)
_JACK = np.full(_SITUATIONS, -1)
_JACK_ACTION = np.full(_SITUATIONS, -1)
_DROPPING = np.zeros(_SITUATIONS, dtype=bool)
for _stage in (DELVE, RETREAT):
    _ALWAYS[_stage, START, :, :, A_DRAW] = True
    _ALWAYS[_stage, ENCOUNTER, :, :, A_DRAW] = True
    for _suit, (_jack, _action) in {SPADES: (rules.BERSERK_JACK, A_BERSERK), DIAMONDS: (rules.DISARM_JACK, A_DISARM),
                                    CLUBS: (rules.PICK_LOCK_JACK, A_PICK_LOCK)}.items():
        _JACK[_stage, ENCOUNTER, :, _suit + 1], _JACK_ACTION[_stage, ENCOUNTER, :, _suit + 1] = _jack, _action
    _DROPPING[_stage, ENCOUNTER, :, SPADES + 1] = True
    _ALWAYS[_stage, DOOR_FAILED, :, :, A_DISCARD] = True
    _JACK[_stage, DOOR_FAILED], _JACK_ACTION[_stage, DOOR_FAILED] = rules.PICK_LOCK_JACK, A_PICK_LOCK
    _ALWAYS[_stage, DAMAGE, :, :, A_TAKE_DAMAGE] = True
    _JACK[_stage, DAMAGE], _JACK_ACTION[_stage, DAMAGE] = DODGE_JACK, A_DODGE
_ALWAYS[DELVE, BETWEEN_TURNS, :, :, A_DELVE] = True
_ALWAYS[DELVE, BETWEEN_TURNS, 1, :, A_RETREAT] = True
_ALWAYS[RETREAT, BETWEEN_TURNS, :, :, A_DRAW] = True
_ALWAYS, _JACK, _JACK_ACTION, _DROPPING = (table.reshape(-1, *table.shape[4:]) for table in
                                           (_ALWAYS, _JACK, _JACK_ACTION, _DROPPING))
# The one action legal whatever the hand, where there is one (else -1): forced unless the hand adds another.
_ONLY = np.where(_ALWAYS.sum(axis=1) == 1, _ALWAYS.argmax(axis=1), -1)
_SUIT_SHOWING = np.append(_SUIT + 1, 0)  # by encounter card, -1 (none) reading the last entry


def _situation(b) -> np.ndarray:
    retreat_allowed = b.delve_turns >= b.min_delve_turns_before_retreat
    return ((b.stage * _SITUATIONS[1] + b.step) * 2 + retreat_allowed) * _SITUATIONS[3] + _SUIT_SHOWING[b.encounter]


def legal_masks(b) -> np.ndarray:
    situation = _situation(b)
    mask = _ALWAYS.take(situation, axis=0)
    place = b.place
    jack = _JACK.take(situation)
    helped = np.flatnonzero((jack >= 0) & (place[np.arange(len(jack)), jack] == HAND))
    mask[helped, _JACK_ACTION.take(situation[helped])] = True
    dropping = np.flatnonzero(_DROPPING.take(situation))
    if len(dropping):
        mask[dropping, A_FIRST_DROP:] = _droppable(b, place, dropping)
    return mask


def _droppable(b, place, games) -> np.ndarray:
    """Which treasure each of ``games`` (facing a monster) may drop: in hand and worth the monster's value."""
    return (place[games[:, None], DROP_CARDS] == HAND) & (DROP_VALUES >= _RANK[b.encounter[games], None])


def _forced_actions(b) -> np.ndarray:
    """Each game's one legal action where it has exactly one, else -1: ``legal_masks`` without the masks."""
    situation = _situation(b)
    action = _ONLY.take(situation)
    place = b.place
    jack = _JACK.take(situation)
    action[(jack >= 0) & (place[np.arange(len(jack)), jack] == HAND)] = -1
    dropping = np.flatnonzero(_DROPPING.take(situation))
    if len(dropping):
        action[dropping[_droppable(b, place, dropping).any(axis=1)]] = -1
    return action


def _delve(b, games, chosen, turn: _Turn) -> None:
    b.delve_turns[games] += 1
    turn.starting.append(games)


def _retreat(b, games, chosen, turn: _Turn) -> None:
    b.stage[games] = RETREAT
    at_once = b.delve_turns[games] == 1  # possible only when retreat is allowed after one turn
    _escape(b, games[at_once])
    b.retreat_turns[games[~at_once]] += 1
    turn.starting.append(games[~at_once])


def _draw_action(b, games, chosen, turn: _Turn) -> None:
    step = b.step[games]
    first, back = games[step == START], games[step == BETWEEN_TURNS]
    b.delve_turns[first] = 1
    b.retreat_turns[back] += 1
    turn.starting += [first, back]
    _reveal_in_encounter(b, games[(step != START) & (step != BETWEEN_TURNS)], turn)


def _use_skill(b, games, chosen, turn: _Turn) -> None:
    _move(b, games, _SKILL_JACK[_SUIT[b.encounter[games]]], TURN)
    turn.won.append(games)


def _discard(b, games, chosen, turn: _Turn) -> None:
    _discard_from_deck(b, games, b.pending_discards[games])
    turn.lost.append(games[b.stage[games] != OVER])


def _dodge(b, games, chosen, turn: _Turn) -> None:
    _move(b, games, DODGE_JACK, USED)
    b.pending_damage[games] = 0
    _after_damage(b, games, turn)


def _take_damage(b, games, chosen, turn: _Turn) -> None:
    b.hp[games] = np.maximum(0, b.hp[games] - b.pending_damage[games])
    b.pending_damage[games] = 0
    killed = b.hp[games] == 0
    _lose(b, games[killed], KILLED)
    _after_damage(b, games[~killed], turn)


def _drop(b, games, chosen, turn: _Turn) -> None:
    # A treasure drop buys off the monster: the fight ends, not won.
    _move(b, games, DROP_CARDS[chosen - A_FIRST_DROP], TURN)
    turn.lost.append(games)


# Each action's handler, by action index (every drop shares one).
_HANDLERS = [_delve, _retreat, _draw_action, _use_skill, _use_skill, _use_skill, _discard, _dodge, _take_damage,
             _drop]
_HANDLER_OF_ACTION = np.array([min(a, len(_HANDLERS) - 1) for a in range(rules.NUM_ACTIONS)])


def apply(b, actions, rows, rngs=None) -> None:
    """Every game ``rows`` (a bool mask) selects takes its action, which must be legal. No randomness after the
    shuffle: ``rngs`` is accepted for the common signature."""
    games = np.flatnonzero(rows)
    _apply(b, games, actions[games])


def _apply(b, games, chosen, forced: bool = False) -> None:
    """Game ``games[k]`` takes action ``chosen[k]``. Each kind of action is handled once for all the games taking
    it."""
    handler = _HANDLER_OF_ACTION[chosen]
    turn = _Turn(forced)
    for kind in np.bincount(handler, minlength=len(_HANDLERS)).nonzero()[0].tolist():
        taking = handler == kind
        _HANDLERS[kind](b, games[taking], chosen[taking], turn)
    turn.settle(b)


# A forced run is played on by the scalar rules, a game at a time, once no more than this many of its games are
# left: a pass of array operations costs about as much for a few games as for a hundred, and the last games of
# the longest runs (a retreat is forced from start to end) would take many passes alone.
FEW_GAMES = 16


def play_forced(b, rows, rngs=None) -> None:
    """Play every game ``rows`` (a bool mask) selects on while it has exactly one legal action (``skip_forced``).
    (``rngs`` is there for the vector env's call: nothing is drawn after the deal.)"""
    going = rows.nonzero()[0]
    actions = _forced_actions(b)[going]  # the first time most games are looked at: the whole batch is cheaper
    while True:
        forced = actions >= 0
        going, actions = going[forced], actions[forced]
        if len(going) <= FEW_GAMES:
            break
        _apply(b, going, actions, forced=True)
        actions = _forced_actions(b.view(going))
    for i, action in zip(going.tolist(), actions.tolist()):
        s = rules.apply(b.take(i), action)
        mask = rules.legal_mask(s)
        while mask.sum() == 1:
            s = rules.apply(s, int(mask.argmax()))
            mask = rules.legal_mask(s)
        b.put(i, s)


def forfeit(b, rows) -> None:
    _lose(b, np.flatnonzero(rows), FORFEITED)


# ---------------------------------------------------------------- end and score

def is_over(b) -> np.ndarray:
    return b.stage == OVER


def outcome(b, rows) -> dict:
    """``rules.outcome`` of each game ``rows`` selects, as arrays."""
    hand = b.place[rows] == HAND
    escaped = b.result[rows] == ESCAPED
    kings = hand[:, _KINGS].sum(axis=1)
    return {
        "won": escaped & (kings == 4),
        "score": np.where(escaped, (hand * _POINTS).sum(axis=1), 0.0),
        "kings": kings,
        "result": np.array(rules.RESULT_NAMES)[b.result[rows]],
    }


# ---------------------------------------------------------------- what the player sees

_PLACE_FLAGS = rules._PLACE_FLAGS
_CARD_BLOCK = rules._CARD_BLOCK
_DECK_ACES = rules._DECK_ACES
# The card block is looked up two cards at a time (half the lookups, each twice as long): row a * 7 + b of this
# table is the flags of a card in place a followed by those of a card in place b.
_NUM_PLACES = len(rules.PLACE_NAMES)
_PAIR_FLAGS = np.concatenate([np.repeat(_PLACE_FLAGS, _NUM_PLACES, axis=0), np.tile(_PLACE_FLAGS, (_NUM_PLACES, 1))],
                             axis=1)
# The unseen-card counts (rules._RANK_COLUMNS: a column per rank, A to K, then the joker) are sums of a few deck
# cards each, done as additions of whole columns (a reduction along short rows is slow, and a matrix product would
# call BLAS, whose threads fight the other processes for the cores). The deck cards in this order: the three cards
# of each rank 2-10, then the four aces, jacks, queens and kings, then the joker.
_COLUMN = rules._RANK_COLUMNS.argmax(axis=1)
_UNSEEN_ORDER = np.argsort(np.select([(_COLUMN >= 1) & (_COLUMN <= 9), _COLUMN == 0, _COLUMN <= 12],
                                     [_COLUMN, 100, 100 + _COLUMN], 1000), kind="stable")
assert _COLUMN[_UNSEEN_ORDER].tolist() == [r for r in range(1, 10) for _ in range(3)] + [0] * 4 + [10] * 4 \
    + [11] * 4 + [12] * 4 + [13]


def observe(b) -> np.ndarray:
    n = b.stage.shape[0]
    obs = np.empty((n, rules.OBSERVATION_SIZE), dtype=np.float32)
    places = b.place[:, rules.DECK_CARDS]
    pairs = places[:, 0::2] * _NUM_PLACES + places[:, 1::2]
    obs[:, :_CARD_BLOCK] = _PAIR_FLAGS.take(pairs, axis=0, mode="clip").reshape(n, -1)
    in_deck = places == DECK
    scroll = b.scroll_used.astype(bool)
    i = _CARD_BLOCK
    obs[:, i:i + 9] = 0
    obs[:, i] = scroll & np.any(in_deck & _DECK_ACES, axis=1)
    obs[np.arange(n), i + 1 + b.stage] = 1
    obs[np.arange(n), i + 4 + b.step] = 1
    i += 9
    retreat_left = np.where(b.stage == RETREAT, b.delve_turns - 1 - b.retreat_turns, 0)
    met = b.encounter >= 0
    suit = np.where(met, _SUIT[np.maximum(b.encounter, 0)], -1)
    obs[:, i:i + 13] = np.stack([
        b.hp, b.torches, scroll, b.delve_turns, b.retreat_turns, np.maximum(0, retreat_left),
        suit == SPADES, suit == DIAMONDS, suit == CLUBS, np.where(met, _RANK[np.maximum(b.encounter, 0)], 0),
        b.pending_damage, b.pending_discards, b.end - b.top,
    ], axis=1)
    i += 13
    unseen = (in_deck & ~(scroll[:, None] & _DECK_ACES)).view(np.uint8)[:, _UNSEEN_ORDER]
    twos_to_tens = unseen[:, :27].reshape(n, 9, 3)
    obs[:, i + 1:i + 10] = twos_to_tens[:, :, 0] + twos_to_tens[:, :, 1] + twos_to_tens[:, :, 2]
    faces = unseen[:, 27:43].reshape(n, 4, 4)  # aces, jacks, queens, kings
    faces = faces[:, :, 0] + faces[:, :, 1] + faces[:, :, 2] + faces[:, :, 3]
    obs[:, i] = faces[:, 0]
    obs[:, i + 10:i + 13] = faces[:, 1:]
    obs[:, i + 13] = unseen[:, 43]
    return obs
