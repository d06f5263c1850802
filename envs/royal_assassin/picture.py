"""Royal Assassin drawn as a picture (``render_mode="rgb_array"``): what ``render_text`` lists, on a table.

One lane per suit's column: its face cards in arrival order (the last, rightmost, is the pretender), each
with its attack and defence cards and their totals; the lane's lock, the joker and an attack under way
marked at its head. On the right the card in play, the deck, the discard and the free joker; along the
bottom the reserve, bottom to top, and the line that says what is being decided or how the game ended.
"""

from __future__ import annotations

import numpy as np

from ..core.cards import JOKERS, SUIT_SYMBOLS, card_label
from ..core.picture import CARD_H, CARD_W, HIGHLIGHT, INK, MUTED, RED, Canvas
from . import rules

WIDTH, HEIGHT = 1000, 610  # every picture, whatever the state
# The sample picture (docs/images/): halfway through the heuristic's episode of this seed and these options.
SAMPLE = (15, {})
MARGIN = 16
SMALL_W, SMALL_H = 34, 48  # the attack and defence cards, and the joker on its column
LANE_Y, LANE_H, LANE_W = 50, 104, 812
HEAD_W = 120          # the lane's head: its suit and marks
GROUP_W = 228         # one face card with its stacks
STACK_LABEL_W = 50
STACK_ROOM = GROUP_W - CARD_W - 6 - STACK_LABEL_W - 8
SIDE_X = MARGIN + LANE_W + 24
RESERVE_Y = LANE_Y + 4 * (LANE_H + 6) + 6
STATUS_Y = RESERVE_Y + CARD_H + 14
LANE_FILL = (216, 230, 214)
ATTACKED_FILL = (246, 232, 196)
JOKER = JOKERS[0]  # the Royal Assassin is not a card id of the rules; drawn as the suite's joker


def _stack(c: Canvas, x, y, label: str, cards, total: int) -> None:
    """Attack or defence cards on a face card, their total under the label."""
    if len(cards):
        c.text(x, y + 8, label, size=12)
        c.text(x, y + 24, str(total), size=15, bold=True)
        c.fan(x + STACK_LABEL_W, y, cards, STACK_ROOM, SMALL_W, SMALL_H, gap=3)
    else:
        c.text(x, y + 16, label, size=12, fill=MUTED)
        c.place(x + STACK_LABEL_W, y, SMALL_W, SMALL_H)


def _face_group(c: Canvas, s: rules.State, column: int, level: int, x, y) -> None:
    n = int(s.num_faces[column])
    face = int(s.faces[column, level])
    c.card(x, y + 4, face)
    if level == n - 1:
        short = int(rules.VALUE[face]) - int(s.attack_total[column, level]) + int(s.defense_total[column, level])
        c.text(x + CARD_W / 2, y + CARD_H + 6, "pretender", size=11, align="center", bold=True)
        c.text(x + CARD_W / 2, y + CARD_H + 19, f"{short} short", size=11, align="center", fill=RED)
    else:
        c.text(x + CARD_W / 2, y + CARD_H + 6, "covered", size=11, align="center", fill=MUTED)
    attack = s.attack[column, level, :s.num_attack[column, level]]
    defense = s.defense[column, level, :s.num_defense[column, level]]
    _stack(c, x + CARD_W + 6, y + 2, "attack", attack, int(s.attack_total[column, level]))
    _stack(c, x + CARD_W + 6, y + SMALL_H + 6, "defence", defense, int(s.defense_total[column, level]))


def _lane(c: Canvas, s: rules.State, column: int) -> None:
    y = LANE_Y + column * (LANE_H + 6)
    attacked = s.target == column
    c.box(MARGIN, y, LANE_W, LANE_H, ATTACKED_FILL if attacked else LANE_FILL,
          edge=HIGHLIGHT if attacked else None)
    c.suit(MARGIN + 12, y + 10, column, 30)
    if s.joker == column:
        c.card(MARGIN + 56, y + 6, JOKER, SMALL_W, SMALL_H)
    marks = []
    if s.lock[column] >= 0:
        marks.append(f"locked to {SUIT_SYMBOLS[s.lock[column]]}")
    if s.joker == column:
        marks.append("the joker is here")
    if attacked:
        marks.append("under attack")
    for i, mark in enumerate(marks):
        c.text(MARGIN + 10, y + 56 + 15 * i, mark, size=12, fill=RED if mark == "under attack" else INK)
    n = int(s.num_faces[column])
    if n == 0:
        c.place(MARGIN + HEAD_W, y + 4, label="empty")
    for level in range(n):
        _face_group(c, s, column, level, MARGIN + HEAD_W + level * GROUP_W, y)


def _pile(c: Canvas, x, y, label: str, size: int, face_down: bool) -> None:
    if size and face_down:
        c.card_back(x, y, label=str(size))
    else:
        c.place(x, y, label=str(size) if size else None)
    c.text(x + CARD_W + 8, y + CARD_H / 2 - 8, label, size=14)


def _side(c: Canvas, s: rules.State) -> None:
    x = SIDE_X
    c.text(x, LANE_Y, "in play", size=14, bold=True)
    if s.in_play >= 0:
        c.card(x, LANE_Y + 22, s.in_play)
        if s.decision != rules.OVER:
            c.frame(x, LANE_Y + 22, CARD_W, CARD_H)
            source = "drawn from the deck" if s.decision == rules.DRAW else "the reserve's top"
            c.text(x, LANE_Y + 98, source, size=12, fill=MUTED)
    else:
        c.place(x, LANE_Y + 22)
    _pile(c, x, LANE_Y + 126, f"deck {rules.deck_size(s)}", rules.deck_size(s), face_down=True)
    _pile(c, x, LANE_Y + 210, f"discard {s.discard_size}", int(s.discard_size), face_down=False)
    c.text(x, LANE_Y + 296, "joker", size=14, bold=True)
    if s.joker < 0:
        c.card(x, LANE_Y + 318, JOKER)
        c.text(x, LANE_Y + 394, "free", size=13)
    else:
        c.place(x, LANE_Y + 318)
        c.text(x, LANE_Y + 394, f"on the {SUIT_SYMBOLS[s.joker]} column", size=13)


def _reserve(c: Canvas, s: rules.State) -> None:
    n = int(s.reserve_size)
    c.text(MARGIN, RESERVE_Y + 8, "reserve", size=15, bold=True)
    if n:
        c.text(MARGIN, RESERVE_Y + 30, f"top {card_label(rules.reserve_top(s))}", size=13)
        c.text(MARGIN, RESERVE_Y + 48, f"depth {n}", size=13)
        c.fan(MARGIN + 100, RESERVE_Y, s.reserve[:n], WIDTH - 2 * MARGIN - 100)
    else:
        c.text(MARGIN, RESERVE_Y + 30, "empty", size=13, fill=MUTED)
        c.place(MARGIN + 100, RESERVE_Y)


def _status(s: rules.State) -> str:
    if s.decision == rules.DRAW:
        return f"in play: {card_label(s.in_play)}, drawn from the deck"
    if s.decision == rules.CONTINUE:
        return (f"in play: {card_label(s.in_play)}, the reserve's top, may continue the attack on the "
                f"{SUIT_SYMBOLS[s.target]} column")
    result = rules.outcome(s)
    return f"game over: {result['result']}, {result['kills']} kills, score {result['score']}"


def draw(s: rules.State) -> np.ndarray:
    """The table as a (610, 1000, 3) uint8 picture."""
    c = Canvas(WIDTH, HEIGHT)
    joker = "free" if s.joker < 0 else f"on the {SUIT_SYMBOLS[s.joker]} column"
    title = c.text(MARGIN, 12, "Royal Assassin", size=22, bold=True)
    c.text(MARGIN + title + 24, 16, f"deck {rules.deck_size(s)}    discard {s.discard_size}    "
                                    f"kills {rules.kills(s)}    joker {joker}", size=18)
    for column in range(4):
        _lane(c, s, column)
    _side(c, s)
    _reserve(c, s)
    c.text(MARGIN, STATUS_Y, _status(s), size=17, bold=s.decision == rules.OVER)
    return c.array()

