"""High or Low drawn as a picture (``render_mode="rgb_array"``): the turned cards, the face-up one ringed, the deck
face down, and the status line of the text."""

from __future__ import annotations

import numpy as np

from tabletop_gym.envs.core.picture import CARD_H, CARD_W, Canvas

from . import rules
from .render import status_line

WIDTH, HEIGHT = 480, 200  # every picture, whatever the state
# The sample picture: halfway through the heuristic's episode of this seed and these options.
SAMPLE = (1, {})
LEFT, CARDS_Y, ROOM = 16, 56, 360


def draw(s: rules.State) -> np.ndarray:
    """The table as a (200, 480, 3) uint8 picture."""
    c = Canvas(WIDTH, HEIGHT)
    c.text(LEFT, 12, "High or Low", size=22, bold=True)
    turned = rules.turned_cards(s)
    step = c.fan(LEFT, CARDS_Y, turned, ROOM)
    c.frame(LEFT + (len(turned) - 1) * step, CARDS_Y, CARD_W, CARD_H)
    deck = rules.NUM_CARDS - s.face_up - 1
    c.card_back(WIDTH - CARD_W - 24, CARDS_Y, label=str(deck))
    c.text(LEFT, CARDS_Y + CARD_H + 24, status_line(s), size=17, bold=s.result != rules.PLAYING)
    return c.array()
