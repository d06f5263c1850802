"""Helpers shared by the tests."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import tabletop_gym.envs  # noqa: F401  (registers the games)
from tabletop_gym.envs.core.cards import card_code, parse_card


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
    names = env.unwrapped.action_names
    return {names[i] for i in np.flatnonzero(env.unwrapped.action_masks())}


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
