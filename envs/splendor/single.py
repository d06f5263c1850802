"""The Gymnasium single-agent view of Splendor: one learner seat, scripted opponents at the others."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..core.env import TabletopEnv, check_choice, picture_hook, put_back, remember
from ..core.errors import IllegalActionError
from . import features, players, render, rules
from .aec import OPTION_FIELDS, action_index, numeric_outcome, check_game_numbers, check_options, check_seat, is_integer

OPPONENTS = ("random", "greedy")
REWARDS = ("win", "win_only", "score")
# Who plays, in a simulated future, a seat whose player cannot be asked there: the learner, and an opponent that
# plans on the live game (an agent with ``attach``).
STAND_IN = "greedy"
_draw_picture = picture_hook(__package__)
_LOG_ROOM = 64  # opponent moves the compiled step logs before it hands them to Python


class _SeatRules:
    """The rules as one seat plays them: what ``TabletopEnv`` calls, with the learner's seat filled in."""

    State = rules.State
    ACTION_NAMES = rules.ACTION_NAMES
    OBSERVATION_LOW = rules.OBSERVATION_LOW
    OBSERVATION_HIGH = rules.OBSERVATION_HIGH
    OBSERVATION_FIELDS = rules.OBSERVATION_FIELDS
    legal_mask = staticmethod(rules.legal_mask)
    apply = staticmethod(rules.apply)
    is_over = staticmethod(rules.is_over)
    is_truncated = staticmethod(rules.is_truncated)
    OBSERVATION_SIZE = rules.OBSERVATION_SIZE
    RESULT_NAMES = rules.OUTCOME_RESULT_NAMES

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


def _plans(opponent) -> bool:
    """An agent object that plans on the env it is attached to (``attach(env)``, as the search agent has)."""
    return not isinstance(opponent, str) and callable(getattr(opponent, "attach", None))


def _stand_in(player):
    return STAND_IN if _plans(player) else player


class SplendorEnv(TabletopEnv):
    """Take gem tokens, buy development cards and win nobles; at 15 prestige points the round ends, most points win.

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

    `observation="actions"` appends 40 fields for each of the 72 actions (`Box(low, high, (3373,))`,
    `features.ACTION_FIELDS` names them, `features.ACTION_FEATURE_LOW`/`HIGH` bound them), read off the
    learner's view alone: the action's kind, the tokens it gains or pays (in threes), the card it buys
    or reserves (tier, bonus, points, cost) and whether the next seat could buy that face-up card, then
    the learner's position after it: points, tokens, tokens over the limit, bonuses, a noble the
    bought card's bonus earns, the bonuses the nobles still need, and the cards still in sight it could
    then buy (how many, the most points among them, the fewest tokens short of a point card, and every
    card's points over one plus the tokens it is short). An illegal action gets fields too; the mask
    says which count. A saved policy trained on it plays the plain env too (`make_agent("ppo:<path>",
    "splendor")` computes the fields itself). The AEC env shows the plain observation only.

    ## Starting State

    | players | gems per colour | gold | nobles | face-up cards |
    | --- | --- | --- | --- | --- |
    | 2 | 4 | 5 | 3 | 4 per tier |
    | 3 | 5 | 5 | 4 | 4 per tier |
    | 4 | 7 | 5 | 5 | 4 per tier |

    `player_0` starts; `reset()` returns at the learner's first decision (the seats before it have played).

    ## Rewards

    Paid at the end of the game, 0 on every other step:

    * `reward="win"` (default, PettingZoo's zero-sum convention, as `splendor_v0` pays): +1 if the learner
      is among the winners (a shared win too), else -1 (a loss, or the learner's illegal action); 0 on
      truncation.
    * `reward="win_only"` (the solitaires' convention): 1 for a win (a shared win too), else 0 (a loss,
      an illegal action, a truncation).
    * `reward="score"`: the learner's points when the game ends (also on a loss or an illegal action);
      0 on truncation.

    ## Episode End

    Terminated when the round in which someone reached 15 points is complete, after n passes in a
    row, or on the learner's illegal action. Truncated after `max_rounds` rounds (default 100).

    ## Information

    The same keys from `reset()` on, numbers of one dtype and shape each: `action_mask` (int8),
    `illegal_action` (bool: the learner's illegal action ended the game), and, zero until the end, `won`,
    `score` (the learner's points), `points` (every seat's, shape `(num_players,)`), `winners` (a bool per
    seat) and `result` (an integer code: `env.unwrapped.RESULT_NAMES[info["result"]]` is `"playing"`,
    `"finished"`, `"all_passed"`, `"forfeited"` or `"truncated"`). `env.unwrapped.opponent_moves()` gives
    the opponents' moves of the last reset or step (`[seat, action name]` of each, since the learner's
    last decision); `env.unwrapped.outcome()` the outcome as it stands, the result by name.

    ## Arguments

    ```python
    import gymnasium as gym
    import tabletop_gym.envs
    env = gym.make("Tabletop/Splendor-v0", num_players=2, seat=0, opponent="greedy", max_rounds=100,
                   skip_forced=True, reward="win", illegal_action="terminate", observation="plain",
                   render_mode="ansi")
    obs, info = env.reset(seed=0, options={"deck": {"tier1": [...], "nobles": [...]}})
    ```

    `seat`: 0 … num_players - 1, or `"random"` (drawn per episode from the env's generator).
    `reward`: `"win"`, `"win_only"` or `"score"` (see Rewards).
    `observation`: `"plain"` or `"actions"` (see Observation Space).
    `opponent`: `"random"`, `"greedy"`, or any agent object with `act(observation, action_mask)`
    (called with its own seat's observation and int8 mask); or a list of these, one per other seat in
    seat order. The built-in opponents draw any randomness from the env's generator, and an agent
    object with `reset(seed=...)` is reseeded from it at every reset, so a seed fixes the whole game.
    A decision with a single legal action is played for an opponent without asking it.

    Opponents move in the live game: when one is asked, `env.state` is the table it is to move in, and
    while an agent object decides, the env is that seat's view of the game (`seat`, `action_masks()`,
    `describe()`, `clone()`, `determinize(rng)`), so an agent that plans on the env it is attached to
    plays as an opponent: `opponent=make_agent("search", "splendor")`. An agent object with
    `attach(env)` is attached to this env at every reset. In a clone's future a seat whose player
    cannot be asked there (the learner's in a future an opponent plans; an opponent that plans on the
    live game) is played by the greedy player.

    Calls that raise change nothing: a refused `reset` keeps the game, the generator and the learner's
    seat; a step whose opponent raises (or plays an illegal action) leaves the game as it was before the
    step; `set_state` checks all of its input (the game, of this env's player count and `max_rounds`; the
    generator state; the `seat`, at whose decision the game must be) before it assigns anything.

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it, a `uint8` array of shape (610, 1000, 3) (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version; then `observation="actions"` beside the plain observation, which is unchanged.
    * v0: infos became numeric, with one set of keys from reset on (`result` as an integer code into
      `RESULT_NAMES`; `points` and `winners` as arrays of one entry per seat; the opponents' moves, which were
      `info["opponent_moves"]`, from `opponent_moves()`); the observations, actions and rewards are unchanged.
    """

    features = features
    reset_options = ("deck",)
    # What reset changes here besides the game and the generator, put back if it raises: the learner's seat
    # (``rules``), who plays each seat, the moves reported in the info.
    players = tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1))  # a game of 2 to 4
    built_in_opponents = OPPONENTS  # played by the env itself, with its generator
    _reset_keeps = (*TabletopEnv._reset_keeps, "rules", "_players", "_opponent_moves")
    _option_fields = OPTION_FIELDS  # a saved game must be of this env's player count and max_rounds

    def __init__(self, render_mode=None, *, num_players: int = 2, seat=0, opponent="greedy",
                 max_rounds: int = rules.DEFAULT_MAX_ROUNDS, skip_forced: bool = True, reward: str = "win",
                 illegal_action: str = "terminate", observation: str = "plain"):
        check_options(num_players, max_rounds, skip_forced, illegal_action, render_mode,
                      self.metadata["render_modes"])
        check_choice("reward", reward, REWARDS)
        if not (seat == "random" or (is_integer(seat) and 0 <= seat < num_players)):
            raise ValueError(f"seat must be 'random' or a seat 0-{num_players - 1}, got {seat!r}")
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != num_players - 1:
                raise ValueError(f"opponent as a list needs one entry per other seat ({num_players - 1}), "
                                 f"got {len(opponent)}")
            self.opponents = [_check_opponent(o, f"opponent[{i}]") for i, o in enumerate(opponent)]
        else:
            self.opponents = [_check_opponent(opponent, "opponent")] * (num_players - 1)
        self.num_players = int(num_players)
        self.seat_option = seat
        self.max_rounds = int(max_rounds)
        self.rules = _SeatRules(0 if seat == "random" else int(seat))
        self._players = self._seating(self.rules.seat)
        self._opponent_moves: list = []
        # TabletopEnv knows the solitaires' two reward modes; "win_only" pays as "win" does there, but 0 for a loss.
        super().__init__(render_mode, skip_forced=skip_forced, reward="win" if reward == "win_only" else reward,
                         illegal_action=illegal_action, observation=observation)
        self.reward_mode = reward

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode (while an opponent decides, that opponent's: see ``_ask``)."""
        return self.rules.seat

    def _seating(self, seat: int) -> list:
        """Who plays each seat when the learner sits at ``seat``: the opponents in seat order, None for the learner."""
        return [*self.opponents[:seat], None, *self.opponents[seat:]]

    # ------------------------------------------------------------ TabletopEnv hooks

    def _new_state(self, options):
        deck = options.get("deck")
        rules.check_deck(deck, self.num_players)  # refused before a seat is drawn or an opponent is reset
        seat = int(self.np_random.integers(self.num_players)) if self.seat_option == "random" else self.seat
        # A new object, not a change of the old one: clones made earlier keep their own seat.
        self.rules = _SeatRules(seat)
        self._players = self._seating(seat)
        state = self.new_game(self.np_random, options)
        for opponent in self.opponents:
            if not isinstance(opponent, str) and hasattr(opponent, "reset"):
                opponent.reset(seed=int(self.np_random.integers(2**31)))
            if _plans(opponent):
                opponent.attach(self)
        self._opponent_moves = []
        state, _ = self._until_learner_decides(state, skip_forced=False)
        return state

    def new_game(self, rng, options):
        """A new game of this env's options: the deal only, before a seat is drawn or an opponent moves."""
        return rules.new_game(rng, self.num_players, self.max_rounds, deck=options.get("deck"))

    def step(self, action):
        # An opponent may refuse to play on (an agent object that raises, or plays an illegal action) after
        # the game has moved on: then the step changes nothing.
        kept = remember(self, ("state", "_mask", "_opponent_moves", "_np_random"))
        self._opponent_moves = []
        try:
            return super().step(action)
        except BaseException:
            put_back(self, kept)
            raise

    def _play(self, state, action: int):
        return self._until_learner_decides(rules.apply(state, action), self.skip_forced)

    def _until_learner_decides(self, state, skip_forced: bool):
        """Play the other seats (and, with ``skip_forced``, the learner's forced moves) until the learner
        has a decision to make or the game is over or truncated; the state (changed in place) and its mask.
        The built-in opponents are played inside the compiled step (``players.play_until_learner``), which
        stops for Python to draw a random opponent's choice from the env's generator; an agent object is asked
        in Python, move by move."""
        if all(p is None or isinstance(p, str) for p in self._players):
            return self._compiled_until_learner_decides(state, skip_forced)
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

    def _compiled_until_learner_decides(self, state, skip_forced: bool):
        greedy = np.array([p == "greedy" for p in self._players] + [False] * (rules.MAX_PLAYERS - self.num_players))
        mask = np.empty(rules.NUM_ACTIONS, dtype=bool)
        obs = np.empty(rules.OBSERVATION_SIZE, dtype=np.float32)
        log = np.zeros((_LOG_ROOM, 2), dtype=np.int64)
        while True:
            log[0, 0] = 0
            status = players.play_until_learner(state.data, self.seat, greedy, skip_forced, mask, obs, log)
            self._opponent_moves += [[int(seat), rules.ACTION_NAMES[action]] for seat, action in log[1:log[0, 0] + 1]]
            if status == players.RANDOM_TO_CHOOSE:
                seat = state.current
                action = players.random_action(mask, self.np_random)
                self._opponent_moves.append([seat, rules.ACTION_NAMES[action]])
                rules.take_action(state.data, action)
            elif status == players.PLAYED:
                return state, mask

    def _opponent_action(self, state, mask) -> int:
        seat = state.current
        self.state, self._mask = state, mask  # an opponent moves in the live game, and the env shows it
        if np.count_nonzero(mask) == 1:
            action = int(mask.argmax())
        else:
            opponent = self._players[seat]
            if isinstance(opponent, str):
                if opponent == "random":
                    action = players.random_action(mask, self.np_random)
                else:
                    action = players.greedy_action(rules.observe(state, seat), mask)
            else:
                chosen = self._ask(opponent, state, mask, seat)
                action = action_index(chosen, rules.NUM_ACTIONS)
                if action is None or not mask[action]:
                    raise IllegalActionError(f"{chosen!r} by the opponent at seat {seat}",
                                             [rules.ACTION_NAMES[i] for i in np.flatnonzero(mask)])
        self._opponent_moves.append([seat, rules.ACTION_NAMES[action]])
        return action

    def _ask(self, opponent, state, mask, seat: int):
        """The choice of an agent object at ``seat``. While it decides, the env is that seat's view of the live
        game: its ``state`` is the table to move in, its ``seat``, mask, ``clone()`` and ``determinize()`` are
        that seat's, so an agent that plans on the env it is attached to (a search agent) plans this very
        decision; in the futures it simulates the learner's seat is played by the greedy player."""
        kept = self.rules, self._players
        seen = list(self._players)
        seen[self.seat], seen[seat] = STAND_IN, None
        self.rules, self._players = _SeatRules(seat), seen
        try:
            return opponent.act(rules.observe(state, seat), mask.astype(np.int8))
        finally:
            self.rules, self._players = kept

    def numeric_outcome(self) -> dict:
        """The outcome as the info holds it, as the AEC env's infos do (``numeric_outcome`` there)."""
        return numeric_outcome(self.outcome(), self.num_players)

    def opponent_moves(self) -> list:
        """The opponents' moves of the last ``reset`` or ``step``, in order: ``[seat, action name]`` each (every
        opponent move since the learner's previous decision). Not in the info, whose keys and shapes are fixed."""
        return [list(move) for move in self._opponent_moves]

    def _final_reward(self, info) -> float:
        if self.reward_mode == "score":
            return float(info["score"])
        if info["won"]:
            return 1.0
        return 0.0 if self.reward_mode == "win_only" else -1.0

    def render_text(self, state) -> str:
        return render.render_text(state, self.seat)

    def draw_picture(self, state):
        return _draw_picture(state, self.seat)

    # ------------------------------------------------------------ the contract's extras

    def describe(self, seat: int | None = None) -> dict:
        """The public table (every blind reservation face down); ``seat=k``: as player k sees it."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before describe()")
        check_seat(seat, self.num_players)
        return rules.describe(self.state, seat)

    def clone(self):
        """An independent copy of this env. Privileged, as the base class's is: it holds the hidden cards and the
        generator, so it replays the hidden future exactly; a fair agent plans on ``determinize(rng)``. A copy
        plays on without the live game, so an opponent that plans on the env it is attached to is played there by
        the greedy player (``STAND_IN``)."""
        other = super().clone()
        other.opponents = [_stand_in(o) for o in self.opponents]
        other._players = [_stand_in(p) for p in self._players]
        return other

    def determinize(self, rng: np.random.Generator):
        """A clone in which what the seat to decide (``seat``) has not seen is resampled."""
        other = super().determinize(rng)
        other._mask = rules.legal_mask(other.state)
        return other

    def get_state(self) -> dict:
        """The base class's saved game (privileged: it replays the hidden future; a fair agent plans on
        ``determinize(rng)``), and the learner's seat."""
        saved = super().get_state()
        saved["seat"] = self.seat
        return saved

    def set_state(self, saved: dict) -> None:
        super().set_state(saved)  # checks all of ``saved`` first, the seat too (``_check_saved``)
        self.rules = _SeatRules(int(saved["seat"]))
        self._players = self._seating(self.rules.seat)

    def _check_saved(self, saved) -> None:
        super()._check_saved(saved)
        game = saved["game"]
        check_game_numbers(game)
        if "seat" not in saved:
            raise ValueError("the saved state has no 'seat': set_state takes what get_state() returns, "
                             "a dict with 'game', 'rng' and 'seat'")
        check_seat(saved["seat"], self.num_players, "the saved 'seat'", none=False)
        if game.phase != rules.OVER and not rules.is_truncated(game) and game.current != saved["seat"]:
            raise ValueError(f"the saved game is at seat {game.current}'s decision, not the learner's (seat "
                             f"{saved['seat']}): this view holds games at its learner's decisions")
