"""High or Low at the terminal (``tabletop-gym play``): its title, its rules in short, what its move names mean,
what a step did, and how the game ended."""

from __future__ import annotations

from tabletop_gym.envs.core.cards import card_label

from . import rules

TITLE = "High or Low"

RULES = [
    "Thirteen spades, ace low to king high, are shuffled and the top card turned face up. Guess whether the "
    "next card is higher or lower, then turn it: a right guess counts and the turned card is the new face-up "
    "card; a wrong guess loses. Five right guesses win.",
]

LEGEND = [
    ("higher", "the next card is higher than the face-up card"),
    ("lower", "the next card is lower than the face-up card"),
    ("turn", "turn the next card (after a guess, the only move)"),
]


def narrate(env, old, new) -> list[str]:
    """The card a turn revealed and whether the guess was right."""
    if new.face_up == old.face_up:
        return []
    said = [f"turned {card_label(rules.face_up_card(new))}",
            "right" if new.result != rules.WRONG_GUESS else "wrong"]
    if new.result == rules.WON:
        said.append(f"{rules.WIN_AT} right guesses")
    return said


def ending(info: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    how = {"won": f"{rules.WIN_AT} right guesses.", "wrong_guess": "A wrong guess.",
           "forfeited": "An illegal move forfeits."}[info["result"]]
    return how, "the right guesses"
