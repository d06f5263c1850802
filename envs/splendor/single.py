"""The Gymnasium single-agent view of Splendor: one learner seat, scripted opponents at the others."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..core.env import TabletopEnv, picture_hook
from ..core.errors import IllegalActionError
from . import players, render, rules
from .aec import action_index, check_options

OPPONENTS = ("random", "greedy")
_draw_picture = picture_hook(__package__)


class _SeatRules:
    """The rules as one seat plays them: what ``TabletopEnv`` calls, with the learner's seat filled in."""

    ACTION_NAMES = rules.ACTION_NAMES
    OBSERVATION_LOW = rules.OBSERVATION_LOW
    OBSERVATION_HIGH = rules.OBSERVATION_HIGH
    OBSERVATION_FIELDS = rules.OBSERVATION_FIELDS
    legal_mask = staticmethod(rules.legal_mask)
    apply = staticmethod(rules.apply)
    is_over = staticmethod(rules.is_over)
    is_truncated = staticmethod(rules.is_truncated)

    def __init__(self, seat: int):
        self.seat = seat

    def observe(self, s):
        return rules.observe(s, self.seat)

    def forfeit(self, s):
        return rules.forfeit(s, self.seat)

    def outcome(self, s):
        return rules.outcome(s, self.seat)

    def describe(self, s):
        return rules.describe(s, self.seat)

    def determinize(self, s, rng):
        return rules.determinize(s, rng, self.seat)


def _check_opponent(spec, where: str):
    if isinstance(spec, str):
        if spec not in OPPONENTS:
            raise ValueError(f"{where} must be 'random', 'greedy' or an agent object with act(observation, "
                             f"action_mask), got {spec!r}")
        return spec
    if not callable(getattr(spec, "act", None)):
        raise ValueError(f"{where} must be 'random', 'greedy' or an agent object with act(observation, "
                         f"action_mask), got {spec!r}")
    return spec


class SplendorEnv(TabletopEnv):
    """
    ## Description

    Splendor (Marc André, Space Cowboys 2014) seen by one player, for single-agent trainers such as
    Stable-Baselines3: the learner sits at `seat` among `num_players`, and every other seat is played
    by `opponent`. A step is one decision of the learner; the opponents' moves in between are played
    inside `step`. The game itself (2-4 players) is `splendor_v0`, the PettingZoo AEC env; the rules
    as implemented, with every ruling, are in `envs/splendor/RULES.md`.

    ## Action Space

    `Discrete(72)`, named in `env.unwrapped.action_names` (`take_WUG` …, `take_WU` …, `take_W` …,
    `take_WW` …, `reserve_t1_0` … `reserve_t3_3`, `reserve_t1_deck` …, `buy_t1_0` …, `buy_reserved_0` …,
    `return_W` … `return_Y`, `noble_0` … `noble_4`, `pass`). `env.action_masks()` and
    `info["action_mask"]` give the legal ones.

    ## Observation Space

    `Box(0, high, (493,), float32)`, the learner's own view (the same as its `splendor_v0`
    observation): bank, deck sizes, the 12 face-up cards (present, tier, bonus colour, points, cost),
    the nobles on the table, then every seat in turn order starting with the learner's (tokens,
    bonuses, points, cards bought, nobles, reserved cards; another player's blind reservation shows
    only its tier), then the phase, tokens to return, last-round flag, round progress, consecutive
    passes, the player count, the learner's seat and the seat to play. `rules.OBSERVATION_FIELDS`
    names every entry. No deck order and no hidden card is ever shown.

    ## Starting State

    | players | gems per colour | gold | nobles | face-up cards |
    | --- | --- | --- | --- | --- |
    | 2 | 4 | 5 | 3 | 4 per tier |
    | 3 | 5 | 5 | 4 | 4 per tier |
    | 4 | 7 | 5 | 5 | 4 per tier |

    `player_0` starts; `reset()` returns at the learner's first decision (the seats before it have played).

    ## Rewards

    PettingZoo's convention, as the rules page says: `reward="win"` (default) gives +1 at the end if
    the learner is among the winners, else -1; 0 on truncation. `reward="score"`: the learner's points
    at the end. An illegal action by the learner (default mode) ends the game with -1.

    ## Episode End

    Terminated when the round in which someone reached 15 points is complete, after n passes in a
    row, or on the learner's illegal action. Truncated after `max_rounds` rounds (default 100).

    ## Information

    `info["action_mask"]` (int8) on every step and `info["opponent_moves"]` (`[seat, action name]` of
    every opponent move since the learner's last decision); at the end `won`, `score` (the learner's
    points), `points` (every seat's), `winners`, `result` (`"finished"`, `"all_passed"`,
    `"forfeited"`, `"truncated"`), and `illegal_action` when one ended the game.

    ## Arguments

    ```python
    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/Splendor-v0", num_players=2, seat=0, opponent="greedy", max_rounds=100,
                   skip_forced=True, reward="win", illegal_action="terminate", render_mode="ansi")
    obs, info = env.reset(seed=0, options={"deck": {"tier1": [...], "nobles": [...]}})
    ```

    `seat`: 0 … num_players - 1, or `"random"` (drawn per episode from the env's generator).
    `opponent`: `"random"`, `"greedy"`, or any agent object with `act(observation, action_mask)`
    (called with its own seat's observation and int8 mask); or a list of these, one per other seat in
    seat order. The built-in opponents draw any randomness from the env's generator, and an agent
    object with `reset(seed=...)` is reseeded from it at every reset, so a seed fixes the whole game.
    A decision with a single legal action is played for an opponent without asking it.

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it, a `uint8` array of shape (610, 1000, 3) (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version.
    """

    reset_options = ("deck",)

    def __init__(self, render_mode=None, *, num_players: int = 2, seat=0, opponent="greedy",
                 max_rounds: int = rules.DEFAULT_MAX_ROUNDS, skip_forced: bool = True, reward: str = "win",
                 illegal_action: str = "terminate"):
        check_options(num_players, max_rounds, skip_forced, illegal_action, render_mode,
                      self.metadata["render_modes"])
        if not (seat == "random" or (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool)
                                     and 0 <= seat < num_players)):
            raise ValueError(f"seat must be 'random' or a seat 0-{num_players - 1}, got {seat!r}")
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != num_players - 1:
                raise ValueError(f"opponent as a list needs one entry per other seat ({num_players - 1}), "
                                 f"got {len(opponent)}")
            self.opponents = [_check_opponent(o, f"opponent[{i}]") for i, o in enumerate(opponent)]
        else:
            self.opponents = [_check_opponent(opponent, "opponent")] * (num_players - 1)
        self.num_players = num_players
        self.seat_option = seat
        self.max_rounds = int(max_rounds)
        self.rules = _SeatRules(0 if seat == "random" else int(seat))
        self._opponent_moves: list = []
        super().__init__(render_mode, skip_forced=skip_forced, reward=reward, illegal_action=illegal_action)

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self.rules.seat

    # ------------------------------------------------------------ TabletopEnv hooks

    def _new_state(self, options):
        seat = int(self.np_random.integers(self.num_players)) if self.seat_option == "random" else self.seat
        # A new object, not a change of the old one: clones made earlier keep their own seat.
        self.rules = _SeatRules(seat)
        state = rules.new_game(self.np_random, self.num_players, self.max_rounds, deck=options.get("deck"))
        for opponent in self.opponents:
            if not isinstance(opponent, str) and hasattr(opponent, "reset"):
                opponent.reset(seed=int(self.np_random.integers(2**31)))
        self._opponent_moves = []
        state, _ = self._until_learner_decides(state, skip_forced=False)
        return state

    def step(self, action):
        self._opponent_moves = []
        return super().step(action)

    def _play(self, state, action: int):
        return self._until_learner_decides(rules.apply(state, action), self.skip_forced)

    def _until_learner_decides(self, state, skip_forced: bool):
        """Play the other seats (and, with ``skip_forced``, the learner's forced moves) until the learner
        has a decision to make or the game is over or truncated; the state and its mask."""
        while True:
            mask = rules.legal_mask(state)
            if state.current != self.seat:
                if not mask.any():
                    return state, mask
                state = rules.apply(state, self._opponent_action(state, mask))
            elif skip_forced and np.count_nonzero(mask) == 1:
                state = rules.apply(state, int(mask.argmax()))
            else:
                return state, mask

    def _opponent_action(self, state, mask) -> int:
        seat = state.current
        if np.count_nonzero(mask) == 1:
            action = int(mask.argmax())
        else:
            opponent = self.opponents[seat if seat < self.seat else seat - 1]
            if isinstance(opponent, str):
                if opponent == "random":
                    action = players.random_action(mask, self.np_random)
                else:
                    action = players.greedy_action(rules.observe(state, seat), mask)
            else:
                chosen = opponent.act(rules.observe(state, seat), mask.astype(np.int8))
                action = action_index(chosen, rules.NUM_ACTIONS)
                if action is None or not mask[action]:
                    raise IllegalActionError(f"{chosen!r} by the opponent at seat {seat}",
                                             [rules.ACTION_NAMES[i] for i in np.flatnonzero(mask)])
        self._opponent_moves.append([seat, rules.ACTION_NAMES[action]])
        return action

    def _info(self):
        info = super()._info()
        info["opponent_moves"] = list(self._opponent_moves)
        return info

    def _final_reward(self, info) -> float:
        if self.reward_mode == "score":
            return float(info["score"])
        return 1.0 if info["won"] else -1.0

    def render_text(self, state) -> str:
        return render.render_text(state, self.seat)

    def draw_picture(self, state):
        return _draw_picture(state, self.seat)

    # ------------------------------------------------------------ the contract's extras

    def describe(self, seat: int | None = None) -> dict:
        """The public table (every blind reservation face down); ``seat=k``: as player k sees it."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before describe()")
        return rules.describe(self.state, seat)

    def get_state(self) -> dict:
        saved = super().get_state()
        saved["seat"] = self.seat
        return saved

    def set_state(self, saved: dict) -> None:
        self.rules = _SeatRules(saved["seat"])
        super().set_state(saved)
