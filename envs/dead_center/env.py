"""The Gymnasium environment for Dead Center."""

from __future__ import annotations

from ..core.env import TabletopEnv, picture_hook
from . import features, render, rules


class DeadCenterEnv(TabletopEnv):
    """Kill the twelve face-card zombies around a grid of number cards before the draw pile runs out.

    ## Description

    Dead Center (Wil Su, *Isaludo*, after Tom Francis's Gridcannon) is a solitaire for a 52-card deck
    and up to two jokers. Nine number cards form the cabin, a 3x3 grid of piles; the twelve face cards
    are zombies lying face down on the twelve slots around it. Each turn the player reveals a zombie,
    plays the drawn card on a pile that accepts it, and may kill a face-up zombie next to that pile
    when the two cards behind the pile on the same line are strong enough. Kill all twelve before the
    draw pile runs out to win. The rules as implemented, with every ruling, are in
    `envs/dead_center/RULES.md`.

    ## Action Space

    `Discrete(33)`, named in `env.unwrapped.action_names`: `reveal_T0` … `reveal_L2` (12),
    `play_0` … `play_8` (9 piles, row by row from the top left) and `kill_T0` … `kill_L2` (12). The
    slots are always in the order T0 T1 T2 R0 R1 R2 B0 B1 B2 L0 L1 L2 (clockwise from the top left;
    T above the columns, R right of the rows, B below, L left). `env.action_masks()` and
    `info["action_mask"]` give the legal ones.

    ## Observation Space

    `Box(0, high, (261,), float32)`: for each of the 9 piles its top card (value, joker flag, suit
    one-hot); for each slot its state (face down, face up, killed) and, when face up, the zombie's rank
    and suit; the drawn card; the phase (reveal, play, kill, over); the pile just played on; the draw
    pile's size, the kills, the face-down count, the jokers in the game; which of the 52 cards are
    unseen (in the draw pile or a face-down zombie), the unseen jokers and the unseen number cards by
    value. The draw pile's order and the face-down zombies are never shown.
    `rules.OBSERVATION_FIELDS` names every entry.

    `observation="features"` appends 229 entries in [0, 1] (`Box(0, high, (490,))`), computed from the
    observation alone, that a player reads off the table at a glance: for each slot whether its zombie is
    face up and killable now, how far its supports are short of 10, how many match the suit or colour it
    asks, and the share of the draw pile its attack pile takes; the share of the draw pile no pile takes
    (a draw that loses); for each pile whether the drawn card fits it, whether a zombie dies if it goes
    there, which face-up zombies would be killable after it does, and the losing share of the draw pile
    then; for each face-down slot, the share of the zombies still face down its supports would kill, how
    many of its supports match them on average, and how far its supports are short of 10 (what a reveal
    weighs). `features.FEATURE_FIELDS` names them. A network learns far faster from these (see the README's
    learning curves); the default, `"plain"`, is the observation above.

    `observation="actions"` appends to those 4,224 more in [0, 1] (`Box(0, high, (4714,))`): for each of the
    33 actions, in the same 128 fields, the table it leaves. For each slot after the action: face up, face
    down, killable, how far its supports are short of 10, how many match, the share of the draw pile its
    attack pile takes, and its rank (a face-down slot by the zombies still hidden); then the action's kind,
    the rank it kills, whether its pile's zombie becomes killable, the losing share of the draw pile after
    it, and the slot it reveals. A reveal leaves the table as it is, a play puts the drawn card on its pile, a
    kill empties its slot. `features.ACTION_FIELDS` names the fields of one action. A network that scores every
    action with the same weights (`MaskedPolicy(action_fields=128)`) learns from these what a good table is
    once, not pile by pile.

    ## Starting State

    The cabin dealt, all twelve zombies face down, the draw pile full (33 cards with two jokers): the
    first decision is which zombie to reveal.

    ## Rewards

    `reward="win"` (default): 1 when all twelve zombies are killed, else 0, at the end.
    `reward="score"`: the cards left in the draw pile on a win, 0 on a loss.

    ## Episode End

    Terminated when the twelfth zombie dies (won), when a drawn card fits no pile, when a draw is due
    from an empty draw pile, or on an illegal action (default mode). No truncation: the game lasts at
    most one turn per card.

    ## Information

    The same keys from `reset()` on, numbers of one dtype and shape each: `action_mask` (int8),
    `illegal_action` (bool: an illegal action ended the game), and, zero until the end, `won`, `score`,
    `kills`, `turn` and `result` (an integer code: `env.unwrapped.RESULT_NAMES[info["result"]]` is
    `"playing"`, `"won"`, `"unplayable"`, `"deck_empty"` or `"forfeited"`).

    ## Arguments

    ```python
    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/DeadCenter-v0", jokers=2, skip_forced=True, reward="win",
                   illegal_action="terminate", observation="plain", render_mode="ansi")
    obs, info = env.reset(seed=0, options={"deck": [...9 cabin, 12 zombies, then the draw pile...]})
    ```

    `jokers` (2, 1 or 0; fewer is harder). The stacked deck lists the 9 cabin cards (piles 0-8), the
    12 zombies in slot order T0 T1 T2 R0 R1 R2 B0 B1 B2 L0 L1 L2, then the draw pile top first.

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it, a `uint8` array of shape (600, 640, 3) (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version; `observation="features"` added beside the plain observation, which is unchanged
      (193 entries at first; the 36 on face-down slots came after, and a policy trained on the 193 is refused
      by name); then `observation="actions"` beside both, which are unchanged.
    * v0: infos became numeric, with one set of keys from reset on (`result` as an integer code into
      `RESULT_NAMES`); the observations, actions and rewards are unchanged.
    """

    rules = rules
    features = features
    render_text = staticmethod(render.render_text)
    draw_picture = staticmethod(picture_hook(__package__))
    _option_fields = ("jokers",)  # a saved game must have been played with this env's options

    def __init__(self, render_mode=None, *, jokers=2, skip_forced=True, reward="win", illegal_action="terminate",
                 observation="plain"):
        if isinstance(jokers, bool) or not isinstance(jokers, int) or jokers not in rules.JOKER_OPTIONS:
            raise ValueError(f"jokers must be 0, 1 or 2, got {jokers!r}")
        self.jokers = jokers
        super().__init__(render_mode, skip_forced=skip_forced, reward=reward, illegal_action=illegal_action,
                         observation=observation)

    def new_game(self, rng, options):
        return rules.new_game(rng, deck=options.get("deck"), jokers=self.jokers)
