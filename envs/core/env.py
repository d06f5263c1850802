"""The Gymnasium side of the contract every single-agent game keeps (see DESIGN.md).

A game's ``env.py`` subclasses ``TabletopEnv``, points ``rules`` at its rules module (and ``features`` at its
features module, where it has observation="features" or "actions") and deals a game of its options in
``new_game``. Everything else is here once: spaces, action names and masks, skip-forced stepping, illegal actions,
rewards, info, rendering, cloning.

A rules module provides ``ACTION_NAMES``, ``RESULT_NAMES`` (the results ``outcome`` names, ``"playing"`` first:
the info holds a result as its index), ``OBSERVATION_LOW`` / ``OBSERVATION_HIGH``,
``legal_mask(s)``, ``apply(s, action, rng)``, ``play(s, action, rng, skip_forced)`` (the step: the action and
the forced moves after it, giving the state and its mask), ``observe(s)``, ``is_over(s)``, ``outcome(s)`` (a dict
with ``won`` and ``score``), ``forfeit(s)``, ``describe(s)`` and ``determinize(s, rng)``; optionally
``is_truncated(s)``. Its render module provides ``render_text(s)`` and its picture module ``draw(s)`` (the
``rgb_array`` image, imported only when one is drawn).
"""

from __future__ import annotations

import copy
from importlib import import_module
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .errors import EpisodeOverError, IllegalActionError
from .state import check_saved_game

REWARDS = ("win", "score")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
_MISSING = object()


def observation_modes(features: ModuleType | None) -> list:
    """``"plain"``; ``"features"`` where a game's ``features`` module (None: it has none) computes features from
    the plain observation; ``"actions"`` where it also describes what each action would leave (the features if
    any, then ``action_features``)."""
    return (["plain"] + ["features"] * hasattr(features, "features")
            + ["actions"] * hasattr(features, "action_features"))


def observation_size(rules: ModuleType, features: ModuleType | None, mode: str) -> int:
    """The length of an observation in ``mode`` (one of ``observation_modes(features)``)."""
    return (rules.OBSERVATION_SIZE + getattr(features, "FEATURE_SIZE", 0) * (mode != "plain")
            + getattr(features, "ACTION_FEATURE_SIZE", 0) * (mode == "actions"))


def with_features(features: ModuleType | None, mode: str, observations: np.ndarray) -> np.ndarray:
    """Plain observations (..., n) as an env in ``mode`` shows them: the game's ``features`` appended for
    ``"features"``, and its ``action_features`` after those for ``"actions"``."""
    if mode == "plain":
        return observations
    parts = [observations, features.features(observations)] if hasattr(features, "features") else [observations]
    if mode == "actions":
        parts.append(features.action_features(observations))
    return np.concatenate(parts, axis=-1)


def check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def check_reset_options(options, known) -> dict:
    """The reset options as a new dict: None or a dict of the options ``known`` names, else a clear error."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict of reset options (this game takes: {', '.join(known)}), "
                        f"got {options!r}")
    unknown = sorted(set(options) - set(known), key=repr)
    if unknown:
        raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
                         f"this game takes: {', '.join(known)}")
    return dict(options)


def check_generator_state(saved, generator) -> None:
    """``saved`` must be a bit-generator state the type of ``generator`` (a ``np.random.Generator``, or None for
    Gymnasium's default, PCG64) accepts: tried on a throwaway bit generator, so nothing is changed."""
    kind = type(generator.bit_generator) if generator is not None else np.random.PCG64
    if not isinstance(saved, dict):
        raise TypeError(f"the saved 'rng' must be a {kind.__name__} bit-generator state (a dict, as "
                        f"np_random.bit_generator.state gives), got {type(saved).__name__}")
    if saved.get("bit_generator") != kind.__name__:
        raise ValueError(f"the saved 'rng' must be a {kind.__name__} bit-generator state, "
                         f"got one of {saved.get('bit_generator')!r}")
    try:
        kind().state = copy.deepcopy(saved)
    except (TypeError, ValueError, KeyError) as error:
        raise ValueError(f"the saved 'rng' is not a valid {kind.__name__} state: {error}") from None


def remember(owner, names) -> dict:
    """What ``names`` hold on ``owner``, to be put back by ``put_back`` if a call fails half-way. Attributes are
    kept by reference (a call that changes them replaces them), generators with their state too (drawing from
    one changes it in place)."""
    kept = {}
    for name in names:
        value = getattr(owner, name, _MISSING)
        state = value.bit_generator.state if isinstance(value, np.random.Generator) else None
        kept[name] = (value, state)
    return kept


def put_back(owner, kept: dict) -> None:
    for name, (value, state) in kept.items():
        if value is _MISSING:
            owner.__dict__.pop(name, None)
            continue
        if state is not None:
            value.bit_generator.state = state
        setattr(owner, name, value)


def need_pillow(render_mode) -> None:
    """Without Pillow, an env built for pictures fails at once, naming the extra to install, not at its
    first render. Importing the drawing primitives is what needs Pillow."""
    if render_mode == "rgb_array":
        import_module(".picture", __package__)


def picture_hook(package: str):
    """The ``draw`` of a game's picture module, imported at the first picture: the other render modes
    (and importing the env) never load Pillow."""
    def draw_picture(*args):
        return import_module(".picture", package).draw(*args)
    return draw_picture


class HoldsOneGame:
    """What an env holding one game does with it for search and for saving, written once for ``TabletopEnv`` and a
    multi-player game's AEC env: the game (in the attribute ``game_attribute`` names), its legal mask (``_mask``)
    and the env's random generator (``_np_random``) are copied, resampled, saved and checked together. The env
    deals a new game of its options with ``new_game(rng, options)``."""

    game_attribute = "state"
    # State fields the env's own options fix (a variant's setting): a saved game must hold the env's values.
    _option_fields: tuple[str, ...] = ()
    _saved_template = None  # a new game of this env, what a saved game is checked against: dealt once

    def clone(self):
        """An independent copy of this env, its game and its random generator.

        Privileged: the copy holds the full state (the deck's order, the face-down cards) and the same generator,
        so it replays the hidden future exactly. It is for saving and testing; a fair agent plans on
        ``determinize(rng)`` instead.
        """
        other = copy.copy(self)
        game = getattr(self, self.game_attribute)
        setattr(other, self.game_attribute, game.copy() if game is not None else None)
        other._mask = self._mask.copy() if self._mask is not None else None
        other._np_random = copy.deepcopy(self._np_random)
        return other

    def _clone_playing(self, game, rng: np.random.Generator):
        """A clone playing ``game`` (this env's game with what a player has not seen resampled with ``rng``), not
        shown, with a generator of its own drawn from ``rng``: the clone must not replay this env's future dice or
        shuffles either."""
        other = self.clone()
        other.render_mode = None  # a simulated future is not shown
        setattr(other, self.game_attribute, game)
        other._np_random = np.random.default_rng(rng.integers(2**63))
        return other

    def _saved_game(self) -> dict:
        """The game (hidden parts included) and the random generator's state, as ``get_state`` returns them."""
        return {"game": getattr(self, self.game_attribute).copy(),
                "rng": copy.deepcopy(self.np_random.bit_generator.state)}

    def _check_saved_game(self, saved: dict) -> None:
        """Raise a TypeError or ValueError naming what is wrong unless ``saved["game"]`` is a game of this env (the
        fields, their types and shapes of a new game of it, and the values its options fix) and ``saved["rng"]``
        a state of its kind of bit generator."""
        if self._saved_template is None:
            self._saved_template = self.new_game(np.random.default_rng(0), {})
        check_saved_game(saved["game"], self._saved_template, self._option_fields)
        check_generator_state(saved["rng"], self._np_random)

    def _restore_game(self, saved: dict) -> None:
        """Go on from the checked ``saved`` game and generator state (the caller sets the mask)."""
        setattr(self, self.game_attribute, saved["game"].copy())
        self.np_random.bit_generator.state = copy.deepcopy(saved["rng"])


class TabletopEnv(HoldsOneGame, gym.Env):
    """Base class of the single-agent games. Subclasses set ``rules``, ``render_text`` and ``draw_picture``.

    ``state`` is the game as the rules hold it, privileged like ``clone()`` and ``get_state()``: the full state,
    the deck's order included, so that with the env's generator it replays the hidden future exactly. A fair agent
    reads the observation, the mask and ``describe()``, and plans on ``determinize(rng)``.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}
    rules: ModuleType
    # The game's observation features (``envs/<game>/features.py``), where it has observation="features"/"actions".
    features: ModuleType | None = None
    render_text: staticmethod
    draw_picture: staticmethod
    reset_options: tuple[str, ...] = ("deck",)
    # What reset may change, put back as it was when reset raises (a refused deck or option changes nothing).
    _reset_keeps: tuple[str, ...] = ("state", "_mask", "_np_random", "_np_random_seed")

    def __init__(self, render_mode=None, *, skip_forced=True, reward="win", illegal_action="terminate",
                 observation="plain"):
        check_choice("render_mode", render_mode, [None, *self.metadata["render_modes"]])
        check_choice("reward", reward, REWARDS)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        check_choice("observation", observation, observation_modes(self.features))
        if not isinstance(skip_forced, bool):
            raise ValueError(f"skip_forced must be True or False, got {skip_forced!r}")
        need_pillow(render_mode)
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.action_names = list(self.rules.ACTION_NAMES)
        self.action_space = spaces.Discrete(len(self.action_names))
        self.observation_mode = observation
        low, high = self.rules.OBSERVATION_LOW, self.rules.OBSERVATION_HIGH
        if observation in ("features", "actions") and hasattr(self.features, "features"):
            low = np.concatenate([low, np.zeros(self.features.FEATURE_SIZE, dtype=np.float32)])
            high = np.concatenate([high, self.features.FEATURE_HIGH])
        if observation == "actions":  # each field in [0, 1] unless the features module gives its bounds
            size = self.features.ACTION_FEATURE_SIZE
            low = np.concatenate([low, getattr(self.features, "ACTION_FEATURE_LOW", np.zeros(size, dtype=np.float32))])
            high = np.concatenate([high, getattr(self.features, "ACTION_FEATURE_HIGH",
                                                 np.ones(size, dtype=np.float32))])
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.state = None
        self._mask = None
        self._blank = None  # the info's outcome keys before the end, read at the first reset
        # The rules' limit, looked up once (a missing attribute of a module costs an exception at every step).
        self._truncation = getattr(self.rules, "is_truncated", None)

    # ------------------------------------------------------------ the game's hooks

    def new_game(self, rng: np.random.Generator, options: dict):
        """A new game of this env's options, dealt with ``rng`` and the reset options: what ``reset`` starts, what
        the vector env deals into its rows, and what a saved game is checked against."""
        raise NotImplementedError

    def _new_state(self, options: dict):
        """The first state of an episode, from ``self.np_random`` and the reset options (a game with seats for
        other players seats them here too)."""
        return self.new_game(self.np_random, options)

    def _is_truncated(self, state) -> bool:
        check = self._truncation
        return check is not None and bool(check(state))

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = check_reset_options(options, self.reset_options)
        kept = remember(self, self._reset_keeps)
        try:
            super().reset(seed=seed)
            self.state = self._new_state(options)
            self._mask = self.rules.legal_mask(self.state)
            info = self._info()
        except BaseException:
            put_back(self, kept)  # a refused reset changes nothing: not the game, not the generator
            raise
        if self.render_mode == "human":
            self.render()
        return self.observe(self.state), info

    def observe(self, state) -> np.ndarray:
        """The observation of ``state`` in this env's ``observation`` mode."""
        return self.with_features(self.rules.observe(state))

    def with_features(self, observations: np.ndarray) -> np.ndarray:
        """Plain observations (..., n) as this env shows them, in its ``observation`` mode (the vector env calls
        this on its batched observations)."""
        return with_features(self.features, self.observation_mode, observations)

    def step(self, action):
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._episode_over():
            raise EpisodeOverError("the episode is over; call reset() to start a new one")
        index = self._action_index(action)
        illegal = index is None or not self._mask[index]
        if illegal and self.illegal_action == "raise":
            raise IllegalActionError(self._action_label(action, index), self.legal_action_names())
        if illegal:
            self.state = self.rules.forfeit(self.state)
            self._mask = self.rules.legal_mask(self.state)
        else:
            self.state, self._mask = self._play(self.state, index)
        terminated = bool(self.rules.is_over(self.state))
        truncated = not terminated and self._is_truncated(self.state)
        info = self._info(terminated or truncated, illegal)
        reward = 0.0
        if terminated:
            reward = self._final_reward(info)
        if self.render_mode == "human":
            self.render()
        return self.observe(self.state), reward, terminated, truncated, info

    def _play(self, state, action: int):
        """Apply ``action``, then every forced move after it (``skip_forced``); the new state and its mask."""
        return self.rules.play(state, action, self.np_random, self.skip_forced)

    def _action_index(self, action) -> int | None:
        """The action as an index into ``action_names``, or None if it is not one: an integer (Python's or numpy's,
        not a bool) in range. A float is not one, a whole one included, as Gymnasium's ``Discrete.contains`` has it
        (and as the vector env reads each entry of its action array)."""
        if type(action) is int or type(action) is np.int64:  # the common cases, decided at once
            return int(action) if 0 <= action < len(self.action_names) else None
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = action.reshape(()).item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            return None
        index = int(action)
        return index if 0 <= index < len(self.action_names) else None

    def _action_label(self, action, index):
        return f"{index} ({self.action_names[index]})" if index is not None else repr(action)

    def _episode_over(self) -> bool:
        return bool(self.rules.is_over(self.state)) or self._is_truncated(self.state)

    def _info(self, over: bool | None = None, illegal: bool = False) -> dict[str, Any]:
        """The step's info, numbers only and the same keys on every reset and step (what buffers that stack
        infos need): the mask, the outcome keys (zeros until the episode ends, then the game's outcome with
        ``result`` as its code in ``RESULT_NAMES``) and ``illegal_action``. ``over``: whether the episode is over,
        when the caller knows it already."""
        over = self._episode_over() if over is None else over
        outcome = self.numeric_outcome() if over else self._blank_outcome()
        mask = np.ones(len(self._mask), dtype=np.int8) if over else self._mask.astype(np.int8)  # as _shown_mask
        return {"action_mask": mask, **outcome, "illegal_action": np.bool_(illegal)}

    def numeric_outcome(self) -> dict[str, Any]:
        """``outcome()`` as the info holds it: numpy numbers and arrays, ``result`` as its code in
        ``RESULT_NAMES``. Read off the rules' ``outcomes`` of this one game where they have it (the arrays a vector
        env's infos hold, which ``outcome()`` turns into Python's values: quicker than the way back)."""
        outcomes = getattr(self.rules, "outcomes", None)
        if outcomes is not None:
            return {key: values[0] for key, values in outcomes(self.state.data[None]).items()}
        outcome = {key: np.asarray(value)[()] for key, value in self.outcome().items()}
        outcome["result"] = np.int64(self.RESULT_NAMES.index(outcome["result"]))
        return outcome

    def _blank_outcome(self) -> dict[str, Any]:
        """The outcome keys as the info holds them before the end: each a zero of its dtype and shape (read once,
        from the first game, as the vector env reads its columns)."""
        if self._blank is None:
            self._blank = {key: np.zeros_like(value)[()] for key, value in self.numeric_outcome().items()}
            self._blank_arrays = [key for key, value in self._blank.items() if isinstance(value, np.ndarray)]
        # numpy scalars are immutable: only arrays (a seat's points) are copied. (A copy of the dict and then of its
        # arrays, which a solitaire has none of, takes a seventh of a comprehension's time: half a microsecond of
        # every step.)
        blank = dict(self._blank)
        for key in self._blank_arrays:
            blank[key] = blank[key].copy()
        return blank

    def _shown_mask(self, over: bool) -> np.ndarray:
        """The mask ``action_masks()`` and the info show: the legal actions, and all ones once the episode is over.
        No action is taken then (a step raises ``EpisodeOverError``), but a masked sampler that meets a row of zeros
        gives NaN; so a finished game offers every action, as a finished row of the vector env does."""
        return np.ones_like(self._mask) if over else self._mask.copy()

    def _final_reward(self, info) -> float:
        if self.reward_mode == "score":
            return float(info["score"])
        return 1.0 if info["won"] else 0.0

    def render(self):
        if self.state is None:
            return None
        if self.render_mode == "rgb_array":
            return self.draw_picture(self.state)
        text = self.render_text(self.state)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    # ------------------------------------------------------------ the contract's extras

    def action_masks(self) -> np.ndarray:
        """Legal actions as a bool array (the method sb3-contrib's MaskablePPO calls); all ones once the episode is
        over (see ``_shown_mask``)."""
        if self._mask is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self._shown_mask(self._episode_over())

    def legal_action_names(self) -> list[str]:
        """The names of the legal actions (none once the episode is over)."""
        if self._mask is None:
            raise gym.error.ResetNeeded("call reset() before legal_action_names()")
        return [self.action_names[i] for i in np.flatnonzero(self._mask)]

    def describe(self) -> dict:
        """The public table as a JSON-serialisable dict."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before describe()")
        return self.rules.describe(self.state)

    @property
    def RESULT_NAMES(self) -> tuple[str, ...]:
        """The names of the codes ``info["result"]`` holds: ``RESULT_NAMES[info["result"]]`` is the result by name,
        as ``outcome()["result"]`` gives it (the vector env's ``RESULT_NAMES`` are the same)."""
        return tuple(self.rules.RESULT_NAMES)

    def outcome(self) -> dict:
        """The game's result as it stands (``won``, ``score`` and the game's extras, ``result`` by name), also
        mid-game."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before outcome()")
        return self.rules.outcome(self.state)

    def determinize(self, rng: np.random.Generator):
        """A clone in which everything the player has not seen is resampled with ``rng``.

        Search agents plan on such clones: they agree with every observation so far, so a plan
        cannot use hidden information.
        """
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before determinize()")
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {rng!r}")
        return self._clone_playing(self.rules.determinize(self.state, rng), rng)

    def get_state(self) -> dict:
        """The full state (hidden parts included) and the random generator's state.

        Privileged: it holds the deck's order, the face-down cards and every future draw and roll, so it replays
        the hidden future exactly. It is for saving and restoring (``set_state``); a fair agent sees only the
        observation, the mask and ``describe()``, and plans on ``determinize(rng)``.
        """
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before get_state()")
        return self._saved_game()

    def set_state(self, saved: dict) -> None:
        """Go on from ``saved`` (what ``get_state()`` returned, here or in another env of this game and options).
        The whole input is checked first, and a bad one is refused with the env left as it was."""
        self._check_saved(saved)
        # The mask may still refuse a game whose values make no sense, before any change.
        mask = self.rules.legal_mask(saved["game"])
        self._restore_game(saved)
        self._mask = mask

    def _check_saved(self, saved) -> None:
        """Raise a TypeError or ValueError naming what is wrong if ``saved`` is not a state of this env: a dict
        with ``game`` (this game's State, every field of the type, shape and dtype a new game of this env has,
        and the values this env's options fix) and ``rng`` (a state of this env's kind of bit generator)."""
        if not isinstance(saved, dict):
            raise TypeError(f"set_state takes what get_state() returns, a dict with 'game' and 'rng', "
                            f"got {type(saved).__name__}")
        missing = [key for key in ("game", "rng") if key not in saved]
        if missing:
            raise ValueError(f"the saved state has no {' and no '.join(map(repr, missing))}: set_state takes what "
                             "get_state() returns, a dict with 'game' and 'rng'")
        self._check_saved_game(saved)
        if hasattr(saved["game"], "check_values"):
            saved["game"].check_values()  # compiled rules do not check an index before they use it
