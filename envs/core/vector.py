"""The Gymnasium side of the batched games: N games of one solitaire (or of Splendor's single-agent view)
advanced together.

A game's ``vector.py`` subclasses ``TabletopVectorEnv``, naming its single env class (``single_env``) and its
batched rules module (``batch``). The state of N games is a ``Batch``: every field of the game's ``State`` with a
leading axis of N. New games are dealt by the single env's own code, one row at a time with that row's own random
generator, so that row i of a vector env seeded with s plays exactly the game a single env seeded with s + i
plays; every step after that is array operations over the rows.

A batched rules module provides ``legal_masks(b) -> (N, n) bool``, ``apply(b, actions, rows, rngs)`` (rows: a bool
mask of the games that take their action; in place), ``observe(b) -> (N, d) float32``, ``is_over(b) -> (N,) bool``,
``outcome(b, rows) -> dict`` (the single env's outcome keys, each an array over ``rows``) and ``forfeit(b, rows)``;
optionally ``is_truncated(b)``, ``deal(b, rows, rngs, options)`` (see ``TabletopVectorEnv._deal``) and
``play_forced(b, rows, rngs)`` (see ``TabletopVectorEnv._play_forced``). Each function does what the scalar function
of the same name in ``rules.py`` does, and ``tests/test_vector.py`` holds the two together, step by step.

A game played against scripted opponents (Splendor's single-agent view) sets ``batch`` to an object that fills in
each game's learner seat where its batched rules take a seat (``observe``, ``outcome``, ``forfeit``), and overrides
three hooks: ``_deal`` (the learner's seat, then the opponents before it), ``_play_on`` (after the learner's action,
the opponents' moves until the learner decides again) and ``_final_rewards`` (its +1 / -1).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .errors import IllegalActionError
from .state import ArrayState

SCALAR_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)


class Batch:
    """N game states as one: each field of a ``State`` with a leading axis of N."""

    def __init__(self, template: ArrayState, n: int):
        self.n = n
        self._type = type(template)
        self._scalars = {}  # field -> the Python type it has in a single State
        for name, value in vars(template).items():
            if isinstance(value, np.ndarray):
                setattr(self, name, np.zeros((n, *value.shape), dtype=value.dtype))
            elif isinstance(value, SCALAR_TYPES):
                self._scalars[name] = type(value)
                setattr(self, name, np.zeros(n, dtype=np.asarray(value).dtype))
            else:
                raise TypeError(f"{type(template).__name__}.{name} is a {type(value).__name__}: "
                                f"a batched state holds numbers and arrays only")
        self._fields = tuple(vars(template))

    def put(self, row: int, state: ArrayState) -> None:
        """Write a single game's state into row ``row``."""
        for name in self._fields:
            getattr(self, name)[row] = getattr(state, name)

    def put_many(self, rows: np.ndarray, states: list) -> None:
        """Write ``states[k]`` into row ``rows[k]``, a field at a time."""
        for name in self._fields:
            getattr(self, name)[rows] = [getattr(state, name) for state in states]

    def put_same(self, rows: np.ndarray, state: ArrayState) -> None:
        """Write one state into every row of ``rows``."""
        for name in self._fields:
            getattr(self, name)[rows] = getattr(state, name)

    def view(self, rows: np.ndarray) -> "BatchRows":
        """The games ``rows`` (indices) as a smaller batch to read from: what is looked at is copied out."""
        return BatchRows(self, rows)

    def take(self, row: int) -> ArrayState:
        """Row ``row`` as a single game's state (a copy)."""
        state = object.__new__(self._type)
        for name in self._fields:
            value = getattr(self, name)[row]
            setattr(state, name, self._scalars[name](value) if name in self._scalars else value.copy())
        return state


class BatchRows:
    """Some rows of a ``Batch``, read-only: each field read is that field at those rows."""

    def __init__(self, batch: Batch, rows: np.ndarray):
        self._batch, self._rows = batch, rows
        self.n = len(rows)

    def __getattr__(self, name: str):
        return getattr(self._batch, name)[self._rows]


class TabletopVectorEnv(VectorEnv):
    """N games of one solitaire, stepped together on batched state, with next-step autoreset.

    Takes the single env's keyword options (``skip_forced``, ``reward``, ``illegal_action`` and the game's own)
    and its reset options (a stacked ``deck`` deals that deck to every game that ``reset`` starts; the games that
    start over after an end are dealt as by a single env's ``reset()`` without options). ``reset(seed=s)``
    seeds game i with s + i. After a game ends, the next ``step`` starts a new one in its row (its action is
    ignored) and returns that game's first observation with reward 0: Gymnasium's ``NEXT_STEP`` autoreset.
    ``infos["action_mask"]`` and ``action_masks()`` give the legal actions of every game, shape (N, n).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    single_env: type
    batch: Any

    def __init__(self, num_envs: int = 1, **options):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if options.get("render_mode") is not None:
            raise ValueError("the vector env does not render; make a single env with render_mode to watch a game")
        options.pop("render_mode", None)
        # One single env checks the options and deals every new game, so a deal is the single env's deal.
        self._set_up(int(num_envs), self.single_env(**options))

    @classmethod
    def like(cls, env, num_envs: int) -> "TabletopVectorEnv":
        """``num_envs`` games with the options of the single env ``env`` (a game's own, ``skip_forced``, ``reward``),
        to be started with ``load``: how a search plays many sampled worlds out at once."""
        vector = cls.__new__(cls)
        dealer = env.unwrapped.clone()
        dealer.render_mode = None
        vector._set_up(int(num_envs), dealer)
        return vector

    def _set_up(self, num_envs: int, dealer) -> None:
        self.num_envs = num_envs
        self._dealer = dealer
        self.skip_forced = self._dealer.skip_forced
        self.reward_mode = self._dealer.reward_mode
        self.illegal_action = self._dealer.illegal_action
        self.action_names = self._dealer.action_names
        self.single_observation_space = self._dealer.observation_space
        self.single_action_space = self._dealer.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.single_action_space.n))
        self.render_mode = None
        self.spec = None
        self.state: Batch | None = None
        self._rngs: list[np.random.Generator] = []
        self._mask = None
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        self._check_reset_options(options)
        rows = np.ones(self.num_envs, dtype=bool) if reset_mask is None else self._rows(reset_mask, "reset_mask")
        if self.state is None and not rows.all():
            raise ValueError("the first reset() must reset every game (no reset_mask)")
        generators = list(self._rngs)
        self._seed(seed, rows)
        try:
            self._deal(rows, options)
        except ValueError:
            self._rngs = generators  # a bad option (a wrong deck) changes nothing
            raise
        self._needs_reset[rows] = False
        self._mask = self.batch.legal_masks(self.state)
        return self.batch.observe(self.state), self._infos(np.zeros(self.num_envs, dtype=bool), {})

    def step(self, actions):
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        actions, valid = self._actions(actions)
        starting = self._needs_reset.copy()
        playing = ~starting
        illegal = playing & ~(valid & self._mask[np.arange(self.num_envs), actions])
        if illegal.any() and self.illegal_action == "raise":
            self._raise_illegal(int(np.flatnonzero(illegal)[0]), actions, valid)
        taking = playing & ~illegal
        if illegal.any():
            self.batch.forfeit(self.state, illegal)
        self.batch.apply(self.state, actions, taking, self._rngs)
        self._play_on(taking)
        if starting.any():
            self._deal(starting, {})  # as a single env's reset() with no options
        self._mask = self.batch.legal_masks(self.state)
        over = self.batch.is_over(self.state)
        terminated = over & playing
        truncated = ~over & playing & self._truncated()
        ended = terminated | truncated
        outcome = self.batch.outcome(self.state, ended) if ended.any() else {}
        infos = self._infos(ended, outcome)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        if terminated.any():
            rewards[terminated] = self._final_rewards(outcome)[terminated[ended]]
        if illegal.any():
            infos["illegal_action"], infos["_illegal_action"] = illegal.copy(), illegal.copy()
        self._needs_reset = ended
        return self.batch.observe(self.state), rewards, terminated, truncated, infos

    def load(self, states: list, generators: list):
        """Start game i from ``states[i]``, a single env's state (a saved game, a search's sampled world), with
        ``generators[i]`` as its random generator. Returns the observations and infos, as ``reset`` does."""
        if len(states) != self.num_envs or len(generators) != self.num_envs:
            raise ValueError(f"load takes {self.num_envs} states and {self.num_envs} generators, "
                             f"got {len(states)} and {len(generators)}")
        self.state = Batch(states[0], self.num_envs)
        self.state.put_many(np.arange(self.num_envs), states)
        self._rngs = list(generators)
        self._needs_reset[:] = False
        self._mask = self.batch.legal_masks(self.state)
        return self.batch.observe(self.state), self._infos(np.zeros(self.num_envs, dtype=bool), {})

    def play_out(self, first_actions, policy, max_steps: int = 10_000) -> tuple[np.ndarray, dict]:
        """Play every game on from where it stands: game i takes ``first_actions[i]`` (legal), then
        ``policy.act_batch(observations, masks)`` chooses for the games still going, until each ends or the policy
        has made ``max_steps`` choices in it. Only the games still going are looked at, so a few long games cost
        little. Returns each game's final reward as the single env pays it (0 for a game cut short) and the outcome
        arrays of every game (as things stand for one cut short). The games are then left as they ended: ``load``
        or ``reset`` before stepping again."""
        if self.state is None:
            raise gym.error.ResetNeeded("call load() or reset() before play_out()")
        everyone = np.ones(self.num_envs, dtype=bool)
        first, valid = self._actions(first_actions)
        illegal = ~(valid & self._mask[np.arange(self.num_envs), first])
        if illegal.any():
            self._raise_illegal(int(np.flatnonzero(illegal)[0]), first, valid)
        self.batch.apply(self.state, first, everyone, self._rngs)
        self._play_on(everyone)
        going = np.flatnonzero(~(self.batch.is_over(self.state) | self._truncated()))
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for _ in range(max_steps):
            if not going.size:
                break
            view = self.state.view(going)
            actions[going] = policy.act_batch(self.batch.observe(view), self.batch.legal_masks(view))
            rows = np.zeros(self.num_envs, dtype=bool)
            rows[going] = True
            self.batch.apply(self.state, actions, rows, self._rngs)
            self._play_on(rows)
            view = self.state.view(going)
            going = going[~(self.batch.is_over(view) | self._truncated(view))]
        over = self.batch.is_over(self.state)
        outcome = self.batch.outcome(self.state, everyone)
        self._mask = self.batch.legal_masks(self.state)
        self._needs_reset = over | self._truncated()
        return np.where(over, self._final_rewards(outcome), 0.0), outcome

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, (N, n) bool (the method sb3-contrib's MaskablePPO calls)."""
        if self._mask is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self._mask.copy()

    def take(self, index: int) -> ArrayState:
        """Game ``index``'s state as the single env holds it (a copy)."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before take()")
        return self.state.take(int(index))

    def close_extras(self, **kwargs):
        self._dealer.close()

    # ------------------------------------------------------------ inside

    def _check_reset_options(self, options: dict) -> None:
        unknown = sorted(set(options) - set(self._dealer.reset_options))
        if unknown:
            raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
                             f"this game takes: {', '.join(self._dealer.reset_options)} (and reset_mask)")

    def _rows(self, mask, name: str) -> np.ndarray:
        rows = np.asarray(mask)
        if rows.dtype != bool or rows.shape != (self.num_envs,):
            raise ValueError(f"{name} must be a bool array of shape ({self.num_envs},), got {mask!r}")
        return rows

    def _seed(self, seed, rows: np.ndarray) -> None:
        """Game i gets seed + i (a list gives each game its own); None draws fresh generators. The generators of
        games not being reset carry on."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed must be an int or {self.num_envs} ints, got {len(seed)}")
            seeds = [None if s is None else int(s) for s in seed]
        elif seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        else:
            raise ValueError(f"seed must be an int, a list of ints or None, got {seed!r}")
        if not self._rngs:
            self._rngs = [seeding.np_random(s)[0] for s in seeds]
            return
        for i in np.flatnonzero(rows):
            if seeds[i] is not None:
                self._rngs[i] = seeding.np_random(seeds[i])[0]

    def _deal(self, rows: np.ndarray, options: dict) -> None:
        """New games in ``rows``, as the single env's ``reset`` deals them, each with its row's generator (and not
        played on: a forced first move is the first step's).

        A batched rules module with ``deal(b, rows, rngs, options)`` deals only what is random (the shuffle) and
        gets the rest from one new game; otherwise the single env's code deals each game in turn.
        """
        dealer = self._dealer
        indices = np.flatnonzero(rows)
        if hasattr(self.batch, "deal"):
            dealer._np_random = np.random.default_rng(0)  # the shuffle of this one game is not used
            fresh = dealer._new_state(options)
            if self.state is None:
                self.state = Batch(fresh, self.num_envs)
            self.state.put_same(indices, fresh)
            self.batch.deal(self.state, indices, self._rngs, options)
            return
        states = []
        for i in indices:
            dealer._np_random = self._rngs[i]
            states.append(dealer._new_state(options))
        if self.state is None:
            self.state = Batch(states[0], self.num_envs)
        self.state.put_many(indices, states)

    def _play_on(self, rows: np.ndarray) -> None:
        """What follows the actions of the games in ``rows`` before their players' next decisions: the forced moves.
        (A view with scripted opponents plays their moves here too.)"""
        self._play_forced(rows)

    def _final_rewards(self, outcome: dict) -> np.ndarray:
        """The reward of each game that just ended (the rows of ``outcome``), as the single env pays it."""
        return outcome["score"] if self.reward_mode == "score" else outcome["won"]

    def _play_forced(self, rows: np.ndarray) -> None:
        """With ``skip_forced``, play every game in ``rows`` on while it has exactly one legal action. The games
        still being played on are looked at alone: they grow few while a long forced run goes on."""
        if not self.skip_forced:
            return
        own_loop = getattr(self.batch, "play_forced", None)
        if own_loop is not None:  # a game that tells its forced moves without the whole mask plays them itself
            own_loop(self.state, rows, self._rngs)
            return
        going = np.flatnonzero(rows)
        while going.size:
            view = self.state.view(going)
            masks = self.batch.legal_masks(view)
            forced = (masks.sum(axis=1) == 1) & ~self._truncated(view)
            going = going[forced]
            if not going.size:
                return
            actions = np.zeros(self.num_envs, dtype=np.int64)
            actions[going] = masks[forced].argmax(axis=1)
            playing = np.zeros(self.num_envs, dtype=bool)
            playing[going] = True
            self.batch.apply(self.state, actions, playing, self._rngs)

    def _truncated(self, games=None) -> np.ndarray:
        """Which of ``games`` (a batch or a view of one; every game when None) are cut short by a limit."""
        games = self.state if games is None else games
        check = getattr(self.batch, "is_truncated", None)
        return check(games) if check is not None else np.zeros(games.n, dtype=bool)

    def _infos(self, ended: np.ndarray, outcome: dict) -> dict:
        """The mask for every game; the outcome keys (``won``, ``score``, ...) for the games that just ended."""
        infos = {"action_mask": self._mask.astype(np.int8), "_action_mask": np.ones(self.num_envs, dtype=bool)}
        for key, values in outcome.items():
            # Lists (an object column) are None where a game did not end, as in Gymnasium's SyncVectorEnv.
            column = np.full(self.num_envs, None) if values.dtype == object else np.zeros(self.num_envs, values.dtype)
            column[ended] = values
            infos[key], infos["_" + key] = column, ended.copy()
        return infos

    def _actions(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """The actions as indices (0 where not one) and which of them are actions at all: like the single env,
        a number that names no action is an illegal action, not a crash."""
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must be an array of {self.num_envs} actions, got shape {array.shape}")
        if not np.issubdtype(array.dtype, np.integer):
            whole = np.issubdtype(array.dtype, np.number) and np.all(np.isfinite(array)) \
                and np.array_equal(array, np.round(array))
            array = array.astype(np.int64) if whole else np.full(self.num_envs, -1)
        valid = (array >= 0) & (array < self.single_action_space.n)
        return np.where(valid, array, 0).astype(np.int64), valid

    def _raise_illegal(self, game: int, actions: np.ndarray, valid: np.ndarray):
        label = f"{actions[game]} ({self.action_names[actions[game]]})" if valid[game] else "a number naming no action"
        legal_names = [self.action_names[i] for i in np.flatnonzero(self._mask[game])]
        raise IllegalActionError(f"{label} in game {game}", legal_names)
