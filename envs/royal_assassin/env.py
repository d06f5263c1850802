"""The Gymnasium environment for Royal Assassin."""

from __future__ import annotations

from ..core.env import TabletopEnv, picture_hook
from . import features, render, rules


class RoyalAssassinEnv(TabletopEnv):
    """Kill every face card of a 52-card deck with its number cards and a joker before the deck runs out.

    ## Description

    Royal Assassin (Mark R. Brown, 1996) is a solitaire played with a 52-card deck and a joker, the
    Royal Assassin. The face cards are pretenders to the throne, one column per suit; the number
    cards of the other colour attack them, the reserve's cards of their own suit defend them, and
    the joker, laid on a column of two or more face cards, kills the whole column at once. Clear the
    table of face cards before the deck runs out to win. The rules as implemented, with every
    ruling, are in `envs/royal_assassin/RULES.md`.

    ## Action Space

    `Discrete(9)`, named in `env.unwrapped.action_names`: `attack_S`, `attack_H`, `attack_D`,
    `attack_C` (attack that suit's column with the card in play), `assassin_S` … `assassin_C` (the
    same attack, and put the joker on that column), `pass` (the drawn card goes onto the reserve, or
    stop continuing an attack). `env.action_masks()` and `info["action_mask"]` give the legal ones.

    ## Observation Space

    `Box(0, high, (421,), float32)`: each card's place (deck = unseen, in play, reserve, column,
    attack, defence, discard); each number card's depth in the reserve (1 = top, the reserve is face
    up); per column the face cards' values in order, the attack and defence totals on each, the
    pretender's value, attack, defence and how far it is from dying, the lock suit and the joker;
    whether the joker is free; the decision (a drawn card or a continuation) and the card in play;
    the deck, reserve and discard sizes, the face cards on the table; the counts of unseen cards by
    rank and suit. The deck's order is never shown. `rules.OBSERVATION_FIELDS` names every entry.

    `observation="features"` appends 29 entries in [0, 1] (`Box(0, high, (450,))`), computed from the
    observation alone, that a player reads off the table at a glance: for each column, whether the card in
    play kills its pretender, how far short it would fall, the defence of the column's suit waiting on top
    of the reserve and whether it would wipe the attack, whether the attack run waiting on the reserve would
    finish the pretender, and how many face cards would die (with the joker, or by putting it there); and
    the value of the run of the card's own suit on top of the reserve. `features.FEATURE_FIELDS` names them.
    `observation="actions"` appends to those 450 more in [0, 1] (`Box(0, high, (900,))`): for each of the 9
    actions, in the same 50 fields, the table it leaves once its attack is resolved (before the next card,
    which is unseen). For each column: its face cards, the pretender's shortfall, whether it or an older face
    card is under attack, the lock, the joker, the unseen points of the suits still free to attack it, the
    shortfall per point, and the run of its suit on top of the reserve; then the action's kind and column,
    whether the card goes onto the reserve, the face cards killed and left, a win, a wipe, a continuation
    offered, whether the joker is free. An attack that cannot be made (no pretender, a card of the column's
    own colour, no joker to lay) is all zeros. `features.ACTION_FIELDS` names them.
    The default, `"plain"`, is the observation above.

    ## Starting State

    Setup is dealt (number cards onto the reserve, face cards into their columns) until the card that
    ends it, which is the first card in play: the first decision.

    ## Rewards

    `reward="win"` (default): 1 when no face card is left on the table, else 0, at the end.
    `reward="score"`: the cards left in the deck on a win, 0 otherwise.

    ## Episode End

    Terminated when the last face card on the table dies (won), when the deck is empty after the
    last card has been fully resolved (lost), or on an illegal action (default mode). The game cannot
    run forever, so there is no truncation.

    ## Information

    The same keys from `reset()` on, numbers of one dtype and shape each: `action_mask` (int8),
    `illegal_action` (bool: an illegal action ended the game), and, zero until the end, `won`, `score`,
    `kills` (face cards killed) and `result` (an integer code: `env.unwrapped.RESULT_NAMES[info["result"]]`
    is `"playing"`, `"won"`, `"lost"` or `"forfeited"`).

    ## Arguments

    ```python
    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/RoyalAssassin-v0", skip_forced=True, reward="win",
                   illegal_action="terminate", observation="plain", render_mode="ansi")
    obs, info = env.reset(seed=0, options={"deck": [...52 codes, top first, no joker...]})
    ```

    A stacked deck that never ends setup is a `ValueError`; a random deal that never ends it is
    redealt from the env's generator.

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it, a `uint8` array of shape (610, 1000, 3) (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version; `observation="features"` added beside the plain observation, then
      `observation="actions"` beside both, which are unchanged.
    * v0: infos became numeric, with one set of keys from reset on (`result` as an integer code into
      `RESULT_NAMES`); the observations, actions and rewards are unchanged.
    """

    rules = rules
    features = features
    render_text = staticmethod(render.render_text)
    draw_picture = staticmethod(picture_hook(__package__))
    reset_options = ("deck",)

    def __init__(self, render_mode=None, *, skip_forced=True, reward="win", illegal_action="terminate",
                 observation="plain"):
        super().__init__(render_mode, skip_forced=skip_forced, reward=reward, illegal_action=illegal_action,
                         observation=observation)

    def new_game(self, rng, options):
        return rules.new_game(rng, deck=options.get("deck"))
