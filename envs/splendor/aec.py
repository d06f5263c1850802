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
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ..core.env import ILLEGAL_ACTION_MODES, check_choice, need_pillow, picture_hook
from ..core.errors import IllegalActionError
from . import render, rules

RESET_OPTIONS = ("deck",)
_draw_picture = picture_hook(__package__)


def check_options(num_players, max_rounds, skip_forced, illegal_action, render_mode, render_modes) -> None:
    """The constructor options both Splendor envs share, with a clear ValueError for a bad one."""
    check_choice("render_mode", render_mode, [None, *render_modes])
    check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
    if not isinstance(skip_forced, bool):
        raise ValueError(f"skip_forced must be True or False, got {skip_forced!r}")
    if isinstance(num_players, bool) or num_players not in range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise ValueError(f"max_rounds must be an integer >= 1, got {max_rounds!r}")


def action_index(action, num_actions: int):
    """The action as an index, or None if it is not one (None, a float, a bool, out of range)."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
        action = action.reshape(()).item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return None
    index = int(action)
    return index if 0 <= index < num_actions else None


class raw_env(AECEnv):
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
    `rules.OBSERVATION_FIELDS` names every entry. The mask is all zeros for agents not on turn.

    ## Rewards

    At the end, +1 to each winner and -1 to every other player; 0 to everyone on truncation. An
    illegal action (default mode) ends the game with -1 for the offender and 0 for the others.

    ## Episode End

    Terminated when the round in which someone reached 15 points is complete, after n passes in a
    row, or on an illegal action. Truncated after `max_rounds` rounds.

    ## Arguments

    ```python
    from tabletop_gym.envs import splendor_v0
    env = splendor_v0.env(num_players=2, render_mode=None, skip_forced=True,
                          illegal_action="terminate", max_rounds=100)
    env.reset(seed=0, options={"deck": {"tier1": [...], "nobles": [...]}})
    ```

    `render_mode`: `"ansi"` returns the table as text, `"human"` prints it at every step, `"rgb_array"`
    returns a picture of it as a spectator sees it (blind reservations face down), a `uint8` array of shape
    (610, 1000, 3) for any number of players (needs the `render` extra, Pillow).

    ## Version History

    * v0: first version.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "name": "splendor_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, render_mode=None, *, skip_forced: bool = True,
                 illegal_action: str = "terminate", max_rounds: int = rules.DEFAULT_MAX_ROUNDS):
        super().__init__()
        check_options(num_players, max_rounds, skip_forced, illegal_action, render_mode, self.metadata["render_modes"])
        need_pillow(render_mode)
        self.num_players = num_players
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.illegal_action = illegal_action
        self.max_rounds = int(max_rounds)
        self.action_names = list(rules.ACTION_NAMES)
        self.possible_agents = [f"player_{k}" for k in range(num_players)]
        self._seat = {agent: k for k, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(rules.OBSERVATION_LOW, rules.OBSERVATION_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (rules.NUM_ACTIONS,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(rules.NUM_ACTIONS) for agent in self.possible_agents}
        self.state_ = None
        self._mask = None
        self._np_random = None

    # ------------------------------------------------------------ PettingZoo API

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, _ = seeding.np_random()
        return self._np_random

    def reset(self, seed=None, options=None):
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            # PettingZoo's own API test passes an unknown option, so it is ignored, not refused.
            warnings.warn(f"unknown reset option(s) {', '.join(map(repr, unknown))} ignored; "
                          f"this game takes: {', '.join(RESET_OPTIONS)}", stacklevel=2)
        self.state_ = rules.new_game(self.np_random, self.num_players, self.max_rounds, deck=options.get("deck"))
        self._mask = rules.legal_mask(self.state_)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.state_.current]
        self._skip_agent_selection = None  # PettingZoo's marker while finished agents are stepped out
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        seat = self._seat[agent]
        if seat == self.state_.current:
            mask = self._mask.astype(np.int8)
        else:
            mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
        return {"observation": rules.observe(self.state_, seat), "action_mask": mask}

    def step(self, action):
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
        self._cumulative_rewards[agent] = 0.0
        if self.state_.phase == rules.OVER:
            self._finish()
        elif rules.is_truncated(self.state_):
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

    def _finish(self) -> None:
        """The game is over: everyone's reward, terminations and the result in every info."""
        for agent, reward in zip(self.possible_agents, rules.rewards(self.state_)):
            self.rewards[agent] = reward
            self.infos[agent] = self._final_info(agent)
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._deads_step_first()

    def _final_info(self, agent) -> dict:
        info = rules.outcome(self.state_, self._seat[agent])
        if self.state_.forfeited_by == self._seat[agent]:
            info["illegal_action"] = True
        return info

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

    # ------------------------------------------------------------ the suite's extras

    def legal_action_names(self) -> list[str]:
        return [self.action_names[i] for i in np.flatnonzero(self._mask)]

    def action_mask(self, agent=None) -> np.ndarray:
        """The legal actions of ``agent`` (the one to act by default) as a bool array."""
        agent = self.agent_selection if agent is None else agent
        if self._seat[agent] != self.state_.current:
            return np.zeros(rules.NUM_ACTIONS, dtype=bool)
        return self._mask.copy()

    def describe(self, seat: int | None = None) -> dict:
        """The public table as a JSON-serialisable dict; ``seat=k``: as player k sees it."""
        return rules.describe(self.state_, seat)

    def clone(self):
        """An independent copy of this env, its game and its random generator (for search)."""
        other = copy.copy(self)
        other.state_ = self.state_.copy() if self.state_ is not None else None
        other._mask = self._mask.copy() if self._mask is not None else None
        other._np_random = copy.deepcopy(self._np_random)
        for name in ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations"):
            if hasattr(self, name):
                setattr(other, name, copy.copy(getattr(self, name)))
        if hasattr(self, "infos"):
            other.infos = copy.deepcopy(self.infos)
        return other

    def determinize(self, rng: np.random.Generator, seat: int | None = None):
        """A clone in which what ``seat`` (the agent to act by default) has not seen is resampled."""
        other = self.clone()
        other.render_mode = None  # a simulated future is not shown
        other.state_ = rules.determinize(self.state_, rng, self.state_.current if seat is None else seat)
        other._np_random = np.random.default_rng(rng.integers(2**63))
        return other

    _BOOKKEEPING = ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
                    "agent_selection", "_skip_agent_selection")

    def get_state(self) -> dict:
        """The full state (hidden parts included), the agents' bookkeeping and the random generator."""
        saved = {"game": self.state_.copy(), "rng": copy.deepcopy(self.np_random.bit_generator.state)}
        for name in self._BOOKKEEPING:
            saved[name] = copy.deepcopy(getattr(self, name))
        return saved

    def set_state(self, saved: dict) -> None:
        self.state_ = saved["game"].copy()
        self.np_random.bit_generator.state = copy.deepcopy(saved["rng"])
        for name in self._BOOKKEEPING:
            setattr(self, name, copy.deepcopy(saved[name]))
        self._mask = rules.legal_mask(self.state_)


def env(**kwargs):
    """The AEC env as PettingZoo's classic games return it, with only the order-enforcing wrapper
    (illegal actions are handled by the env itself: the stack stays thin)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs):
    """The turn-based parallel view (one agent acts per step; the others' actions are ignored)."""
    return turn_based_aec_to_parallel(raw_env(**kwargs))
