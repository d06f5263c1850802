"""The Gymnasium environment for High or Low."""

from __future__ import annotations

from tabletop_gym.envs.core.env import TabletopEnv, picture_hook

from . import render, rules


class HighOrLowEnv(TabletopEnv):
    """
    ## Description

    High or Low is a throwaway solitaire of four rules (`RULES.md` beside this file): guess whether the next card
    of the thirteen spades is higher or lower than the face-up card; five right guesses win, a wrong one loses.

    ## Action Space

    `Discrete(3)`: `higher`, `lower` (the guess) and `turn` (the next card, the only move after a guess).

    ## Observation Space

    `Box(0, high, (29,), float32)`: the face-up card's rank (one-hot), the ranks turned so far, the guess waiting
    for its card, the right guesses. `rules.OBSERVATION_FIELDS` names every entry.

    ## Starting State

    The top card face up, no guess: `higher` and `lower` are legal.

    ## Rewards

    `reward="win"` (default): 1 for five right guesses, else 0, at the end. `reward="score"`: the right guesses.

    ## Episode End

    Terminated at the fifth right guess, at a wrong one, or at an illegal action (default mode). No truncation.

    ## Information

    `info["action_mask"]` (int8) on every step; at the end `won`, `score`, `result` (`"won"`, `"wrong_guess"`,
    `"forfeited"`), and `illegal_action` when one ended the game.

    ## Arguments

    ```python
    env = gym.make("Tabletop/HighOrLow-v0", skip_forced=True, reward="win", illegal_action="terminate")
    obs, info = env.reset(seed=0, options={"deck": [...13 codes of spades, top first...]})
    ```

    ## Version History

    * v0: first version.
    """

    rules = rules
    render_text = staticmethod(render.render_text)
    draw_picture = staticmethod(picture_hook(__package__))

    def new_game(self, rng, options):
        return rules.new_game(rng, deck=options.get("deck"))
