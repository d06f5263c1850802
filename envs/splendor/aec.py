"""The PettingZoo AEC environment for Splendor (2-4 players).

``env()`` is what PettingZoo's classic games return, with a thin wrapper stack: illegal and
out-of-range actions are handled here (the offender loses with -1, PettingZoo's convention), so only
``OrderEnforcingWrapper`` is added. ``raw_env`` is the bare class.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.env import ILLEGAL_ACTION_MODES, HoldsOneGame, check_choice, need_pillow, picture_hook
from ..core.errors import IllegalActionError
from ..core.parallel import TurnBasedParallelEnv
from . import render, rules

RESET_OPTIONS = ("deck",)
OPTION_FIELDS = ("num_players", "max_rounds")  # the fields of a game state that the env's options fix
_draw_picture = picture_hook(__package__)


def is_integer(value) -> bool:
    """An int or a numpy integer, not a bool (and not a float, even 2.0)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_options(num_players, max_rounds, skip_forced, illegal_action, render_mode, render_modes) -> None:
    """The constructor options both Splendor envs share, with a clear ValueError for a bad one."""
    check_choice("render_mode", render_mode, [None, *render_modes])
    check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
    if not isinstance(skip_forced, bool):
        raise ValueError(f"skip_forced must be True or False, got {skip_forced!r}")
    if not is_integer(num_players) or num_players not in range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1):
        kind = "" if is_integer(num_players) else f" (a {type(num_players).__name__}: it takes an integer)"
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}{kind}")
    if not is_integer(max_rounds) or max_rounds < 1:
        raise ValueError(f"max_rounds must be an integer >= 1, got {max_rounds!r}")


def options_dict(options) -> dict:
    """``reset(options=...)`` as a new dict (None: no options), or a TypeError saying what it takes."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict of reset options (this game takes: {', '.join(RESET_OPTIONS)}), "
                        f"got {options!r}")
    return dict(options)


def check_seat(seat, num_players: int, name: str = "seat", none: bool = True) -> None:
    """A seat 0 .. num_players - 1 (or None, when ``none``), else a ValueError naming ``name``."""
    if seat is None and none:
        return
    if not is_integer(seat) or not 0 <= seat < num_players:
        choices = f"a seat 0-{num_players - 1}" + (" or None" if none else "")
        raise ValueError(f"{name} must be {choices}, got {seat!r}")


def check_game_numbers(game, where: str = "the saved game") -> None:
    """That the numbers every rule reads of ``game`` (a state whose fields have the right types and shapes) are
    in range for its player count, else a ValueError: a table the rules cannot play on is refused, not played."""
    n = game.num_players
    for name, low, high in (("current", 0, n - 1), ("phase", 0, len(rules.PHASE_NAMES) - 1),
                            ("result", 0, len(rules.RESULT_NAMES) - 1), ("forfeited_by", -1, n - 1),
                            ("passes", 0, n), ("round", 1, None)):
        value = int(getattr(game, name))
        if value < low or (high is not None and value > high):
            bounds = f"{low}-{high}" if high is not None else f">= {low}"
            raise ValueError(f"{where} has {name}={value}; in a {n}-player game it is {bounds}")


def numeric_outcome(outcome: dict, num_players: int) -> dict:
    """``rules.outcome`` (Python's values) as the infos hold it, of one shape in every game of ``num_players``:
    numpy numbers, every seat's ``points``, the ``winners`` as a bool per seat and ``result`` as its code in
    ``rules.OUTCOME_RESULT_NAMES``."""
    winners = np.zeros(num_players, dtype=bool)
    winners[outcome["winners"]] = True
    return {"won": np.bool_(outcome["won"]), "score": np.int64(outcome["score"]),
            "points": np.array(outcome["points"], dtype=np.int64), "winners": winners,
            "result": np.int64(rules.OUTCOME_RESULT_NAMES.index(outcome["result"]))}


def blank_outcome(num_players: int) -> dict:
    """The outcome keys of the infos before the end: a zero of each one's dtype and shape."""
    return {"won": np.False_, "score": np.int64(0), "points": np.zeros(num_players, dtype=np.int64),
            "winners": np.zeros(num_players, dtype=bool), "result": np.int64(0)}


def action_index(action, num_actions: int):
    """The action as an index, or None if it is not one (None, a float, a bool, out of range)."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return None
    index = int(action)
    return index if 0 <= index < num_actions else None


class raw_env(HoldsOneGame, AECEnv):
    """
    ## Description

    Splendor (Marc André, Space Cowboys 2014) for 2-4 players as a PettingZoo AEC environment: gem
    merchants take gem tokens, reserve and buy development cards that give permanent gem bonuses and
    prestige points, and attract nobles; the first to 15 points ends the round, and the most points
    win. The rules as implemented, with every ruling, are in `envs/splendor/RULES.md`.

    ## Agents

    `player_0` … `player_{n-1}`; `player_0` starts. A turn's token returns and noble choice are
    further decisions of the same agent (`agent_selection` stays on it).

    ## Action Space

    `Discrete(72)`, named in `env.unwrapped.action_names` (`take_WUG` …, `take_WW` …,
    `reserve_t1_0` …, `reserve_t3_deck`, `buy_t2_3` …, `buy_reserved_0` …, `return_W` …, `noble_0` …,
    `pass`). Illegal actions are masked in `observation["action_mask"]`.

    ## Observation Space

    `Dict({"observation": Box(0, high, (493,), float32), "action_mask": Box(0, 1, (72,), int8)})`, from
    the agent's own point of view: bank, deck sizes, the 12 face-up cards, the nobles, then every seat
    in turn order starting with its own (tokens, bonuses, points, cards, nobles, reserved cards: another
    player's blind reservation shows only its tier), then the phase, the round and the seats.
    `rules.OBSERVATION_FIELDS` names every entry. The mask is all zeros for agents not on turn and, once the
    game is over, for every agent (as PettingZoo's classic games show them: an agent steps only on its turn, and a
    finished agent steps None). In `parallel_env`, where every agent sends an action at every step and only the
    one on turn is played, an agent with no legal action (not on turn, or the game over) is shown all ones
    instead: its action is ignored, and a masked sampler meeting a row of zeros gives NaN.

    ## Rewards

    At the end, +1 to each winner (to every co-winner of a shared win) and -1 to every other player; 0 to
    everyone on truncation. An illegal action (default mode) ends the game with -1 for the offender and 0
    for the others.

    ## Episode End

    Terminated when the round in which someone reached 15 points is complete, after n passes in a
    row, or on an illegal action. Truncated after `max_rounds` rounds, or after `max_cycles` cycles.

    ## Information

    Every agent's info has the same keys from `reset()` on, numbers of one dtype and shape each: `won`
    (bool), `score` (its points), `points` (every seat's, shape `(num_players,)`), `winners` (a bool per
    seat), `result` (an integer code: `env.unwrapped.RESULT_NAMES[info["result"]]` is `"playing"`,
    `"finished"`, `"all_passed"`, `"forfeited"` or `"truncated"`) and `illegal_action` (its own illegal
    action ended the game). All zero until the game ends or is cut short, then its outcome.

    ## Arguments

    ```python
    from tabletop_gym.envs import splendor_v0
    env = splendor_v0.env(num_players=2, render_mode=None, skip_forced=True,
                          illegal_action="terminate", max_rounds=100, max_cycles=None)
    env.reset(seed=0, options={"deck": {"tier1": [...], "nobles": [...]}})
    ```

    `max_cycles` (PettingZoo's option; None, the default, for none): truncation after that many cycles, a
    cycle being one step of every agent, as PettingZoo's `max_cycles_test` counts them: the game is
    truncated once the agents have taken `max_cycles × num_players` steps (decisions), `max_cycles` each
    when every turn is one decision (a turn's token returns and noble choice are further steps of its
    agent; moves the env plays for an agent with `skip_forced` are not steps). `parallel_env` steps one
    agent at a time, so there a cycle is one step: `parallel_env(max_cycles=k)` truncates after k steps.

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it as a spectator sees it (blind reservations face down), a `uint8` array of shape
    (610, 1000, 3) for any number of players (needs the `render` extra, Pillow).

    Calls that raise change nothing: a refused `reset` (a bad deck, bad options) keeps the game and the
    random generator as they were, also when a seed was passed; `set_state` checks the whole input (its
    type, game, player count, shapes, agents and generator state) before it assigns anything. `step`,
    `observe`, `describe`, `action_mask` and `get_state` before the first `reset` raise
    `gymnasium.error.ResetNeeded`.

    ## Version History

    * v0: first version.
    * v0: infos became numeric, with one set of keys from reset on (`result` as an integer code into
      `RESULT_NAMES`; `points` and `winners` as arrays of one entry per seat, `illegal_action` always there);
      the observations, actions and rewards are unchanged.
    """

    RESULT_NAMES = rules.OUTCOME_RESULT_NAMES  # info["result"] holds the index of the name
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "splendor_v0", "is_parallelizable": False,
                "render_fps": 1}
    # The observed mask of an agent with no legal action: all zeros here, all ones in the parallel view (whose
    # agents all send an action at every step, the ignored ones included).
    idle_mask_value = 0

    def __init__(self, num_players: int = 2, render_mode=None, *, skip_forced: bool = True,
                 illegal_action: str = "terminate", max_rounds: int = rules.DEFAULT_MAX_ROUNDS,
                 max_cycles: int | None = None):
        super().__init__()
        check_options(num_players, max_rounds, skip_forced, illegal_action, render_mode, self.metadata["render_modes"])
        if max_cycles is not None and (not is_integer(max_cycles) or max_cycles < 1):
            raise ValueError(f"max_cycles must be None or an integer >= 1, got {max_cycles!r}")
        need_pillow(render_mode)
        self.num_players = int(num_players)
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.illegal_action = illegal_action
        self.max_rounds = int(max_rounds)
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self._steps_per_cycle = self.num_players  # one step of every agent; the parallel view's cycle is one step
        self.action_names = list(rules.ACTION_NAMES)
        self.possible_agents = [f"player_{k}" for k in range(self.num_players)]
        self._seat = {agent: k for k, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(rules.OBSERVATION_LOW, rules.OBSERVATION_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (rules.NUM_ACTIONS,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(rules.NUM_ACTIONS) for agent in self.possible_agents}
        self.state_ = None
        self._mask = None
        self._np_random = None
        self._steps = 0  # agent steps since reset, for max_cycles

    # ------------------------------------------------------------ PettingZoo API

    def observation_space(self, agent):
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._agent(agent)]

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random()
        return self._np_random

    def reset(self, seed=None, options=None):
        options = options_dict(options)
        # The new game is dealt with a generator of its own (the seed's, or a copy of this env's) and only
        # then does the env take it: a reset refused for a bad seed or deck leaves everything as it was.
        if seed is not None or self._np_random is None:
            generator, _ = seeding.np_random(seed)
        else:
            generator = copy.deepcopy(self._np_random)
        unknown = sorted(set(options) - set(RESET_OPTIONS), key=repr)
        game = self.new_game(generator, options)
        if unknown:
            # PettingZoo's own API test passes an unknown option, so it is ignored, not refused.
            warnings.warn(f"unknown reset option(s) {', '.join(map(repr, unknown))} ignored; "
                          f"this game takes: {', '.join(RESET_OPTIONS)}", stacklevel=2)
        self._np_random = generator
        self.state_ = game
        self._steps = 0
        self._mask = self._legal_mask()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {**blank_outcome(self.num_players), "illegal_action": np.False_}
                      for agent in self.agents}
        self.agent_selection = self.agents[self.state_.current]
        self._skip_agent_selection = None  # PettingZoo's marker while finished agents are stepped out
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        self._need_reset("observe")
        seat = self._seat[self._agent(agent)]
        if seat == self.state_.current and self._mask.any():
            mask = self._mask.astype(np.int8)
        else:
            mask = np.full(rules.NUM_ACTIONS, self.idle_mask_value, dtype=np.int8)
        return {"observation": rules.observe(self.state_, seat), "action_mask": mask}

    def step(self, action):
        self._need_reset("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        index = action_index(action, rules.NUM_ACTIONS)
        if index is None or not self._mask[index]:
            if self.illegal_action == "raise":
                label = f"{index} ({self.action_names[index]})" if index is not None else repr(action)
                raise IllegalActionError(label, self.legal_action_names())
            self._forfeit(agent)
        else:
            self._play(index)
        self._steps += 1
        self._cumulative_rewards[agent] = 0.0
        if self.state_.phase == rules.OVER:
            self._finish()
        elif self._is_truncated():
            self._mask = self._legal_mask()  # no legal action once truncated
            self.truncations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = self._final_info(a)
        else:
            self.agent_selection = self.agents[self.state_.current]
        if self.render_mode == "human":
            self.render()

    def _play(self, action: int) -> None:
        """Apply the action, then every decision with exactly one legal action (``skip_forced``)."""
        state = rules.apply(self.state_, action)
        mask = rules.legal_mask(state)
        while self.skip_forced and np.count_nonzero(mask) == 1:
            state = rules.apply(state, int(mask.argmax()))
            mask = rules.legal_mask(state)
        self.state_, self._mask = state, mask

    def _forfeit(self, agent) -> None:
        self.state_ = rules.forfeit(self.state_, self._seat[agent])
        self._mask = rules.legal_mask(self.state_)

    def _out_of_cycles(self) -> bool:
        return self.max_cycles is not None and self._steps >= self.max_cycles * self._steps_per_cycle

    def _is_truncated(self) -> bool:
        """Stopped short of the end: after ``max_rounds`` rounds or ``max_cycles`` cycles."""
        return self.state_.phase != rules.OVER and (rules.is_truncated(self.state_) or self._out_of_cycles())

    def _legal_mask(self) -> np.ndarray:
        """The legal actions of the seat to play: the rules', and none once ``max_cycles`` is reached."""
        if self._out_of_cycles():
            return np.zeros(rules.NUM_ACTIONS, dtype=bool)
        return rules.legal_mask(self.state_)

    def _finish(self) -> None:
        """The game is over: everyone's reward, terminations and the result in every info."""
        for agent, reward in zip(self.possible_agents, rules.rewards(self.state_)):
            self.rewards[agent] = reward
            self.infos[agent] = self._final_info(agent)
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._deads_step_first()

    def _final_info(self, agent) -> dict:
        """``agent``'s info at the end: the keys of every info, now with the game's outcome for its seat."""
        outcome = rules.outcome(self.state_, self._seat[agent])
        if self._is_truncated():
            outcome["result"] = "truncated"
        return {**numeric_outcome(outcome, self.num_players),
                "illegal_action": np.bool_(self.state_.forfeited_by == self._seat[agent])}

    def render(self):
        if self.state_ is None:
            return None
        if self.render_mode == "rgb_array":
            return _draw_picture(self.state_)  # a spectator's view, as the text: blind reservations face down
        text = render.render_text(self.state_)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self):
        pass

    # ------------------------------------------------------------ checks

    def _need_reset(self, call: str) -> None:
        if self.state_ is None:
            raise ResetNeeded(f"call reset() before {call}()")

    def _agent(self, agent):
        """``agent`` if it is one of ``possible_agents``, else a ValueError listing them."""
        if agent not in self._seat:
            raise ValueError(f"agent must be one of {', '.join(self.possible_agents)}, got {agent!r}")
        return agent

    # ------------------------------------------------------------ the suite's extras

    def legal_action_names(self) -> list[str]:
        self._need_reset("legal_action_names")
        return [self.action_names[i] for i in np.flatnonzero(self._mask)]

    def action_mask(self, agent=None) -> np.ndarray:
        """The legal actions of ``agent`` (the one to act by default) as a bool array."""
        self._need_reset("action_mask")
        agent = self.agent_selection if agent is None else self._agent(agent)
        if self._seat[agent] != self.state_.current:
            return np.zeros(rules.NUM_ACTIONS, dtype=bool)
        return self._mask.copy()

    def describe(self, seat: int | None = None) -> dict:
        """The public table as a JSON-serialisable dict; ``seat=k``: as player k sees it."""
        self._need_reset("describe")
        check_seat(seat, self.num_players)
        table = rules.describe(self.state_, seat)
        if self._is_truncated():
            table["result"] = "truncated"
        return table

    def new_game(self, rng: np.random.Generator, options: dict):
        """A new game of this env's options, dealt with ``rng`` and the reset options."""
        return rules.new_game(rng, self.num_players, self.max_rounds, deck=options.get("deck"))

    def clone(self):
        """An independent copy of this env, its game, its random generator and the agents' bookkeeping.
        Privileged: it replays the hidden future exactly; a fair agent plans on ``determinize(rng)``."""
        other = super().clone()
        for name in ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations"):
            if hasattr(self, name):
                setattr(other, name, copy.copy(getattr(self, name)))
        if hasattr(self, "infos"):
            other.infos = copy.deepcopy(self.infos)
        return other

    def determinize(self, rng: np.random.Generator, seat: int | None = None):
        """A clone in which what ``seat`` (the agent to act by default) has not seen is resampled."""
        self._need_reset("determinize")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        check_seat(seat, self.num_players)
        seen_by = self.state_.current if seat is None else seat
        other = self._clone_playing(rules.determinize(self.state_, rng, seen_by), rng)
        # For another seat than the one to act, that player's own blind reservations were resampled too,
        # so what it may buy is the new table's.
        other._mask = other._legal_mask()
        return other

    game_attribute = "state_"  # PettingZoo's AECEnv has a state() of its own
    _option_fields = OPTION_FIELDS

    _BOOKKEEPING = ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
                    "agent_selection", "_skip_agent_selection", "_steps")

    def get_state(self) -> dict:
        """The full state (hidden parts included), the agents' bookkeeping and the random generator. Privileged:
        it replays the hidden future exactly; a fair agent plans on ``determinize(rng)``."""
        self._need_reset("get_state")
        saved = self._saved_game()
        for name in self._BOOKKEEPING:
            saved[name] = copy.deepcopy(getattr(self, name))
        return saved

    def set_state(self, saved: dict) -> None:
        """Restore what ``get_state`` returned (also into a fresh env); the whole input is checked first."""
        self._check_saved(saved)
        self._restore_game(saved)
        for name in self._BOOKKEEPING:
            setattr(self, name, copy.deepcopy(saved[name]))
        self._mask = self._legal_mask()

    def _check_saved(self, saved) -> None:
        """A TypeError or ValueError saying what is wrong with a ``set_state`` input, before anything is assigned."""
        if not isinstance(saved, dict):
            raise TypeError(f"set_state takes the dict get_state() returns, got {type(saved).__name__}")
        missing = [key for key in ("game", "rng") if key not in saved]
        if missing:
            raise ValueError(f"set_state's dict lacks {' and '.join(map(repr, missing))} (it takes what get_state() "
                             f"returns: game, rng and the agents' bookkeeping)")
        self._check_saved_game(saved)
        check_game_numbers(saved["game"])
        self._check_bookkeeping(saved)

    def _check_bookkeeping(self, saved: dict) -> None:
        """The agents' part of a ``set_state`` input: PettingZoo's dicts over the agents, and whose turn it is."""
        missing = [key for key in self._BOOKKEEPING if key not in saved]
        if missing:
            raise ValueError(f"set_state's dict lacks the agents' bookkeeping {', '.join(map(repr, missing))} (it "
                             f"takes what this env's get_state() returns)")
        agents = saved["agents"]
        if (not isinstance(agents, list) or len(set(agents)) != len(agents)
                or not all(isinstance(a, str) and a in self._seat for a in agents)):
            raise ValueError(f"saved['agents'] must be a list of distinct agents among "
                             f"{', '.join(self.possible_agents)}, got {agents!r}")
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
            value = saved[name]
            if not isinstance(value, dict) or set(value) != set(agents):
                raise ValueError(f"saved[{name!r}] must be a dict over the agents {agents}, got {value!r}")
        for name in ("agent_selection", "_skip_agent_selection"):
            value = saved[name]
            known = isinstance(value, str) and value in self._seat
            if not (known or (value is None and name == "_skip_agent_selection")):
                raise ValueError(f"saved[{name!r}] must be one of {', '.join(self.possible_agents)}, got {value!r}")
        if not is_integer(saved["_steps"]) or saved["_steps"] < 0:
            raise ValueError(f"saved['_steps'] must be an integer >= 0, got {saved['_steps']!r}")
        game = saved["game"]
        running = game.phase != rules.OVER and not rules.is_truncated(game) and not any(saved["truncations"].values())
        if running and agents and saved["agent_selection"] != self.possible_agents[game.current]:
            raise ValueError(f"saved['agent_selection'] is {saved['agent_selection']!r}, but the game is at "
                             f"player_{game.current}'s decision")


def env(**kwargs):
    """The AEC env as PettingZoo's classic games return it, with only the order-enforcing wrapper
    (illegal actions are handled by the env itself: the stack stays thin)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(*, max_cycles: int | None = None, **kwargs):
    """The turn-based parallel view (one agent acts per step; the others' actions are ignored, and their masks
    are all ones, so that a masked sampler draws for them too). One of its steps is one agent's, so here a cycle is
    one step: ``max_cycles=k`` truncates the game after k steps. Each agent's info says ``on_turn`` (a bool, from
    reset on) where PettingZoo's own conversion adds the string ``active_agent``."""
    aec = raw_env(max_cycles=max_cycles, **kwargs)
    aec._steps_per_cycle = 1
    aec.idle_mask_value = 1
    return TurnBasedParallelEnv(aec)
