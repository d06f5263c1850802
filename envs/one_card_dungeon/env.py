"""The Gymnasium environment for One Card Dungeon."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..core.env import TabletopEnv, picture_hook
from . import render, rules


class OneCardDungeonEnv(TabletopEnv):
    """Roll three dice a turn to move, attack and defend through twelve levels, and kill the three dragons.

    ## Description

    One Card Dungeon (Barny Skinner, 2020; retail edition Little Rocket Games, 2021) is a solo dice
    dungeon crawl played on one double-sided card: twelve levels on a 5×5 grid of floor, walls and
    stairs, each with one to four monsters of one type (spiders, skeletons, ogres, dragons). Every turn
    three energy dice are rolled and assigned to Speed, Attack and Defense; the adventurer moves and
    attacks with the points, then the monsters move (deterministically) and attack. Clear a level to
    raise a skill or heal; kill the three dragons of level 12 to win. The rules as implemented, with
    every ruling, are in `envs/one_card_dungeon/RULES.md`.

    ## Action Space

    `Discrete(41)`, named in `env.unwrapped.action_names`: `assign_HML`, `assign_HLM`, `assign_MHL`,
    `assign_MLH`, `assign_LHM`, `assign_LMH` (the dice sorted High ≥ Mid ≥ Low go to Speed, Attack,
    Defense in that order), `move_r0c0` … `move_r4c4` (move to that tile by the cheapest path),
    `attack_0` … `attack_3` (one attack on that monster slot), `end_turn`, and the end-of-level choice
    `upgrade_speed`, `upgrade_attack`, `upgrade_defense`, `upgrade_range`, `heal`.
    `env.action_masks()` and `info["action_mask"]` give the legal ones.

    ## Observation Space

    `Box(low, high, (201,), float32)`: six 5×5 planes (walls, start stair, other stair, adventurer,
    monsters, monster health); the level (one-hot, 12) and the level's monster stats (health, speed,
    attack, defense, range); per monster slot alive, row, column and health; the adventurer's health,
    speed, attack, defense, range, row and column; this turn's dice sorted high to low; Speed left,
    Attack left and the Defense total; the phase (one-hot: assign, act, level_up, over); turns begun /
    `max_turns`. Future dice are never shown. `rules.observation_fields(skill_cap)` names every entry
    with its bounds (the skill bounds follow `skill_cap`).

    ## Starting State

    Level 1 (or `options={"level": k}`), the adventurer on the start stair with Health 6, Speed 1,
    Attack 1, Defense 1, Range 2, the level's monsters at full health, turn 1's dice rolled: the first
    decision is how to assign them.

    ## Rewards

    `reward="win"` (default): 1 when the last monster of level 12 dies, else 0, at the end.
    `reward="score"`: the last level completed (levels cleared from level 1), at the end.

    ## Episode End

    Terminated when the game is won, when the adventurer's Health reaches 0, or on an illegal action
    (default mode). Truncated when turn `max_turns + 1` would begin (slow monsters can be kited
    forever); the level-up choice is not a turn.

    ## Information

    The same keys from `reset()` on, numbers of one dtype and shape each: `action_mask` (int8),
    `illegal_action` (bool: an illegal action ended the game), and, zero until the end, `won`, `score`
    (the last level completed: level − 1 while a level is played, 12 on a win), `result` (an integer
    code: `env.unwrapped.RESULT_NAMES[info["result"]]` is `"playing"`, `"won"`, `"lost"`, `"forfeited"`
    or `"truncated"`), `level` and `turn`.

    ## Arguments

    ```python
    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/OneCardDungeon-v0", max_turns=400, skill_cap=6, skip_forced=True,
                   reward="win", illegal_action="terminate", render_mode="ansi")
    obs, info = env.reset(seed=0, options={"rolls": [3, 5, 2, 6, 6, 1], "level": 1})
    ```

    `options={"rolls": [...]}` fixes die results in order (three per turn); when they run out the dice
    come from the env's seeded generator. `options={"level": k}` starts at level k (1-12).

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it, a `uint8` array of shape (580, 760, 3) (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version.
    * v0: infos became numeric, with one set of keys from reset on (`result` as an integer code into
      `RESULT_NAMES`); the observations, actions and rewards are unchanged.
    """

    rules = rules
    render_text = staticmethod(render.render_text)
    draw_picture = staticmethod(picture_hook(__package__))
    _option_fields = ("max_turns", "skill_cap")  # a saved game must have been played with this env's options
    reset_options = ("rolls", "level")

    def __init__(self, render_mode=None, *, max_turns=400, skill_cap=6, skip_forced=True, reward="win",
                 illegal_action="terminate"):
        if isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer)) or max_turns < 1:
            raise ValueError(f"max_turns must be an integer >= 1, got {max_turns!r}")
        if isinstance(skill_cap, bool) or not isinstance(skill_cap, (int, np.integer)) or skill_cap < 2:
            raise ValueError(f"skill_cap must be an integer >= 2 (Range starts at 2), got {skill_cap!r}")
        self.max_turns = int(max_turns)
        self.skill_cap = int(skill_cap)
        super().__init__(render_mode, skip_forced=skip_forced, reward=reward, illegal_action=illegal_action)
        # The skill bounds (and so the points') follow the cap.
        low, high = rules.observation_bounds(self.skill_cap)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)

    def new_game(self, rng, options):
        return rules.new_game(rng, rolls=options.get("rolls"), level=options.get("level"),
                              max_turns=self.max_turns, skill_cap=self.skill_cap)
