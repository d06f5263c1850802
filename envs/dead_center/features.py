"""Dead Center's observation features: what ``observation="features"`` and ``observation="actions"`` append to the
plain observation (``rules.observe``), computed from that observation alone.

``features`` is what a player reads off the table at a glance; ``action_features`` the table each action would
leave, slot by slot. Not rules of the game (``rules.py`` holds those): what a network learns from more easily than
from the plain observation.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import JOKERS, NUM_CARD_IDS, RANK, card_code
from .rules import (A_KILL, A_PLAY, A_REVEAL, ACCEPTS, ATTACK_PILE, CAN_KILL, DOWN, JACK, MATCHES, NUM_ACTIONS,
                    NUM_PILES, NUM_SLOTS, NUMBER_CARDS, OBSERVATION_FIELDS, SLOT_NAMES, SUPPORT_PILES, UP, VALUE,
                    ZOMBIE_CARDS)

# Where the observation's blocks start, and how many entries a card and a slot take, read off its field names.
_FIELD_AT = {name: i for i, (name, _) in enumerate(OBSERVATION_FIELDS)}
_CARD_WIDTH = _FIELD_AT["pile_1_top_value"]  # value, joker, suit
_PILES_END = _FIELD_AT[f"slot_{SLOT_NAMES[0]}_down"]
_ZOMBIE_WIDTH = _FIELD_AT[f"slot_{SLOT_NAMES[1]}_down"] - _PILES_END  # state, rank, suit
_SLOTS_END = _FIELD_AT["drawn_present"]
_DRAWN_END = _FIELD_AT["phase_reveal"]
_UNSEEN_AT = _FIELD_AT["unseen_" + card_code(0)]


# ---------------------------------------------------------------- features (observation="features")

# What a player reads off the table at a glance, which a network would otherwise have to work out from the
# observation's card encodings through several layers: which face-up zombies their supports kill now, how far each
# is from dying, and for each pile what playing the drawn card there would do (the kill it gives, the kills it makes or
# spoils by changing a support). Computed from the observation alone, for any leading batch shape.
FEATURE_FIELDS = (
    [(f"killable_{name}", 1) for name in SLOT_NAMES]
    + [(f"short_of_ten_{name}", 1) for name in SLOT_NAMES]            # (10 - supports' sum) / 10, at least 0
    + [(f"supports_matching_{name}", 1) for name in SLOT_NAMES]       # supports of the suit/colour asked, / 2
    + [(f"fits_pile_{p}", 1) for p in range(NUM_PILES)]
    + [(f"kill_after_play_{p}", 1) for p in range(NUM_PILES)]         # a zombie dies if the card goes there
    + [(f"killable_after_play_{p}", 1) for p in range(NUM_PILES)]     # face-up zombies killable then, / 12
    + [(f"killable_after_play_{p}_{name}", 1) for p in range(NUM_PILES) for name in SLOT_NAMES]
    + [(f"attack_fits_{name}", 1) for name in SLOT_NAMES]            # share of the draw pile its attack pile takes
    + [("dead_draw", 1)]                                             # share of the draw pile no pile takes: a loss
    + [(f"dead_draw_after_play_{p}", 1) for p in range(NUM_PILES)]    # the same once the card goes on pile p
    # A face-down slot, by what its supports would do for the zombies still face down (any of them may be there):
    + [(f"reveal_killable_{name}", 1) for name in SLOT_NAMES]         # the share of them the supports kill now
    + [(f"reveal_matching_{name}", 1) for name in SLOT_NAMES]         # supports of the suit/colour asked, / 2, mean
    + [(f"reveal_short_of_ten_{name}", 1) for name in SLOT_NAMES]     # (10 - supports' sum) / 10, at least 0
)
FEATURE_SIZE = len(FEATURE_FIELDS)
FEATURE_HIGH = np.ones(FEATURE_SIZE, dtype=np.float32)
_SUPPORT_COLUMNS = (SUPPORT_PILES[:, 0].astype(np.intp), SUPPORT_PILES[:, 1].astype(np.intp))
_ATTACKED_BY = np.zeros((NUM_PILES, NUM_SLOTS), dtype=bool)  # pile p attacks slot s
_ATTACKED_BY[ATTACK_PILE, np.arange(NUM_SLOTS)] = True
NO_CARD = NUM_CARD_IDS  # a decoded empty place; every table below is padded with a row for it
_VALUE_OF = np.append(VALUE, 0)
_CAN_KILL = np.zeros((NUM_CARD_IDS + 1,) * 3, dtype=bool)
_CAN_KILL[:NUM_CARD_IDS, :NUM_CARD_IDS, :NUM_CARD_IDS] = CAN_KILL
_ACCEPTS = np.zeros((NUM_CARD_IDS + 1,) * 2, dtype=bool)
_ACCEPTS[:NUM_CARD_IDS, :NUM_CARD_IDS] = ACCEPTS
_MATCHES = np.zeros((NUM_CARD_IDS + 1,) * 2, dtype=bool)
_MATCHES[:NUM_CARD_IDS, :NUM_CARD_IDS] = MATCHES


_DRAW_NUMBERS = NUMBER_CARDS.astype(np.intp)  # the draw pile's unseen number cards are among these
_ZOMBIE_IDS = ZOMBIE_CARDS.astype(np.intp)     # and the face-down zombies among these


def _dead_share(tops: np.ndarray, in_draw: np.ndarray, jokers: np.ndarray) -> np.ndarray:
    """The share of the draw pile (number cards ``in_draw`` (..., 40), and ``jokers``, which fit anywhere) that
    no pile with top cards ``tops`` (..., 9) accepts; extra axes of ``tops`` before its last broadcast."""
    covered = _ACCEPTS[_DRAW_NUMBERS[:, None], tops[..., None, :]].any(axis=-1)  # (..., 40)
    lead = in_draw.reshape(in_draw.shape[:-1] + (1,) * (covered.ndim - in_draw.ndim) + in_draw.shape[-1:])
    size = in_draw.sum(axis=-1) + jokers
    size = size.reshape(size.shape + (1,) * (covered.ndim - in_draw.ndim))
    return (lead & ~covered).sum(axis=-1) / np.maximum(size, 1)


def _decode(parts: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Card ids from an observation's (..., 4) suit one-hots and the ranks (0: no card, or a joker's)."""
    suit = parts.argmax(axis=-1)
    return np.where((ranks > 0) & (parts.max(axis=-1) > 0), suit * 13 + ranks - 1, NO_CARD)


def _read_table(obs: np.ndarray) -> tuple:
    """What observations (..., OBSERVATION_SIZE) show, as card ids (``NO_CARD`` where there is none): the nine
    top cards, the face-up slots (up, their zombies), the drawn card, the face-down slots, and the unseen cards:
    the draw pile's number cards (..., 40), its jokers, the hidden zombies (..., 12)."""
    lead = obs.shape[:-1]
    piles = obs[..., :_PILES_END].reshape(*lead, NUM_PILES, _CARD_WIDTH)
    tops = _decode(piles[..., 2:], piles[..., 0].astype(np.intp))
    tops = np.where(piles[..., 1] > 0, JOKERS[0], tops)
    slots = obs[..., _PILES_END:_SLOTS_END].reshape(*lead, NUM_SLOTS, _ZOMBIE_WIDTH)
    up = slots[..., UP] > 0
    zombies = np.where(up, _decode(slots[..., 6:], JACK + slots[..., 3:6].argmax(axis=-1)), NO_CARD)
    drawn_parts = obs[..., _SLOTS_END + 1:_DRAWN_END]
    drawn = _decode(drawn_parts[..., 2:], drawn_parts[..., 0].astype(np.intp))
    drawn = np.where(drawn_parts[..., 1] > 0, JOKERS[0], np.where(obs[..., _SLOTS_END] > 0, drawn, NO_CARD))
    down = slots[..., DOWN] > 0
    in_draw = obs[..., _UNSEEN_AT + _DRAW_NUMBERS] > 0
    jokers = obs[..., _UNSEEN_AT + 52]
    hidden = obs[..., _UNSEEN_AT + _ZOMBIE_IDS] > 0
    return tops, up, zombies, drawn, down, in_draw, jokers, hidden


def features(obs: np.ndarray) -> np.ndarray:
    """The ``FEATURE_FIELDS`` of observations ``obs`` (..., OBSERVATION_SIZE): float32 (..., FEATURE_SIZE)."""
    obs = np.asarray(obs, dtype=np.float32)
    lead = obs.shape[:-1]
    tops, up, zombies, drawn, down, in_draw, jokers, hidden = _read_table(obs)

    a, b = tops[..., _SUPPORT_COLUMNS[0]], tops[..., _SUPPORT_COLUMNS[1]]
    # Each slot's killable, short_of_ten, supports_matching and attack_fits; a face-down slot's by the zombies
    # still hidden, which the features name reveal_*.
    share = _hidden_share(hidden)
    killable, shortfall, matching, attack_fits = np.moveaxis(
        _support_fields(a, b, tops[..., _ATTACK_COLUMN], up, zombies, down, in_draw, jokers, share), -1, 0)
    # After the drawn card goes on pile p, pile p's top is the drawn card: tops_after[..., p, q].
    fits = _ACCEPTS[drawn[..., None], tops] & (drawn[..., None] != NO_CARD)
    tops_after = np.where(np.eye(NUM_PILES, dtype=bool), drawn[..., None, None], tops[..., None, :])
    after = up[..., None, :] & _CAN_KILL[zombies[..., None, :], tops_after[..., _SUPPORT_COLUMNS[0]],
                                         tops_after[..., _SUPPORT_COLUMNS[1]]]
    after &= fits[..., None]
    kill_after = (after & _ATTACKED_BY).any(axis=-1)
    dead_now = _dead_share(tops, in_draw, jokers)
    dead_after = np.where(fits, _dead_share(tops_after, in_draw, jokers), 0)
    return np.concatenate([killable * up, shortfall * up, matching * up, fits, kill_after,
                           after.sum(axis=-1) / NUM_SLOTS, after.reshape(*lead, NUM_PILES * NUM_SLOTS),
                           attack_fits * up, dead_now[..., None], dead_after, killable * down, matching * down,
                           shortfall * down], axis=-1).astype(np.float32)


# ---------------------------------------------------------------- action features (observation="actions")

# For each of the 33 actions, the table it leaves, slot by slot, in the same words for every action: a network
# that scores each action with one set of weights (``agents.network.MaskedPolicy(action_fields=...)``) then learns
# once what makes a table good, instead of once per pile. A reveal leaves the table as it is (its slot is named);
# a play puts the drawn card on its pile (before the kill it may give); a kill empties its slot.
_SLOT_AFTER_PARTS = ("up", "down", "killable", "short_of_ten", "supports_matching", "attack_fits",
                     "jack", "queen", "king")
ACTION_FIELDS = ([f"{name}_{part}" for name in SLOT_NAMES for part in _SLOT_AFTER_PARTS]
                 + ["is_reveal", "is_play", "is_kill", "kills_jack", "kills_queen", "kills_king", "kills",
                    "dead_draw"]
                 + [f"reveals_{name}" for name in SLOT_NAMES])
ACTION_FIELD_COUNT = len(ACTION_FIELDS)
ACTION_FEATURE_SIZE = NUM_ACTIONS * ACTION_FIELD_COUNT
_ZOMBIE_RANKS = np.eye(3, dtype=np.float32)[RANK[ZOMBIE_CARDS] - JACK]  # (12 zombie ids, J/Q/K)
_ACTION_KINDS = np.zeros((NUM_ACTIONS, 3), dtype=np.float32)
_ACTION_KINDS[A_REVEAL:A_PLAY, 0] = _ACTION_KINDS[A_PLAY:A_KILL, 1] = _ACTION_KINDS[A_KILL:, 2] = 1
_REVEALS = np.zeros((NUM_ACTIONS, NUM_SLOTS), dtype=np.float32)
_REVEALS[np.arange(A_REVEAL, A_PLAY), np.arange(NUM_SLOTS)] = 1


# A play changes one pile's top card: only the slots it supports or attacks read differently after it.
_PLAY_PILE, _PLAY_SLOT = np.nonzero((SUPPORT_PILES[None, :, :] == np.arange(NUM_PILES)[:, None, None]).any(axis=-1)
                                    | _ATTACKED_BY)
_ATTACK_COLUMN = ATTACK_PILE.astype(np.intp)


def _hidden_share(hidden: np.ndarray) -> np.ndarray:
    """Each face-down zombie's share (..., 12) of the ones still hidden: the chance a face-down slot holds it."""
    return (hidden / np.maximum(hidden.sum(axis=-1, keepdims=True), 1)).astype(np.float32)


def _support_fields(a, b, attack, up, zombies, down, in_draw, jokers, share) -> np.ndarray:
    """killable, short_of_ten, supports_matching and attack_fits (..., k, 4) of k slots (face up, their zombies,
    face down: (..., k)) whose supports' top cards are ``a`` and ``b`` and whose attack pile's is ``attack``
    (..., k); a face-down slot by the hidden zombies it may hold, in shares ``share`` (..., 12)."""
    z = _ZOMBIE_IDS[:, None]
    hidden_kill = np.einsum("...z,...zs->...s", share, _CAN_KILL[z, a[..., None, :], b[..., None, :]])
    hidden_match = np.einsum("...z,...zs->...s", share, (_MATCHES[z, a[..., None, :]].astype(np.float32)
                                                         + _MATCHES[z, b[..., None, :]]) / 2)
    killable = np.where(up, _CAN_KILL[zombies, a, b], hidden_kill * down)
    matching = np.where(up, (_MATCHES[zombies, a].astype(np.float32) + _MATCHES[zombies, b]) / 2,
                        hidden_match * down)
    standing = up | down
    short = np.clip(10 - _VALUE_OF[a].astype(np.int16) - _VALUE_OF[b], 0, 10) / 10 * standing
    size = np.maximum(in_draw.sum(axis=-1) + jokers, 1)
    takes = (_ACCEPTS[_DRAW_NUMBERS[:, None], attack[..., None, :]] & in_draw[..., None]).sum(axis=-2)
    attack_fits = (takes + jokers[..., None]) / size[..., None] * standing
    return np.stack([killable, short, matching, attack_fits], axis=-1).astype(np.float32)


def _slot_fields(tops, up, zombies, down, in_draw, jokers, share) -> np.ndarray:
    """The ``_SLOT_AFTER_PARTS`` of each slot (..., 12, 9) of a table with top cards ``tops`` (..., 9)."""
    supports = _support_fields(tops[..., _SUPPORT_COLUMNS[0]], tops[..., _SUPPORT_COLUMNS[1]],
                               tops[..., _ATTACK_COLUMN], up, zombies, down, in_draw, jokers, share)
    own_rank = np.eye(4, dtype=np.float32)[np.where(up, RANK[np.minimum(zombies, 51)] - JACK, 3)][..., :3]
    ranks = own_rank + (share @ _ZOMBIE_RANKS)[..., None, :] * down[..., None]
    return np.concatenate([up[..., None], down[..., None], supports, ranks], axis=-1, dtype=np.float32)


def _play_fields(table, tops, drawn, up, zombies, down, in_draw, jokers, share) -> np.ndarray:
    """The slot fields (..., 9, 12, 9) after the drawn card goes on each pile: the table's, but for the slots
    that pile supports or attacks."""
    plays = np.repeat(table[..., None, :, :], NUM_PILES, axis=-3)
    placed = drawn[..., None]

    def top_after(columns):  # the top card of each of those slots' columns once the card is on its pile
        return np.where(columns[_PLAY_SLOT] == _PLAY_PILE, placed, tops[..., columns[_PLAY_SLOT]])

    plays[..., _PLAY_PILE, _PLAY_SLOT, 2:6] = _support_fields(
        top_after(_SUPPORT_COLUMNS[0]), top_after(_SUPPORT_COLUMNS[1]), top_after(_ATTACK_COLUMN),
        up[..., _PLAY_SLOT], zombies[..., _PLAY_SLOT], down[..., _PLAY_SLOT], in_draw, jokers, share)
    return plays


def action_features(obs: np.ndarray) -> np.ndarray:
    """The ``ACTION_FIELDS`` of every action for observations ``obs`` (..., OBSERVATION_SIZE): float32
    (..., NUM_ACTIONS * ACTION_FIELD_COUNT), action by action."""
    obs = np.asarray(obs, dtype=np.float32)
    lead = obs.shape[:-1]
    tops, up, zombies, drawn, down, in_draw, jokers, hidden = _read_table(obs)
    share = _hidden_share(hidden)
    table = _slot_fields(tops, up, zombies, down, in_draw, jokers, share)                # (..., 12, 9)
    plays = _play_fields(table, tops, drawn, up, zombies, down, in_draw, jokers, share)  # (..., 9, 12, 9)
    kills = np.repeat(table[..., None, :, :], NUM_SLOTS, axis=-3)
    slots = np.arange(NUM_SLOTS)
    kills[..., slots, slots, :] = 0                                                       # a killed slot is empty
    after = np.concatenate([np.repeat(table[..., None, :, :], NUM_SLOTS, axis=-3), plays, kills], axis=-3)

    killed_rank = np.zeros(lead + (NUM_ACTIONS, 3), dtype=np.float32)
    killed_rank[..., A_KILL:, :] = table[..., :, 6:] * up[..., None]
    play_kills = (plays[..., 2] * up[..., None, :] * _ATTACKED_BY).max(axis=-1)         # (..., 9)
    kill_now = np.concatenate([np.zeros(lead + (NUM_SLOTS,), np.float32), play_kills, up.astype(np.float32)], axis=-1)
    tops_after = np.where(np.eye(NUM_PILES, dtype=bool), drawn[..., None, None], tops[..., None, :])
    dead_now = np.repeat(_dead_share(tops, in_draw, jokers)[..., None], NUM_SLOTS, axis=-1)
    dead = np.concatenate([dead_now, _dead_share(tops_after, in_draw, jokers), dead_now], axis=-1).astype(np.float32)
    extras = [np.broadcast_to(_ACTION_KINDS, lead + _ACTION_KINDS.shape), killed_rank, kill_now[..., None],
              dead[..., None], np.broadcast_to(_REVEALS, lead + _REVEALS.shape)]
    fields = np.concatenate([after.reshape(lead + (NUM_ACTIONS, -1))] + extras, axis=-1)
    return fields.reshape(lead + (ACTION_FEATURE_SIZE,))
