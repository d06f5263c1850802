"""Text rendering helpers shared by the card games."""

from __future__ import annotations

from collections.abc import Iterable

from .cards import card_label


def cards_text(cards: Iterable[int], empty: str = "-") -> str:
    """Cards as they read on the table: ``10♠ J♥ JK``."""
    labels = [card_label(int(c)) for c in cards]
    return " ".join(labels) if labels else empty
