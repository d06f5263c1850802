"""Splendor drawn as a picture (``render_mode="rgb_array"``): what ``render_text`` lists, on a table.

The nobles, the three tiers (each deck face down with its size, then its four face-up cards: points,
bonus gem and cost), the bank's tokens, and one panel per player (tokens, bonuses, points, cards,
nobles and reserved cards). Like the text, the picture is the table as ``seat`` sees it: another
player's blind reservation is a face-down card of its tier, and ``seat=None`` (a spectator) sees
every blind reservation face down. The picture has one size for every player count.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core.picture import CARD_EDGE, HIGHLIGHT, INK, MUTED, WHITE, Canvas, is_light
from . import rules
from .cards import COLOR, COLORS, COST, NOBLE_POINTS, NOBLE_REQUIREMENT, POINTS, TOKEN_COLORS

WIDTH, HEIGHT = 1000, 610  # every picture, whatever the state
# The sample picture (docs/images/): halfway through the heuristic's episode of this seed and these options.
SAMPLE = (24, {"num_players": 3})
BOARD_X, TOP_Y = 16, 50
CARD_W, CARD_H = 72, 106
NOBLE = 80
PANEL_X, PANEL_W, PANEL_H = 456, 528, 126

FELT = (200, 214, 206)
GEM = {"W": (246, 246, 246), "U": (32, 92, 200), "G": (30, 146, 78), "R": (204, 36, 46), "K": (44, 44, 48),
       "Y": (232, 182, 32)}
GEM_EDGE = {"W": (150, 150, 150)}
NOBLE_FILL = (238, 222, 190)
PANEL_FILL = (220, 230, 224)
STAR = (150, 60, 170)
TIER_BACK = {1: (36, 120, 70), 2: (196, 150, 30), 3: (36, 64, 130)}  # deck colours of the tiers


def _tint(colour, amount: float = 0.72):
    return tuple(round(v + (255 - v) * amount) for v in colour)


def _gem(c: Canvas, cx, cy, radius: int, colour: str, label=None, size=None) -> None:
    c.token(cx, cy, radius, GEM[colour], None if label is None else str(label), edge=GEM_EDGE.get(colour),
            size=size)


@lru_cache(maxsize=None)
def _card_sprite(card: int, starred: bool):
    """A development card: points and bonus gem on a band of its colour, the cost up the left side; a star
    in the corner for a blind reservation that only its owner sees."""
    c = Canvas(CARD_W, CARD_H, CARD_EDGE)
    colour = COLORS[COLOR[card]]
    c.box(1, 1, CARD_W - 2, CARD_H - 2, WHITE, radius=5)
    band = round(CARD_H * 0.24)
    c.box(2, 2, CARD_W - 4, band, _tint(GEM[colour], 0.55), radius=5)
    if POINTS[card]:
        c.text(6, 3, str(int(POINTS[card])), size=round(band * 0.8), bold=True)
    radius = round(band * 0.36)
    _gem(c, CARD_W - radius - 6, 2 + band / 2, radius, colour)
    c.text(CARD_W / 2 + 2, 2 + band / 2 - 6, f"#{card}", size=11, fill=INK, align="center")
    cost = [(COLORS[i], int(n)) for i, n in enumerate(COST[card]) if n]
    r = round(CARD_W * 0.14)
    per_column = 3 if len(cost) <= 3 else 2  # four costs would climb into the band: two columns of two
    for k, (gem, n) in enumerate(cost):
        column, row = divmod(k, per_column)
        below = min(per_column, len(cost) - column * per_column) - 1 - row  # costs in this column under it
        _gem(c, r + 5 + column * (2 * r + 3), CARD_H - r - 5 - below * (2 * r + 2), r, gem, n, size=round(r * 1.4))
    if starred:
        c.star(CARD_W - 19, CARD_H - 19, 15, STAR)
    return c.sprite("box", 6)


def _card(c: Canvas, x, y, card: int, starred: bool = False) -> None:
    c.paste(_card_sprite(int(card), starred), x, y)


@lru_cache(maxsize=None)
def _back_sprite(tier: int):
    c = Canvas(CARD_W, CARD_H, CARD_EDGE)
    c.box(1, 1, CARD_W - 2, CARD_H - 2, WHITE, radius=5)
    c.box(3, 3, CARD_W - 6, CARD_H - 6, TIER_BACK[tier], radius=4)
    c.text(CARD_W / 2, CARD_H / 2 - 20, "I" * tier, size=18, fill=WHITE, align="center", bold=True)
    return c.sprite("box", 6)


def _deck(c: Canvas, x, y, tier: int, size: int | None = None) -> None:
    """A face-down card of a tier: its deck with its size, or a hidden reservation."""
    if size == 0:
        c.place(x, y, CARD_W, CARD_H, label="0")
        c.text(x + CARD_W / 2, y + CARD_H / 2 - 30, "I" * tier, size=18, fill=MUTED, align="center", bold=True)
        return
    c.paste(_back_sprite(tier), x, y)
    if size is not None:
        c.badge(x + CARD_W / 2, y + CARD_H / 2 + 12, str(size))


def _shade(colour, amount: float = 0.45):
    return tuple(round(v * (1 - amount)) for v in colour)


@lru_cache(maxsize=None)
def _noble_sprite(noble: int):
    """A noble: its points, and the bonuses it asks for as the players' bonuses are drawn (squares of the colour
    with the count in them), each edged darker so that white shows on the tile too."""
    c = Canvas(NOBLE, NOBLE, CARD_EDGE)
    c.box(1, 1, NOBLE - 2, NOBLE - 2, NOBLE_FILL, radius=5)
    c.text(6, 2, str(NOBLE_POINTS), size=19, bold=True)
    c.text(NOBLE - 5, 4, f"N{noble}", size=11, fill=MUTED, align="right")
    need = [(COLORS[i], int(n)) for i, n in enumerate(NOBLE_REQUIREMENT[noble]) if n]
    width, height, gap = 22, 28, 3
    left = (NOBLE - len(need) * width - (len(need) - 1) * gap) / 2
    for k, (gem, n) in enumerate(need):
        x = round(left + k * (width + gap))
        c.box(x, NOBLE - height - 7, width, height, GEM[gem], edge=_shade(GEM[gem]), radius=3)
        c.text(x + width / 2, NOBLE - height + 1, str(n), size=16, fill=INK if is_light(GEM[gem]) else WHITE,
               align="center", bold=True)
    return c.sprite("box", 6)


def _board(c: Canvas, s: rules.State, d: dict) -> None:
    for i, noble in enumerate(d["nobles"]):
        c.paste(_noble_sprite(noble), BOARD_X + i * (NOBLE + 8), TOP_Y)
    for row, t in enumerate((2, 1, 0)):
        y = TOP_Y + NOBLE + 14 + row * (CARD_H + 12)
        _deck(c, BOARD_X, y, t + 1, rules.deck_size(s, t))
        for slot, card in enumerate(s.board[t]):
            x = BOARD_X + (slot + 1) * (CARD_W + 14) + 6
            if card >= 0:
                _card(c, x, y, int(card))
            else:
                c.place(x, y, CARD_W, CARD_H, label="empty")
    y = TOP_Y + NOBLE + 14 + 3 * (CARD_H + 12) + 8
    c.text(BOARD_X, y + 10, "bank", size=14, fill=MUTED)
    for i, gem in enumerate(TOKEN_COLORS):
        _gem(c, BOARD_X + 80 + i * 56, y + 20, 21, gem, int(s.bank[i]), size=17)


def _reserved(c: Canvas, s: rules.State, k: int, reserved: list, x, y) -> bool:
    """A player's reserved cards; True if one is a blind reservation shown to its owner (starred)."""
    starred = False
    for i in range(rules.MAX_RESERVED):
        at = x + i * (CARD_W + 8)
        if i >= len(reserved):
            c.place(at, y, CARD_W, CARD_H)
        elif isinstance(reserved[i], int):
            blind = bool(s.reserved_blind[k, i])
            starred |= blind
            _card(c, at, y, reserved[i], starred=blind)
        else:  # "hidden_tN": only the tier shows
            _deck(c, at, y, int(reserved[i][-1]))
    return starred


def _player(c: Canvas, s: rules.State, d: dict, k: int) -> bool:
    p = d["players"][k]
    y = TOP_Y + k * (PANEL_H + 8)
    to_play = k == s.current and s.phase != rules.OVER
    c.box(PANEL_X, y, PANEL_W, PANEL_H, PANEL_FILL, edge=HIGHLIGHT if to_play else None, radius=8)
    width = c.text(PANEL_X + 10, y + 6, f"{'> ' if to_play else ''}player_{k}", size=16, bold=True)
    c.text(PANEL_X + 22 + width, y + 7, f"{p['points']} points", size=15, bold=True)
    nobles = " ".join(f"N{n}" for n in p["nobles"]) or "-"
    c.text(PANEL_X + 10, y + 28, f"{p['cards']} cards   nobles {nobles}", size=14)
    c.text(PANEL_X + 10, y + 56, "tokens", size=12, fill=MUTED)
    for i, gem in enumerate(TOKEN_COLORS):
        _gem(c, PANEL_X + 80 + i * 31, y + 63, 13, gem, int(s.tokens[k, i]), size=13)
    c.text(PANEL_X + 10, y + 94, "bonuses", size=12, fill=MUTED)
    for i, gem in enumerate(COLORS):
        bx = PANEL_X + 67 + i * 31
        c.box(bx, y + 84, 26, 34, GEM[gem], edge=GEM_EDGE.get(gem, GEM[gem]), radius=3)
        c.text(bx + 13, y + 92, str(int(s.bonuses[k, i])), size=15, fill=INK if is_light(GEM[gem]) else WHITE,
               align="center", bold=True)
    return _reserved(c, s, k, p["reserved"], PANEL_X + PANEL_W - 3 * (CARD_W + 8) - 2, y + 10)


def _head(s: rules.State, d: dict) -> str:
    if s.phase == rules.OVER:
        won = ", ".join(f"player_{k}" for k in d["winners"]) or "nobody"
        return f"Splendor  round {s.round}  game over ({d['result']}): won by {won}"
    if d["result"] == "truncated":
        head = f"Splendor  truncated after {s.max_rounds} rounds"
    else:
        head = f"Splendor  round {s.round}/{s.max_rounds}  player_{s.current} to play ({d['phase']})"
    if s.final_round:
        head += "  [last round]"
    if d["tokens_to_return"]:
        head += f"  [{d['tokens_to_return']} token(s) to return]"
    return head


def draw(s: rules.State, seat: int | None = None) -> np.ndarray:
    """The table as ``seat`` sees it (None: a spectator), a (610, 1000, 3) uint8 picture."""
    d = rules.describe(s, seat)
    c = Canvas(WIDTH, HEIGHT, FELT)
    c.text(BOARD_X, 14, _head(s, d), size=19, bold=True)
    _board(c, s, d)
    starred = [_player(c, s, d, k) for k in range(s.num_players)]
    if any(starred):
        c.star(PANEL_X, HEIGHT - 26, 15, STAR)
        c.text(PANEL_X + 20, HEIGHT - 26, "reserved blind from the top of a deck: only its owner sees it", size=13,
               fill=MUTED)
    return c.array()
