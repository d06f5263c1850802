"""Dungeon Solitaire drawn as a picture (``render_mode="rgb_array"``): what ``render_text`` lists, on a table.

The hit points as hearts, the torch row's four places, the turn's cards (the encounter ringed) and the
hand, the deck face down with its size, and the encounter, a coming blow, a shut door's discards or the
result underneath.
"""

from __future__ import annotations

import numpy as np

from ..core.picture import CARD_H, CARD_W, MUTED, RED, Canvas
from . import rules
from .render import status_lines

WIDTH, HEIGHT = 720, 440  # every picture, whatever the state
# The sample picture (docs/images/): halfway through the heuristic's episode of this seed and these options.
SAMPLE = (24, {})
LABEL_X, CARDS_X = 16, 112
ROOM = 500  # width of the turn's and the hand's row
TORCH_Y, TURN_Y, HAND_Y, STATUS_Y = 78, 170, 262, 350
LOST_HEART = (176, 190, 174)


def _where(s: rules.State) -> str:
    if s.stage == rules.RETREAT:
        return f"retreat turn {s.retreat_turns} of {s.delve_turns - 1} (after {s.delve_turns} delve turns)"
    return f"delve turn {s.delve_turns}"


def _hit_points(c: Canvas, s: rules.State, y: int) -> None:
    x = LABEL_X + c.text(LABEL_X, y, f"HP {s.hp}/{rules.MAX_HP}", size=16, bold=True) + 10
    for point in range(rules.MAX_HP):
        c.suit(x + 20 * point, y + 1, 1, 16, RED if point < s.hp else LOST_HEART)
    x += 20 * rules.MAX_HP + 20
    extras = f"torches out {s.torches}/{rules.MAX_TORCHES}" + ("   scroll used" if s.scroll_used else "")
    c.text(x, y, extras, size=16)


def _row_label(c: Canvas, y: int, label: str) -> None:
    c.text(LABEL_X, y + CARD_H / 2 - 9, label, size=16, fill=MUTED)


def _torch_row(c: Canvas, s: rules.State) -> None:
    _row_label(c, TORCH_Y, "torch row")
    torches = rules.cards_in(s, rules.TORCH_ROW)
    for place in range(rules.MAX_TORCHES):
        x = CARDS_X + place * (CARD_W + 6)
        if place < len(torches):
            c.card(x, TORCH_Y, torches[place])
        else:
            c.place(x, TORCH_Y)


def _row(c: Canvas, s: rules.State, y: int, label: str, place: int) -> None:
    _row_label(c, y, label)
    cards = rules.cards_in(s, place)
    if not len(cards):
        c.place(CARDS_X, y, label="none")
        return
    step = c.fan(CARDS_X, y, cards, ROOM)
    if s.encounter >= 0 and s.encounter in cards:
        at = int(np.flatnonzero(cards == s.encounter)[0])
        # Ring what shows of it: the whole card if it is the last, else the strip the next card leaves.
        c.frame(CARDS_X + at * step, y, CARD_W if at == len(cards) - 1 else int(min(step, CARD_W)), CARD_H)


def _deck(c: Canvas, s: rules.State) -> None:
    x = WIDTH - CARD_W - 40
    size = rules.deck_size(s)
    if size:
        c.card_back(x, TORCH_Y, label=str(size))
    else:
        c.place(x, TORCH_Y)
    c.text(x + CARD_W / 2, TORCH_Y + CARD_H + 4, f"deck {size}", size=14, align="center")


def draw(s: rules.State) -> np.ndarray:
    """The table as a (440, 720, 3) uint8 picture."""
    c = Canvas(WIDTH, HEIGHT)
    title = c.text(LABEL_X, 12, "Dungeon Solitaire", size=22, bold=True)
    c.text(LABEL_X + title + 24, 16, _where(s), size=18)
    _hit_points(c, s, 46)
    _torch_row(c, s)
    _deck(c, s)
    _row(c, s, TURN_Y, "turn", rules.TURN)
    _row(c, s, HAND_Y, "hand", rules.HAND)
    for i, line in enumerate(status_lines(s)):
        c.text(LABEL_X, STATUS_Y + 22 * i, line, size=17, bold=line.startswith("game over"))
    return c.array()
