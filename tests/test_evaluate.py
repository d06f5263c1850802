"""Evaluation: Wilson intervals and reproducible, well-formed results."""

import json
import math

import pytest

from tabletop_gym.agents import RandomAgent
from tabletop_gym.benchmarks import cli
from tabletop_gym.benchmarks.evaluation.evaluate import RECORD_FIELDS, evaluate, in_workers, wilson_interval


@pytest.mark.parametrize("wins, n, low, high", [
    (0, 10, 0.0, 0.2775),       # no success: the interval still reaches 28%
    (5, 10, 0.2366, 0.7634),
    (81, 263, 0.2553, 0.3662),  # Wilson's own example in the literature (Newcombe 1998, case 1)
    (10, 10, 0.7225, 1.0),
])
def test_wilson_interval_known_values(wins, n, low, high):
    got = wilson_interval(wins, n)
    assert got[0] == pytest.approx(low, abs=1e-4) and got[1] == pytest.approx(high, abs=1e-4)


@pytest.mark.parametrize("workers", [1, 2])
def test_in_workers_returns_each_chunks_result_in_the_chunks_order(workers):
    chunks = [9, 3, 7, 1, 5]
    seen = []
    got = in_workers(math.factorial, chunks, workers, lambda chunk, result: seen.append((chunk, result)))
    assert got == [362880, 6, 5040, 1, 120]
    assert sorted(seen) == sorted(zip(chunks, got))


def blas_threads(_) -> list:
    from threadpoolctl import threadpool_info

    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_workers_run_their_numerical_libraries_on_one_thread():
    import numpy as np

    np.ones((2, 2)) @ np.ones((2, 2))  # numpy's BLAS loaded here, with its threads, before the workers start
    found = in_workers(blas_threads, [0, 1, 2, 3], 2)
    assert all(found) and {n for threads in found for n in threads} == {1}


def test_one_worker_plays_on_one_thread_and_gives_this_process_its_threads_back():
    import numpy as np
    from threadpoolctl import threadpool_limits

    np.ones((2, 2)) @ np.ones((2, 2))
    with threadpool_limits(2):  # as on a machine of two cores or more, whatever this one has
        before = blas_threads(None)
        if not before or max(before) < 2:
            pytest.skip("BLAS runs one thread here, whatever it is asked: nothing to limit")
        found = in_workers(blas_threads, [0, 1], 1)
        assert found == [[1] * len(before)] * 2
        assert blas_threads(None) == before


def test_evaluate_is_reproducible_and_independent_of_workers():
    one = evaluate("dungeon_solitaire", "random", episodes=60, seed=3, workers=1, progress=False)
    two = evaluate("dungeon_solitaire", "random", episodes=60, seed=3, workers=2, progress=False)
    assert one == two
    assert one.episodes == 60 and 0 <= one.wins <= 60 and one.win_low <= one.win_rate <= one.win_high
    assert one.mean_length >= 1 and one.mean_score >= 0 and math.isfinite(one.mean_score)
    assert one.game == "Tabletop/DungeonSolitaire-v0" and one.agent == "random"


def test_evaluate_accepts_an_agent_object():
    result = evaluate("Tabletop/DungeonSolitaire-v0", RandomAgent(0), episodes=10, seed=0, workers=1,
                      progress=False)
    assert result.agent == "random" and result.episodes == 10  # the agent's own name


def test_evaluate_rejects_unknown_games_and_agents():
    with pytest.raises(ValueError, match="unknown game"):
        evaluate("chess", episodes=1, progress=False)
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate("dungeon_solitaire", "alphazero", episodes=1, workers=1, progress=False)


def test_evaluate_records_every_episode_in_seed_order(tmp_path):
    path = tmp_path / "episodes.jsonl"
    result = evaluate("royal_assassin", "heuristic", episodes=20, seed=5, workers=2, progress=False, record=str(path))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["seed"] for line in lines] == list(range(5, 25))
    assert sum(line["won"] for line in lines) == result.wins
    assert sum(line["length"] for line in lines) / 20 == pytest.approx(result.mean_length)
    assert all(set(line) == {"game", "agent", *RECORD_FIELDS} for line in lines)
    assert {(line["game"], line["agent"]) for line in lines} == {("Tabletop/RoyalAssassin-v0", "heuristic")}
    # The same deal played again gives the same line: records of two agents can be paired by seed.
    again = tmp_path / "again.jsonl"
    assert cli.main(["eval", "royal_assassin", "--agent", "heuristic", "--episodes", "3", "--seed", "5",
                     "--workers", "1", "--quiet", "--record", str(again)]) == 0
    assert again.read_text().splitlines() == path.read_text().splitlines()[:3]
