"""Dead Center drawn as a picture (``render_mode="rgb_array"``): what ``render_text`` lists, on a table.

The cabin's nine piles (their top cards) in a 3x3 grid, the twelve zombie slots around it (face down, the
zombie face up, or crossed out once killed), the drawn card and the draw pile at the side, and the line
that says what is being decided or how the game ended. In the kill step the pile just played on is ringed
and so are the zombies it can kill.
"""

from __future__ import annotations

import numpy as np

from ..core.picture import HIGHLIGHT, MUTED, RED, Canvas
from . import rules
from .render import status

WIDTH, HEIGHT = 640, 600  # every picture, whatever the state
# The sample picture (docs/images/): halfway through the heuristic's episode of this seed and these options.
SAMPLE = (24, {})
CELL_W, CELL_H = 74, 100
CARD_W, CARD_H = 56, 78
GRID_X, GRID_Y = 20, 52
SIDE_X = GRID_X + 5 * CELL_W + 40


def _slot_cell(slot: int) -> tuple[int, int]:
    """(column, row) of a zombie slot in the 5x5 grid around the cabin."""
    side, k = divmod(slot, 3)
    return [(1 + k, 0), (4, 1 + k), (1 + k, 4), (0, 1 + k)][side]


def _card_xy(column: int, row: int) -> tuple[int, int]:
    return GRID_X + column * CELL_W + (CELL_W - CARD_W) // 2, GRID_Y + row * CELL_H + 20


def _label(c: Canvas, column: int, row: int, text: str) -> None:
    c.text(GRID_X + column * CELL_W + CELL_W / 2, GRID_Y + row * CELL_H, text, size=13, fill=MUTED,
           align="center")


def _killed(c: Canvas, x: int, y: int) -> None:
    c.place(x, y, CARD_W, CARD_H)
    c.draw.line((x + 10, y + 12, x + CARD_W - 10, y + CARD_H - 12), fill=RED, width=3)
    c.draw.line((x + CARD_W - 10, y + 12, x + 10, y + CARD_H - 12), fill=RED, width=3)


def _slots(c: Canvas, s: rules.State, targets: list[int]) -> None:
    for slot, name in enumerate(rules.SLOT_NAMES):
        column, row = _slot_cell(slot)
        x, y = _card_xy(column, row)
        _label(c, column, row, name)
        state = s.slot_state[slot]
        if state == rules.DOWN:
            c.card_back(x, y, CARD_W, CARD_H)
        elif state == rules.UP:
            c.card(x, y, int(s.slot_card[slot]), CARD_W, CARD_H)
        else:
            _killed(c, x, y)
        if slot in targets:
            c.frame(x, y, CARD_W, CARD_H, colour=RED)


def _cabin(c: Canvas, s: rules.State) -> None:
    for pile in range(rules.NUM_PILES):
        column, row = 1 + pile % 3, 1 + pile // 3
        x, y = _card_xy(column, row)
        _label(c, column, row, f"pile {pile}")
        c.card(x, y, int(s.pile_top[pile]), CARD_W, CARD_H)
        if pile == s.played and s.phase == rules.KILL:
            c.frame(x, y, CARD_W, CARD_H)


def _side(c: Canvas, s: rules.State) -> None:
    x, y = SIDE_X, GRID_Y + CELL_H + 20
    c.text(x, y - 22, "drawn", size=15, bold=True)
    if s.drawn >= 0:
        c.card(x, y, int(s.drawn), CARD_W, CARD_H)
        if s.phase == rules.PLAY:
            c.frame(x, y, CARD_W, CARD_H, colour=HIGHLIGHT)
    else:
        c.place(x, y, CARD_W, CARD_H)
    y += 2 * CELL_H
    size = rules.deck_size(s)
    c.text(x, y - 22, "draw pile", size=15, bold=True)
    if size:
        c.card_back(x, y, CARD_W, CARD_H, label=str(size))
    else:
        c.place(x, y, CARD_W, CARD_H, label="0")


def draw(s: rules.State) -> np.ndarray:
    """The table as a (600, 640, 3) uint8 picture."""
    c = Canvas(WIDTH, HEIGHT)
    title = c.text(GRID_X, 12, "Dead Center", size=22, bold=True)
    c.text(GRID_X + title + 24, 16, f"turn {s.turn}    kills {s.kills}/12    deck {rules.deck_size(s)}", size=18)
    targets = rules.killable(s, int(s.played)) if s.phase == rules.KILL else []
    _cabin(c, s)
    _slots(c, s, targets)
    _side(c, s)
    c.text(GRID_X, GRID_Y + 5 * CELL_H + 14, status(s), size=17, bold=s.phase == rules.OVER)
    return c.array()
