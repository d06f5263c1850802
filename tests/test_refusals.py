"""A call that raises changes nothing, in every env: single, AEC and vector.

For each env, Hypothesis plays a little from a drawn seed, takes a snapshot of everything a call could change (the
full state with its hidden parts, the random generator's state, the public table, the mask, the seat), makes a bad
call of a drawn kind (``set_state`` of a wrong input, ``reset`` with bad options or seeds, a bad action, a call
before ``reset``), and checks that it raised a clear error (a TypeError, ValueError or Gymnasium error, not an
AttributeError, KeyError or IndexError from deep inside) and that the snapshot is exactly as it was.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import random_actions, random_legal, same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_gym.envs import GAMES, EpisodeOverError, IllegalActionError, splendor_v0

GAME_IDS = [game.id for game in GAMES.values()]
CLEAR = (TypeError, ValueError, gym.error.Error, EpisodeOverError)
UNCLEAR = (AttributeError, KeyError, IndexError)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                    derandomize=True)


def refused(call) -> BaseException:
    """Make the call; it must raise a clear error, which is returned."""
    try:
        call()
    except BaseException as error:  # noqa: BLE001 (any escape is judged below)
        assert isinstance(error, CLEAR) and not isinstance(error, UNCLEAR), repr(error)
        return error
    raise AssertionError("the bad call did not raise")


# ------------------------------------------------------------------ bad inputs, drawn

OTHER_STATES = {}  # env id or name -> a saved state of that env after reset, to offer to the others


def other_state(name: str, make) -> dict:
    if name not in OTHER_STATES:
        env = make()
        env.reset(seed=1)
        OTHER_STATES[name] = env.get_state()
    return copy.deepcopy(OTHER_STATES[name])


def others_for(kind: str) -> list:
    """Saved states that no env of ``kind`` takes: every other game's, and its own game's under other options."""
    states = [other_state(env_id, lambda env_id=env_id: gym.make(env_id).unwrapped)
              for env_id in GAME_IDS if env_id != kind]
    states.append(other_state("aec-2", lambda: splendor_v0.raw_env(num_players=2)))
    variants = {
        "Tabletop/DeadCenter-v0": {"jokers": 1},
        "Tabletop/OneCardDungeon-v0": {"max_turns": 50},
        "Tabletop/DungeonSolitaire-v0": {"min_delve_turns_before_retreat": 3},
        "Tabletop/Splendor-v0": {"num_players": 3},
    }
    if kind in variants:
        states.append(other_state(f"{kind} {variants[kind]}", lambda: gym.make(kind, **variants[kind]).unwrapped))
    return states


def broken_field(game, data):
    """``game`` (a copy) with one field made wrong: another type, shape or dtype, removed, or an extra one."""
    game = copy.deepcopy(game)
    names = sorted(vars(game))
    name = data.draw(st.sampled_from(names), label="field")
    value = getattr(game, name)
    how = data.draw(st.sampled_from(["text", "none", "list", "remove", "extra", "shape", "dtype", "bool"]),
                    label="how")
    if how == "remove":
        delattr(game, name)
    elif how == "extra":
        game.not_a_field = 1
    elif how in ("shape", "dtype") and isinstance(value, np.ndarray):
        setattr(game, name, np.append(value, value.flat[:1]) if how == "shape"
                else value.astype(np.float64 if value.dtype != np.float64 else np.int8))
    elif how in ("shape", "dtype"):
        setattr(game, name, np.zeros(3))  # a number made an array
    elif how == "bool" and not isinstance(value, (bool, np.bool_)):
        setattr(game, name, True)
    elif how == "bool":
        setattr(game, name, 1)  # a flag made a number
    else:
        setattr(game, name, {"text": "x", "none": None, "list": [1, 2]}[how if how != "bool" else "text"])
    return game


def bad_saved(good: dict, others: list, data, extra=()) -> object:
    """A ``set_state`` input that is wrong in a drawn way, built around ``good`` (this env's own saved state)."""
    kinds = ["not a dict", "no game", "no rng", "empty", "another game", "a field", "rng text", "rng empty",
             "rng kind", "rng inside", *extra]
    kind = data.draw(st.sampled_from(kinds), label="bad state")
    if kind == "not a dict":
        return data.draw(st.sampled_from([None, 5, "state", [good], (good,)]))
    if kind == "no game":
        return {k: v for k, v in good.items() if k != "game"}
    if kind == "no rng":
        return {k: v for k, v in good.items() if k != "rng"}
    if kind == "empty":
        return {}
    if kind == "another game":
        other = data.draw(st.sampled_from(others), label="other")
        return {**good, "game": other["game"]}
    if kind == "a field":
        return {**good, "game": broken_field(good["game"], data)}
    if kind == "rng text":
        return {**good, "rng": "x"}
    if kind == "rng empty":
        return {**good, "rng": {}}
    if kind == "rng kind":
        return {**good, "rng": np.random.MT19937(0).state}
    if kind == "rng inside":
        return {**good, "rng": {**good["rng"], "state": {"state": "x", "inc": 1}}}
    return extra_bad(kind, good)


def extra_bad(kind: str, good: dict) -> dict:
    """The inputs only some envs have: Splendor's seat, the AEC env's bookkeeping."""
    if kind.startswith("seat "):
        return {**good, "seat": {"seat 9": 9, "seat x": "x", "seat -1": -1, "seat 1.0": 1.0}[kind]}
    if kind == "no agents":
        return {k: v for k, v in good.items() if k != "agents"}
    if kind == "agent 9":
        return {**good, "agent_selection": "player_9"}
    if kind == "rewards list":
        return {**good, "rewards": [0.0, 0.0]}
    raise AssertionError(kind)


BAD_OPTIONS = ["deck", 5, [("deck", None)], {"shuffle": True}, {"deck": [99]}, {"deck": "5D"}, {"deck": ["AS", "AS"]}]
BAD_SEEDS = [-1, "x", 1.5, [0, 1]]


# ------------------------------------------------------------------ single envs

def single_snapshot(env) -> dict:
    generator = env._np_random
    snapshot = {"state": env.get_state() if env.state is not None else None,
                "rng": None if generator is None else generator.bit_generator.state,
                "mask": None if env._mask is None else env.action_masks()}
    if env.state is not None:
        snapshot["table"] = env.describe()
    if hasattr(env, "seat"):
        snapshot["seat"] = env.seat
    return snapshot


def play_a_little(env, data) -> None:
    """Reset with a drawn seed and take a few random legal steps (stopping at an end)."""
    seed = data.draw(st.integers(0, 50), label="seed")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(data.draw(st.integers(0, 6), label="steps")):
        _, _, terminated, truncated, _ = env.step(random_legal(rng, env.action_masks()))
        if terminated or truncated:
            break


SINGLES = [(env_id, {}) for env_id in GAME_IDS] + [("Tabletop/Splendor-v0", {"seat": "random", "opponent": "random"})]


def single_bad_call(env, env_id: str, data):
    """A drawn bad call on a single env that has been reset."""
    kind = data.draw(st.sampled_from(["set_state", "reset options", "reset seed", "step", "determinize"]),
                     label="call")
    if kind == "set_state":
        extra = ("seat 9", "seat x", "seat -1", "seat 1.0") if "Splendor" in env_id else ()
        saved = bad_saved(env.get_state(), others_for(env_id), data, extra)
        return lambda: env.set_state(saved)
    if kind == "reset options":
        options = data.draw(st.sampled_from(BAD_OPTIONS), label="options")
        seed = data.draw(st.sampled_from([None, 0, 7]), label="seed")
        return lambda: env.reset(seed=seed, options=options)
    if kind == "reset seed":
        seed = data.draw(st.sampled_from(BAD_SEEDS), label="seed")
        return lambda: env.reset(seed=seed)
    if kind == "determinize":
        rng = data.draw(st.sampled_from([5, None, "rng", np.random.RandomState(0)]), label="rng")
        return lambda: env.determinize(rng)
    # A bad action with illegal_action="raise" (the default mode plays a forfeit, which is not a refusal).
    env.illegal_action = "raise"
    mask = env.action_masks()
    choices = ["x", 2.5, None, -1, len(mask), True, [0, 1]] + [int(a) for a in np.flatnonzero(~mask)[:3]]
    action = data.draw(st.sampled_from(choices), label="action")
    return lambda: env.step(action)


@pytest.mark.parametrize("env_id, options", SINGLES, ids=[f"{i}{o}" for i, o in SINGLES])
@SETTINGS
@given(data=st.data())
def test_a_refused_call_changes_nothing_in_a_single_env(env_id, options, data):
    env = gym.make(env_id, **options).unwrapped
    play_a_little(env, data)
    call = single_bad_call(env, env_id, data)
    before = single_snapshot(env)
    refused(call)
    assert same(single_snapshot(env), before)
    env.illegal_action = "terminate"
    env.step(int(np.flatnonzero(env.action_masks())[0])) if env.legal_action_names() else env.reset()


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_calls_before_reset_raise_reset_needed_and_change_nothing(env_id):
    env = gym.make(env_id).unwrapped
    before = single_snapshot(env)
    for call in (env.get_state, lambda: env.determinize(np.random.default_rng(0)), env.describe, env.outcome,
                 env.action_masks, env.legal_action_names, lambda: env.step(0)):
        with pytest.raises(gym.error.ResetNeeded, match="call reset"):
            call()
        assert same(single_snapshot(env), before) and env._np_random is None


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_refused_first_reset_leaves_the_env_unreset(env_id):
    env = gym.make(env_id).unwrapped
    refused(lambda: env.reset(seed=3, options={"deck": [99]} if "OneCard" not in env_id else {"level": 0}))
    assert env.state is None and env._np_random is None and env._np_random_seed is None
    with pytest.raises(gym.error.ResetNeeded):
        env.describe()


# ------------------------------------------------------------------ the AEC env

def aec_snapshot(env) -> dict:
    raw = env.unwrapped
    return {"state": raw.get_state(), "rng": raw.np_random.bit_generator.state, "table": raw.describe(),
            "mask": raw.action_mask(), "agent": raw.agent_selection,
            "observations": [raw.observe(agent) for agent in raw.possible_agents]}


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@SETTINGS
@given(data=st.data())
def test_a_refused_call_changes_nothing_in_the_aec_env(wrapped, data):
    make = splendor_v0.env if wrapped else splendor_v0.raw_env
    num_players = data.draw(st.sampled_from([2, 3, 4]), label="num_players")
    env = make(num_players=num_players, illegal_action="raise")
    seed = data.draw(st.integers(0, 50), label="seed")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(data.draw(st.integers(0, 8), label="steps")):
        env.step(random_legal(rng, env.unwrapped.action_mask()))
    raw = env.unwrapped
    kind = data.draw(st.sampled_from(["set_state", "reset options", "reset seed", "step", "observe", "describe",
                                      "determinize"]), label="call")
    if kind == "set_state":
        others = others_for("aec") + [other_state(f"aec-{k}", lambda k=k: splendor_v0.raw_env(num_players=k))
                                      for k in (2, 3, 4) if k != num_players]
        saved = bad_saved(raw.get_state(), others, data, ("no agents", "agent 9", "rewards list"))
        call = lambda: env.set_state(saved)  # noqa: E731
    elif kind == "reset options":
        options = data.draw(st.sampled_from(BAD_OPTIONS[:2] + [{"deck": {"tier1": [99]}}, {"deck": "x"}]))
        seed = data.draw(st.sampled_from([None, 0, 7]), label="seed")
        call = lambda: env.reset(seed=seed, options=options)  # noqa: E731
    elif kind == "reset seed":
        seed = data.draw(st.sampled_from(BAD_SEEDS), label="seed")
        call = lambda: env.reset(seed=seed)  # noqa: E731
    elif kind == "step":
        mask = raw.action_mask()
        illegal = [int(a) for a in np.flatnonzero(~mask)[:3]]
        action = data.draw(st.sampled_from(["x", 2.5, -1, len(mask), True] + illegal), label="action")
        call = lambda: env.step(action)  # noqa: E731
    elif kind == "observe":
        agent = data.draw(st.sampled_from(["player_9", 0, None]))
        call = lambda: env.observe(agent)  # noqa: E731
    elif kind == "describe":
        seat = data.draw(st.sampled_from([9, -1, "x", 1.0]))
        call = lambda: raw.describe(seat)  # noqa: E731
    else:
        rng_arg, seat = data.draw(st.sampled_from([(5, None), (np.random.default_rng(0), 9),
                                                   (np.random.default_rng(0), "x")]))
        call = lambda: raw.determinize(rng_arg, seat=seat)  # noqa: E731
    before = aec_snapshot(env)
    refused(call)
    assert same(aec_snapshot(env), before)


def test_the_aec_env_before_reset_raises_reset_needed():
    env = splendor_v0.raw_env()
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.describe, env.action_mask,
                 env.get_state, lambda: env.determinize(np.random.default_rng(0))):
        with pytest.raises(gym.error.ResetNeeded, match="call reset"):
            call()


# ------------------------------------------------------------------ the vector envs

def vector_snapshot(vector) -> dict:
    return {"games": [vector.take(i) for i in range(vector.num_envs)],
            "rngs": [rng.bit_generator.state for rng in vector._rngs],
            "mask": vector.action_masks(), "waiting": vector._needs_reset.copy(),
            "seats": getattr(vector, "seats", np.zeros(0)).copy()}


VECTORS = [(game.id, mode) for game in GAMES.values() if game.vector_env
           for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED)]


@pytest.mark.parametrize("env_id, mode", VECTORS, ids=[f"{i}-{m.value}" for i, m in VECTORS])
@SETTINGS
@given(data=st.data())
def test_a_refused_call_changes_nothing_in_a_vector_env(env_id, mode, data):
    options = {"seat": "random", "opponent": "random"} if "Splendor" in env_id else {}
    illegal_action = data.draw(st.sampled_from(["terminate", "raise"]), label="illegal_action")
    vector = gym.make_vec(env_id, num_envs=4, autoreset_mode=mode, illegal_action=illegal_action, **options)
    seed = data.draw(st.integers(0, 50), label="seed")
    _, infos = vector.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(data.draw(st.integers(0, 6), label="steps")):
        if vector._needs_reset.any() and mode == AutoresetMode.DISABLED:
            break
        _, _, _, _, infos = vector.step(random_actions(rng, vector.action_masks()))
    kinds = ["reset options", "reset seed", "reset mask", "actions shape"]
    if illegal_action == "raise":
        kinds.append("illegal action")
    if mode == AutoresetMode.DISABLED and vector._needs_reset.any():
        kinds.append("finished game")
    kind = data.draw(st.sampled_from(kinds), label="call")
    if kind == "reset options":
        bad = data.draw(st.sampled_from(BAD_OPTIONS + [{"reset_mask": [1, 0, 1, 0]}]), label="options")
        seed = data.draw(st.sampled_from([None, 0, [5, 6, 7, 8]]), label="seed")
        call = lambda: vector.reset(seed=seed, options=bad)  # noqa: E731
    elif kind == "reset seed":
        seed = data.draw(st.sampled_from([-1, "x", 1.5, [0, 1], [0, 1, -2, 3], [0, 1, "x", 3]]), label="seed")
        call = lambda: vector.reset(seed=seed)  # noqa: E731
    elif kind == "reset mask":
        mask = data.draw(st.sampled_from([np.ones(3, bool), np.array([1, 0, 1, 0]), "all"]), label="mask")
        call = lambda: vector.reset(seed=9, options={"reset_mask": mask})  # noqa: E731
    elif kind == "actions shape":
        actions = data.draw(st.sampled_from([np.zeros(3, int), np.zeros((4, 1), int), 0, [[0], [1, 2], [], [3]]]))
        call = lambda: vector.step(actions)  # noqa: E731
    else:
        # An illegal action (or one naming no action) in one game, or a step while a game waits for its reset.
        actions = random_actions(rng, vector.action_masks()).astype(object)
        if kind == "illegal action":
            playing = np.flatnonzero(~vector._needs_reset)
            if not playing.size:
                return
            game = int(data.draw(st.sampled_from(playing.tolist()), label="game"))
            illegal = np.flatnonzero(~vector.action_masks()[game])
            actions[game] = data.draw(st.sampled_from(["x", 2.5, -1, 10**6] + illegal[:2].tolist()), label="action")
        call = lambda: vector.step(actions)  # noqa: E731
    before = vector_snapshot(vector)
    refused(call)
    assert same(vector_snapshot(vector), before)
    if mode == AutoresetMode.DISABLED and vector._needs_reset.any():
        vector.reset(options={"reset_mask": vector._needs_reset.copy()})
    vector.step(random_actions(rng, vector.action_masks()))  # and it plays on


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_a_whole_float_is_no_action_in_the_single_env(env_id):
    """As Gymnasium's ``Discrete.contains`` has it, a float names no action, a whole one included: refused with
    illegal_action="raise" (nothing changed), an illegal action that ends the game by default."""
    for illegal_action in ("raise", "terminate"):
        env = gym.make(env_id, illegal_action=illegal_action).unwrapped
        _, info = env.reset(seed=1)
        legal = int(np.flatnonzero(info["action_mask"])[0])
        for action in (float(legal), np.float64(legal), np.array(float(legal))):
            assert not env.action_space.contains(action)
            env.reset(seed=1)
            if illegal_action == "raise":
                before = env.get_state()
                with pytest.raises(IllegalActionError):
                    env.step(action)
                assert same(env.get_state(), before)
            else:
                _, _, terminated, _, info = env.step(action)
                assert terminated and info["illegal_action"] and not info["won"]


@pytest.mark.parametrize("env_id", [game.id for game in GAMES.values() if game.vector_env])
def test_a_whole_float_is_no_action_in_the_vector_env_either(env_id):
    """The vector env reads each entry of its action array as the single env reads an action: a float array, whole
    numbers and all, is refused with illegal_action="raise" and forfeits its games by default; a whole float among
    integers forfeits its own game only."""
    vector = gym.make_vec(env_id, num_envs=3, illegal_action="raise")
    _, infos = vector.reset(seed=1)
    before = vector_snapshot(vector)
    actions = random_actions(np.random.default_rng(0), infos["action_mask"])
    with pytest.raises(IllegalActionError, match="which names no action"):
        vector.step(actions.astype(np.float64))
    assert same(vector_snapshot(vector), before)

    vector = gym.make_vec(env_id, num_envs=3)
    vector.reset(seed=1)
    _, _, terminated, _, infos = vector.step(actions.astype(np.float64))
    assert terminated.all() and infos["illegal_action"].all()
    vector.reset(seed=1)
    mixed = actions.astype(object)
    mixed[1] = float(actions[1])
    _, _, terminated, _, infos = vector.step(mixed)
    assert infos["illegal_action"].tolist() == [False, True, False] and terminated[1]
