"""Drawing primitives the games' pictures share (``render_mode="rgb_array"``).

A picture is drawn on a ``Canvas`` of a size fixed per game, whatever is on the table, so that
frames of one game always stack into a video. Playing cards, card backs, empty places, tokens and
text with suit symbols are drawn here once.

Pillow is imported by this module, and only picture modules import it: an env imports it when it is
built with ``render_mode="rgb_array"``, so the other modes do not need Pillow. Suit symbols are
drawn as shapes, not font glyphs: Pillow's bundled font has no ♠♥♦♣, and system fonts vary.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError as error:  # pragma: no cover - depends on the installation
    raise ImportError('render_mode="rgb_array" draws with Pillow, which is not installed: '
                      'pip install "tabletop-gym[render]"') from error

from .cards import RANK, RANKS, SUIT, SUIT_SYMBOLS, is_joker

# Colours (RGB).
FELT = (205, 222, 203)
INK = (30, 32, 36)
MUTED = (96, 104, 100)
RED = (200, 28, 44)
BLACK_SUIT = (22, 22, 26)
JOKER_PURPLE = (118, 42, 158)
WHITE = (255, 255, 255)
CARD_EDGE = (120, 124, 122)
PLACE_EDGE = (142, 164, 140)
PLACE_FILL = (190, 210, 188)
BACK_BLUE = (36, 64, 130)
BACK_LINE = (86, 120, 190)
HIGHLIGHT = (240, 176, 20)

CARD_W, CARD_H = 50, 70
SUPERSAMPLE = 4  # shapes are drawn this many times larger, then shrunk: smooth edges at small sizes


def is_light(colour) -> bool:
    """Whether dark text reads better than white on ``colour`` (by its luminance)."""
    r, g, b = colour[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b > 150


def suit_colour(suit: int):
    return RED if suit in (1, 2) else BLACK_SUIT


@lru_cache(maxsize=None)
def font(size: int):
    """Pillow's bundled font at ``size`` pixels (no system font: the picture is the same everywhere)."""
    return ImageFont.load_default(size=size)


# ---------------------------------------------------------------- smooth shapes as alpha masks

def _suit_shape(draw, suit: int, n: int) -> None:
    """Suit ``suit`` (0-3: ♠♥♦♣) filling an n x n square, drawn white on black."""
    def disc(cx, cy, r):
        draw.ellipse(((cx - r) * n, (cy - r) * n, (cx + r) * n, (cy + r) * n), fill=255)

    def poly(*points):
        draw.polygon([(x * n, y * n) for x, y in points], fill=255)

    if suit == 0:  # spade: an upside-down heart on a stem
        disc(0.28, 0.58, 0.22)
        disc(0.72, 0.58, 0.22)
        poly((0.5, 0.0), (0.92, 0.5), (0.5, 0.78), (0.08, 0.5))
        poly((0.5, 0.6), (0.3, 0.98), (0.7, 0.98))
    elif suit == 1:  # heart
        disc(0.28, 0.32, 0.24)
        disc(0.72, 0.32, 0.24)
        poly((0.05, 0.40), (0.95, 0.40), (0.5, 0.96))
    elif suit == 2:  # diamond
        poly((0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5))
    else:  # club: three leaves on a stem
        disc(0.5, 0.27, 0.22)
        disc(0.26, 0.58, 0.22)
        disc(0.74, 0.58, 0.22)
        poly((0.5, 0.45), (0.3, 0.98), (0.7, 0.98))
        poly((0.4, 0.4), (0.6, 0.4), (0.5, 0.7))


def _star_shape(draw, n: int) -> None:
    angles = np.arange(10) * np.pi / 5 - np.pi / 2
    radii = np.where(np.arange(10) % 2 == 0, 0.5, 0.2)
    draw.polygon([(n * (0.5 + r * np.cos(a)), n * (0.52 + r * np.sin(a))) for a, r in zip(angles, radii)],
                 fill=255)


@lru_cache(maxsize=None)
def mask(kind: str, width: int, height: int, radius: int = 0):
    """A smooth alpha mask: ``"suit0"`` … ``"suit3"``, ``"star"``, ``"disc"`` or ``"box"`` (rounded by ``radius``)."""
    k = SUPERSAMPLE
    big = Image.new("L", (width * k, height * k), 0)
    draw = ImageDraw.Draw(big)
    if kind.startswith("suit"):
        _suit_shape(draw, int(kind[4:]), width * k)
    elif kind == "star":
        _star_shape(draw, width * k)
    elif kind == "disc":
        draw.ellipse((0, 0, width * k - 1, height * k - 1), fill=255)
    else:
        draw.rounded_rectangle((0, 0, width * k - 1, height * k - 1), radius=radius * k, fill=255)
    return big.resize((width, height), Image.LANCZOS)


def _paste_shape(image, kind: str, x: int, y: int, width: int, height: int, fill, radius: int = 0) -> None:
    image.paste(fill, (int(x), int(y), int(x) + width, int(y) + height), mask(kind, width, height, radius))


def _framed_box(image, x, y, width, height, fill, edge, radius, edge_width=1) -> None:
    """A rounded box with a smooth edge: the edge colour, then the fill inset by ``edge_width``."""
    _paste_shape(image, "box", x, y, width, height, edge, radius)
    _paste_shape(image, "box", x + edge_width, y + edge_width, width - 2 * edge_width, height - 2 * edge_width,
                 fill, max(radius - edge_width, 0))


# ---------------------------------------------------------------- sprites: drawn once, pasted many times

def _cut(image, shape: str, radius: int = 0):
    """An RGB image cut to a smooth shape: an RGBA sprite whose colours run to its edge (no dark fringe)."""
    sprite = image.convert("RGBA")
    sprite.putalpha(mask(shape, image.width, image.height, radius))
    return sprite


def _rank_text(card_id: int) -> str:
    rank = int(RANK[card_id])
    return "10" if rank == 10 else RANKS[rank - 1]


def _card_blank(width: int, height: int):
    """A white card with a grey edge, and the radius of its corners."""
    radius = max(3, width // 9)
    image = Image.new("RGB", (width, height), CARD_EDGE)
    _paste_shape(image, "box", 1, 1, width - 2, height - 2, WHITE, radius - 1)
    return image, radius


@lru_cache(maxsize=None)
def card_face(card_id: int, width: int = CARD_W, height: int = CARD_H):
    """A face-up playing card: the index (rank over suit) in the top left corner, where it stays in view when
    cards overlap, and a large suit (or the face letter) in the middle."""
    image, radius = _card_blank(width, height)
    draw = ImageDraw.Draw(image)
    index_size = max(9, round(height * 0.22))
    if is_joker(card_id):
        draw.text((3, 2), "JK", font=font(index_size), fill=JOKER_PURPLE, anchor="la")
        star = round(min(width, height) * 0.62)
        _paste_shape(image, "star", (width - star) // 2 + 3, (height - star) // 2 + 4, star, star, JOKER_PURPLE)
        return _cut(image, "box", radius)
    suit = int(SUIT[card_id])
    colour = suit_colour(suit)
    draw.text((3, 2), _rank_text(card_id), font=font(index_size), fill=colour, anchor="la")
    pip = max(6, round(index_size * 0.72))
    _paste_shape(image, f"suit{suit}", 3 + (font(index_size).getlength("A") - pip) / 2 + 0.5,
                 4 + index_size, pip, pip, colour)
    if RANK[card_id] >= 11:  # a face card: its letter, framed, so the court stands out from the numbers
        frame = (round(width * 0.30), round(height * 0.30), width - 4, height - 4)
        draw.rectangle(frame, outline=colour, width=1)
        letter = font(round(height * 0.36))
        draw.text(((frame[0] + frame[2]) / 2, (frame[1] + frame[3]) / 2), RANKS[RANK[card_id] - 1], font=letter,
                  fill=colour, anchor="mm")
    else:
        big = round(min(width, height) * 0.5)
        _paste_shape(image, f"suit{suit}", width * 0.58 - big / 2, height * 0.58 - big / 2, big, big, colour)
    return _cut(image, "box", radius)


@lru_cache(maxsize=None)
def card_back(width: int = CARD_W, height: int = CARD_H):
    """A face-down card: a blue lattice inside a white border."""
    image, radius = _card_blank(width, height)
    inner = Image.new("RGB", (width - 6, height - 6), BACK_BLUE)
    draw = ImageDraw.Draw(inner)
    for offset in range(-height, width + height, 7):
        draw.line((offset, 0, offset + height, height), fill=BACK_LINE)
        draw.line((offset, 0, offset - height, height), fill=BACK_LINE)
    image.paste(inner, (3, 3), mask("box", width - 6, height - 6, max(radius - 3, 1)))
    return _cut(image, "box", radius)


@lru_cache(maxsize=4096)
def token_sprite(radius: int, fill, edge, label: str | None, size: int, label_fill):
    """A round token with a label (counts and pieces repeat from frame to frame: each is drawn once)."""
    diameter = 2 * radius
    image = Image.new("RGB", (diameter, diameter), edge)
    _paste_shape(image, "disc", 2, 2, diameter - 4, diameter - 4, fill)
    if label is not None:
        ImageDraw.Draw(image).text((radius, radius), label, font=font(size), fill=label_fill, anchor="mm")
    return _cut(image, "disc")


# ---------------------------------------------------------------- the canvas

class Canvas:
    """An RGB picture of fixed size, with the drawing operations the games share."""

    def __init__(self, width: int, height: int, background=FELT):
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    def array(self) -> np.ndarray:
        """The picture as a fresh ``uint8`` array of shape (height, width, 3)."""
        return np.array(self.image, dtype=np.uint8)

    # -------------------------------------------------------- text (suit symbols drawn as shapes)

    @staticmethod
    def _runs(text: str):
        """The text cut into plain runs and suit symbols: (piece, suit or None)."""
        run = ""
        for ch in text:
            if ch in SUIT_SYMBOLS:
                if run:
                    yield run, None
                    run = ""
                yield ch, SUIT_SYMBOLS.index(ch)
            else:
                run += ch
        if run:
            yield run, None

    @staticmethod
    def _suit_width(size: int) -> float:
        return round(size * 0.72) + 1

    def text_width(self, text: str, size: int = 14) -> float:
        face = font(size)
        return sum(self._suit_width(size) if suit is not None else face.getlength(piece)
                   for piece, suit in self._runs(text))

    def text(self, x, y, text: str, size: int = 14, fill=INK, align: str = "left", bold: bool = False) -> float:
        """Text whose top is at ``y``; ``align`` left, center or right of ``x``. Suit symbols take their own
        colour (red hearts and diamonds) unless ``fill`` is light. Returns the width drawn."""
        width = self.text_width(text, size)
        if align == "center":
            x -= width / 2
        elif align == "right":
            x -= width
        face = font(size)
        cap_top = face.getbbox("A", anchor="la")[1]
        pip = round(size * 0.72)
        light = sum(fill) > 600  # on a dark panel, suits take the text colour: black would not show
        for piece, suit in self._runs(text):
            if suit is None:
                self.draw.text((x, y), piece, font=face, fill=fill, anchor="la")
                if bold:  # the bundled font has no bold face: a second pass a pixel to the right
                    self.draw.text((x + 1, y), piece, font=face, fill=fill, anchor="la")
                x += face.getlength(piece)
            else:
                colour = fill if light else suit_colour(suit)
                _paste_shape(self.image, f"suit{suit}", x + 0.5, y + cap_top + (size * 0.72 - pip) / 2, pip, pip,
                             colour)
                x += self._suit_width(size)
        return width

    # -------------------------------------------------------- cards and places

    def paste(self, sprite, x, y) -> None:
        """An RGBA sprite with its top left corner at (x, y)."""
        self.image.paste(sprite, (round(x), round(y)), sprite)

    def sprite(self, shape: str = "box", radius: int = 0):
        """This canvas cut to a rounded box or a disc: a sprite to keep and paste (see ``paste``)."""
        return _cut(self.image, shape, radius)

    def card(self, x, y, card_id: int, width: int = CARD_W, height: int = CARD_H) -> None:
        self.paste(card_face(int(card_id), width, height), x, y)

    def card_back(self, x, y, width: int = CARD_W, height: int = CARD_H, label: str | None = None) -> None:
        self.paste(card_back(width, height), x, y)
        if label:
            self.badge(x + width / 2, y + height / 2, label)

    def place(self, x, y, width: int = CARD_W, height: int = CARD_H, label: str | None = None,
              edge=PLACE_EDGE, fill=PLACE_FILL) -> None:
        """An empty place on the table: an outline where a card can lie."""
        _framed_box(self.image, x, y, width, height, fill, edge, max(3, width // 9), edge_width=2)
        if label:
            self.text(x + width / 2, y + height / 2 - 7, label, size=12, fill=MUTED, align="center")

    def frame(self, x, y, width: int, height: int, colour=HIGHLIGHT, thickness: int = 3) -> None:
        """A ring around a card or place, to point at it."""
        pad = thickness + 1
        self.draw.rounded_rectangle((x - pad, y - pad, x + width + pad - 1, y + height + pad - 1),
                                    radius=max(4, width // 8), outline=colour, width=thickness)

    def badge(self, cx, cy, label: str, size: int = 13) -> None:
        """A short label in a white box (counts on piles)."""
        width = self.text_width(label, size) + 8
        box = (cx - width / 2, cy - size / 2 - 3, cx + width / 2, cy + size / 2 + 3)
        self.draw.rounded_rectangle(box, radius=4, fill=WHITE, outline=CARD_EDGE)
        self.text(cx, box[1] + 2, label, size=size, align="center")

    def fan(self, x, y, cards, room: int, width: int = CARD_W, height: int = CARD_H, gap: int = 4) -> float:
        """Cards left to right in ``room`` pixels, overlapping (each index corner stays in view) when they
        would not fit side by side. Returns the step from one card to the next."""
        cards = [int(c) for c in cards]
        step = width + gap
        if len(cards) > 1 and (len(cards) - 1) * step + width > room:
            step = (room - width) / (len(cards) - 1)
        for i, c in enumerate(cards):
            self.card(x + i * step, y, c, width, height)
        return step

    # -------------------------------------------------------- tokens and marks

    def token(self, cx, cy, radius: int, fill, label: str | None = None, edge=None, label_fill=None,
              size: int | None = None) -> None:
        """A round token centred at (cx, cy), with an optional label in it."""
        edge = tuple(edge) if edge is not None else tuple(max(0, v - 70) for v in fill)
        if label_fill is None:
            label_fill = INK if is_light(fill) else WHITE
        sprite = token_sprite(radius, tuple(fill), edge, label, size or max(10, round(radius * 1.05)),
                              tuple(label_fill))
        self.paste(sprite, cx - radius, cy - radius)

    def suit(self, x, y, suit: int, size: int, fill=None) -> None:
        _paste_shape(self.image, f"suit{suit}", x, y, size, size, fill if fill is not None else suit_colour(suit))

    def star(self, x, y, size: int, fill=JOKER_PURPLE) -> None:
        _paste_shape(self.image, "star", x, y, size, size, fill)

    def box(self, x, y, width, height, fill, edge=None, radius: int = 6) -> None:
        """A rounded panel."""
        if edge is None:
            _paste_shape(self.image, "box", x, y, int(width), int(height), fill, radius)
        else:
            _framed_box(self.image, x, y, int(width), int(height), fill, edge, radius)
