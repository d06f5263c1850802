"""Playing-card codes shared by the card games.

A card is a small integer: ``suit * 13 + rank - 1`` for the 52 cards (suits in the order
S H D C, ranks A=1 … K=13) and 52, 53 for the two jokers. Codes are rank then suit
(``AS``, ``TD``, ``QH``) and ``JK`` for a joker; parsing is case-insensitive and takes
``10`` for ten.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

SUITS = "SHDC"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = "♠♥♦♣"
JOKERS = (52, 53)
NUM_CARD_IDS = 54
JOKER_CODE = "JK"

# Lookup tables indexed by card id; jokers have rank 0 and suit 4.
RANK = np.array([i % 13 + 1 for i in range(52)] + [0, 0], dtype=np.int8)
SUIT = np.array([i // 13 for i in range(52)] + [4, 4], dtype=np.int8)
IS_RED = np.array([SUITS[s] in "HD" if s < 4 else False for s in SUIT], dtype=bool)


def card(rank: int, suit: int) -> int:
    """The id of the card of this rank (1-13) and suit index (0-3)."""
    return suit * 13 + rank - 1


def is_joker(card_id: int) -> bool:
    return card_id >= 52


def parse_card(code: str) -> int:
    """Card id of a code such as ``"AS"``, ``"td"``, ``"10H"`` or ``"JK"`` (always the first joker)."""
    if not isinstance(code, str):
        raise ValueError(f"card code must be a string such as 'AS' or 'TD', got {code!r}")
    text = code.strip().upper()
    if text == JOKER_CODE:
        return JOKERS[0]
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ValueError(
            f"unknown card code {code!r}: expected rank {' '.join(RANKS)} (or 10) then suit "
            f"{' '.join(SUITS)}, or {JOKER_CODE} for a joker"
        )
    return card(RANKS.index(text[0]) + 1, SUITS.index(text[1]))


def card_code(card_id: int) -> str:
    """The code of a card id: ``"AS"``, ``"TD"``, ``"JK"``."""
    if is_joker(card_id):
        return JOKER_CODE
    return RANKS[RANK[card_id] - 1] + SUITS[SUIT[card_id]]


def card_label(card_id: int) -> str:
    """How a card is printed on the table: ``10♠``, ``J♥``, ``JK`` for a joker."""
    if is_joker(card_id):
        return "JK"
    rank = RANK[card_id]
    face = "10" if rank == 10 else RANKS[rank - 1]
    return face + SUIT_SYMBOLS[SUIT[card_id]]


def standard_deck(jokers: int = 0) -> list[int]:
    """The 52 card ids, then ``jokers`` joker ids."""
    return list(range(52)) + list(JOKERS[:jokers])


def parse_deck(codes: Sequence[str], expected: Iterable[int], what: str = "deck") -> np.ndarray:
    """Turn a stacked deck (card codes, first = top) into card ids, checking it is exactly ``expected``.

    ``expected`` is the multiset of card ids the game deals. Jokers are interchangeable, so each
    ``JK`` in ``codes`` takes the next joker id. A ``ValueError`` names every problem: a bad code,
    a repeated card, a card the game does not use, a missing card or a wrong size.
    """
    if isinstance(codes, (str, bytes)) or not isinstance(codes, Sequence):
        raise ValueError(f"{what} must be a list of card codes (top first), got {type(codes).__name__}")
    expected = list(expected)
    ids = []
    jokers_seen = 0
    for position, code in enumerate(codes):
        try:
            card_id = parse_card(code)
        except ValueError as error:
            raise ValueError(f"{what}[{position}]: {error}") from None
        if card_id == JOKERS[0]:
            card_id = JOKERS[min(jokers_seen, len(JOKERS) - 1)]
            jokers_seen += 1
        ids.append(card_id)

    problems = []
    if len(ids) != len(expected):
        problems.append(f"it has {len(ids)} cards, this game needs {len(expected)}")
    given, wanted = Counter(ids), Counter(expected)
    repeated = sorted(c for c, n in given.items() if n > 1 and not is_joker(c))
    allowed = len([c for c in expected if is_joker(c)])
    if jokers_seen > allowed:
        problems.append(f"{_count(jokers_seen, 'joker')}, but this game's deck holds "
                        f"{_count(allowed, 'joker') if allowed else 'no joker'}")
    if repeated:
        problems.append("repeated: " + ", ".join(card_code(c) for c in repeated))
    foreign = sorted(c for c in given if c not in wanted and not is_joker(c))
    if foreign:
        problems.append("not in this game: " + ", ".join(card_code(c) for c in foreign))
    missing = sorted(c for c in wanted if c not in given and not is_joker(c))
    if missing:
        problems.append("missing: " + ", ".join(card_code(c) for c in missing))
    if problems:
        raise ValueError(f"bad {what}: " + "; ".join(problems))
    return np.array(ids, dtype=np.int8)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def shuffled(cards: Iterable[int], rng: np.random.Generator) -> np.ndarray:
    """The cards in a random order drawn from ``rng``.

    The cards are sorted first, so the result depends only on which cards they are and on ``rng``:
    a determinized deck reveals nothing of the order it was drawn from.
    """
    deck = np.sort(np.asarray(cards if isinstance(cards, np.ndarray) else list(cards), dtype=np.int8))
    rng.shuffle(deck)
    return deck
