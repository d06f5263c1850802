"""High or Low at the terminal (``tabletop-gym play``): its title (the rules in short and the moves' legend are in
RULES.md), what a step did, and how the game ended."""

from __future__ import annotations

from tabletop_gym.envs.core.cards import card_label

from . import rules

TITLE = "High or Low"


def narrate(env, old, new) -> list[str]:
    """The card a turn revealed and whether the guess was right."""
    if new.face_up == old.face_up:
        return []
    said = [f"turned {card_label(rules.face_up_card(new))}",
            "right" if new.result != rules.WRONG_GUESS else "wrong"]
    if new.result == rules.WON:
        said.append(f"{rules.WIN_AT} right guesses")
    return said


def ending(outcome: dict, seat: int) -> tuple[str, str]:
    """How the game ended, and what its score counts."""
    how = {"won": f"{rules.WIN_AT} right guesses.", "wrong_guess": "A wrong guess.",
           "forfeited": "An illegal move forfeits."}[outcome["result"]]
    return how, "the right guesses"
