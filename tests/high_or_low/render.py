"""High or Low drawn as text."""

from __future__ import annotations

from tabletop_gym.envs.core.render import cards_text

from . import rules


def status_line(s: rules.State) -> str:
    """The right guesses, the guess waiting for its card, or how the game ended (the picture shows it too)."""
    line = f"right guesses {s.right}/{rules.WIN_AT}"
    if s.guess != rules.NO_GUESS:
        line += f"   guessed {rules.ACTION_NAMES[s.guess]}"
    if s.result != rules.PLAYING:
        line += f"   game over: {rules.RESULT_NAMES[s.result]}"
    return line


def render_text(s: rules.State) -> str:
    return "\n".join([
        f"High or Low  face up: {cards_text([rules.face_up_card(s)])}   deck {rules.NUM_CARDS - s.face_up - 1}",
        f"  turned: {cards_text(rules.turned_cards(s))}",
        f"  {status_line(s)}",
    ])
