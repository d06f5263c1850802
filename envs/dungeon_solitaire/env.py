"""The Gymnasium environment for Dungeon Solitaire: Tomb of Four Kings."""

from __future__ import annotations

from ..core.env import TabletopEnv, picture_hook
from . import render, rules


class DungeonSolitaireEnv(TabletopEnv):
    """Delve into a tomb with a 44-card deck and escape with the four kings before your torches burn out.

    ## Description

    Dungeon Solitaire: Tomb of Four Kings (Matthew Lowes, revised edition) is a solitaire played with
    a 44-card deck: delve into a tomb turn by turn, fighting monsters, passing traps and opening sealed
    doors with the cards you reveal, collecting treasure and skills, while your torches (the aces)
    burn out. Turn back in time and escape with all four kings to win. The rules as implemented, with
    every ruling, are in `envs/dungeon_solitaire/RULES.md`.

    ## Action Space

    `Discrete(23)`, named in `env.unwrapped.action_names`: `delve`, `retreat`, `draw`, `berserk`,
    `disarm`, `pick_lock`, `discard`, `dodge`, `take_damage`, and the treasure drops `drop_2D` …
    `drop_TD`, `drop_KS`, `drop_KH`, `drop_KD`, `drop_KC`, `drop_JK`. `env.action_masks()` and
    `info["action_mask"]` give the legal ones.

    ## Observation Space

    `Box(0, high, (245,), float32)`: for each of the 44 cards, whether it is in the hand, the current
    turn, the torch row, the discards or the used pile (all zeros while unseen in the deck); whether
    the ace the scroll sent under the deck is there; the stage and decision (one-hot); hp, torches,
    scroll used, delve and retreat turns, retreat turns left; the encounter's kind and value; pending
    damage and discards; the deck size; the count of unseen cards of each rank and the unseen joker.
    The deck's order is never shown. `rules.OBSERVATION_FIELDS` names every entry.

    ## Starting State

    HP 9, no torches out, an empty hand, before the first card: only `draw` is legal.

    ## Rewards

    `reward="win"` (default): 1 when the player escapes holding all four kings, else 0, at the end.
    `reward="score"`: the points at the end (10 per king, face value per diamond, 6 for the joker; 0
    when killed or lost in the dark).

    ## Episode End

    Terminated when the player escapes (the last retreat turn completed), is killed (hp 0), is lost
    in the dark (the fourth torch with no scroll), or plays an illegal action (default mode). The game
    cannot run forever, so there is no truncation.

    ## Information

    The same keys from `reset()` on, numbers of one dtype and shape each: `action_mask` (int8),
    `illegal_action` (bool: an illegal action ended the game), and, zero until the end, `won`, `score`,
    `kings` and `result` (an integer code: `env.unwrapped.RESULT_NAMES[info["result"]]` is `"playing"`,
    `"escaped"`, `"killed"`, `"lost_in_the_dark"` or `"forfeited"`).

    ## Arguments

    ```python
    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/DungeonSolitaire-v0", min_delve_turns_before_retreat=2,
                   skip_forced=True, reward="win", illegal_action="terminate", render_mode="ansi")
    obs, info = env.reset(seed=0, options={"deck": [...44 codes, top first...]})
    ```

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it, a `uint8` array of shape (440, 720, 3) (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version.
    * v0: infos became numeric, with one set of keys from reset on (`result` as an integer code into
      `RESULT_NAMES`); the observations, actions and rewards are unchanged.
    """

    rules = rules
    render_text = staticmethod(render.render_text)
    draw_picture = staticmethod(picture_hook(__package__))
    _option_fields = ("min_delve_turns_before_retreat",)  # a saved game must have been played with this env's options

    def __init__(self, render_mode=None, *, min_delve_turns_before_retreat=2, skip_forced=True,
                 reward="win", illegal_action="terminate"):
        if (isinstance(min_delve_turns_before_retreat, bool) or not isinstance(min_delve_turns_before_retreat, int)
                or min_delve_turns_before_retreat < 1):
            raise ValueError("min_delve_turns_before_retreat must be an integer >= 1, "
                             f"got {min_delve_turns_before_retreat!r}")
        self.min_delve_turns_before_retreat = min_delve_turns_before_retreat
        super().__init__(render_mode, skip_forced=skip_forced, reward=reward, illegal_action=illegal_action)

    def new_game(self, rng, options):
        return rules.new_game(rng, deck=options.get("deck"),
                              min_delve_turns_before_retreat=self.min_delve_turns_before_retreat)
