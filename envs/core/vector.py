"""The Gymnasium side of the batched games: N games of one solitaire (or of a multi-player game's single-agent
view) advanced together.

A game's ``vector.py`` subclasses ``TabletopVectorEnv``, naming its single env class (``single_env``) and its
batched side (``batch``). The state of N games is a ``Batch``: every field of the game's ``State`` with a leading
axis of N, a game per row. New games are dealt by the game's rules with each row's own random generator, so that
row i of a vector env seeded with s plays exactly the game a single env seeded with s + i plays.

The batched side provides ``legal_masks(b) -> (N, n) bool``, ``apply(b, actions, rows, rngs)`` (rows: a bool mask of
the games that take their action; in place), ``play_forced(b, rows, rngs)`` (the forced moves after them), ``deal(b,
rows, rngs, options)`` (see ``TabletopVectorEnv._deal``), ``observe(b) -> (N, d) float32``, ``is_over(b) -> (N,)
bool``, ``outcome(b, rows) -> dict`` (rows: indices; the single env's outcome keys, each an array over ``rows``) and
``forfeit(b, rows)``; optionally ``is_truncated(b)``. Where a game's rules step every game in one compiled call
(``rules.step_rows``), ``step`` uses ``CompiledGames.step`` instead of ``apply``, ``play_forced``, ``deal``,
``legal_masks`` and ``observe``: one call, on ``num_threads`` threads. Every game's rules are compiled (its
``State`` a ``FlatState``), so there is no second expression of them: ``CompiledGames`` calls the rules' compiled
loops over the rows of ``b.data``, the same functions the single env calls on one game, and ``tests/test_vector.py``
holds the vector env to the single env, step by step.

A game played against scripted opponents (a multi-player game's single-agent view) sets ``batch`` to an object
that fills in each game's learner seat where its batched rules take a seat (``observe``, ``outcome``,
``forfeit``), and overrides three hooks: ``_deal`` (the learner's seat, then the opponents before it),
``_play_on`` (after the learner's action, the opponents' moves until the learner decides again) and
``_final_rewards`` (its +1 / -1).

The infos are numeric and have one set of keys on every reset and step (what engines that build a spec from the
first infos, TorchRL's among them, need): each key is an array over the games with its Gymnasium ``_key`` mask of
the games it holds a value for. A game's ``result`` is an integer code, named by ``RESULT_NAMES``; ``info_of``
turns one game's infos back into the single env's info.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numba.typed import List

from .env import ILLEGAL_ACTION_MODES, check_choice
from .errors import EpisodeOverError, IllegalActionError
from .state import ArrayState

SCALAR_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)
# What each game (a row) shares with a single env of the same options, for ``get_attr`` and ``call``.
ROW_ATTRIBUTES = ("action_names", "spec", "observation_space", "action_space", "metadata", "render_mode",
                  "skip_forced", "reward_mode", "illegal_action")
# The arguments of ``gym.make_vec`` that are the vector env's, not a game's: left out of a row's spec.
VECTOR_ARGUMENTS = ("num_envs", "vectorization_mode", "vector_kwargs", "wrappers", "autoreset_mode", "num_threads",
                    "copy")


def check_autoreset_mode(mode) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode``: the enum itself, its value (``"NextStep"``) or its name (``"NEXT_STEP"``)."""
    if isinstance(mode, str) and mode in AutoresetMode.__members__:
        return AutoresetMode[mode]
    try:
        return AutoresetMode(mode)
    except (ValueError, TypeError):
        names = ", ".join(repr(m.value) for m in AutoresetMode)
        raise ValueError(f"autoreset_mode must be one of {names} (or a gymnasium.vector.AutoresetMode), "
                         f"got {mode!r}") from None


def check_seed(seed, num_envs: int) -> list:
    """Each game's seed from a ``reset(seed=...)``: game i gets seed + i, a list gives each game its own, None
    draws fresh generators. Checked whole before any generator is made."""
    def fits(s):
        return s is None or (isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_)) and s >= 0)

    if isinstance(seed, (list, tuple, np.ndarray)):
        if len(seed) != num_envs:
            raise ValueError(f"seed must be an int or {num_envs} ints, got {len(seed)}")
        if not all(fits(s) for s in seed):
            raise ValueError(f"seed as a list must hold {num_envs} non-negative ints (or None), got {list(seed)!r}")
        return [None if s is None else int(s) for s in seed]
    if not fits(seed):
        raise ValueError(f"seed must be a non-negative int, a list of {num_envs} of them, or None, got {seed!r}")
    return [None if seed is None else int(seed) + i for i in range(num_envs)]


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

    def put_many(self, rows: np.ndarray, states: list) -> None:
        """Write ``states[k]`` into row ``rows[k]``, a field at a time."""
        for name in self._fields:
            getattr(self, name)[rows] = [getattr(state, name) for state in states]

    def put_same(self, rows: np.ndarray, state: ArrayState) -> None:
        """Write one state into every row of ``rows``."""
        for name in self._fields:
            getattr(self, name)[rows] = getattr(state, name)

    def copy_rows(self, rows: np.ndarray) -> dict:
        """The games ``rows`` selects, every field copied out: ``put_rows`` writes them back."""
        return {name: getattr(self, name)[rows].copy() for name in self._fields}

    def put_rows(self, rows: np.ndarray, fields: dict) -> None:
        for name, values in fields.items():
            getattr(self, name)[rows] = values

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
        self._batch, self.rows = batch, rows  # rows: the indices of these games in the batch
        self.n = len(rows)

    def __getattr__(self, name: str):
        return getattr(self._batch, name)[self.rows]


class CompiledGenerators:
    """The games' generators as the typed list compiled code takes (numba draws from the same bit generators, so a
    draw there is the draw numpy would make, and the Python generators move on with it). Building the list costs a
    few microseconds a game, so it is kept, and made again when the env's list of generators is another list: the
    env never replaces a generator in place (``TabletopVectorEnv._seed`` makes a new list; a refused reset puts the
    old one back; ``load`` takes new ones). Copies and pickles leave it out: it is made again."""

    def __init__(self):
        self.source, self.list = None, None

    def of(self, rngs: list) -> List:
        if self.source is not rngs:
            self.source, self.list = rngs, List(rngs)
        return self.list

    def __getstate__(self):
        return {"source": None, "list": None}


class CompiledGames:
    """The batched side of ``TabletopVectorEnv`` for a solitaire (and, its seats added, for a multi-player game's
    single-agent view): a ``Batch`` of its ``FlatState`` holds ``data`` (N, State.SIZE), a game per row, and each
    call runs the rules' compiled loop over the rows, or the function that the single env calls too (``deal``,
    ``outcomes``). A game's subclass names its ``rules``: the same names in every game (``take_actions``,
    ``play_forced_rows``, ``fill_legal_masks``, ``fill_observations(data, observations)``, ``deal(a, rng)``,
    ``outcomes(data)``, ``end_game(a, result)``, and ``result``, which is ``PLAYING`` until the game ends)."""

    rules: Any

    @classmethod
    def steps_in_one_call(cls) -> bool:
        """Whether the rules step a vector env's games in one compiled call (``rules.step_rows``): then ``step``
        does the whole of a step's rules, and may run on several threads."""
        return hasattr(cls.rules, "step_rows")

    @classmethod
    def step(cls, b, fresh, actions, taking, starting, rngs, skip_forced, masks, observations, threads) -> None:
        """A vector env's step in one compiled call (``rules.step_rows``) on ``threads`` threads: the games
        ``taking`` take their ``actions`` and play on, the games ``starting`` are dealt as ``deal`` deals them
        without options (on ``fresh``, a new game); every game's legal mask and observation are written into
        ``masks`` and ``observations``."""
        cls.run_step(cls.step_arguments(b, fresh, actions, taking, starting, rngs, skip_forced, masks, observations),
                     threads)

    @classmethod
    def step_arguments(cls, b, fresh, actions, taking, starting, rngs, skip_forced, masks, observations) -> tuple:
        """What ``rules.step_rows`` takes for that step (the bench's compiled loop makes the same call)."""
        return (b.data, actions, taking, starting, fresh.data, cls.generators(b, rngs), skip_forced, masks,
                observations)

    @classmethod
    def run_step(cls, arguments: tuple, threads: int) -> None:
        """``rules.step_rows(*arguments)``, or on more than one thread ``rules.step_rows_on_threads``."""
        if threads == 1:
            cls.rules.step_rows(*arguments)
            return
        before = numba.get_num_threads()
        numba.set_num_threads(threads)  # for this thread's calls only; put back after
        try:
            cls.rules.step_rows_on_threads(*arguments)
        finally:
            numba.set_num_threads(before)

    @classmethod
    def generators(cls, b, rngs) -> List:
        """The games' generators as the compiled loops take them, kept with the batch (``CompiledGenerators``)."""
        if not hasattr(b, "generators"):
            b.generators = CompiledGenerators()
        return b.generators.of(rngs)

    @classmethod
    def apply(cls, b, actions, rows, rngs=None) -> None:
        cls.rules.take_actions(b.data, actions, rows)

    @classmethod
    def play_forced(cls, b, rows, rngs=None) -> None:
        cls.rules.play_forced_rows(b.data, rows)

    @classmethod
    def deal(cls, b, rows, rngs, options) -> None:
        """The shuffle of each new game with its own generator, in the rows given (the rules' compiled
        ``deal_rows``: ``rules.deal`` over the rows, no Python per game): each row already holds a new game's table
        (``TabletopVectorEnv._deal``), and a stacked deck is dealt there already."""
        if options.get("deck") is None:
            cls.rules.deal_rows(b.data, np.asarray(rows, dtype=np.int64), cls.generators(b, rngs))

    @classmethod
    def outcome(cls, b, rows) -> dict:
        """``rules.outcome`` of each game in ``rows`` (indices), as arrays."""
        return cls.rules.outcomes(b.data.take(rows, axis=0))  # (take: a third quicker than indexing)

    @classmethod
    def legal_masks(cls, b) -> np.ndarray:
        masks = np.empty((len(b.data), cls.rules.NUM_ACTIONS), dtype=bool)
        cls.rules.fill_legal_masks(b.data, masks)
        return masks

    @classmethod
    def observe(cls, b) -> np.ndarray:
        observations = np.empty((len(b.data), cls.rules.OBSERVATION_SIZE), dtype=np.float32)
        cls.rules.fill_observations(b.data, observations)
        return observations

    @classmethod
    def is_over(cls, b) -> np.ndarray:
        return b.data[:, cls.rules.AT_RESULT] != cls.rules.PLAYING

    @classmethod
    def forfeit(cls, b, rows) -> None:
        for i in np.flatnonzero(rows):  # rare: illegal actions only
            cls.rules.end_game(b.data[i], cls.rules.FORFEITED)


class TabletopVectorEnv(VectorEnv):
    """N games of one solitaire, stepped together on batched state.

    Takes the single env's keyword options (``skip_forced``, ``reward``, ``illegal_action`` and the game's own)
    and its reset options (a stacked ``deck`` deals that deck to every game that ``reset`` starts; the games that
    start over after an end are dealt as by a single env's ``reset()`` without options). ``reset(seed=s)``
    seeds game i with s + i. ``infos["action_mask"]`` and ``action_masks()`` give the legal actions of every
    game, shape (N, n).

    ``autoreset_mode`` (an option of ``gym.make_vec``, and the attribute of the same name) is Gymnasium's:

    * ``NEXT_STEP`` (default): after a game ends, the next ``step`` starts a new one in its row (its action is
      ignored) and returns that game's first observation with reward 0. Until then the finished game's row
      carries an all-ones mask, so that any masked sampler can draw the action that is ignored.
    * ``SAME_STEP``: the step that ends a game starts the next one in its row at once: the observation and
      ``action_mask`` are the new game's, the reward and ends the finished one's, and ``infos["final_obs"]``
      (an object array, None for the other games) and ``infos["final_info"]`` (the infos of the finished games,
      as the ``NEXT_STEP`` step would give them, their mask all ones) hold the end, each with its ``_final_obs`` /
      ``_final_info`` mask. As in Gymnasium's ``SyncVectorEnv``, these keys are in the infos of a step in which a
      game ended, and only then.
    * ``DISABLED``: a finished game waits (with an all-ones mask) for ``reset(options={"reset_mask": rows})``;
      stepping it before that raises ``EpisodeOverError``.

    The infos of every reset and step have one set of keys, all numeric arrays (besides ``SAME_STEP``'s
    ``final_obs`` and ``final_info`` where a game ended; ``final_obs`` an object array as Gymnasium defines it):
    ``action_mask``, the single env's outcome keys (``won``, ``score``, ... over the games that just ended, their
    ``_key`` mask saying which) with ``result`` an integer code into ``RESULT_NAMES``, and ``illegal_action``
    (``_illegal_action``: the games an illegal action ended). ``info_of(infos, i)`` gives game i's as the single
    env's info has them.

    ``num_threads`` (default 1): where the rules step every game in one compiled call (``CompiledGames.step``), a
    step's rows are shared among that many threads, with the same games as one thread. ``copy`` (default True, as
    in Gymnasium's ``SyncVectorEnv``): False returns, from such a step, the env's own observation array, written
    over by the next step.

    A call that raises (a bad seed, option, reset mask or action array) changes nothing: no game, no generator, no
    mask. An action that names no action (a float, a whole one included, as in the single env and Gymnasium's
    ``Discrete``; a string) is an illegal action of its own game only.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    RESULT_NAMES: tuple[str, ...] = ()  # a game's result code in the infos -> its name
    single_env: type
    batch: Any
    # Arrays over the games, besides the state, that a deal writes in place: put back when a reset is refused.
    _row_keeps: tuple[str, ...] = ()

    def __init__(self, num_envs: int = 1, *, autoreset_mode=AutoresetMode.NEXT_STEP, num_threads: int = 1,
                 copy: bool = True, **options):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        mode = check_autoreset_mode(autoreset_mode)
        self._check_threads(num_threads)
        if not isinstance(copy, (bool, np.bool_)):
            raise ValueError(f"copy must be True or False, got {copy!r}")
        if options.get("render_mode") is not None:
            raise ValueError("the vector env does not render; make a single env with render_mode to watch a game")
        options.pop("render_mode", None)
        # One single env checks the options and deals every new game, so a deal is the single env's deal.
        self._set_up(int(num_envs), self.single_env(**options), mode, int(num_threads), bool(copy))

    @classmethod
    def _check_threads(cls, num_threads) -> None:
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads!r}")
        one_call = getattr(getattr(cls, "batch", None), "steps_in_one_call", lambda: False)()
        if num_threads > 1 and not one_call:
            raise ValueError(f"num_threads={num_threads}: {cls.__name__} steps on one thread only (threads need a "
                             f"game whose rules step every game in one compiled call, rules.step_rows)")
        if num_threads > numba.config.NUMBA_NUM_THREADS:
            raise ValueError(f"num_threads={num_threads} is more than numba's NUMBA_NUM_THREADS "
                             f"({numba.config.NUMBA_NUM_THREADS}, by default the machine's cores)")

    @classmethod
    def like(cls, env, num_envs: int) -> "TabletopVectorEnv":
        """``num_envs`` games with the options of the single env ``env`` (a game's own, ``skip_forced``, ``reward``),
        to be started with ``load``: how a search plays many sampled worlds out at once."""
        vector = cls.__new__(cls)
        dealer = env.unwrapped.clone()
        dealer.render_mode = None
        vector._set_up(int(num_envs), dealer, AutoresetMode.NEXT_STEP)
        return vector

    def _set_up(self, num_envs: int, dealer, autoreset_mode: AutoresetMode, num_threads: int = 1,
                copy: bool = True) -> None:
        self.autoreset_mode = autoreset_mode
        self.num_threads, self.copy = num_threads, copy
        self._observations = None  # where a step in one compiled call writes the observations
        self.metadata = {**type(self).metadata, "autoreset_mode": autoreset_mode}
        self.num_envs = num_envs
        self._games = np.arange(num_envs)  # every game's index
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
        self._columns = None  # the outcome keys of the infos: key -> (dtype, shape of one game's value)

    def _observe(self, state) -> np.ndarray:
        """The batched rules' observations of ``state``, with features where the options ask for them."""
        return self._dealer.with_features(self.batch.observe(state))

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict of reset options (this game takes: "
                            f"{', '.join(self._dealer.reset_options)}, and reset_mask), got {options!r}")
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        self._check_reset_options(options)
        rows = np.ones(self.num_envs, dtype=bool) if reset_mask is None else self._rows(reset_mask, "reset_mask")
        if self.state is None and not rows.all():
            raise ValueError("the first reset() must reset every game (no reset_mask)")
        seeds = check_seed(seed, self.num_envs)
        kept = self._remember(rows)
        try:
            self._seed(seeds, rows)
            self._deal(rows, options)
            self._needs_reset[rows] = False
            self._mask = self._legal_masks()
            observations = self._observe(self.state)
            infos = self._infos(np.zeros(self.num_envs, dtype=bool), {}, np.zeros(self.num_envs, dtype=bool))
        except BaseException:
            self._put_back(kept)  # a bad option (a wrong deck) changes nothing
            raise
        return observations, infos

    def step(self, actions):
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        actions, valid, given = self._actions(actions)
        starting = self._needs_reset.copy()
        if starting.any() and self.autoreset_mode == AutoresetMode.DISABLED:
            raise EpisodeOverError(f"game(s) {np.flatnonzero(starting).tolist()} are over and autoreset is disabled: "
                                   "start them with reset(options={'reset_mask': rows}) before the next step")
        playing = ~starting
        illegal = playing & ~(valid & self._mask[self._games, actions])
        if illegal.any() and self.illegal_action == "raise":
            self._raise_illegal(int(np.flatnonzero(illegal)[0]), actions, valid, given)
        taking = playing & ~illegal
        if illegal.any():
            self.batch.forfeit(self.state, illegal)
        observations = self._advance(actions, taking, starting)
        over = self.batch.is_over(self.state)
        terminated = over & playing
        truncated = ~over & playing & self._truncated()
        ended = terminated | truncated
        outcome = self.batch.outcome(self.state, np.flatnonzero(ended)) if ended.any() else {}
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        if terminated.any():
            rewards[terminated] = self._final_rewards(outcome)[terminated[ended]]
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            return self._start_over_at_once(ended, outcome, illegal, rewards, terminated, truncated, observations)
        self._needs_reset = ended
        if observations is None:
            self._mask = self._legal_masks()
            observations = self._observe(self.state)
        else:
            self._mask[ended] = True  # the rest written by the step's compiled call
        infos = self._infos(ended, outcome, illegal)
        return observations, rewards, terminated, truncated, infos

    def _advance(self, actions, taking, starting):
        """The games ``taking`` take their ``actions`` and play on to their next decisions, the games ``starting``
        begin new ones (as a single env's ``reset()`` without options). Where the rules do all of that in one
        compiled call (run on ``num_threads`` threads), the call also writes every game's legal mask (the env's
        mask, in place) and observation; returns those observations as ``step`` returns them (the env's own array
        with ``copy=False``); else None."""
        if not self.batch.steps_in_one_call():
            self.batch.apply(self.state, actions, taking, self._rngs)
            self._play_on(taking)
            if starting.any():
                self._deal(starting, {})
            return None
        shape = (self.num_envs, self.batch.rules.OBSERVATION_SIZE)
        if self.copy or self._observations is None:  # a new array is quicker to fill than a full one to copy
            self._observations = np.empty(shape, dtype=np.float32)
        self.batch.step(self.state, self.fresh_game({}), actions, taking, starting, self._rngs,
                        self.skip_forced, self._mask, self._observations, self.num_threads)
        return self._dealer.with_features(self._observations)

    def _start_over_at_once(self, ended, outcome, illegal, rewards, terminated, truncated, observations=None):
        """The end of ``step`` with ``SAME_STEP`` autoreset: the finished games' last observations and infos (as
        the next-step mode would report them) go to ``final_obs`` and ``final_info``, and their rows start the next
        games now. ``observations``: every game's, where the step has them already."""
        if observations is None:
            observations = self._observe(self.state)
        final = {}
        if ended.any():
            games = np.flatnonzero(ended)
            final = self._final(ended, observations, self._infos(ended, outcome, illegal, self._finished_masks(ended)))
            self._deal(ended, {})
            observations[games] = self._observe(self.state.view(games))
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)
        self._mask = self._legal_masks()
        nothing = np.zeros(self.num_envs, dtype=bool)
        return observations, rewards, terminated, truncated, {**self._infos(nothing, {}, nothing), **final}

    def load(self, states: list, generators: list):
        """Start game i from ``states[i]``, a single env's state (a saved game, a search's sampled world), with
        ``generators[i]`` as its random generator. Returns the observations and infos, as ``reset`` does."""
        if len(states) != self.num_envs or len(generators) != self.num_envs:
            raise ValueError(f"load takes {self.num_envs} states and {self.num_envs} generators, "
                             f"got {len(states)} and {len(generators)}")
        games = Batch(states[0], self.num_envs)
        games.put_many(np.arange(self.num_envs), states)  # before any change: a state that does not fit raises here
        self.state = games
        self._rngs = list(generators)
        self._needs_reset[:] = False
        self._mask = self._legal_masks()
        nothing = np.zeros(self.num_envs, dtype=bool)
        return self._observe(self.state), self._infos(nothing, {}, nothing)

    def play_out(self, first_actions, policy, max_steps: int = 10_000) -> tuple[np.ndarray, dict]:
        """Play every game on from where it stands: game i takes ``first_actions[i]`` (legal), then
        ``policy.act_batch(observations, masks)`` chooses for the games still going, until each ends or the policy
        has made ``max_steps`` choices in it. Only the games still going are looked at, so a few long games cost
        little. Returns each game's final reward as the single env pays it (0 for a game cut short) and the outcome
        arrays of every game (as things stand for one cut short; ``unfinished()`` names those). The games are then
        left as they ended: ``load`` or ``reset`` before stepping again."""
        if self.state is None:
            raise gym.error.ResetNeeded("call load() or reset() before play_out()")
        everyone = np.ones(self.num_envs, dtype=bool)
        first, valid, given = self._actions(first_actions)
        illegal = ~(valid & self._mask[self._games, first])
        if illegal.any():
            self._raise_illegal(int(np.flatnonzero(illegal)[0]), first, valid, given)
        self.batch.apply(self.state, first, everyone, self._rngs)
        self._play_on(everyone)
        going = np.flatnonzero(~(self.batch.is_over(self.state) | self._truncated()))
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for _ in range(max_steps):
            if not going.size:
                break
            view = self.state.view(going)
            actions[going] = policy.act_batch(self._observe(view), self.batch.legal_masks(view))
            rows = np.zeros(self.num_envs, dtype=bool)
            rows[going] = True
            self.batch.apply(self.state, actions, rows, self._rngs)
            self._play_on(rows)
            view = self.state.view(going)
            going = going[~(self.batch.is_over(view) | self._truncated(view))]
        over = self.batch.is_over(self.state)
        outcome = self.batch.outcome(self.state, self._games)
        self._needs_reset = over | self._truncated()
        self._mask = self._legal_masks()
        return np.where(over, self._final_rewards(outcome), 0.0), outcome

    def unfinished(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The games still going (after ``play_out``, those it cut short): their indices, observations and legal
        masks, as a player would see them, so that a search can judge where its playouts stopped."""
        if self.state is None:
            raise gym.error.ResetNeeded("call load() or reset() before unfinished()")
        rows = np.flatnonzero(~self._needs_reset)
        return rows, self._observe(self.state.view(rows)), self._mask[rows].copy()

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, (N, n) bool (the method sb3-contrib's MaskablePPO calls)."""
        if self._mask is None:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self._mask.copy()

    def take(self, index: int) -> ArrayState:
        """Game ``index``'s state as the single env holds it (a copy)."""
        if self.state is None:
            raise gym.error.ResetNeeded("call reset() before take()")
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
                or not 0 <= index < self.num_envs:
            raise ValueError(f"index must be a game 0-{self.num_envs - 1}, got {index!r}")
        return self.state.take(int(index))

    def info_of(self, infos: dict, index: int) -> dict:
        """Game ``index``'s entries of ``infos`` (what this env's reset or step returned, or their ``final_info``)
        as the single env's info has them, key for key and value for value: every key (the outcome keys zero
        until the game ends), numpy numbers and arrays, ``result`` as its code. Empty where ``infos`` holds nothing
        of the game (the ``final_info`` of a game that did not end)."""
        if not infos.get("_action_mask", np.zeros(index + 1, dtype=bool))[index]:
            return {}
        return {key: values[index].copy() for key, values in infos.items()
                if not key.startswith("_") and key not in ("final_obs", "final_info")}

    # ------------------------------------------------------------ Gymnasium's sub-env access

    def call(self, name: str, *args, **kwargs) -> tuple:
        """Gymnasium's ``VectorEnv.call``: each game's answer, as a tuple. The games are rows of one batch, not env
        objects, so it answers ``call("action_masks")`` (each row's mask, as ``action_masks()`` gives it) and the
        attributes of ``get_attr`` (an attribute's value, as Gymnasium's ``SyncVectorEnv`` gives it); any other
        name is refused."""
        if name == "action_masks":
            return tuple(self.action_masks(*args, **kwargs))
        if name in ROW_ATTRIBUTES:
            return self.get_attr(name)
        raise AttributeError(f"{type(self).__name__}.call supports 'action_masks' and the attributes of get_attr "
                             f"({', '.join(ROW_ATTRIBUTES)}): its games are rows of one batch, not envs; got {name!r}")

    def get_attr(self, name: str) -> tuple:
        """Gymnasium's ``VectorEnv.get_attr``: each game's value of ``name``, one of the attributes every game shares
        with a single env of the same options (``ROW_ATTRIBUTES``; ``spec`` is that single env's spec)."""
        if name not in ROW_ATTRIBUTES:
            raise AttributeError(f"{type(self).__name__}.get_attr supports {', '.join(ROW_ATTRIBUTES)} (what its "
                                 f"games share: they are rows of one batch, not envs); got {name!r}")
        if name == "spec":
            value = self._row_spec()
        elif name == "metadata":
            value = self._dealer.metadata
        elif name in ("observation_space", "action_space"):
            value = getattr(self, "single_" + name)
        else:
            value = getattr(self, name)
        return (value,) * self.num_envs

    def set_attr(self, name: str, values) -> None:
        """Gymnasium's ``VectorEnv.set_attr``: a value for every game, or a list or tuple of one per game. The games
        share their options, so it takes ``illegal_action`` only, the same for every game; the other options are
        ``gym.make_vec``'s."""
        if name != "illegal_action":
            raise AttributeError(f"{type(self).__name__}.set_attr supports 'illegal_action' only (its games share "
                                 f"the other options, given to gym.make_vec); got {name!r}")
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs or len(set(values)) != 1:
                raise ValueError(f"set_attr('illegal_action', ...) takes one mode, or a list of {self.num_envs} "
                                 f"equal ones (the games share it), got {values!r}")
            values = values[0]
        check_choice("illegal_action", values, ILLEGAL_ACTION_MODES)
        self.illegal_action = self._dealer.illegal_action = values

    def _row_spec(self):
        """One game's spec: a single env's of the same options (``gym.make(spec)`` makes one), from this env's spec
        without the vector's own arguments; None where this env was made without ``gym.make_vec``."""
        if self.spec is None:
            return None
        kwargs = {key: value for key, value in self.spec.kwargs.items() if key not in VECTOR_ARGUMENTS}
        return dataclasses.replace(self.spec, kwargs=kwargs)

    def close_extras(self, **kwargs):
        dealer = getattr(self, "_dealer", None)  # None when the constructor refused its options
        if dealer is not None:
            dealer.close()

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

    def _remember(self, rows: np.ndarray) -> dict:
        """What a reset of ``rows`` may change, for ``_put_back``: those games, their generators (and the state
        each is in: a deal draws from it), the masks and the arrays of ``_row_keeps``."""
        indices = np.flatnonzero(rows)
        return {
            "state": self.state,
            "rows": rows,
            "games": None if self.state is None else self.state.copy_rows(rows),
            "rngs": list(self._rngs),
            "rng_states": [(self._rngs[i], self._rngs[i].bit_generator.state) for i in indices] if self._rngs else [],
            "mask": self._mask,
            "needs_reset": self._needs_reset.copy(),
            "row_arrays": {name: getattr(self, name)[rows].copy() for name in self._row_keeps if hasattr(self, name)},
        }

    def _put_back(self, kept: dict) -> None:
        rows = kept["rows"]
        self.state = kept["state"]
        if self.state is not None:
            self.state.put_rows(rows, kept["games"])
        for generator, state in kept["rng_states"]:
            generator.bit_generator.state = state
        self._rngs = kept["rngs"]
        self._mask = kept["mask"]
        self._needs_reset = kept["needs_reset"]
        for name, values in kept["row_arrays"].items():
            getattr(self, name)[rows] = values  # in place: others may hold the array (the learner seats)

    def _seed(self, seeds: list, rows: np.ndarray) -> None:
        """Game i gets ``seeds[i]`` (None: a fresh generator; see ``check_seed``). The generators of games not being
        reset carry on. The list is a new one whenever a generator is replaced (so that ``CompiledGenerators`` sees
        a change by the list alone)."""
        if not self._rngs:
            self._rngs = [seeding.np_random(s)[0] for s in seeds]
            return
        replaced = [i for i in np.flatnonzero(rows) if seeds[i] is not None]
        if replaced:
            self._rngs = list(self._rngs)
            for i in replaced:
                self._rngs[i] = seeding.np_random(seeds[i])[0]

    def _deal(self, rows: np.ndarray, options: dict) -> None:
        """New games in ``rows``, as the single env's ``reset`` deals them, each with its row's generator (and not
        played on: a forced first move is the first step's). The batched side's ``deal(b, rows, rngs, options)``
        deals only what is random (the shuffle) and gets the rest from one new game."""
        indices = np.flatnonzero(rows)
        fresh = self.fresh_game(options)
        if self.state is None:
            self.state = Batch(fresh, self.num_envs)
        self.state.put_same(indices, fresh)
        self.batch.deal(self.state, indices, self._rngs, options)

    def fresh_game(self, options: dict):
        """One new game of the single env, to copy into the rows being dealt before the batched rules shuffle them:
        dealt once for the unstacked deal (which every autoreset uses), afresh for a stacked deck. Its own shuffle
        is not used: it is dealt from a throwaway generator."""
        if not options and getattr(self, "_fresh", None) is not None:
            return self._fresh
        fresh = self._dealer.new_game(np.random.default_rng(0), options)
        if not options:
            self._fresh = fresh
        return fresh

    def _play_on(self, rows: np.ndarray) -> None:
        """What follows the actions of the games in ``rows`` before their players' next decisions: the forced moves.
        (A view with scripted opponents plays their moves here too.)"""
        self._play_forced(rows)

    def _final_rewards(self, outcome: dict) -> np.ndarray:
        """The reward of each game that just ended (the rows of ``outcome``), as the single env pays it."""
        return outcome["score"] if self.reward_mode == "score" else outcome["won"]

    def _play_forced(self, rows: np.ndarray) -> None:
        """With ``skip_forced``, play every game in ``rows`` on while it has exactly one legal action."""
        if self.skip_forced:
            self.batch.play_forced(self.state, rows, self._rngs)

    def _truncated(self, games=None) -> np.ndarray:
        """Which of ``games`` (a batch or a view of one; every game when None) are cut short by a limit."""
        games = self.state if games is None else games
        check = getattr(self.batch, "is_truncated", None)
        return check(games) if check is not None else np.zeros(games.n, dtype=bool)

    def _legal_masks(self) -> np.ndarray:
        """Every game's legal actions; all ones for a finished game waiting to start over (its action is ignored,
        and a masked sampler fails on a row of zeros)."""
        masks = self.batch.legal_masks(self.state)
        masks[self._needs_reset] = True
        return masks

    def _outcome_columns(self) -> dict:
        """The outcome keys of the infos, each with its dtype and the shape of one game's value: read once from the
        outcome of no game, so that every reset and step has the same keys."""
        if self._columns is None:
            empty = self.batch.outcome(self.state, np.zeros(0, dtype=np.int64))
            self._columns = {key: (values.dtype, values.shape[1:]) for key, values in empty.items()}
        return self._columns

    def _infos(self, ended: np.ndarray, outcome: dict, illegal: np.ndarray, masks=None) -> dict:
        """The mask of every game (``masks``, else the env's); the outcome keys, holding values for the games that
        just ended; ``illegal_action`` for the games an illegal action ended."""
        masks = self._mask if masks is None else masks
        infos = {"action_mask": masks.astype(np.int8), "_action_mask": np.ones(self.num_envs, dtype=bool)}
        games = np.flatnonzero(ended) if outcome else None  # (indices: five times as quick as the mask, per key)
        for key, (dtype, shape) in self._outcome_columns().items():
            column = np.zeros((self.num_envs, *shape), dtype=dtype)
            if key in outcome:
                column[games] = outcome[key]
            infos[key], infos["_" + key] = column, ended.copy()
        infos["illegal_action"], infos["_illegal_action"] = illegal.copy(), illegal.copy()
        return infos

    def _finished_masks(self, ended: np.ndarray) -> np.ndarray:
        """The masks of ``final_info``: all ones for the games that ended, as the single env's last info has it,
        and zeros in the other rows, as Gymnasium's vector envs fill the rows a key does not hold."""
        masks = np.zeros_like(self._mask)
        masks[ended] = True
        return masks

    def _final(self, ended: np.ndarray, observations: np.ndarray, final_info: dict) -> dict:
        """``SAME_STEP``'s keys for the step in which the games ``ended`` ended, as Gymnasium's ``SyncVectorEnv``
        adds them, only then: ``final_obs`` (an object array of their last ``observations``, None elsewhere) and
        ``final_info`` (their infos, every ``_key`` mask holding only them), each with its mask of the games."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = observations[i].copy()
        for key in [key for key in final_info if not key.startswith("_")]:
            final_info["_" + key] = final_info["_" + key] & ended
        return {"final_obs": final_obs, "_final_obs": ended.copy(), "final_info": final_info,
                "_final_info": ended.copy()}

    def _actions(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The actions as indices (0 where not one), which of them are actions at all, and the array given: like the
        single env, an entry that names no action (out of range, a float, even a whole one, not a number) is an
        illegal action of its own game, not a crash and not the other games' loss."""
        given = np.asarray(actions)
        if given.shape != (self.num_envs,):
            raise ValueError(f"actions must be an array of {self.num_envs} actions, got shape {given.shape}")
        n = self.single_action_space.n
        if given.dtype.kind in "iu":  # (the dtype's kind: np.issubdtype takes twenty times as long)
            valid = (given >= 0) & (given < n)
            if given.dtype == np.int64 and valid.all():
                return given, valid, given  # the caller's array: the step reads it, never writes it
        elif given.dtype.kind == "f":  # no float names an action, a whole one included
            valid = np.zeros(self.num_envs, dtype=bool)
        else:  # objects, strings, bools: each entry on its own
            entries = given.tolist()
            valid = np.array([_names_an_action(a, n) for a in entries], dtype=bool)
            indices = np.array([int(a) if ok else 0 for a, ok in zip(entries, valid)], dtype=np.int64)
            return indices, valid, given
        return np.where(valid, given, 0).astype(np.int64), valid, given

    def _raise_illegal(self, game: int, actions: np.ndarray, valid: np.ndarray, given: np.ndarray):
        label = f"{actions[game]} ({self.action_names[actions[game]]})" if valid[game] \
            else f"{given[game]!r}, which names no action,"
        legal_names = [self.action_names[i] for i in np.flatnonzero(self._mask[game])]
        raise IllegalActionError(f"{label} in game {game}", legal_names)


def _names_an_action(entry, n: int) -> bool:
    """Whether one entry of an action array names one of ``n`` actions: an integer (not a bool; not a float, as
    Gymnasium's ``Discrete.contains`` has it), as the single env reads an action."""
    if isinstance(entry, (bool, np.bool_)):
        return False
    return isinstance(entry, (int, np.integer)) and 0 <= entry < n
