"""Splendor's compiled rules and greedy player play exactly the games the plain-numpy ones played before them.

``tests/oracles/splendor_rules.py`` and ``splendor_players.py`` are Splendor's rules and scripted players as they
stood before the move to numba. Both deal the game of each seed (2, 3 and 4 players) and take the same random legal
actions; after every action every part of the state, the legal mask, every seat's observation, the table as each
seat sees it and the outcome must be equal, and so must ``determinize`` and ``forfeit``; the greedy player must
choose as the oracle's on every decision of those games. The compiled loops of the vector env (and its compiled
step with the opponents) are held to the same functions on one game. With ``NUMBA_DISABLE_JIT=1`` the same
compiled functions run as plain Python: the rules tests pass that way too.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.typed import List
from oracles import splendor_players as oracle_players
from oracles import splendor_rules as oracle

from tabletop_gym.envs.splendor import players, rules

DEALS = 1000


def same_state(s, o) -> bool:
    return all(np.array_equal(np.asarray(getattr(s, name)), np.asarray(getattr(o, name)))
               for name, *_ in rules.State.PARTS)


def check_same(s, o, n: int, where) -> None:
    for name, *_ in rules.State.PARTS:
        assert np.array_equal(np.asarray(getattr(s, name)), np.asarray(getattr(o, name))), (where, name)
    assert np.array_equal(rules.legal_mask(s), oracle.legal_mask(o)), where
    for seat in range(n):
        assert np.array_equal(rules.observe(s, seat), oracle.observe(o, seat)), (where, seat)
        assert rules.describe(s, seat) == oracle.describe(o, seat), (where, seat)
        assert rules.outcome(s, seat) == oracle.outcome(o, seat), (where, seat)
    assert rules.describe(s) == oracle.describe(o), where
    assert rules.is_over(s) == oracle.is_over(o) and rules.is_truncated(s) == oracle.is_truncated(o), where
    assert rules.rewards(s) == oracle.rewards(o), where


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_move_of_a_thousand_deals_matches_the_plain_rules_and_players(num_players):
    choices = np.random.default_rng(num_players)
    moves = greedy_decisions = 0
    for seed in range(num_players - 2, DEALS, 3):  # 1,000 deals over the three player counts
        max_rounds = int(choices.integers(3, 40)) if seed % 7 == 0 else rules.DEFAULT_MAX_ROUNDS
        s = rules.new_game(np.random.default_rng(seed), num_players, max_rounds)
        o = oracle.new_game(np.random.default_rng(seed), num_players, max_rounds)
        check_same(s, o, num_players, (seed, 0))
        step = 0
        while True:
            mask = oracle.legal_mask(o)
            if not mask.any():
                break
            obs = oracle.observe(o, o.current)
            chosen = oracle_players.greedy_action(obs, mask)
            assert players.greedy_action(rules.observe(s, s.current), rules.legal_mask(s)) == chosen, (seed, step)
            greedy_decisions += 1
            if step % 17 == 5:  # now and then: resampled unseen cards, from the same generator
                seat = int(choices.integers(num_players))
                draw = int(choices.integers(2**31))
                d = rules.determinize(s, np.random.default_rng(draw), seat)
                assert same_state(d, oracle.determinize(o, np.random.default_rng(draw), seat)), (seed, step)
            legal = np.flatnonzero(mask)
            action = chosen if choices.random() < 0.3 else int(legal[choices.integers(legal.size)])
            s, o = rules.apply(s, action), oracle.apply(o, action)
            step += 1
            moves += 1
            check_same(s, o, num_players, (seed, step))
        seat = int(choices.integers(num_players))
        check_same(rules.forfeit(s, seat), oracle.forfeit(o, seat), num_players, (seed, "forfeit"))
    assert moves > 20 * DEALS // 3 and greedy_decisions == moves


def played_games(rng, games: int = 40) -> list:
    """States met in play, over the player counts, over and truncated ones included."""
    tables = []
    for g in range(games):
        n = 2 + g % 3
        s = rules.new_game(rng, n, max_rounds=int(rng.integers(3, 40)))
        while True:
            tables.append(s)
            mask = rules.legal_mask(s)
            if not mask.any():
                break
            legal = np.flatnonzero(mask)
            s = rules.apply(s, int(legal[rng.integers(legal.size)]))
    return [tables[i] for i in rng.choice(len(tables), 400, replace=False)]


def test_the_vector_loops_are_the_single_game_functions():
    rng = np.random.default_rng(7)
    tables = played_games(rng)
    data = np.stack([s.data for s in tables])
    masks = np.empty((len(tables), rules.NUM_ACTIONS), dtype=bool)
    rules.fill_legal_masks(data, masks)
    assert np.array_equal(masks, [rules.legal_mask(s) for s in tables])
    seats = np.array([int(rng.integers(s.num_players)) for s in tables], dtype=np.int64)
    observations = np.empty((len(tables), rules.OBSERVATION_SIZE), dtype=np.float32)
    rules.fill_observations(data, seats, observations)
    assert np.array_equal(observations, [rules.observe(s, k) for s, k in zip(tables, seats)])
    rows = masks.any(axis=1) & (rng.random(len(tables)) < 0.8)
    actions = np.array([int(rng.choice(np.flatnonzero(m))) if r else 0 for m, r in zip(masks, rows)], dtype=np.int64)
    played = data.copy()
    rules.take_actions(played, actions, rows)
    for i, s in enumerate(tables):
        expected = rules.apply(s, int(actions[i])).data if rows[i] else s.data
        assert np.array_equal(played[i], expected), i
    forced = data.copy()
    rules.play_forced_rows(forced, rows)
    for i, s in enumerate(tables):
        expected = s.copy()
        if rows[i]:
            mask = rules.legal_mask(expected)
            while mask.sum() == 1:
                expected = rules.apply(expected, int(mask.argmax()))
                mask = rules.legal_mask(expected)
        assert np.array_equal(forced[i], expected.data), i
    forfeited = data.copy()
    rules.forfeit_rows(forfeited, rows, seats)
    for i, s in enumerate(tables):
        assert np.array_equal(forfeited[i], rules.forfeit(s, int(seats[i])).data if rows[i] else s.data), i


def test_the_compiled_step_plays_the_opponents_as_the_oracle_would():
    """``players.play_rows_until_learner`` (greedy and random opponents inside, each game's generator drawn as
    ``random_action`` draws it) and ``players.play_until_learner`` on one game (stopping at a random opponent's
    choice), against the oracle played move by move."""
    rng = np.random.default_rng(3)
    tables = played_games(rng)
    data = np.stack([s.data for s in tables])
    learners = np.array([int(rng.integers(s.num_players)) for s in tables], dtype=np.int64)
    greedy = rng.random((len(tables), rules.MAX_PLAYERS)) < 0.6
    rows = np.ones(len(tables), dtype=bool)
    rngs = [np.random.default_rng(i) for i in range(len(tables))]
    players.play_rows_until_learner(data, rows, learners, greedy, True, List(rngs))
    for i, s in enumerate(tables):
        o = oracle.new_game(np.random.default_rng(0), s.num_players, s.max_rounds)
        o.__dict__.update({name: getattr(s, name).astype(getattr(o, name).dtype) if shape else
                           type(getattr(o, name))(getattr(s, name)) for name, shape, *_ in rules.State.PARTS})
        # Played to the learner's decision (the rows), and to the first random choice (one game, logged).
        first_stop = None
        row_rng = np.random.default_rng(i)
        moves = []
        while True:
            mask = oracle.legal_mask(o)
            if o.current != learners[i]:
                if not mask.any():
                    why = players.PLAYED
                    break
                if mask.sum() == 1:
                    action = int(mask.argmax())
                elif greedy[i, o.current]:
                    action = oracle_players.greedy_action(oracle.observe(o, o.current), mask)
                else:
                    if first_stop is None:
                        first_stop = o, list(moves), mask
                    action = oracle_players.random_action(mask, row_rng)
                if first_stop is None:
                    moves.append([int(o.current), action])
            elif mask.sum() == 1:
                action = int(mask.argmax())
            else:
                break
            o = oracle.apply(o, action)
        got = rules.State.__new__(rules.State)
        got.data = data[i]
        assert same_state(got, o) and rngs[i].bit_generator.state == row_rng.bit_generator.state, i
        why = players.PLAYED if first_stop is None else players.RANDOM_TO_CHOOSE
        if first_stop is not None:
            o, moves, _ = first_stop
        one = s.copy()
        log = np.zeros((4, 2), dtype=np.int64)  # a small log: the moves come in parts
        logged = []
        mask = np.empty(rules.NUM_ACTIONS, dtype=bool)
        obs = np.empty(rules.OBSERVATION_SIZE, dtype=np.float32)
        while True:
            log[0, 0] = 0
            stop = players.play_until_learner(one.data, learners[i], greedy[i], True, mask, obs, log)
            logged += log[1:log[0, 0] + 1].tolist()
            if stop != players.LOG_FULL:
                break
        assert stop == why and same_state(one, o) and logged == moves, i
        assert np.array_equal(mask, oracle.legal_mask(o)), i


def test_the_rules_pass_as_plain_python():
    # What coverage and a debugger see: the same functions, not compiled.
    here = Path(__file__).parent
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                             str(here / "test_splendor_rules.py")],
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in result.stdout
