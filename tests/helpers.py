"""Helpers shared by the tests."""

from __future__ import annotations

import os
import subprocess
import sys

import gymnasium as gym
import numpy as np

import tabletop_gym.envs  # noqa: F401  (registers the games)
from tabletop_gym.envs.core.cards import card_code, parse_card
from tabletop_gym.envs.one_card_dungeon import rules as one_card_dungeon_rules


def stacked(prefix: list[str], all_cards) -> list[str]:
    """A full stacked deck: ``prefix`` on top, then the game's other cards in card-id order."""
    top = [parse_card(c) for c in prefix]
    rest = [int(c) for c in all_cards if int(c) not in top]
    return list(prefix) + [card_code(c) for c in rest]


def act(env: gym.Env, name: str):
    """Step by action name (the env must be unwrapped or expose action_names)."""
    names = env.unwrapped.action_names
    return env.step(names.index(name))


def play(env: gym.Env, *names: str):
    """Take the named actions in turn; the last step's result."""
    result = None
    for name in names:
        result = act(env, name)
    return result


def table(env: gym.Env) -> dict:
    """The public table: ``describe()``."""
    return env.unwrapped.describe()


def legal(env: gym.Env) -> set[str]:
    """The names of the legal actions (none once the game is over, where the mask offers every action)."""
    return set(env.unwrapped.legal_action_names())


def random_legal(rng: np.random.Generator, mask) -> int:
    choices = np.flatnonzero(mask)
    return int(choices[rng.integers(choices.size)])


def same(a, b) -> bool:
    """Deep equality of saved states: dicts, lists, numpy arrays and game states (``equals``)."""
    if hasattr(a, "equals"):
        return a.equals(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def place_in_dungeon(env, adventurer=None, monsters=None, hp=None, **skills):
    """One Card Dungeon's table set by hand: the adventurer's tile, each monster slot's tile (None = dead) and
    health, and any skill or counter of the state (``range=5``, ``health=3``)."""
    saved = env.get_state()
    s = saved["game"]
    if adventurer is not None:
        s.pos = one_card_dungeon_rules.tile(*adventurer)
    if monsters is not None:
        s.monster_pos[:] = -1
        s.monster_hp[:] = 0
        for k, where in enumerate(monsters):
            if where is not None:
                s.monster_pos[k] = one_card_dungeon_rules.tile(*where)
                s.monster_hp[k] = one_card_dungeon_rules.LEVEL_MONSTER[s.level].hp if hp is None else hp[k]
    for name, value in skills.items():
        assert hasattr(s, name), name
        setattr(s, name, value)
    env.set_state(saved)


def passes_as_plain_python(test_file: str) -> None:
    """The tests of ``test_file`` pass with ``NUMBA_DISABLE_JIT=1``: the same compiled functions run as plain Python
    (what coverage and a debugger see)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", test_file]
    result = subprocess.run(command, env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in result.stdout


PLAIN_PYTHON = os.environ.get("NUMBA_DISABLE_JIT") == "1"  # a test that runs its own file as plain Python skips then


# ---------------------------------------------------------------- vector envs against single envs

def played_games(rules, deals: list, rng: np.random.Generator) -> list:
    """300 games of a solitaire in every phase: each dealt (with ``deals[seed % len(deals)]``), then played some
    random legal moves on."""
    games = []
    for seed in range(300):
        s = rules.new_game(np.random.default_rng(seed), **deals[seed % len(deals)])
        for _ in range(rng.integers(0, 40)):
            legal = np.flatnonzero(rules.legal_mask(s))
            if not len(legal):
                break
            s = rules.apply(s, int(rng.choice(legal)))
        games.append(s)
    return games


def check_row_loops(rules, deals: list) -> None:
    """The compiled loops a vector env runs over its rows (``take_actions``, ``play_forced_rows``,
    ``fill_legal_masks`` and ``fill_observations``) are the single-game functions, on games in every phase."""
    rng = np.random.default_rng(7)
    games = played_games(rules, deals, rng)
    data = np.stack([s.data for s in games])
    masks = np.empty((len(games), rules.NUM_ACTIONS), dtype=bool)
    rules.fill_legal_masks(data, masks)
    observations = np.empty((len(games), rules.OBSERVATION_SIZE), dtype=np.float32)
    rules.fill_observations(data, observations)
    for k, s in enumerate(games):
        assert np.array_equal(masks[k], rules.legal_mask(s)) and np.array_equal(observations[k], rules.observe(s))
    playing = masks.any(axis=1)
    actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
    rules.take_actions(data, actions, playing)
    rules.play_forced_rows(data, playing)
    for k, s in enumerate(games):
        expected = rules.play(s, int(actions[k]), None, skip_forced=True)[0] if playing[k] else s
        assert np.array_equal(data[k], expected.data)


def random_actions(rng: np.random.Generator, masks) -> np.ndarray:
    """A random legal action per game of a vector env (0 where a game has none: it is starting over)."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


AUTORESET_MODES = [gym.vector.AutoresetMode.NEXT_STEP, gym.vector.AutoresetMode.SAME_STEP,
                   gym.vector.AutoresetMode.DISABLED]


def same_info(one: dict, other: dict) -> bool:
    """Two infos agree key for key and value for value, each value of the same dtype and shape."""
    def agree(a, b) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return one.keys() == other.keys() and all(agree(one[key], other[key]) for key in one)


class SideBySide:
    """A native vector env and ``num_envs`` single envs of the same game, stepped with the same actions; every
    reset and step asserts that they agree: observations, rewards, ends, masks, the outcome at each end, the
    illegal-action flag, and the full state of every game (hidden parts included).

    ``reset_options`` go to the first reset only: a game started over after an end is dealt as by a single
    env's ``reset()`` without options, in both. ``autoreset_mode``: with ``NEXT_STEP`` a game that ended starts
    over at the next step (its row's mask all ones until then); with ``SAME_STEP`` in the step that ended it (the
    end in ``final_obs`` and ``final_info``); with ``DISABLED`` the finished games are started over here, after
    the step, by ``reset(options={"reset_mask": ...})``. The games played are the same in every mode.
    """

    def __init__(self, env_id: str, num_envs: int, seed: int, reset_options=None,
                 autoreset_mode=gym.vector.AutoresetMode.NEXT_STEP, **options):
        self.vector = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point",
                                   autoreset_mode=autoreset_mode, **options)
        self.mode = self.vector.autoreset_mode
        assert self.mode == gym.vector.AutoresetMode(autoreset_mode)
        self.singles = [gym.make(env_id, **options).unwrapped for _ in range(num_envs)]
        self.observations, self.infos = self.vector.reset(seed=seed, options=reset_options)
        self.keys = set(self.infos)
        self.single_infos = [None] * num_envs  # each single env's info of its last step
        for i, single in enumerate(self.singles):
            single_obs, single_info = single.reset(seed=seed + i, options=reset_options)
            self._agree(i, single_obs, single_info)
        self.starting_over = np.zeros(num_envs, dtype=bool)

    @property
    def masks(self) -> np.ndarray:
        return self.infos["action_mask"]

    def step(self, actions, before=None) -> list:
        """One step of every game; ``before(i, single, action)`` is called before single env i's step. Returns (game
        index, the single env's final info) for every game that ended."""
        self.observations, rewards, terminated, truncated, self.infos = self.vector.step(actions)
        final_keys = {"final_obs", "_final_obs", "final_info", "_final_info"}
        # One set of keys on every reset and step, and same-step autoreset's end only in a step where a game ended.
        ended_now = (terminated | truncated).any() and self.mode == gym.vector.AutoresetMode.SAME_STEP
        assert set(self.infos) == self.keys | (final_keys if ended_now else set())
        ended = []
        for i, single in enumerate(self.singles):
            if self.starting_over[i]:
                assert self.mode == gym.vector.AutoresetMode.NEXT_STEP
                single_obs, single_info = single.reset()
                reward, ended_here, cut_here = 0.0, False, False
            else:
                # As given: an entry that names no action is the single env's illegal action too.
                action = actions[i]
                if before is not None:
                    before(i, single, action)
                single_obs, reward, ended_here, cut_here, single_info = single.step(action)
            assert (rewards[i], terminated[i], truncated[i]) == (reward, ended_here, cut_here)
            self.single_infos[i] = single_info
            if ended_here or cut_here:
                ended.append((i, single_info))
            if self.mode == gym.vector.AutoresetMode.SAME_STEP:
                self._agree_at_once(i, single, single_obs, single_info, ended_here or cut_here)
            else:
                self._agree(i, single_obs, single_info, finished=ended_here or cut_here)
                self._agree_outcome(i, self.infos, single_info, ended_here or cut_here)
            self.starting_over[i] = (ended_here or cut_here) and self.mode == gym.vector.AutoresetMode.NEXT_STEP
        if self.mode == gym.vector.AutoresetMode.DISABLED and ended:
            waiting = np.zeros(len(self.singles), dtype=bool)
            waiting[[i for i, _ in ended]] = True
            fresh, fresh_infos = self.vector.reset(options={"reset_mask": waiting})
            assert set(fresh_infos) == self.keys
            self.observations, self.infos = fresh, fresh_infos
            for i in np.flatnonzero(waiting):
                self._agree(i, *self.singles[i].reset())
        return ended

    def _agree_at_once(self, i, single, single_obs, single_info, finished) -> None:
        """Same-step autoreset: the end in final_obs and final_info, and the next game already in the row."""
        assert not self.infos["_won"][i] and not self.infos["_illegal_action"][i]  # the new game's reset info
        if "final_info" not in self.infos:  # no game ended in this step
            assert not finished
            self._agree(i, single_obs, single_info)
            return
        final_info = self.infos["final_info"]
        assert bool(self.infos["_final_obs"][i]) == finished and bool(self.infos["_final_info"][i]) == finished
        if finished:
            assert np.array_equal(self.infos["final_obs"][i], single_obs)
            assert np.array_equal(final_info["action_mask"][i], single_info["action_mask"])
            self._agree_outcome(i, final_info, single_info, True)
            single_obs, single_info = single.reset()
        else:
            assert self.infos["final_obs"][i] is None
            assert not any(final_info[key][i] for key in final_info if key.startswith("_"))
        self._agree(i, single_obs, single_info)

    def _agree_outcome(self, i, infos, single_info, finished) -> None:
        """The vector infos hold game i's info as the single env's info has it, key for key and value for value,
        and their outcome masks hold the game exactly where it ended."""
        assert same_info(self.vector.info_of(infos, i), single_info)
        if finished:
            assert {"won", "score"} <= set(single_info)
        assert bool(infos["_won"][i]) == bool(infos["_result"][i]) == finished

    def _agree(self, i: int, single_obs, single_info, finished=False) -> None:
        assert np.array_equal(self.observations[i], single_obs)
        assert same_info(self.vector.info_of(self.infos, i), single_info)
        if finished:  # no legal action is left, and both offer every action (it is ignored)
            assert single_info["action_mask"].all() and self.infos["action_mask"][i].all()
        else:
            assert np.array_equal(self.infos["action_mask"][i], single_info["action_mask"])
        assert self.vector.take(i).equals(self.singles[i].state)


def play_steps(env: gym.Env, agent, steps: int, seed: int) -> None:
    """``steps`` of ``agent`` through the agent protocol (a new episode whenever one ends), from the deal ``seed``;
    an env made with ``illegal_action="raise"`` fails on any illegal choice."""
    obs, info = env.reset(seed=seed)
    for _ in range(steps):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info["action_mask"]))
        if terminated or truncated:
            obs, info = env.reset()


def play_legally(env: gym.Env, agent, seed: int) -> dict:
    """One game of ``agent`` from ``env.reset(seed=seed)``, every action checked to be a legal int; the last info."""
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        action = agent.act(obs, info["action_mask"])
        assert isinstance(action, int) and info["action_mask"][action]
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return info
